#!/usr/bin/env python3
"""How evenly a persistent attention kernel's static tile order loads its CTAs.

A model of fa4-persistent's schedule (lib/Transforms/Persistent.cpp): the
tiles of one (y, z) pair up as x = k and x = X - 1 - k when there are at
least as many pairs as CTAs, the pairs are numbered x first (or, with the
plan's `interleave_heads`, (y, z) first), and CTA c takes pairs c, c + P,
c + 2P, ... A tile's work is the number of key blocks it visits. Balance is
the mean CTA load over the largest: the share of the kernel's time the CTAs
are busy if every key block costs the same. The last column models the
dynamic schedule (`dynamic_schedule`): the tiles numbered in groups of G
(y, z) pairs, the pairs fastest within a group (G = the heads whose K and V
fit 16 MiB at d128, as the attention program's grid group; 1 for packed
sequences), each taken by the first CTA to come free. No GPU needed; it
predicts, the benchmark measures (bench/RESULTS.md).

    python3 bench/schedule_balance.py [--ctas 132] [--block-q 128] [--block-n 128]

prints the balance of both orders, folded or not, for the shapes of
bench/attention.py and bench/variants.py: dense causal and not, sliding
windows, and the packed batch of 64 mixed lengths (one tile list per head,
in the runner's order: the sequences with the most work first, each one's
last block first).
"""
import argparse
import heapq
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variants import packed_lengths  # noqa: E402


def cdiv(a, b):
    return -(-a // b)


def balance(work, heads, ctas, heads_first, fold):
    """`work[x]`: key blocks of tile x, the same for each of `heads` (y, z)
    pairs, on min(ctas, tiles) CTAs as the launch rule has it. Returns mean /
    max CTA load."""
    x_tiles = len(work)
    ctas = min(ctas, x_tiles * heads)
    half = (x_tiles + 1) // 2
    fold = fold and half * heads >= ctas
    slots = half if fold else x_tiles
    loads = [0] * ctas
    for v in range(slots * heads):
        k = v // heads if heads_first else v % slots
        tiles = [k]
        if fold and x_tiles - 1 - k != k:
            tiles.append(x_tiles - 1 - k)
        loads[v % ctas] += sum(work[x] for x in tiles)
    return sum(loads) / ctas / max(loads)


def dynamic(work, heads, ctas, group):
    """The dynamic schedule's balance: tile t of group g = t / (G X) is
    (x, pair) = (r / size, gG + r mod size), and each tile goes to the CTA
    that comes free first."""
    order = []
    for first in range(0, heads, group):
        size = min(group, heads - first)
        order += [work[x] for x in range(len(work)) for _ in range(size)]
    ctas = min(ctas, len(order))
    loads = [0] * ctas
    heapq.heapify(loads)
    for tile in order:
        heapq.heappush(loads, heapq.heappop(loads) + tile)
    return sum(loads) / ctas / max(loads)


def group_of(seq, head_dim=128, budget=16 << 20):
    """The attention program's grid group: heads whose K and V fit."""
    return max(1, budget // (seq * 4 * head_dim))


def dense(seq, block_q, block_n, causal, left=None):
    """Key blocks per query block of one head; `left` keys of window."""
    blocks = cdiv(seq, block_n)
    work = []
    for x in range(cdiv(seq, block_q)):
        last = min(blocks, cdiv((x + 1) * block_q, block_n)) if causal else blocks
        first = 0 if left is None else max(0, x * block_q - left) // block_n
        work.append(last - first)
    # The program visits its query blocks last first (tile x = X - 1 - x).
    return work[::-1]


def varlen(lengths, block_q, block_n, causal):
    """The runner's tile list: most work first, each sequence's last block
    first."""
    order = sorted(range(len(lengths)),
                   key=lambda b: -(2 * lengths[b] if causal else lengths[b]))
    work = []
    for b in order:
        n = lengths[b]
        for m in reversed(range(cdiv(n, block_q))):
            work.append(min(cdiv(n, block_n), cdiv((m + 1) * block_q, block_n))
                        if causal else cdiv(n, block_n))
    return work


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ctas", type=int, default=132,
                        help="CTAs of the persistent grid (default 132, the H200's SMs)")
    parser.add_argument("--block-q", type=int, default=128,
                        help="query rows of one tile (default 128)")
    parser.add_argument("--block-n", type=int, default=128,
                        help="key rows of one block (default 128)")
    args = parser.parse_args()
    bq, bn = args.block_q, args.block_n
    shapes = []
    for seq in (1024, 4096, 16384):
        batch = 16384 // seq
        for causal in (False, True):
            shapes.append((f"S={seq} B={batch} {'causal' if causal else 'full'}",
                           dense(seq, bq, bn, causal), 16 * batch, group_of(seq)))
    for seq in (4096, 16384):
        for left in (1024, 4096):
            shapes.append((f"S={seq} window {left},0 causal",
                           dense(seq, bq, bn, True, left), 16 * (16384 // seq),
                           group_of(seq)))
    lengths = packed_lengths(64, 128, 8192, 1)
    for causal in (False, True):
        shapes.append((f"varlen 64 of 128..8192 {'causal' if causal else 'full'}",
                       varlen(lengths, bq, bn, causal), 16, 1))
    print("| shape | x first, folded | x first | heads first, folded | heads first "
          "| dynamic |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, work, heads, group in shapes:
        cells = [balance(work, heads, args.ctas, heads_first, fold)
                 for heads_first in (False, True) for fold in (True, False)]
        cells.append(dynamic(work, heads, args.ctas, group))
        print(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")


if __name__ == "__main__":
    main()

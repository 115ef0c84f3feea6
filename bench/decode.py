#!/usr/bin/env python3
"""Benchmark fa4's decode (fa4.attention_with_kvcache) against cuDNN's and
FlashAttention-2's (torch's SDPA backends, GQA native) on the GPU machine.

One query token per sequence, 32 query heads over 8 KV heads, head dim 128,
bf16, every cache full (cache_seqlens = its length), K and V in
(B, S, HKV, D) memory for all three. Each call is captured 20 times into a
CUDA graph and the graph replayed: 3 untimed replays, then 5 timed ones
between CUDA events, the best's mean per call; fa4 and the backends by turns
within a shape. Bandwidth = the bytes of K and V / time; the reference is
a sum over 4 GiB of bf16 timed the same way in the same run (the read
bandwidth the card gives a streaming kernel).

    python3 bench/decode.py [--quick] [--plan FIELDS]... [--splits N] [--out table.md]
                            [--csv figures.csv]

--plan times fa4 with the main kernel's plan fields given (a row each,
"" the derived plan); --splits fixes the number of splits; --page-size N
times fa4 on the same keys in a paged cache too (pages of N keys in a
shuffled order, a block table), a row for each plan, "paged" in its plan
column. --csv writes every time as a row (b, s, impl, us, tbps; impl
"read" is the reference's bandwidth), which bench/plot_decode.py draws.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import fa4  # noqa: E402
from attention import write_table  # noqa: E402

SHAPES = [(1, 4096), (1, 16384), (1, 32768), (1, 131072), (8, 4096), (8, 8192),
          (8, 32768), (8, 131072), (16, 32768), (64, 4096), (64, 16384)]
QUICK = [(1, 4096), (1, 131072), (8, 8192), (64, 4096)]
CALLS = 20


def graphed(fn):
    """The mean seconds of one call of fn, replayed from a CUDA graph."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            fn()
    for _ in range(3):
        graph.replay()
    best = float("inf")
    for _ in range(5):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3 / CALLS)
    return best


def read_bandwidth():
    x = torch.ones(2 << 30, dtype=torch.bfloat16, device="cuda")
    return (4 << 30) / graphed(lambda: x.sum(dtype=torch.float32))


def sdpa(backend, q, kc, vc):
    qt, kt, vt = q.transpose(1, 2), kc.transpose(1, 2), vc.transpose(1, 2)

    def run():
        with torch.nn.attention.sdpa_kernel([backend]):
            return torch.nn.functional.scaled_dot_product_attention(
                qt, kt, vt, enable_gqa=True)
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--plan", action="append", default=None)
    parser.add_argument("--splits", type=int, default=0)
    parser.add_argument("--shapes", help="B:S,B:S,... instead of the sweep")
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--out")
    parser.add_argument("--csv")
    args = parser.parse_args()
    h, hkv, d = 32, 8, 128
    read = read_bandwidth()
    backends = [("cuDNN", torch.nn.attention.SDPBackend.CUDNN_ATTENTION),
                ("FA2", torch.nn.attention.SDPBackend.FLASH_ATTENTION)]
    lines = ["read bandwidth (sum over 4 GiB, bf16): %.2f TB/s" % (read / 1e12), "",
             "| B | context | plan | K+V MiB | splits | fa4 us | fa4 TB/s | of read | cuDNN us | "
             "cuDNN TB/s | FA2 us | FA2 TB/s | fa4 / cuDNN |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    shapes = QUICK if args.quick else SHAPES
    if args.shapes:
        shapes = [tuple(int(x) for x in item.split(":")) for item in args.shapes.split(",")]
    plans = args.plan or [""]
    rows = []
    for b, s in shapes:
        q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(b, s, hkv, d, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(b, s, hkv, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
        nbytes = 2 * kc.numel() * kc.element_size()
        times = {}

        def ours(plan):
            return lambda: fa4.attention_with_kvcache(q, kc, vc, cache_seqlens=lens,
                                                      num_splits=args.splits, plan=plan)
        runs = [("fa4 " + plan, ours(plan)) for plan in plans]
        if args.page_size:
            # The same keys in pages of a shuffled order.
            page = args.page_size
            count = b * s // page
            where = torch.randperm(count, device="cuda").int()
            kp, vp = torch.empty_like(kc).view(count, page, hkv, d), torch.empty_like(vc).view(
                count, page, hkv, d)
            kp[where.long()] = kc.view(count, page, hkv, d)
            vp[where.long()] = vc.view(count, page, hkv, d)
            table = where.view(b, s // page).contiguous()

            def paged(plan):
                return lambda: fa4.attention_with_kvcache(
                    q, kp, vp, cache_seqlens=lens, block_table=table,
                    num_splits=args.splits, plan=plan)
            runs += [("fa4 paged " + plan, paged(plan)) for plan in plans]
        for name, fn in runs + [
                (name, sdpa(backend, q, kc, vc)) for name, backend in backends]:
            try:
                times[name] = graphed(fn)
            except RuntimeError as error:
                times[name] = None
                print("%s at B=%d S=%d: %s" % (name, b, s, str(error).splitlines()[0]),
                      flush=True)

        def cols(name):
            t = times.get(name)
            return ("%.1f" % (t * 1e6), "%.2f" % (nbytes / t / 1e12)) if t else ("-", "-")
        for name, t in times.items():
            if t:
                rows.append((b, s, name.strip(), t * 1e6, nbytes / t / 1e12))
        rows.append((b, s, "read", nbytes / read * 1e6, read / 1e12))
        splits = args.splits or fa4.kvcache_splits(b, h, hkv, 1, s)
        for plan in plans + (["paged " + plan for plan in plans] if args.page_size else []):
            ours_t = times.get("fa4 " + plan)
            ratio = ("%.2f" % (times["cuDNN"] / ours_t)
                     if times.get("cuDNN") and ours_t else "-")
            share = "%.0f %%" % (100 * nbytes / ours_t / read) if ours_t else "-"
            line = "| %d | %d | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                b, s, plan.strip() or "derived", nbytes >> 20, splits, *cols("fa4 " + plan), share,
                *cols("cuDNN"), *cols("FA2"), ratio)
            lines.append(line)
            print(line, flush=True)
        torch.cuda.empty_cache()
    write_table(lines, args.out, echo=False)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("b,s,impl,us,tbps\n")
            for row in rows:
                f.write("%d,%d,%s,%.3f,%.4f\n" % row)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""fa4's attention variants beside its plain attention and torch's SDPA, in
one run on the GPU machine: grouped-query attention (H = 32 query heads,
8 KV heads) against the same attention with 32 KV heads, and Q, K, V, O laid
out (B, S, H, D) against (B, H, S, D); d128, B * S = 16384, S 4096 and 16384,
causal and not, bf16. torch's SDPA runs GQA with enable_gqa=True where a
backend takes it (a backend that refuses shows '-'). Then causal sliding
windows against the full causal attention (SDPA has no window to compare),
and packed sequences of mixed lengths against a dense batch of the same
flops (SDPA takes no cu_seqlens).

  bench/variants.py --fa4-run PATH --kernel-dir DIR [--iters N] [--out FILE]
                    [--sections gqa,window,varlen] [--rounds R]

With --rounds R the window and varlen tables time each kernel R times,
taking turns with the kernel they are compared with, and show the medians:
a ratio of two kernels timed apart moves by several per cent from one run to
the next on the same card, one of two timed by turns much less.
"""

import argparse
import re
import statistics
import subprocess

from attention import queued_ms, write_table

TIME = re.compile(r"time=([0-9.]+) ms\s+([0-9.]+) TFLOP/s")
BACKENDS = {"cuDNN": "CUDNN_ATTENTION", "FA2": "FLASH_ATTENTION"}


def fa4_run(args, kernel, extra):
    """fa4-run's (TFLOP/s, median ms) for kernel `kernel` on the attention
    arguments `extra`; (None, None) when it fails."""
    cmd = [args.fa4_run, "--kernel", f"{args.kernel_dir}/{kernel}.kernel",
           "--problem", "attention", "--bench", "--iters",
           str(args.iters)] + extra
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        return None, None
    found = TIME.search(out.stdout)
    if out.returncode != 0 or not found:
        return None, None
    return float(found.group(2)), float(found.group(1))


def fa4_ms(args, b, h, hkv, s, causal, window=None, tflops=False,
           layout="bhsd"):
    """fa4-run's median ms (and TFLOP/s) for one shape: the window kernel
    with a window, the plain one without."""
    kernel = "attention-hd128-window" if window else "attention-hd128"
    extra = ["--batch", str(b), "--heads", str(h), "--kv-heads", str(hkv),
             "--seq-q", str(s), "--seq-k", str(s), "--head-dim", "128",
             "--layout", layout]
    if causal:
        extra.append("--causal")
    if window:
        extra += ["--window", window]
    tf, ms = fa4_run(args, kernel, extra)
    return (tf, ms) if tflops else ms


def by_turns(rounds, runs):
    """Calls each of `runs` (functions giving (TFLOP/s, ms)) `rounds` times,
    one after the other, and returns each one's median (TFLOP/s, ms), or
    (None, None) when any of its runs failed."""
    results = [[] for _ in runs]
    for _ in range(rounds):
        for run, got in zip(runs, results):
            got.append(run())
    medians = []
    for got in results:
        if any(tf is None for tf, _ in got):
            medians.append((None, None))
        else:
            medians.append((statistics.median(tf for tf, _ in got),
                            statistics.median(ms for _, ms in got)))
    return medians


def packed_lengths(count, low, high, seed):
    """`count` sequence lengths drawn log-uniformly from [low, high]."""
    import math
    import random
    rng = random.Random(seed)
    return [int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
            for _ in range(count)]


def sdpa(torch, backend, b, h, hkv, s, causal, iters):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q = torch.randn(b, h, s, 128, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(b, hkv, s, 128, device="cuda", dtype=torch.bfloat16)
            for _ in range(2))
    extra = {"enable_gqa": True} if hkv != h else {}
    with sdpa_kernel([getattr(SDPBackend, BACKENDS[backend])]):
        best = queued_ms(torch, lambda: torch.nn.functional
                         .scaled_dot_product_attention(q, k, v,
                                                       is_causal=causal,
                                                       **extra),
                         iters)
    if best is None:
        return None
    flops = 4.0 * b * h * s * s * 128 * (0.5 if causal else 1.0)
    return flops / (best * 1e-3) / 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--kernel-dir", required=True)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--out")
    parser.add_argument("--sections", default="gqa,window,varlen",
                        help="which tables, comma separated")
    parser.add_argument("--rounds", type=int, default=1,
                        help="window and varlen: time each kernel this many "
                        "times by turns and show the medians")
    args = parser.parse_args()
    sections = args.sections.split(",")
    import torch

    fmt = lambda x: "-" if x is None else f"{x:.0f}"
    lines = []
    if "gqa" in sections:
        lines = ["| S | B | causal | fa4 GQA 32/8 | fa4 MHA 32/32 | GQA/MHA | "
                 "fa4 GQA bshd | cuDNN GQA | FA2 GQA | fa4/cuDNN GQA |",
                 "|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|"]
        print("\n".join(lines), flush=True)
    for s in (4096, 16384) if "gqa" in sections else ():
        b = 16384 // s
        for causal in (False, True):
            gqa = fa4_ms(args, b, 32, 8, s, causal, tflops=True)[0]
            mha = fa4_ms(args, b, 32, 32, s, causal, tflops=True)[0]
            bshd = fa4_ms(args, b, 32, 8, s, causal, tflops=True,
                          layout="bshd")[0]
            ref = {name: sdpa(torch, name, b, 32, 8, s, causal, args.iters)
                   for name in BACKENDS}
            ratio = (f"{gqa / mha:.2f}" if gqa and mha else "-")
            vs = (f"{gqa / ref['cuDNN']:.2f}" if gqa and ref["cuDNN"] else "-")
            line = (f"| {s} | {b} | {'yes' if causal else 'no'} | {fmt(gqa)} | "
                    f"{fmt(mha)} | {ratio} | {fmt(bshd)} | {fmt(ref['cuDNN'])} | "
                    f"{fmt(ref['FA2'])} | {vs} |")
            lines.append(line)
            print(line, flush=True)
    # Sliding windows: the blocks outside are skipped, so the time follows
    # the window, not the sequence (H = 16, B * S = 16384; TFLOP/s count the
    # pairs the window lets through).
    wlines = []
    if "window" in sections:
        wlines = ["", "| S | B | window | fa4 window TFLOP/s | ms | "
                  "fa4 causal ms | window/causal time | "
                  "window/causal TFLOP/s |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in (4096, 16384) if "window" in sections else ():
        b = 16384 // s
        runs = [lambda: fa4_ms(args, b, 16, 16, s, True, tflops=True)]
        runs += [lambda left=left: fa4_ms(args, b, 16, 16, s, True,
                                          f"{left},0", tflops=True)
                 for left in (1024, 4096)]
        measured = by_turns(args.rounds, runs)
        full_tf, full = measured[0]
        for left, (tf, ms) in zip((1024, 4096), measured[1:]):
            ratio = f"{ms / full:.2f}" if ms and full else "-"
            per_flop = f"{tf / full_tf:.2f}" if tf and full_tf else "-"
            wlines.append(f"| {s} | {b} | {left},0 causal | {fmt(tf)} | "
                          f"{ms if ms else '-'} | {full if full else '-'} | "
                          f"{ratio} | {per_flop} |")
            print(wlines[-1], flush=True)
    lines += wlines
    # Packed sequences of mixed lengths (64 drawn log-uniformly from 128 to
    # 8192 tokens, H = 16, d128) on the varlen kernel, beside the plain
    # kernel on a dense batch of S = 4096 with about the same flops (B =
    # the sequences' sum of squared lengths over 4096^2).
    vlines = []
    if "varlen" in sections:
        vlines = ["", "| packed | tokens | causal | fa4 varlen TFLOP/s | ms | "
                  "dense B x 4096 | fa4 dense TFLOP/s | varlen/dense |",
                  "|---|---:|:---:|---:|---:|---:|---:|---:|"]
        print("\n".join(vlines), flush=True)
        lengths = packed_lengths(64, 128, 8192, 1)
        dense_b = max(1, round(sum(n * n for n in lengths) / 4096 ** 2))
        for causal in (False, True):
            mask = ["--causal"] if causal else []
            (tf, ms), (dense, _) = by_turns(args.rounds, [
                lambda: fa4_run(args, "attention-hd128-varlen",
                                ["--heads", "16", "--head-dim", "128",
                                 "--seqlens", ",".join(map(str, lengths))]
                                + mask),
                lambda: fa4_run(args, "attention-hd128",
                                ["--batch", str(dense_b), "--heads", "16",
                                 "--seq-q", "4096", "--seq-k", "4096",
                                 "--head-dim", "128"] + mask)])
            ratio = f"{tf / dense:.2f}" if tf and dense else "-"
            vlines.append(f"| 64 of 128..8192 | {sum(lengths)} | "
                          f"{'yes' if causal else 'no'} | {fmt(tf)} | "
                          f"{ms if ms else '-'} | {dense_b} | {fmt(dense)} | "
                          f"{ratio} |")
            print(vlines[-1], flush=True)
    lines += vlines
    write_table(lines, args.out, echo=False)


if __name__ == "__main__":
    main()

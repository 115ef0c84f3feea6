#!/usr/bin/env python3
"""Benchmark fa4's forward attention against cuDNN's on the GPU machine.

For every shape of the standard sweep (head dim 64 and 128, sequence 1024 to
16384 with batch * sequence = 16384, 16 heads, causal or not, bf16) this runs
fa4's kernels through fa4-run (which also checks them against a float64
reference, after timing them) and torch's scaled_dot_product_attention with
the cuDNN and the FlashAttention-2 backends in the same run, interleaved,
and prints TFLOP/s and the fa4/cuDNN ratios with their geomean. All are
timed alike: 10 untimed launches, then two rounds of launches queued back
to back, each between its own CUDA events, the better of the two medians.
TFLOP/s = 4*B*H*S*S*D / time, halved when causal.

    python3 bench/attention.py --fa4-run build/bin/fa4-run \
        --kernel-dir kernels/ [--kernel-dir before=old/] [--quick] \
        [--out table.md] [--csv figures.csv]

Kernel files are looked up as <kernel-dir>/attention-hd<D>.kernel.
"""

import argparse
import math
import re
import subprocess
import sys
import time

TFLOPS = re.compile(r"([0-9.]+) TFLOP/s")
TIME = re.compile(r"time=([0-9.]+) ms")
RELERR = re.compile(r"rel_err=([0-9.eE+-]+)")


BACKENDS = {"cudnn": "CUDNN_ATTENTION", "fa2": "FLASH_ATTENTION"}


def write_table(lines, path, echo=True):
    """Prints the table's `lines` (unless `echo` is off: a script that
    printed each as it came) and writes them to `path` when one is given."""
    text = "\n".join(lines)
    if echo:
        print(text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")


def queued_ms(torch, run, iters):
    """The better of two medians of `iters` launches of `run` queued back to
    back, each between its own pair of CUDA events, after 10 untimed ones;
    None when `run` raises (a backend that refuses the shape)."""
    try:
        for _ in range(10):
            run()
        torch.cuda.synchronize()
    except (RuntimeError, TypeError):
        return None
    best = None
    for _ in range(2):
        events = [(torch.cuda.Event(enable_timing=True),
                   torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for start, end in events:
            start.record()
            run()
            end.record()
        torch.cuda.synchronize()
        times = sorted(start.elapsed_time(end) for start, end in events)
        ms = times[len(times) // 2]
        best = ms if best is None else min(best, ms)
    return best


def torch_tflops(torch, backend, b, h, s, d, causal, iters):
    """TFLOP/s of torch's SDPA with one backend on random bf16 inputs (B, H,
    S, D): the median of `iters` launches queued back to back, each between
    its own pair of CUDA events (as fa4-run --bench times), the better of two
    passes. Waiting for each launch instead would put the Python dispatch
    inside the timed window (PERF.md)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    with sdpa_kernel([getattr(SDPBackend, BACKENDS[backend])]):
        best = queued_ms(torch, lambda: torch.nn.functional
                         .scaled_dot_product_attention(q, k, v,
                                                       is_causal=causal),
                         iters)
    if best is None:
        return None, None
    flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    return flops / (best * 1e-3) / 1e12, best


def fa4_tflops(args, kernel_dir, b, h, s, d, causal):
    """fa4-run's check and time (the better of two medians) for one shape."""
    cmd = [args.fa4_run, "--kernel", f"{kernel_dir}/attention-hd{d}.kernel",
           "--problem", "attention", "--batch", str(b), "--heads", str(h),
           "--seq-q", str(s), "--seq-k", str(s), "--head-dim", str(d),
           "--bench", "--iters", str(args.iters)]
    if causal:
        cmd.append("--causal")
    # A kernel that deadlocks (a bad plan) must not stall the whole table.
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, None, None, [f"timed out after {args.timeout} s"]
    text = out.stdout + out.stderr
    tf, ms, err = TFLOPS.search(text), TIME.search(text), RELERR.search(text)
    if out.returncode != 0 or not tf:
        return None, None, None, text.strip().splitlines()[-1:] or ["no output"]
    return float(tf.group(1)), float(ms.group(1)), err.group(1) if err else "?", None


def clocks():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--kernel-dir", required=True, action="append",
                        help="kernel files to time; LABEL=DIR to name them, "
                             "repeat to compare several sets in one run")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds one fa4-run may take (default 120)")
    parser.add_argument("--quick", action="store_true",
                        help="only S = 1024, 4096, 16384")
    parser.add_argument("--head-dims", default="64,128,256",
                        help="comma-separated head dims (default 64,128,256)")
    parser.add_argument("--no-fa2", action="store_true",
                        help="leave out torch's FlashAttention-2 backend")
    parser.add_argument("--out", help="also write the table here (markdown)")
    parser.add_argument("--csv", help="also write the figures here (CSV, "
                                      "for bench/plot.py)")
    args = parser.parse_args()

    sets = []
    for entry in args.kernel_dir:
        label, _, path = entry.rpartition("=")
        sets.append((label or "fa4", path))
    import torch
    seqs = [1024, 4096, 16384] if args.quick else [1024, 2048, 4096, 8192, 16384]
    names = [label for label, _ in sets]
    header = ("| D | S | B | causal | " + " | ".join(f"{n} TFLOP/s" for n in names)
              + " | cuDNN TFLOP/s | " + ("FA2 TFLOP/s | " if not args.no_fa2 else "")
              + " | ".join(f"{n}/cuDNN" for n in names) + f" | {names[0]} rel err |")
    rows = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
            f"cuDNN {torch.backends.cudnn.version()}; clocks (sm, mem, power, temp) "
            f"before: {clocks()}",
            "",
            header,
            "|" + "---:|" * (header.count("|") - 1)]
    csv = ["d,s,b,causal,impl,tflops"]
    ratios = {n: [] for n in names}
    for d in (int(x) for x in args.head_dims.split(",")):
        for s in seqs:
            b = 16384 // s
            for causal in (False, True):
                ref, _ = torch_tflops(torch, "cudnn", b, 16, s, d, causal, args.iters)
                fa2 = None
                if not args.no_fa2:
                    fa2, _ = torch_tflops(torch, "fa2", b, 16, s, d, causal, args.iters)
                ours, errs = [], []
                for label, path in sets:
                    tf, _, err, failure = fa4_tflops(args, path, b, 16, s, d, causal)
                    ours.append(tf if tf is not None else f"failed: {failure[0][:40]}")
                    errs.append(err)
                    if tf is not None and ref:
                        ratios[label].append((d, tf / ref))
                        csv.append(f"{d},{s},{b},{int(causal)},{label},{tf:.1f}")
                fmt = lambda x: f"{x:.0f}" if isinstance(x, float) else (x or "-")
                line = (f"| {d} | {s} | {b} | {'yes' if causal else 'no'} | "
                        + " | ".join(fmt(x) for x in ours) + f" | {fmt(ref)} | "
                        + (f"{fmt(fa2)} | " if not args.no_fa2 else "")
                        + " | ".join(f"{x / ref:.2f}" if isinstance(x, float) and ref
                                     else "-" for x in ours)
                        + f" | {errs[0] or '-'} |")
                if ref:
                    csv.append(f"{d},{s},{b},{int(causal)},cuDNN,{ref:.1f}")
                if fa2:
                    csv.append(f"{d},{s},{b},{int(causal)},FA2,{fa2:.1f}")
                rows.append(line)
                print(line, flush=True)
    rows.append("")
    # Each set's ratios over the head dims 64 and 128 together (the table
    # fa4 was first measured on), then per head dim.
    for label, pairs in ratios.items():
        groups = [("d 64 and 128", [v for d, v in pairs if d in (64, 128)])]
        groups += [(f"d {hd}", [v for d, v in pairs if d == hd])
                   for hd in sorted({d for d, _ in pairs})]
        for name, values in groups:
            if values:
                geo = math.exp(sum(math.log(v) for v in values) / len(values))
                rows.append(f"{label}/cuDNN ({name}): min {min(values):.2f}, "
                            f"max {max(values):.2f}, geomean {geo:.2f} over "
                            f"{len(values)} shapes")
    rows.append(f"clocks after: {clocks()}; {time.strftime('%Y-%m-%d %H:%M:%S')}")
    write_table(rows, args.out)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("\n".join(csv) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

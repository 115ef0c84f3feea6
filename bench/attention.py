#!/usr/bin/env python3
"""Benchmark fa4's forward attention against cuDNN's on the GPU machine.

For every shape of the standard sweep (head dim 64 and 128, sequence 1024 to
16384 with batch * sequence = 16384, 16 heads, causal or not, bf16) this runs
fa4's kernel through fa4-run (which checks it against a float64 reference
first) and torch's scaled_dot_product_attention with the cuDNN backend in the
same process run, interleaved, and prints TFLOP/s and the fa4/cuDNN ratio.
TFLOP/s = 4*B*H*S*S*D / time, halved when causal.

    python3 bench/attention.py --fa4-run build/bin/fa4-run \
        --kernel-dir kernels/ [--quick] [--out table.md]

Kernel files are looked up as <kernel-dir>/attention-hd<D>.kernel.
"""

import argparse
import re
import subprocess
import sys
import time

TFLOPS = re.compile(r"([0-9.]+) TFLOP/s")
TIME = re.compile(r"time=([0-9.]+) ms")
RELERR = re.compile(r"rel_err=([0-9.eE+-]+)")


def cudnn_tflops(torch, b, h, s, d, causal, iters):
    """Median TFLOP/s of cuDNN's SDPA on random bf16 inputs (B, H, S, D)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        def run():
            return torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal)
        for _ in range(5):
            run()
        torch.cuda.synchronize()
        times = []
        for _ in range(iters):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    times.sort()
    ms = times[len(times) // 2]
    flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    return flops / (ms * 1e-3) / 1e12, ms


def fa4_tflops(args, b, h, s, d, causal):
    """fa4-run's check and median time for one shape."""
    cmd = [args.fa4_run, "--kernel", f"{args.kernel_dir}/attention-hd{d}.kernel",
           "--problem", "attention", "--batch", str(b), "--heads", str(h),
           "--seq-q", str(s), "--seq-k", str(s), "--head-dim", str(d),
           "--bench", "--iters", str(args.iters)]
    if causal:
        cmd.append("--causal")
    out = subprocess.run(cmd, capture_output=True, text=True)
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
    parser.add_argument("--kernel-dir", required=True)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--quick", action="store_true",
                        help="only S = 1024, 4096, 16384")
    parser.add_argument("--out", help="also write the table here (markdown)")
    args = parser.parse_args()

    import torch
    seqs = [1024, 4096, 16384] if args.quick else [1024, 2048, 4096, 8192, 16384]
    rows = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
            f"cuDNN {torch.backends.cudnn.version()}; clocks (sm, mem, power, temp) "
            f"before: {clocks()}",
            "",
            "| D | S | B | causal | fa4 TFLOP/s | cuDNN TFLOP/s | fa4/cuDNN | fa4 rel err |",
            "|---:|---:|---:|:---:|---:|---:|---:|---:|"]
    for d in (64, 128):
        for s in seqs:
            b = 16384 // s
            for causal in (False, True):
                fa4, _, err, failure = fa4_tflops(args, b, 16, s, d, causal)
                ref, _ = cudnn_tflops(torch, b, 16, s, d, causal, args.iters)
                if fa4 is None:
                    line = (f"| {d} | {s} | {b} | {'yes' if causal else 'no'} | "
                            f"failed: {failure[0][:60]} | {ref:.0f} | - | - |")
                else:
                    line = (f"| {d} | {s} | {b} | {'yes' if causal else 'no'} | "
                            f"{fa4:.0f} | {ref:.0f} | {fa4 / ref:.2f} | {err} |")
                rows.append(line)
                print(line, flush=True)
    rows.append("")
    rows.append(f"clocks after: {clocks()}; {time.strftime('%Y-%m-%d %H:%M:%S')}")
    text = "\n".join(rows)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

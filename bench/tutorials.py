#!/usr/bin/env python3
"""Time examples/triton-tutorials' norm kernels against torch's own
(F.layer_norm and F.rms_norm) on the GPU machine, by turns in one run.

fa4's kernel runs through `fa4-run --kernel K --arg ... --bench` (the better
median of two rounds of queued launches, CUDA-event-timed); torch's
function is timed the same way (bench/attention.py's queued_ms: 50 queued
calls a round). Rows of N bf16 values, the
weight (and layer norm's bias) of N; at least 256 MiB of X at every shape.
Bandwidth = the bytes a norm must move once (X read, Y written) / time,
beside the read rate of a bf16 sum over 4 GiB in the same run.

    python3 bench/tutorials.py --fa4-run PATH --layer-norm K --rms-norm K
                               [--work DIR] [--out table.md]
"""

import argparse
import os
import subprocess

import numpy as np
import torch

from attention import TIME, queued_ms

# (rows, N): 256 MiB of X at each (the LLM hidden sizes, and short rows).
SHAPES = [(32768, 4096), (16384, 8192), (65536, 2048), (1048576, 128)]


def read_rate():
    """TB/s of a bf16 sum over 4 GiB: the read rate a streaming kernel gets."""
    ones = torch.ones(2 ** 31, device="cuda", dtype=torch.bfloat16)
    return ones.numel() * 2 / queued_ms(torch, lambda: ones.sum(), 10) / 1e9


def time_fa4(fa4_run, kernel, inputs, scalars, work):
    args = [fa4_run, "--kernel", kernel, "--no-check", "--bench"]
    for name, array in inputs.items():
        path = os.path.join(work, f"{name}.npy")
        np.save(path, array)
        args += ["--arg", f"{name}={path}"]
    for scalar in scalars:
        args += ["--arg", scalar]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    found = TIME.search(proc.stdout)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"fa4-run exit {proc.returncode}: "
                           f"{(proc.stdout + proc.stderr).strip()[-400:]}")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--layer-norm")
    parser.add_argument("--rms-norm")
    parser.add_argument("--work", default="tutorials-work")
    parser.add_argument("--out")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    read_tbps = read_rate()
    lines = [f"read rate (bf16 sum over 4 GiB): {read_tbps:.2f} TB/s", "",
             "| kernel | rows x N | fa4 ms | fa4 TB/s | torch ms | torch TB/s "
             "| fa4 / torch |", "|---|---|---|---|---|---|---|"]
    for kind, kernel in (("layer_norm", args.layer_norm),
                         ("rms_norm", args.rms_norm)):
        if not kernel:
            continue
        for rows, n in SHAPES:
            x = torch.randn(rows, n, device="cuda", dtype=torch.bfloat16)
            w = torch.rand(n, device="cuda", dtype=torch.bfloat16) + 0.5
            b = torch.rand(n, device="cuda", dtype=torch.bfloat16) - 0.5
            inputs = {"x": x.float().cpu().numpy(), "w": w.float().cpu().numpy()}
            if kind == "layer_norm":
                inputs["b"] = b.float().cpu().numpy()
                fn = lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)  # noqa: E731
            else:
                fn = lambda: torch.nn.functional.rms_norm(x, (n,), w, 1e-5)  # noqa: E731
            torch_ms = queued_ms(torch, fn, 50)
            fa4_ms = time_fa4(args.fa4_run, kernel, inputs, ["eps=1e-5"],
                              args.work)
            moved = 2 * rows * n * 2
            lines.append(f"| {kind} | {rows} x {n} | {fa4_ms:.3f} | "
                         f"{moved / fa4_ms / 1e9:.2f} | {torch_ms:.3f} | "
                         f"{moved / torch_ms / 1e9:.2f} | "
                         f"{torch_ms / fa4_ms:.2f} |")
            print(lines[-1], flush=True)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Time examples/triton-tutorials' softmax and norm kernels against torch's
own (softmax, F.layer_norm, F.rms_norm) and against Triton kernels written
here for the comparison, by turns in one run on the GPU machine.

fa4's kernel runs through `fa4-run --kernel K --arg ... --bench` (the better
median of two rounds of queued launches, CUDA-event-timed); torch's and
Triton's are timed the same way (bench/attention.py's queued_ms: 50 queued
calls a round). Rows of N bf16 values, the weight (and layer norm's bias)
of N; 256 MiB of X at every shape. Bandwidth = the bytes the kernel must
move once (X read, Y written) / time, beside the read rate of a bf16 sum
over 4 GiB in the same run. The Triton kernels take a row a program, the
whole row in one block (Triton's usual form for rows that fit), with
num_warps from the block's size; fa4's are examples/triton-tutorials', a
few rows a program in blocks of 512 columns, or of 128 for rows of up to
128 (its `-128` kernels, used when they are beside the ones named).
--whole-row KIND,COLS=K adds rows for a kernel that takes a row in one
block of COLS (KIND softmax, layer_norm or rms_norm: softmax-row4096,
layer-norm-row8192, ...) at the shapes whose N it takes.
--column-sums K times tutorial 05's dW and dB kernel (layer-norm-dwdb:
the column sums of two f32 [M, N] partial sums) against torch's sum over
dim 0 and the tutorial's Triton kernel, at the tutorial's M (the groups
of rows the fused backward adds into) and at 256 MiB.

    python3 bench/tutorials.py --fa4-run PATH [--softmax K] [--layer-norm K]
                               [--rms-norm K] [--whole-row KIND,COLS=K ...]
                               [--column-sums K] [--work DIR] [--out table.md]
"""

import argparse
import os
import subprocess

import numpy as np
import torch

from attention import TIME, queued_ms, write_table

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

if triton is not None:
    @triton.jit
    def _softmax_row(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        inside = cols < n
        x = tl.load(x_ptr + row * n + cols, mask=inside,
                    other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, 0))
        tl.store(y_ptr + row * n + cols, (e / tl.sum(e, 0)).to(tl.bfloat16),
                 mask=inside)

    @triton.jit
    def _norm_row(x_ptr, y_ptr, w_ptr, b_ptr, n, eps, LAYER: tl.constexpr,
                  BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        inside = cols < n
        x = tl.load(x_ptr + row * n + cols, mask=inside,
                    other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
        if LAYER:
            x = tl.where(inside, x - tl.sum(x, 0) / n, 0.0)
        y = x * (1.0 / tl.sqrt(tl.sum(x * x, 0) / n + eps)) * w
        if LAYER:
            y += tl.load(b_ptr + cols, mask=inside, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * n + cols, y.to(tl.bfloat16), mask=inside)

    @triton.jit
    def _column_sums(dw_ptr, db_ptr, final_dw_ptr, final_db_ptr, m, n,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for i in range(0, m, BLOCK_M):
            rows = i + tl.arange(0, BLOCK_M)
            mask = (rows[:, None] < m) & (cols[None, :] < n)
            offs = rows[:, None] * n + cols[None, :]
            dw += tl.load(dw_ptr + offs, mask=mask, other=0.0)
            db += tl.load(db_ptr + offs, mask=mask, other=0.0)
        tl.store(final_dw_ptr + cols, tl.sum(dw, axis=0), mask=cols < n)
        tl.store(final_db_ptr + cols, tl.sum(db, axis=0), mask=cols < n)


def triton_fn(kind, x, w, b):
    """A call of this kind's Triton kernel on x (rows of n), or None
    without Triton."""
    if triton is None:
        return None
    rows, n = x.shape
    y = torch.empty_like(x)
    block = triton.next_power_of_2(n)
    warps = min(max(block // 256, 1), 16)
    if kind == "softmax":
        return lambda: _softmax_row[(rows,)](x, y, n, BLOCK=block,
                                             num_warps=warps)
    return lambda: _norm_row[(rows,)](x, y, w, b, n, 1e-5,
                                      LAYER=kind == "layer_norm", BLOCK=block,
                                      num_warps=warps)

# (rows, N): 256 MiB of X at each (the LLM hidden sizes, and short rows).
SHAPES = [(32768, 4096), (16384, 8192), (65536, 2048), (1048576, 128)]
# (M, N) of DW and DB: the tutorial's groups of rows, and 256 MiB.
COLUMN_SHAPES = [(64, 4096), (256, 8192), (8192, 4096)]


def column_sums_rows(fa4_run, kernel, work, read_tbps):
    """Table rows of the dW and dB kernel beside torch and Triton."""
    lines = []
    for m, n in COLUMN_SHAPES:
        dw = torch.randn(m, n, device="cuda")
        db = torch.randn(m, n, device="cuda")
        torch_ms = queued_ms(torch, lambda: (dw.sum(0), db.sum(0)), 50)
        triton_ms = None
        if triton is not None:
            fdw, fdb = torch.empty(n, device="cuda"), torch.empty(
                n, device="cuda")
            triton_ms = queued_ms(torch, lambda: _column_sums[
                (triton.cdiv(n, 128),)](dw, db, fdw, fdb, m, n, BLOCK_M=32,
                                        BLOCK_N=128), 50)
        fa4_ms = time_fa4(fa4_run, kernel, {"dw": dw.cpu().numpy(),
                                            "db": db.cpu().numpy()}, [], work)
        lines.append(row_text("column_sums", f"{m} x {n}", 2 * m * n * 4,
                              fa4_ms, torch_ms, triton_ms, read_tbps))
        print(lines[-1], flush=True)
    return lines


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


def block_kernel(kernel, n):
    """The kernel compiled for rows of up to 128 (`NAME-128.kernel` beside
    `NAME.kernel`, as Triton compiles a kernel per BLOCK_SIZE) when n is
    that short and the file is there, else `kernel`."""
    narrow = kernel[:-len(".kernel")] + "-128.kernel"
    return narrow if n <= 128 and os.path.exists(narrow) else kernel


def row_text(kind, shape, moved, fa4_ms, torch_ms, triton_ms, read_tbps):
    """A table row: fa4's time and bandwidth (`moved` bytes, and its share
    of the read rate), torch's and Triton's times, and their ratios to
    fa4's."""
    tbps = moved / fa4_ms / 1e9
    tri_text = f"{triton_ms:.3f}" if triton_ms else "-"
    tri_ratio = f"{triton_ms / fa4_ms:.2f}" if triton_ms else "-"
    return (f"| {kind} | {shape} | {fa4_ms:.3f} | {tbps:.2f} | "
            f"{tbps / read_tbps:.2f} | {torch_ms:.3f} | {tri_text} | "
            f"{torch_ms / fa4_ms:.2f} | {tri_ratio} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--softmax")
    parser.add_argument("--layer-norm")
    parser.add_argument("--rms-norm")
    parser.add_argument("--whole-row", action="append", default=[],
                        metavar="KIND,COLS=KERNEL")
    parser.add_argument("--column-sums")
    parser.add_argument("--work", default="tutorials-work")
    parser.add_argument("--out")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    read_tbps = read_rate()
    lines = [f"read rate (bf16 sum over 4 GiB): {read_tbps:.2f} TB/s", "",
             "| kernel | rows x N | fa4 ms | fa4 TB/s | of read rate "
             "| torch ms | Triton ms | fa4 / torch | fa4 / Triton |",
             "|---|---|---|---|---|---|---|---|---|"]
    # (kind, kernel, the most columns it takes in one block or None).
    runs = [("softmax", args.softmax, None),
            ("layer_norm", args.layer_norm, None),
            ("rms_norm", args.rms_norm, None)]
    for spec in args.whole_row:
        dims, kernel = spec.split("=", 1)
        kind, cols = dims.split(",")
        runs.append((kind, kernel, int(cols)))
    for kind, kernel, whole in runs:
        if not kernel:
            continue
        for rows, n in SHAPES:
            # A row-in-one-block kernel at the rows it is for: over half
            # its block (shorter rows take a smaller block's kernel).
            if whole and not whole // 2 < n <= whole:
                continue
            x = torch.randn(rows, n, device="cuda", dtype=torch.bfloat16)
            w = torch.rand(n, device="cuda", dtype=torch.bfloat16) + 0.5
            b = torch.rand(n, device="cuda", dtype=torch.bfloat16) - 0.5
            inputs = {"x": x.float().cpu().numpy()}
            scalars = []
            if kind == "softmax":
                fn = lambda: torch.softmax(x, -1)  # noqa: E731
            elif kind == "layer_norm":
                inputs["w"] = w.float().cpu().numpy()
                inputs["b"] = b.float().cpu().numpy()
                scalars = ["eps=1e-5"]
                fn = lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)  # noqa: E731
            else:
                inputs["w"] = w.float().cpu().numpy()
                scalars = ["eps=1e-5"]
                fn = lambda: torch.nn.functional.rms_norm(x, (n,), w, 1e-5)  # noqa: E731
            torch_ms = queued_ms(torch, fn, 50)
            tri = triton_fn(kind, x, w, b)
            triton_ms = queued_ms(torch, tri, 50) if tri else None
            fa4_ms = time_fa4(args.fa4_run,
                              kernel if whole else block_kernel(kernel, n),
                              inputs, scalars, args.work)
            name = f"{kind} (row in one block)" if whole else kind
            lines.append(row_text(name, f"{rows} x {n}", 2 * rows * n * 2,
                                  fa4_ms, torch_ms, triton_ms, read_tbps))
            print(lines[-1], flush=True)
    if args.column_sums:
        lines += column_sums_rows(args.fa4_run, args.column_sums, args.work,
                                  read_tbps)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()

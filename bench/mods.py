#!/usr/bin/env python3
"""Time examples/attention-mods' kernels beside fa4's plain attention kernel
of the same head dim, by turns in one run on the GPU machine: the issue's
measure of mods (a mod's kernel at 0.95 of the plain kernel's TFLOP/s or
better).

Each kernel runs through `fa4-run --kernel K --arg ... --no-check --bench`
(the better median of two rounds of queued launches, CUDA-event-timed),
the plain one, then each mod's, for each shape, twice over, the better
time kept. Q, K and V are fa4-run's random inputs, bf16, d128, H = 16,
B * S = 16384; the document kernel's sequences pack documents of 1024
tokens, the chunked one's chunks are --chunk tokens (the kernel's, which
attention-mods --chunk set), the bias is a random bf16 tensor (only where B H S^2 fits in
2 GiB). TFLOP/s counts the pairs a kernel must compute: every pair for
the plain, ALiBi and bias kernels, those of a chunk or a document for the
others, halved with a causal mask (4 D FLOPs a pair).

    python3 bench/mods.py --fa4-run PATH --kernel-dir DIR [--chunk C]
                          [--work DIR] [--out table.md]

DIR holds attention-hd128.kernel (scripts/compile-kernels.sh) and the mods'
kernels (attention-mods --out-dir DIR --heads 16).
"""

import argparse
import os
import subprocess

import numpy as np

from attention import TIME, write_table

HEADS, DIM, TOKENS = 16, 128, 16384
SHAPES = [(4096, False), (4096, True), (16384, False), (16384, True)]
DOCUMENT = 1024


def bench(fa4_run, kernel, args):
    """Milliseconds of one kernel's launches, or None when it does not run
    (the text says why)."""
    proc = subprocess.run([fa4_run, "--kernel", kernel, "--no-check",
                           "--bench"] + args, capture_output=True, text=True,
                          timeout=600)
    found = TIME.search(proc.stdout)
    if proc.returncode != 0 or not found:
        print(f"{os.path.basename(kernel)}: fa4-run exit {proc.returncode}: "
              f"{(proc.stdout + proc.stderr).strip()[-300:]}", flush=True)
        return None
    return float(found.group(1))


def pairs(kind, s, causal, chunk):
    """The query-key pairs of one head the kernel computes: those within
    each of its blocks of tokens (a chunk, a document, the whole sequence),
    the lower triangle with the diagonal when causal."""
    block = min({"chunked": chunk, "document": DOCUMENT}.get(kind, s), s)
    lengths = [block] * (s // block) + ([s % block] if s % block else [])
    return sum(n * (n + 1) / 2 if causal else n * n for n in lengths)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--kernel-dir", required=True)
    parser.add_argument("--chunk", type=int, default=1024)
    parser.add_argument("--work", default="mods-bench")
    parser.add_argument("--out")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    kernels = {"plain": "attention-hd128.kernel", "alibi": "alibi.kernel",
               "chunked": "chunked.kernel", "document": "document.kernel",
               "bias": "bias.kernel"}
    kernels = {kind: os.path.join(args.kernel_dir, name)
               for kind, name in kernels.items()
               if os.path.exists(os.path.join(args.kernel_dir, name))}
    scale_log2 = float(1 / np.sqrt(DIM) * np.log2(np.e))
    lines = ["| S | causal | kernel | ms | TFLOP/s | of plain's TFLOP/s |",
             "|---:|---|---|---:|---:|---:|"]
    for s, causal in SHAPES:
        b = TOKENS // s
        shape = f"{b}x{HEADS}x{s}x{DIM}"
        common = ["--arg", f"q=random:{shape}", "--arg", f"k=random:{shape}",
                  "--arg", f"v=random:{shape}",
                  "--arg", f"scale_log2={scale_log2:.9g}",
                  "--arg", f"causal={int(causal)}"]
        extra = {"document": [], "bias": []}
        # Documents of DOCUMENT tokens: each token's, and their starts.
        document = np.repeat(np.arange(s // DOCUMENT, dtype=np.int32),
                             DOCUMENT)[None].repeat(b, 0)
        offsets = np.arange(0, s + 1, DOCUMENT, dtype=np.int32)[None].repeat(
            b, 0)
        for name, array in (("document", document),
                            ("document_offsets", offsets)):
            path = os.path.join(args.work, f"{name}-{s}.npy")
            np.save(path, array)
            extra["document"] += ["--arg", f"{name}={path}"]
        fits = b * HEADS * s * s * 2 <= 2 << 30
        extra["bias"] = ["--arg", f"bias=random:{b}x{HEADS}x{s}x{s}"]
        best = {}
        for _ in range(2):
            for kind, kernel in kernels.items():
                if kind == "bias" and not fits:
                    continue
                ms = bench(args.fa4_run, kernel, common + extra.get(kind, []))
                if ms is not None:
                    best[kind] = min(ms, best.get(kind, ms))
        rate = {kind: 4 * DIM * b * HEADS * pairs(kind, s, causal, args.chunk)
                / ms / 1e9 for kind, ms in best.items()}
        for kind, ms in best.items():
            ratio = (f"{rate[kind] / rate['plain']:.2f}" if "plain" in rate
                     else "-")
            lines.append(f"| {s} | {'yes' if causal else 'no'} | {kind} | "
                         f"{ms:.3f} | {rate[kind]:.0f} | {ratio} |")
            print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()

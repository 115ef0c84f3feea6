#!/usr/bin/env python3
"""Benchmark fa4's attention backward against cuDNN's and FlashAttention-2's
(torch's SDPA backends) on the GPU machine.

For every shape of the standard sweep (head dims 64 and 128, sequence 1024
to 16384 with batch * sequence = 16384, 16 heads, causal or not, bf16) this
times the backward alone, the forward's O and LSE kept: fa4's kernels
(fa4.attention's backward op; by default the way libfa4's table takes for
the shape, fa4/KernelFormat/PlanTable.h, and with deterministic=True dQ by
a kernel of its own) and `out.backward(dout)` of SDPA's graph with each backend, in one
run, by turns: six rounds, each timing every contender once in an order
rotated by one from the last round's (so that none always runs first,
after the others have heated the card), each timing 5 untimed calls and
10 calls queued between CUDA events; a contender's time is the median of
its six. TFLOP/s = 2.5 x the forward's 4*B*H*S*S*D / time, halved when causal.

    python3 bench/backward.py [--head-dims 64 128] [--quick] [--out table.md]
"""

import argparse
import math
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import fa4  # noqa: E402
from attention import write_table  # noqa: E402


def timed(fn, rounds=3, calls=10):
    for _ in range(5):
        fn()
    best = float("inf")
    for _ in range(rounds):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / calls)
    return best


def sdpa_backward(q, k, v, dout, causal, backend):
    qt, kt, vt = (x.detach().transpose(1, 2).requires_grad_() for x in (q, k, v))
    with torch.nn.attention.sdpa_kernel([backend]):
        out = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    do = dout.transpose(1, 2)

    def run():
        for x in (qt, kt, vt):
            x.grad = None
        out.backward(do, retain_graph=True)
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    backends = torch.nn.attention.SDPBackend
    lengths = [1024, 4096] if args.quick else [1024, 2048, 4096, 8192, 16384]
    rows = ["| D | causal | S | fa4 | fa4 deterministic | cuDNN | FA2 | fa4/cuDNN |",
            "|---|---|---|---|---|---|---|---|"]
    ratios = []
    for d in args.head_dims:
        for causal in (False, True):
            for s in lengths:
                b, h = 16384 // s, 16
                g = torch.Generator(device="cuda").manual_seed(0)
                q, k, v, dout = (torch.randn(b, s, h, d, device="cuda", generator=g,
                                             dtype=torch.bfloat16) for _ in range(4))
                scale = 1 / math.sqrt(d)
                out, lse = fa4.attention(q, k, v, causal=causal, return_lse=True)
                flops = 2.5 * 4 * b * h * s * s * d / (2 if causal else 1)
                runs = {
                    "fa4": lambda: fa4._attention_backward(
                        dout, q, k, v, out, lse, None, causal, scale),
                    "det": lambda: fa4._attention_backward(
                        dout, q, k, v, out, lse, None, causal, scale,
                        deterministic=True),
                    "cudnn": sdpa_backward(q, k, v, dout, causal,
                                           backends.CUDNN_ATTENTION),
                    "fa2": sdpa_backward(q, k, v, dout, causal,
                                         backends.FLASH_ATTENTION),
                }
                names = list(runs)
                samples = {n: [] for n in names}
                for r in range(6):
                    for n in names[r % 4:] + names[:r % 4]:
                        samples[n].append(timed(runs[n], rounds=1))
                times = {n: statistics.median(t) for n, t in samples.items()}
                tf = {n: flops / (t * 1e-3) / 1e12 for n, t in times.items()}
                ratio = tf["fa4"] / tf["cudnn"]
                ratios.append(ratio)
                rows.append("| %d | %s | %d | %.0f | %.0f | %.0f | %.0f | %.2f |" % (
                    d, "yes" if causal else "no", s, tf["fa4"], tf["det"], tf["cudnn"],
                    tf["fa2"], ratio))
                print(rows[-1], flush=True)
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    rows.append("")
    rows.append("fa4/cuDNN geomean %.3f over %d shapes (TFLOP/s, backward alone)" %
                (geomean, len(ratios)))
    print(rows[-1])
    write_table(rows, args.out, echo=False)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""fa4.attention beside cuDNN's SDPA in one process, both timed alike.

For every shape of the standard sweep (bf16, H = 16, B * S = 16384, S 1024
to 16384, head dim 64 and 128, causal or not; --head-dims adds 256) both are
captured into a CUDA graph of --calls calls on the same (B, H, S, D) memory
(fa4 takes it as a (B, S, H, D) view), the graph replayed between CUDA
events and the median taken per call. fa4's output is checked against
SDPA's first. Then the host cost of one eager call at a small shape
(B=1, H=1, S=128, d128), fa4 and SDPA, in microseconds.

    PYTHONPATH=python python3 bench/torch_attention.py [--quick] [--out FILE]
"""

import argparse
import math
import os
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fa4  # noqa: E402
from attention import write_table  # noqa: E402


def graph_ms(run, calls, replays):
    """Median milliseconds per call of `calls` calls of `run` captured in one
    CUDA graph, over `replays` timed replays."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            run()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            run()
    for _ in range(3):
        graph.replay()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    times.sort()
    return times[len(times) // 2]


def host_us(run, calls=2000):
    """Microseconds of host time per eager call (the kernel is tiny)."""
    for _ in range(50):
        run()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        run()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="S 1024 and 4096 only")
    parser.add_argument("--head-dims", default="64,128")
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--out", help="also write the table to this file")
    args = parser.parse_args()

    lines = []

    def say(text):
        print(text, flush=True)
        lines.append(text)

    say("torch %s, %s, %s" % (torch.__version__, torch.cuda.get_device_name(), fa4.version()))
    say("")
    say("| D | S | B | causal | fa4 TFLOP/s | cuDNN TFLOP/s | fa4/cuDNN | max abs diff |")
    say("|---:|---:|---:|:---:|---:|---:|---:|---:|")
    ratios = []
    seqs = (1024, 4096) if args.quick else (1024, 2048, 4096, 8192, 16384)
    for d in (int(x) for x in args.head_dims.split(",")):
        for s in seqs:
            for causal in (False, True):
                b, h = 16384 // s, 16
                g = torch.Generator(device="cuda").manual_seed(1)
                q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=g,
                                       dtype=torch.bfloat16) for _ in range(3))
                qf, kf, vf = (x.transpose(1, 2) for x in (q, k, v))
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    ref = torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal)
                    out = fa4.attention(qf, kf, vf, causal=causal)
                    diff = (out.transpose(1, 2).float() - ref.float()).abs().max().item()
                    ms_fa4 = graph_ms(lambda: fa4.attention(qf, kf, vf, causal=causal),
                                      args.calls, args.replays)
                    ms_cudnn = graph_ms(
                        lambda: torch.nn.functional.scaled_dot_product_attention(
                            q, k, v, is_causal=causal), args.calls, args.replays)
                flops = 4 * b * h * s * s * d / (2 if causal else 1)
                t_fa4, t_cudnn = flops / ms_fa4 / 1e9, flops / ms_cudnn / 1e9
                ratios.append(t_fa4 / t_cudnn)
                say("| %d | %d | %d | %s | %.0f | %.0f | %.2f | %.1e |" %
                    (d, s, b, "yes" if causal else "no", t_fa4, t_cudnn,
                     t_fa4 / t_cudnn, diff))
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    say("")
    say("fa4/cuDNN: min %.2f, max %.2f, geomean %.2f over %d shapes" %
        (min(ratios), max(ratios), geomean, len(ratios)))

    q, k, v = (torch.randn(1, 1, 128, 128, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    qf, kf, vf = (x.transpose(1, 2) for x in (q, k, v))
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        us_sdpa = host_us(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v))
    us_fa4 = host_us(lambda: fa4.attention(qf, kf, vf))
    say("")
    say("one eager call at B=1 H=1 S=128 d128 (host-bound): fa4.attention %.1f us, "
        "SDPA (cuDNN) %.1f us" % (us_fa4, us_sdpa))
    write_table(lines, args.out, echo=False)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Host cost of one fa4.attention call beside SDPA's, and where it goes.

At a shape whose kernel takes a few microseconds (B=1, H=1, S=128, d128) a
loop of eager calls is bound by the host: the time per call is the launch
overhead. Measured: SDPA (cuDNN), fa4.attention, and fa4's pieces alone
(the signature and its plan, output allocation, the current stream, the
library's plan launch), and what only a call of a new shape pays (checks,
packing) or a caller of fa4_attention without a plan.

    PYTHONPATH=python python3 bench/launch_overhead.py
"""

import os
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fa4  # noqa: E402
from fa4 import _lib  # noqa: E402


def per_call_us(run, calls=5000):
    for _ in range(100):
        run()
    torch.cuda.synchronize()
    best = None
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            run()
        torch.cuda.synchronize()
        us = (time.perf_counter() - start) / calls * 1e6
        best = us if best is None else min(best, us)
    return best


def main():
    q, k, v = (torch.randn(1, 1, 128, 128, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    qf, kf, vf = (x.transpose(1, 2) for x in (q, k, v))
    out = torch.empty_like(qf)
    lse = torch.empty(1, 1, 128, device="cuda")
    lib = _lib.library()
    stream = torch.cuda.current_stream().cuda_stream
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        sdpa = per_call_us(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v))
    total = per_call_us(lambda: fa4.attention(qf, kf, vf))
    [plan] = list(fa4._plans.values())[-1:]

    def key():
        return ((qf.shape, qf.stride(), qf.dtype, qf.get_device(), kf.shape, kf.stride(),
                 kf.dtype, kf.get_device(), vf.shape, vf.stride(), vf.dtype,
                 vf.get_device(), False, None, -1, -1, 0.0) in fa4._plans)

    rows = [
        ("SDPA (cuDNN)", sdpa),
        ("fa4.attention", total),
        ("  signature, plan", per_call_us(key)),
        ("  outputs allocated", per_call_us(
            lambda: (torch.empty_like(qf), torch.empty((1, 1, 128), dtype=torch.float32,
                                                        device=qf.device)))),
        ("  current stream", per_call_us(lambda: fa4._current_stream())),
        ("  libfa4 plan launch", per_call_us(lambda: lib.fa4_attention_plan_launch(
            plan, qf.data_ptr(), kf.data_ptr(), vf.data_ptr(), out.data_ptr(),
            lse.data_ptr(), stream))),
        ("first call of a shape: checks", per_call_us(
            lambda: fa4._check_inputs(qf, kf, vf, 4, ""))),
        ("first call of a shape: packing", per_call_us(
            lambda: fa4._pack_dense(qf, kf, vf, out, lse, False, 0.0, -1, -1, 0.0))),
        ("libfa4 call, packed arguments", per_call_us(lambda: lib.fa4_attention(
            fa4._pack_dense(qf, kf, vf, out, lse, False, 0.0, -1, -1, 0.0), stream))),
    ]
    for name, us in rows:
        print("%-22s %6.1f us" % (name, us))


if __name__ == "__main__":
    main()

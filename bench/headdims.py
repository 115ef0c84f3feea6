#!/usr/bin/env python3
"""fa4 at the head dims and option combinations the kernel key opened,
beside cuDNN: error against float64 and speed.

For each case this runs fa4.attention (libfa4; with FA4_KERNEL_DIR, the
kernel files of scripts/compile-kernels.sh) and torch's SDPA with the cuDNN
backend (the FlashAttention-2, efficient and math backends in that order
where cuDNN refuses; SDPA has no softcap, so those cases have no SDPA
column), and prints:

- the error: ||out - ref|| / ||ref|| against a float64 reference (B = 2,
  H = 8 over 4 KV heads, S = 1000, causal and not), fa4's beside SDPA's and
  their ratio (the bar: at most 2);
- the speed: TFLOP/s at B * S = 16384, H = 16, S = 4096, causal and not,
  FLOPs = 2 * B * H * S^2 * (D + Dv), halved when causal; each side timed as
  the better of two medians of queued launches between CUDA events
  (bench/attention.py's queued_ms).

    python3 bench/headdims.py [--iters 50] [--out table.md]
"""

import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))
sys.path.insert(0, HERE)

import fa4  # noqa: E402
from test_gpu import reference, rel_err  # noqa: E402
from attention import queued_ms, write_table  # noqa: E402

from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

# name, d, dv, window, softcap
CASES = [
    ("d80", 80, 80, (-1, -1), 0.0),
    ("d96", 96, 96, (-1, -1), 0.0),
    ("d160", 160, 160, (-1, -1), 0.0),
    ("d192/v128 (MLA)", 192, 128, (-1, -1), 0.0),
    ("d64", 64, 64, (-1, -1), 0.0),
    ("d128", 128, 128, (-1, -1), 0.0),
    ("d256", 256, 256, (-1, -1), 0.0),
    ("Gemma 2: d256, window 4095, softcap 50", 256, 256, (4095, 0), 50.0),
    ("d256, window 300, softcap 50", 256, 256, (300, 0), 50.0),
    ("d96, window 200, softcap 30", 96, 96, (200, 0), 30.0),
]

BACKENDS = [("cuDNN", SDPBackend.CUDNN_ATTENTION), ("FA2", SDPBackend.FLASH_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)]


def sdpa(q, k, v, causal, window):
    """SDPA on (B, S, H, D) tensors with the first backend that takes them,
    and the backend's name; (None, None) with a window other than the
    causal one, which SDPA expresses only as a mask (no fast backend)."""
    if window != (-1, -1):
        return None, None
    h, hkv = q.shape[2], k.shape[2]
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    kt = kt.repeat_interleave(h // hkv, dim=1)
    vt = vt.repeat_interleave(h // hkv, dim=1)
    for name, backend in BACKENDS:
        try:
            with sdpa_kernel([backend]):
                def run():
                    return torch.nn.functional.scaled_dot_product_attention(
                        qt, kt, vt, is_causal=causal)
                run()
            return run, name
        except RuntimeError:
            continue
    return None, None


def inputs(b, s, h, hkv, d, dv, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, s, h, d, device="cuda", generator=g, dtype=torch.bfloat16)
    k = torch.randn(b, s, hkv, d, device="cuda", generator=g, dtype=torch.bfloat16)
    v = torch.randn(b, s, hkv, dv, device="cuda", generator=g, dtype=torch.bfloat16)
    return q, k, v


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--out")
    args = parser.parse_args()
    lines = ["| case | causal | fa4 err | SDPA err (backend) | ratio | "
             "fa4 TFLOP/s | SDPA TFLOP/s | fa4/SDPA |",
             "|---|---|---|---|---|---|---|---|"]
    for name, d, dv, window, softcap in CASES:
        for causal in (False, True):
            with torch.no_grad():
                q, k, v = inputs(2, 1000, 8, 4, d, dv)
                out = fa4.attention(q, k, v, causal=causal, window_size=window,
                                    softcap=softcap)
                ref, _ = reference(q, k, v, causal, window, softcap)
                err = rel_err(out, ref)
                run, backend = sdpa(q, k, v, causal, window) if softcap == 0 else (None, None)
                serr = rel_err(run().transpose(1, 2), ref) if run else None
                del q, k, v, out, ref
                b, s, h = 4, 4096, 16
                q, k, v = inputs(b, s, h, h, d, dv, seed=1)
                ms = queued_ms(torch, lambda: fa4.attention(q, k, v, causal=causal,
                                                     window_size=window,
                                                     softcap=softcap), args.iters)
                pairs = s * s / (2 if causal else 1)
                if window != (-1, -1):
                    i = torch.arange(s)[:, None]
                    j = torch.arange(s)[None, :]
                    pairs = float(((j <= i) & (j >= i - window[0])).sum())
                flops = 2 * b * h * pairs * (d + dv)
                tf = flops / ms / 1e9
                srun, _ = sdpa(q, k, v, causal, window) if softcap == 0 else (None, None)
                sms = queued_ms(torch, srun, args.iters) if srun else None
                stf = flops / sms / 1e9 if sms else None
                del q, k, v
            cell = lambda x, f: f % x if x is not None else "-"
            lines.append("| %s | %s | %.2e | %s | %s | %.0f | %s | %s |" % (
                name, "yes" if causal else "no", err,
                "%.2e (%s)" % (serr, backend) if serr is not None else "-",
                cell(err / serr if serr else None, "%.2f"), tf,
                cell(stf, "%.0f"), cell(tf / stf if stf else None, "%.2f")))
            print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()

"""Checks fa4.ring's one-process ring on the GPU, for the GPU matrix:

    python3 -m fa4.check_ring --world-size 4 --seq 2048 --causal

prints one line with the errors against float64 attention and plain fa4
attention and PASS or FAIL (exit 0 pass, 1 fail, 3 no GPU).
"""

import argparse
import math
import sys

import torch

import fa4
from fa4.ring import simulate


def main(argv=None):
    """`python -m fa4.check_ring`: the one-process ring on the GPU against a
    float64 reference and plain fa4 attention, one line with the errors and
    PASS or FAIL, as the GPU matrix runs it (exit 0 pass, 1 fail, 3 no GPU).
    """
    parser = argparse.ArgumentParser(
        prog="python -m fa4.check_ring",
        description="check the one-process ring simulation of ring attention "
                    "on the GPU against float64 attention and plain fa4")
    parser.add_argument("--world-size", type=int, default=4,
                        help="ranks of the simulated ring (default 4)")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--seq", type=int, default=2048,
                        help="tokens of the whole sequence, a multiple of the "
                             "world size (twice it when causal)")
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("python -m fa4.check_ring: error: no CUDA device", file=sys.stderr)
        return 3
    chunks = args.world_size * (2 if args.causal else 1)
    if args.world_size < 1 or args.seq % chunks:
        parser.error("--seq %d is not a multiple of %d chunks (world size %d%s)"
                     % (args.seq, chunks, args.world_size,
                        ", twice for the causal zig-zag" if args.causal else ""))
    g = torch.Generator(device="cuda").manual_seed(args.seed)
    shape = (args.batch, args.seq, args.heads, args.head_dim)
    q, k, v = (torch.randn(shape, device="cuda", generator=g,
                           dtype=torch.bfloat16) for _ in range(3))
    out, lse = simulate(q, k, v, args.world_size, args.causal, return_lse=True)
    plain = fa4.attention(q, k, v, causal=args.causal)

    # float64 reference, (B, H, S, D), head by head to bound the memory.
    scale = 1.0 / math.sqrt(args.head_dim)
    ref = torch.empty(shape, dtype=torch.float64, device="cuda")
    ref_lse = torch.empty(args.batch, args.heads, args.seq,
                          dtype=torch.float64, device="cuda")
    keep = torch.ones(args.seq, args.seq, dtype=torch.bool, device="cuda")
    if args.causal:
        keep = keep.tril()
    for h in range(args.heads):
        qd, kd, vd = (x[:, :, h].double() for x in (q, k, v))
        s = (scale * qd @ kd.transpose(-1, -2)).masked_fill(~keep, float("-inf"))
        ref_lse[:, h] = torch.logsumexp(s, dim=-1)
        ref[:, :, h] = torch.softmax(s, dim=-1) @ vd

    def rel(x, y):
        return ((x.double() - y).norm() / y.norm().clamp_min(1e-30)).item()

    err, vs_fa4 = rel(out, ref), rel(out, plain.double())
    lse_err = (lse.double() - ref_lse).abs().max().item()
    ok = err < 1e-2 and vs_fa4 < 1e-2 and lse_err < 1e-3
    print("ring world=%d b=%d h=%d s=%d d=%d%s: rel_err=%.3e vs_fa4=%.3e "
          "lse_err=%.3e %s" % (args.world_size, args.batch, args.heads, args.seq,
                               args.head_dim, " causal" if args.causal else "",
                               err, vs_fa4, lse_err, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

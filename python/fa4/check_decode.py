"""Checks fa4.attention_with_kvcache on the GPU, for the GPU matrix:

    python3 -m fa4.check_decode --batch 3 --heads 32 --kv-heads 8 \\
        --lengths 0,517,1000 --page-size 64 --splits 3

runs one decode call on random inputs (new tokens appended first with
--append) and prints one line with its error against float64 attention of
each sequence's keys and PASS or FAIL (exit 0 pass, 1 fail, 3 no GPU). Rows
that see no key must be exactly 0 with an LSE of -inf.
"""

import argparse
import math
import sys

import torch

import fa4


def reference(q, k, v, causal, window, softcap):
    """float64 attention of one sequence (1, SQ, H, D) against (L, HKV, D):
    out (SQ, H, Dv), lse (H, SQ) and the mask (SQ, L) of the keys each
    query token sees (bottom-right; rows that see none get 0 and -inf)."""
    _, sq, h, d = q.shape
    sk, hkv = k.shape[0], k.shape[1]
    qd = q[0].double().transpose(0, 1)
    kd = k.double().transpose(0, 1).repeat_interleave(h // hkv, dim=0)
    vd = v.double().transpose(0, 1).repeat_interleave(h // hkv, dim=0)
    s = (qd @ kd.transpose(-1, -2)) / math.sqrt(d)
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=q.device)[None, :]
    keep = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    left, right = window
    if causal:
        right = 0
    if right >= 0:
        keep &= j <= i + right
    if left >= 0:
        keep &= j >= i - left
    s = s.masked_fill(~keep, float("-inf"))
    seen = keep.any(dim=-1)
    safe = torch.where(seen[:, None], s, torch.zeros_like(s))
    lse = torch.logsumexp(safe, dim=-1)
    p = torch.where(keep, torch.exp(safe - lse[..., None]), torch.zeros_like(s))
    lse = torch.where(seen, lse, torch.full_like(lse, float("-inf")))
    return (p @ vd).transpose(0, 1), lse, keep


def main(argv=None):
    """`python -m fa4.check_decode`: one decode call against float64, one
    line with the error and PASS or FAIL (exit 0 pass, 1 fail, 3 no GPU)."""
    parser = argparse.ArgumentParser(
        prog="python -m fa4.check_decode",
        description="check fa4.attention_with_kvcache on the GPU against float64")
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--kv-heads", type=int, default=8)
    parser.add_argument("--seq-q", type=int, default=1, help="query tokens per sequence")
    parser.add_argument("--lengths", default="0,517,1000",
                        help="each sequence's cached keys, comma-separated (one per batch)")
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--page-size", type=int, default=0,
                        help="a paged cache of pages of this many keys, shuffled")
    parser.add_argument("--append", type=int, default=0,
                        help="new tokens written into the cache first")
    parser.add_argument("--splits", type=int, default=0, help="0: fa4's choice")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--window", default="-1,-1", help="left,right")
    parser.add_argument("--softcap", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("python -m fa4.check_decode: error: no CUDA device", file=sys.stderr)
        return 3
    lengths = [int(x) for x in args.lengths.split(",")]
    if len(lengths) != args.batch:
        parser.error("--lengths lists %d lengths for --batch %d" % (len(lengths), args.batch))
    window = tuple(int(x) for x in args.window.split(","))
    b, h, hkv, d, sq = args.batch, args.heads, args.kv_heads, args.head_dim, args.seq_q
    g = torch.Generator(device="cuda").manual_seed(args.seed)

    def randn(*shape):
        return torch.randn(*shape, device="cuda", generator=g).bfloat16()
    smax = max(lengths) + args.append
    q = randn(b, sq, h, d)
    kn = randn(b, args.append, hkv, d) if args.append else None
    vn = randn(b, args.append, hkv, d) if args.append else None
    table = None
    if args.page_size:
        per = max(1, -(-smax // args.page_size))
        pages = b * per + 1
        kc, vc = randn(pages, args.page_size, hkv, d), randn(pages, args.page_size, hkv, d)
        table = torch.randperm(pages, device="cuda", generator=g)[:b * per]
        table = table.view(b, per).int().contiguous()
    else:
        kc, vc = randn(b, max(smax, 1), hkv, d), randn(b, max(smax, 1), hkv, d)
    lens = torch.tensor(lengths, dtype=torch.int32, device="cuda")
    out, lse = fa4.attention_with_kvcache(
        q, kc, vc, kn, vn, cache_seqlens=lens, block_table=table, causal=args.causal,
        window_size=window, softcap=args.softcap, num_splits=args.splits, return_lse=True)
    torch.cuda.synchronize()
    worst, passed = 0.0, not bool(torch.isnan(out).any())
    for i, length in enumerate(lengths):
        total = length + args.append
        if table is not None:
            ks = kc[table[i].long()].reshape(-1, hkv, d)[:total]
            vs = vc[table[i].long()].reshape(-1, hkv, d)[:total]
        else:
            ks, vs = kc[i, :total], vc[i, :total]
        ref, ref_lse, keep = reference(q[i:i + 1], ks, vs, args.causal, window, args.softcap)
        seen = keep.any(dim=-1)
        got = out[i].double()
        if (~seen).any():
            passed &= got[~seen].abs().max().item() == 0.0
            passed &= bool(torch.isneginf(lse[i][:, ~seen]).all())
        if seen.any():
            err = ((got[seen] - ref[seen]).norm() / ref[seen].norm().clamp_min(1e-30)).item()
            lse_err = (lse[i][:, seen].double() - ref_lse[:, seen]).abs().max().item()
            worst = max(worst, err)
            passed &= err < 1e-2 and lse_err < 1e-3
    print("decode B=%d H=%d/%d SQ=%d lengths=%s page=%d append=%d splits=%d: rel_err=%.2e %s"
          % (b, h, hkv, sq, args.lengths, args.page_size, args.append, args.splits, worst,
             "PASS" if passed else "FAIL"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

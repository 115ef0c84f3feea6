#!/usr/bin/env python3
"""Cross-check fa4-run's .npy interop against torch on the GPU machine.

Writes random Q, K, V as .npy files (bf16 bits, shape (B, H, S, D)), runs
fa4-run on them with --out and --lse, and compares O and the log-sum-exp
with torch computed in float64 from the same bf16 values: an independent
implementation of the same attention, reached only through the files.

    python3 bench/crosscheck.py --fa4-run build/bin/fa4-run \
        --kernel-dir kernels/ --work /tmp/crosscheck

Exits 0 when every case agrees (O within 1e-2 relative error, the
log-sum-exp within 1e-3 * max(1, |ref|), -inf exactly where a row sees no
key), 1 otherwise.
"""

import argparse
import math
import os
import subprocess
import sys

CASES = [  # (batch, heads, seq_q, seq_k, head_dim, causal)
    (1, 2, 256, 256, 128, False),
    (3, 5, 200, 333, 128, True),
    (2, 3, 300, 100, 64, True),   # SQ > SK: the first rows see no key
    (1, 1, 1000, 1000, 64, False),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--kernel-dir", required=True)
    parser.add_argument("--work", default="/tmp/fa4-crosscheck")
    args = parser.parse_args()
    import numpy as np
    import torch

    os.makedirs(args.work, exist_ok=True)
    gen = torch.Generator().manual_seed(7)
    failed = 0
    for b, h, sq, sk, d, causal in CASES:
        q, k, v = (torch.rand(b, h, s, d, generator=gen).mul(2).sub(1)
                   .to(torch.bfloat16) for s in (sq, sk, sk))
        paths = {}
        for name, t in (("q", q), ("k", k), ("v", v)):
            paths[name] = os.path.join(args.work, name + ".npy")
            np.save(paths[name], t.view(torch.uint16).numpy())
        out = os.path.join(args.work, "o.npy")
        lse = os.path.join(args.work, "lse.npy")
        command = [args.fa4_run, "--kernel",
                   os.path.join(args.kernel_dir, f"attention-hd{d}.kernel"),
                   "--problem", "attention", "--q", paths["q"], "--k",
                   paths["k"], "--v", paths["v"], "--out", out, "--lse", lse]
        if causal:
            command.append("--causal")
        try:
            run = subprocess.run(command, capture_output=True, text=True,
                                 timeout=120)
        except subprocess.TimeoutExpired:
            print(f"FAIL {b}x{h}x{sq}x{sk}x{d} causal={causal}: fa4-run "
                  f"did not finish in 120 s")
            failed += 1
            continue
        if run.returncode != 0:
            print(f"FAIL {b}x{h}x{sq}x{sk}x{d} causal={causal}: fa4-run "
                  f"exited {run.returncode}\n{run.stdout}{run.stderr}")
            failed += 1
            continue
        o_got = torch.from_numpy(np.load(out).astype(np.uint16).view(np.int16)) \
            .view(torch.bfloat16).double()
        lse_got = torch.from_numpy(np.load(lse)).double()
        qd, kd, vd = q.double(), k.double(), v.double()
        s = qd @ kd.transpose(-1, -2) / math.sqrt(d)
        if causal:
            i = torch.arange(sq).view(-1, 1)
            j = torch.arange(sk).view(1, -1)
            s = s.masked_fill(j > i + (sk - sq), -math.inf)
        lse_ref = torch.logsumexp(s, dim=-1)
        p = torch.exp(s - lse_ref.unsqueeze(-1)).nan_to_num(0.0)
        o_ref = p @ vd
        o_err = ((o_got - o_ref).norm() / o_ref.norm()).item()
        finite = torch.isfinite(lse_ref)
        inf_ok = bool((lse_got[~finite] == -math.inf).all())
        lse_err = ((lse_got[finite] - lse_ref[finite]).abs()
                   / lse_ref[finite].abs().clamp(min=1)).max().item()
        ok = o_err <= 1e-2 and lse_err <= 1e-3 and inf_ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} b={b} h={h} sq={sq} sk={sk} d={d} "
              f"causal={int(causal)}: O rel_err={o_err:.1e} "
              f"lse max_err={lse_err:.1e} rows_without_keys="
              f"{int((~finite).sum())} (-inf: {'yes' if inf_ok else 'NO'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

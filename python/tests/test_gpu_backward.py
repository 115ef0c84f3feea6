"""GPU tests of fa4.attention's backward (skipped without CUDA): dQ, dK and
dV against float64 autograd and beside SDPA's (cuDNN where torch has it) on
odd lengths, SQ != SK both ways (causal rows that see no key get zero
gradients), GQA and MQA, both memory layouts, f16, head dims 64, 96 and
128, inputs x8, sliding windows and softcaps; a gradient through the LSE; bit-identical
gradients over two runs; torch.compile(fullgraph=True); head dims 160, 192
and 256 (Gemma 2's window and softcap); a head dim of V of its own (DeepSeek's
MLA, 192 and 128; 128 and 64); packed sequences
(fa4.attention_varlen) with empty ones, each against its own float64
autograd; the refusals of what the backward does not have.

    python3 -m unittest python/tests/test_gpu_backward.py -v
"""

import math
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import fa4  # noqa: E402


def reference(q, k, v, causal, window=(-1, -1), softcap=0.0):
    """float64 attention of (B, S, H, D) tensors with autograd: out and lse
    (FlashAttention's bottom-right masks and softcap; rows that see no key
    give 0 and lse -inf, and no NaN anywhere in the graph)."""
    b, sq, h, d = q.shape
    sk, hkv = k.shape[1], k.shape[2]
    qd = q.transpose(1, 2)
    kd = k.transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    vd = v.transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    s = (qd @ kd.transpose(-1, -2)) / math.sqrt(d)
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    keep = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    i = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=q.device)[None, :]
    left, right = window
    if causal:
        right = 0
    if right >= 0:
        keep &= j <= i + right
    if left >= 0:
        keep &= j >= i - left
    s = s.masked_fill(~keep, float("-inf"))
    seen = keep.any(dim=-1)
    s_safe = torch.where(seen[:, None], s, torch.zeros_like(s))
    lse = torch.logsumexp(s_safe, dim=-1)
    p = torch.where(keep, torch.exp(s_safe - lse[..., None]), torch.zeros_like(s))
    out = (p @ vd).transpose(1, 2)
    return out, torch.where(seen, lse, torch.full_like(lse, float("-inf")))


def rel_err(x, ref):
    return ((x.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def make(b, sq, sk, h, hkv, d, dv, dtype, layout, gain, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)

    def one(s, heads, width, scale):
        shape = (b, s, heads, width) if layout == "bshd" else (b, heads, s, width)
        x = torch.randn(*shape, device="cuda", generator=g, dtype=torch.float32) * scale
        x = x.to(dtype)
        return x if layout == "bshd" else x.transpose(1, 2)
    return (one(sq, h, d, gain), one(sk, hkv, d, gain), one(sk, hkv, dv, 1.0),
            one(sq, h, dv, 1.0))


def sdpa_grads(q, k, v, dout, causal):
    """SDPA's dQ, dK, dV on the same 16-bit inputs (top-left causal: only
    for SQ == SK), cuDNN's where torch has it."""
    h, hkv = q.shape[2], k.shape[2]
    leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
    qt, kt, vt = (x.transpose(1, 2) for x in leaves)
    kt = kt.repeat_interleave(h // hkv, dim=1)
    vt = vt.repeat_interleave(h // hkv, dim=1)
    backends = getattr(torch.nn.attention, "SDPBackend", None)
    try:
        context = torch.nn.attention.sdpa_kernel([backends.CUDNN_ATTENTION,
                                                  backends.FLASH_ATTENTION])
    except (AttributeError, TypeError):
        context = torch.enable_grad()
    with context:
        out = torch.nn.functional.scaled_dot_product_attention(
            qt, kt, vt, is_causal=causal).transpose(1, 2)
    out.backward(dout)
    return [x.grad for x in leaves]


CASES = [
    # b, sq, sk, h, hkv, d, dv, causal, dtype, layout, gain[, window, softcap]
    (3, 1000, 1000, 5, 5, 64, 64, False, torch.bfloat16, "bshd", 1.0),
    (3, 1000, 1000, 5, 5, 64, 64, True, torch.bfloat16, "bhsd", 1.0),
    (1, 77, 300, 4, 4, 128, 128, True, torch.bfloat16, "bshd", 1.0),
    (1, 300, 77, 4, 4, 128, 128, True, torch.bfloat16, "bshd", 1.0),
    (2, 513, 513, 8, 2, 128, 128, True, torch.bfloat16, "bhsd", 1.0),
    (2, 400, 400, 8, 1, 64, 64, True, torch.bfloat16, "bshd", 1.0),
    (2, 300, 700, 6, 3, 128, 128, False, torch.float16, "bshd", 1.0),
    (1, 256, 256, 2, 2, 96, 96, True, torch.bfloat16, "bshd", 1.0),
    (1, 500, 500, 4, 4, 128, 128, False, torch.bfloat16, "bshd", 8.0),
    # Sliding windows (Mistral's kind, and one bound on each side), a
    # softcap, both (Gemma 2's at head dim 128).
    (2, 700, 700, 4, 2, 128, 128, True, torch.bfloat16, "bshd", 1.0, (128, 0), 0.0),
    (1, 500, 600, 4, 4, 64, 64, False, torch.bfloat16, "bhsd", 1.0, (100, 50), 0.0),
    (2, 400, 400, 4, 2, 128, 128, True, torch.bfloat16, "bshd", 4.0, (-1, -1), 30.0),
    (1, 700, 700, 8, 4, 128, 128, True, torch.bfloat16, "bshd", 1.0, (200, 0), 50.0),
    # Head dims over 128: 160 and 192, 256 (Gemma's), and Gemma 2's window
    # and softcap at 256.
    (1, 200, 200, 2, 2, 160, 160, True, torch.float16, "bshd", 1.0),
    (1, 257, 400, 3, 3, 192, 192, False, torch.bfloat16, "bhsd", 1.0),
    (2, 300, 300, 4, 2, 256, 256, True, torch.bfloat16, "bshd", 1.0),
    (1, 500, 500, 8, 4, 256, 256, True, torch.bfloat16, "bshd", 1.0, (200, 0), 50.0),
    # A head dim of V of its own: DeepSeek's MLA (192 for Q and K, 128 for
    # V), and 128 and 64 (dK and dV in one program).
    (2, 300, 300, 4, 2, 192, 128, True, torch.bfloat16, "bshd", 1.0),
    (1, 257, 300, 2, 2, 128, 64, False, torch.bfloat16, "bhsd", 1.0),
]


@unittest.skipUnless(torch.cuda.is_available(), "no CUDA device")
class Backward(unittest.TestCase):
    def run_case(self, case, lse_weight=None):
        b, sq, sk, h, hkv, d, dv, causal, dtype, layout, gain = case[:11]
        window, softcap = case[11:] if len(case) > 11 else ((-1, -1), 0.0)
        q, k, v, dout = make(b, sq, sk, h, hkv, d, dv, dtype, layout, gain)
        leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
        out, lse = fa4.attention(*leaves, causal=causal, window_size=window,
                                 softcap=softcap, return_lse=True)
        loss = (out.float() * dout.float()).sum()
        if lse_weight is not None:
            loss = loss + (torch.where(torch.isfinite(lse), lse, 0) * lse_weight).sum()
        loss.backward()
        got = [x.grad for x in leaves]
        refs = [x.detach().double().requires_grad_() for x in (q, k, v)]
        ref_out, ref_lse = reference(*refs, causal, window, softcap)
        ref_loss = (ref_out * dout.double()).sum()
        if lse_weight is not None:
            ref_loss = ref_loss + (torch.where(torch.isfinite(ref_lse), ref_lse, 0)
                                   * lse_weight.double()).sum()
        ref_loss.backward()
        return q, k, v, dout, got, [x.grad for x in refs], ref_lse

    def test_cases(self):
        for case in CASES:
            b, sq, sk, h, hkv, d, dv, causal, dtype, layout, gain = case[:11]
            with self.subTest(case=case):
                q, k, v, dout, got, refs, ref_lse = self.run_case(case)
                errs = [rel_err(x, r) for x, r in zip(got, refs)]
                for name, x, y in zip("qkv", got, (q, k, v)):
                    self.assertEqual(x.shape, y.shape, name)
                    self.assertEqual(x.dtype, y.dtype, name)
                    self.assertTrue(bool(torch.isfinite(x).all()), name)
                for name, err in zip(("dq", "dk", "dv"), errs):
                    self.assertLess(err, 1e-2, "%s %s %.2e" % (case, name, err))
                unseen = ~torch.isfinite(ref_lse)  # (B, H, SQ)
                if bool(unseen.any()):
                    rows = got[0].transpose(1, 2)[unseen]
                    self.assertTrue(bool((rows == 0).all()), "%s: rows with no key" % (case,))
                # SDPA's flash and cuDNN backwards: one head dim for Q, K and V.
                if sq == sk and len(case) == 11 and d == dv:
                    sdpa = [rel_err(x, r) for x, r in
                            zip(sdpa_grads(q, k, v, dout, causal), refs)]
                    for name, err, other in zip(("dq", "dk", "dv"), errs, sdpa):
                        self.assertLess(err, 2 * other + 1e-4,
                                        "%s %s: fa4 %.2e, SDPA %.2e" % (case, name, err, other))

    def test_lse_gradient(self):
        # A loss that uses the LSE too: dS gains P * dLSE (D - dLSE).
        case = (2, 300, 300, 4, 2, 64, 64, True, torch.bfloat16, "bshd", 1.0)
        weight = torch.randn(2, 4, 300, device="cuda")
        _, _, _, _, got, refs, _ = self.run_case(case, lse_weight=weight)
        for name, x, r in zip(("dq", "dk", "dv"), got, refs):
            self.assertLess(rel_err(x, r), 1e-2, name)

    def test_deterministic(self):
        # deterministic=True: no sum across CTAs, the same bits every run;
        # the default at 16384 keys without a causal mask adds dQ's parts in
        # no fixed order, within rounding of it.
        q, k, v, dout = make(1, 16400, 16400, 2, 1, 128, 128, torch.bfloat16, "bshd", 1.0)
        runs = []
        for deterministic in (True, True, False):
            leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
            fa4.attention(*leaves, deterministic=deterministic).backward(dout)
            runs.append([x.grad for x in leaves])
        for a, b in zip(runs[0], runs[1]):
            self.assertTrue(torch.equal(a, b))
        for name, a, b in zip(("dq", "dk", "dv"), runs[0], runs[2]):
            self.assertLess(rel_err(b, a), 1e-2, name)

    def test_torch_compile(self):
        q, k, v, dout = make(2, 513, 513, 8, 2, 64, 64, torch.bfloat16, "bshd", 1.0)

        @torch.compile(fullgraph=True)
        def block(q, k, v):
            return fa4.attention(q * 0.5, k, v, causal=True).float() * 2.0

        leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
        block(*leaves).backward(dout.float())
        refs = [x.detach().double().requires_grad_() for x in (q, k, v)]
        out, _ = reference(refs[0] * 0.5, refs[1], refs[2], True)
        (out * 2.0).backward(dout.double())
        for name, x, r in zip(("dq", "dk", "dv"), [x.grad for x in leaves],
                              [x.grad for x in refs]):
            self.assertLess(rel_err(x, r), 1e-2, name)

    def test_refusals(self):
        q, k, v, _ = make(1, 128, 128, 2, 2, 64, 64, torch.bfloat16, "bshd", 1.0)
        q.requires_grad_()
        _, _, v128, _ = make(1, 128, 128, 2, 2, 128, 128, torch.bfloat16, "bshd", 1.0)
        with self.assertRaises(NotImplementedError) as raised:
            fa4.attention(q, k, v128)
        self.assertIn("no backward for a head dim of v (128) wider than q's (64)",
                      str(raised.exception))
        # Under no_grad the same calls run.
        with torch.no_grad():
            fa4.attention(q, k, v, window_size=(64, 0))
        cu = torch.tensor([0, 128], dtype=torch.int32, device="cuda")
        with self.assertRaises(NotImplementedError) as raised:
            fa4.attention_varlen(q[0], k[0], v128[0], cu, cu, 128, 128)
        self.assertIn("fa4.attention_varlen has no backward for a head dim of v (128)",
                      str(raised.exception))

    def test_varlen(self):
        # Packed sequences, each checked against float64 autograd of its
        # own: lengths off the tiles, an empty sequence on either side,
        # SQ != SK both ways, GQA, causal rows that see no key, a window
        # and a softcap, a gradient through the LSE (in every other case:
        # without it libfa4 computes D); the same bits twice.
        cases = [
            # lengths q, lengths k, h, hkv, d, causal, window, softcap
            ([100, 0, 300, 28, 129], [100, 5, 300, 28, 129], 4, 2, 128, True, (-1, -1), 0.0),
            ([70, 300, 1, 0], [300, 70, 0, 40], 6, 3, 64, True, (-1, -1), 0.0),
            ([257, 64, 190], [257, 64, 190], 4, 4, 64, False, (-1, -1), 0.0),
            ([400, 33], [500, 33], 8, 2, 128, True, (64, 0), 30.0),
            ([300, 200], [250, 200], 2, 1, 96, False, (50, 20), 0.0),
            ([300, 0, 77], [300, 20, 77], 4, 2, 256, True, (-1, -1), 0.0),
        ]
        for index, (lengths_q, lengths_k, h, hkv, d, causal, window, softcap) in enumerate(
                cases):
            with self.subTest(lengths_q=lengths_q, lengths_k=lengths_k, d=d, causal=causal,
                              window=window, softcap=softcap):
                g = torch.Generator(device="cuda").manual_seed(1)
                tq, tk = sum(lengths_q), sum(lengths_k)

                def rand(t, heads, scale=1.0):
                    return (torch.randn(t, heads, d, device="cuda", generator=g) * scale
                            ).to(torch.bfloat16)
                q, k, v, dout = rand(tq, h), rand(tk, hkv), rand(tk, hkv), rand(tq, h)
                weight = torch.randn(h, tq, device="cuda", generator=g) * (index % 2)
                cu_q = torch.tensor([0] + list(torch.tensor(lengths_q).cumsum(0)),
                                    dtype=torch.int32, device="cuda")
                cu_k = torch.tensor([0] + list(torch.tensor(lengths_k).cumsum(0)),
                                    dtype=torch.int32, device="cuda")
                runs = []
                for _ in range(2):
                    leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
                    out, lse = fa4.attention_varlen(
                        *leaves, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal,
                        window_size=window, softcap=softcap, return_lse=True)
                    loss = (out.float() * dout.float()).sum()
                    if index % 2:
                        loss = loss + (torch.where(torch.isfinite(lse), lse, 0) * weight).sum()
                    loss.backward()
                    runs.append([x.grad for x in leaves])
                for a, b in zip(runs[0], runs[1]):
                    self.assertTrue(torch.equal(a, b))
                got = runs[0]
                for x in got:
                    self.assertTrue(bool(torch.isfinite(x).all()))
                refs = [torch.zeros(x.shape, dtype=torch.float64, device="cuda")
                        for x in (q, k, v)]
                # The queries that see a key and the keys a query sees.
                row_seen = torch.zeros(tq, dtype=torch.bool, device="cuda")
                key_seen = torch.zeros(tk, dtype=torch.bool, device="cuda")
                starts_q = cu_q.tolist()
                starts_k = cu_k.tolist()
                for i in range(len(lengths_q)):
                    sq0, sq1, sk0, sk1 = (starts_q[i], starts_q[i + 1], starts_k[i],
                                          starts_k[i + 1])
                    rows = torch.arange(sq1 - sq0, device="cuda")[:, None] + (
                        (sk1 - sk0) - (sq1 - sq0))
                    keys = torch.arange(sk1 - sk0, device="cuda")[None, :]
                    keep = torch.ones(sq1 - sq0, sk1 - sk0, dtype=torch.bool, device="cuda")
                    right = 0 if causal else window[1]
                    if right >= 0:
                        keep &= keys <= rows + right
                    if window[0] >= 0:
                        keep &= keys >= rows - window[0]
                    row_seen[sq0:sq1] = keep.any(1)
                    key_seen[sk0:sk1] = keep.any(0)
                    if sq1 == sq0:
                        continue
                    parts = [x[a:z].detach().double()[None].requires_grad_()
                             for x, a, z in ((q, sq0, sq1), (k, sk0, sk1), (v, sk0, sk1))]
                    if sk1 == sk0:
                        continue  # no key: zero gradients, as refs hold
                    ref_out, ref_lse = reference(*parts, causal, window, softcap)
                    (ref_out[0] * dout[sq0:sq1].double()).sum().add(
                        (torch.where(torch.isfinite(ref_lse[0]), ref_lse[0], 0)
                         * weight[:, sq0:sq1].double()).sum()).backward()
                    for ref, part, a, z in ((refs[0], parts[0], sq0, sq1),
                                            (refs[1], parts[1], sk0, sk1),
                                            (refs[2], parts[2], sk0, sk1)):
                        ref[a:z] = part.grad[0]
                for name, x, r in zip(("dq", "dk", "dv"), got, refs):
                    err = rel_err(x, r)
                    self.assertLess(err, 1e-2, "%s %.2e" % (name, err))
                # Rows that see no key (an empty key sequence, or above the
                # diagonal of SQ > SK) and keys no query sees (an empty
                # query sequence, below the diagonal of SQ < SK): zero
                # gradients, exactly.
                self.assertTrue(bool((got[0][~row_seen] == 0).all()))
                for x in got[1:]:
                    self.assertTrue(bool((x[~key_seen] == 0).all()))


if __name__ == "__main__":
    unittest.main()

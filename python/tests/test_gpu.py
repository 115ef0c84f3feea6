"""GPU tests of the fa4 Python package (skipped without CUDA): fa4.attention
and fa4.attention_varlen against a float64 reference beside SDPA on odd
shapes, in both memory layouts, with GQA, causal and window masks, the
softcap and the log-sum-exp, head dims of every size and v's own (MLA);
empty inputs (no launch); outputs with a gradient; under
CUDA-graph capture and replay; inside a torch.compile'd function.

    python3 -m unittest python/tests/test_gpu.py -v
"""

import math
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import fa4  # noqa: E402


def reference(q, k, v, causal=False, window=(-1, -1), softcap=0.0, scale=None):
    """float64 attention of (B, S, H, D) tensors, FlashAttention's masks
    (bottom-right aligned); rows that see no key give 0 and lse -inf."""
    b, sq, h, d = q.shape
    sk, hkv = k.shape[1], k.shape[2]
    scale = scale if scale is not None else 1.0 / math.sqrt(d)
    qd = q.double().transpose(1, 2)
    kd = k.double().transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    vd = v.double().transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    s = scale * qd @ kd.transpose(-1, -2)
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=q.device)[None, :]
    keep = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    left, right = window
    if causal:
        right = 0 if right < 0 else min(right, 0)
    if left >= 0:
        keep &= j >= i - left
    if right >= 0:
        keep &= j <= i + right
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    out = (p @ vd).transpose(1, 2)
    return out, lse


def rel_err(x, ref):
    return ((x.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def sdpa(q, k, v, causal):
    """torch's SDPA on the same (B, S, H, D) inputs, for its error beside
    fa4's (top-left causal alignment, so only for SQ == SK)."""
    h, hkv = q.shape[2], k.shape[2]
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    kt = kt.repeat_interleave(h // hkv, dim=1)
    vt = vt.repeat_interleave(h // hkv, dim=1)
    return torch.nn.functional.scaled_dot_product_attention(
        qt, kt, vt, is_causal=causal).transpose(1, 2)


def inputs(b, sq, sk, h, hkv, d, dtype=torch.bfloat16, layout="bshd", seed=0, dv=None):
    g = torch.Generator(device="cuda").manual_seed(seed)

    def make(s, heads, d):
        if layout == "bshd":
            return torch.randn(b, s, heads, d, device="cuda", generator=g, dtype=dtype)
        # SDPA's (B, H, S, D) memory, passed as a (B, S, H, D) view.
        return torch.randn(b, heads, s, d, device="cuda", generator=g,
                           dtype=dtype).transpose(1, 2)
    return make(sq, h, d), make(sk, hkv, d), make(sk, hkv, dv or d)


def assert_layout(test, out, layout, name):
    """out is dense in the memory order of the inputs' layout."""
    test.assertTrue(out.is_contiguous() if layout == "bshd" else
                    out.transpose(1, 2).is_contiguous(), name)


CASES = [
    # b, sq, sk, h, hkv, d, causal, window, softcap, dtype
    (3, 1000, 1000, 5, 5, 64, False, (-1, -1), 0.0, torch.bfloat16),
    (3, 1000, 1000, 5, 5, 64, True, (-1, -1), 0.0, torch.bfloat16),
    (1, 77, 300, 4, 4, 128, True, (-1, -1), 0.0, torch.bfloat16),
    (2, 513, 513, 8, 2, 128, True, (-1, -1), 0.0, torch.bfloat16),
    (2, 300, 700, 6, 3, 128, False, (-1, -1), 0.0, torch.float16),
    (1, 300, 300, 2, 2, 256, True, (-1, -1), 0.0, torch.bfloat16),
    (2, 1000, 1000, 4, 4, 128, True, (128, 0), 0.0, torch.bfloat16),
    (1, 700, 700, 4, 2, 64, False, (100, 50), 0.0, torch.bfloat16),
    (1, 700, 700, 4, 4, 128, False, (-1, -1), 30.0, torch.bfloat16),
    # Gemma 2: head dim 256, a window of 4096 keys, a softcap of 50, 16
    # query heads over 8; and a window shorter than the sequence.
    (1, 1000, 1000, 16, 8, 256, True, (4095, 0), 50.0, torch.bfloat16),
    (2, 1000, 1000, 4, 2, 256, True, (300, 0), 50.0, torch.bfloat16),
]


@unittest.skipUnless(torch.cuda.is_available(), "no CUDA device")
class Attention(unittest.TestCase):
    def check(self, case, layout, dv=None):
        b, sq, sk, h, hkv, d, causal, window, softcap, dtype = case
        q, k, v = inputs(b, sq, sk, h, hkv, d, dtype, layout, dv=dv)
        out, lse = fa4.attention(q, k, v, causal=causal, window_size=window,
                                 softcap=softcap, return_lse=True)
        torch.cuda.synchronize()
        ref, ref_lse = reference(q, k, v, causal, window, softcap)
        err = rel_err(out, ref)
        name = "%s %s dv %s" % (case, layout, dv)
        self.assertEqual(tuple(out.shape), (b, sq, h, v.shape[-1]), name)
        assert_layout(self, out, layout, name)
        self.assertLess(err, 1e-2, name)
        finite = torch.isfinite(ref_lse)
        self.assertTrue(torch.equal(torch.isfinite(lse), finite), name)
        lse_err = ((lse.double() - ref_lse)[finite].abs().max().item()
                   if finite.any() else 0.0)
        self.assertLess(lse_err, 1e-3, name)
        if window == (-1, -1) and softcap == 0 and sq == sk:
            sdpa_err = rel_err(sdpa(q, k, v, causal), ref)
            self.assertLess(err, 2 * sdpa_err + 1e-3, "%s: fa4 %.2e, SDPA %.2e" %
                            (name, err, sdpa_err))
        return err

    def test_cases_both_layouts(self):
        for case in CASES:
            for layout in ("bshd", "bhsd"):
                with self.subTest(case=case, layout=layout):
                    self.check(case, layout)

    def test_head_dims(self):
        # Head dims beyond 64, 128 and 256 (a multiple of 16 from 32 to 256),
        # and v's own: DeepSeek's MLA prefill, 192 for q and k, 128 for v.
        for d, dv in ((32, 32), (96, 96), (160, 160), (192, 128), (128, 64)):
            case = (2, 300, 500, 4, 2, d, True, (-1, -1), 0.0, torch.bfloat16)
            for layout in ("bshd", "bhsd"):
                with self.subTest(d=d, dv=dv, layout=layout):
                    self.check(case, layout, dv)

    def test_empty(self):
        # B, SQ, SK or H of 0: empty outputs, or out 0 and lse -inf for
        # queries with no key, in the output's layout; nothing launched.
        for b, sq, sk, h, hkv in ((0, 100, 70, 4, 2), (2, 0, 70, 4, 2), (2, 100, 0, 4, 2),
                                  (2, 100, 70, 0, 2), (2, 100, 70, 0, 0)):
            for layout in ("bshd", "bhsd"):
                for d, dv in ((128, 128), (192, 128)):
                    name = (b, sq, sk, h, hkv, layout, d, dv)
                    q, k, v = inputs(b, sq, sk, h, hkv, d, layout=layout, dv=dv)
                    out, lse = fa4.attention(q, k, v, causal=True, return_lse=True)
                    self.assertEqual(tuple(out.shape), (b, sq, h, dv), name)
                    self.assertEqual(tuple(lse.shape), (b, h, sq), name)
                    assert_layout(self, out, layout, name)
                    self.assertTrue(torch.equal(out, torch.zeros_like(out)), name)
                    self.assertTrue(bool((lse == float("-inf")).all()), name)
                    self.assertEqual(lse.dtype, torch.float32, name)
        q, k, v = inputs(2, 100, 70, 4, 2, 128)
        with self.assertRaises(ValueError) as raised:
            fa4.attention(q[:0], k, v)
        self.assertIn("q has batch 0, k and v 2", str(raised.exception))
        # Packed sequences: no query, no key, no head.
        for tq, tk, h in ((0, 300, 4), (300, 0, 4), (300, 300, 0)):
            name = (tq, tk, h)
            q = torch.randn(tq, h, 128, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(tk, min(h, 2), 128, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(tk, min(h, 2), 64, device="cuda", dtype=torch.bfloat16)
            cu_q = torch.tensor([0, tq // 3, tq], dtype=torch.int32, device="cuda")
            cu_k = torch.tensor([0, tk // 3, tk], dtype=torch.int32, device="cuda")
            out, lse = fa4.attention_varlen(q, k, v, cu_q, cu_k, tq, tk, causal=True,
                                            return_lse=True)
            self.assertEqual(tuple(out.shape), (tq, h, 64), name)
            self.assertEqual(tuple(lse.shape), (h, tq), name)
            self.assertTrue(torch.equal(out, torch.zeros_like(out)), name)
            self.assertTrue(bool((lse == float("-inf")).all()), name)

    def test_gradients(self):
        # Differentiable (test_gpu_backward.py checks the gradients); under
        # no_grad the output has no graph.
        q, k, v = inputs(1, 128, 128, 2, 2, 64)
        q.requires_grad_()
        out = fa4.attention(q, k, v)
        self.assertTrue(out.requires_grad)
        out.float().sum().backward()
        self.assertEqual(q.grad.shape, q.shape)
        with torch.no_grad():
            out = fa4.attention(q, k, v)
        self.assertFalse(out.requires_grad)
        ref, _ = reference(q.detach(), k, v)
        self.assertLess(rel_err(out, ref), 1e-2)

    def test_plan_with_other_tensors(self):
        # A second call of one shape reuses its plan with new addresses.
        for seed in (4, 5, 6):
            q, k, v = inputs(2, 333, 333, 4, 2, 64, seed=seed)
            out = fa4.attention(q, k, v, causal=True)
            ref, _ = reference(q, k, v, causal=True)
            self.assertLess(rel_err(out, ref), 1e-2, seed)

    def test_cuda_graph(self):
        q, k, v = inputs(2, 1000, 1000, 4, 4, 128)
        fa4.attention(q, k, v, causal=True)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fa4.attention(q, k, v, causal=True)
        torch.cuda.current_stream().wait_stream(stream)
        with torch.cuda.graph(graph):
            out = fa4.attention(q, k, v, causal=True)
        for seed in (1, 2):
            q2, k2, v2 = inputs(2, 1000, 1000, 4, 4, 128, seed=seed)
            q.copy_(q2), k.copy_(k2), v.copy_(v2)
            out.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            ref, _ = reference(q, k, v, causal=True)
            self.assertLess(rel_err(out, ref), 1e-2)

    def test_cuda_graph_dynamic_schedule(self):
        # A window kernel takes its tiles from a counter: captured, each
        # replay gets a zeroed counter of the graph's own, and the eager
        # launches on the capturing stream before and after keep theirs.
        q, k, v = inputs(2, 1500, 1500, 4, 2, 128)
        window = (300, 0)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fa4.attention(q, k, v, causal=True, window_size=window)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            out = fa4.attention(q, k, v, causal=True, window_size=window)
        for seed in (1, 2):
            q2, k2, v2 = inputs(2, 1500, 1500, 4, 2, 128, seed=seed)
            q.copy_(q2), k.copy_(k2), v.copy_(v2)
            out.fill_(float("nan"))
            graph.replay()
            eager = fa4.attention(q, k, v, causal=True, window_size=window)
            graph.replay()
            torch.cuda.synchronize()
            ref, _ = reference(q, k, v, causal=True, window=window)
            self.assertLess(rel_err(out, ref), 1e-2, seed)
            self.assertLess(rel_err(eager, ref), 1e-2, seed)

    def test_torch_compile(self):
        q, k, v = inputs(2, 513, 513, 8, 2, 64)

        # fullgraph: the op is one node, no graph break around it.
        @torch.compile(fullgraph=True)
        def block(q, k, v):
            return fa4.attention(q * 0.5, k, v, causal=True).float() * 2.0

        got = block(q, k, v)
        ref, _ = reference(q * 0.5, k, v, causal=True)
        self.assertLess(rel_err(got / 2.0, ref), 1e-2)

    def test_torch_compile_empty(self):
        # The op's fake gives out v's head dim in q's layout; the op itself
        # answers an empty call without a launch.
        @torch.compile(fullgraph=True)
        def block(q, k, v):
            return fa4.attention(q, k, v, return_lse=True)

        for layout in ("bshd", "bhsd"):
            q, k, v = inputs(2, 100, 0, 4, 2, 192, layout=layout, dv=128)
            out, lse = block(q, k, v)
            self.assertEqual(tuple(out.shape), (2, 100, 4, 128), layout)
            assert_layout(self, out, layout, layout)
            self.assertTrue(torch.equal(out, torch.zeros_like(out)), layout)
            self.assertTrue(bool((lse == float("-inf")).all()), layout)

    def test_ring_simulated(self):
        # The ring of 4 ranks in one process, each step an fa4 kernel (the
        # zig-zag split when causal), against plain fa4 attention and the
        # float64 reference.
        from fa4 import ring
        q, k, v = inputs(2, 2048, 2048, 4, 4, 128)
        for causal in (False, True):
            out, lse = ring.simulate(q, k, v, 4, causal, return_lse=True)
            plain = fa4.attention(q, k, v, causal=causal)
            ref, ref_lse = reference(q, k, v, causal)
            self.assertLess(rel_err(out, ref), 1e-2, causal)
            self.assertLess(rel_err(out, plain.double()), 1e-2, causal)
            self.assertLess((lse.double() - ref_lse).abs().max().item(), 1e-3, causal)

    def test_gemm(self):
        g = torch.Generator(device="cuda").manual_seed(7)
        a = torch.randn(300, 200, device="cuda", generator=g, dtype=torch.bfloat16)
        b = torch.randn(256, 200, device="cuda", generator=g, dtype=torch.bfloat16)
        c = fa4.gemm(a, b)
        self.assertLess(rel_err(c, a.double() @ b.double().T), 1e-2)

    def test_varlen(self):
        lengths = [100, 1, 0, 700, 129, 300]
        g = torch.Generator(device="cuda").manual_seed(3)
        total = sum(lengths)
        h, hkv, d = 8, 2, 128
        q = torch.randn(total, h, d, device="cuda", generator=g, dtype=torch.bfloat16)
        k = torch.randn(total, hkv, d, device="cuda", generator=g, dtype=torch.bfloat16)
        v = torch.randn(total, hkv, d, device="cuda", generator=g, dtype=torch.bfloat16)
        cu = torch.tensor([0] + [sum(lengths[:i + 1]) for i in range(len(lengths))],
                          dtype=torch.int32, device="cuda")
        for causal in (False, True):
            out, lse = fa4.attention_varlen(q, k, v, cu, cu, max(lengths), max(lengths),
                                            causal=causal, return_lse=True)
            torch.cuda.synchronize()
            start = 0
            for n in lengths:
                if n:
                    sl = slice(start, start + n)
                    ref, ref_lse = reference(q[None, sl], k[None, sl], v[None, sl], causal)
                    self.assertLess(rel_err(out[sl], ref[0]), 1e-2, (n, causal))
                    self.assertLess((lse[:, sl].double() - ref_lse[0]).abs().max().item(),
                                    1e-3, (n, causal))
                start += n


if __name__ == "__main__":
    unittest.main()

"""GPU tests of fa4.attention_with_kvcache (skipped without CUDA): out and
lse against float64 attention of each sequence's keys, beside SDPA's error
on the same bf16 inputs, at SQ = 1 and 4, batch 1 to 64, cache lengths
from 0 (an empty cache) through odd ones to 128k, GQA 32/8 and MQA, fa4's
splits and given ones, windows, softcaps, f16, head dims 64, 96, 128 and
256 and (192, 128), inputs x8, q in (B, H, S, D) memory, new tokens appended
then attended, a CUDA graph replayed with other lengths, decode calls
chained in one graph (each reading the previous one's output), torch.compile.

    python3 -m unittest python/tests/test_gpu_decode.py -v
"""

import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import fa4  # noqa: E402
from fa4.check_decode import reference as sequence_reference  # noqa: E402


def reference(q, k, v, causal, window=(-1, -1), softcap=0.0):
    """float64 attention of one sequence, (1, SQ, H, D) against (1, L, HKV,
    D): out, lse and the mask (fa4.check_decode's reference)."""
    out, lse, keep = sequence_reference(q, k[0], v[0], causal, window, softcap)
    return out[None], lse[None], keep


def sdpa(q, k, v, keep):
    """SDPA on the element type (its error is the bar), GQA by repetition."""
    h, hkv = q.shape[2], k.shape[2]
    kd = k.transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    vd = v.transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    return torch.nn.functional.scaled_dot_product_attention(
        q.transpose(1, 2), kd, vd, attn_mask=keep).transpose(1, 2)


def rel_err(x, ref):
    return ((x.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


@unittest.skipUnless(torch.cuda.is_available(), "no CUDA device")
class KvcacheTest(unittest.TestCase):

    def run_case(self, b=3, sq=1, h=32, hkv=8, d=128, dv=None, smax=1000,
                 lengths=(0, 517, 1000), causal=False, window=(-1, -1), softcap=0.0,
                 dtype=torch.bfloat16, gain=1.0, splits=0, bhsd_q=False, seed=0):
        dv = dv or d
        g = torch.Generator(device="cuda").manual_seed(seed)
        q = torch.randn(b, sq, h, d, device="cuda", generator=g).mul(gain).to(dtype)
        kc = torch.randn(b, smax, hkv, d, device="cuda", generator=g).mul(gain).to(dtype)
        vc = torch.randn(b, smax, hkv, dv, device="cuda", generator=g).to(dtype)
        if bhsd_q:
            q = q.transpose(1, 2).contiguous().transpose(1, 2)
        lens = torch.tensor(lengths, dtype=torch.int32, device="cuda")
        out, lse = fa4.attention_with_kvcache(
            q, kc, vc, cache_seqlens=lens, causal=causal, window_size=window,
            softcap=softcap, num_splits=splits, return_lse=True)
        torch.cuda.synchronize()
        self.assertEqual(tuple(out.shape), (b, sq, h, dv))
        self.assertEqual(tuple(lse.shape), (b, h, sq))
        for i, length in enumerate(lengths):
            ref, ref_lse, keep = reference(q[i:i + 1], kc[i:i + 1, :length],
                                           vc[i:i + 1, :length], causal, window, softcap)
            seen = keep.any(-1)
            got = out[i:i + 1]
            self.assertFalse(torch.isnan(got).any().item(), "NaN in out, batch %d" % i)
            # Rows that see no key: exactly 0 and -inf.
            none = ~seen
            if none.any():
                self.assertEqual(got[:, none].abs().max().item(), 0.0)
                self.assertTrue(torch.isneginf(lse[i][:, none]).all().item())
            if not seen.any():
                continue
            err = rel_err(got[:, seen], ref[:, seen])
            bar = 1e-2
            if seen.all() and softcap == 0:
                bar = 2 * rel_err(sdpa(q[i:i + 1], kc[i:i + 1, :length],
                                       vc[i:i + 1, :length], keep), ref) + 1e-4
            self.assertLess(err, bar, "out of batch %d (length %d): error %.2e, bar %.2e"
                            % (i, length, err, bar))
            lse_err = (lse[i][:, seen].double() - ref_lse[0][:, seen]).abs().max().item()
            self.assertLess(lse_err, 1e-3 * max(1.0, gain * gain),
                            "lse of batch %d: error %.2e" % (i, lse_err))

    def test_gqa_one_token(self):
        self.run_case()

    def test_splits_given(self):
        for splits in (1, 3, 8):
            with self.subTest(splits=splits):
                self.run_case(splits=splits, lengths=(1, 999, 640))

    def test_mqa_four_tokens_causal(self):
        self.run_case(b=2, sq=4, h=16, hkv=1, d=64, lengths=(3, 777), causal=True)

    def test_window_softcap(self):
        self.run_case(sq=4, causal=True, window=(64, 0), softcap=30.0,
                      lengths=(5, 300, 1000))
        self.run_case(sq=1, window=(100, -1), lengths=(1000, 37, 1))

    def test_empty_cache(self):
        self.run_case(b=2, lengths=(0, 0))

    def test_f16_head_dims(self):
        self.run_case(dtype=torch.float16, d=96, lengths=(129, 1000, 64))
        self.run_case(d=192, dv=128, h=16, hkv=2, lengths=(255, 256, 257))
        # Gemma 2's decode: head dim 256, 16 query over 8 KV heads, a
        # sliding window and a softcap.
        self.run_case(d=256, h=16, hkv=8, lengths=(1000, 4, 333), window=(255, 0),
                      causal=True, softcap=50.0)

    def test_scaled_inputs(self):
        self.run_case(gain=8.0, lengths=(1000, 999, 1))

    def test_bhsd_query(self):
        self.run_case(sq=4, bhsd_q=True, causal=True, lengths=(4, 600, 1000))

    def test_batches(self):
        self.run_case(b=64, smax=300, lengths=tuple(i * 37 % 301 for i in range(64)))

    def test_long_context(self):
        self.run_case(b=1, smax=131072, lengths=(131072,))
        self.run_case(b=2, smax=40000, lengths=(32769, 12345), sq=4, causal=True)

    def test_append(self):
        b, h, hkv, d, smax = 3, 32, 8, 128, 700
        q = torch.randn(b, 2, h, d, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(b, smax, hkv, d, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(b, smax, hkv, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, 2, hkv, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, 2, hkv, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.tensor([0, 301, 698], dtype=torch.int32, device="cuda")
        out = fa4.attention_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens, causal=True)
        for i, length in enumerate(lens.tolist()):
            self.assertTrue(torch.equal(kc[i, length:length + 2], k[i]))
            self.assertTrue(torch.equal(vc[i, length:length + 2], v[i]))
            ref, _, _ = reference(q[i:i + 1], kc[i:i + 1, :length + 2],
                                  vc[i:i + 1, :length + 2], True)
            self.assertLess(rel_err(out[i:i + 1], ref), 1e-2)

    def test_paged(self):
        # Pages of 16, 64 and 256 keys in a shuffled order, new tokens
        # appended through the table (one crossing into a new page).
        b, h, hkv, d = 3, 32, 8, 128
        for page in (16, 64, 256):
            with self.subTest(page=page):
                lengths = [0, 517, 1000 - 2]
                max_pages = 1000 // page + 1
                pages = b * max_pages + 3
                g = torch.Generator(device="cuda").manual_seed(page)
                kp = torch.randn(pages, page, hkv, d, device="cuda", generator=g).bfloat16()
                vp = torch.randn(pages, page, hkv, d, device="cuda", generator=g).bfloat16()
                table = torch.randperm(pages, device="cuda", generator=g)[:b * max_pages]
                table = table.view(b, max_pages).int().contiguous()
                q = torch.randn(b, 2, h, d, device="cuda", generator=g).bfloat16()
                k = torch.randn(b, 2, hkv, d, device="cuda", generator=g).bfloat16()
                v = torch.randn(b, 2, hkv, d, device="cuda", generator=g).bfloat16()
                lens = torch.tensor(lengths, dtype=torch.int32, device="cuda")
                out, lse = fa4.attention_with_kvcache(q, kp, vp, k, v, cache_seqlens=lens,
                                                      block_table=table, causal=True,
                                                      return_lse=True)
                for i, length in enumerate(lengths):
                    ks = kp[table[i].long()].reshape(-1, hkv, d)[:length + 2]
                    vs = vp[table[i].long()].reshape(-1, hkv, d)[:length + 2]
                    self.assertTrue(torch.equal(ks[length:], k[i]))
                    ref, ref_lse, _ = reference(q[i:i + 1], ks[None], vs[None], True)
                    self.assertLess(rel_err(out[i:i + 1], ref), 1e-2, (page, i))
                    self.assertLess((lse[i].double() - ref_lse[0]).abs().max().item(), 1e-3)
                # A page index off the cache is refused before anything runs.
                bad = table.clone()
                bad[1, 0] = pages
                with self.assertRaisesRegex(ValueError, "block_table\\[1\\]\\[0\\] is %d"
                                            % pages):
                    fa4.attention_with_kvcache(q, kp, vp, cache_seqlens=lens,
                                               block_table=bad)

    def test_cuda_graph(self):
        b, h, hkv, d, smax = 4, 32, 8, 128, 4096
        q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(b, smax, hkv, d, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(b, smax, hkv, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.tensor([1, 2000, 4096, 77], dtype=torch.int32, device="cuda")
        fa4.attention_with_kvcache(q, kc, vc, cache_seqlens=lens)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = fa4.attention_with_kvcache(q, kc, vc, cache_seqlens=lens)
        lens.copy_(torch.tensor([4096, 5, 1000, 3000], dtype=torch.int32))
        q.copy_(torch.randn_like(q))
        graph.replay()
        torch.cuda.synchronize()
        for i, length in enumerate(lens.tolist()):
            ref, _, _ = reference(q[i:i + 1], kc[i:i + 1, :length], vc[i:i + 1, :length],
                                  False)
            self.assertLess(rel_err(out[i:i + 1], ref), 1e-2)

    def test_chained_calls_in_graph(self):
        # Decode calls back to back in one graph, each attending with the
        # previous one's output as its query, with and without a combine:
        # each kernel, launched while the one before it finishes, must wait
        # for that one's output and workspace (the outputs are NaN before
        # the replay, so a read too early shows).
        b, h, hkv, d, smax = 2, 32, 8, 128, 3000
        kc = torch.randn(b, smax, hkv, d, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(b, smax, hkv, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.tensor([3000, 1234], dtype=torch.int32, device="cuda")
        q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16)
        splits = (16, 1, 5, 1, 16, 2)
        outs = [q]
        for n in splits:
            outs.append(fa4.attention_with_kvcache(outs[-1], kc, vc, cache_seqlens=lens,
                                                   num_splits=n))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            outs = [q]
            for n in splits:
                outs.append(fa4.attention_with_kvcache(outs[-1], kc, vc,
                                                       cache_seqlens=lens, num_splits=n))
        q.copy_(torch.randn_like(q))
        for out in outs[1:]:
            out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        for step, n in enumerate(splits):
            for i, length in enumerate(lens.tolist()):
                ref, _, _ = reference(outs[step][i:i + 1], kc[i:i + 1, :length],
                                      vc[i:i + 1, :length], False)
                self.assertLess(rel_err(outs[step + 1][i:i + 1], ref), 1e-2,
                                "call %d (%d splits), batch %d" % (step, n, i))

    def test_torch_compile(self):
        q = torch.randn(2, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(2, 512, 8, 128, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(2, 512, 8, 128, device="cuda", dtype=torch.bfloat16)
        lens = torch.tensor([100, 512], dtype=torch.int32, device="cuda")

        def step(q, kc, vc, lens):
            return fa4.attention_with_kvcache(q, kc, vc, cache_seqlens=lens) * 2

        compiled = torch.compile(step, fullgraph=True)
        self.assertTrue(torch.equal(compiled(q, kc, vc, lens), step(q, kc, vc, lens)))

    def test_refusals(self):
        q = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(1, 64, 8, 128, device="cuda", dtype=torch.bfloat16)
        for lens, text in ((torch.tensor([65], dtype=torch.int32, device="cuda"), "reaches 65"),
                           (torch.tensor([-1], dtype=torch.int32, device="cuda"),
                            "negative length")):
            with self.assertRaisesRegex(ValueError, text):
                fa4.attention_with_kvcache(q, kc, kc, cache_seqlens=lens)
        new = torch.randn(1, 2, 8, 128, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "63 \\+ 2 new tokens"):
            fa4.attention_with_kvcache(q, kc, kc, new, new, cache_seqlens=63)
        with self.assertRaisesRegex(ValueError, "not a multiple"):
            fa4.attention_with_kvcache(q[:, :, :30], kc, kc)


if __name__ == "__main__":
    unittest.main()

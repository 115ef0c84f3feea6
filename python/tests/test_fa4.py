"""CPU tests of the fa4 Python package: argument checking (each message, the
refusals of inputs that require grad where fa4 has no backward, empty
inputs checked like others), the
layout and stride arithmetic of the kernel's views and of the output (v's
head dim in q's layout), the result of a call with no key, the varlen tile
order and its offsets' checks, and the compile cache through libfa4
(compiles need ptxas, not a GPU).

    python3 -m unittest discover -s python/tests -v
"""

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import fa4  # noqa: E402
from fa4 import _lib  # noqa: E402


def bshd(b, s, h, d, dtype=torch.bfloat16):
    return torch.randn(b, s, h, d).to(dtype)


class ArgumentChecks(unittest.TestCase):
    """Each refusal, before anything launches (CPU tensors get as far as the
    device check, which comes after the others)."""

    def refuses(self, error, message, *args, **kwargs):
        with self.assertRaises(error) as raised:
            fa4.attention(*args, **kwargs)
        self.assertIn(message, str(raised.exception))

    def test_types_and_ranks(self):
        q = bshd(2, 100, 4, 64)
        self.refuses(TypeError, "q must be a torch.Tensor, not list", [1], q, q)
        self.refuses(ValueError, "q has 3 dimensions (100, 4, 64); fa4 takes (B, S, H, D)",
                     q[0], q, q)
        self.refuses(TypeError, "k is torch.float32; fa4 runs torch.bfloat16 and torch.float16",
                     q, q.float(), q)
        self.refuses(TypeError, "q, k and v have dtypes torch.bfloat16, torch.float16 and "
                     "torch.bfloat16", q, q.half(), q)

    def test_shapes(self):
        q = bshd(2, 100, 4, 64)
        self.refuses(ValueError, "head dims of q and k differ: q 64, k 128 (v's may differ)",
                     q, bshd(2, 100, 4, 128), bshd(2, 100, 4, 128))
        self.refuses(ValueError, "k (2, 100, 4, 64) and v (2, 50, 4, 64) differ in shape "
                     "before the head dim", q, q, bshd(2, 50, 4, 64))
        self.refuses(ValueError, "k (2, 100, 4, 64) and v (2, 100, 2, 128) differ in shape "
                     "before the head dim", q, q, bshd(2, 100, 2, 128))
        self.refuses(ValueError, "q has 6 heads, not a multiple of the 4 heads of k and v",
                     bshd(2, 100, 6, 64), q, q)
        self.refuses(ValueError, "q has batch 3, k and v 2", bshd(3, 100, 4, 64), q, q)

    def test_head_dims(self):
        # Every multiple of 16 from 32 to 256, v's on its own (MLA prefill:
        # 192 for q and k, 128 for v): accepted up to the device check.
        for d, dv in ((96, 96), (192, 128), (32, 256), (256, 32), (64, 64)):
            q, kv = bshd(2, 100, 4, d), bshd(2, 100, 4, dv)
            self.refuses(ValueError, "q is on cpu", q, q, kv)
        for d in (100, 272, 16, 0):
            x = bshd(1, 8, 2, d)
            self.refuses(ValueError, "head dim %d of q and k is not a multiple of 16 in "
                         "[32, 256]" % d, x, x, bshd(1, 8, 2, 64))
        q = bshd(1, 8, 2, 192)
        for dv in (100, 272, 16):
            self.refuses(ValueError, "head dim %d of v is not a multiple of 16 in [32, 256]"
                         % dv, q, q, bshd(1, 8, 2, dv))

    def test_gradients(self):
        x = bshd(1, 64, 2, 64)
        q = x.clone().requires_grad_()
        if fa4._DIFFERENTIABLE:
            # torch >= 2.4: differentiable; what the backward does not have
            # is refused before anything runs, other calls go on (here to
            # the device check).
            y = bshd(1, 64, 2, 64).requires_grad_()
            self.refuses(NotImplementedError, "no backward for a head dim of v (256) "
                         "wider than q's (64)", y, y, bshd(1, 64, 2, 256))
            self.refuses(ValueError, "q is on cpu", q, x, x, window_size=(8, 0), softcap=5.0)
            with torch.no_grad():
                self.refuses(ValueError, "q is on cpu", y, y, y)
        else:
            # No custom ops with autograd: an output without a backward is
            # refused while grad mode is on, naming the inputs; under
            # no_grad or inference_mode the call goes on.
            self.refuses(RuntimeError, "fa4.attention has no backward yet: q requires grad; "
                         "call it under torch.no_grad() (or detach the inputs)", q, x, x)
            self.refuses(RuntimeError, "q and v require grad", q, x, q)
            self.refuses(RuntimeError, "q, k and v require grad", q, q, q)
            self.refuses(RuntimeError, "k requires grad", x, q, x)
            # Before every other check.
            self.refuses(RuntimeError, "q requires grad", q, x, x, causal=1)
        with torch.no_grad():
            self.refuses(ValueError, "q is on cpu", q, q, q)
        with torch.inference_mode():
            self.refuses(ValueError, "q is on cpu", q, q, q)
        t = torch.randn(300, 4, 64).to(torch.bfloat16)
        cu = torch.tensor([0, 100, 300], dtype=torch.int32)
        if fa4._DIFFERENTIABLE:
            # Packed sequences too: the backward's limits first, then the
            # device check.
            with self.assertRaises(ValueError) as raised:
                fa4.attention_varlen(t, t.clone().requires_grad_(), t, cu, cu, 200, 200)
            self.assertIn("q is on cpu", str(raised.exception))
            wide = torch.randn(300, 4, 256).to(torch.bfloat16)
            narrow = t.clone().requires_grad_()
            with self.assertRaises(NotImplementedError) as raised:
                fa4.attention_varlen(narrow, narrow, wide, cu, cu, 200, 200)
            self.assertIn("fa4.attention_varlen has no backward for a head dim of v (256) "
                          "wider than q's (64)", str(raised.exception))
        else:
            with self.assertRaises(RuntimeError) as raised:
                fa4.attention_varlen(t, t.clone().requires_grad_(), t, cu, cu, 200, 200)
            self.assertIn("fa4.attention_varlen has no backward yet: k requires grad",
                          str(raised.exception))
        with torch.no_grad(), self.assertRaises(ValueError) as raised:
            fa4.attention_varlen(t, t.clone().requires_grad_(), t, cu, cu, 200, 200)
        self.assertIn("q is on cpu", str(raised.exception))

    def test_backward_args(self):
        # fa4_attention_backward_args field for field, and what libfa4
        # refuses before any kernel: a head dim of V of its own.
        # struct_size and dtype, ten tensors, causal, window_left,
        # window_right, softcap, softmax_scale and delta_ready, the plan
        # pointer at the next 8 bytes, deterministic, then dq_accum at the
        # next 8.
        self.assertEqual(_lib.BackwardArgs.plan.offset, 8 + 10 * ctypes.sizeof(_lib.Tensor) + 24)
        self.assertEqual(_lib.BackwardArgs.deterministic.offset, _lib.BackwardArgs.plan.offset + 8)
        self.assertEqual(_lib.BackwardArgs.dq_accum.offset, _lib.BackwardArgs.plan.offset + 16)
        # Packed sequences: the offsets' two addresses, batch and the two
        # longest lengths, 8 bytes each, after dq_accum.
        tail = _lib.BackwardArgs.dq_accum.offset + ctypes.sizeof(_lib.Tensor)
        for i, name in enumerate(("cu_seqlens_q", "cu_seqlens_k", "batch", "max_seqlen_q",
                                  "max_seqlen_k")):
            self.assertEqual(getattr(_lib.BackwardArgs, name).offset, tail + 8 * i)
        self.assertEqual(ctypes.sizeof(_lib.BackwardArgs), tail + 40)
        try:
            _lib.library()
        except _lib.Fa4Error as error:
            self.skipTest(str(error))
        with self.assertRaises(_lib.Fa4Error) as raised:
            fa4.prepare_backward(64, head_dim_v=128)
        self.assertIn("the attention backward takes a head dim of V up to Q's and K's, not "
                      "128 for V with 64 for Q and K", str(raised.exception))

    def test_backward_dq_accum_columns(self):
        # Whether a backward adds dQ's parts into dq_accum, and its width:
        # libfa4's table (five products at head dim 64, in bf16 without a
        # window or softcap from 2048 keys without a causal mask and 4096
        # with one, where the persistent pair leads below; over 64 at every
        # length without a causal mask and from 2048 keys with one), never
        # when deterministic.
        try:
            library = _lib.library()
        except _lib.Fa4Error as error:
            self.skipTest(str(error))

        def columns(d, seq_k, causal=False, deterministic=False, varlen=False):
            args = _lib.BackwardArgs()
            args.dtype = fa4._DTYPES[torch.bfloat16]
            for tensor, s in ((args.q, 1024), (args.k, seq_k), (args.v, seq_k)):
                shape = (16, s, d) if varlen else (1, 16, s, d)
                tensor.rank = len(shape)
                for i, extent in enumerate(shape):
                    tensor.shape[i] = extent
            args.cu_seqlens_q = 1 if varlen else 0
            args.causal = int(causal)
            args.deterministic = int(deterministic)
            out = ctypes.c_int32(-1)
            _lib.check(library.fa4_attention_backward_dq_accum(ctypes.byref(args),
                                                               ctypes.byref(out)))
            return out.value

        self.assertEqual(columns(128, 16384), 128)
        self.assertEqual(columns(96, 16384), 128)
        self.assertEqual(columns(128, 16384, deterministic=True), 0)
        self.assertEqual(columns(128, 8192), 128)
        self.assertEqual(columns(128, 1024), 128)
        self.assertEqual(columns(128, 16384, causal=True), 128)
        self.assertEqual(columns(128, 2048, causal=True), 128)
        self.assertEqual(columns(128, 2047, causal=True), 0)
        self.assertEqual(columns(128, 1 << 20, causal=True), 128)
        self.assertEqual(columns(64, 2048), 64)
        self.assertEqual(columns(64, 2047), 0)
        self.assertEqual(columns(64, 4096, causal=True), 64)
        self.assertEqual(columns(64, 4095, causal=True), 0)
        self.assertEqual(columns(64, 4096, deterministic=True), 0)
        self.assertEqual(columns(256, 16384), 0)
        # Packed sequences take dQ's own kernel.
        self.assertEqual(columns(128, 16384, varlen=True), 0)

    def test_empty_inputs(self):
        # Empty inputs get every check; only an empty tensor's address (0,
        # or anywhere) is not one. CPU tensors end at the device check.
        x = bshd(2, 100, 4, 64)
        for q, k in ((bshd(0, 100, 4, 64), bshd(0, 70, 4, 64)),
                     (bshd(2, 0, 4, 64), x), (x, bshd(2, 0, 4, 64)),
                     (bshd(2, 100, 0, 64), x)):
            self.refuses(ValueError, "q is on cpu", q, k, k)
        self.refuses(ValueError, "head dim 100 of q and k", bshd(0, 8, 2, 100),
                     bshd(0, 8, 2, 100), bshd(0, 8, 2, 64))
        self.refuses(ValueError, "q has batch 0, k and v 2", bshd(0, 100, 4, 64), x, x)
        self.refuses(ValueError, "q has 4 heads, not a multiple of the 0 heads of k and v",
                     x, bshd(2, 100, 0, 64), bshd(2, 100, 0, 64))
        # An empty view 2 bytes into its storage (its data_ptr is that
        # address or 0, by torch's version).
        flat = torch.empty(100 * 4 * 64 + 8, dtype=torch.bfloat16)
        shifted = flat[1:1 + 100 * 4 * 64].view(1, 100, 4, 64)[:0]
        self.refuses(ValueError, "q is on cpu", shifted, x[:0], x[:0])
        t = torch.randn(0, 4, 64).to(torch.bfloat16)
        cu = torch.tensor([0, 0], dtype=torch.int32)
        with self.assertRaises(ValueError) as raised:
            fa4.attention_varlen(t, t, t, cu, cu, 0, 0)
        self.assertIn("q is on cpu", str(raised.exception))

    def test_strides_and_alignment(self):
        q = bshd(2, 100, 4, 64)
        self.refuses(ValueError, "q has stride 400 in its last dimension; it must be 1",
                     q.transpose(1, 3).contiguous().transpose(1, 3), q, q)
        odd = torch.randn(2, 100, 4, 68).to(torch.bfloat16)[..., :64]
        self.refuses(ValueError, "q has stride 68 (136 bytes) in dimension 2; TMA needs strides "
                     "of a multiple of 16 bytes", odd, q, q)
        flat = torch.empty(2 * 100 * 4 * 64 + 8, dtype=torch.bfloat16)
        shifted = flat[1:1 + 2 * 100 * 4 * 64].view(2, 100, 4, 64)
        self.refuses(ValueError, "q starts at an address 2 bytes past a 16-byte boundary",
                     shifted, q, q)

    def test_options(self):
        q = bshd(1, 64, 2, 64)
        self.refuses(TypeError, "causal must be a bool, not int", q, q, q, causal=1)
        self.refuses(ValueError, "window_size (-5, 0) has a negative size", q, q, q,
                     window_size=(-5, 0))
        self.refuses(TypeError, "window_size must be a pair of ints", q, q, q, window_size=3)
        self.refuses(ValueError, "softcap -1.0 is not a finite cap", q, q, q, softcap=-1.0)
        self.refuses(ValueError, "softmax_scale 0.0 is not finite and positive", q, q, q,
                     softmax_scale=0.0)

    def test_device(self):
        q = bshd(1, 64, 2, 64)
        self.refuses(ValueError, "q is on cpu; fa4 runs on CUDA tensors", q, q, q)

    def test_prepare(self):
        # prepare's head dims are checked before libfa4 is loaded.
        with self.assertRaises(ValueError) as raised:
            fa4.prepare(100)
        self.assertIn("head dim 100 of q and k (head_dim) is not a multiple of 16 in "
                      "[32, 256]", str(raised.exception))
        with self.assertRaises(ValueError) as raised:
            fa4.prepare(192, head_dim_v=272)
        self.assertIn("head dim 272 of v (head_dim_v)", str(raised.exception))

    def test_varlen(self):
        q = torch.randn(300, 4, 64).to(torch.bfloat16)
        cu = torch.tensor([0, 100, 300], dtype=torch.int32)
        with self.assertRaises(TypeError) as raised:
            fa4.attention_varlen(q, q, q, cu.long(), cu, 200, 200)
        self.assertIn("cu_seqlens_q is torch.int64 of shape (3,); it must be int32", str(raised.exception))
        with self.assertRaises(ValueError) as raised:
            fa4.attention_varlen(q[None], q, q, cu, cu, 200, 200)
        self.assertIn("q has 4 dimensions (1, 300, 4, 64); fa4 takes (T, H, D)", str(raised.exception))
        with self.assertRaises(ValueError) as raised:
            fa4.attention_varlen(q, q, q, cu, cu, 200, 200)
        self.assertIn("q is on cpu", str(raised.exception))
        # v's head dim on its own (out has it).
        with self.assertRaises(ValueError) as raised:
            fa4.attention_varlen(q, q, q[..., :48].contiguous(), cu, cu, 200, 200)
        self.assertIn("q is on cpu", str(raised.exception))

    def test_varlen_offsets(self):
        # The offsets are checked on the host, before the devices.
        q = torch.randn(300, 4, 64).to(torch.bfloat16)
        cu = torch.tensor([0, 100, 300], dtype=torch.int32)
        for message, cu_q, cu_k in (
                ("cu_seqlens_q decreases at index 2 (50 after 100); offsets must be "
                 "cumulative lengths", [0, 100, 50, 300], [0, 100, 200, 300]),
                ("cu_seqlens_k starts at 100, not 0; offsets must be cumulative lengths",
                 [0, 100, 300], [100, 200, 300]),
                ("cu_seqlens_q has 3 entries, cu_seqlens_k 4; they must agree",
                 [0, 100, 300], [0, 100, 200, 300]),
                ("cu_seqlens_q has 1 entries; B sequences have B + 1", [300], [300]),
                ("cu_seqlens_q ends at 200, not at the 300 tokens of its tensor",
                 [0, 100, 200], [0, 100, 300]),
                ("cu_seqlens_k has a sequence of 250 tokens, longer than max_seqlen 200",
                 [0, 100, 300], [0, 50, 300])):
            with self.assertRaises(ValueError) as raised:
                fa4.attention_varlen(q, q, q, torch.tensor(cu_q, dtype=torch.int32),
                                     torch.tensor(cu_k, dtype=torch.int32), 200, 200)
            self.assertIn(message, str(raised.exception))
        with self.assertRaises(ValueError) as raised:
            fa4.attention_varlen(q, q, q, cu, cu, 199, 200)
        self.assertIn("cu_seqlens_q has a sequence of 200 tokens, longer than max_seqlen 199",
                      str(raised.exception))


class KvcacheChecks(unittest.TestCase):
    """fa4.attention_with_kvcache: each refusal before anything launches
    (CPU tensors get as far as the device check), the struct libfa4 takes,
    the split heuristic and the workspace arithmetic."""

    def refuses(self, error, message, *args, **kwargs):
        with self.assertRaises(error) as raised:
            fa4.attention_with_kvcache(*args, **kwargs)
        self.assertIn(message, str(raised.exception))

    def test_refusals(self):
        q = bshd(2, 1, 8, 64)
        kc = bshd(2, 100, 2, 64)
        self.refuses(TypeError, "block_table is torch.int64; it must be int32",
                     q, kc, kc, block_table=torch.zeros(2, 4, dtype=torch.int64))
        self.refuses(ValueError, "block_table has shape (3, 4); it must be (B, max_pages) "
                     "with B = 2", q, kc, kc, block_table=torch.zeros(3, 4, dtype=torch.int32))
        pages = bshd(5, 24, 2, 64)
        self.refuses(ValueError, "the caches' pages hold 24 keys; fa4 takes pages of a "
                     "multiple of 16", q, pages, pages,
                     block_table=torch.zeros(2, 4, dtype=torch.int32))
        pages = bshd(5, 16, 2, 64)
        self.refuses(ValueError, "q is on cpu", q, pages, pages,
                     block_table=torch.zeros(2, 4, dtype=torch.int32))
        self.refuses(ValueError, "q has 3 dimensions", q[0], kc, kc)
        self.refuses(ValueError, "k_cache has 3 dimensions (2, 100, 64); fa4 takes "
                     "(B, SMAX, HKV, D)", q, kc[:, :, 0], kc)
        self.refuses(TypeError, "q, k_cache and v_cache have dtypes", q, kc.half(), kc)
        self.refuses(ValueError, "head dims of q and k_cache differ: q 64, k_cache 128",
                     q, bshd(2, 100, 2, 128), kc)
        self.refuses(ValueError, "q has 8 heads, not a multiple of the 3 heads",
                     q, bshd(2, 100, 3, 64), bshd(2, 100, 3, 64))
        self.refuses(ValueError, "q has batch 2, k_cache and v_cache 3", q,
                     bshd(3, 100, 2, 64), bshd(3, 100, 2, 64))
        self.refuses(ValueError, "k and v are the new keys and values: give both",
                     q, kc, kc, k=bshd(2, 1, 2, 64))
        self.refuses(ValueError, "k (2, 1, 4, 64) does not match its cache", q, kc, kc,
                     k=bshd(2, 1, 4, 64), v=bshd(2, 1, 4, 64))
        self.refuses(ValueError, "num_splits -1 is not an int in [0, 64]", q, kc, kc,
                     num_splits=-1)
        self.refuses(ValueError, "num_splits 65 is not an int in [0, 64]", q, kc, kc,
                     num_splits=65)
        self.refuses(ValueError, "window_size (-2, 0) has a negative size", q, kc, kc,
                     window_size=(-2, 0))
        self.refuses(TypeError, "plan must be a str", q, kc, kc, plan=3)
        self.refuses(RuntimeError, "has no backward: it is for inference", q, kc,
                     kc.clone().requires_grad_())
        self.refuses(ValueError, "q is on cpu", q, kc, kc)
        with self.assertRaises(ValueError) as raised:
            fa4.kvcache._seqlens(torch.zeros(3, dtype=torch.int32), 2, 100, torch.device("cpu"))
        self.assertIn("cache_seqlens has shape (3,); it must be (B,) = (2,)",
                      str(raised.exception))
        with self.assertRaises(TypeError) as raised:
            fa4.kvcache._seqlens(torch.zeros(2), 2, 100, torch.device("cpu"))
        self.assertIn("cache_seqlens is torch.float32; it must be int32", str(raised.exception))

    def test_args_and_splits(self):
        # fa4_attention_kvcache_args field for field: struct_size and dtype,
        # five tensors, cache_seqlens, causal, window_left, window_right,
        # softcap, softmax_scale and num_splits, the workspace and its
        # bytes, the plan pointer, the block table and its row length.
        base = 8 + 5 * ctypes.sizeof(_lib.Tensor)
        self.assertEqual(_lib.KvcacheArgs.cache_seqlens.offset, base)
        self.assertEqual(_lib.KvcacheArgs.workspace.offset, base + 32)
        self.assertEqual(_lib.KvcacheArgs.plan.offset, base + 48)
        self.assertEqual(_lib.KvcacheArgs.max_pages.offset, base + 64)
        self.assertEqual(ctypes.sizeof(_lib.KvcacheArgs), base + 72)
        try:
            lib = _lib.library()
        except _lib.Fa4Error as error:
            self.skipTest(str(error))
        # (batch, heads, kv heads, seq_q, cache length, SMs) -> splits: the
        # fewest whole-wave splits within 95 % of the best, at most one per
        # key block of 128 and 64; 1 when the batch fills the GPU.
        for shape, splits in (((1, 32, 8, 1, 4096, 132), 16),
                              ((1, 32, 8, 1, 131072, 132), 16),
                              ((1, 32, 8, 1, 100, 132), 1),
                              ((1, 32, 8, 1, 0, 132), 1),
                              ((8, 32, 8, 1, 8192, 132), 2),
                              ((16, 32, 8, 1, 32768, 132), 1),
                              ((64, 32, 8, 1, 4096, 132), 1),
                              ((1, 16, 1, 4, 65536, 132), 61)):
            self.assertEqual(fa4.kvcache_splits(*shape), splits, shape)
        with self.assertRaises(_lib.Fa4Error) as raised:
            fa4.kvcache_splits(1, 30, 8, 1, 4096, 132)
        self.assertIn("heads 30 over 8", str(raised.exception))
        # The parts' O (V's head dim padded to 64 columns) and each row's
        # LSEs side by side (64 a row), f32.
        self.assertEqual(lib.fa4_attention_kvcache_workspace(2, 32, 1, 96, 16),
                         (16 * 128 + 64) * 2 * 32 * 4)
        self.assertEqual(lib.fa4_attention_kvcache_workspace(2, 32, 1, 96, 0), -1)
        self.assertEqual(lib.fa4_attention_kvcache_workspace(2, 32, 1, 96, 65), -1)
        with self.assertRaises(ValueError) as raised:
            fa4.prepare_kvcache(100)
        self.assertIn("head dim 100 of q and k_cache (head_dim)", str(raised.exception))


class GemmChecks(unittest.TestCase):
    def refuses(self, error, message, a, b):
        with self.assertRaises(error) as raised:
            fa4.gemm(a, b)
        self.assertIn(message, str(raised.exception))

    def test_refusals(self):
        a = torch.randn(256, 64).to(torch.bfloat16)
        self.refuses(TypeError, "a is torch.float32; fa4's gemm runs torch.bfloat16",
                     a.float(), a)
        self.refuses(ValueError, "b has 1 dimensions (64,)", a, a[0])
        self.refuses(ValueError, "a (256, 64) and b (128, 32) differ in K", a, a[:128, :32])
        self.refuses(ValueError, "b has 100 rows (N); fa4's gemm takes N a multiple of 128",
                     a, a[:100])
        self.refuses(ValueError, "a is on cpu", a, a)


class Layouts(unittest.TestCase):
    """The kernel sees [B, H, S, D] views whose strides come from the tensors."""

    def test_bshd(self):
        q = bshd(3, 100, 5, 64)
        k = bshd(3, 70, 5, 64)
        lse = torch.empty(3, 5, 100)
        args = fa4.attention_args(q, k, k, q, lse)
        self.assertEqual(list(args.q.shape), [3, 5, 100, 64])
        self.assertEqual(list(args.q.strides), [100 * 5 * 64, 64, 5 * 64, 1])
        self.assertEqual(list(args.k.shape), [3, 5, 70, 64])
        self.assertEqual(args.q.rank, 4)
        self.assertEqual(list(args.lse.shape)[:3], [3, 5, 100])
        self.assertEqual(args.q.data, q.data_ptr())
        self.assertEqual((args.window_left, args.window_right), (-1, -1))
        self.assertEqual(args.struct_size, _lib.ctypes.sizeof(_lib.AttentionArgs))

    def test_sdpa_layout_through_strides(self):
        # SDPA's (B, H, S, D) tensor as a (B, S, H, D) view: the kernel's view
        # is the original tensor, contiguous.
        x = torch.randn(2, 8, 300, 128).to(torch.float16)
        args = fa4.attention_args(x.transpose(1, 2), x.transpose(1, 2), x.transpose(1, 2),
                                  x.transpose(1, 2), torch.empty(2, 8, 300),
                                  causal=True, window_size=(256, 0), softcap=30.0)
        self.assertEqual(list(args.q.shape), [2, 8, 300, 128])
        self.assertEqual(list(args.q.strides), list(x.stride()))
        self.assertEqual(args.dtype, _lib.FA4_F16)
        self.assertEqual((args.causal, args.window_left, args.window_right), (1, 256, 0))
        self.assertAlmostEqual(args.softcap, 30.0)

    def test_packed_bytes_are_the_struct(self):
        # The fast path's bytes equal the ctypes struct's, field for field.
        q = bshd(3, 100, 8, 128)
        k = bshd(3, 70, 2, 128).transpose(1, 2).contiguous().transpose(1, 2)
        out, lse = torch.empty_like(q), torch.empty(3, 8, 100)
        slow = fa4.attention_args(q, k, k, out, lse, causal=True, softmax_scale=0.1,
                                  window_size=(300, 0), softcap=20.0)
        fast = fa4._pack_dense(q, k, k, out, lse, True, 0.1, 300, 0, 20.0)
        self.assertEqual(fast, bytes(slow))

    def test_packed_bytes_with_v_head_dim(self):
        # MLA prefill: q and k 192, v and out 128; o's view has out's head dim.
        q, k, v = bshd(2, 100, 8, 192), bshd(2, 70, 8, 192), bshd(2, 70, 8, 128)
        out, lse = fa4._output(q, 128), torch.empty(2, 8, 100)
        slow = fa4.attention_args(q, k, v, out, lse)
        self.assertEqual(list(slow.o.shape), [2, 8, 100, 128])
        self.assertEqual(list(slow.v.shape), [2, 8, 70, 128])
        self.assertEqual(list(slow.k.shape), [2, 8, 70, 192])
        self.assertEqual(fa4._pack_dense(q, k, v, out, lse, False, 0.0, -1, -1, 0.0),
                         bytes(slow))

    def test_output_keeps_the_layout(self):
        # (B, S, H, D) memory: out (B, S, H, Dv) contiguous.
        q = bshd(2, 300, 8, 192)
        out = fa4._output(q, 128)
        self.assertEqual(tuple(out.shape), (2, 300, 8, 128))
        self.assertEqual(out.stride(), (300 * 8 * 128, 8 * 128, 128, 1))
        self.assertEqual(out.dtype, q.dtype)
        # SDPA's (B, H, S, D) memory as a view: out is that memory too.
        x = torch.randn(2, 8, 300, 192).to(torch.bfloat16).transpose(1, 2)
        out = fa4._output(x, 128)
        self.assertEqual(tuple(out.shape), (2, 300, 8, 128))
        self.assertEqual(out.stride(), (8 * 300 * 128, 128, 300 * 128, 1))
        self.assertTrue(out.transpose(1, 2).is_contiguous())
        # Dv == D: the strides of a dense q, as empty_like's.
        for q in (x[..., :64].contiguous(), bshd(2, 300, 8, 64),
                  torch.randn(8, 300, 2, 64).to(torch.bfloat16).permute(2, 1, 0, 3)):
            self.assertEqual(fa4._output(q, 64).stride(), torch.empty_like(q).stride())
        # A head dim padded in memory: out dense, in q's order.
        padded = torch.randn(2, 8, 300, 80).to(torch.bfloat16)[..., :64].transpose(1, 2)
        self.assertEqual(fa4._output(padded, 64).stride(), (8 * 300 * 64, 64, 300 * 64, 1))
        # Packed sequences (T, H, D) and their (H, T, D) memory.
        t = torch.randn(500, 4, 192).to(torch.bfloat16)
        self.assertEqual(fa4._output(t, 128).stride(), (4 * 128, 128, 1))
        self.assertEqual(fa4._output(t.transpose(0, 1).contiguous().transpose(0, 1), 128)
                         .stride(), (128, 500 * 128, 1))
        # Size-1 and empty dimensions get a dense layout too.
        for shape in ((1, 1, 4, 64), (0, 100, 4, 64), (2, 0, 4, 64), (2, 100, 0, 64)):
            q = torch.empty(shape, dtype=torch.bfloat16)
            out = fa4._output(q, 32)
            self.assertEqual(tuple(out.shape), shape[:3] + (32,))
            self.assertTrue(out.is_contiguous())

    def test_no_key_result(self):
        # Nothing to compute: out 0 in q's layout with v's head dim, lse -inf.
        x = torch.randn(2, 8, 300, 192).to(torch.bfloat16).transpose(1, 2)
        v = bshd(2, 0, 8, 128)
        out, lse = fa4._no_key_result(x, v, (2, 8, 300))
        self.assertEqual(tuple(out.shape), (2, 300, 8, 128))
        self.assertEqual(out.stride(), (8 * 300 * 128, 128, 300 * 128, 1))
        self.assertTrue(torch.equal(out, torch.zeros(2, 300, 8, 128, dtype=torch.bfloat16)))
        self.assertEqual(lse.dtype, torch.float32)
        self.assertTrue(torch.equal(lse, torch.full((2, 8, 300), float("-inf"))))
        out, lse = fa4._no_key_result(bshd(0, 300, 8, 64), bshd(0, 10, 8, 64), (0, 8, 300))
        self.assertEqual((tuple(out.shape), tuple(lse.shape)), ((0, 300, 8, 64), (0, 8, 300)))


class VarlenTiles(unittest.TestCase):
    def test_order(self):
        # Most work first; each sequence's last block first; empty ones none.
        tiles = fa4.varlen_tiles([0, 100, 100, 400, 1000], [0, 100, 100, 400, 1000])
        self.assertEqual(tiles, [(3, 4), (3, 3), (3, 2), (3, 1), (3, 0),
                                 (2, 2), (2, 1), (2, 0), (0, 0)])

    def test_refusals(self):
        # Argument errors like the others (ValueError), before libfa4.
        for message, cu_q, cu_k in (
                ("cu_seqlens_q decreases at index 2 (200 after 300); offsets must be "
                 "cumulative lengths", [0, 300, 200], [0, 300, 400]),
                ("cu_seqlens_k decreases at index 3 (500 after 700)",
                 [0, 1, 2, 3], [0, 300, 700, 500]),
                ("cu_seqlens_q starts at 5, not 0; offsets must be cumulative lengths",
                 [5, 300], [0, 300]),
                ("cu_seqlens_k starts at -1, not 0", [0, 300], [-1, 300]),
                ("cu_seqlens_q has 2 entries, cu_seqlens_k 3; they must agree",
                 [0, 3], [0, 3, 4]),
                ("cu_seqlens_q has 1 entries; B sequences have B + 1", [0], [0]),
                ("cu_seqlens_k ends at 4294967296, past the int32 offsets fa4 reads",
                 [0, 1], [0, 2**32])):
            with self.assertRaises(ValueError) as raised:
                fa4.varlen_tiles(cu_q, cu_k)
            self.assertIn(message, str(raised.exception))


def have_ptxas():
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    return shutil.which("ptxas") or os.path.exists(os.path.join(cuda, "bin", "ptxas"))


class KernelNames(unittest.TestCase):
    """libfa4's kernel key, by the name it derives: head dims, options,
    the plan text, and the plan a launch of a shape gets (no compile, no
    GPU)."""

    def name(self, head_dim=128, head_dim_v=None, dtype=_lib.FA4_BF16, varlen=False,
             window=False, softcap=0.0, causal=False, seqlen_k=4096, plan=None):
        args = _lib.AttentionArgs()
        args.dtype = dtype
        rank = 3 if varlen else 4
        for tensor, d in ((args.q, head_dim), (args.k, head_dim),
                          (args.v, head_dim_v or head_dim), (args.o, head_dim_v or head_dim)):
            tensor.rank = rank
            tensor.shape[rank - 1] = d
        args.k.shape[rank - 2] = seqlen_k
        args.cu_seqlens_q = 1 if varlen else 0
        args.window_left = 100 if window else -1
        args.window_right = -1
        args.softcap = softcap
        args.causal = int(causal)
        args.plan = plan.encode() if plan is not None else None
        buf = ctypes.create_string_buffer(128)
        _lib.check(_lib.library().fa4_attention_kernel_name(ctypes.byref(args), buf, 128))
        return buf.value.decode()

    def test_names(self):
        self.assertEqual(self.name(), "attention-hd128")
        self.assertEqual(self.name(192, 128, _lib.FA4_F16, varlen=True, window=True,
                                   softcap=30.0),
                         "attention-hd192-v128-f16-varlen-window-softcap")
        self.assertEqual(self.name(80), "attention-hd80")
        self.assertEqual(self.name(plan="kv-stages=3,persistent=false"),
                         "attention-hd128-kv3-persistent0")
        # Head dim 256 takes the derived 80-row key blocks with a causal
        # mask or without one, at every length; a plan given wins.
        self.assertEqual(self.name(256, causal=True), "attention-hd256")
        self.assertEqual(self.name(256, seqlen_k=2048), "attention-hd256")
        self.assertEqual(self.name(256), "attention-hd256")
        self.assertEqual(self.name(256, causal=True, plan="block-n=64"), "attention-hd256-bn64")

    def test_refusals(self):
        for kwargs, message in (
                (dict(plan="tiles=2"), "plan 'tiles=2': 'tiles' is not a plan field"),
                (dict(plan="kv-stages=0"), "plan field kv-stages takes a positive integer"),
                (dict(head_dim=100), "head dim 100 is not a multiple of 16 in [32, 256]"),
                (dict(head_dim_v=272), "head dim of V 272 is not a multiple of 16")):
            with self.assertRaises(fa4.Fa4Error) as raised:
                self.name(**kwargs)
            self.assertIn(message, str(raised.exception))


@unittest.skipUnless(have_ptxas(), "the cache tests compile kernels: ptxas is needed")
class CompileCache(unittest.TestCase):
    """The cache through libfa4: compiled, then this process's table, then
    the entry in a new process; a corrupt entry recompiled; another plan
    another key; concurrent compiles; the cache off."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="fa4-cache-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def prepare_in_new_process(self, cache, args="64"):
        env = dict(os.environ, FA4_CACHE_DIR=cache)
        code = ("import sys; sys.path.insert(0, %r); import fa4; "
                "print(fa4.prepare(%s)[0])" % (os.path.join(HERE, ".."), args))
        return subprocess.Popen([sys.executable, "-c", code], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def run_in_new_process(self, cache, args="64"):
        done = self.prepare_in_new_process(cache, args)
        out, err = done.communicate()
        self.assertEqual(done.returncode, 0, err)
        return out.strip()

    def entries(self, cache):
        return sorted(f for f in os.listdir(cache)) if os.path.isdir(cache) else []

    def test_hit_miss_corrupt(self):
        cache = os.path.join(self.dir, "c")
        self.assertEqual(self.run_in_new_process(cache), "compiled")
        self.assertEqual(self.run_in_new_process(cache), "cache")
        [entry] = self.entries(cache)
        self.assertRegex(entry, r"^attention-hd64-[0-9a-f]{32}\.kernel$")
        # Truncated: reported, removed, compiled again.
        path = os.path.join(cache, entry)
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[: len(data) // 2])
        self.assertEqual(self.run_in_new_process(cache), "compiled")
        self.assertEqual(self.run_in_new_process(cache), "cache")
        # Another plan is another key.
        self.assertEqual(self.run_in_new_process(cache, "64, kv_stages=2"), "compiled")
        self.assertEqual(len(self.entries(cache)), 2)

    def test_concurrent_compiles(self):
        cache = os.path.join(self.dir, "c")
        runs = [self.prepare_in_new_process(cache) for _ in range(3)]
        for run in runs:
            out, err = run.communicate()
            self.assertEqual(run.returncode, 0, err)
            self.assertIn(out.strip(), ("compiled", "cache"))
        [entry] = self.entries(cache)
        self.assertNotIn("tmp", entry)
        self.assertEqual(self.run_in_new_process(cache), "cache")

    def test_off(self):
        self.assertEqual(self.run_in_new_process(""), "compiled")
        self.assertEqual(self.run_in_new_process(""), "compiled")

    def test_prepare_backward(self):
        # The backward's kernels of packed sequences with a window and a
        # softcap: D's dense one, dQ's and dK/dV's of their own; without
        # deterministic or varlen, the five products' two too.
        cache = os.path.join(self.dir, "b")
        os.environ["FA4_CACHE_DIR"] = cache
        try:
            fa4.prepare_backward(64, varlen=True, window=True, softcap=True)
            names = [entry.rsplit("-", 1)[0] for entry in self.entries(cache)]
            self.assertEqual(names, ["attention-bwd-dkdv-hd64-varlen-window-softcap",
                                     "attention-bwd-dq-hd64-varlen-window-softcap",
                                     "attention-bwd-pre-hd64"])
            fa4.prepare_backward(96)
            names = [entry.rsplit("-", 1)[0] for entry in self.entries(cache)]
            for name in ("attention-bwd-dq-hd96", "attention-bwd-dkdv-hd96",
                         "attention-bwd-fused-hd96", "attention-bwd-post-hd96"):
                self.assertIn(name, names)
        finally:
            del os.environ["FA4_CACHE_DIR"]

    def test_same_process(self):
        os.environ["FA4_CACHE_DIR"] = os.path.join(self.dir, "p")
        try:
            first = fa4.prepare(64, torch.float16)[0]
            self.assertIn(first, ("compiled", "process"))
            self.assertEqual(fa4.prepare(64, torch.float16)[0], "process")
        finally:
            del os.environ["FA4_CACHE_DIR"]


@unittest.skipUnless(hasattr(torch.library, "custom_op"), "torch.library.custom_op "
                     "needs torch >= 2.4 (this is %s)" % torch.__version__)
class CustomOp(unittest.TestCase):
    def test_registered(self):
        for name in ("attention", "attention_backward", "attention_varlen",
                     "attention_varlen_backward"):
            self.assertTrue(hasattr(torch.ops.fa4, name), name)


if __name__ == "__main__":
    unittest.main()

"""fa4 from PyTorch: FlashAttention-style forward attention on CUDA tensors.

    import fa4
    out = fa4.attention(q, k, v, causal=True)                 # (B, S, H, D)
    out, lse = fa4.attention(q, k, v, return_lse=True)        # lse (B, H, S)
    out = fa4.attention_varlen(q, k, v, cu_q, cu_k, max_q, max_k)  # (T, H, D)
    out = fa4.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=lens)

The arguments are FlashAttention's: q (B, SQ, H, D), k (B, SK, HKV, D) and
v (B, SK, HKV, Dv) with H a multiple of HKV (grouped-query attention), bf16
or f16, head dims D and Dv each a multiple of 16 from 32 to 256 (Dv may
differ from D: DeepSeek's MLA prefill has 192 and 128), any strides whose
last is 1 (SDPA's (B, H, S, D) tensors pass as ``x.transpose(1, 2)``). The
output (B, SQ, H, Dv) is allocated in q's memory layout and the kernel is
launched on ``torch.cuda.current_stream()``; nothing synchronizes, so
`attention` can be captured into a CUDA graph, and it is a ``torch.library``
custom op (``torch.ops.fa4.attention``) that ``torch.compile`` calls as one
node. Bad arguments raise ValueError or TypeError naming the argument and the
numbers before anything launches. Empty inputs (B, SQ, SK or H of 0) give
empty outputs, or out 0 and lse -inf for queries with no key, without a
launch. `attention` is differentiable (``register_autograd`` on the op: O
and the LSE are saved, and the backward runs fa4's backward kernels:
where it is faster, at head dims 80 to 128 and long sequences, each key
block's CTA adds its part of dQ into an f32 workspace, in no fixed order;
elsewhere, and always with ``deterministic=True``, dQ has a kernel of its
own, no sum across CTAs, so the gradients are the same bits every run);
its backward takes a head dim of v up to q's (DeepSeek's MLA: 192 and
128), and calls with a wider v whose inputs require grad raise
NotImplementedError before anything runs. `attention_varlen` is
differentiable the same way (its backward always computes dQ by a kernel
of its own). `attention_with_kvcache`
(kvcache.py) is decode over a KV cache: the query heads of a KV head in one
tile, the keys split over several CTAs, inference only.

The kernels come from libfa4 (see _lib.py), which compiles each on first use
or reads it from the compile cache ($FA4_CACHE_DIR, default ~/.cache/fa4).
"""

import ctypes
import math
import struct
import typing

import torch

from . import _lib
from . import ring
from ._lib import Fa4Error

__all__ = ["attention", "attention_varlen", "gemm", "prepare", "prepare_backward",
           "varlen_tiles", "version", "Fa4Error"]

_DTYPES = {torch.bfloat16: _lib.FA4_BF16, torch.float16: _lib.FA4_F16}
# The head dims of q and k, and on its own of v: a multiple of 16 from 32 to 256.
_HEAD_DIMS = range(32, 257, 16)

_compiler = getattr(torch, "compiler", None)
_compiling = getattr(_compiler, "is_compiling", None) or (lambda: False)


def version():
    """libfa4's version and compiler build."""
    return _lib.library().fa4_version().decode()


def _check_tensor(name, x, rank, layout):
    """Type, rank and dtype."""
    if not isinstance(x, torch.Tensor):
        raise TypeError("%s must be a torch.Tensor, not %s" % (name, type(x).__name__))
    if x.dim() != rank:
        raise ValueError("%s has %d dimensions %s; fa4 takes %s" %
                         (name, x.dim(), tuple(x.shape), layout))
    if x.dtype not in _DTYPES:
        raise TypeError("%s is %s; fa4 runs torch.bfloat16 and torch.float16" %
                        (name, x.dtype))


def _check_layout(name, x, address=True):
    """The strides TMA takes; with `address` the alignment of a non-empty
    tensor (an empty one is never read)."""
    if x.stride(-1) != 1:
        raise ValueError("%s has stride %d in its last dimension; it must be 1 "
                         "(contiguous head dim)" % (name, x.stride(-1)))
    for i in range(x.dim() - 1):
        if x.stride(i) * x.element_size() % 16 and x.shape[i] > 1:
            raise ValueError(
                "%s has stride %d (%d bytes) in dimension %d; TMA needs strides "
                "of a multiple of 16 bytes" %
                (name, x.stride(i), x.stride(i) * x.element_size(), i))
    if address and x.numel() and x.data_ptr() % 16:
        raise ValueError("%s starts at an address %d bytes past a 16-byte boundary; "
                         "TMA needs 16-byte aligned tensors" % (name, x.data_ptr() % 16))


def _check_no_grad(function, q, k, v):
    """Refuses inputs that require grad while grad mode is on: fa4 has no
    backward, and an output that does not require grad would drop their
    gradients without a word."""
    if not torch.is_grad_enabled():
        return
    names = [name for name, x in (("q", q), ("k", k), ("v", v))
             if getattr(x, "requires_grad", False)]
    if names:
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        raise RuntimeError("%s has no backward yet: %s %s grad; call it under "
                           "torch.no_grad() (or detach the inputs) for inference" %
                           (function, listed, "requires" if len(names) == 1 else "require"))


def _requires_grad(q, k, v):
    """Whether autograd will want gradients of q, k or v."""
    return torch.is_grad_enabled() and any(
        getattr(x, "requires_grad", False) for x in (q, k, v))


def _check_backward(q, v, function="fa4.attention"):
    """Refuses, before the forward runs, a differentiable call whose
    backward fa4 does not have (no gradient is ever dropped silently)."""
    missing = None
    if v.shape[-1] > q.shape[-1]:
        missing = "a head dim of v (%d) wider than q's (%d)" % (v.shape[-1], q.shape[-1])
    if missing:
        raise NotImplementedError(
            "%s has no backward for %s yet, and q, k or v requires grad; call it "
            "under torch.no_grad() (or detach the inputs) for inference" % (function, missing))


def _check_head_dim(d, of):
    """Refuses a head dim that fa4's kernels do not have; `of` says whose."""
    if d not in _HEAD_DIMS:
        raise ValueError("head dim %d of %s is not a multiple of %d in [%d, %d]" %
                         (d, of, _HEAD_DIMS.step, _HEAD_DIMS.start, _HEAD_DIMS[-1]))


def _check_inputs(q, k, v, rank, layout, address=True):
    """Types, ranks, dtypes, head dims, counts and strides; with `address`
    the alignment of non-empty tensors too (not while torch.compile traces:
    fake tensors have no address)."""
    named = (("q", q), ("k", k), ("v", v))
    for name, x in named:
        _check_tensor(name, x, rank, layout)
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError("q, k and v have dtypes %s, %s and %s; they must agree" %
                        (q.dtype, k.dtype, v.dtype))
    if k.shape[-1] != q.shape[-1]:
        raise ValueError("head dims of q and k differ: q %d, k %d (v's may differ)" %
                         (q.shape[-1], k.shape[-1]))
    _check_head_dim(q.shape[-1], "q and k")
    _check_head_dim(v.shape[-1], "v")
    if k.shape[:-1] != v.shape[:-1]:
        raise ValueError("k %s and v %s differ in shape before the head dim" %
                         (tuple(k.shape), tuple(v.shape)))
    heads, kv_heads = q.shape[-2], k.shape[-2]
    # Only 0 is a multiple of 0 heads (a call with no heads is empty).
    if heads % kv_heads if kv_heads else heads:
        raise ValueError("q has %d heads, not a multiple of the %d heads of k and v" %
                         (heads, kv_heads))
    for name, x in named:
        _check_layout(name, x, address)


def _check_dense(q, k, v, address=True):
    """_check_inputs of a dense call, and its batches."""
    _check_inputs(q, k, v, 4, "(B, S, H, D)", address)
    if k.shape[0] != q.shape[0]:
        raise ValueError("q has batch %d, k and v %d" % (q.shape[0], k.shape[0]))


def _check_device(tensors):
    for name, x in tensors:
        if not x.is_cuda:
            raise ValueError("%s is on %s; fa4 runs on CUDA tensors" % (name, x.device))
        if x.get_device() != 0:
            raise ValueError("%s is on %s; fa4 runs on the CUDA driver's device 0 "
                             "(cuda:0, or set CUDA_VISIBLE_DEVICES)" % (name, x.device))


# The current stream of device 0 as an integer: torch's raw getter where it
# has one (a fraction of a microsecond), else the public one.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _current_stream():
    if _raw_stream is not None:
        return _raw_stream(0)
    return torch.cuda.current_stream().cuda_stream


def _check_options(causal, softmax_scale, window_size, softcap):
    """The scalar options checked; returns the window as (left, right)."""
    if not isinstance(causal, bool):
        raise TypeError("causal must be a bool, not %s" % type(causal).__name__)
    try:
        left, right = (int(w) for w in window_size)
    except (TypeError, ValueError):
        raise TypeError("window_size must be a pair of ints (left, right), not %r" %
                        (window_size,))
    if left < -1 or right < -1:
        raise ValueError("window_size (%d, %d) has a negative size; -1 is unbounded" %
                         (left, right))
    if not (softcap >= 0 and math.isfinite(softcap)):
        raise ValueError("softcap %r is not a finite cap of 0 (none) or more" % (softcap,))
    if softmax_scale is not None and not (softmax_scale > 0 and math.isfinite(softmax_scale)):
        raise ValueError("softmax_scale %r is not finite and positive" % (softmax_scale,))
    return left, right


def _options(args, q, causal, softmax_scale, window_size, softcap):
    args.window_left, args.window_right = _check_options(
        causal, softmax_scale, window_size, softcap)
    args.dtype = _DTYPES[q.dtype]
    args.causal = int(causal)
    args.softcap = float(softcap)
    args.softmax_scale = float(softmax_scale or 0.0)


def _output_layout(q, dv):
    """The shape and strides of q's output: q's shape with head dim dv, laid
    out densely in the order of q's strides, the head dim innermost (SDPA's
    (B, H, S, D) memory passed as a (B, S, H, D) view gets an output of that
    memory too)."""
    shape = tuple(q.shape[:-1]) + (dv,)
    strides = [1] * q.dim()
    size = dv
    # Innermost first; of equal strides (dimensions of size 1) the later.
    for i in sorted(range(q.dim() - 1), key=lambda i: (q.stride(i), -i)):
        strides[i] = size
        size *= shape[i]
    return shape, tuple(strides)


def _output(q, dv):
    """An uninitialized output for q with head dim dv (_output_layout)."""
    return q.new_empty_strided(*_output_layout(q, dv))


def _no_key_result(q, v, lse_shape):
    """out and lse of a call with nothing to compute (no batch, query, head
    or key), without a launch: out 0 and lse -inf, as fa4's kernels give
    rows that see no key."""
    out = _output(q, v.shape[-1]).zero_()
    lse = torch.full(lse_shape, float("-inf"), dtype=torch.float32, device=q.device)
    return out, lse


def _tensor(x, order):
    """An fa4_tensor over x, its dimensions taken in `order`."""
    t = _lib.Tensor()
    t.data = x.data_ptr()
    t.rank = len(order)
    for i, dim in enumerate(order):
        t.shape[i] = x.shape[dim]
        t.strides[i] = x.stride(dim)
    return t


def attention_args(q, k, v, out, lse, causal=False, softmax_scale=None,
                   window_size=(-1, -1), softcap=0.0):
    """The fa4_attention_args of a dense call: q, k, v and out (B, S, H, D)
    as the kernel's [B, H, S, D] views (their strides), lse (B, H, SQ)."""
    args = _lib.AttentionArgs()
    _options(args, q, causal, softmax_scale, window_size, softcap)
    bshd = (0, 2, 1, 3)
    args.q, args.k, args.v, args.o = (_tensor(x, bshd) for x in (q, k, v, out))
    args.lse = _tensor(lse, (0, 1, 2))
    return args


# fa4_attention_args as one struct.pack (native alignment, as the C compiler
# lays it out): a dense call's bytes without building ctypes objects, which
# costs ~15 us a call. test_fa4.py checks it against AttentionArgs.
_TENSOR = "Qi4q4q"
_PACKED = struct.Struct("@Ii" + _TENSOR * 5 + "iiiffQQQqqiiP")
assert _PACKED.size == ctypes.sizeof(_lib.AttentionArgs)


def _pack_dense(q, k, v, out, lse, causal, scale, left, right, softcap):
    """The bytes of attention_args(q, k, v, out, lse, ...)."""
    values = [_PACKED.size, _DTYPES[q.dtype]]
    for x in (q, k, v, out):
        b, s, h, d = x.shape
        sb, ss, sh, sd = x.stride()
        values += (x.data_ptr(), 4, b, h, s, d, sb, sh, ss, sd)
    b, h, s = lse.shape
    values += (lse.data_ptr(), 3, b, h, s, 0, h * s, s, 1, 0)
    values += (int(causal), left, right, softcap, scale, 0, 0, 0, 0, 0, 0, 0, 0)
    return _PACKED.pack(*values)


# Plans of the calls seen, by everything but the tensors' addresses: a call
# like an earlier one skips the checks and the packing (libfa4 binds its
# arguments once per plan). Each is (libfa4's plan, out's shape and strides,
# lse's shape). Empty calls have none. Bounded; cleared when full.
_plans = {}
_MAX_PLANS = 1024


def _plan(key, q, k, v, causal, softmax_scale, window_left, window_right, softcap):
    """The plan of a checked, non-empty call whose signature is `key`."""
    shape, strides = _output_layout(q, v.shape[-1])
    b, s, h, _ = q.shape
    out = q.new_empty_strided(shape, strides)
    lse = q.new_empty((b, h, s), dtype=torch.float32)
    packed = _pack_dense(q, k, v, out, lse, causal, softmax_scale or 0.0,
                         window_left, window_right, softcap)
    lib = _lib.library()
    handle = ctypes.c_void_p()
    _lib.check(lib.fa4_attention_plan_create(packed, ctypes.byref(handle)))
    if len(_plans) >= _MAX_PLANS:
        for old in _plans.values():
            lib.fa4_attention_plan_destroy(old[0])
        _plans.clear()
    plan = (handle.value, shape, strides, (b, h, s))
    _plans[key] = plan
    return plan


def _attention(q, k, v, causal, softmax_scale, window_left, window_right, softcap):
    try:
        key = (q.shape, q.stride(), q.dtype, q.get_device(), k.shape, k.stride(),
               k.dtype, k.get_device(), v.shape, v.stride(), v.dtype, v.get_device(),
               causal, softmax_scale, window_left, window_right, softcap)
        plan = _plans.get(key)
    except (AttributeError, TypeError):  # not tensors: the checks say so
        key, plan = None, None
    if plan is None or (q.data_ptr() | k.data_ptr() | v.data_ptr()) % 16:
        _check_dense(q, k, v)
        _check_device((("q", q), ("k", k), ("v", v)))
        if q.numel() == 0 or k.numel() == 0:
            b, s, h, _ = q.shape
            return _no_key_result(q, v, (b, h, s))
        plan = _plan(key, q, k, v, causal, softmax_scale, window_left, window_right,
                     softcap)
    handle, shape, strides, lse_shape = plan
    out = q.new_empty_strided(shape, strides)
    lse = q.new_empty(lse_shape, dtype=torch.float32)
    _lib.check(_lib.library().fa4_attention_plan_launch(
        handle, q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr(),
        _current_stream()))
    return out, lse


def _gradient_layouts(q, k, v):
    """Empty dq, dk and dv in the memory layouts of q, k and v."""
    return tuple(x.new_empty_strided(*_output_layout(x, x.shape[-1])) for x in (q, k, v))


def _backward_args(dout, q, k, v, out, lse, dlse, order, causal, softmax_scale,
                   window_left, window_right, softcap):
    """The backward's arguments, dense ((B, S, H, D) tensors, order (0, 2, 1,
    3)) or packed ((T, H, D), order (1, 0, 2)): the empty gradients in the
    layouts of q, k and v, and D = rowsum(dO o O) less dlse when the LSE has a
    gradient too (else libfa4 computes it). Returns (args, gradients, tensors
    the arguments point into), or (None, zero gradients, ()) when there is no
    query or no key."""
    gradients = _gradient_layouts(q, k, v)
    if q.numel() == 0 or k.numel() == 0:
        return None, tuple(x.zero_() for x in gradients), ()
    if dout.stride(-1) != 1 or dout.data_ptr() % 16 or any(
            st % 8 for st in dout.stride()[:-1]):
        dout = dout.contiguous()
    args = _lib.BackwardArgs()
    args.dtype = _DTYPES[q.dtype]
    args.q, args.k, args.v, args.o, args.dout, args.dq, args.dk, args.dv = (
        _tensor(x, order) for x in (q, k, v, out, dout) + gradients)
    # The LSE and delta are (B, H, S) or (H, T), in that order.
    lse = lse.contiguous()
    rows = tuple(range(lse.dim()))
    args.lse = _tensor(lse, rows)
    if dlse is not None:
        # A gradient through the LSE adds P o dLSE to dS: D - dLSE.
        delta = ((dout.float() * out.float()).sum(-1).transpose(-1, -2)
                 - dlse.float()).contiguous()
        args.delta_ready = 1
    else:
        delta = torch.empty_like(lse, dtype=torch.float32)
    args.delta = _tensor(delta, rows)
    args.causal = int(causal)
    args.window_left, args.window_right = window_left, window_right
    args.softcap = float(softcap)
    args.softmax_scale = float(softmax_scale)
    return args, gradients, (dout, lse, delta)


def _attention_backward(dout, q, k, v, out, lse, dlse, causal, softmax_scale,
                        window_left=-1, window_right=-1, softcap=0.0,
                        deterministic=False):
    """dq, dk, dv of a dense call: fa4's backward kernels (D = rowsum(dO o O),
    less dlse when the LSE has a gradient too; dQ, then dK and dV; or, where
    libfa4 picks it and not deterministic, dK, dV and dQ's parts added into
    an f32 dq_accum, then dQ)."""
    args, gradients, keep = _backward_args(dout, q, k, v, out, lse, dlse, (0, 2, 1, 3),
                                           causal, softmax_scale, window_left,
                                           window_right, softcap)
    if args is None:
        return gradients
    # `keep` holds the tensors the arguments point into until the launch.
    args.deterministic = int(bool(deterministic))
    columns = ctypes.c_int32(0)
    _lib.check(_lib.library().fa4_attention_backward_dq_accum(ctypes.byref(args),
                                                              ctypes.byref(columns)))
    if columns.value:
        # dQ's parts added across CTAs (the call zeroes it on the stream).
        b, s, h, _ = q.shape
        accum = q.new_empty((b, h, s, columns.value), dtype=torch.float32)
        keep += (accum,)
        args.dq_accum = _tensor(accum, (0, 1, 2, 3))
    _lib.check(_lib.library().fa4_attention_backward(ctypes.byref(args),
                                                     _current_stream()))
    return gradients


if hasattr(torch, "library") and hasattr(torch.library, "custom_op"):
    @torch.library.custom_op("fa4::attention_backward", mutates_args=())
    def _attention_backward_op(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
                               v: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                               dlse: typing.Optional[torch.Tensor], causal: bool,
                               softmax_scale: float, window_left: int, window_right: int,
                               softcap: float, deterministic: bool
                               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return _attention_backward(dout, q, k, v, out, lse, dlse, causal, softmax_scale,
                                   window_left, window_right, softcap, deterministic)

    @_attention_backward_op.register_fake
    def _attention_backward_fake(dout, q, k, v, out, lse, dlse, causal, softmax_scale,
                                 window_left, window_right, softcap, deterministic):
        return _gradient_layouts(q, k, v)

    @torch.library.custom_op("fa4::attention", mutates_args=())
    def _attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                      causal: bool, softmax_scale: float, window_left: int,
                      window_right: int, softcap: float,
                      deterministic: bool) -> tuple[torch.Tensor, torch.Tensor]:
        return _attention(q, k, v, causal, softmax_scale, window_left,
                          window_right, softcap)

    @_attention_op.register_fake
    def _attention_fake(q, k, v, causal, softmax_scale, window_left,
                        window_right, softcap, deterministic):
        b, s, h, _ = q.shape
        return _output(q, v.shape[-1]), q.new_empty((b, h, s), dtype=torch.float32)

    def _setup_context(ctx, inputs, output):
        (q, k, v, causal, softmax_scale, window_left, window_right, softcap,
         deterministic) = inputs
        out, lse = output
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.options = (causal, softmax_scale, window_left, window_right, softcap,
                       deterministic)
        # An output without a gradient arrives as None, not as zeros.
        ctx.set_materialize_grads(False)

    def _backward(ctx, dout, dlse):
        q, k, v, out, lse = ctx.saved_tensors
        if dout is None:
            dout = torch.zeros_like(out)
        dq, dk, dv = _attention_backward_op(dout, q, k, v, out, lse, dlse, *ctx.options)
        return dq, dk, dv, None, None, None, None, None, None

    _attention_op.register_autograd(_backward, setup_context=_setup_context)
    _DIFFERENTIABLE = True
else:  # torch < 2.4: a plain function
    def _attention_op(q, k, v, causal, softmax_scale, window_left, window_right,
                      softcap, deterministic):
        return _attention(q, k, v, causal, softmax_scale, window_left,
                          window_right, softcap)
    _DIFFERENTIABLE = False


def attention(q, k, v, causal=False, softmax_scale=None, window_size=(-1, -1),
              softcap=0.0, return_lse=False, deterministic=False):
    """FlashAttention's flash_attn_func: softmax(scale q k^T [mask]) v.

    q (B, SQ, H, D), k (B, SK, HKV, D), v (B, SK, HKV, Dv); causal is
    bottom-right aligned (FlashAttention's); window_size (left, right), -1
    unbounded; softcap: scores cap * tanh(s / cap). Returns out (B, SQ, H,
    Dv), and with return_lse the natural log-sum-exp of each row's scaled
    scores, float32 (B, H, SQ); a row that sees no key (all of them when SK
    is 0) has out 0 and lse -inf. Differentiable in q, k and v (and through
    lse); a call whose backward fa4 does not have (v's own head dim)
    raises NotImplementedError when an input requires grad while grad mode
    is on. deterministic: the backward's gradients the same
    bits every run (dQ by a kernel of its own); by default, where it is
    faster (head dims 80 to 128, long sequences), the key blocks add their
    parts of dQ in no fixed order.
    """
    if _requires_grad(q, k, v):
        if not _DIFFERENTIABLE:
            _check_no_grad("fa4.attention", q, k, v)
        _check_dense(q, k, v, address=not _compiling())
        left, right = _check_options(causal, softmax_scale, window_size, softcap)
        _check_backward(q, v)
        scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(q.shape[-1])
        out, lse = _attention_op(q, k, v, causal, float(scale), left, right, float(softcap),
                                 bool(deterministic))
    elif _compiling():
        # Traced by torch.compile: fake tensors, checked without addresses;
        # the op is one node of the graph.
        _check_dense(q, k, v, address=False)
        left, right = _check_options(causal, softmax_scale, window_size, softcap)
        scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(q.shape[-1])
        out, lse = _attention_op(q, k, v, causal, float(scale), left, right, float(softcap),
                                 bool(deterministic))
    else:
        left, right = _check_options(causal, softmax_scale, window_size, softcap)
        out, lse = _attention(q, k, v, causal, softmax_scale, left, right, float(softcap))
    return (out, lse) if return_lse else out


def _check_cu_seqlens(cu_q, cu_k):
    """cu_seqlens_q and cu_seqlens_k as lists: B + 1 int32 offsets each,
    from 0, never decreasing."""
    if len(cu_q) != len(cu_k):
        raise ValueError("cu_seqlens_q has %d entries, cu_seqlens_k %d; they must agree" %
                         (len(cu_q), len(cu_k)))
    if len(cu_q) < 2:
        raise ValueError("cu_seqlens_q has %d entries; B sequences have B + 1" % len(cu_q))
    for name, cu in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if cu[0] != 0:
            raise ValueError("%s starts at %d, not 0; offsets must be cumulative lengths" %
                             (name, cu[0]))
        for i in range(1, len(cu)):
            if cu[i] < cu[i - 1]:
                raise ValueError("%s decreases at index %d (%d after %d); offsets must be "
                                 "cumulative lengths" % (name, i, cu[i], cu[i - 1]))
        if cu[-1] > 2**31 - 1:
            raise ValueError("%s ends at %d, past the int32 offsets fa4 reads" %
                             (name, cu[-1]))


def varlen_tiles(cu_seqlens_q, cu_seqlens_k, causal=False):
    """The (sequence, query block) pairs of packed sequences, in the order
    fa4's varlen kernels run them, as an int32 list of pairs."""
    cu_q = [int(x) for x in cu_seqlens_q]
    cu_k = [int(x) for x in cu_seqlens_k]
    _check_cu_seqlens(cu_q, cu_k)
    return _varlen_tiles(cu_q, cu_k, causal)


def _varlen_tiles(cu_q, cu_k, causal):
    """varlen_tiles of checked offsets."""
    batch = len(cu_q) - 1
    arrays = [(ctypes.c_int32 * len(cu))(*cu) for cu in (cu_q, cu_k)]
    count = ctypes.c_int64(0)
    capacity = sum(max(0, (b - a + 127) // 128) for a, b in zip(cu_q, cu_q[1:]))
    tiles = (ctypes.c_int32 * max(2, 2 * capacity))()
    _lib.check(_lib.library().fa4_varlen_tiles(
        arrays[0], arrays[1], batch, int(bool(causal)), tiles, capacity,
        ctypes.byref(count)))
    return [(tiles[2 * i], tiles[2 * i + 1]) for i in range(count.value)]


def _attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, tiles, causal,
                      softmax_scale, window_left, window_right, softcap):
    """out and lse of checked packed sequences: fa4's varlen kernel over the
    listed (sequence, block) pairs, `tiles` int32 (N, 2) on the device."""
    if tiles.numel() == 0:  # no query, head or key, or no tile: no row sees a key
        return _no_key_result(q, v, (q.shape[1], q.shape[0]))
    out = _output(q, v.shape[-1])
    lse = torch.empty((q.shape[1], q.shape[0]), dtype=torch.float32, device=q.device)
    args = _lib.AttentionArgs()
    _options(args, q, causal, softmax_scale, (window_left, window_right), softcap)
    thd = (1, 0, 2)
    args.q, args.k, args.v, args.o = (_tensor(x, thd) for x in (q, k, v, out))
    args.lse = _tensor(lse, (0, 1))
    args.cu_seqlens_q = cu_seqlens_q.data_ptr()
    args.cu_seqlens_k = cu_seqlens_k.data_ptr()
    args.tiles = tiles.data_ptr()
    args.batch = cu_seqlens_q.shape[0] - 1
    args.num_tiles = tiles.shape[0]
    _lib.check(_lib.library().fa4_attention(bytes(args), _current_stream()))
    return out, lse


def _attention_varlen_backward(dout, q, k, v, out, lse, dlse, cu_seqlens_q,
                               cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal,
                               softmax_scale, window_left, window_right, softcap):
    """dq, dk, dv of packed sequences: D = rowsum(dO o O) (less dlse), then
    dQ by a CTA per query block and dK and dV by a CTA per key block of
    each sequence (no sum across CTAs: the same bits every run)."""
    args, gradients, keep = _backward_args(dout, q, k, v, out, lse, dlse, (1, 0, 2),
                                           causal, softmax_scale, window_left,
                                           window_right, softcap)
    if args is None:
        return gradients
    args.cu_seqlens_q = cu_seqlens_q.data_ptr()
    args.cu_seqlens_k = cu_seqlens_k.data_ptr()
    args.batch = cu_seqlens_q.shape[0] - 1
    args.max_seqlen_q = max(1, int(max_seqlen_q))
    args.max_seqlen_k = max(1, int(max_seqlen_k))
    _lib.check(_lib.library().fa4_attention_backward(ctypes.byref(args),
                                                     _current_stream()))
    return gradients


if _DIFFERENTIABLE:
    @torch.library.custom_op("fa4::attention_varlen_backward", mutates_args=())
    def _attention_varlen_backward_op(
            dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
            out: torch.Tensor, lse: torch.Tensor, dlse: typing.Optional[torch.Tensor],
            cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor, max_seqlen_q: int,
            max_seqlen_k: int, causal: bool, softmax_scale: float, window_left: int,
            window_right: int, softcap: float
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return _attention_varlen_backward(
            dout, q, k, v, out, lse, dlse, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
            max_seqlen_k, causal, softmax_scale, window_left, window_right, softcap)

    @_attention_varlen_backward_op.register_fake
    def _attention_varlen_backward_fake(dout, q, k, v, *rest):
        return _gradient_layouts(q, k, v)

    @torch.library.custom_op("fa4::attention_varlen", mutates_args=())
    def _attention_varlen_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                             cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor,
                             tiles: torch.Tensor, max_seqlen_q: int, max_seqlen_k: int,
                             causal: bool, softmax_scale: float, window_left: int,
                             window_right: int, softcap: float
                             ) -> tuple[torch.Tensor, torch.Tensor]:
        return _attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, tiles, causal,
                                 softmax_scale, window_left, window_right, softcap)

    @_attention_varlen_op.register_fake
    def _attention_varlen_fake(q, k, v, *rest):
        return (_output(q, v.shape[-1]),
                q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32))

    def _setup_varlen_context(ctx, inputs, output):
        (q, k, v, cu_seqlens_q, cu_seqlens_k, _, max_seqlen_q, max_seqlen_k, causal,
         softmax_scale, window_left, window_right, softcap) = inputs
        out, lse = output
        ctx.save_for_backward(q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k)
        ctx.options = (max_seqlen_q, max_seqlen_k, causal, softmax_scale, window_left,
                       window_right, softcap)
        ctx.set_materialize_grads(False)

    def _varlen_backward(ctx, dout, dlse):
        q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k = ctx.saved_tensors
        if dout is None:
            dout = torch.zeros_like(out)
        dq, dk, dv = _attention_varlen_backward_op(dout, q, k, v, out, lse, dlse,
                                                   cu_seqlens_q, cu_seqlens_k,
                                                   *ctx.options)
        return (dq, dk, dv) + (None,) * 10

    _attention_varlen_op.register_autograd(_varlen_backward,
                                           setup_context=_setup_varlen_context)


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                     max_seqlen_k, causal=False, softmax_scale=None,
                     window_size=(-1, -1), softcap=0.0, return_lse=False,
                     deterministic=False):
    """FlashAttention's flash_attn_varlen_func: packed sequences.

    q (TQ, H, D), k (TK, HKV, D) and v (TK, HKV, Dv), the tokens of one
    sequence after the other; cu_seqlens_q and cu_seqlens_k int32 (B + 1)
    CUDA tensors of cumulative lengths; max_seqlen_q/k at least the longest
    lengths. Each sequence has its own causal and window arithmetic.
    Returns out (TQ, H, Dv), and with return_lse float32 (H, TQ); rows that
    see no key have out 0 and lse -inf. The tile order is built on the host
    from the offsets, so this call copies cu_seqlens to the host (and cannot
    be captured into a CUDA graph); the offsets are checked there, before
    the devices. Differentiable in q, k and v (and through lse), with the
    backward's limits of `attention` (NotImplementedError before anything
    runs); the backward computes dQ by a kernel of its own, so its
    gradients are the same bits every run whatever `deterministic` says.
    """
    differentiable = _requires_grad(q, k, v)
    if differentiable and not _DIFFERENTIABLE:
        _check_no_grad("fa4.attention_varlen", q, k, v)
    _check_inputs(q, k, v, 3, "(T, H, D)")
    if differentiable:
        _check_backward(q, v, "fa4.attention_varlen")
    for name, cu in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if not isinstance(cu, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, not %s" % (name, type(cu).__name__))
        if cu.dtype != torch.int32 or cu.dim() != 1:
            raise TypeError("%s is %s of shape %s; it must be int32 of shape (B + 1,)" %
                            (name, cu.dtype, tuple(cu.shape)))
        if not cu.is_contiguous():
            raise ValueError("%s must be contiguous" % name)
    if ((cu_seqlens_q.is_cuda or cu_seqlens_k.is_cuda) and
            torch.cuda.is_current_stream_capturing()):
        raise ValueError("attention_varlen reads cu_seqlens on the host to order its "
                         "tiles, which a CUDA graph capture cannot do; call it outside "
                         "the capture")
    cu_q, cu_k = cu_seqlens_q.tolist(), cu_seqlens_k.tolist()
    _check_cu_seqlens(cu_q, cu_k)
    for name, cu, total, longest in (("cu_seqlens_q", cu_q, q.shape[0], max_seqlen_q),
                                     ("cu_seqlens_k", cu_k, k.shape[0], max_seqlen_k)):
        if cu[-1] != total:
            raise ValueError("%s ends at %d, not at the %d tokens of its tensor" %
                             (name, cu[-1], total))
        lengths = [b - a for a, b in zip(cu, cu[1:])]
        if max(lengths) > longest:
            raise ValueError("%s has a sequence of %d tokens, longer than max_seqlen %d" %
                             (name, max(lengths), longest))
    _check_device((("q", q), ("k", k), ("v", v), ("cu_seqlens_q", cu_seqlens_q),
                   ("cu_seqlens_k", cu_seqlens_k)))
    left, right = _check_options(causal, softmax_scale, window_size, softcap)
    empty = q.numel() == 0 or k.numel() == 0
    tiles = [] if empty else _varlen_tiles(cu_q, cu_k, causal)
    tiles_dev = torch.tensor(tiles, dtype=torch.int32, device=q.device).reshape(-1, 2)
    if differentiable:
        scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(q.shape[-1])
        out, lse = _attention_varlen_op(q, k, v, cu_seqlens_q, cu_seqlens_k, tiles_dev,
                                        int(max_seqlen_q), int(max_seqlen_k), bool(causal),
                                        float(scale), left, right, float(softcap))
    else:
        out, lse = _attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, tiles_dev,
                                     causal, softmax_scale, left, right, softcap)
    return (out, lse) if return_lse else out


def _prepare_args(args, tensors, head_dim, dtype, head_dim_v, varlen, window, softcap):
    """`args` (fa4_attention_args or its backward's) as the kernels of these
    options need them, without a GPU: the dtype, the head dims of `tensors`
    (v's and o's head_dim_v, None: head_dim) at their rank, and, set to any
    value, the options that choose a kernel (offsets, a window, a softcap)."""
    if dtype not in _DTYPES:
        raise TypeError("dtype %s: fa4 runs torch.bfloat16 and torch.float16" % (dtype,))
    head_dim_v = head_dim if head_dim_v is None else head_dim_v
    _check_head_dim(head_dim, "q and k (head_dim)")
    _check_head_dim(head_dim_v, "v (head_dim_v)")
    args.dtype = _DTYPES[dtype]
    rank = 3 if varlen else 4
    for name in tensors:
        tensor = getattr(args, name)
        tensor.rank = rank
        tensor.shape[rank - 1] = head_dim if name in ("q", "k") else head_dim_v
    if varlen:
        args.cu_seqlens_q = 1
    if window:
        args.window_left = 0
    args.softcap = 1.0 if softcap else 0.0
    return args


def prepare(head_dim=128, dtype=torch.bfloat16, varlen=False, window=False,
            softcap=False, kv_stages=0, block_n=0, head_dim_v=None, causal=False,
            seqlen_k=0, plan=None):
    """Gets the kernel of these options ahead of the first call (compiled, or
    from the compile cache; no GPU needed): head_dim of q and k, head_dim_v
    of v and out where it differs (None: head_dim); causal and seqlen_k, the
    key length, as the calls will have them (no plan field of the forward
    depends on them today: every launch takes its key's derived plan); plan,
    any plan field by name ("kv-stages=3,block-n=64",
    as fa4-run --plan). Returns (source, seconds), source one of
    "compiled", "cache", "process", "kernel-dir"."""
    args = _prepare_args(_lib.AttentionArgs(), ("q", "k", "v", "o"), head_dim, dtype,
                         head_dim_v, varlen, window, softcap)
    args.kv_stages, args.block_n = kv_stages, block_n
    args.causal = int(bool(causal))
    if not varlen:
        args.k.shape[2] = seqlen_k
    if plan is not None:
        if not isinstance(plan, str):
            raise TypeError("plan must be a str of name=value pairs, not %s" %
                            type(plan).__name__)
        args.plan = plan.encode()
    source = ctypes.c_int(0)
    seconds = ctypes.c_double(0)
    _lib.check(_lib.library().fa4_prepare_attention(
        ctypes.byref(args), ctypes.byref(source), ctypes.byref(seconds)))
    return _lib.SOURCES[source.value], seconds.value


def prepare_backward(head_dim=128, dtype=torch.bfloat16, head_dim_v=None,
                     deterministic=False, varlen=False, window=False, softcap=False):
    """Gets the backward's kernels for these options ahead of the first
    backward, those of both ways unless deterministic or varlen (packed
    sequences take dQ's own kernel), with a sliding window or a softcap as
    the forward has them (compiled, or from the compile cache; no GPU
    needed). Returns the seconds it took."""
    args = _prepare_args(_lib.BackwardArgs(), ("q", "k", "v"), head_dim, dtype, head_dim_v,
                         varlen, window, softcap)
    args.deterministic = int(bool(deterministic))
    seconds = ctypes.c_double(0)
    _lib.check(_lib.library().fa4_prepare_attention_backward(
        ctypes.byref(args), ctypes.byref(seconds)))
    return seconds.value


def gemm(a, b):
    """fa4's GEMM: a (M, K) @ b (N, K)^T as a new bf16 (M, N) tensor; N a
    multiple of 128, K a multiple of 8."""
    for name, x in (("a", a), ("b", b)):
        if not isinstance(x, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, not %s" % (name, type(x).__name__))
        if x.dim() != 2:
            raise ValueError("%s has %d dimensions %s; fa4's gemm takes 2" %
                             (name, x.dim(), tuple(x.shape)))
        if x.dtype != torch.bfloat16:
            raise TypeError("%s is %s; fa4's gemm runs torch.bfloat16" % (name, x.dtype))
    if a.shape[1] != b.shape[1]:
        raise ValueError("a (%d, %d) and b (%d, %d) differ in K; c = a @ b.T" %
                         (a.shape[0], a.shape[1], b.shape[0], b.shape[1]))
    if b.shape[0] % 128:
        raise ValueError("b has %d rows (N); fa4's gemm takes N a multiple of 128" %
                         b.shape[0])
    for name, x in (("a", a), ("b", b)):
        _check_layout(name, x)
    _check_device((("a", a), ("b", b)))
    c = torch.empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16, device=a.device)
    args = _lib.GemmArgs()
    args.a, args.b, args.c = (_tensor(x, (0, 1)) for x in (a, b, c))
    _lib.check(_lib.library().fa4_gemm(ctypes.byref(args), _current_stream()))
    return c


from .kvcache import attention_with_kvcache, kvcache_splits, prepare_kvcache  # noqa: E402

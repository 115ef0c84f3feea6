"""Attention over a KV cache (decode), with FlashAttention's names.

``attention_with_kvcache`` runs fa4's two decode kernels through libfa4's
``fa4_attention_with_kvcache``: the query heads of a KV head packed as the
rows of one tile (one read of K and V for the group) and each sequence's
keys split over several CTAs (FlashDecoding), then a combine of the parts
(with one split the main kernel writes the output itself).
A paged cache (vLLM's: pages of a multiple of 16 keys listed per sequence
by a block table) is read in key blocks of 128 gathered from the pages they
span, a TMA copy per run of keys within a page.
New keys and values are written into the cache first, in place, with torch
ops. On the current stream; capturable in a CUDA graph (the value checks
of ``cache_seqlens``, which read it back, are skipped while capturing); a
custom op under ``torch.compile``.
"""

import ctypes
import math
import typing

import torch

import fa4
from . import _lib

# Splits by (batch, heads, kv_heads, seq_q, cache length, SMs).
_splits = {}
_sms = {}


def kvcache_splits(batch, heads, kv_heads, seq_q, max_seqlen_k, num_sms=None):
    """fa4's number of splits (CTAs per sequence and KV head) for a decode
    launch: enough CTAs for whole waves over the SMs, at most one per key
    block of 128 and 64; 1 when the batch and heads fill the GPU. num_sms:
    the device's (cuda:0) when None."""
    if num_sms is None:
        num_sms = _num_sms(0)
    key = (batch, heads, kv_heads, seq_q, max_seqlen_k, num_sms)
    found = _splits.get(key)
    if found is None:
        count = ctypes.c_int32(0)
        _lib.check(_lib.library().fa4_attention_kvcache_splits(
            batch, heads, kv_heads, seq_q, max_seqlen_k, num_sms, ctypes.byref(count)))
        found = _splits[key] = count.value
    return found


def _num_sms(device):
    sms = _sms.get(device)
    if sms is None:
        sms = _sms[device] = torch.cuda.get_device_properties(device).multi_processor_count
    return sms


def _check_cache(q, k_cache, v_cache, paged):
    """Types, ranks, head dims, heads, batches and strides of the call."""
    fa4._check_tensor("q", q, 4, "(B, SQ, H, D)")
    for name, x in (("k_cache", k_cache), ("v_cache", v_cache)):
        fa4._check_tensor(name, x, 4, "(PAGES, PAGE_SIZE, HKV, D) with a block_table"
                          if paged else "(B, SMAX, HKV, D)")
    if not (q.dtype == k_cache.dtype == v_cache.dtype):
        raise TypeError("q, k_cache and v_cache have dtypes %s, %s and %s; they must agree"
                        % (q.dtype, k_cache.dtype, v_cache.dtype))
    if k_cache.shape[-1] != q.shape[-1]:
        raise ValueError("head dims of q and k_cache differ: q %d, k_cache %d" %
                         (q.shape[-1], k_cache.shape[-1]))
    fa4._check_head_dim(q.shape[-1], "q and k_cache")
    fa4._check_head_dim(v_cache.shape[-1], "v_cache")
    if k_cache.shape[:-1] != v_cache.shape[:-1]:
        raise ValueError("k_cache %s and v_cache %s differ in shape before the head dim" %
                         (tuple(k_cache.shape), tuple(v_cache.shape)))
    if not paged and k_cache.shape[0] != q.shape[0]:
        raise ValueError("q has batch %d, k_cache and v_cache %d" %
                         (q.shape[0], k_cache.shape[0]))
    heads, kv_heads = q.shape[2], k_cache.shape[2]
    if heads % kv_heads if kv_heads else heads:
        raise ValueError("q has %d heads, not a multiple of the %d heads of "
                         "k_cache and v_cache" % (heads, kv_heads))
    for name, x in (("k_cache", k_cache), ("v_cache", v_cache)):
        fa4._check_layout(name, x, address=not fa4._compiling())


def _check_block_table(block_table, batch, k_cache):
    """block_table: int32 (B, max_pages), contiguous, on q's device; pages
    of a multiple of 16 keys. Returns the keys the table can address."""
    if not isinstance(block_table, torch.Tensor):
        raise TypeError("block_table must be an int32 tensor (B, max_pages), not %s" %
                        type(block_table).__name__)
    if block_table.dtype != torch.int32:
        raise TypeError("block_table is %s; it must be int32" % block_table.dtype)
    if block_table.dim() != 2 or block_table.shape[0] != batch or block_table.shape[1] < 1:
        raise ValueError("block_table has shape %s; it must be (B, max_pages) with B = %d "
                         "and max_pages >= 1" % (tuple(block_table.shape), batch))
    if not block_table.is_contiguous():
        raise ValueError("block_table must be contiguous")
    page = k_cache.shape[1]
    if page < 16 or page % 16:
        raise ValueError("the caches' pages hold %d keys; fa4 takes pages of a multiple "
                         "of 16 keys" % page)
    if k_cache.shape[0] < 1:
        raise ValueError("k_cache has no pages")
    return block_table.shape[1] * page


def _check_new(k, v, k_cache, v_cache, paged=False):
    """The new keys and values: both or neither, (B, SNEW, HKV, D) each."""
    if (k is None) != (v is None):
        raise ValueError("k and v are the new keys and values: give both or neither")
    if k is None:
        return 0
    for name, x, cache in (("k", k, k_cache), ("v", v, v_cache)):
        fa4._check_tensor(name, x, 4, "(B, SNEW, HKV, D)")
        if x.dtype != cache.dtype:
            raise TypeError("%s is %s, its cache %s" % (name, x.dtype, cache.dtype))
        if (x.shape[2], x.shape[3]) != (cache.shape[2], cache.shape[3]) or (
                not paged and x.shape[0] != cache.shape[0]):
            raise ValueError("%s %s does not match its cache %s in batch, heads and "
                             "head dim" % (name, tuple(x.shape), tuple(cache.shape)))
    if k.shape[1] != v.shape[1]:
        raise ValueError("k has %d new tokens, v %d" % (k.shape[1], v.shape[1]))
    return k.shape[1]


def _seqlens(cache_seqlens, batch, max_len, device):
    """cache_seqlens as an int32 (B,) tensor on the device."""
    if cache_seqlens is None:
        return torch.full((batch,), max_len, dtype=torch.int32, device=device)
    if isinstance(cache_seqlens, int):
        return torch.full((batch,), cache_seqlens, dtype=torch.int32, device=device)
    if not isinstance(cache_seqlens, torch.Tensor):
        raise TypeError("cache_seqlens must be an int or an int32 tensor (B,), not %s" %
                        type(cache_seqlens).__name__)
    if cache_seqlens.dtype not in (torch.int32, torch.int64):
        raise TypeError("cache_seqlens is %s; it must be int32 (or int64)" %
                        cache_seqlens.dtype)
    if tuple(cache_seqlens.shape) != (batch,):
        raise ValueError("cache_seqlens has shape %s; it must be (B,) = (%d,)" %
                         (tuple(cache_seqlens.shape), batch))
    if cache_seqlens.device != device:
        raise ValueError("cache_seqlens is on %s, q on %s" % (cache_seqlens.device, device))
    return cache_seqlens.to(torch.int32)


def _check_values(seqlens, new, max_len, block_table=None, pages=0):
    """Refuses lengths off [0, SMAX - SNEW] and, with a block table, a page
    index off [0, PAGES) among the entries the lengths (and the new tokens)
    reach: one read-back of the device values, skipped while a CUDA graph
    is captured or torch.compile traces."""
    if fa4._compiling() or torch.cuda.is_current_stream_capturing() or not seqlens.numel():
        return
    values = [seqlens.min(), seqlens.max()]
    if block_table is not None:
        page = max_len // block_table.shape[1]
        reached = (seqlens.long() + new + page - 1) // page
        used = torch.arange(block_table.shape[1], device=block_table.device) < reached[:, None]
        bad = used & ((block_table < 0) | (block_table >= pages))
        values.append(bad.sum())
    low, high, *bad_count = torch.stack([x.long() for x in values]).tolist()
    if low < 0:
        raise ValueError("cache_seqlens has a negative length (%d)" % low)
    if high + new > max_len:
        raise ValueError("cache_seqlens reaches %d%s; the cache holds %d tokens" %
                         (high, " + %d new tokens" % new if new else "", max_len))
    if bad_count and bad_count[0]:
        b, i = (int(x) for x in bad.nonzero()[0].tolist())
        raise ValueError("block_table[%d][%d] is %d, not a page of the cache (0 ... %d)" %
                         (b, i, int(block_table[b, i]), pages - 1))


def _append(k_cache, v_cache, k, v, seqlens, block_table=None):
    """Writes k and v into the caches at each sequence's length, in place
    (through the block table's pages when paged)."""
    batch, new = k.shape[0], k.shape[1]
    rows = torch.arange(batch, device=k.device).unsqueeze(1).expand(batch, new)
    positions = seqlens.long().unsqueeze(1) + torch.arange(new, device=k.device)
    if block_table is not None:
        page = k_cache.shape[1]
        rows = block_table.long().gather(1, positions // page)
        positions = positions % page
    k_cache[rows, positions] = k
    v_cache[rows, positions] = v


def _layout(q, dv):
    """The shape and strides of out (B, SQ, H, Dv) in (B, H, SQ, Dv) memory:
    the query heads and tokens of a KV head are one run of rows."""
    b, s, h, _ = q.shape
    return (b, s, h, dv), (h * s * dv, dv, s * dv, 1)


def _kvcache(q, k_cache, v_cache, seqlens, block_table, causal, scale, left, right,
             softcap, num_splits, plan=""):
    """out (B, SQ, H, Dv) and lse (B, H, SQ) of checked, non-empty inputs."""
    b, s, h, _ = q.shape
    dv = v_cache.shape[-1]
    out = q.new_empty_strided(*_layout(q, dv))
    lse = q.new_empty((b, h, s), dtype=torch.float32)
    # q as (B, H, SQ, D) whose heads and tokens are one run of rows with
    # strides TMA takes; a copy (a few KiB) where q is not.
    qh = q.transpose(1, 2)
    if ((s > 1 and qh.stride(1) != s * qh.stride(2)) or qh.stride(3) != 1
            or any(st % 8 for st in qh.stride()[:3]) or qh.data_ptr() % 16):
        qh = qh.contiguous()
    lib = _lib.library()
    capacity = k_cache.shape[1] * (block_table.shape[1] if block_table is not None else 1)
    splits = num_splits or kvcache_splits(b, h, k_cache.shape[2], s, capacity,
                                          _num_sms(q.get_device()))
    size = lib.fa4_attention_kvcache_workspace(b, h, s, dv, splits)
    workspace = torch.empty((size,), dtype=torch.uint8, device=q.device)
    args = _lib.KvcacheArgs()
    args.dtype = fa4._DTYPES[q.dtype]
    bhsd = (0, 2, 1, 3)
    args.q = fa4._tensor(qh, (0, 1, 2, 3))
    args.k_cache = fa4._tensor(k_cache, bhsd)
    args.v_cache = fa4._tensor(v_cache, bhsd)
    args.o = fa4._tensor(out, bhsd)
    args.lse = fa4._tensor(lse, (0, 1, 2))
    args.cache_seqlens = seqlens.data_ptr()
    args.causal = int(causal)
    args.window_left, args.window_right = left, right
    args.softcap = float(softcap)
    args.softmax_scale = float(scale)
    args.num_splits = splits
    args.workspace = workspace.data_ptr()
    args.workspace_bytes = size
    if plan:
        args.plan = plan.encode()
    if block_table is not None:
        args.block_table = block_table.data_ptr()
        args.max_pages = block_table.shape[1]
    _lib.check(lib.fa4_attention_with_kvcache(ctypes.byref(args), fa4._current_stream()))
    return out, lse


if hasattr(torch, "library") and hasattr(torch.library, "custom_op"):
    @torch.library.custom_op("fa4::attention_kvcache", mutates_args=())
    def _kvcache_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                    seqlens: torch.Tensor, block_table: typing.Optional[torch.Tensor],
                    causal: bool, scale: float, left: int, right: int, softcap: float,
                    num_splits: int, plan: str) -> tuple[torch.Tensor, torch.Tensor]:
        return _kvcache(q, k_cache, v_cache, seqlens, block_table, causal, scale, left,
                        right, softcap, num_splits, plan)

    @_kvcache_op.register_fake
    def _kvcache_fake(q, k_cache, v_cache, seqlens, block_table, causal, scale, left,
                      right, softcap, num_splits, plan):
        b, s, h, _ = q.shape
        return (q.new_empty_strided(*_layout(q, v_cache.shape[-1])),
                q.new_empty((b, h, s), dtype=torch.float32))
else:  # torch < 2.4: a plain function
    _kvcache_op = _kvcache


def attention_with_kvcache(q, k_cache, v_cache, k=None, v=None, cache_seqlens=None,
                           block_table=None, causal=False, softmax_scale=None,
                           window_size=(-1, -1), softcap=0.0, num_splits=0,
                           return_lse=False, plan=None):
    """FlashAttention's flash_attn_with_kvcache: q against a KV cache.

    q (B, SQ, H, D), SQ >= 1; k_cache and v_cache (B, SMAX, HKV, D) with H a
    multiple of HKV, or paged: (PAGES, PAGE_SIZE, HKV, D) with block_table,
    int32 (B, max_pages), listing each sequence's pages in order (PAGE_SIZE
    a multiple of 16; SMAX is then max_pages * PAGE_SIZE); cache_seqlens the
    keys in use per sequence, an int32 tensor (B,) or an int (None: SMAX). k and v (B, SNEW, HKV, D), when
    given, are written into the caches at cache_seqlens (in place) before
    attending, and the sequences then hold cache_seqlens + SNEW keys. Query
    token s sits at key position s + length - SQ: causal, window_size (left,
    right; -1 unbounded) and softcap as in fa4.attention. num_splits: CTAs
    per sequence and KV head over its keys (at most 64), 0 for fa4's choice
    (kvcache_splits). Returns out (B, SQ, H, Dv), and with return_lse the
    natural log-sum-exp of each row, float32 (B, H, SQ); rows that see no
    key (an empty cache) get out 0 and lse -inf. No gradient: inference
    only. Outside a CUDA graph capture, the lengths and the block table's
    entries they reach are read back and checked. plan: the main
    kernel's plan fields by name ("kv-stages=3,block-n=64", as fa4-run
    --plan), None for the derived plan.
    """
    paged = block_table is not None
    _check_cache(q, k_cache, v_cache, paged)
    if fa4._requires_grad(q, k_cache, v_cache):
        raise RuntimeError("fa4.attention_with_kvcache has no backward: it is for "
                           "inference; call it under torch.no_grad()")
    left, right = fa4._check_options(causal, softmax_scale, window_size, softcap)
    if not isinstance(num_splits, int) or num_splits < 0 or num_splits > 64:
        raise ValueError("num_splits %r is not an int in [0, 64] (0: fa4's choice)" %
                         (num_splits,))
    if plan is not None and not isinstance(plan, str):
        raise TypeError("plan must be a str of name=value pairs, not %s" %
                        type(plan).__name__)
    new = _check_new(k, v, k_cache, v_cache, paged)
    b, s, h, d = q.shape
    max_len = _check_block_table(block_table, b, k_cache) if paged else k_cache.shape[1]
    fa4._check_device([("q", q), ("k_cache", k_cache), ("v_cache", v_cache)] +
                      ([("k", k), ("v", v)] if new else []) +
                      ([("block_table", block_table)] if paged else []))
    seqlens = _seqlens(cache_seqlens, b, max_len, q.device)
    if not isinstance(cache_seqlens, torch.Tensor):
        # Lengths known here are checked here; the device is read back only
        # for a block table's entries.
        length = max_len if cache_seqlens is None else cache_seqlens
        if length < 0 or length + new > max_len:
            raise ValueError("cache_seqlens %d%s is off the cache's %d tokens" % (
                length, " + %d new tokens" % new if new else "", max_len))
    if isinstance(cache_seqlens, torch.Tensor) or paged:
        _check_values(seqlens, new, max_len, block_table, k_cache.shape[0])
    if new:
        _append(k_cache, v_cache, k, v, seqlens, block_table)
        seqlens = seqlens + new
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(d)
    if q.numel() == 0:
        out = q.new_empty_strided(*_layout(q, v_cache.shape[-1]))
        lse = q.new_empty((b, h, s), dtype=torch.float32)
    elif fa4._compiling():
        out, lse = _kvcache_op(q, k_cache, v_cache, seqlens, block_table, causal,
                               float(scale), left, right, float(softcap), num_splits,
                               plan or "")
    else:
        out, lse = _kvcache(q, k_cache, v_cache, seqlens, block_table, causal, scale,
                            left, right, softcap, num_splits, plan or "")
    return (out, lse) if return_lse else out


def prepare_kvcache(head_dim=128, dtype=torch.bfloat16, head_dim_v=None, window=False,
                    softcap=False, plan=None):
    """Gets decode's two kernels for these options ahead of the first call
    (compiled, or from the compile cache; no GPU needed). Returns the
    seconds it took."""
    if dtype not in fa4._DTYPES:
        raise TypeError("dtype %s: fa4 runs torch.bfloat16 and torch.float16" % (dtype,))
    head_dim_v = head_dim if head_dim_v is None else head_dim_v
    fa4._check_head_dim(head_dim, "q and k_cache (head_dim)")
    fa4._check_head_dim(head_dim_v, "v_cache (head_dim_v)")
    args = _lib.KvcacheArgs()
    args.dtype = fa4._DTYPES[dtype]
    for tensor, dim in ((args.q, head_dim), (args.k_cache, head_dim),
                        (args.v_cache, head_dim_v), (args.o, head_dim_v)):
        tensor.rank = 4
        tensor.shape[3] = dim
    if window:
        args.window_left = 0
    args.softcap = 1.0 if softcap else 0.0
    if plan is not None:
        args.plan = plan.encode()
    seconds = ctypes.c_double(0)
    _lib.check(_lib.library().fa4_prepare_attention_kvcache(
        ctypes.byref(args), ctypes.byref(seconds)))
    return seconds.value

"""Context-parallel (ring) attention over fa4's kernels.

The sequence is split over the ranks of a torch.distributed group: each keeps
its slice of Q and the K/V slices travel around the ring (batch_isend_irecv,
NCCL on GPUs), the next slice in flight while the current one is attended
to. Each step's partial output is merged with the others exactly, through
the log-sum-exps, in float32.

    out = fa4.ring.ring_attention(q, k, v, group, causal=True)

q, k and v are the rank's slices, (B, S/P, H, D) each. With `causal` the
split is the load-balanced zig-zag one (rank r holds chunks r and 2P-1-r of
2P equal chunks, so that every rank has the same work); without it,
contiguous (rank r holds slice r). `split` and `gather` make and undo
either split of a whole sequence. `simulate` runs the same ring over all
slices in one process (one GPU, or the CPU with another attention), for
tests and to check the merge without a second GPU.

A step's attention is one of three kinds, by where the query and key chunks
lie in the sequence: keys wholly before the queries (no mask), the same
chunk (the causal mask of equal lengths), keys wholly after (skipped).
"""

import torch

__all__ = ["merge", "split", "gather", "ring_attention", "simulate"]


def merge(out, lse, part_out, part_lse):
    """Merges two attentions of the same queries over disjoint keys.

    out and part_out (B, S, H, D), lse and part_lse (B, H, S) natural
    log-sum-exps; either may be None (nothing yet). A row that saw no key
    has lse -inf and adds nothing; a row no part saw stays 0 with lse -inf.
    Returns the merged (out, lse) in float32.
    """
    if out is None:
        return part_out.float(), part_lse.float()
    lse, part_lse = lse.float(), part_lse.float()
    merged = torch.logaddexp(lse, part_lse)
    # exp(-inf - -inf) is nan for rows that no part saw: they weigh 0.
    w = torch.exp(lse - merged).nan_to_num(0.0)
    w_part = torch.exp(part_lse - merged).nan_to_num(0.0)
    merged_out = (out.float() * w.transpose(1, 2)[..., None] +
                  part_out.float() * w_part.transpose(1, 2)[..., None])
    return merged_out, merged


def _chunks(world_size, rank, causal):
    """The chunk indices rank `rank` holds: (r,) of P, or (r, 2P-1-r) of 2P."""
    return (rank, 2 * world_size - 1 - rank) if causal else (rank,)


def split(x, world_size, rank, causal=False, dim=1):
    """Rank `rank`'s slice of the whole sequence `x` (along `dim`): the
    zig-zag split when causal, else the contiguous one."""
    pieces = 2 * world_size if causal else world_size
    if x.shape[dim] % pieces:
        raise ValueError("a sequence of %d tokens does not split into %d equal chunks "
                         "(%d ranks%s)" % (x.shape[dim], pieces, world_size,
                                           ", zig-zag" if causal else ""))
    chunks = x.chunk(pieces, dim=dim)
    return torch.cat([chunks[c] for c in _chunks(world_size, rank, causal)], dim=dim)


def gather(slices, causal=False, dim=1):
    """The whole sequence from every rank's slice, in rank order."""
    world_size = len(slices)
    if not causal:
        return torch.cat(slices, dim=dim)
    chunks = [None] * (2 * world_size)
    for rank, piece in enumerate(slices):
        first, second = piece.chunk(2, dim=dim)
        chunks[rank], chunks[2 * world_size - 1 - rank] = first, second
    return torch.cat(chunks, dim=dim)


def _fa4_attention(q, k, v, causal, softmax_scale):
    from . import attention
    return attention(q, k, v, causal=causal, softmax_scale=softmax_scale, return_lse=True)


def _step(q, k, v, rank, source, world_size, causal, softmax_scale, attention_fn):
    """The partial attention of rank `rank`'s queries over the keys of rank
    `source`: per pair of chunks, unmasked, causal or skipped. Returns
    (out, lse) in float32, or (None, None) when every pair is skipped."""
    q_chunks = _chunks(world_size, rank, causal)
    k_chunks = _chunks(world_size, source, causal)
    qs = q.chunk(len(q_chunks), dim=1)
    ks = k.chunk(len(k_chunks), dim=1)
    vs = v.chunk(len(k_chunks), dim=1)
    outs, lses = [], []
    for qc, q_part in zip(q_chunks, qs):
        out = lse = None
        for kc, k_part, v_part in zip(k_chunks, ks, vs):
            if causal and kc > qc:
                continue
            part_out, part_lse = attention_fn(q_part, k_part, v_part,
                                              causal and kc == qc, softmax_scale)
            out, lse = merge(out, lse, part_out, part_lse)
        if out is None:
            b, s, h, d = q_part.shape
            out = q_part.new_zeros((b, s, h, d), dtype=torch.float32)
            lse = q_part.new_full((b, h, s), float("-inf"), dtype=torch.float32)
        outs.append(out)
        lses.append(lse)
    return torch.cat(outs, dim=1), torch.cat(lses, dim=2)


def ring_attention(q, k, v, group=None, causal=False, softmax_scale=None,
                   return_lse=False, attention_fn=None):
    """Attention of this rank's queries over the whole sequence, whose K/V
    slices come around the ring of `group`'s ranks.

    q, k, v: this rank's slices (B, S/P, H, D) (`split` makes them), the
    zig-zag split when causal. `attention_fn(q, k, v, causal, scale) ->
    (out, lse)` computes one step (default: fa4.attention). Returns out
    (B, S/P, H, D) in q's dtype, and with return_lse float32 (B, H, S/P).
    """
    import torch.distributed as dist
    attention_fn = attention_fn or _fa4_attention
    world_size = dist.get_world_size(group)
    rank = dist.get_rank(group)

    def global_rank(r):
        return dist.get_global_rank(group, r) if group is not None else r

    send_to, recv_from = global_rank((rank + 1) % world_size), global_rank(
        (rank - 1) % world_size)
    kv = torch.stack([k, v]).contiguous()
    side = torch.cuda.Stream() if kv.is_cuda else None
    out = lse = None
    for step in range(world_size):
        requests, incoming = [], None
        if step + 1 < world_size:
            incoming = torch.empty_like(kv)
            if side is not None:
                side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side) if side is not None else _nothing():
                requests = dist.batch_isend_irecv([
                    dist.P2POp(dist.isend, kv, send_to, group),
                    dist.P2POp(dist.irecv, incoming, recv_from, group)])
        source = (rank - step) % world_size
        part_out, part_lse = _step(q, kv[0], kv[1], rank, source, world_size, causal,
                                   softmax_scale, attention_fn)
        out, lse = merge(out, lse, part_out, part_lse)
        for request in requests:
            request.wait()
        if incoming is not None:
            if side is not None:
                torch.cuda.current_stream().wait_stream(side)
                kv.record_stream(side)
            kv = incoming
    out = out.to(q.dtype)
    return (out, lse) if return_lse else out


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def simulate(q, k, v, world_size, causal=False, softmax_scale=None,
             return_lse=False, attention_fn=None):
    """The ring of `world_size` ranks run in one process over the whole
    sequence: q, k, v (B, S, H, D) split, each rank's steps in ring order,
    the slices' outputs gathered back. Matches plain attention."""
    attention_fn = attention_fn or _fa4_attention
    slices = [(split(q, world_size, r, causal), split(k, world_size, r, causal),
               split(v, world_size, r, causal)) for r in range(world_size)]
    outs, lses = [], []
    for rank in range(world_size):
        out = lse = None
        for step in range(world_size):
            source = (rank - step) % world_size
            _, k_src, v_src = slices[source]
            part_out, part_lse = _step(slices[rank][0], k_src, v_src, rank, source,
                                       world_size, causal, softmax_scale, attention_fn)
            out, lse = merge(out, lse, part_out, part_lse)
        outs.append(out.to(q.dtype))
        lses.append(lse)
    out = gather(outs, causal, dim=1)
    lse = gather(lses, causal, dim=2)
    return (out, lse) if return_lse else out

"""CPU tests of ring attention (python/fa4/ring.py): the log-sum-exp merge
(rows that see no key included), the zig-zag and contiguous splits, the ring
simulated in one process and run for real over torch.distributed's gloo
backend in two and three processes, each step's attention a float64
reference on the CPU.

    python3 -m unittest python/tests/test_ring.py -v
"""

import math
import os
import sys
import tempfile
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from fa4 import ring  # noqa: E402


def reference(q, k, v, causal=False, scale=None):
    """float64 attention of (B, S, H, D) tensors, causal aligned at the
    bottom right; rows that see no key give 0 and lse -inf."""
    sq, sk, d = q.shape[1], k.shape[1], q.shape[-1]
    scale = scale if scale is not None else 1.0 / math.sqrt(d)
    qd, kd, vd = (x.double().transpose(1, 2) for x in (q, k, v))
    s = scale * qd @ kd.transpose(-1, -2)
    if causal:
        i = torch.arange(sq)[:, None] + (sk - sq)
        s = s.masked_fill(torch.arange(sk)[None, :] > i, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    return (p @ vd).transpose(1, 2), lse


def step_fn(q, k, v, causal, scale):
    out, lse = reference(q, k, v, causal, scale)
    return out.float(), lse.float()


def inputs(b=2, s=96, h=3, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(b, s, h, d, generator=g) for _ in range(3)]


class Merge(unittest.TestCase):
    def test_disjoint_keys(self):
        q, k, v = inputs()
        full, full_lse = reference(q, k, v)
        a = reference(q, k[:, :40], v[:, :40])
        b = reference(q, k[:, 40:], v[:, 40:])
        out, lse = ring.merge(a[0], a[1], b[0], b[1])
        self.assertLess((out.double() - full).abs().max().item(), 1e-5)
        self.assertLess((lse.double() - full_lse).abs().max().item(), 1e-5)

    def test_rows_that_see_no_key(self):
        # Rows 0-9 see no key of the first part (out 0, lse -inf, as fa4's
        # kernels leave them): they must come out of the second part alone,
        # the others as attention over all keys; a row no part sees stays 0
        # with lse -inf, without a NaN.
        q, k, v = inputs()
        full, full_lse = reference(q, k, v)
        a_out, a_lse = reference(q, k[:, :40], v[:, :40])
        a_out[:, :10] = 0
        a_lse[:, :, :10] = float("-inf")
        b_out, b_lse = reference(q, k[:, 40:], v[:, 40:])
        out, lse = ring.merge(a_out, a_lse, b_out, b_lse)
        self.assertLess((out[:, :10].double() - b_out[:, :10]).abs().max().item(), 1e-6)
        self.assertLess((lse[:, :, :10].double() - b_lse[:, :, :10]).abs().max().item(), 1e-6)
        self.assertLess((out[:, 10:].double() - full[:, 10:]).abs().max().item(), 1e-5)
        self.assertLess((lse[:, :, 10:].double() - full_lse[:, :, 10:]).abs().max().item(), 1e-5)
        none_lse = torch.full_like(a_lse, float("-inf"))
        none_out, none_lse = ring.merge(torch.zeros_like(a_out), none_lse,
                                        torch.zeros_like(a_out), none_lse)
        self.assertEqual(none_out.abs().max().item(), 0.0)
        self.assertTrue(torch.isinf(none_lse).all() and (none_lse < 0).all())
        self.assertFalse(torch.isnan(none_out).any())

    def test_first_part(self):
        out, lse = ring.merge(None, None, torch.ones(1, 2, 1, 4), torch.zeros(1, 1, 2))
        self.assertEqual(out.dtype, torch.float32)
        self.assertEqual(out.sum().item(), 8.0)


class Splits(unittest.TestCase):
    def test_round_trip(self):
        x = torch.arange(2 * 24 * 1 * 1).reshape(2, 24, 1, 1)
        for world_size in (1, 2, 3, 4):
            for causal in (False, True):
                slices = [ring.split(x, world_size, r, causal) for r in range(world_size)]
                self.assertTrue(torch.equal(ring.gather(slices, causal), x))

    def test_zigzag_chunks(self):
        x = torch.arange(8).reshape(1, 8, 1, 1)
        self.assertEqual(ring.split(x, 2, 0, causal=True).flatten().tolist(), [0, 1, 6, 7])
        self.assertEqual(ring.split(x, 2, 1, causal=True).flatten().tolist(), [2, 3, 4, 5])

    def test_uneven(self):
        with self.assertRaises(ValueError) as raised:
            ring.split(torch.zeros(1, 10, 1, 1), 3, 0, causal=True)
        self.assertIn("a sequence of 10 tokens does not split into 6 equal chunks", str(raised.exception))


class Simulated(unittest.TestCase):
    def test_matches_plain_attention(self):
        q, k, v = inputs(s=96)
        for causal in (False, True):
            full, full_lse = reference(q, k, v, causal)
            for world_size in (1, 2, 3, 4):
                with self.subTest(causal=causal, world_size=world_size):
                    out, lse = ring.simulate(q, k, v, world_size, causal, return_lse=True,
                                             attention_fn=step_fn)
                    self.assertLess((out.double() - full).abs().max().item(), 1e-5)
                    self.assertLess((lse.double() - full_lse).abs().max().item(), 1e-5)


def _rank_main(rank, world_size, init, causal, result_dir):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world_size)
    q, k, v = inputs(s=48 * world_size)
    mine = [ring.split(x, world_size, rank, causal) for x in (q, k, v)]
    out, lse = ring.ring_attention(*mine, causal=causal, return_lse=True,
                                   attention_fn=step_fn)
    torch.save((out, lse), os.path.join(result_dir, "%d.pt" % rank))
    dist.barrier()
    dist.destroy_process_group()


@unittest.skipUnless(torch.distributed.is_available(), "torch.distributed is missing")
class Distributed(unittest.TestCase):
    def test_gloo_ring(self):
        import torch.multiprocessing as mp
        for world_size in (2, 3):
            for causal in (False, True):
                with self.subTest(world_size=world_size, causal=causal), \
                        tempfile.TemporaryDirectory() as tmp:
                    init = "file://" + os.path.join(tmp, "rendezvous")
                    mp.spawn(_rank_main, args=(world_size, init, causal, tmp),
                             nprocs=world_size, join=True)
                    parts = [torch.load(os.path.join(tmp, "%d.pt" % r))
                             for r in range(world_size)]
                    out = ring.gather([p[0] for p in parts], causal, dim=1)
                    lse = ring.gather([p[1] for p in parts], causal, dim=2)
                    q, k, v = inputs(s=48 * world_size)
                    full, full_lse = reference(q, k, v, causal)
                    self.assertLess((out.double() - full).abs().max().item(), 1e-5)
                    self.assertLess((lse.double() - full_lse).abs().max().item(), 1e-5)


if __name__ == "__main__":
    unittest.main()

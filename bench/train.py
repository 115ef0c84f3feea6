#!/usr/bin/env python3
"""A small decoder trained with fa4.attention and with SDPA, same seed.

4 layers, model width 1024, 8 query heads over 2 KV heads of head dim 128
(GQA), RMSNorm, SwiGLU, rotary positions, bf16 weights, AdamW; 200 steps on
a fixed set of 64 random token sequences of 1024 tokens (batch 8), which
the model learns to memorize, so the loss falls well below ln(vocab). Runs
SDPA twice (its run-to-run spread: cuDNN's and FA2's backwards sum in an
order that varies), fa4 once eagerly and once under torch.compile, and
prints the loss curves every 20 steps and each run's largest difference
from the first SDPA run.

    python3 bench/train.py [--steps 200] [--out table.md]
"""

import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import fa4  # noqa: E402
from attention import write_table  # noqa: E402

VOCAB, WIDTH, LAYERS, HEADS, KV_HEADS, HEAD_DIM, SEQ, BATCH = 4096, 1024, 4, 8, 2, 128, 1024, 8


def rotary(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class Block(torch.nn.Module):
    def __init__(self, attention):
        super().__init__()
        self.attention = attention
        self.norm1 = torch.nn.RMSNorm(WIDTH)
        self.norm2 = torch.nn.RMSNorm(WIDTH)
        self.qkv = torch.nn.Linear(WIDTH, (HEADS + 2 * KV_HEADS) * HEAD_DIM, bias=False)
        self.proj = torch.nn.Linear(HEADS * HEAD_DIM, WIDTH, bias=False)
        self.up = torch.nn.Linear(WIDTH, 2 * 4 * WIDTH, bias=False)
        self.down = torch.nn.Linear(4 * WIDTH, WIDTH, bias=False)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(
            (HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM), dim=-1)
        q = rotary(q.view(b, s, HEADS, HEAD_DIM), cos, sin)
        k = rotary(k.view(b, s, KV_HEADS, HEAD_DIM), cos, sin)
        v = v.view(b, s, KV_HEADS, HEAD_DIM)
        if self.attention == "fa4":
            a = fa4.attention(q, k, v, causal=True)
        else:
            a = F.scaled_dot_product_attention(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True,
                enable_gqa=True).transpose(1, 2)
        x = x + self.proj(a.reshape(b, s, HEADS * HEAD_DIM))
        gate, up = self.up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Decoder(torch.nn.Module):
    def __init__(self, attention):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, WIDTH)
        self.blocks = torch.nn.ModuleList(Block(attention) for _ in range(LAYERS))
        self.norm = torch.nn.RMSNorm(WIDTH)
        self.head = torch.nn.Linear(WIDTH, VOCAB, bias=False)
        position = torch.arange(SEQ, dtype=torch.float32)[:, None]
        freq = 10000.0 ** (-torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM)
        self.register_buffer("cos", torch.cos(position * freq)[None, :, None, :])
        self.register_buffer("sin", torch.sin(position * freq)[None, :, None, :])

    def forward(self, tokens):
        x = self.embed(tokens)
        cos, sin = self.cos.to(x.dtype), self.sin.to(x.dtype)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(self.norm(x))


def train(attention, steps, compiled):
    torch.manual_seed(0)
    model = Decoder(attention).cuda().to(torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    data = torch.randint(0, VOCAB, (64, SEQ + 1), generator=torch.Generator().manual_seed(1))
    data = data.cuda()
    step_fn = model
    if compiled:
        step_fn = torch.compile(model)
    losses = []
    start = time.time()
    for step in range(steps):
        batch = data[(step * BATCH) % 64:(step * BATCH) % 64 + BATCH]
        logits = step_fn(batch[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, time.time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--out")
    args = parser.parse_args()
    runs = [("sdpa", False), ("sdpa", False), ("fa4", False), ("fa4", True)]
    curves, names = [], []
    for attention, compiled in runs:
        losses, seconds = train(attention, args.steps, compiled)
        names.append(attention + (" compiled" if compiled else ""))
        curves.append(losses)
        print("%s: final loss %.4f in %.1f s" % (names[-1], losses[-1], seconds), flush=True)
    rows = ["| step | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for step in list(range(0, args.steps, 20)) + [args.steps - 1]:
        rows.append("| %d | " % step + " | ".join("%.4f" % c[step] for c in curves) + " |")
    rows.append("")
    for name, curve in zip(names[1:], curves[1:]):
        diff = max(abs(a - b) for a, b in zip(curve, curves[0]))
        rows.append("largest difference from the first SDPA run, %s: %.4f" % (name, diff))
    write_table(rows, args.out)


if __name__ == "__main__":
    main()

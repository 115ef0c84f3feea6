#!/usr/bin/env python3
"""Runs kernels that no fa4-run preset knows through `fa4-run --arg ... --save`
and checks their outputs against references computed here with numpy.

  check-any-kernel.py --fa4-run PATH --work DIR [--gemm-relu K] [--attention K]
                      [--rowsum DV[,f16]=K ...] [--scale-cast D[,f16]=K ...]
                      [--split-sum K] [--softmax N[,f16]=K ...]
                      [--backward D[,f16]=KDQ:KDKDV ...]
                      [--backward-main D[,f16]=KMAIN ...]
                      [--alibi K:HEADS] [--chunked K:CHUNK] [--document K]
                      [--bias K]
                      [--vector-add K] [--row-softmax K] [--layer-norm K]
                      [--rms-norm K] [--matmul-gelu K]
                      [--whole-row KIND,COLS=K ...] [--column-sums K]

--gemm-relu takes the kernel file of examples/gemm-relu (C = relu(alpha A B),
A [M, K] and B [K, N] row-major bf16); --attention that of
examples/attention.mlir lowered (non-causal, head dim 128, O only); --rowsum
that of the attention backward's preprocess (D = rowsum(dO * O) in f32, O and
dO [B, H, S, DV], bf16 or with ',f16' f16), a kernel without MMA; --scale-cast
that of its postprocess (dQ = scale * dQaccum, dQaccum [B, H, S, D'] f32 with
D' the head dim padded to 64 columns, dQ [B, H, S, D] bf16 or f16);
--split-sum that of the DSL driver's split-sum (out [R, 128] f32 += the sum
over p of x[p], x [P, R, 128] bf16, P programs adding atomically into each
block of out); --softmax that of the DSL's row softmax (Triton's tutorial:
X and Y [R, N], bf16 or f16); --backward the attention backward's dQ and
dK/dV kernels (Q, dO [B, H, Sq, D], K, V [B, Hkv, Sk, D], the forward's
LSE and the preprocess's D [B, H, Sq] f32; gradients against float64 ones
of the same inputs, with Sq != Sk, GQA and MQA, causal rows that see no
key); --backward-main its main kernel in five products (the same inputs, and
dQaccum [B, H, Sq, D'] f32 zeroed, into which its CTAs add dS K: dQ = scale
* dQaccum); --alibi and --chunked the kernels of examples/attention-mods
(attention with a score mod, ALiBi for HEADS heads, and with a mask mod, a
query seeing the keys of its chunk of CHUNK; O and the LSE against float64,
GQA, Sq != Sk both ways, causal); --document that of its document
masking (packed samples of random lengths, some of one token, each token's
document and each document's first token given as i32 tensors; O and the
LSE against float64, GQA, causal); --bias that of its bias from a tensor
(scores + bias [B, H, Sq, Sk] bf16, the cases of --alibi); --vector-add,
--row-softmax, --layer-norm, --rms-norm and --matmul-gelu the kernels of
examples/triton-tutorials (Triton's vector add of f32 vectors of any
length, exactly; its softmax, its layer norm forward with the rows' mean
and rstd, and RMSNorm, over rows of any N, odd ones included; the matmul
with a bias and exact GELU, any M and N, K a multiple of 8; against
float64); --whole-row those of the softmax, layer norm or RMSNorm (KIND
softmax, layer_norm, rms_norm) that take a row in one block (N at most
COLS); --column-sums that of its layer norm backward's weight and bias
gradients (the column sums of DW and DB [M, N] f32, any M and N, against
float64). The inputs
are 16-bit values written as '<f4' .npy files; fa4-run converts them exactly,
and fills each output with NaNs before the launch.
Prints one line per case and exits 1 when a case fails.
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np


def bf16_round(x):
    """float32 values rounded to the nearest bf16, as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def bf16_load(path):
    """A '<u2' .npy of bf16 bits as float64."""
    words = np.load(path)
    return (words.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def run(fa4_run, args, timeout=120):
    proc = subprocess.run([fa4_run] + args, capture_output=True, text=True,
                          timeout=timeout)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def rel_err(out, ref):
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def check_gemm_relu(fa4_run, kernel, work, m, n, k, alpha, rng):
    a = bf16_round(rng.uniform(-1, 1, (m, k)).astype(np.float32))
    b = bf16_round(rng.uniform(-1, 1, (k, n)).astype(np.float32))
    paths = {name: os.path.join(work, f"{name}-{m}x{n}x{k}.npy")
             for name in ("a", "b", "c")}
    np.save(paths["a"], a)
    np.save(paths["b"], b)
    code, text = run(fa4_run, ["--kernel", kernel, "--arg", f"a={paths['a']}",
                               "--arg", f"b={paths['b']}", "--arg",
                               f"alpha={alpha}", "--save", f"c={paths['c']}",
                               "--bench"])
    if code != 0:
        return False, f"fa4-run exit {code}: {text}"
    c = bf16_load(paths["c"])
    ref = np.maximum(alpha * (a.astype(np.float64) @ b.astype(np.float64)), 0)
    err = rel_err(c, ref)
    nan = int(np.isnan(c).sum())
    ok = c.shape == ref.shape and nan == 0 and err < 1e-2
    timing = [line for line in text.splitlines() if "time=" in line]
    return ok, (f"rel_err={err:.1e} nan={nan} max_abs="
                f"{float(np.max(np.abs(c - ref))):.1e}; "
                + (timing[-1] if timing else text.splitlines()[-1]))


def f16_round(x):
    """float32 values rounded to the nearest f16, as float32."""
    return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


def load_values(path):
    """A saved output as float64: '<u2' holds bf16 bits."""
    words = np.load(path)
    if words.dtype == np.uint16:
        return bf16_load(path)
    return words.astype(np.float64)


def run_kernel(fa4_run, kernel, work, tag, inputs, outputs, scalars=()):
    """Runs `kernel` on `inputs` (name -> array, written as .npy) and the
    `scalars` ('NAME=VALUE'); returns an error text, or None and each of
    `outputs` as saved (name -> float64 array)."""
    args = ["--kernel", kernel]
    for name, array in inputs.items():
        path = os.path.join(work, f"{tag}-{name}.npy")
        np.save(path, array)
        args += ["--arg", f"{name}={path}"]
    for scalar in scalars:
        args += ["--arg", scalar]
    saved = {name: os.path.join(work, f"{tag}-{name}-out.npy")
             for name in outputs}
    for name, path in saved.items():
        args += ["--save", f"{name}={path}"]
    code, text = run(fa4_run, args)
    if code != 0:
        return f"fa4-run exit {code}: {text}", None
    return None, {name: load_values(path) for name, path in saved.items()}


def check_rowsum(fa4_run, kernel, work, dv, f16, b, h, s, rng):
    rnd = f16_round if f16 else bf16_round
    # Rows of different scales, so that a row's sum is checked against its
    # own magnitude.
    scale = rng.uniform(0.1, 8, (b, h, s, 1))
    o = rnd((rng.uniform(-1, 1, (b, h, s, dv)) * scale).astype(np.float32))
    do = rnd(rng.uniform(-1, 1, (b, h, s, dv)).astype(np.float32))
    error, out = run_kernel(fa4_run, kernel, work, f"rowsum-{dv}-{b}x{h}x{s}",
                            {"o": o, "do": do}, ["delta"])
    if error:
        return False, error
    delta = out["delta"]
    products = o.astype(np.float64) * do.astype(np.float64)
    ref = products.sum(axis=-1)
    # f32 products and sums: a few ulps of f32 of the row's sum of |terms|.
    err = float(np.max(np.abs(delta - ref) / np.abs(products).sum(axis=-1)))
    nan = int(np.isnan(delta).sum())
    return (delta.shape == ref.shape and nan == 0 and err < 1e-5,
            f"max_err/row_l1={err:.1e} nan={nan}")


def check_scale_cast(fa4_run, kernel, work, d, f16, b, h, s, rng):
    dp = (d + 63) // 64 * 64
    accum = (rng.standard_normal((b, h, s, dp)) * 4).astype(np.float32)
    scale = 1 / np.sqrt(d)
    error, out = run_kernel(fa4_run, kernel, work, f"cast-{d}-{b}x{h}x{s}",
                            {"dq_accum": accum}, ["dq"],
                            [f"softmax_scale={scale:.9g}"])
    if error:
        return False, error
    dq = out["dq"]
    # The columns past the head dim are not part of dQ.
    ref = accum[..., :d].astype(np.float64) * np.float32(scale)
    # One rounding to the 16-bit type, half an ulp: at most 2^-8 of the
    # value in bf16, 2^-11 in f16 (and 2^-25 absolute among f16's
    # subnormals), after the f32 product's own rounding.
    tol = 2.0 ** (-11 if f16 else -8) * (1 + 2.0 ** -20)
    excess = np.abs(dq - ref) - (tol * np.abs(ref) + 2.0 ** -25)
    # Reported among the values the 16-bit type holds as normal numbers.
    normal = np.abs(ref) >= 2.0 ** -14
    err = float(np.max(np.abs(dq - ref)[normal] / np.abs(ref)[normal]))
    nan = int(np.isnan(dq).sum())
    return (dq.shape == ref.shape and nan == 0 and float(excess.max()) <= 0,
            f"max_rel_err={err:.1e} (bound {tol:.1e}) nan={nan}")


def check_split_sum(fa4_run, kernel, work, parts, rows, rng):
    x = bf16_round(rng.uniform(-1, 1, (parts, rows, 128)).astype(np.float32))
    out0 = rng.uniform(-4, 4, (rows, 128)).astype(np.float32)
    error, saved = run_kernel(fa4_run, kernel, work, f"split-{parts}x{rows}",
                              {"x": x, "out": out0}, ["out"])
    if error:
        return False, error
    out = saved["out"]
    ref = out0.astype(np.float64) + x.astype(np.float64).sum(axis=0)
    # P + 1 f32 roundings of partial sums, in any order.
    scale = np.abs(out0).astype(np.float64) + np.abs(x).astype(np.float64).sum(axis=0)
    err = float(np.max(np.abs(out - ref) / scale))
    nan = int(np.isnan(out).sum())
    return (out.shape == ref.shape and nan == 0 and err < (parts + 1) * 2.0 ** -23,
            f"max_err/sum|terms|={err:.1e} nan={nan}")


def check_softmax(fa4_run, kernel, work, n, f16, rows, rng):
    rnd = f16_round if f16 else bf16_round
    x = rnd((rng.standard_normal((rows, n)) * 3).astype(np.float32))
    error, out = run_kernel(fa4_run, kernel, work, f"softmax-{rows}x{n}",
                            {"x": x}, ["y"])
    if error:
        return False, error
    y = out["y"]
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    # The 16-bit rounding of each value (half an ulp) over the f32 math
    # with ex2.approx (about 2^-22 each).
    tol = 2.0 ** (-11 if f16 else -8)
    excess = np.abs(y - ref) - (tol * np.abs(ref) * (1 + 2.0 ** -10) + 1e-6)
    err = float(np.max(np.abs(y - ref) / np.maximum(ref, 1e-6)))
    nan = int(np.isnan(y).sum())
    return (y.shape == ref.shape and nan == 0 and float(excess.max()) <= 0,
            f"max_rel_err={err:.1e} (bound {tol:.1e}) nan={nan}")


def check_vector_add(fa4_run, kernel, work, n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    error, out = run_kernel(fa4_run, kernel, work, f"add-{n}",
                            {"x": x, "y": y}, ["out"])
    if error:
        return False, error
    # One f32 addition each: exact against numpy's.
    wrong = int(np.sum(out["out"] != (x + y).astype(np.float64)))
    return out["out"].shape == (n,) and wrong == 0, f"wrong={wrong}"


def check_norm(fa4_run, kernel, work, kind, n, rows, rng):
    """Triton's layer norm (Y, the rows' mean and rstd) or RMSNorm (Y) over
    rows of N: rows of different offsets and scales, weights and a bias
    around 1 and 0."""
    shift = rng.uniform(-4, 4, (rows, 1)) if kind == "layer_norm" else 0
    x = bf16_round(((rng.standard_normal((rows, n)) + shift)
                    * rng.uniform(0.1, 8, (rows, 1))).astype(np.float32))
    w = bf16_round(rng.uniform(0.5, 1.5, n).astype(np.float32))
    eps = 1e-5
    inputs, outputs = {"x": x, "w": w}, ["y"]
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    if kind == "layer_norm":
        b = bf16_round(rng.uniform(-1, 1, n).astype(np.float32))
        inputs["b"] = b
        outputs += ["mean", "rstd"]
        mean = x64.mean(axis=1)
        centred = x64 - mean[:, None]
        rstd = 1 / np.sqrt((centred ** 2).mean(axis=1) + eps)
        # Where a centred value nearly cancels the bias, y carries the f32
        # rounding of the mean (about 1e-7 of the row's mean |x|, checked
        # below to 1e-5): a tenth of that bound, scaled like y.
        terms = (np.abs(centred * rstd[:, None] * w64) + np.abs(b)
                 + 0.1 * np.abs(x64).mean(axis=1)[:, None] * rstd[:, None]
                 * np.abs(w64))
        ref = centred * rstd[:, None] * w64 + b.astype(np.float64)
    else:
        rstd = 1 / np.sqrt((x64 ** 2).mean(axis=1) + eps)
        ref = x64 * rstd[:, None] * w64
        terms = np.abs(ref)
    error, out = run_kernel(fa4_run, kernel, work, f"{kind}-{rows}x{n}",
                            inputs, outputs, [f"eps={eps}"])
    if error:
        return False, error
    y = out["y"]
    # The bf16 rounding of each value (half an ulp) over f32 sums and
    # rsqrt.approx (about 2^-22), relative to the terms that make it.
    excess = np.abs(y - ref) - (2.0 ** -8 * np.abs(ref) + 1e-5 * terms)
    ok = y.shape == ref.shape and not np.isnan(y).any() and excess.max() <= 0
    text = f"max_err/terms={float(np.max(np.abs(y - ref) / terms)):.1e}"
    if kind == "layer_norm":
        mean_err = float(np.max(np.abs(out["mean"] - mean)
                                / np.abs(x64).mean(axis=1)))
        rstd_err = float(np.max(np.abs(out["rstd"] - rstd) / rstd))
        ok = ok and mean_err < 1e-5 and rstd_err < 1e-5
        text += f" mean_err={mean_err:.1e} rstd_err={rstd_err:.1e}"
    return ok, text


def check_column_sums(fa4_run, kernel, work, m, n, rng):
    """Tutorial 05's dW and dB: the column sums of the f32 partial sums DW and
    DB [M, N], columns of different scales."""
    dw = (rng.standard_normal((m, n)) * rng.uniform(0.1, 10, n)).astype(
        np.float32)
    db = rng.standard_normal((m, n)).astype(np.float32) + 3
    error, out = run_kernel(fa4_run, kernel, work, f"dwdb-{m}x{n}",
                            {"dw": dw, "db": db}, ["final_dw", "final_db"])
    if error:
        return False, error
    worst, ok = 0.0, True
    for name, x in (("final_dw", dw), ("final_db", db)):
        x64 = x.astype(np.float64)
        ref = x64.sum(axis=0)
        # f32 sums of M terms: M ulps of the terms' magnitude at most.
        scale = np.abs(x64).sum(axis=0) + 1e-30
        err = np.abs(out[name] - ref) / scale
        ok = ok and out[name].shape == ref.shape and bool(
            np.all(err <= m * 2.0 ** -23))
        worst = max(worst, float(np.nan_to_num(err, nan=np.inf).max()))
    return ok, f"max_err/terms={worst:.1e}"


def check_matmul_gelu(fa4_run, kernel, work, m, n, k, rng):
    a = bf16_round(rng.uniform(-1, 1, (m, k)).astype(np.float32))
    b = bf16_round(rng.uniform(-1, 1, (k, n)).astype(np.float32))
    bias = bf16_round(rng.uniform(-2, 2, n).astype(np.float32))
    error, out = run_kernel(fa4_run, kernel, work, f"gelu-{m}x{n}x{k}",
                            {"a": a, "b": b, "bias": bias}, ["c"])
    if error:
        return False, error
    c = out["c"]
    x = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    ref = x / 2 * (1 + np.frompyfunc(math.erf, 1, 1)(x / math.sqrt(2)).astype(
        np.float64))
    err = rel_err(c, ref)
    nan = int(np.isnan(c).sum())
    return (c.shape == ref.shape and nan == 0 and err < 1e-2,
            f"rel_err={err:.1e} nan={nan} "
            f"max_abs={float(np.max(np.abs(c - ref))):.1e}")


def check_attention(fa4_run, kernel, work, heads, sq, sk, rng):
    d = 128
    q, k, v = (bf16_round(rng.uniform(-1, 1, (heads, s, d)).astype(np.float32))
               for s in (sq, sk, sk))
    scale = 1 / np.sqrt(d)
    paths = {name: os.path.join(work, f"att-{name}-{heads}x{sq}x{sk}.npy")
             for name in ("q", "k", "v", "o")}
    for name, x in (("q", q), ("k", k), ("v", v)):
        np.save(paths[name], x)
    args = ["--kernel", kernel, "--save", f"o={paths['o']}", "--arg",
            f"scale_log2={float(scale * np.log2(np.e)):.9g}"]
    for name in ("q", "k", "v"):
        args += ["--arg", f"{name}={paths[name]}"]
    code, text = run(fa4_run, args)
    if code != 0:
        return False, f"fa4-run exit {code}: {text}"
    o = bf16_load(paths["o"])
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64))
    s *= scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    ref = np.einsum("hqk,hkd->hqd", p / p.sum(axis=-1, keepdims=True),
                    v.astype(np.float64))
    err = rel_err(o, ref)
    nan = int(np.isnan(o).sum())
    return (o.shape == ref.shape and nan == 0 and err < 1e-2,
            f"rel_err={err:.1e} nan={nan}")


def softmax_rows(s, vh):
    """Float64 attention of masked scores `s` (-inf where a query does not
    see a key) over the values `vh`: P, O and the LSE (natural log, -inf for
    rows that see no key, whose P and O are 0)."""
    m = s.max(axis=-1, keepdims=True)
    seen = np.isfinite(m)
    e = np.exp(s - np.where(seen, m, 0))
    total = np.where(seen, e.sum(axis=-1, keepdims=True), 1)
    lse = np.where(seen, m + np.log(total), -np.inf)
    p = np.where(seen, e / total, 0)
    return p, np.einsum("bhqk,bhkd->bhqd", p, vh), lse[..., 0]


def backward_reference(q, k, v, do, scale, causal):
    """Float64 attention forward and backward per (batch, head): O, LSE
    (natural log, -inf for rows that see no key), dQ, dK, dV (dK and dV
    summed over the query heads of each KV head)."""
    b, h, sq, _ = q.shape
    hkv, sk = k.shape[1], k.shape[2]
    group = h // hkv
    q, k, v, do = (x.astype(np.float64) for x in (q, k, v, do))
    kh = np.repeat(k, group, axis=1)
    vh = np.repeat(v, group, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, kh) * scale
    if causal:
        rows = np.arange(sq)[:, None]
        cols = np.arange(sk)[None, :]
        s = np.where(cols <= rows + sk - sq, s, -np.inf)
    p, o, lse = softmax_rows(s, vh)
    dp = np.einsum("bhqd,bhkd->bhqk", do, vh)
    delta = (do * o).sum(axis=-1, keepdims=True)
    ds = p * (dp - delta)
    dq = np.einsum("bhqk,bhkd->bhqd", ds, kh) * scale
    dk = np.einsum("bhqk,bhqd->bhkd", ds, q).reshape(b, hkv, group, sk, -1)
    dv = np.einsum("bhqk,bhqd->bhkd", p, do).reshape(b, hkv, group, sk, -1)
    return o, lse, dq, dk.sum(axis=2) * scale, dv.sum(axis=2)


def mods_reference(q, k, v, scale, causal, heads, mod, param, tensor=None):
    """Float64 attention with examples/attention-mods' mods: O and the LSE
    (natural log). `mod` "alibi": scores + 2^(-8 (h + 1) / heads) (key -
    query); "chunked": a query sees the keys of its chunk of `param`;
    "bias": scores + `tensor` [B, H, Sq, Sk]; "document": a query sees the
    keys of its document, `tensor` [B, S] each token's."""
    b, h, sq, _ = q.shape
    group = h // k.shape[1]
    sk = k.shape[2]
    kh = np.repeat(k.astype(np.float64), group, axis=1)
    vh = np.repeat(v.astype(np.float64), group, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), kh) * scale
    rows = np.arange(sq)[:, None]
    cols = np.arange(sk)[None, :]
    if mod == "alibi":
        slopes = 2.0 ** (-8.0 * (np.arange(h) + 1) / heads)
        s = s + slopes[None, :, None, None] * (cols - rows)[None, None]
    elif mod == "bias":
        s = s + tensor.astype(np.float64)
    elif mod == "document":
        same = tensor[:, :, None] == tensor[:, None, :]
        s = np.where(same[:, None], s, -np.inf)
    else:
        s = np.where((rows // param == cols // param)[None, None], s, -np.inf)
    if causal:
        s = np.where(cols <= rows + sk - sq, s, -np.inf)
    _, o, lse = softmax_rows(s, vh)
    return o, lse


def check_mods(fa4_run, kernel, work, mod, param, shape, causal, rng):
    b, h, hkv, sq, sk = shape
    d = 128
    q = bf16_round(rng.uniform(-1, 1, (b, h, sq, d)).astype(np.float32) * 2)
    k = bf16_round(rng.uniform(-1, 1, (b, hkv, sk, d)).astype(np.float32) * 2)
    v = bf16_round(rng.uniform(-1, 1, (b, hkv, sk, d)).astype(np.float32))
    scale = 1 / np.sqrt(d)
    tag = f"{mod}-{b}x{h}x{hkv}x{sq}x{sk}-{int(causal)}"
    inputs = {"q": q, "k": k, "v": v}
    bias = None
    if mod == "bias":
        # Biases of the scores' size, some rows' far larger.
        bias = bf16_round((rng.uniform(-2, 2, (b, h, sq, sk))
                           * rng.choice([1, 8], (b, h, sq, 1)))
                          .astype(np.float32))
        inputs["bias"] = bias
    error, out = run_kernel(
        fa4_run, kernel, work, tag, inputs, ["o", "lse"],
        [f"scale_log2={float(scale * np.log2(np.e)):.9g}",
         f"causal={int(causal)}"])
    if error:
        return False, error
    o, lse = mods_reference(q, k, v, scale, causal, h, mod, param, bias)
    seen = np.isfinite(lse)
    err = rel_err(out["o"], o)
    lse_err = float(np.max(np.abs(out["lse"][seen] - lse[seen]), initial=0))
    nan = int(np.isnan(out["o"]).sum())
    # Rows that see no key: O exactly 0, the LSE -inf.
    stray = int(np.count_nonzero(out["o"][~seen])) + int(
        np.count_nonzero(out["lse"][~seen] != -np.inf))
    ok = nan == 0 and stray == 0 and err < 1e-2 and lse_err < 1e-3
    return ok, (f"rel_err={err:.1e} lse_max_abs={lse_err:.1e} nan={nan} "
                f"unseen_rows={int((~seen).sum())} stray={stray}")


def check_document(fa4_run, kernel, work, shape, causal, rng):
    """examples/attention-mods' document masking: batch row b packs
    documents of random lengths (some of one token, one long), given as each
    token's document and each document's first token (the row padded with
    S past its last)."""
    b, h, hkv, s = shape
    d = 128
    lengths = []
    for _ in range(b):
        cuts = np.sort(rng.choice(np.arange(1, s), size=min(s - 1, 6),
                                  replace=False))
        cuts = np.concatenate([[0], cuts, [cuts[-1] + 1], [s]])
        lengths.append(np.unique(cuts))
    docs = max(len(c) - 1 for c in lengths)
    offsets = np.full((b, docs + 1), s, dtype=np.int32)
    document = np.zeros((b, s), dtype=np.int32)
    for i, cuts in enumerate(lengths):
        offsets[i, :len(cuts)] = cuts
        for j in range(len(cuts) - 1):
            document[i, cuts[j]:cuts[j + 1]] = j
    q = bf16_round(rng.uniform(-1, 1, (b, h, s, d)).astype(np.float32) * 2)
    k = bf16_round(rng.uniform(-1, 1, (b, hkv, s, d)).astype(np.float32) * 2)
    v = bf16_round(rng.uniform(-1, 1, (b, hkv, s, d)).astype(np.float32))
    scale = 1 / np.sqrt(d)
    tag = f"document-{b}x{h}x{hkv}x{s}-{int(causal)}"
    error, out = run_kernel(
        fa4_run, kernel, work, tag,
        {"q": q, "k": k, "v": v, "document": document,
         "document_offsets": offsets}, ["o", "lse"],
        [f"scale_log2={float(scale * np.log2(np.e)):.9g}",
         f"causal={int(causal)}"])
    if error:
        return False, error
    o, lse = mods_reference(q, k, v, scale, causal, h, "document", 0,
                            document)
    err = rel_err(out["o"], o)
    lse_err = float(np.max(np.abs(out["lse"] - lse)))
    nan = int(np.isnan(out["o"]).sum())
    ok = nan == 0 and err < 1e-2 and lse_err < 1e-3
    return ok, (f"rel_err={err:.1e} lse_max_abs={lse_err:.1e} nan={nan} "
                f"documents={docs}")


def backward_case(d, f16, shape, causal, gain, rng):
    """Random inputs of an attention backward case and what the forward and
    the preprocess give it (O in the element type, LSE and D in f32), the
    float64 gradients, the LSE and the softmax scalars."""
    rnd = f16_round if f16 else bf16_round
    b, h, hkv, sq, sk = shape
    q = rnd((rng.uniform(-1, 1, (b, h, sq, d)) * gain).astype(np.float32))
    k = rnd((rng.uniform(-1, 1, (b, hkv, sk, d)) * gain).astype(np.float32))
    v = rnd(rng.uniform(-1, 1, (b, hkv, sk, d)).astype(np.float32))
    do = rnd(rng.uniform(-1, 1, (b, h, sq, d)).astype(np.float32))
    scale = 1 / np.sqrt(d)
    o, lse, dq, dk, dv = backward_reference(q, k, v, do, scale, causal)
    delta = (do.astype(np.float64) * rnd(o.astype(np.float32))).sum(axis=-1)
    inputs = {"q": q, "k": k, "v": v, "do": do,
              "lse": lse.astype(np.float32), "delta": delta.astype(np.float32)}
    scalars = [f"softmax_scale={scale:.9g}", f"causal={int(causal)}"]
    return inputs, scalars, {"dq": dq, "dk": dk, "dv": dv}, lse


def compare_gradients(out, refs, lse, stray=0):
    """dQ, dK and dV against float64 ones: relative errors under 1e-2, no
    NaN, rows that see no key exactly 0 (and `stray` other nonzeros)."""
    errs = {name: rel_err(out[name], ref) for name, ref in refs.items()}
    nan = sum(int(np.isnan(out[name]).sum()) for name in errs)
    unseen = ~np.isfinite(lse)
    stray += int(np.count_nonzero(out["dq"][unseen]))
    ok = nan == 0 and stray == 0 and all(e < 1e-2 for e in errs.values())
    return ok, (" ".join(f"{n}={e:.1e}" for n, e in errs.items())
                + f" nan={nan} unseen_rows={int(unseen.sum())} nonzero={stray}")


def check_backward(fa4_run, kernels, work, d, f16, shape, causal, gain, rng):
    inputs, scalars, refs, lse = backward_case(d, f16, shape, causal, gain,
                                               rng)
    b, h, hkv, sq, sk = shape
    tag = f"bwd-{d}-{b}x{h}x{hkv}x{sq}x{sk}-{int(causal)}"
    dq_kernel, dkdv_kernel = kernels.split(":")
    error, out = run_kernel(fa4_run, dq_kernel, work, tag + "-dq", inputs,
                            ["dq"], scalars)
    if error:
        return False, error
    error, out2 = run_kernel(fa4_run, dkdv_kernel, work, tag + "-dkdv", inputs,
                             ["dk", "dv"], scalars)
    if error:
        return False, error
    out.update(out2)
    return compare_gradients(out, refs, lse)


def check_backward_main(fa4_run, kernel, work, d, f16, shape, causal, gain,
                        rng):
    """The backward's main kernel in five products: dK and dV, and dQ summed
    across its CTAs into an f32 dQaccum [B, H, Sq, D'] (D' the head dim
    padded to 64 columns) that starts at zero; dQ = scale * dQaccum."""
    inputs, scalars, refs, lse = backward_case(d, f16, shape, causal, gain,
                                               rng)
    b, h, hkv, sq, sk = shape
    padded = -(-d // 64) * 64
    inputs["dq_accum"] = np.zeros((b, h, sq, padded), np.float32)
    tag = f"bwdmain-{d}-{b}x{h}x{hkv}x{sq}x{sk}-{int(causal)}"
    error, out = run_kernel(fa4_run, kernel, work, tag, inputs,
                            ["dk", "dv", "dq_accum"], scalars)
    if error:
        return False, error
    out["dq"] = out["dq_accum"][..., :d] / np.sqrt(d)
    # dQaccum's padding columns stay 0.
    return compare_gradients(
        out, refs, lse, int(np.count_nonzero(out["dq_accum"][..., d:])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fa4-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--gemm-relu")
    parser.add_argument("--attention")
    parser.add_argument("--rowsum", action="append", default=[],
                        metavar="DV[,f16]=KERNEL")
    parser.add_argument("--scale-cast", action="append", default=[],
                        metavar="D[,f16]=KERNEL")
    parser.add_argument("--split-sum")
    parser.add_argument("--softmax", action="append", default=[],
                        metavar="N[,f16]=KERNEL")
    parser.add_argument("--backward", action="append", default=[],
                        metavar="D[,f16]=KDQ:KDKDV")
    parser.add_argument("--backward-main", action="append", default=[],
                        metavar="D[,f16]=KMAIN")
    parser.add_argument("--alibi", metavar="KERNEL:HEADS")
    parser.add_argument("--chunked", metavar="KERNEL:CHUNK")
    parser.add_argument("--document", metavar="KERNEL")
    parser.add_argument("--bias", metavar="KERNEL")
    parser.add_argument("--vector-add", metavar="KERNEL")
    parser.add_argument("--layer-norm", metavar="KERNEL")
    parser.add_argument("--rms-norm", metavar="KERNEL")
    parser.add_argument("--row-softmax", metavar="KERNEL")
    parser.add_argument("--matmul-gelu", metavar="KERNEL")
    parser.add_argument("--whole-row", action="append", default=[],
                        metavar="KIND,COLS=KERNEL")
    parser.add_argument("--column-sums", metavar="KERNEL")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(7)
    failed = 0

    def report(name, result):
        nonlocal failed
        ok, text = result
        failed += not ok
        print(f"{name}: {'PASS' if ok else 'FAIL'} {text}", flush=True)

    if args.gemm_relu:
        for m, n, k in ((1000, 1024, 512), (128, 256, 64), (4096, 4096, 4096)):
            report(f"gemm_relu m={m} n={n} k={k}",
                   check_gemm_relu(args.fa4_run, args.gemm_relu, args.work,
                                   m, n, k, 0.5, rng))
        # A shape the kernel's requirement refuses, before anything runs.
        np.save(os.path.join(args.work, "a-small.npy"),
                np.ones((128, 64), np.float32))
        np.save(os.path.join(args.work, "b-odd.npy"),
                np.ones((64, 1000), np.float32))
        code, text = run(args.fa4_run, [
            "--kernel", args.gemm_relu, "--arg",
            f"a={os.path.join(args.work, 'a-small.npy')}", "--arg",
            f"b={os.path.join(args.work, 'b-odd.npy')}", "--arg", "alpha=1"])
        report("gemm_relu n=1000 refused",
               (code == 2 and "b.dim1%256==0" in text, text))
    if args.attention:
        for heads, sq, sk in ((6, 300, 200), (2, 1024, 1024), (3, 77, 129)):
            report(f"attention h={heads} sq={sq} sk={sk}",
                   check_attention(args.fa4_run, args.attention, args.work,
                                   heads, sq, sk, rng))
    # examples/attention-mods' kernels: (B, H, HKV, SQ, SK), causal.
    mods_cases = (((2, 16, 16, 300, 300), False), ((1, 16, 4, 1000, 1000), True),
                  ((3, 16, 16, 77, 200), False), ((1, 16, 2, 200, 77), True))
    for mod, spec in (("alibi", args.alibi), ("chunked", args.chunked),
                      ("bias", args.bias and args.bias + ":0")):
        if not spec:
            continue
        kernel, param = spec.rsplit(":", 1)
        for shape, causal in mods_cases:
            report(f"{mod} b,h,hkv,sq,sk={shape} causal={int(causal)}",
                   check_mods(args.fa4_run, kernel, args.work, mod, int(param),
                              shape, causal, rng))
    # (B, H, HKV, S), causal: rows of no block's length, GQA; documents
    # longer than a block (its rows and keys in one: the mask skipped).
    if args.document:
        for shape, causal in (((2, 16, 16, 300), False),
                              ((1, 16, 4, 1000), True),
                              ((3, 16, 16, 77), True),
                              ((1, 8, 2, 2048), False),
                              ((2, 8, 2, 4096), True)):
            report(f"document b,h,hkv,s={shape} causal={int(causal)}",
                   check_document(args.fa4_run, args.document, args.work,
                                  shape, causal, rng))
    # examples/triton-tutorials' kernels: Triton's length, lengths no
    # block of 1024 divides, a part of one block.
    if args.vector_add:
        for n in (98432, 1000, 5, 1 << 20):
            report(f"vector_add n={n}",
                   check_vector_add(args.fa4_run, args.vector_add, args.work,
                                    n, rng))
    # Rows no program's 8 divide; rows of part of a block, of one, of many
    # and a part; odd N, whose rows start at odd elements (read and written
    # value by value).
    row_shapes = ((1000, 200), (77, 4096), (300, 1000), (4096, 128), (5, 8),
                  (9, 4097), (3, 10000), (33, 333), (1, 1))
    for kind, kernel in (("layer_norm", args.layer_norm),
                         ("rms_norm", args.rms_norm)):
        if not kernel:
            continue
        for rows, n in row_shapes:
            report(f"{kind} n={n} rows={rows}",
                   check_norm(args.fa4_run, kernel, args.work, kind, n, rows,
                              rng))
    if args.row_softmax:
        for rows, n in row_shapes:
            report(f"row_softmax n={n} rows={rows}",
                   check_softmax(args.fa4_run, args.row_softmax, args.work, n,
                                 False, rows, rng))
    # A row in one block: rows no program's 2 divide, N up to the block.
    for spec in args.whole_row:
        dims, kernel = spec.split("=", 1)
        kind, cols = dims.split(",")
        cols = int(cols)
        for rows, n in ((1000, cols), (77, cols - 1), (3, cols // 2 + 3),
                        (5, 8), (1, 1), (33, 333)):
            name = f"{kind} whole row cols={cols} n={n} rows={rows}"
            if kind == "softmax":
                report(name, check_softmax(args.fa4_run, kernel, args.work,
                                           n, False, rows, rng))
            else:
                report(name, check_norm(args.fa4_run, kernel, args.work, kind,
                                        n, rows, rng))
    # Rows no step's 32 divide, columns no program's 128 do, one of each.
    if args.column_sums:
        for m, n in ((1000, 200), (32, 128), (1, 1), (77, 4097), (256, 8),
                     (4096, 1000)):
            report(f"column_sums m={m} n={n}",
                   check_column_sums(args.fa4_run, args.column_sums,
                                     args.work, m, n, rng))
    if args.matmul_gelu:
        for m, n, k in ((1000, 1000, 512), (128, 256, 64), (77, 328, 200),
                        (300, 8, 8)):
            report(f"matmul_gelu m={m} n={n} k={k}",
                   check_matmul_gelu(args.fa4_run, args.matmul_gelu, args.work,
                                     m, n, k, rng))
    # (B, H, S) of the attention backward's pre- and postprocess.
    shapes = ((3, 5, 1000), (1, 2, 77), (2, 3, 4096), (1, 1, 128))
    for what, specs, check, dim in (("rowsum", args.rowsum, check_rowsum, "dv"),
                                    ("scale_cast", args.scale_cast,
                                     check_scale_cast, "d")):
        for spec in specs:
            dims, kernel = spec.split("=", 1)
            size, _, dtype = dims.partition(",")
            for b, h, s in shapes:
                report(f"{what} {dim}={dims} b={b} h={h} s={s}",
                       check(args.fa4_run, kernel, args.work, int(size),
                             dtype == "f16", b, h, s, rng))
    if args.split_sum:
        for parts, rows in ((7, 1000), (1, 77), (32, 300), (3, 128)):
            report(f"split_sum parts={parts} rows={rows}",
                   check_split_sum(args.fa4_run, args.split_sum, args.work,
                                   parts, rows, rng))
    for spec in args.softmax:
        dims, kernel = spec.split("=", 1)
        n, _, dtype = dims.partition(",")
        for rows in (1000, 77, 4096):
            report(f"softmax n={dims} rows={rows}",
                   check_softmax(args.fa4_run, kernel, args.work, int(n),
                                 dtype == "f16", rows, rng))
    # (B, H, Hkv, Sq, Sk), causal, the inputs' scale: lengths no tile
    # divides, Sq != Sk both ways (causal rows that see no key when
    # Sq > Sk), GQA 4 and MQA, inputs x8.
    backward_cases = (((2, 4, 2, 200, 300), False, 1), ((2, 4, 2, 200, 300), True, 1),
                      ((1, 3, 3, 300, 200), True, 1), ((3, 5, 5, 77, 129), False, 1),
                      ((1, 4, 1, 1024, 1024), True, 1), ((1, 8, 2, 333, 333), True, 1),
                      ((1, 2, 2, 256, 256), False, 8))
    for spec in args.backward:
        dims, kernels = spec.split("=", 1)
        d, _, dtype = dims.partition(",")
        for shape, causal, gain in backward_cases:
            report(f"backward d={dims} b,h,hkv,sq,sk={shape} causal={int(causal)}"
                   f" x{gain}",
                   check_backward(args.fa4_run, kernels, args.work, int(d),
                                  dtype == "f16", shape, causal, gain, rng))
    for spec in args.backward_main:
        dims, kernel = spec.split("=", 1)
        d, _, dtype = dims.partition(",")
        for shape, causal, gain in backward_cases:
            report(f"backward main d={dims} b,h,hkv,sq,sk={shape}"
                   f" causal={int(causal)} x{gain}",
                   check_backward_main(args.fa4_run, kernel, args.work,
                                       int(d), dtype == "f16", shape, causal,
                                       gain, rng))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

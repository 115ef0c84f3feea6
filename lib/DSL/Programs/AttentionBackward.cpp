//===- AttentionBackward.cpp - the attention backward's programs ----------===//
//
// The backward of attention, written like a Triton kernel, in the programs
// FlashAttention's backward has: a preprocess over the rows of O and dO, the
// main kernel over the key blocks, a postprocess over dQ. This file holds
// the preprocess, D = rowsum(dO ∘ O), the term that dS = P ∘ (dP − D)
// subtracts per row (ALGORITHM.md), and the postprocess, dQ = scale · the
// f32 sum the main kernel's CTAs add dS · K into, in the element type:
// kernels without any MMA.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

#include "Base2.h"
#include "HeadDims.h"
#include "KeyBlocks.h"

#include <algorithm>
#include <limits>

using namespace fa4::dsl;

mlir::OwningOpRef<mlir::ModuleOp> fa4::dsl::buildAttentionBackwardPreprocess(
    mlir::MLIRContext *context, const AttentionOptions &options) {
  int64_t dv = options.headDimV ? options.headDimV : options.headDim;
  const int64_t dvp = paddedHeadDim(context, "attention backward: ", "head dim of V", dv);
  if (!dvp)
    return nullptr;
  const int64_t bm = options.blockM;
  const DType type = options.elementType;
  const Extent any = Extent::any();
  Program p(context, "attention_bwd_preprocess");
  // O and dO are [B, H, Sq, Dv] (any layout with contiguous rows: tensor
  // maps), D [B, H, Sq] f32, contiguous. Program (x, h, b) takes query rows
  // [bm x, bm x + bm) of head h of batch b; the loads read zeros past Sq
  // and past Dv, which add nothing to a row's sum, and the store writes the
  // rows before Sq.
  Desc o = p.desc("o", {1, 1, bm, dvp}, type, {any, any, any, dv});
  Desc dout = p.desc("do", {1, 1, bm, dvp}, type,
                     {o.dim(0), o.dim(1), o.dim(2), dv});
  Ptr delta = p.ptr("delta", f32, {o.dim(0), o.dim(1), o.dim(2)});
  Index seqQ = p.index("seq_q", o.dim(2)), batch = p.index("batch", o.dim(0)),
        heads = p.index("heads", o.dim(1));
  p.grid({cdiv(o.dim(2), bm), o.dim(1), o.dim(0)});
  Index m = p.programId(0), h = p.programId(1), b = p.programId(2);

  Tile product = load(o, {b, h, m, 0}).to(f32) * load(dout, {b, h, m, 0}).to(f32);
  Desc deltad = p.makeDesc(delta, {batch, heads, seqQ},
                           {heads * seqQ, seqQ, 1}, {1, 1, bm});
  store(deltad, {b, h, m}, sum(product, 1));
  return p.finish();
}

mlir::OwningOpRef<mlir::ModuleOp> fa4::dsl::buildAttentionBackwardPostprocess(
    mlir::MLIRContext *context, const AttentionOptions &options) {
  int64_t d = options.headDim;
  const int64_t dp = paddedHeadDim(context, "attention backward: ", "head dim", d);
  if (!dp)
    return nullptr;
  const int64_t bm = options.blockM;
  const Extent any = Extent::any();
  Program p(context, "attention_bwd_postprocess");
  // dQaccum is [B, H, Sq, D'] f32 (D' the head dim padded to 64 columns,
  // contiguous), dQ [B, H, Sq, D] in the element type (any layout with
  // contiguous rows); both through tensor maps. Program (x, h, b) converts
  // query rows [bm x, bm x + bm) of head h of batch b; the store writes the
  // rows before Sq and the columns before D.
  Desc accum = p.desc("dq_accum", {1, 1, bm, dp}, f32, {any, any, any, dp});
  Desc dq = p.desc("dq", {1, 1, bm, dp}, options.elementType,
                   {accum.dim(0), accum.dim(1), accum.dim(2), d});
  Scalar scale = p.f32("softmax_scale");
  p.grid({cdiv(accum.dim(2), bm), accum.dim(1), accum.dim(0)});
  Index m = p.programId(0), h = p.programId(1), b = p.programId(2);
  store(dq, {b, h, m, 0},
        (load(accum, {b, h, m, 0}) * scale).to(options.elementType));
  return p.finish();
}

int64_t fa4::dsl::attentionBackwardBlockN(const AttentionOptions &options,
                                          bool keyBlocks) {
  int64_t dv = options.headDimV ? options.headDimV : options.headDim;
  bool narrow = padToRows(std::max(options.headDim, dv)) <= 64;
  return !keyBlocks || narrow ? 128 : 64;
}

bool fa4::dsl::attentionBackwardPinDescriptors(
    const AttentionOptions &options) {
  return options.headDim >= 96;
}

namespace {
/// What the dQ and the dK/dV programs share: Q and dO [B, H, Sq, D] (dO's
/// last dim Dv), K and V [B, Hkv, Sk, D] with H a multiple of Hkv, LSE and
/// D (delta) [B, H, Sq] f32, contiguous (the forward's layouts and the
/// preprocess's D); then, after each program's outputs, the sizes, the
/// forward's softmax scale and causality, and its sliding window and
/// softcap where the options have them.
struct BackwardArguments {
  Desc q, k, v, dout;
  Ptr lse, delta;
  Index seqQ, seqK, batch, heads, group;
  Scalar scale;
  Bool causal;
  Index windowLeft, windowRight;
  Scalar softcap;

  /// Declares the inputs: Q and dO in blocks of `qRows`, K and V of
  /// `kRows`, their widths padded to `dp` and `dvp` columns.
  BackwardArguments(Program &p, const AttentionOptions &options,
                    int64_t qRows, int64_t kRows, int64_t dp, int64_t dvp) {
    const int64_t d = options.headDim;
    const int64_t dv = options.headDimV ? options.headDimV : d;
    const DType type = options.elementType;
    const Extent any = Extent::any();
    q = p.desc("q", {1, 1, qRows, dp}, type, {any, any, any, d});
    k = p.desc("k", {1, 1, kRows, dp}, type, {q.dim(0), any, any, d});
    v = p.desc("v", {1, 1, kRows, dvp}, type,
               {q.dim(0), k.dim(1), k.dim(2), dv});
    dout = p.desc("do", {1, 1, qRows, dvp}, type,
                  {q.dim(0), q.dim(1), q.dim(2), dv});
    lse = p.ptr("lse", f32, {q.dim(0), q.dim(1), q.dim(2)});
    delta = p.ptr("delta", f32, {q.dim(0), q.dim(1), q.dim(2)});
  }

  /// Declares the scalars, after the program's outputs.
  void declareScalars(Program &p, const AttentionOptions &options) {
    seqQ = p.index("seq_q", q.dim(2));
    seqK = p.index("seq_k", k.dim(2));
    batch = p.index("batch", q.dim(0));
    heads = p.index("heads", q.dim(1));
    group = p.index("group", q.dim(1) / k.dim(1));
    scale = p.f32("softmax_scale");
    causal = p.i32("causal") != 0;
    // The forward's sliding window and softcap (Attention.cpp), each in a
    // kernel of its own.
    if (options.window) {
      windowLeft = p.index("window_left");
      windowRight = p.index("window_right");
    }
    if (options.softcap)
      softcap = p.f32("softcap");
  }
};
} // namespace

mlir::OwningOpRef<mlir::ModuleOp> fa4::dsl::buildAttentionBackwardDq(
    mlir::MLIRContext *context, const AttentionOptions &options) {
  const int64_t d = options.headDim;
  const int64_t dv = options.headDimV ? options.headDimV : d;
  const int64_t dp = paddedHeadDim(context, "attention backward: ", "head dim", d);
  const int64_t dvp = paddedHeadDim(context, "attention backward: ", "head dim of V", dv);
  if (!dp || !dvp)
    return nullptr;
  const int64_t bm = options.blockM, bn = options.blockN;
  const DType type = options.elementType;
  const double inf = std::numeric_limits<double>::infinity();
  Program p(context, "attention_bwd_dq");
  // dQ is [B, H, Sq, D], as Q.
  BackwardArguments args(p, options, bm, bn, dp, dvp);
  Desc q = args.q, k = args.k, v = args.v, dout = args.dout;
  Desc dq = p.desc("dq", {1, 1, bm, dp}, type,
                   {q.dim(0), q.dim(1), q.dim(2), d});
  args.declareScalars(p, options);
  Index seqQ = args.seqQ, seqK = args.seqK, batch = args.batch,
        heads = args.heads, group = args.group;
  Index windowLeft = args.windowLeft, windowRight = args.windowRight;
  Scalar scale = args.scale;
  Bool causal = args.causal;
  Scalar scaleLog2 = scale * kLog2e;
  Scalar capUnit, capUnitInverse;
  if (options.softcap) {
    Scalar capLog2e = args.softcap * kLog2e;
    capUnit = scaleLog2 / capLog2e;
    capUnitInverse = capLog2e / scaleLog2;
  }
  p.grid({cdiv(q.dim(2), bm), q.dim(1), q.dim(0)});
  p.require(q.dim(1) % k.dim(1) == 0);

  // Program (x, h, b) computes dQ of query rows [m0, m0 + bm) of head h of
  // batch b, the longest causal rows first, over the key blocks its rows
  // see (those of the forward): dQ = scale · Σ_j dS_j · K_j with
  // P = exp2(S · scale · log2 e − LSE · log2 e), dS = P ∘ (dO · Vᵀ − D).
  Index m = p.numPrograms(0) - 1 - p.programId(0);
  Index h = p.programId(1), b = p.programId(2), hk = h / group;
  Index m0 = m * bm, diagonal = m0 + (seqK - seqQ);
  Tile qTile = load(q, {b, h, m, 0});
  Tile doTile = load(dout, {b, h, m, 0});
  Desc lsed = p.makeDesc(args.lse, {batch, heads, seqQ},
                         {heads * seqQ, seqQ, 1}, {1, 1, bm});
  Desc deltad = p.makeDesc(args.delta, {batch, heads, seqQ},
                           {heads * seqQ, seqQ, 1}, {1, 1, bm});
  // A row that sees no key has an LSE of -inf: +inf makes its P zero.
  Tile lseRow = load(lsed, {b, h, m});
  Tile lse2 = where(lseRow == -inf, inf, lseRow * kLog2e);
  Tile deltaRow = load(deltad, {b, h, m});
  // The key blocks the forward visits for these rows (KeyBlocks.h).
  KeyBlocks keys(p, bm, bn, seqK, diagonal, causal, options.window,
                 windowLeft, windowRight);
  auto [acc] = p.forLoop(
      keys.start(), keys.end, 1,
      {p.zeros({bm, dp}, f32)},
      [&](Index j, Tile acc) -> Tiles<1> {
        // S and dP first, one after the other: dP's MMA runs while P is
        // computed (measured on the H200, bench/RESULTS.md, 2026-12-04: 10 %
        // faster at head dim 128, 2 % slower at 64).
        Tile kTile = load(k, {b, hk, j, 0});
        Tile s = dot(qTile, trans(kTile), p.zeros({bm, bn}, f32));
        Tile dpr = dot(doTile, trans(load(v, {b, hk, j, 0})),
                       p.zeros({bm, bn}, f32));
        // The capped score and tanh's derivative, 1 - t², for dS.
        Tile t;
        if (options.softcap) {
          t = tanh(s * capUnit);
          s = t * capUnitInverse;
        }
        s = keys.mask(j, s);
        Tile pr = exp2(s * scaleLog2 - lse2.col());
        Tile ds = pr * (dpr - deltaRow.col());
        if (options.softcap)
          ds = ds * (1.0 - t * t);
        return {dot(ds.to(type), kTile, acc)};
      });
  store(dq, {b, h, m, 0}, (acc * scale).to(type));
  return p.finish();
}

namespace {
/// The program of a CTA per key block: dK and dV, and with `withDq` the
/// parts of dQ its keys give, added into an f32 sum across CTAs.
mlir::OwningOpRef<mlir::ModuleOp>
buildKeyBlockBackward(mlir::MLIRContext *context,
                      const AttentionOptions &options, bool withDq) {
  const int64_t d = options.headDim;
  const int64_t dv = options.headDimV ? options.headDimV : d;
  const int64_t dp = paddedHeadDim(context, "attention backward: ", "head dim", d);
  const int64_t dvp = paddedHeadDim(context, "attention backward: ", "head dim of V", dv);
  if (!dp || !dvp)
    return nullptr;
  // The program's rows are keys (bm of them, 64 per consumer warpgroup);
  // its loop visits blocks of bn query rows.
  const int64_t bm = options.blockM, bn = options.blockN;
  const DType type = options.elementType;
  const double inf = std::numeric_limits<double>::infinity();
  Program p(context, withDq ? "attention_bwd" : "attention_bwd_dkdv");
  // dK and dV are [B, Hkv, Sk, D] (Dv), as K and V; dQaccum [B, H, Sq, D']
  // f32 (D' the head dim padded to 64 columns), contiguous, as the
  // postprocess reads it.
  BackwardArguments args(p, options, bn, bm, dp, dvp);
  Desc q = args.q, k = args.k, v = args.v, dout = args.dout;
  Desc dk = p.desc("dk", {1, 1, bm, dp}, type,
                   {q.dim(0), k.dim(1), k.dim(2), d});
  Desc dvd = p.desc("dv", {1, 1, bm, dvp}, type,
                    {q.dim(0), k.dim(1), k.dim(2), dv});
  Desc dqAccum;
  if (withDq)
    dqAccum = p.desc("dq_accum", {1, 1, bn, dp}, f32,
                     {q.dim(0), q.dim(1), q.dim(2), dp});
  args.declareScalars(p, options);
  Index seqQ = args.seqQ, seqK = args.seqK, batch = args.batch,
        heads = args.heads, group = args.group;
  Index windowLeft = args.windowLeft, windowRight = args.windowRight;
  Scalar scale = args.scale, softcap = args.softcap;
  Bool causal = args.causal;
  p.grid({cdiv(k.dim(2), bm), k.dim(1), k.dim(0)});
  p.require(q.dim(1) % k.dim(1) == 0);

  // Program (x, hk, b) computes dK and dV of key rows [n0, n0 + bm) of KV
  // head hk of batch b, summed over the query heads of its group and the
  // query blocks that see its keys, in one loop (no sum across programs):
  // Sᵀ = K · Qᵀ, Pᵀ = exp2(Sᵀ · scale · log2 e − LSE · log2 e) with the LSE
  // of each column's query, dV += Pᵀ · dO, dSᵀ = Pᵀ ∘ (V · dOᵀ − D),
  // dK += dSᵀ · Q, dK = scale · dK at the end.
  Index n = p.programId(0), hk = p.programId(1), b = p.programId(2);
  Index n0 = n * bm, shift = seqK - seqQ;
  Tile kTile = load(k, {b, hk, n, 0});
  Tile vTile = load(v, {b, hk, n, 0});
  Desc lsed = p.makeDesc(args.lse, {batch, heads, seqQ},
                         {heads * seqQ, seqQ, 1}, {1, 1, bn});
  Desc deltad = p.makeDesc(args.delta, {batch, heads, seqQ},
                           {heads * seqQ, seqQ, 1}, {1, 1, bn});
  Scalar scaleLog2 = scale * kLog2e;
  Scalar capUnit, capUnitInverse;
  if (options.softcap) {
    Scalar capLog2e = softcap * kLog2e;
    capUnit = scaleLog2 / capLog2e;
    capUnitInverse = capLog2e / scaleLog2;
  }
  // Query i sees key j <= i + shift + right (right 0 when causal) and,
  // with a window's left bound, j >= i + shift - left: the query blocks
  // from the one holding query n0 - shift - right to the one holding
  // n0 + bm - 1 - shift + left see the block's keys.
  Index qBlocks = ceilDiv(seqQ, bn);
  Bool hasLeft, hasRight = causal;
  Index right = Index(), left = Index();
  Index first, end = qBlocks;
  if (!options.window) {
    first = select(causal, min(qBlocks, max(0, n0 - shift) / bn), 0);
  } else {
    hasLeft = windowLeft >= 0;
    hasRight = causal || windowRight >= 0;
    right = select(causal, 0, windowRight);
    left = windowLeft;
    first = select(hasRight, min(qBlocks, max(0, n0 - shift - right) / bn),
                   0);
    end = select(hasLeft,
                 min(qBlocks, ceilDiv(max(0, n0 + bm - shift + left), bn)),
                 qBlocks);
  }
  Index count = options.window ? max(0, end - first) : qBlocks - first;
  auto [dkAcc, dvAcc] = p.forLoop(
      0, group * count, 1, {p.zeros({bm, dp}, f32), p.zeros({bm, dvp}, f32)},
      [&](Index i, Tile dkI, Tile dvI) -> Tiles<2> {
        Index h = hk * group + i / count, mq = first + i % count;
        Tile qTile = load(q, {b, h, mq, 0});
        Tile doTile = load(dout, {b, h, mq, 0});
        // The columns' LSE and D first: their loads' latency passes under
        // the MMAs (21 % faster than loading each where it is used).
        Tile lseCol = load(lsed, {b, h, mq});
        Tile deltaCol = load(deltad, {b, h, mq});
        // Each dot where its operands are ready. Measured on the H200
        // (bench/RESULTS.md, 2026-12-04): issuing dPᵀ with Sᵀ, and dV's MMA
        // before dSᵀ, keeps more values live (276 B of spills at head dim
        // 128 against 100) and is 4-13 % slower.
        Tile st = dot(kTile, trans(qTile), p.zeros({bm, bn}, f32));
        Tile t;
        if (options.softcap) {
          t = tanh(st * capUnit);
          st = t * capUnitInverse;
        }
        Index q0 = mq * bn;
        Bool needsMask =
            options.window
                ? q0 + bn > seqQ ||
                      (hasRight && n0 + (bm - 1) > q0 + shift + right) ||
                      (hasLeft && n0 < q0 + (bn - 1) + shift - left)
                : q0 + bn > seqQ || (causal && n0 + (bm - 1) > q0 + shift);
        // Key row r sees query column c when q0 + c < seqQ and, when
        // causal (or with a right bound), n0 + r <= q0 + c + shift + right;
        // with a left bound, n0 + r >= q0 + c + shift - left.
        st = p.ifElse(
            needsMask,
            [&] {
              Index lower =
                  options.window
                      ? select(hasRight, n0 - q0 - shift - right, -bm)
                      : select(causal, n0 - q0 - shift, -bm);
              Tile rows = p.iota({bm}, 0);
              Tile cols = p.iota({bm, bn}, 1);
              Tile valid = cols >= (rows + lower).col() && cols < seqQ - q0;
              if (options.window) {
                Index upper =
                    select(hasLeft, n0 - q0 - shift + left + 1, bn + bm);
                valid = valid && cols < (rows + upper).col();
              }
              return where(valid, st, -inf);
            },
            [&] { return st; });
        Tile lse2 = where(lseCol == -inf, inf, lseCol * kLog2e);
        Tile pt = exp2(st * scaleLog2 - lse2.row());
        Tile dpt = dot(vTile, trans(doTile), p.zeros({bm, bn}, f32));
        Tile dst = pt * (dpt - deltaCol.row());
        if (options.softcap)
          dst = dst * (1.0 - t * t);
        Tile ds = dst.to(type);
        Tile dkNext = dot(ds, qTile, dkI);
        Tile dvNext = dot(pt.to(type), doTile, dvI);
        // This block's part of dQ of the query block, dS · K, last: dK's
        // and dV's MMAs run while dS goes to shared memory, where the MMA
        // reads it transposed; the CTAs of the key blocks add their parts
        // (by TMA).
        if (withDq)
          atomicAdd(dqAccum, {b, h, mq, 0},
                    dot(trans(ds), kTile, p.zeros({bn, dp}, f32)));
        return {dkNext, dvNext};
      });
  store(dk, {b, hk, n, 0}, (dkAcc * scale).to(type));
  store(dvd, {b, hk, n, 0}, dvAcc.to(type));
  return p.finish();
}
} // namespace

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildAttentionBackwardDkDv(mlir::MLIRContext *context,
                                     const AttentionOptions &options) {
  return buildKeyBlockBackward(context, options, /*withDq=*/false);
}

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildAttentionBackward(mlir::MLIRContext *context,
                                 const AttentionOptions &options) {
  return buildKeyBlockBackward(context, options, /*withDq=*/true);
}

//===- AttentionBackward.cpp - the attention backward's programs ----------===//
//
// The backward of attention, written like a Triton kernel, in the programs
// FlashAttention's backward has: a preprocess over the rows of O and dO, the
// main kernel over the key blocks, a postprocess over dQ. This file holds
// the preprocess, D = rowsum(dO ∘ O), the term that dS = P ∘ (dP − D)
// subtracts per row (ALGORITHM.md), and the postprocess, dQ = scale · the
// f32 sum the main kernel's CTAs add dS · K into, in the element type
// (kernels without any MMA); the dQ program over query blocks and the
// programs over key blocks, dK and dV alone or with dQ's parts (the five
// products); each with the forward's options, packed sequences included.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

#include "Base2.h"
#include "HeadDims.h"
#include "KeyBlocks.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>
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

/// The widest padded head dim of Q, K and V.
static int64_t widestColumns(const AttentionOptions &options) {
  int64_t dv = options.headDimV ? options.headDimV : options.headDim;
  return padToRows(std::max(options.headDim, dv));
}

int64_t fa4::dsl::attentionBackwardBlockN(const AttentionOptions &options,
                                          BackwardProgram program) {
  int64_t columns = widestColumns(options);
  switch (program) {
  case BackwardProgram::Dq:
    return columns <= 128 ? 128 : columns <= 192 ? 64 : 32;
  case BackwardProgram::DkDv:
  case BackwardProgram::Fused:
    return columns <= 64 ? 128 : 64;
  case BackwardProgram::Dk:
  case BackwardProgram::Dv:
    return 64;
  }
  llvm_unreachable("a backward program");
}

int64_t
fa4::dsl::attentionBackwardConsumerWarpgroups(const AttentionOptions &options,
                                              BackwardProgram program) {
  int64_t columns = widestColumns(options);
  switch (program) {
  case BackwardProgram::Dq:
  case BackwardProgram::Dv:
    return 2;
  case BackwardProgram::DkDv:
  case BackwardProgram::Fused:
    // Two accumulators of the head dim: where KernelKey::backwardKernels
    // runs dK and dV apart, one warpgroup holds them (a plan may still ask
    // for the joint program there).
    return columns <= ::fa4::KernelKey::kMaxJointDkDvColumns ? 2 : 1;
  case BackwardProgram::Dk:
    return columns <= 192 ? 2 : 1;
  }
  llvm_unreachable("a backward program");
}

int64_t fa4::dsl::attentionBackwardKvStages(BackwardProgram program) {
  return program == BackwardProgram::Fused ? 2 : 0;
}

bool fa4::dsl::attentionBackwardPinDescriptors(
    const AttentionOptions &options) {
  return options.headDim >= 96;
}

bool fa4::dsl::attentionBackwardShortPointers(const AttentionOptions &options,
                                              BackwardProgram program) {
  return (program == BackwardProgram::Dq || program == BackwardProgram::DkDv) &&
         widestColumns(options) <= 64;
}

namespace {
/// What the dQ and the dK/dV programs share: Q and dO [B, H, Sq, D] (dO's
/// last dim Dv), K and V [B, Hkv, Sk, D] with H a multiple of Hkv, LSE and
/// D (delta) [B, H, Sq] f32, contiguous (the forward's layouts and the
/// preprocess's D); then, after each program's outputs, the sizes, the
/// forward's softmax scale and causality, and its sliding window and
/// softcap where the options have them. With packed sequences (`varlen`,
/// the forward's layouts again): Q and dO [H, Tq, D], K and V [Hkv, Tk, D],
/// LSE and D [H, Tq], sequence b's tokens cu_seqlens_q[b] ..
/// cu_seqlens_q[b + 1] - 1 (and _k's of K and V); the grid's x runs over
/// the blocks of the longest sequence (max_seqlen_q or _k, the caller's),
/// and a program past its sequence's end computes nothing.
struct BackwardArguments {
  bool varlen;
  Desc q, k, v, dout;
  Ptr lse, delta, cuSeqQ, cuSeqK;
  Index seqQ, seqK, batch, heads, kvHeads, group, totalQ;
  Scalar scale;
  Bool causal;
  Index windowLeft, windowRight;
  Scalar softcap;
  /// Packed sequences: the program's sequence's first query and key, and
  /// the end of its queries and keys (`locate`).
  Index qStart, kStart, qEnd, kEnd;

  /// Declares the inputs: Q and dO in blocks of `qRows`, K and V of
  /// `kRows`, their widths padded to `dp` and `dvp` columns; V and D unless
  /// `withoutVD` (dV alone reads neither).
  BackwardArguments(Program &p, const AttentionOptions &options, int64_t qRows,
                    int64_t kRows, int64_t dp, int64_t dvp,
                    bool withoutVD = false)
      : varlen(options.varlen) {
    const int64_t d = options.headDim;
    const int64_t dv = options.headDimV ? options.headDimV : d;
    const DType type = options.elementType;
    const Extent any = Extent::any();
    if (varlen) {
      q = p.desc("q", {1, qRows, dp}, type, {any, any, d});
      k = p.desc("k", {1, kRows, dp}, type, {any, any, d});
      if (!withoutVD)
        v = p.desc("v", {1, kRows, dvp}, type, {k.dim(0), k.dim(1), dv});
      dout = p.desc("do", {1, qRows, dvp}, type, {q.dim(0), q.dim(1), dv});
      lse = p.ptr("lse", f32, {q.dim(0), q.dim(1)});
      if (!withoutVD)
        delta = p.ptr("delta", f32, {q.dim(0), q.dim(1)});
      cuSeqQ = p.ptr("cu_seqlens_q", i32, {any});
      cuSeqK = p.ptr("cu_seqlens_k", i32, {cuSeqQ.dim(0)});
      return;
    }
    q = p.desc("q", {1, 1, qRows, dp}, type, {any, any, any, d});
    k = p.desc("k", {1, 1, kRows, dp}, type, {q.dim(0), any, any, d});
    if (!withoutVD)
      v = p.desc("v", {1, 1, kRows, dvp}, type,
                 {q.dim(0), k.dim(1), k.dim(2), dv});
    dout = p.desc("do", {1, 1, qRows, dvp}, type,
                  {q.dim(0), q.dim(1), q.dim(2), dv});
    lse = p.ptr("lse", f32, {q.dim(0), q.dim(1), q.dim(2)});
    if (!withoutVD)
      delta = p.ptr("delta", f32, {q.dim(0), q.dim(1), q.dim(2)});
  }

  /// The extents of a head's rows (Sq or Tq) and of its heads.
  Extent rowsExtent() const { return varlen ? q.dim(1) : q.dim(2); }
  Extent headsExtent() const { return varlen ? q.dim(0) : q.dim(1); }
  Extent kvHeadsExtent() const { return varlen ? k.dim(0) : k.dim(1); }

  /// An output of `rows` x `columns` per head like Q's (or, with `keys`,
  /// K's), in blocks of `blockRows` x `padded`: a descriptor, or with
  /// packed sequences a pointer whose strides the program reads (its
  /// stores stop at a sequence's end, which a tensor map's would not).
  struct Output {
    Desc desc;
    Ptr ptr;
    Index strideH, strideS;
  };
  Output output(Program &p, llvm::StringRef name, int64_t blockRows,
                int64_t padded, int64_t columns, bool keys, DType type) const {
    Output out;
    const Desc &like = keys ? k : q;
    if (!varlen) {
      out.desc = p.desc(name, {1, 1, blockRows, padded}, type,
                        {q.dim(0), like.dim(1), like.dim(2), columns});
      return out;
    }
    out.ptr = p.ptr(name, type, {like.dim(0), like.dim(1), columns});
    p.require(out.ptr.stride(2) == 1);
    p.require(out.ptr.stride(0) % 8 + out.ptr.stride(1) % 8 == 0);
    return out;
  }

  /// Declares the scalars, after the program's outputs; the outputs'
  /// strides with packed sequences.
  /// The program's rows are keys with `keys` (dK/dV), else queries.
  void
  declareScalars(Program &p, const AttentionOptions &options, bool keys,
                 llvm::ArrayRef<std::pair<const char *, Output *>> outputs) {
    if (varlen) {
      heads = p.index("heads", q.dim(0));
      if (keys)
        kvHeads = p.index("kv_heads", k.dim(0));
      group = p.index("group", q.dim(0) / k.dim(0));
      totalQ = p.index("total_q", q.dim(1));
      // Read by the grid's rule alone.
      p.index(longestName(keys));
      for (auto [name, out] : outputs) {
        out->strideH =
            p.index(std::string(name) + "_stride_h", out->ptr.stride(0));
        out->strideS =
            p.index(std::string(name) + "_stride_s", out->ptr.stride(1));
      }
    } else {
      seqQ = p.index("seq_q", q.dim(2));
      seqK = p.index("seq_k", k.dim(2));
      batch = p.index("batch", q.dim(0));
      heads = p.index("heads", q.dim(1));
      group = p.index("group", q.dim(1) / k.dim(1));
    }
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

  /// Packed sequences: the argument that gives the longest sequence's
  /// queries (or with `keys` keys), at least its length.
  static const char *longestName(bool keys) {
    return keys ? "max_seqlen_k" : "max_seqlen_q";
  }

  /// The grid: blocks of `rows` over Sq (or Sk with `keys`; with packed
  /// sequences, over the longest of them), the heads (or KV heads), the
  /// batch.
  void grid(Program &p, int64_t rows, bool keys) const {
    Extent longest = Extent::named(longestName(keys));
    Extent blocks =
        varlen ? cdiv(longest, rows) : cdiv(keys ? k.dim(2) : q.dim(2), rows);
    Extent batches = varlen ? cuSeqQ.dim(0) - 1 : (keys ? k : q).dim(0);
    p.grid({blocks, keys ? kvHeadsExtent() : headsExtent(), batches});
    p.require(headsExtent() % kvHeadsExtent() == 0);
  }

  /// Packed sequences: reads sequence `b`'s offsets and lengths.
  void locate(const Index &b) {
    if (!varlen)
      return;
    qStart = load(cuSeqQ, b);
    qEnd = load(cuSeqQ, b + 1);
    kStart = load(cuSeqK, b);
    kEnd = load(cuSeqK, b + 1);
    seqQ = qEnd - qStart;
    seqK = kEnd - kStart;
  }

  /// Block `block` of `rows` rows of `desc`'s head `h` of batch (or
  /// sequence) `b`: Q's and dO's rows, or with `keys` K's and V's.
  Tile loadBlock(const Desc &desc, const Index &b, const Index &h,
                 const Index &block, int64_t rows, bool keys) const {
    if (!varlen)
      return load(desc, {b, h, block, 0});
    return loadAt(desc, {h, (keys ? kStart : qStart) + block * rows, 0});
  }

  /// The row vector `ptr` (LSE or D) in blocks of `rows`, and its block
  /// `block` for head `h` of batch (or sequence) `b`.
  Desc rowVector(Program &p, const Ptr &ptr, int64_t rows) const {
    if (!varlen)
      return p.makeDesc(ptr, {batch, heads, seqQ}, {heads * seqQ, seqQ, 1},
                        {1, 1, rows});
    return p.makeDesc(ptr, {heads, qEnd}, {totalQ, 1}, {1, rows});
  }
  Tile loadRowVector(const Desc &desc, const Index &b, const Index &h,
                     const Index &block, int64_t rows) const {
    if (!varlen)
      return load(desc, {b, h, block});
    return loadAt(desc, {h, qStart + block * rows});
  }

  /// Stores `tile` as block `block` of `rows` rows of output `out` (Q's
  /// rows, or with `keys` K's) for head `h` of batch (or sequence) `b`.
  void storeBlock(Program &p, const Output &out, const Index &b, const Index &h,
                  const Index &block, int64_t rows, int64_t padded,
                  int64_t columns, bool keys, const Tile &tile) const {
    if (!varlen) {
      store(out.desc, {b, h, block, 0}, tile);
      return;
    }
    Desc rowsOut = p.makeDesc(
        out.ptr, {keys ? kvHeads : heads, keys ? kEnd : qEnd, columns},
        {out.strideH, out.strideS, 1}, {1, rows, padded});
    storeAt(rowsOut, {h, (keys ? kStart : qStart) + block * rows, 0}, tile);
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
  // dQ is [B, H, Sq, D] (packed: [H, Tq, D]), as Q.
  BackwardArguments args(p, options, bm, bn, dp, dvp);
  BackwardArguments::Output dq =
      args.output(p, "dq", bm, dp, d, /*keys=*/false, type);
  args.declareScalars(p, options, /*keys=*/false, {{"dq", &dq}});
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
  args.grid(p, bm, /*keys=*/false);

  // Program (x, h, b) computes dQ of query rows [m0, m0 + bm) of head h of
  // batch (or sequence) b, the longest causal rows first, over the key
  // blocks its rows see (those of the forward): dQ = scale · Σ_j dS_j · K_j
  // with P = exp2(S · scale · log2 e − LSE · log2 e), dS = P ∘ (dO · Vᵀ −
  // D).
  Index m = p.numPrograms(0) - 1 - p.programId(0);
  Index h = p.programId(1), b = p.programId(2), hk = h / args.group;
  args.locate(b);
  Index seqQ = args.seqQ, seqK = args.seqK;
  Index m0 = m * bm, diagonal = m0 + (seqK - seqQ);
  Tile qTile = args.loadBlock(args.q, b, h, m, bm, /*keys=*/false);
  Tile doTile = args.loadBlock(args.dout, b, h, m, bm, /*keys=*/false);
  Desc lsed = args.rowVector(p, args.lse, bm);
  Desc deltad = args.rowVector(p, args.delta, bm);
  // A row that sees no key has an LSE of -inf: +inf makes its P zero.
  Tile lseRow = args.loadRowVector(lsed, b, h, m, bm);
  Tile lse2 = where(lseRow == -inf, inf, lseRow * kLog2e);
  Tile deltaRow = args.loadRowVector(deltad, b, h, m, bm);
  // The key blocks the forward visits for these rows (KeyBlocks.h); past
  // the end of its sequence a program visits none.
  KeyBlocks keys(p, bm, bn, seqK, diagonal, causal, options.window,
                 windowLeft, windowRight);
  if (options.varlen)
    keys.end = select(m0 < seqQ, keys.end, 0);
  auto [acc] = p.forLoop(
      keys.start(), keys.end, 1,
      {p.zeros({bm, dp}, f32)},
      [&](Index j, Tile acc) -> Tiles<1> {
        // S and dP first, one after the other: dP's MMA runs while P is
        // computed (measured on the H200, bench/RESULTS.md, 2026-12-04: 10 %
        // faster at head dim 128, 2 % slower at 64).
        Tile kTile = args.loadBlock(args.k, b, hk, j, bn, /*keys=*/true);
        Tile s = dot(qTile, trans(kTile), p.zeros({bm, bn}, f32));
        Tile vTile = args.loadBlock(args.v, b, hk, j, bn, /*keys=*/true);
        Tile dpr = dot(doTile, trans(vTile), p.zeros({bm, bn}, f32));
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
  args.storeBlock(p, dq, b, h, m, bm, dp, d, /*keys=*/false,
                  (acc * scale).to(type));
  return p.finish();
}

namespace {
/// The program of a CTA per key block (`program` one of DkDv, Fused, Dk
/// and Dv): its key rows' dK, dV or both, and when Fused the parts of dQ
/// its keys give, added into an f32 sum across CTAs.
mlir::OwningOpRef<mlir::ModuleOp>
buildKeyBlockBackward(mlir::MLIRContext *context,
                      const AttentionOptions &options,
                      BackwardProgram program) {
  const int64_t d = options.headDim;
  const int64_t dv = options.headDimV ? options.headDimV : d;
  const int64_t dp = paddedHeadDim(context, "attention backward: ", "head dim", d);
  const int64_t dvp = paddedHeadDim(context, "attention backward: ", "head dim of V", dv);
  if (!dp || !dvp)
    return nullptr;
  assert(program != BackwardProgram::Dq && "dQ has a program of its own");
  const bool withDq = program == BackwardProgram::Fused;
  const bool withDk = program != BackwardProgram::Dv;
  const bool withDv = program != BackwardProgram::Dk;
  if (withDq && options.varlen) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "attention backward: the five products take no packed sequences "
           "yet (their dQ sum is [B, H, Sq, D']); run dQ by its own program";
    return nullptr;
  }
  // The program's rows are keys (bm of them, 64 per consumer warpgroup);
  // its loop visits blocks of bn query rows.
  const int64_t bm = options.blockM, bn = options.blockN;
  const DType type = options.elementType;
  const double inf = std::numeric_limits<double>::infinity();
  const char *name = withDq    ? "attention_bwd"
                     : !withDv ? "attention_bwd_dk"
                     : !withDk ? "attention_bwd_dv"
                               : "attention_bwd_dkdv";
  Program p(context, name);
  // dK and dV are [B, Hkv, Sk, D] (Dv), as K and V (packed: [Hkv, Tk, D]);
  // dQaccum [B, H, Sq, D'] f32 (D' the head dim padded to 64 columns),
  // contiguous, as the postprocess reads it.
  BackwardArguments args(p, options, bn, bm, dp, dvp, /*withoutVD=*/!withDk);
  std::vector<std::pair<const char *, BackwardArguments::Output *>> written;
  BackwardArguments::Output dk, dvOut;
  if (withDk) {
    dk = args.output(p, "dk", bm, dp, d, /*keys=*/true, type);
    written.push_back({"dk", &dk});
  }
  if (withDv) {
    dvOut = args.output(p, "dv", bm, dvp, dv, /*keys=*/true, type);
    written.push_back({"dv", &dvOut});
  }
  Desc dqAccum;
  if (withDq)
    dqAccum = p.desc("dq_accum", {1, 1, bn, dp}, f32,
                     {args.q.dim(0), args.q.dim(1), args.q.dim(2), dp});
  args.declareScalars(p, options, /*keys=*/true, written);
  Index group = args.group;
  Index windowLeft = args.windowLeft, windowRight = args.windowRight;
  Scalar scale = args.scale, softcap = args.softcap;
  Bool causal = args.causal;
  args.grid(p, bm, /*keys=*/true);

  // Program (x, hk, b) computes dK and dV (or one of them) of key rows
  // [n0, n0 + bm) of KV head hk of batch (or sequence) b, summed over the
  // query heads of its group and the query blocks that see its keys, in
  // one loop (no sum across programs): Sᵀ = K · Qᵀ, Pᵀ = exp2(Sᵀ · scale ·
  // log2 e − LSE · log2 e) with the LSE of each column's query, dV += Pᵀ ·
  // dO, dSᵀ = Pᵀ ∘ (V · dOᵀ − D), dK += dSᵀ · Q, dK = scale · dK at the
  // end. dV alone needs neither V nor D.
  Index n = p.programId(0), hk = p.programId(1), b = p.programId(2);
  args.locate(b);
  Index seqQ = args.seqQ, seqK = args.seqK;
  Index n0 = n * bm, shift = seqK - seqQ;
  Tile kTile = args.loadBlock(args.k, b, hk, n, bm, /*keys=*/true);
  Tile vTile;
  if (withDk)
    vTile = args.loadBlock(args.v, b, hk, n, bm, /*keys=*/true);
  Desc lsed = args.rowVector(p, args.lse, bn);
  Desc deltad;
  if (withDk)
    deltad = args.rowVector(p, args.delta, bn);
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
  // Past the end of its sequence's keys a program visits no query block.
  if (options.varlen)
    count = select(n0 < seqK, count, 0);
  // A step: query block first + i of the group's head j, its parts of dK
  // and dV (those the program computes) added to dkI and dvI.
  auto step = [&](Index j, Index i, Tile dkI,
                  Tile dvI) -> std::pair<Tile, Tile> {
    Index h = hk * group + j, mq = first + i;
    Tile qTile = args.loadBlock(args.q, b, h, mq, bn, /*keys=*/false);
    Tile doTile = args.loadBlock(args.dout, b, h, mq, bn, /*keys=*/false);
    // The columns' LSE and D first: their loads' latency passes under
    // the MMAs (21 % faster than loading each where it is used).
    Tile lseCol = args.loadRowVector(lsed, b, h, mq, bn);
    Tile deltaCol;
    if (withDk)
      deltaCol = args.loadRowVector(deltad, b, h, mq, bn);
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
    st =
        p.ifElse(
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
    Tile ds, dkNext, dvNext;
    if (withDk) {
      // dPᵀ − D as one MMA started from −D in each column: D's broadcast
      // is written into the accumulator's registers, not held beside Pᵀ
      // and dPᵀ (dK/dV's spills at head dim 64 112 -> 0 B, 6-9 % faster;
      // the same for the LSE and Sᵀ, whose MMA then waits for the LSE's
      // load, is 4-12 % slower: bench/RESULTS.md, 2026-12-06).
      Tile dptd = dot(vTile, trans(doTile), broadcast(-deltaCol, 0, {bm, bn}));
      Tile dst = pt * dptd;
      if (options.softcap)
        dst = dst * (1.0 - t * t);
      ds = dst.to(type);
      if (!withDq)
        dkNext = dot(ds, qTile, dkI);
    }
    if (withDv)
      dvNext = dot(pt.to(type), doTile, dvI);
    // This block's part of dQ of the query block, dS · K, with dS staged
    // through shared memory, where the MMA reads it transposed; the CTAs
    // of the key blocks add their parts (by TMA). FlashAttention-3's
    // order: dV's MMA runs while dS is staged, and dK's (issued after the
    // staging, which reads the registers it takes dS from) while dQ is
    // stored.
    if (withDq) {
      Tile dq = dot(trans(ds), kTile, p.zeros({bn, dp}, f32));
      dkNext = dot(ds, qTile, dkI);
      atomicAdd(dqAccum, {b, h, mq, 0}, dq);
    }
    return {dkNext, dvNext};
  };
  // The group's heads, each over its query blocks: a loop in a loop, so
  // that a step finds its head and query block without dividing one
  // loop's index (a 64-bit division on the way to the step's loads),
  // carrying the accumulators this program keeps: dK's, dV's or both.
  llvm::SmallVector<Tile> zeros;
  if (withDk)
    zeros.push_back(p.zeros({bm, dp}, f32));
  if (withDv)
    zeros.push_back(p.zeros({bm, dvp}, f32));
  llvm::SmallVector<Tile> accs = p.forLoop(
      0, group, 1, zeros, [&](const Index &j, llvm::ArrayRef<Tile> accsJ) {
        return p.forLoop(0, count, 1, accsJ,
                         [&](const Index &i, llvm::ArrayRef<Tile> accsI) {
                           auto [dkNext, dvNext] =
                               step(j, i, withDk ? accsI.front() : Tile(),
                                    withDv ? accsI.back() : Tile());
                           llvm::SmallVector<Tile> next;
                           if (withDk)
                             next.push_back(dkNext);
                           if (withDv)
                             next.push_back(dvNext);
                           return next;
                         });
      });
  Tile dkAcc = withDk ? accs.front() : Tile();
  Tile dvAcc = withDv ? accs.back() : Tile();
  if (withDk)
    args.storeBlock(p, dk, b, hk, n, bm, dp, d, /*keys=*/true,
                    (dkAcc * scale).to(type));
  if (withDv)
    args.storeBlock(p, dvOut, b, hk, n, bm, dvp, dv, /*keys=*/true,
                    dvAcc.to(type));
  return p.finish();
}
} // namespace

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildAttentionBackwardProgram(mlir::MLIRContext *context,
                                        const AttentionOptions &options,
                                        BackwardProgram program) {
  if (program == BackwardProgram::Dq)
    return buildAttentionBackwardDq(context, options);
  return buildKeyBlockBackward(context, options, program);
}

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

using namespace fa4::dsl;

/// Columns of 16-bit elements in one 128-byte row: the tiles' widths are
/// whole multiples of it.
static constexpr int64_t kRowColumns = 64;

/// `dim` padded to whole 128-byte rows, or 0 with an error when it is not
/// a head dim attention has (a multiple of 16 in [32, 256]).
static int64_t paddedHeadDim(mlir::MLIRContext *context, const char *what,
                             int64_t dim) {
  if (dim < 32 || dim > 256 || dim % 16 != 0) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "attention backward: " << what << " " << dim
        << " is not a multiple of 16 in [32, 256]";
    return 0;
  }
  return (dim + kRowColumns - 1) / kRowColumns * kRowColumns;
}

mlir::OwningOpRef<mlir::ModuleOp> fa4::dsl::buildAttentionBackwardPreprocess(
    mlir::MLIRContext *context, const AttentionOptions &options) {
  int64_t dv = options.headDimV ? options.headDimV : options.headDim;
  const int64_t dvp = paddedHeadDim(context, "head dim of V", dv);
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
  const int64_t dp = paddedHeadDim(context, "head dim", d);
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


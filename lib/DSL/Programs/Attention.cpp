//===- Attention.cpp - forward attention in the DSL -----------------------===//
//
// Forward attention written like a Triton kernel: the algorithm of
// test/Programs/Kernels/generate-attention.py's hand-scheduled kernels (online
// softmax in base 2, masks only on the key blocks that need them, zeros and an
// LSE of -inf for rows that see no key) at the tile level, for fa4's passes to
// schedule.
//
// What each variant costs the program: grouped-query attention 3 lines (the
// group as a rule, the KV head h / group, the K and V coordinates); any
// layout of Q, K, V and O no line at all (Q, K and V are read and O is
// written through tensor maps, which take the strides); the sliding window
// 14 lines (its two sizes, the effective right bound, the first and last
// blocks, the window edges in the mask); the logit softcap 4 lines; packed
// sequences of variable lengths about 45 (their tensors and launch rules,
// reading a block's sequence and offsets, loads and stores at element
// offsets, O written through its strides (a tensor map would write past a
// sequence's end), no block past a sequence's end). The passes know none of
// them (a tanh is one more elementwise op, an offset one more scalar load).
// The window and packed-sequence kernels' plans take their tiles as their
// CTAs come free (a dynamic schedule, fa4-persistent): the program says
// only how many heads to run together (`gridGroup`, 2 lines).
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

#include "Base2.h"
#include "HeadDims.h"
#include "KeyBlocks.h"
#include "OnlineSoftmax.h"

#include <limits>
#include <optional>
#include <tuple>
#include <utility>

using namespace fa4::dsl;

/// The L2 share (of the H200's 50 MiB) a dynamically scheduled attention
/// gives the K and V of the heads it runs together (grid group): 8 heads at
/// S = 4096, d128, as many as the static order has running. Measured on the
/// H200 (bench/RESULTS.md, 2026-12-03, dynamic schedule, d128, H = 16): 32
/// MiB 8 % behind 16 and 8 at S = 4096 without a mask (592 against 643 and
/// 646 TFLOP/s); 16, 8 and one head at a time within 2 % elsewhere.
static constexpr int64_t kGroupL2Bytes = 16 << 20;

/// The algorithm, for head dims `d` (Q and K) and `dv` (V) and one element
/// type. The tiles are `dp` and `dvp` columns wide, the head dims padded to
/// whole 128-byte rows: loads read zeros past a head dim (they add nothing
/// to Q·Kᵀ and give zero columns of O) and stores write only its columns.
static mlir::OwningOpRef<mlir::ModuleOp>
writeAttention(mlir::MLIRContext *context, int64_t d, int64_t dv, DType type,
               int64_t bm, int64_t bn, bool window, bool softcap, bool varlen,
               bool conditionalRescale, const AttentionMods &mods) {
  const int64_t dp = padToRows(d), dvp = padToRows(dv);
  const double inf = std::numeric_limits<double>::infinity();
  // The growth of a row's max (log2 units) below which its running max,
  // and with it O's scale, stays as it is: P <= 2^8 in bf16 and f32 loses
  // nothing, and after the first blocks O is rarely rescaled.
  const double rescaleGrowth = 8.0;
  Program p(context, "attention");
  const Extent any = Extent::any();
  Desc q, k, v, od;
  Ptr o, lse, cuSeqQ, cuSeqK, tiles;
  Index seqQ, seqK, batch, heads, group, oStrideH, oStrideS, totalQ;
  if (!varlen) {
    // Q and O are [B, H, Sq, D], K and V [B, Hkv, Sk, D] with H a multiple
    // of Hkv (grouped-query attention: query head h reads KV head
    // h / (H / Hkv)), LSE [B, H, Sq]. Q, K and V are read and O written
    // through tensor maps, so any layout whose last dimension is contiguous
    // works, (B, H, S, D) and (B, S, H, D) alike; LSE is contiguous. The
    // launch takes every size from them and runs one program per bm query
    // rows (128, or 192 for three consumer warpgroups) of each head of each
    // batch.
    q = p.desc("q", {1, 1, bm, dp}, type, {any, any, any, d});
    k = p.desc("k", {1, 1, bn, dp}, type, {q.dim(0), any, any, d});
    v = p.desc("v", {1, 1, bn, dvp}, type, {q.dim(0), k.dim(1), k.dim(2), dv});
    od = p.desc("o", {1, 1, bm, dvp}, type,
                {q.dim(0), q.dim(1), q.dim(2), dv});
    lse = p.ptr("lse", f32, {q.dim(0), q.dim(1), q.dim(2)});
    seqQ = p.index("seq_q", q.dim(2));
    seqK = p.index("seq_k", k.dim(2));
    batch = p.index("batch", q.dim(0));
    heads = p.index("heads", q.dim(1));
    group = p.index("group", q.dim(1) / k.dim(1));
  } else {
    // Packed sequences of variable lengths, in a kernel of its own: Q and O
    // are [H, Tq, D], K and V [Hkv, Tk, D] (any strides with contiguous
    // rows: FlashAttention's (T, H, D) is such a view), sequence b holding
    // the tokens cu_seqlens_q[b] .. cu_seqlens_q[b + 1] - 1 (and _k of K
    // and V; both i32 [B + 1]), LSE [H, Tq]. The caller lists the query
    // blocks to compute, `tiles` [N, 2] of (sequence, block), in the order
    // they should start (the longest sequences first): the grid is one
    // program per listed block and head, and no program is left without
    // work, however unequal the lengths.
    q = p.desc("q", {1, bm, dp}, type, {any, any, d});
    k = p.desc("k", {1, bn, dp}, type, {any, any, d});
    v = p.desc("v", {1, bn, dvp}, type, {k.dim(0), k.dim(1), dv});
    o = p.ptr("o", type, {q.dim(0), q.dim(1), dv});
    lse = p.ptr("lse", f32, {q.dim(0), q.dim(1)});
    cuSeqQ = p.ptr("cu_seqlens_q", i32, {any});
    cuSeqK = p.ptr("cu_seqlens_k", i32, {cuSeqQ.dim(0)});
    tiles = p.ptr("tiles", i32, {any, 2});
    heads = p.index("heads", q.dim(0));
    group = p.index("group", q.dim(0) / k.dim(0));
    totalQ = p.index("total_q", q.dim(1));
    oStrideH = p.index("o_stride_h", o.stride(0));
    oStrideS = p.index("o_stride_s", o.stride(1));
  }
  Scalar scaleLog2 = p.f32("scale_log2");
  Bool causal = p.i32("causal") != 0;
  // The sliding window (FlashAttention's window_size), in a kernel of its
  // own: row i sees the keys from i + seqK - seqQ - left to
  // i + seqK - seqQ + right, -1 for no bound; causal makes the right bound 0.
  Index windowLeft, windowRight;
  if (window) {
    windowLeft = p.index("window_left");
    windowRight = p.index("window_right");
  }
  // The logit softcap (Gemma 2's), in a kernel of its own: the scaled score
  // x becomes cap · tanh(x / cap). In the units of s (x = s · scale) that is
  // tanh(s · u) · (1 / u) with u = scale / cap = scaleLog2 / (cap · log2 e):
  // a multiply each way, no division per score.
  Scalar capUnit, capUnitInverse;
  if (softcap) {
    Scalar capLog2e = p.f32("softcap") * kLog2e;
    capUnit = scaleLog2 / capLog2e;
    capUnitInverse = capLog2e / scaleLog2;
  }
  // The tensors the author's mods read.
  if (mods.arguments)
    mods.arguments(p);
  if (!varlen) {
    p.grid({cdiv(q.dim(2), bm), q.dim(1), q.dim(0)});
    // A dynamic schedule runs the query blocks of as many heads together
    // as keep their K and V (D columns of 2 bytes each) within
    // kGroupL2Bytes of L2: the longest blocks of several heads start first
    // and the short ones end the kernel, and the heads' K and V are read
    // from memory about once.
    p.gridGroup(max(1, kGroupL2Bytes / (k.dim(2) * (2 * (d + dv)))) *
                (q.dim(1) / k.dim(1)));
    p.require(q.dim(1) % k.dim(1) == 0);
  } else {
    p.grid({tiles.dim(0), q.dim(0)});
    p.require(q.dim(0) % k.dim(0) == 0);
    p.require(o.stride(2) == 1);
    p.require(o.stride(0) % 8 + o.stride(1) % 8 == 0);
  }

  // Program (x, h, b) computes query rows [m0, m0 + bm) of head h of batch
  // b (a grid dimension each: no division), the last block first (with a
  // causal mask the blocks with the most keys start first, the short ones
  // fill the tail); row i's window of keys is centred on its diagonal key
  // i + seqK - seqQ, row m0's on `diagonal`. Program (x, h) of packed
  // sequences computes the block `tiles` lists x-th; the sequence's rows and
  // keys start at its offsets, and its lengths are the kernel's.
  Index m, b;
  if (!varlen) {
    m = p.numPrograms(0) - 1 - p.programId(0);
    b = p.programId(2);
  } else {
    Index listed = 2 * p.programId(0);
    b = load(tiles, listed);
    m = load(tiles, listed + 1);
  }
  Index h = p.programId(1), hk = h / group;
  Index qStart, qEnd, kStart;
  Index m0 = m * bm;
  if (varlen) {
    qStart = load(cuSeqQ, b);
    qEnd = load(cuSeqQ, b + 1);
    kStart = load(cuSeqK, b);
    seqQ = qEnd - qStart;
    seqK = load(cuSeqK, b + 1) - kStart;
  }
  Index diagonal = m0 + (seqK - seqQ);
  auto loadKV = [&](const Desc &kv, const Index &j) {
    return varlen ? loadAt(kv, {hk, kStart + j * bn, 0})
                  : load(kv, {b, hk, j, 0});
  };
  Tile qTile = varlen ? loadAt(q, {h, qStart + m0, 0}) : load(q, {b, h, m, 0});

  // The key blocks to visit (KeyBlocks.h); past the end of its sequence a
  // program visits none.
  KeyBlocks keys(p, bm, bn, seqK, diagonal, causal, window, windowLeft,
                 windowRight);
  if (varlen)
    keys.end = select(m0 < seqQ, keys.end, 0);
  // An author's key range narrows them to the blocks that hold its keys.
  IndexArg firstBlock = keys.start();
  if (mods.keys) {
    auto [first, end] = mods.keys(b, h, m0, min(m0 + bm, seqQ));
    firstBlock = max(max(0, first) / bn, firstBlock);
    keys.end = min(keys.end, ceilDiv(max(0, end), bn));
  }
  // The keys every row of the block sees by the mask mod: the key blocks
  // wholly among them skip it.
  Index fullFirst, fullEnd;
  if (mods.mask && mods.fullKeys)
    std::tie(fullFirst, fullEnd) = mods.fullKeys(b, h, m0, min(m0 + bm, seqQ));

  // With a score mod, the scores in the softmax's units (q · k · scale)
  // for it, and log2 e to log2 units after; a mask mod alone reads
  // positions only, and the scores keep the one multiply into log2 units
  // that the softmax step fuses.
  // A bias starts the score MMA, in its units (divided by the scale); after
  // a softcap it is added in the softmax's.
  const bool biasInMma = mods.bias && !softcap;
  const bool softmaxUnits = mods.score || (mods.bias && softcap);
  Scalar scale, scaleInverse;
  if (softmaxUnits)
    scale = scaleLog2 * (1.0 / kLog2e);
  if (biasInMma)
    scaleInverse = kLog2e / scaleLog2;

  // Online softmax in base 2 over the key blocks: the running row max (in
  // log2 units), the running row sum, and the unnormalized output.
  auto [mF, lF, accF] = p.forLoop(
      firstBlock, keys.end, 1,
      {p.full({bm}, -inf, f32), p.zeros({bm}, f32), p.zeros({bm, dvp}, f32)},
      [&](Index j, Tile mI, Tile lI, Tile acc) -> Tiles<3> {
        // The author's mods see each score's query and key position, made
        // where first needed.
        std::optional<AttentionScoreIndices> at;
        auto indices = [&]() -> const AttentionScoreIndices & {
          if (!at)
            at = AttentionScoreIndices{b,
                                       h,
                                       p.iota({bm, bn}, 0) + m0,
                                       p.iota({bm, bn}, 1) + j * bn,
                                       m0,
                                       j * bn};
          return *at;
        };
        Tile s = dot(qTile, trans(loadKV(k, j)),
                     biasInMma ? mods.bias(indices()) * scaleInverse
                               : p.zeros({bm, bn}, f32));
        if (softcap)
          s = tanh(s * capUnit) * capUnitInverse;
        if (mods.bias || mods.score || mods.mask) {
          if (softmaxUnits)
            s = s * scale;
          // Built here at the latest, so that a mask's branch uses them
          // and does not build its own.
          indices();
          if (mods.bias && !biasInMma)
            s = s + mods.bias(indices());
          if (mods.score)
            s = mods.score(s, indices());
          if (mods.mask) {
            auto masked = [&] { return where(mods.mask(indices()), s, -inf); };
            s = mods.fullKeys
                    ? p.ifElse(j * bn < fullFirst || j * bn + bn > fullEnd,
                               masked, [&] { return s; })
                    : masked();
          }
        }
        // Mask keys past seqK, above the diagonal when causal and outside
        // the window, only in the blocks that reach past one of them.
        s = keys.mask(j, s);
        // The online softmax step (OnlineSoftmax.h), with FA4's
        // conditional rescaling where measured best.
        auto loadV = [&] { return loadKV(v, j); };
        return softmaxUnits
                   ? onlineSoftmaxStep(s, kLog2e, mI, lI, acc, type, loadV,
                                       conditionalRescale, rescaleGrowth)
                   : onlineSoftmaxStep(s, scaleLog2, mI, lI, acc, type, loadV,
                                       conditionalRescale, rescaleGrowth);
      });

  // O = acc / l, zeros for rows that saw no key; LSE = ln 2 (m + log2 l),
  // -inf for those rows. One division per row and a multiply per element:
  // an f32 division is a dozen instructions with its slow path, and a
  // thread holds 2 rows of 64 (or 128) elements.
  Tile lSafe = where(lF == 0.0, 1.0, lF);
  Tile lInverse = 1.0 / lSafe;
  if (!varlen) {
    store(od, {b, h, m, 0}, (accF * lInverse.col()).to(type));
    Desc lsed = p.makeDesc(lse, {batch, heads, seqQ},
                           {heads * seqQ, seqQ, 1}, {1, 1, bm});
    store(lsed, {b, h, m}, (mF + log2(lSafe)) * kLn2);
  } else {
    // The rows of the sequence only: its end is the edge of both.
    Desc od = p.makeDesc(o, {heads, qEnd, dv}, {oStrideH, oStrideS, 1},
                         {1, bm, dvp});
    storeAt(od, {h, qStart + m0, 0}, (accF * lInverse.col()).to(type));
    Desc lsed = p.makeDesc(lse, {heads, qEnd}, {totalQ, 1}, {1, bm});
    storeAt(lsed, {h, qStart + m0}, (mF + log2(lSafe)) * kLn2);
  }
  return p.finish();
}

/// Conditional rescaling from head dim 128 on, measured on the H200
/// (bench/RESULTS.md, 2026-12-02, bf16, H = 16, B * S = 16384, S 1024 ...
/// 16384, with fa4-distribute-register-tiles skipping the multiplies of
/// the warps whose factors are all 1): head dim 256 +2 to +10 % (geomean
/// 0.95 -> 0.99 of cuDNN); head dim 128 level in 60-launch runs
/// (instructions -10 %, cycles +1.6 % at the boost clock) and +0.9 to
/// +1.8 % in 600-launch ones, where the 700 W cap holds the clock near
/// 1700 MHz and the fewer instructions cost less of it; head dim 64 -6 to
/// -13 % (its 64 columns of O are too few to pay for the vote).
bool fa4::dsl::attentionConditionalRescale(const AttentionOptions &options) {
  return padToRows(options.headDimV ? options.headDimV : options.headDim) >=
         128;
}

/// Two consumer warpgroups (128-row CTAs) at every head dim. Three (192
/// rows, 160 registers a thread, 92 B of spills) at head dim 64, measured on
/// the H200 (bench/RESULTS.md, 2026-12-02, bf16, H = 16, B * S = 16384):
/// 4-11 % behind two without a mask (the least at S = 16384) and 10-31 %
/// with a causal mask (S = 1024: 242 against 350 TFLOP/s).
int64_t fa4::dsl::attentionConsumerWarpgroups(const AttentionOptions &) {
  return 2;
}

/// Persistent at head dims 64 and 128, measured on the H200 (bench/RESULTS.md,
/// 2026-12-02, bf16, H = 16, B * S = 16384): with the folded order, two Q
/// stages and uniform pipeline states it is ahead of the one-tile kernel at
/// S <= 4096 (head dim 128: +15 % and +23 % causal at S = 1024, +3 % and
/// +10 % at 4096; head dim 64: +20 % and +31 % at 1024), level at longer
/// sequences (-9 % to +8 % between runs of the same kernels). At head dim
/// 256 (one Q stage: two do not fit) it is 5-14 % behind: not persistent.
/// Other head dims follow their tiles' width: persistent up to 128 columns.
bool fa4::dsl::attentionPersistent(const AttentionOptions &options) {
  return padToRows(options.headDim) <= 128 &&
         padToRows(options.headDimV ? options.headDimV : options.headDim) <=
             128;
}

bool fa4::dsl::attentionPinDescriptors(const AttentionOptions &options,
                                       int64_t blockN) {
  return padToRows(options.headDim) > 192 && blockN != 64;
}

/// A dynamic schedule for the kernels whose tiles carry uneven work that
/// no static order balances: sliding windows (a head's first query blocks
/// see fewer keys) and packed sequences. Measured on the H200
/// (bench/RESULTS.md, 2026-12-03, d128, H = 16): a window of 4096 keys at
/// S = 16384 564 -> 619 TFLOP/s, packed causal 472 -> 495 (non-causal 562
/// -> 538); plain attention 4-10 % slower at every shape (d128 S = 4096:
/// 684 -> 646, d64: 494 -> 450), where the folded static order already
/// balances causal blocks.
bool fa4::dsl::attentionDynamicSchedule(const AttentionOptions &options) {
  return options.window || options.varlen;
}

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildAttention(mlir::MLIRContext *context,
                         const AttentionOptions &options) {
  int64_t dv = options.headDimV ? options.headDimV : options.headDim;
  for (auto [what, dim] :
       {std::pair{"head dim", options.headDim}, std::pair{"head dim of V", dv}})
    if (!paddedHeadDim(context, "attention ", what, dim))
      return {};
  if (options.elementType != bf16 && options.elementType != f16) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "attention takes bf16 or f16 inputs";
    return {};
  }
  int64_t bn = options.blockN;
  if (bn < 16 || bn > 256 || bn % 16 != 0) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "attention key block of " << bn
        << " rows is not a multiple of 16 in [16, 256]";
    return {};
  }
  if (options.blockM != 128 && options.blockM != 192) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "attention query block of " << options.blockM
        << " rows is not 128 or 192 (two or three consumer warpgroups of 64)";
    return {};
  }
  if (options.varlen && options.blockM != 128) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "attention of packed sequences takes query blocks of 128 rows, "
           "the blocks of the runner's tile list, not "
        << options.blockM;
    return {};
  }
  return writeAttention(
      context, options.headDim, dv, options.elementType, options.blockM, bn,
      options.window, options.softcap, options.varlen,
      options.conditionalRescale.value_or(attentionConditionalRescale(options)),
      options.mods);
}

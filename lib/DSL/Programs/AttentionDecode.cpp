//===- AttentionDecode.cpp - attention over a KV cache, split over keys ---===//
//
// Decode written like a Triton kernel: a few query tokens per sequence
// against a long KV cache, in two programs. The main one packs the query
// heads of a KV group as the rows of one tile, so that one read of K and V
// serves the whole group, and splits each sequence's key blocks over
// several programs (FlashDecoding), so that a small batch fills the GPU;
// each program writes its part's O, normalized, and its LSE in f32. The
// combine program merges the parts of a row by their LSEs (ALGORITHM.md's
// merge) into O in the element type and the LSE. The key loop is the
// forward's online softmax; decode is memory-bound, so the rows of a tile
// that hold no query cost nothing that counts.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

#include "Base2.h"
#include "HeadDims.h"
#include "OnlineSoftmax.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace fa4::dsl;

/// The columns of O one combine program merges (128 bytes of its f32
/// parts), O stored through pointers. A program's loop is a chain of its
/// parts' loads and merges; narrow programs split the chain's work over
/// more SMs (measured on the H200, 2026-12-04: 0.8 us a part with the whole
/// head dim of 128 in one program, 0.45 with 64 columns, 0.3 with 64
/// columns of 64 rows; on an H100, 2026-12-06, a call at B = 1 and 4096
/// keys 10.9 us with 64 columns (O stored by TMA), 9.8 with 32; more
/// stages of the parts bought nothing).
static constexpr int64_t kCombineColumns = 32;

/// The columns of the LSE parts' rows (the most parts).
static constexpr int64_t kMaxParts = fa4::KernelKey::kDecodeMaxSplits;

int64_t fa4::dsl::attentionDecodeKvStages(int64_t blockN) {
  return blockN < 128 ? std::min<int64_t>(8, 256 / blockN) : 0;
}

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildAttentionDecode(mlir::MLIRContext *context,
                               const AttentionOptions &options) {
  const int64_t d = options.headDim;
  const int64_t dv = options.headDimV ? options.headDimV : d;
  const int64_t dp = paddedHeadDim(context, "attention decode: ", "head dim", d);
  const int64_t dvp = paddedHeadDim(context, "attention decode: ", "head dim of V", dv);
  if (!dp || !dvp)
    return nullptr;
  const int64_t bm = options.blockM, bn = options.blockN;
  const DType type = options.elementType;
  const double inf = std::numeric_limits<double>::infinity();
  const Extent any = Extent::any();
  Program p(context, "attention_decode");
  // Q is [B, Hkv, R, D]: row r of KV head hk is query token r % Sq of query
  // head hk · G + r / Sq (R = G · Sq, a (B, H, Sq, D) tensor viewed so);
  // the K and V caches are [B, Hkv, Smax, D] (any strides with contiguous
  // rows: (B, Smax, Hkv, D) memory is such a view), batch b's first
  // cache_seqlens[b] keys in use. The parts are [P · B, Hkv, R, Dv'] f32 (Dv'
  // the head dim of V padded to 64 columns, part p of batch b at p · B + b)
  // and [B · Hkv · R, 64] f32, contiguous.
  Desc q = p.desc("q", {1, 1, bm, dp}, type, {any, any, any, d});
  // A paged cache is [pages, Hkv, page_size, D] ((pages, page_size, Hkv,
  // D) memory viewed so), key j of batch b in page block_table[b, j /
  // page_size] at row j % page_size, page_size a multiple of pageRows: a
  // key block is gathered from the pages it spans in runs of `run` keys
  // (one TMA copy each; one run when a page holds whole blocks).
  const bool paged = options.pageRows != 0;
  const int64_t run = paged ? std::gcd(options.pageRows, bn) : bn;
  Desc k = p.desc("k", {1, 1, run, dp}, type,
                  {paged ? any : q.dim(0), q.dim(1), any, d});
  Desc v =
      p.desc("v", {1, 1, run, dvp}, type, {k.dim(0), q.dim(1), k.dim(2), dv});
  Ptr cacheSeqlens = p.ptr("cache_seqlens", i32, {q.dim(0)});
  Ptr blockTable;
  if (paged)
    blockTable = p.ptr("block_table", i32, {q.dim(0), any});
  Ptr oPart = p.ptr("o_partial", f32, {any, q.dim(1), q.dim(2), dvp});
  // The LSEs of a row's parts side by side (row n of [N, 64], N = B · Hkv ·
  // R, part p at column p), for the combine to read a row's in one tile.
  Ptr lsePart = p.ptr("lse_partial", f32,
                      {q.dim(0) * q.dim(1) * q.dim(2), Extent(kMaxParts)});
  // With one part, O [B, Hkv, R, Dv] in the element type and the LSE [B,
  // Hkv, R] (natural log; (B, H, Sq, ...) tensors, contiguous, viewed so)
  // directly: no combine.
  Ptr out = p.ptr("o", type, {q.dim(0), q.dim(1), q.dim(2), Extent(dv)});
  Ptr lseOut = p.ptr("lse", f32, {q.dim(0), q.dim(1), q.dim(2)});
  Index seqQ = p.index("seq_q");
  Index batch = p.index("batch", q.dim(0));
  Index kvHeads = p.index("kv_heads", q.dim(1));
  Index rows = p.index("rows", q.dim(2));
  Index rowBlocks = p.index("row_blocks", cdiv(q.dim(2), bm));
  Index parts = p.index("parts", oPart.dim(0) / q.dim(0));
  Index pageSize, maxPages;
  if (paged) {
    pageSize = p.index("page_size", k.dim(2));
    maxPages = p.index("max_pages", blockTable.dim(1));
    p.require(k.dim(2) % options.pageRows == 0);
  }
  Scalar scaleLog2 = p.f32("scale_log2");
  Bool causal = p.i32("causal") != 0;
  // The forward's sliding window and softcap (Attention.cpp), each in a
  // kernel of its own.
  Index windowLeft, windowRight;
  if (options.window) {
    windowLeft = p.index("window_left");
    windowRight = p.index("window_right");
  }
  Scalar capUnit, capUnitInverse;
  if (options.softcap) {
    Scalar capLog2e = p.f32("softcap") * kLog2e;
    capUnit = scaleLog2 / capLog2e;
    capUnitInverse = capLog2e / scaleLog2;
  }
  p.grid({cdiv(q.dim(2), bm) * (oPart.dim(0) / q.dim(0)), q.dim(1), q.dim(0)});
  // The combine launches while the parts finish, and this kernel while the
  // one before it does (the previous step's combine, in a decode loop).
  p.programmaticLaunch();
  p.require(oPart.dim(0) % q.dim(0) == 0);

  // Program (x, hk, b) computes part x / rowBlocks of rows
  // [bm m, bm m + bm), m = x % rowBlocks, of KV head hk of batch b: the
  // blocks its rows see, split evenly over the parts. Query token s sits at
  // key position s + seqK - Sq (the bottom-right alignment), so the last
  // one sees every key when causal and a window's left edge is that of the
  // first: with a left bound the blocks before it are skipped.
  Index x = p.programId(0), hk = p.programId(1), b = p.programId(2);
  Index part = x / rowBlocks, m = x % rowBlocks;
  Index seqK = load(cacheSeqlens, b);
  Index shift = seqK - seqQ;
  Index blocks = ceilDiv(seqK, bn);
  // The last key token 0 sees (a right bound's past its position), and
  // the first block visited.
  Bool hasLeft, hasRight = causal;
  Index reach = shift;
  Index lowest;
  if (options.window) {
    hasLeft = windowLeft >= 0;
    hasRight = causal || windowRight >= 0;
    reach = shift + select(causal, 0, windowRight);
    lowest = select(hasLeft, min(blocks, max(0, shift - windowLeft) / bn), 0);
  }
  Index perPart = ceilDiv(options.window ? blocks - lowest : blocks, parts);
  Index first = options.window ? min(blocks, lowest + part * perPart)
                               : min(blocks, part * perPart);
  Index end = min(blocks, first + perPart);
  Tile qTile = load(q, {b, hk, m, 0});
  // A run past the sequence's last key (in its last block) reads the last
  // page again: its keys are masked, and the table is read only where the
  // sequence reaches.
  Index lastPage;
  if (paged && run < bn)
    lastPage = max(seqK - 1, 0) / pageSize;
  // Block j's runs: the block coordinates of each in the cache (K's and
  // V's alike).
  using Runs = llvm::SmallVector<llvm::SmallVector<IndexArg, 4>>;
  auto blockRuns = [&](const Index &j) {
    Runs runs;
    if (!paged) {
      runs.push_back({b, hk, j, 0});
      return runs;
    }
    for (int64_t i = 0; i < bn / run; ++i) {
      Index key = j * bn + i * run;
      Index nth = key / pageSize;
      if (run < bn)
        nth = min(nth, lastPage);
      Index page = load(blockTable, b * maxPages + nth);
      runs.push_back({page, hk, (key % pageSize) / run, 0});
    }
    return runs;
  };
  auto loadKV = [&](const Desc &kv, const Runs &runs) {
    return runs.size() == 1 ? load(kv, runs.front()) : loadRows(kv, runs);
  };

  // Row r's query token and the end of the keys it sees (relative to the
  // key blocks' first key): keys before seqK, up to its position plus the
  // right bound; with a left bound, from its position minus that.
  Tile rowIds = p.iota({bm}, 0) + m * bm;
  Tile token = rowIds - (rowIds / seqQ) * seqQ;
  auto [mF, lF, accF] = p.forLoop(
      first, end, 1,
      {p.full({bm}, -inf, f32), p.zeros({bm}, f32), p.zeros({bm, dvp}, f32)},
      [&](Index j, Tile mI, Tile lI, Tile acc) -> Tiles<3> {
        Runs runs = blockRuns(j);
        Tile s = dot(qTile, trans(loadKV(k, runs)), p.zeros({bm, bn}, f32));
        if (options.softcap)
          s = tanh(s * capUnit) * capUnitInverse;
        Index key0 = j * bn;
        Bool needsMask = key0 + bn > seqK ||
                         (hasRight && key0 + (bn - 1) > reach);
        if (options.window)
          needsMask =
              needsMask || (hasLeft && key0 < seqK - 1 - windowLeft);
        s = p.ifElse(
            needsMask,
            [&] {
              Tile end = splat(seqK - key0, {bm});
              end = p.ifElse(
                  hasRight,
                  [&] { return min(end, token + (reach - key0 + 1)); },
                  [&] { return end; });
              Tile cols = p.iota({bm, bn}, 1);
              Tile valid = cols < end.col();
              if (options.window) {
                // No left bound: a start below every column.
                Tile start = token + select(hasLeft,
                                            shift - key0 - windowLeft,
                                            -(int64_t(1) << 30));
                valid = valid && cols >= start.col();
              }
              return where(valid, s, -inf);
            },
            [&] { return s; });
        return onlineSoftmaxStep(
            s, scaleLog2, mI, lI, acc, type, [&] { return loadKV(v, runs); },
            /*conditionalRescale=*/false);
      });

  // The part's O = acc / l (zeros where it saw no key) and its LSE in log2
  // units (-inf there), through pointers: rows past R are not written.
  // With one part, O and the LSE (natural log) instead: each store writes
  // the rows its row count allows, and the other's count is 0.
  Tile lSafe = where(lF == 0.0, 1.0, lF);
  Tile oRows = accF * (1.0 / lSafe).col();
  Tile lse2 = mF + log2(lSafe);
  Bool single = parts == 1;
  Index partRows = select(single, 0, rows), outRows = select(single, rows, 0);
  Index slot = (part * batch + b) * kvHeads + hk;
  Desc od = p.makeDesc(oPart, {parts * batch * kvHeads, partRows, dvp},
                       {rows * dvp, dvp, 1}, {1, bm, dvp});
  store(od, {slot, m, 0}, oRows);
  Desc lsed = p.makeDesc(lsePart, {parts, batch * kvHeads, partRows},
                         {1, rows * kMaxParts, kMaxParts}, {1, 1, bm});
  store(lsed, {part, b * kvHeads + hk, m}, lse2);
  Desc outd = p.makeDesc(out, {batch * kvHeads, outRows, dv},
                         {rows * dv, dv, 1}, {1, bm, dvp});
  store(outd, {b * kvHeads + hk, m, 0}, oRows.to(type));
  Desc lseOutd =
      p.makeDesc(lseOut, {batch * kvHeads, outRows}, {rows, 1}, {1, bm});
  store(lseOutd, {b * kvHeads + hk, m}, lse2 * kLn2);
  return p.finish();
}

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildAttentionDecodeCombine(mlir::MLIRContext *context,
                                      const AttentionOptions &options) {
  const int64_t dv = options.headDimV ? options.headDimV : options.headDim;
  const int64_t dvp = paddedHeadDim(context, "attention decode: ", "head dim of V", dv);
  if (!dvp)
    return nullptr;
  const int64_t bm = options.blockM;
  const DType type = options.elementType;
  const double inf = std::numeric_limits<double>::infinity();
  const Extent any = Extent::any();
  Program p(context, "attention_decode_combine");
  // The decode program's parts as [P, N, Dv'] f32 (N = B · H · Sq rows:
  // [P · B, Hkv, R, ...] read flat, contiguous) and the LSEs as [N, 64]
  // (a row's parts side by side), O [N, Dv] in the element type and the
  // LSE [N] f32 (natural log): a (B, H, Sq, Dv) and a (B, H, Sq) tensor,
  // contiguous, read flat. O's blocks of 32 columns go through pointers
  // (a TMA store takes 64 16-bit columns), the grid over V's columns, not
  // the parts' padded ones: the last block's columns past Dv are skipped.
  Desc oPart = p.desc("o_partial", {1, bm, kCombineColumns}, f32,
                      {any, any, dvp});
  Desc lsePart =
      p.desc("lse_partial", {bm, kMaxParts}, f32, {oPart.dim(1), kMaxParts});
  Ptr oPtr = p.ptr("o", type, {oPart.dim(1), Extent(dv)});
  Ptr lse = p.ptr("lse", f32, {oPart.dim(1)});
  Index rows = p.index("rows", oPart.dim(1));
  Desc o = p.makeDesc(oPtr, {rows, dv}, {dv, 1}, {bm, kCombineColumns});
  Index parts = p.index("parts", oPart.dim(0));
  p.grid({cdiv(oPart.dim(1), bm),
          Extent((dv + kCombineColumns - 1) / kCombineColumns)});
  p.programmaticLaunch();
  // One part is the main kernel's to write as O: it writes no part then.
  p.require(oPart.dim(0) >= 2);
  p.require(oPart.dim(0) <= kMaxParts);

  // Program (m, c) merges columns [32 c, 32 c + 32) of rows
  // [bm m, bm m + bm) over the parts: each part's O weighted by
  // 2^(LSE_p − max) / Σ_p 2^(LSE_p − max), all parts' weights known from
  // one tile of LSEs before the loop, so that the loop waits on nothing
  // but its O loads; parts that saw no key weigh 0. The rows are every
  // head's and sequence's, packed: a program's loads hold whole rows of
  // output, whatever the group. The first column block writes the rows'
  // LSE (the others store it over no rows).
  Index m = p.programId(0), c = p.programId(1);
  Tile partIds = p.iota({bm, kMaxParts}, 1);
  Tile lseRows = where(partIds < parts, load(lsePart, {m, 0}), -inf);
  Tile mMax = max(lseRows, 1);
  Tile mUse = where(mMax == -inf, 0.0, mMax);
  Tile weights = exp2(lseRows - mUse.col());
  Tile lSum = sum(weights, 1);
  Tile lSafe = where(lSum == 0.0, 1.0, lSum);
  weights = weights * (1.0 / lSafe).col();
  // Part j's weights, picked out of the tile by a row sum (which fa4 reads
  // as column j: selects and a shuffle). Two parts a step, in order, their
  // loads and merges side by side, and the next step's weights picked while
  // they merge: a step's chain of waits and dependent instructions serves
  // two parts. With an odd count the last step's second part lies past
  // the parts' tensor: its load reads zeros and its weight is 0.
  auto weightOf = [&](const auto &j) {
    return sum(where(partIds == j, weights, 0.0), 1);
  };
  auto [accF, unusedEven, unusedOdd] = p.forLoop(
      0, ceilDiv(parts, 2), 1,
      {p.zeros({bm, kCombineColumns}, f32), weightOf(0), weightOf(1)},
      [&](Index i, Tile acc, Tile even, Tile odd) -> Tiles<3> {
        Index j = i * 2;
        Tile merged = acc + load(oPart, {j, m, c}) * even.col();
        merged = merged + load(oPart, {j + 1, m, c}) * odd.col();
        return {merged, weightOf(j + 2), weightOf(j + 3)};
      });
  store(o, {m, c}, accF.to(type));
  Desc lseOut = p.makeDesc(lse, {select(c == 0, rows, 0)}, {1}, {bm});
  store(lseOut, {m}, (mMax + log2(lSafe)) * kLn2);
  return p.finish();
}

//===- PlanTable.cpp - the plan chosen per launch -------------------------===//
//
// The lengths at which the attention backward switches to five products
// and to persistent kernels, and the measurements behind them.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/PlanTable.h"

#include <algorithm>
#include <optional>

using namespace fa4;

namespace {
/// A row of the table: padded head dims up to `maxColumns` (over the row
/// before's) take the five products from `minSeqK` keys without a causal
/// mask and from `minSeqKCausal` with one; none: at no length.
struct FusedRow {
  int64_t maxColumns;
  std::optional<int64_t> minSeqK, minSeqKCausal;
};
} // namespace

/// The backward in five products against dQ by a kernel of its own, bf16,
/// H = 16, B * S = 16384, on an H100 (bench/RESULTS.md, 2026-12-06, the
/// kernels whose cheap loop invariants are recomputed where that saves
/// spills), libfa4 built to take the five products at every length and
/// head dim, each way timed by turns in one process, 5 calls queued between
/// CUDA events, the median of 6 rounds; the five products' time over the
/// two kernels':
///
///   head dim 64, not causal  S = 1024 0.92, 2048 0.89, 4096 0.87,
///                            8192 0.86, 16384 0.86
///   head dim 64, causal      S = 1024 0.95, 2048 0.91, 4096 0.88,
///                            8192 0.86, 16384 0.84
///   head dim 128, not causal S = 1024 1.02, 2048 1.02, 4096 1.04,
///                            8192 1.04, 16384 0.99
///   head dim 128, causal     S = 1024 1.09, 2048 1.06, 4096 1.07,
///                            8192 1.08, 16384 1.05
///
/// so the five products at head dim 64 at every length (before, with the
/// invariants hoisted, they spilled 368 bytes a thread and ran 1.00-1.10 of
/// the two kernels' time). At 128 columns the five products have gained
/// since (FlashAttention-3's order: dV's MMA under the dS staging, dK's
/// under dQ's store); measured again (2026-12-07, the same way, two
/// rounds), their TFLOP/s over the two kernels' at head dim 128:
///
///   not causal  S = 1024 1.03, 2048 1.06-1.07, 4096 1.10, 8192 1.10-1.11,
///               16384 1.09-1.11
///   causal      S = 1024 0.98, 2048 1.01-1.02, 4096 1.05, 8192 1.12-1.13,
///               16384 1.11-1.17
///
/// so up to 128 columns at every length without a causal mask and from
/// 2048 keys with one (at 1024 the kernel of the longest key block runs
/// longest). Where the two kernels run persistent (the table below) they
/// lead the five products on short sequences.
constexpr FusedRow kBackwardFusedRows[] = {
    {64, 0, 0},
    {128, 0, 2048},
};

namespace {
/// A row of the persistent table: padded head dims up to `maxColumns` (over
/// the row before's) run the dQ and dK/dV kernels persistent below
/// `belowSeqK` keys without a causal mask and below `belowSeqKCausal` with
/// one, and take them over the five products below `overFusedSeqK` and
/// `overFusedSeqKCausal`.
struct PersistentRow {
  int64_t maxColumns, belowSeqK, belowSeqKCausal, overFusedSeqK,
      overFusedSeqKCausal;
};
} // namespace

/// The dQ and dK/dV kernels persistent (`persistent`, `o_in_q`) against
/// one CTA a tile, bf16, H = 16, B * S = 16384, on an H100
/// (bench/RESULTS.md, 2026-12-06, kernels of 1e20e7b, the deterministic
/// way, two rounds, TFLOP/s):
///
///   head dim 64, not causal  S = 1024 265 / 300, 2048 306 / 327,
///                            4096 333 / 329, 8192 346 / 336
///   head dim 64, causal      S = 1024 199 / 226, 2048 254 / 284,
///                            4096 296 / 318, 8192 327 / 332,
///                            16384 352 / 333
///   head dim 128 (one K/V stage fits) level to 6 % slower at every length
///
/// Short sequences give each CTA few query blocks, and every CTA loads its
/// K and V with no MMA to hide the loads under; a persistent CTA loads the
/// next tile's while it finishes this one. Longer ones lose to the
/// persistent kernels' spills (48 and 36 bytes a thread, none before).
/// Against the five products in FlashAttention-3's order (same call,
/// TFLOP/s, five products / persistent pair): not causal S = 1024 281 /
/// 300, 2048 337 / 327; causal S = 1024 203 / 226, 2048 272 / 284, 4096
/// 330 / 318.
constexpr PersistentRow kBackwardPersistentRows[] = {
    {64, 4096, 8192, 2048, 4096},
};

namespace {
/// The persistent table's row for `main`'s options, if they are those it
/// was measured on: bf16, plain or causal (no window or packing, whose
/// tiles carry uneven work, no softcap), a plan that leaves `persistent`
/// to the table.
const PersistentRow *persistentRow(const KernelKey &main) {
  if (main.plan.persistent || main.window || main.varlen || main.softcap ||
      main.dtype != DType::BF16)
    return nullptr;
  int64_t columns =
      KernelKey::paddedHeadDim(std::max(main.headDim, main.valueHeadDim()));
  for (const PersistentRow &row : kBackwardPersistentRows)
    if (columns <= row.maxColumns)
      return &row;
  return nullptr;
}
} // namespace

bool fa4::backwardPersistentForLaunch(const KernelKey &main, int64_t seqK,
                                      bool causal) {
  const PersistentRow *row = persistentRow(main);
  return row && seqK < (causal ? row->belowSeqKCausal : row->belowSeqK);
}

std::vector<KernelKey> fa4::backwardKernelsForLaunch(const KernelKey &main,
                                                     int64_t seqK, bool causal,
                                                     bool deterministic,
                                                     bool fused) {
  fused = fused || backwardFusedForLaunch(main, seqK, causal, deterministic);
  KernelKey key = main;
  if (!fused && backwardPersistentForLaunch(main, seqK, causal)) {
    key.plan.persistent = true;
    if (!key.plan.oInQ)
      key.plan.oInQ = true;
  }
  return KernelKey::backwardKernels(key, fused);
}

std::vector<KernelKey> fa4::backwardKernelsForAnyLaunch(const KernelKey &main,
                                                        bool deterministic) {
  std::vector<int64_t> lengths = {0};
  for (const FusedRow &row : kBackwardFusedRows)
    for (std::optional<int64_t> keys : {row.minSeqK, row.minSeqKCausal})
      if (keys)
        lengths.push_back(*keys);
  for (const PersistentRow &row : kBackwardPersistentRows)
    lengths.insert(lengths.end(), {row.belowSeqK, row.belowSeqKCausal,
                                   row.overFusedSeqK, row.overFusedSeqKCausal});
  std::vector<KernelKey> keys;
  for (int64_t seqK : lengths)
    for (bool causal : {false, true})
      for (bool det : {deterministic, true})
        for (const KernelKey &kernel :
             backwardKernelsForLaunch(main, seqK, causal, det))
          if (std::none_of(keys.begin(), keys.end(),
                           [&](const KernelKey &taken) {
                             return taken.str() == kernel.str();
                           }))
            keys.push_back(kernel);
  return keys;
}

bool fa4::backwardFusedForLaunch(const KernelKey &main, int64_t seqK,
                                 bool causal, bool deterministic) {
  if (deterministic || main.varlen)
    return false;
  KernelKey fused = main;
  fused.family = Family::AttentionBackwardFused;
  int64_t columns = KernelKey::paddedHeadDim(main.headDim);
  for (const FusedRow &row : kBackwardFusedRows) {
    if (columns > row.maxColumns)
      continue;
    std::optional<int64_t> minSeqK = causal ? row.minSeqKCausal : row.minSeqK;
    if (!minSeqK || seqK < *minSeqK || !fused.verify().ok())
      return false;
    // The persistent pair, where it runs, leads on short sequences.
    const PersistentRow *persistent = persistentRow(main);
    return !persistent || seqK >= (causal ? persistent->overFusedSeqKCausal
                                          : persistent->overFusedSeqK);
  }
  return false;
}

std::string fa4::backwardLaunchRule() {
  auto lengths = [](const FusedRow &row) -> std::string {
    auto from = [](int64_t keys) {
      return keys ? "from " + std::to_string(keys) + " keys"
                  : std::string("at every length");
    };
    if (row.minSeqK == row.minSeqKCausal)
      return row.minSeqK ? from(*row.minSeqK) : "at no length";
    std::string text;
    if (row.minSeqK)
      text = from(*row.minSeqK) + " without a causal mask";
    if (row.minSeqKCausal)
      text += (text.empty() ? "" : " and ") + from(*row.minSeqKCausal) +
              " with one";
    return text;
  };
  std::string rule = "five products";
  int64_t below = 0;
  for (const FusedRow &row : kBackwardFusedRows) {
    rule += below ? "; at head dims over " + std::to_string(below) + " up to "
                  : " at head dims up to ";
    rule += std::to_string(row.maxColumns) + " " + lengths(row);
    below = row.maxColumns;
  }
  rule += "; else dQ by a kernel of its own";
  below = 0;
  for (const PersistentRow &row : kBackwardPersistentRows) {
    rule += below ? "; at head dims over " + std::to_string(below) + " up to "
                  : ", dQ's and dK/dV's kernels persistent (bf16, no window, "
                    "softcap or packing) at head dims up to ";
    rule += std::to_string(row.maxColumns) + " below " +
            std::to_string(row.belowSeqK) + " keys without a causal mask and " +
            std::to_string(row.belowSeqKCausal) +
            " with one, taken over the five products below " +
            std::to_string(row.overFusedSeqK) + " and " +
            std::to_string(row.overFusedSeqKCausal);
    below = row.maxColumns;
  }
  return rule;
}

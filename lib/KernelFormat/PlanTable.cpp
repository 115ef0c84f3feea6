//===- PlanTable.cpp - the plan chosen per launch -------------------------===//
//
// The lengths at which the attention backward switches to five products,
// and the measurements behind them.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/PlanTable.h"

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
/// the two kernels' time), and from 128 columns from 16384 keys without a
/// causal mask, never with one (the kernel of the longest key block runs
/// longest).
constexpr FusedRow kBackwardFusedRows[] = {
    {64, 0, 0},
    {128, 16384, std::nullopt},
};

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
    return minSeqK && seqK >= *minSeqK && fused.verify().ok();
  }
  return false;
}

std::string fa4::backwardFusedRule() {
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
  return rule;
}

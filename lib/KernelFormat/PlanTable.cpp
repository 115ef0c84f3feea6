//===- PlanTable.cpp - the plan chosen per launch -------------------------===//
//
// The lengths at which the attention backward switches to five products,
// and the measurements behind them.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/PlanTable.h"

#include <optional>

using namespace fa4;

/// The backward in five products against dQ by a kernel of its own, bf16,
/// H = 16, B * S = 16384, on an H100 (bench/RESULTS.md, 2026-12-06, main's
/// kernels of c53dedf), each way's backward (fa4's op, libfa4 built
/// to take the five products at every length) timed by turns in one
/// process, 5 calls queued between CUDA events, the median of 6 rounds;
/// the five products' time over the two kernels':
///
///   head dim 128, not causal S = 1024 1.04, 2048 1.07, 4096 1.07,
///                            8192 1.07, 16384 0.97
///   head dim 128, causal     S = 1024 1.13, 2048 1.11, 4096 1.09,
///                            8192 1.12, 16384 1.08
///
/// so five products from 16384 keys without a causal mask, and with one at
/// no length measured (the kernel of the longest key block runs longest;
/// the two kernels' loops have caught up with the five products since the
/// lengths of 2026-12-05, 8192 and 16384 causal, were measured).
constexpr int64_t kBackwardFusedMinSeqK = 16384;
constexpr std::optional<int64_t> kBackwardFusedMinSeqKCausal = std::nullopt;
/// At head dim 64 the five products (dQ's product split by rows over 128
/// queries) are behind the two kernels at every length on an H100 (the
/// run above: 1.00-1.03 of their time, 1.03-1.10 causal), their 356 B of
/// spills a thread taking what the one exp a pair saves: so dQ by its own
/// kernel up to 64 columns of head dim.
constexpr int64_t kBackwardOwnDqMaxColumns = 64;

bool fa4::backwardFusedForLaunch(const KernelKey &main, int64_t seqK,
                                 bool causal, bool deterministic) {
  if (deterministic || main.varlen)
    return false;
  KernelKey fused = main;
  fused.family = Family::AttentionBackwardFused;
  std::optional<int64_t> minSeqK =
      causal ? kBackwardFusedMinSeqKCausal : kBackwardFusedMinSeqK;
  return KernelKey::paddedHeadDim(main.headDim) > kBackwardOwnDqMaxColumns &&
         minSeqK && seqK >= *minSeqK && fused.verify().ok();
}

std::string fa4::backwardFusedRule() {
  std::string rule = "five products at head dims over " +
                     std::to_string(kBackwardOwnDqMaxColumns);
  auto from = [](int64_t keys) {
    return " from " + std::to_string(keys) + " keys";
  };
  if (kBackwardFusedMinSeqK == kBackwardFusedMinSeqKCausal)
    return rule + from(kBackwardFusedMinSeqK);
  rule += from(kBackwardFusedMinSeqK) + " without a causal mask";
  if (kBackwardFusedMinSeqKCausal)
    rule += " and" + from(*kBackwardFusedMinSeqKCausal) + " with one";
  return rule;
}

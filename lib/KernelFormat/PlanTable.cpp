//===- PlanTable.cpp - the plan chosen per launch -------------------------===//
//
// The rows of the per-launch plan table and the measurements behind them.
// A row applies to dense attention without a window or softcap (the shapes
// it was measured on) at its head dims, mask and sequence lengths, and
// fills the plan fields the caller left unset.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/PlanTable.h"

#include <limits>
#include <optional>

using namespace fa4;

namespace {
/// One row: where it applies and what it sets.
struct Row {
  int64_t headDim, headDimV;
  /// The mask it was measured with; unset: either.
  std::optional<bool> causal;
  /// The longest key sequence it applies to.
  int64_t maxSeqK;
  /// The block rows it picks.
  int64_t blockN;
};

/// Head dim 256, bf16, H = 16, B * S = 16384, two calls of the plan sweep
/// on the H200 (bench/RESULTS.md, 2026-12-02, "Head dim 256"), TFLOP/s of
/// 64-row against 80-row K/V blocks:
///
///   causal     S = 1024 486 / 443, 2048 583 / 558, 4096 643-648 / 593-611,
///              8192 692 / 638, 16384 672 / 670 (level)
///   not causal S = 1024 632-633 / 623-624, 2048 693 / 650; 4096 638-693 /
///              677-727 (the calls disagree), 8192 657 / 667, 16384 666 /
///              679-681 (80 rows ahead by 1.5-2 %)
///
/// and, since the 80-row kernel pins its descriptor bases
/// (attentionPinDescriptors; bench/RESULTS.md, 2026-12-06, on an H100,
/// fa4-run by turns, three rounds, not causal, 64 / 80 rows): S = 1024
/// 629 / 655, 2048 676-689 / 683-719, 4096 645-671 / 677-753. So 64 rows
/// with a causal mask, the derived (pinned) 80 rows otherwise. f16 has the
/// same tiles and bytes.
constexpr Row kRows[] = {
    {256, 256, true, std::numeric_limits<int64_t>::max(), 64},
};
} // namespace

KernelKey fa4::planForLaunch(KernelKey key, int64_t seqK, bool causal) {
  if (key.family != Family::Attention || key.window || key.softcap ||
      key.varlen || key.plan.blockN)
    return key;
  for (const Row &row : kRows)
    if (row.headDim == key.headDim && row.headDimV == key.valueHeadDim() &&
        (!row.causal || *row.causal == causal) && seqK <= row.maxSeqK) {
      key.plan.blockN = row.blockN;
      break;
    }
  return key;
}

/// The backward in five products against dQ by a kernel of its own, head
/// dim 128, bf16, H = 16, B * S = 16384, on an H100 (bench/RESULTS.md,
/// 2026-12-05), the time of the two ways' backward (fa4.attention's op)
/// interleaved in alternating order, the median of 6 rounds each; five
/// products over three kernels, TFLOP/s:
///
///   not causal S = 1024 330 / 341, 2048 368 / 383, 4096 394 / 396,
///              8192 424 / 413, 16384 430 / 413
///   causal     S = 1024 229 / 259, 2048 285 / 324, 4096 343 / 372,
///              8192 386 / 397, 16384 422 / 415
///
/// so five products from 8192 keys on without a causal mask, from 16384
/// with one (where the key blocks' loops differ most in length, and the
/// longest CTAs, whose steps do more, finish last). Timed kernel by kernel
/// (`fa4-run --kernel --bench`, inputs of another distribution) the
/// five-product kernel and the postprocess were ahead at 4096 keys too
/// (3.17 against 3.34 ms at B = 4, not causal); why they are not end to
/// end is open.
constexpr int64_t kBackwardFusedMinSeqK = 8192;
constexpr int64_t kBackwardFusedMinSeqKCausal = 16384;
/// At head dim 64 the five products (dQ's product split by rows over 128
/// queries) ran level with the two kernels on an H100 (bench/RESULTS.md,
/// 2026-12-06: 273.6 / 276.4 TFLOP/s at B = 4, S = 4096 causal; 252 / 249
/// at B = 16, S = 1024; 176 / 189 causal), their 356 B of spills a thread
/// taking what the one exp a pair saves: so dQ by its own kernel up to 64
/// columns of head dim.
constexpr int64_t kBackwardOwnDqMaxColumns = 64;

bool fa4::backwardFusedForLaunch(const KernelKey &main, int64_t seqK,
                                 bool causal, bool deterministic) {
  if (deterministic || main.varlen)
    return false;
  KernelKey fused = main;
  fused.family = Family::AttentionBackwardFused;
  return KernelKey::paddedHeadDim(main.headDim) > kBackwardOwnDqMaxColumns &&
         seqK >=
             (causal ? kBackwardFusedMinSeqKCausal : kBackwardFusedMinSeqK) &&
         fused.verify().ok();
}

//===- PlanTable.cpp - the plan chosen per launch -------------------------===//
//
// The lengths at which the attention backward switches to five products,
// and the measurements behind them.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/PlanTable.h"

using namespace fa4;

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

//===- OnlineSoftmax.h - one key block of the online softmax ----*- C++ -*-===//
//
// One step of attention's online softmax in base 2 over a block of scores:
// the running row max, the running row sum and the unnormalized output, for
// the forward's program and decode's, which run the same loop.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_DSL_PROGRAMS_ONLINESOFTMAX_H
#define FA4_LIB_DSL_PROGRAMS_ONLINESOFTMAX_H

#include "fa4/DSL/DSL.h"

#include <limits>

namespace fa4::dsl {

/// The state after the (masked) scores `s` of a key block, `s *
/// scaleLog2` in log2 units (a Scalar or a double): `mI`, `lI` and `acc`
/// the running max (log2 units), sum and output before it, `v`
/// the block's values (a call, so that its load comes where the forward
/// has always issued it). With `conditionalRescale`, the running max moves
/// only when the block raises it by more than `rescaleGrowth` (FA4's
/// conditional rescaling: P stays at most 2^rescaleGrowth, a row's alpha is
/// exactly 1 in the blocks that keep its max, and O comes out exact after
/// the division by l).
template <typename Scale, typename LoadV>
Tiles<3> onlineSoftmaxStep(const Tile &s, const Scale &scaleLog2,
                           const Tile &mI, const Tile &lI, const Tile &acc,
                           DType type, LoadV &&v, bool conditionalRescale,
                           double rescaleGrowth = 8.0) {
  const double inf = std::numeric_limits<double>::infinity();
  Tile mBlock = max(mI, max(s, 1) * scaleLog2);
  Tile mNew = conditionalRescale
                  ? where(mBlock > mI + rescaleGrowth, mBlock, mI)
                  : mBlock;
  // A row that has seen no key yet keeps a max of -inf: subtract 0.
  Tile mUse = where(mNew == -inf, 0.0, mNew);
  Tile pr = exp2(s * scaleLog2 - mUse.col());
  Tile alpha = exp2(mI - mUse);
  Tile lNew = lI * alpha + sum(pr, 1);
  Tile accNew = dot(pr.to(type), v(), acc * alpha.col());
  return {mNew, lNew, accNew};
}

} // namespace fa4::dsl

#endif // FA4_LIB_DSL_PROGRAMS_ONLINESOFTMAX_H

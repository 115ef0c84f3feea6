//===- PlanTable.h - the plan chosen per launch -----------------*- C++ -*-===//
//
// Some plan choices are best at one launch shape and not at another: at
// head dim 256, 64-row K/V blocks win with a causal mask and at short
// sequences, 80-row ones elsewhere. A kernel cannot choose at run time (the
// block is its tiles' shape), so the caller does, before the key names a
// kernel: the table in PlanTable.cpp maps (head dim, mask, sequence length)
// to plan fields, with the measurements each row came from, and picks the
// backward's kernels likewise. fa4-run and
// libfa4 (and so the Python package) apply it alike. No MLIR, no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_PLANTABLE_H
#define FA4_KERNELFORMAT_PLANTABLE_H

#include "fa4/KernelFormat/KernelKey.h"

#include <cstdint>

namespace fa4 {

/// `key` with the plan fields the table picks for a launch over `seqK` keys
/// with or without a causal mask; fields the key's plan sets are kept.
KernelKey planForLaunch(KernelKey key, int64_t seqK, bool causal);

/// Whether an attention backward of `main`'s options over `seqK` keys runs
/// in five products (KernelKey::backwardKernels with `fused`, dQ's parts
/// added across CTAs) rather than with dQ by a kernel of its own: never
/// when `deterministic` (the same bits every run) or for packed sequences
/// (which the five products do not take yet), else where the table
/// says (libfa4, and fa4-run unless --fused-dq says).
bool backwardFusedForLaunch(const KernelKey &main, int64_t seqK, bool causal,
                            bool deterministic);

} // namespace fa4

#endif // FA4_KERNELFORMAT_PLANTABLE_H

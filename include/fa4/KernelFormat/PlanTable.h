//===- PlanTable.h - the plan chosen per launch -----------------*- C++ -*-===//
//
// Some choices are best at one launch shape and not at another, and a
// kernel cannot make them at run time (they are its tiles' shapes or its
// kernels), so the caller does, before the key names a kernel: whether the
// attention backward runs in five products, and whether its dQ and dK/dV
// kernels run persistent, with the measurements behind the lengths it
// switches at (PlanTable.cpp). fa4-run and libfa4 (and so
// the Python package) apply it alike. No MLIR, no CUDA.
//
// The forward has no such row since the d256 kernel over 80-row key blocks
// pins its descriptor bases: it leads the 64-row kernel with a causal mask
// too (bench/RESULTS.md, 2026-12-06), so the derived plan serves every
// launch.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_PLANTABLE_H
#define FA4_KERNELFORMAT_PLANTABLE_H

#include "fa4/KernelFormat/KernelKey.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fa4 {

/// Whether an attention backward of `main`'s options over `seqK` keys runs
/// in five products (KernelKey::backwardKernels with `fused`, dQ's parts
/// added across CTAs) rather than with dQ by a kernel of its own: never
/// when `deterministic` (the same bits every run) or for packed sequences
/// (which the five products do not take yet), else where the table
/// says (libfa4, and fa4-run unless --fused-dq says).
bool backwardFusedForLaunch(const KernelKey &main, int64_t seqK, bool causal,
                            bool deterministic);

/// Whether the dQ and dK/dV kernels of an attention backward of `main`'s
/// options over `seqK` keys run persistent (fa4-persistent's folded order,
/// each tile's dK and dV staged in its K and V stages: persistentBackward),
/// where the table says: short bf16 sequences without a window, a softcap
/// or packing, and only when `main`'s plan leaves `persistent` to the
/// table. Where it says so below shorter lengths, backwardFusedForLaunch
/// leaves the five products to the persistent pair.
bool backwardPersistentForLaunch(const KernelKey &main, int64_t seqK,
                                 bool causal);

/// The kernels of an attention backward of `main`'s options for a launch
/// over `seqK` keys: the five products where backwardFusedForLaunch says
/// or `fused` asks, else dQ's own kernel and dK's and dV's, persistent
/// (`persistent`, `o_in_q`) where backwardPersistentForLaunch says. The
/// one place fa4-run and libfa4 turn the table into keys.
std::vector<KernelKey> backwardKernelsForLaunch(const KernelKey &main,
                                                int64_t seqK, bool causal,
                                                bool deterministic,
                                                bool fused = false);

/// Every kernel a launch of `main`'s options may take, at any length and
/// either mask, deterministic or not as `deterministic` says (and always
/// the deterministic way too), each once: what libfa4 prepares. The
/// table's choices change only at its rows' lengths, so those lengths (and
/// 0) stand for every launch.
std::vector<KernelKey> backwardKernelsForAnyLaunch(const KernelKey &main,
                                                   bool deterministic);

/// The table's rule for the backward in words, from the rows it applies,
/// for fa4-run's --help: one owner of the figures.
std::string backwardLaunchRule();

} // namespace fa4

#endif // FA4_KERNELFORMAT_PLANTABLE_H

//===- Backward.h - fa4-run --backward --------------------------*- C++ -*-===//
//
// The attention backward's kernels run on random inputs and checked
// against float64 gradients, for fa4-run.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TOOLS_FA4RUN_BACKWARD_H
#define FA4_TOOLS_FA4RUN_BACKWARD_H

#include "Arguments.h"
#include "Outputs.h"

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Runtime/Driver.h"

#include <string>
#include <vector>

namespace fa4::run {

/// Runs the backward's kernels (`files`, in launch order as
/// KernelKey::backwardKernels gives them: D, then dQ and dK/dV (dQ, dV and
/// dK over 128 columns), or the five products and dQ's postprocess) for
/// the problem of `args` on `driver`'s GPU: Q, K, V and dO drawn at
/// random, O and the LSE from `forward` (fa4's forward kernel for the
/// problem, untimed), D from the first kernel; unless --no-check, dQ, dK
/// and dV checked (1e-2 relative, no NaN, dQ zero for rows that see no
/// key) against float64 gradients; with --bench each kernel timed. The
/// kernels' inputs and outputs pass through .npy files in `work`.
runtime::Expected<RunOutcome>
runBackward(const Arguments &args, runtime::Driver &driver,
            const runtime::KernelFile &forward,
            const std::vector<runtime::KernelFile> &files,
            const std::string &work);

} // namespace fa4::run

#endif // FA4_TOOLS_FA4RUN_BACKWARD_H

//===- Decode.h - fa4-run --decode ------------------------------*- C++ -*-===//
//
// Decode's two kernels run on a random KV cache and checked against float64
// attention, for fa4-run.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TOOLS_FA4RUN_DECODE_H
#define FA4_TOOLS_FA4RUN_DECODE_H

#include "Arguments.h"
#include "Outputs.h"

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Runtime/Driver.h"

#include <array>
#include <string>
#include <vector>

namespace fa4::run {

/// Runs decode's kernels (`files`: the main kernel and the combine) for the
/// problem of `args` on `driver`'s GPU: Q (B, H, SQ, D) and a KV cache of
/// --seq-k keys a sequence drawn at random, --cache-seqlens of them in use
/// (all by default), in pages of --page-size keys listed by a shuffled
/// block table when given; the keys split over --splits CTAs (fa4's choice
/// by default); O and the LSE checked (1e-2 relative, no NaN, 0 and -inf
/// for rows that see no key) against float64 attention (query
/// token s at key position s + length - SQ); with --bench each kernel
/// timed. The kernels' tensors pass through .npy files in `work`.
runtime::Expected<RunOutcome>
runDecode(const Arguments &args, runtime::Driver &driver,
          const std::array<runtime::KernelFile, 2> &files,
          const std::string &work);

} // namespace fa4::run

#endif // FA4_TOOLS_FA4RUN_DECODE_H

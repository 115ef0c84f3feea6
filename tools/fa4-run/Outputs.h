//===- Outputs.h - reading back the outputs of fa4-run's kernels -*- C++
//-*-===//
//
// What --backward and --decode do with the tensors a kernel run reads back:
// find one by name, read it as doubles, compare it with a float64
// reference.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TOOLS_FA4RUN_OUTPUTS_H
#define FA4_TOOLS_FA4RUN_OUTPUTS_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Runner/AnyKernel.h"
#include "fa4/Runtime/Driver.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fa4::run {

/// What a run of several kernels found (--backward's, --decode's): each
/// line to print, and whether every output is within its tolerance.
struct RunOutcome {
  std::vector<std::string> lines;
  bool passed = true;
  /// The kernels' median times summed, with --bench.
  double totalMs = 0;
};

/// Appends to `specs` each of `scalars` that `file` takes as a parameter.
void addScalars(const runtime::KernelFile &file,
                std::initializer_list<std::pair<const char *, double>> scalars,
                std::vector<runner::ArgumentSpec> &specs);

/// Runs `file` on `driver` with `specs` (FA4Runner's prepareInputs and
/// runKernel; timed with `options.bench`): its writes past an output's end
/// and its time go to `outcome`'s lines under `label`.
runtime::Expected<runner::KernelRunResult>
runStage(runtime::Driver &driver, const runtime::KernelFile &file,
         const std::vector<runner::ArgumentSpec> &specs,
         const runner::RunOptions &options, const char *label,
         RunOutcome &outcome);

/// `||got - want|| / ||want||` over the elements both hold, and the count
/// of NaNs in `got`.
std::pair<double, uint64_t> relativeError(const std::vector<double> &got,
                                          const std::vector<double> &want);

/// A tensor's elements read back (16-bit words of its type, or f32), as
/// doubles.
std::vector<double> values(const runner::HostTensor &tensor);

/// The tensor `name` of a run, or null.
const runner::HostTensor *find(const runner::KernelRunResult &result,
                               const std::string &name);

} // namespace fa4::run

#endif // FA4_TOOLS_FA4RUN_OUTPUTS_H

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

#include "fa4/Runner/AnyKernel.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fa4::run {

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

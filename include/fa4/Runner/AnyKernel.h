//===- AnyKernel.h - Running any kernel from its description ----*- C++ -*-===//
//
// What `fa4-run --kernel FILE --arg ...` does for a kernel that is none of the
// presets: the caller names each tensor and scalar of the kernel's launch
// description (`a=A.npy`, `a=random:512x256`, `alpha=0.5`), the outputs whose
// shapes the description fixes are allocated from their shape rules, the
// launch is checked before anything is allocated, and after the run the
// tensors asked for are saved as .npy files. No reference: the caller checks
// the outputs (e.g. with numpy); the runner checks that nothing was written
// past the end of an output.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_ANYKERNEL_H
#define FA4_RUNNER_ANYKERNEL_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"
#include "fa4/Runner/Run.h"
#include "fa4/Runtime/Kernel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runner {

/// One `--arg NAME=VALUE`: a tensor from a .npy file, drawn at random or
/// zeros of a shape, or a number for a scalar.
struct ArgumentSpec {
  enum class Kind { File, Random, Zeros, Number };
  std::string name;
  Kind kind = Kind::Number;
  /// File: the path.
  std::string path;
  /// Random and Zeros: the shape, outermost first.
  std::vector<int64_t> shape;
  /// Number.
  double number = 0;
};

/// Parses `NAME=FILE.npy`, `NAME=random:2x3x64`, `NAME=zeros:128x128` or
/// `NAME=NUMBER` (a value ending in .npy is a file).
runtime::Expected<ArgumentSpec> parseArgumentSpec(std::string_view text);

/// One `--save NAME=FILE.npy`.
struct SaveSpec {
  std::string name;
  std::string path;
};

runtime::Expected<SaveSpec> parseSaveSpec(std::string_view text);

/// A tensor on the host, as its elements' bytes.
struct HostTensor {
  std::string name;
  runtime::ElementType elementType = runtime::ElementType::BF16;
  std::vector<int64_t> shape;
  /// Row-major contiguous elements; empty for an output to be poisoned.
  std::string bytes;

  uint64_t elements() const;
};

/// The tensors and scalars of one run, in the description's order.
struct KernelInputs {
  std::vector<HostTensor> tensors;
  std::vector<std::pair<std::string, double>> scalars;
};

/// Makes the inputs of `file` from `args`: reads the files, draws the random
/// tensors (from `seed`), gives each output that is not among `args` the
/// shape its rules fix, and checks the launch at placeholder addresses
/// (names, types, ranks, shapes, requirements, tensor maps, the grid), all
/// before the GPU is touched.
runtime::Expected<KernelInputs>
prepareInputs(const runtime::KernelFile &file,
              const std::vector<ArgumentSpec> &args, uint64_t seed);

/// Checks that each of `saves` names a tensor of `inputs`.
runtime::Status checkSaves(const KernelInputs &inputs,
                           const std::vector<SaveSpec> &saves);

/// What one run of a described kernel found.
struct KernelRunResult {
  runtime::Dim3 grid;
  /// The tensors after the first launch, by the order of `KernelInputs`.
  std::vector<HostTensor> after;
  /// Lines saying what went wrong (a write past an output's end).
  std::vector<std::string> failure;
  std::optional<double> medianMs;
  std::optional<double> minMs;
};

/// Uploads `inputs`, poisons the outputs not given (0xff bytes) and a guard
/// after each, launches once, reads every tensor back and checks the guards;
/// with `options.bench`, times the launches like the presets.
runtime::Expected<KernelRunResult> runKernel(const runtime::Kernel &kernel,
                                             const runtime::KernelFile &file,
                                             const KernelInputs &inputs,
                                             const RunOptions &options);

/// Writes the tensors of `saves` from `result` as .npy files.
runtime::Status saveTensors(const KernelRunResult &result,
                            const std::vector<SaveSpec> &saves);

/// The launch description of `file` as a reader would want it: the
/// tensors with their shapes, the parameters and how each is made, the
/// requirements and the grid.
std::string describeLaunch(const runtime::KernelFile &file);

} // namespace fa4::runner

#endif // FA4_RUNNER_ANYKERNEL_H

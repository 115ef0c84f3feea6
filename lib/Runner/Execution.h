//===- Execution.h - One checked and timed launch ---------------*- C++ -*-===//
//
// What the GEMM and attention runners share once they have built their
// inputs: a launch with its arguments, the output buffer with a guard region
// after it, the rows to check and how to compute their reference. `execute`
// poisons, launches, checks and times it.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_RUNNER_EXECUTION_H
#define FA4_LIB_RUNNER_EXECUTION_H

#include "fa4/Runner/Check.h"
#include "fa4/Runner/Run.h"
#include "fa4/Runtime/Buffer.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/Runtime/KernelFile.h"
#include "fa4/Runtime/Launch.h"
#include "fa4/Runtime/TensorMap.h"

#include <functional>
#include <vector>

namespace fa4::runner {

/// One launch of a problem, ready to run.
struct Execution {
  runtime::LaunchConfig config;
  runtime::KernelArgs args;
  /// The element type of the inputs and the output, bf16 or f16.
  runtime::ElementType elementType = runtime::ElementType::BF16;
  /// The output, `outputElements` words viewed as rows of `cols`,
  /// followed in the same buffer by a guard region of `guardElements` words.
  runtime::DeviceBuffer *output = nullptr;
  uint64_t outputElements = 0;
  uint64_t guardElements = 0;
  uint64_t cols = 0;
  /// The output rows to compare, and their reference values, row after row.
  std::vector<uint64_t> rows;
  std::function<std::vector<double>()> reference;
  RowNaming naming;
  /// An optional second output of one f32 per output row (attention's
  /// log-sum-exp) followed by a guard of `rowValueGuard` floats, and its
  /// reference for `rows`, which `reference` fills in.
  runtime::DeviceBuffer *rowValues = nullptr;
  uint64_t rowValueGuard = 0;
  std::vector<double> rowValueReference;
};

/// The tensor map of kernel parameter `param` (of its element type) (its box
/// and swizzle) over a tensor with `dims` (innermost first) and byte `strides`
/// (of dims 1 and up), with zero out-of-bounds fill.
runtime::TensorMapSpec tensorMapSpec(const runtime::KernelParam &param,
                                     std::vector<uint64_t> dims,
                                     std::vector<uint64_t> strides);

/// Whether `file` is a persistent kernel: its last two parameters, i64
/// `grid_x` and `grid_y`, take the logical grid, and it loops its CTAs over
/// the tiles of that grid (fa4-persistent).
bool isPersistent(const runtime::KernelFile &file);

/// Sets the launch grid of `execution` for a kernel over the `logical`
/// grid (z = 1): that grid itself, or for a persistent kernel `ctas` CTAs in
/// x (0: one per SM of the device), at most one per tile, with the logical
/// grid appended to the arguments.
void setGrid(Execution &execution, const runtime::KernelFile &file,
             const runtime::Driver &driver, runtime::Dim3 logical,
             uint64_t ctas);

/// Allocates `words` 16-bit words of device memory and copies `host` (which may
/// be shorter) to its start.
runtime::Expected<runtime::DeviceBuffer>
upload(const runtime::Driver &driver, const std::vector<uint16_t> &host,
       uint64_t words);

/// Poisons the output and guard with 0xff bytes, launches once and waits;
/// with `options.check` reads the output back and checks it, and with
/// `options.keepOutput` keeps it; with `options.bench` times `options.iters`
/// launches after `options.warmup` and, when checking, compares the output
/// they leave with the checked one.
/// `result` arrives with the problem and its flops filled in.
runtime::Expected<RunResult> execute(const runtime::Kernel &kernel,
                                     Execution &execution,
                                     const RunOptions &options,
                                     RunResult result);

} // namespace fa4::runner

#endif // FA4_LIB_RUNNER_EXECUTION_H

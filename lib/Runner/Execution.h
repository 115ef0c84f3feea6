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

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Runner/Check.h"
#include "fa4/Runner/Run.h"
#include "fa4/Runtime/Binding.h"
#include "fa4/Runtime/Buffer.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/Runtime/Launch.h"
#include "fa4/Runtime/TensorMap.h"

#include <functional>
#include <optional>
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
  /// The rows of the second output to compare, when they are not `rows`
  /// (the output laid out otherwise than the per-row values).
  std::vector<uint64_t> rowValueRows;
  /// When set, turns the kept output (`RunOptions::keepOutput`) from its
  /// device layout into the problem's logical one.
  std::function<std::vector<uint16_t>(const std::vector<uint16_t> &)>
      toLogical;
};

/// A device address for tensor `index` in the checks made before anything is
/// allocated: aligned like an allocation, distinct per tensor.
inline CUdeviceptr placeholderAddress(size_t index) {
  return CUdeviceptr(0x100000000ull) * (index + 1);
}

/// The device those checks assume: one SM (the grid rules of a persistent
/// kernel are then at their smallest).
inline runtime::DeviceInfo placeholderDevice() {
  runtime::DeviceInfo device;
  device.smCount = 1;
  return device;
}

/// Prepares `launcher` (tensor maps, sizes, grid) and copies its arguments
/// and launch shape into `execution`.
runtime::Status prepare(runtime::Launcher &launcher, Execution &execution);

/// Times `options.iters` queued launches after `options.warmup`, each by its
/// own events; sets the median and the fastest, in ms.
runtime::Status benchmark(const runtime::Kernel &kernel,
                          const runtime::LaunchConfig &config,
                          const runtime::KernelArgs &args,
                          const RunOptions &options,
                          std::optional<double> &medianMs,
                          std::optional<double> &minMs);

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

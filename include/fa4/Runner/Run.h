//===- Run.h - Running a problem with a compiled kernel ---------*- C++ -*-===//
//
// The runner's API, what fa4-run and later bindings call: given a loaded
// kernel with the problem's ABI, draw seeded random inputs (or take given
// ones), build the tensor
// maps, poison the output, launch, read back and check against the float64
// reference, and optionally time repeated launches with CUDA events. Every
// failure that comes back from these functions is a CUDA or runtime error;
// refusals (bad sizes, a kernel without the ABI) come from Problem.h first.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_RUN_H
#define FA4_RUNNER_RUN_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/Runner/Check.h"
#include "fa4/Runner/Problem.h"
#include "fa4/Runtime/Kernel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fa4::runner {

/// Rows of a GEMM output checked at most; all when M is not larger.
inline constexpr uint64_t kGemmCheckedRows = 256;
/// Query rows per (batch, head) of an attention output checked at most.
inline constexpr uint64_t kAttentionCheckedRows = 64;

/// What to do besides the one checked launch.
struct RunOptions {
  /// Compare with the reference, scan for NaN and guard writes.
  bool check = true;
  /// Time `iters` launches after `warmup` launches.
  bool bench = false;
  unsigned warmup = 10;
  unsigned iters = 100;
  /// Seed of the random inputs.
  uint64_t seed = 1;
  /// Read the output of the checked launch back and keep it in
  /// `RunResult::output`, also without the check.
  bool keepOutput = false;
  /// CTAs of a persistent kernel (0: one per SM), at most one per tile.
  uint64_t ctas = 0;
};

/// Attention inputs given instead of random ones: Q [B, H, SQ, D], K and V
/// [B, H, SK, D], contiguous words of the problem's element type.
struct AttentionInputs {
  std::vector<uint16_t> q, k, v;
};

/// `words` of a [B, X, Y, D] tensor as [B, Y, X, D]: (B, H, S, D) to
/// (B, S, H, D) with X = H and Y = S, and back with X = S and Y = H; with
/// B = 1, packed sequences' [H, T, D] to (T, H, D) and back.
std::vector<uint16_t> swapHeadsAndRows(const std::vector<uint16_t> &words,
                                       uint64_t b, uint64_t x, uint64_t y,
                                       uint64_t d);

/// What one run found.
struct RunResult {
  /// The problem as `describe` prints it.
  std::string problem;
  double flops = 0;
  /// Set when checked.
  std::optional<CheckReport> check;
  /// Set when checked, for attention: the log-sum-exp output.
  std::optional<RowValueReport> lseCheck;
  /// Lines saying what is wrong, when the check failed.
  std::vector<std::string> failure;
  /// Set when benchmarked: the median and the fastest launch, in ms.
  std::optional<double> medianMs;
  std::optional<double> minMs;
  /// With check and bench: output elements that differ between the checked
  /// launch and the last timed one (a nondeterministic kernel, or a race).
  uint64_t benchChanged = 0;
  /// With `RunOptions::keepOutput`: the output of the checked launch, words
  /// of the problem's element type.
  std::vector<uint16_t> output;
  /// With `RunOptions::keepOutput`, for attention: the log-sum-exp of each
  /// query row, [B, H, SQ] in natural log.
  std::vector<float> lse;

  /// The checks passed (or did not run) and the timed launches left the same
  /// output as the checked one.
  bool passed() const;
};

/// Runs `problem` with `kernel`, loaded from `file`, which must pass
/// `checkKernel` for the problem. Attention takes its inputs from `inputs`
/// when given (sized for the problem), else draws them.
runtime::Expected<RunResult> run(const runtime::Kernel &kernel,
                                 const runtime::KernelFile &file,
                                 const GemmProblem &problem,
                                 const RunOptions &options);
runtime::Expected<RunResult> run(const runtime::Kernel &kernel,
                                 const runtime::KernelFile &file,
                                 const AttentionProblem &problem,
                                 const RunOptions &options,
                                 const AttentionInputs *inputs = nullptr);

/// The one summary line of a run: "gemm m=1024 n=1024 k=1024:
/// rel_err=3.1e-03 max_abs=2.0e-02 PASS  time=0.123 ms  17.4 TFLOP/s"; an
/// attention run adds the log-sum-exp's error after max_abs: "lse_err=2.4e-07".
std::string formatSummary(const RunResult &result);

} // namespace fa4::runner

#endif // FA4_RUNNER_RUN_H

//===- Execution.cpp - One checked and timed launch -----------------------===//
//
// The sequence every run follows once its inputs are on the device: poison,
// launch, wait, read back, check; then warm-up launches and queued launches
// each timed by its own events, whose median is the reported time; and the
// summary line.
//
//===----------------------------------------------------------------------===//

#include "Execution.h"

#include "fa4/Runtime/Driver.h"

#include <algorithm>
#include <cstdio>

using namespace fa4::runner;
using namespace fa4::runtime;

Status fa4::runner::prepare(Launcher &launcher, Execution &execution) {
  if (Status s = launcher.prepare(); !s.ok())
    return s;
  execution.args = launcher.args();
  execution.config = launcher.config();
  return Status::success();
}

Expected<DeviceBuffer> fa4::runner::upload(const Driver &driver,
                                           const std::vector<uint16_t> &host,
                                           uint64_t words) {
  Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(driver, words * 2);
  if (!buffer.ok())
    return buffer;
  if (!host.empty())
    if (Status s = buffer->copyFromHost(host.data(), host.size() * 2); !s.ok())
      return s;
  return buffer;
}

/// Reads the output and the guard after it back from the device.
static Status readBack(const Execution &execution,
                       std::vector<uint16_t> &output,
                       std::vector<uint16_t> &guard) {
  std::vector<uint16_t> all(execution.outputElements + execution.guardElements);
  if (Status s = execution.output->copyToHost(all.data(), all.size() * 2);
      !s.ok())
    return s;
  output.assign(all.begin(), all.begin() + execution.outputElements);
  guard.assign(all.begin() + execution.outputElements, all.end());
  return Status::success();
}

Status fa4::runner::benchmark(const Kernel &kernel, const LaunchConfig &config,
                              const KernelArgs &args, const RunOptions &options,
                              std::optional<double> &medianMs,
                              std::optional<double> &minMs) {
  for (unsigned i = 0; i < options.warmup; ++i)
    if (Status s = launch(kernel, config, args); !s.ok())
      return s;
  // Two rounds, the better median: a GPU that was idle may still be raising
  // its clocks in the first (bench/attention.py times torch the same way).
  medianMs.reset();
  minMs.reset();
  for (int round = 0; round < 2; ++round) {
    Expected<std::vector<float>> queued =
        timeEachLaunch(kernel, config, args, options.iters);
    if (!queued.ok())
      return kernel.explainFailure(queued.status());
    if (Status s = kernel.driver().synchronize(); !s.ok())
      return kernel.explainFailure(s);
    std::vector<double> times(queued->begin(), queued->end());
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median =
        n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    medianMs = std::min(medianMs.value_or(median), median);
    minMs = std::min(minMs.value_or(times.front()), times.front());
  }
  return Status::success();
}

/// Reads the per-row output and its guard back from the device.
static Status readBackRowValues(const Execution &execution,
                                std::vector<float> &values,
                                std::vector<float> &guard) {
  uint64_t count = execution.outputElements / execution.cols;
  std::vector<float> all(count + execution.rowValueGuard);
  if (Status s = execution.rowValues->copyToHost(all.data(), all.size() * 4);
      !s.ok())
    return s;
  values.assign(all.begin(), all.begin() + count);
  guard.assign(all.begin() + count, all.end());
  return Status::success();
}

Expected<RunResult> fa4::runner::execute(const Kernel &kernel,
                                         Execution &execution,
                                         const RunOptions &options,
                                         RunResult result) {
  if (Status s = execution.output->fill8(0xff); !s.ok())
    return s;
  if (execution.rowValues)
    if (Status s = execution.rowValues->fill8(0xff); !s.ok())
      return s;
  if (Status s = launch(kernel, execution.config, execution.args); !s.ok())
    return s;
  if (Status s = kernel.driver().synchronize(); !s.ok())
    return kernel.explainFailure(s);

  std::vector<uint16_t> output, guard;
  std::vector<float> values, valueGuard;
  if (options.check || options.keepOutput) {
    if (Status s = readBack(execution, output, guard); !s.ok())
      return s;
    if (execution.rowValues)
      if (Status s = readBackRowValues(execution, values, valueGuard); !s.ok())
        return s;
  }
  if (options.keepOutput) {
    result.output =
        execution.toLogical ? execution.toLogical(output) : output;
    result.lse = values;
  }
  // Timed before the check, so that the timed launches follow the first one
  // as torch's follow its warm-up, not seconds of the CPU reference later
  // (that did not explain the spread between runs of long sequences:
  // bench/RESULTS.md, 2026-12-02).
  if (options.bench)
    if (Status s = benchmark(kernel, execution.config, execution.args,
                             options, result.medianMs, result.minMs);
        !s.ok())
      return s;
  if (options.check) {
    std::vector<double> reference = execution.reference();
    result.check = checkOutput(execution.elementType, output, execution.cols,
                               guard, execution.rows, reference);
    result.failure = describeFailure(*result.check, execution.naming);
    if (execution.rowValues) {
      result.lseCheck = checkRowValues(
          values, valueGuard,
          execution.rowValueRows.empty() ? execution.rows
                                         : execution.rowValueRows,
          execution.rowValueReference);
      for (std::string &line :
           describeFailure(*result.lseCheck, execution.naming, "lse"))
        result.failure.push_back(std::move(line));
    }
  }
  if (!options.bench || !options.check)
    return result;
  std::vector<uint16_t> after, afterGuard;
  if (Status s = readBack(execution, after, afterGuard); !s.ok())
    return s;
  for (uint64_t i = 0; i < output.size(); ++i)
    result.benchChanged += after[i] != output[i];
  if (result.benchChanged)
    result.failure.push_back(
        "unstable: " + std::to_string(result.benchChanged) +
        " output elements differ between the checked launch and the last "
        "timed one (same inputs): a race or a nondeterministic kernel");
  return result;
}

bool RunResult::passed() const {
  return (!check || check->passed()) && (!lseCheck || lseCheck->passed()) &&
         benchChanged == 0;
}

std::string fa4::runner::formatSummary(const RunResult &result) {
  char text[256];
  std::string line = result.problem + ":";
  if (result.check) {
    std::snprintf(text, sizeof(text), " rel_err=%.1e max_abs=%.1e",
                  result.check->relativeError, result.check->maxAbsError);
    line += text;
    if (result.lseCheck) {
      std::snprintf(text, sizeof(text), " lse_err=%.1e",
                    result.lseCheck->maxError);
      line += text;
    }
    line += result.passed() ? " PASS" : " FAIL";
  } else {
    line += std::string(" check=off") + (result.passed() ? "" : " FAIL");
  }
  if (result.medianMs) {
    double tflops = result.flops / (*result.medianMs * 1e-3) / 1e12;
    std::snprintf(text, sizeof(text), "  time=%.3f ms  %.1f TFLOP/s",
                  *result.medianMs, tflops);
    line += text;
  }
  return line;
}

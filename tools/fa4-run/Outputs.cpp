//===- Outputs.cpp - reading back the outputs of fa4-run's kernels --------===//

#include "Outputs.h"

#include "fa4/Runner/Element.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace fa4;
using runtime::ElementType;

std::pair<double, uint64_t>
run::relativeError(const std::vector<double> &got,
                   const std::vector<double> &want) {
  double diff = 0, norm = 0;
  uint64_t nans = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (std::isnan(got[i]))
      ++nans;
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return {std::sqrt(diff / std::max(norm, 1e-300)), nans};
}

std::vector<double> run::values(const runner::HostTensor &tensor) {
  std::vector<double> out(tensor.elements());
  for (size_t i = 0; i < out.size(); ++i) {
    if (tensor.elementType == ElementType::F32) {
      float f;
      std::memcpy(&f, tensor.bytes.data() + 4 * i, 4);
      out[i] = f;
    } else {
      uint16_t w;
      std::memcpy(&w, tensor.bytes.data() + 2 * i, 2);
      out[i] = runner::fromWord(tensor.elementType, w);
    }
  }
  return out;
}

const runner::HostTensor *run::find(const runner::KernelRunResult &result,
                                    const std::string &name) {
  for (const runner::HostTensor &tensor : result.after)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

void run::addScalars(
    const runtime::KernelFile &file,
    std::initializer_list<std::pair<const char *, double>> scalars,
    std::vector<runner::ArgumentSpec> &specs) {
  for (auto [name, value] : scalars)
    if (file.findParam(name)) {
      runner::ArgumentSpec spec;
      spec.name = name;
      spec.number = value;
      specs.push_back(spec);
    }
}

runtime::Expected<runner::KernelRunResult>
run::runStage(runtime::Driver &driver, const runtime::KernelFile &file,
              const std::vector<runner::ArgumentSpec> &specs,
              const runner::RunOptions &options, const char *label,
              RunOutcome &outcome) {
  runtime::Expected<runner::KernelInputs> inputs =
      runner::prepareInputs(file, specs, options.seed);
  if (!inputs.ok())
    return runtime::Status::error(std::string(label) + " kernel '" +
                                  file.entry +
                                  "': " + inputs.status().message());
  runtime::Expected<runtime::Kernel> kernel =
      runtime::Kernel::load(driver, file);
  if (!kernel.ok())
    return kernel.status();
  runtime::Expected<runner::KernelRunResult> result =
      runner::runKernel(*kernel, file, *inputs, options);
  if (!result.ok())
    return result.status();
  for (const std::string &line : result->failure) {
    outcome.lines.push_back(std::string(label) + ": " + line);
    outcome.passed = false;
  }
  if (result->medianMs) {
    outcome.totalMs += *result->medianMs;
    char line[192];
    std::snprintf(line, sizeof line, "%s kernel '%s': grid %s, time=%.3f ms",
                  label, file.entry.c_str(), result->grid.str().c_str(),
                  *result->medianMs);
    outcome.lines.push_back(line);
  }
  return result;
}

//===- Outputs.cpp - reading back the outputs of fa4-run's kernels --------===//

#include "Outputs.h"

#include "fa4/Runner/Element.h"

#include <algorithm>
#include <cmath>
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

//===- NpyFuzzer.cpp - the .npy reader under libFuzzer --------------------===//
//
// Any bytes as a .npy file: parsed; an accepted array is converted to each
// element type fa4-run reads it as.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Npy.h"

#include <string_view>

using namespace fa4::runner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  fa4::runtime::Expected<NpyArray> array = parseNpy(bytes, "input.npy");
  if (!array.ok() || array->elements() > (1u << 20))
    return 0;
  if (array->type == NpyType::I32 || array->type == NpyType::I64)
    (void)toIntegers(*array, "input.npy");
  else
    for (auto type : {fa4::runtime::ElementType::BF16,
                      fa4::runtime::ElementType::F16})
      (void)toWords(*array, type);
  return 0;
}

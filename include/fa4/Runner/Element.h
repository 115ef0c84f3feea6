//===- Element.h - The runner's 16-bit element types ------------*- C++ -*-===//
//
// The runner holds every input and output as 16-bit words of the kernel's
// element type, bf16 or f16 (the tensor maps' `type=` in the kernel file).
// These helpers convert words of either type to and from float, so that the
// inputs, the reference and the check follow the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_ELEMENT_H
#define FA4_RUNNER_ELEMENT_H

#include "fa4/KernelFormat/Types.h"
#include "fa4/Runner/BF16.h"
#include "fa4/Runner/F16.h"

#include <cstdint>

namespace fa4::runner {

/// Whether the runner runs kernels over `type`: bf16 and f16.
inline bool isRunnerElementType(runtime::ElementType type) {
  return type == runtime::ElementType::BF16 ||
         type == runtime::ElementType::F16;
}

/// `value` rounded to the nearest word of `type` (bf16 or f16), ties to even.
inline uint16_t toWord(runtime::ElementType type, float value) {
  return type == runtime::ElementType::F16 ? toF16(value) : toBF16(value);
}

/// The float with the value of the `type` word `word` (exact).
inline float fromWord(runtime::ElementType type, uint16_t word) {
  return type == runtime::ElementType::F16 ? fromF16(word) : fromBF16(word);
}

/// Whether the `type` word `word` is a NaN; the 0xffff poison is one in both.
inline bool isNaNWord(runtime::ElementType type, uint16_t word) {
  return type == runtime::ElementType::F16 ? isNaNF16(word) : isNaNBF16(word);
}

} // namespace fa4::runner

#endif // FA4_RUNNER_ELEMENT_H

//===- BF16.h - bfloat16 on the host ----------------------------*- C++ -*-===//
//
// The bf16 values the runner uploads and reads back, as raw 16-bit words:
// conversion from float with round-to-nearest-even (NaN kept a NaN) and the
// exact conversion back.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_BF16_H
#define FA4_RUNNER_BF16_H

#include <cstdint>
#include <cstring>

namespace fa4::runner {

/// `value` rounded to the nearest bf16, ties to even; NaN stays a quiet NaN.
inline uint16_t toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

/// The float with the value of the bf16 `word` (exact).
inline float fromBF16(uint16_t word) {
  uint32_t bits = uint32_t(word) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Whether the bf16 `word` is a NaN (all exponent bits set, mantissa not 0).
inline bool isNaNBF16(uint16_t word) {
  return (word & 0x7f80u) == 0x7f80u && (word & 0x007fu) != 0;
}

} // namespace fa4::runner

#endif // FA4_RUNNER_BF16_H

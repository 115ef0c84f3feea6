//===- F16.h - IEEE half precision on the host ------------------*- C++ -*-===//
//
// The f16 values the runner uploads and reads back for f16 kernels, as raw
// 16-bit words: conversion from float with round-to-nearest-even (overflow to
// infinity, subnormals kept, NaN kept a NaN) and the exact conversion back.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_F16_H
#define FA4_RUNNER_F16_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace fa4::runner {

/// `value` rounded to the nearest f16, ties to even; values past the largest
/// finite f16 become infinities and NaN stays a quiet NaN.
inline uint16_t toF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u)
    return sign | 0x7e00u;
  // Below 2^-14 the result is an f16 subnormal, a multiple of 2^-24: the
  // float's 24-bit significand shifted right, rounded to nearest even.
  if (abs < 0x38800000u) {
    // Up to 2^-25, the halfway point to the smallest subnormal, is 0.
    if (abs <= 0x33000000u)
      return sign;
    uint32_t significand = (abs & 0x7fffffu) | 0x800000u;
    unsigned shift = 126 - (abs >> 23);
    uint32_t result = significand >> shift;
    uint32_t rest = significand & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (result & 1u)))
      ++result;
    return sign | uint16_t(result);
  }
  // Rebias the exponent (127 to 15) and round away 13 significand bits; a
  // carry into the exponent is the right result, up to infinity.
  uint32_t rebiased = abs - 0x38000000u;
  rebiased += 0xfffu + ((rebiased >> 13) & 1u);
  uint32_t result = rebiased >> 13;
  return sign | uint16_t(result >= 0x7c00u ? 0x7c00u : result);
}

/// The float with the value of the f16 `word` (exact).
inline float fromF16(uint16_t word) {
  unsigned exponent = (word >> 10) & 0x1fu, significand = word & 0x3ffu;
  float magnitude;
  if (exponent == 0x1f)
    magnitude = significand ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(float(significand), -24);
  else
    magnitude = std::ldexp(float(significand | 0x400u), int(exponent) - 25);
  return word & 0x8000u ? -magnitude : magnitude;
}

/// Whether the f16 `word` is a NaN (all exponent bits set, mantissa not 0).
inline bool isNaNF16(uint16_t word) {
  return (word & 0x7c00u) == 0x7c00u && (word & 0x03ffu) != 0;
}

} // namespace fa4::runner

#endif // FA4_RUNNER_F16_H

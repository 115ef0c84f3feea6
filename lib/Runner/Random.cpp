//===- Random.cpp - Seeded random inputs ----------------------------------===//
//
// SplitMix64 used as a counter-based generator: the state of element i is the
// seed-derived start plus (i + 1) times the golden gamma, so any element can
// be drawn on its own and tensors are filled in parallel.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Random.h"
#include "fa4/Runner/Element.h"

#include "Parallel.h"

using namespace fa4::runner;

/// SplitMix64's increment, 2^64 / golden ratio.
static constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;

/// SplitMix64's output function.
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t fa4::runner::randomBits(uint64_t seed, uint64_t stream,
                                 uint64_t counter) {
  uint64_t start = mix(mix(seed) ^ (stream * kGamma + 1));
  return mix(start + (counter + 1) * kGamma);
}

/// A float uniform in [-1, 1) from the top 24 bits of `bits`.
static float uniform(uint64_t bits) {
  return float(bits >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

void fa4::runner::fillUniform(std::vector<uint16_t> &values,
                              fa4::runtime::ElementType type, uint64_t seed,
                              uint64_t stream) {
  uint64_t count = values.size();
  parallelFor(count, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      uint16_t word = toWord(type, uniform(randomBits(seed, stream, i)));
      // A zero would hide an unwritten or wrongly indexed element; draw again
      // from counters past the tensor's own.
      for (uint64_t retry = 1; (word & 0x7fffu) == 0; ++retry)
        word = toWord(
            type, uniform(randomBits(seed, stream, count + i * 64 + retry)));
      values[i] = word;
    }
  });
}

void fa4::runner::fillUniform(std::vector<float> &values, uint64_t seed,
                              uint64_t stream) {
  uint64_t count = values.size();
  parallelFor(count, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      float value = uniform(randomBits(seed, stream, i));
      for (uint64_t retry = 1; value == 0; ++retry)
        value = uniform(randomBits(seed, stream, count + i * 64 + retry));
      values[i] = value;
    }
  });
}

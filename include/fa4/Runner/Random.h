//===- Random.h - Seeded random inputs --------------------------*- C++ -*-===//
//
// The runner's inputs: bf16 or f16 values uniform in [-1, 1], never zero, from
// a counter-based generator (SplitMix64), so that element i of a tensor depends
// only on the seed, the tensor's stream number and i, whatever the machine
// and however the work is split over threads.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_RANDOM_H
#define FA4_RUNNER_RANDOM_H

#include "fa4/KernelFormat/Types.h"

#include <cstdint>
#include <vector>

namespace fa4::runner {

/// The 64-bit SplitMix64 output for counter `counter` of stream `stream` of
/// generator `seed`.
uint64_t randomBits(uint64_t seed, uint64_t stream, uint64_t counter);

/// Fills `values` with words of `type` (bf16 or f16) uniform in [-1, 1]:
/// element i is `randomBits(seed, stream, i)` scaled and rounded to `type`,
/// redrawn (with further counters) in the rare case that it rounds to zero.
void fillUniform(std::vector<uint16_t> &values, runtime::ElementType type,
                 uint64_t seed, uint64_t stream);

/// Fills `values` with floats uniform in [-1, 1), never zero, drawn like the
/// words of `fillUniform` from `seed` and `stream`.
void fillUniform(std::vector<float> &values, uint64_t seed, uint64_t stream);

} // namespace fa4::runner

#endif // FA4_RUNNER_RANDOM_H

//===- Parallel.h - Work spread over the CPU cores --------------*- C++ -*-===//
//
// A parallel for loop over an index range on std::threads, for the host side
// of a run (inputs, references, scans), which would otherwise take longer
// than the kernel launches it checks.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_RUNNER_PARALLEL_H
#define FA4_LIB_RUNNER_PARALLEL_H

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace fa4::runner {

/// Calls `body(begin, end)` on disjoint chunks covering [0, count), on up to
/// one thread per core; each chunk holds at least `grain` indices.
template <typename Body>
void parallelFor(uint64_t count, uint64_t grain, Body body) {
  uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  uint64_t chunks = std::min(cores, std::max<uint64_t>(1, count / grain));
  if (chunks <= 1) {
    body(uint64_t(0), count);
    return;
  }
  std::vector<std::thread> threads;
  for (uint64_t c = 0; c < chunks; ++c)
    threads.emplace_back(body, count * c / chunks, count * (c + 1) / chunks);
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace fa4::runner

#endif // FA4_LIB_RUNNER_PARALLEL_H

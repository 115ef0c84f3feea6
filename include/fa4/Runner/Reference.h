//===- Reference.h - float64 references on the CPU --------------*- C++ -*-===//
//
// What the kernels must compute, in float64 on the CPU from the same
// inputs (bf16 or f16 words, the problem's element type), for a chosen set of
// output rows only: the runner checks a sample of
// the rows of large problems. The rows are computed on all CPU cores.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_REFERENCE_H
#define FA4_RUNNER_REFERENCE_H

#include "fa4/Runner/Problem.h"

#include <cstdint>
#include <vector>

namespace fa4::runner {

/// Rows `rows` of C = A·Bᵀ for A [M, K] and B [N, K] (words of the problem's
/// element type, row-major):
/// `rows.size()` x N values, row after row.
std::vector<double> referenceGemm(const GemmProblem &problem,
                                  const std::vector<uint16_t> &a,
                                  const std::vector<uint16_t> &b,
                                  const std::vector<uint64_t> &rows);

/// Rows `rows` of O viewed as [B·H·SQ, Dv] (row r is query r % SQ of head
/// r / SQ; Q, K and V contiguous (B, H, S, D), V's D being Dv, K and V with
/// the problem's KV heads): `rows.size()` x Dv values, row after row. The
/// softmax is computed with the row maximum subtracted; a row that sees no
/// key is 0. With `lse`, also each row's log-sum-exp ln Σ_j exp(scale ·
/// q·k_j), −inf for a row that sees no key. For packed sequences, Q, K and V
/// are (T, H, D) (V's D: Dv) and row r of O viewed as [TQ·H, Dv] is token
/// r / H of head r % H.
std::vector<double> referenceAttention(const AttentionProblem &problem,
                                       const std::vector<uint16_t> &q,
                                       const std::vector<uint16_t> &k,
                                       const std::vector<uint16_t> &v,
                                       const std::vector<uint64_t> &rows,
                                       std::vector<double> *lse = nullptr);

/// The keys query row `i` (0 <= i < SQ) sees, [first, end): all SK, or with
/// causal masking and a window those from i + SK - SQ - left to
/// i + SK - SQ + right (right 0 when causal), clipped to [0, SK).
struct KeyRange {
  uint64_t first = 0, end = 0;
  uint64_t size() const { return end > first ? end - first : 0; }
};
KeyRange visibleRange(const AttentionProblem &problem, uint64_t i);
/// The number of keys query row `i` sees: `visibleRange(problem, i).size()`.
uint64_t visibleKeys(const AttentionProblem &problem, uint64_t i);

} // namespace fa4::runner

#endif // FA4_RUNNER_REFERENCE_H

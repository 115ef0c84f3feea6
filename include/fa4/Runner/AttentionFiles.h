//===- AttentionFiles.h - Attention inputs from .npy files ------*- C++ -*-===//
//
// Q, K and V given as .npy files instead of drawn at random, and O written
// back as one: the files fix the problem's sizes (B, H, SQ, SK, D, Dv),
// which must agree with any size given otherwise, and with each other,
// before anything is allocated or launched; the log-sum-exp is written as
// one too.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_ATTENTIONFILES_H
#define FA4_RUNNER_ATTENTIONFILES_H

#include "fa4/Runner/Npy.h"
#include "fa4/Runner/Problem.h"
#include "fa4/Runner/Run.h"

#include <string>

namespace fa4::runner {

/// Q, K and V as read, before the kernel's element type is known.
struct AttentionArrays {
  NpyArray q, k, v;
};

/// Reads Q, K and V from the .npy files `q`, `k` and `v`, each of rank 4,
/// (B, H, S, D) whatever the problem's device layout: K and V of the same
/// shape but for the head dim, Q with their B and K's D (and heads a
/// multiple of theirs: grouped-query attention). Sets the sizes of `problem`
/// from them, the KV heads from K and V's head dim (headDimV) from V; a size
/// already set (not 0) must agree. `packed`: packed sequences, each of rank
/// 3, (T, H, D), whose tokens must be those of the problem's lengths when it
/// has them.
runtime::Expected<AttentionArrays>
readAttentionArrays(const std::string &q, const std::string &k,
                    const std::string &v, AttentionProblem &problem,
                    bool packed = false);
/// The cumulative sequence offsets (cu_seqlens) in the .npy file `path`: a
/// 1-d array of '<i4' or '<i8'.
runtime::Expected<std::vector<int64_t>>
readSequenceOffsets(const std::string &path);

/// The arrays as words of `type`, converted with round-to-nearest-even.
AttentionInputs toInputs(const AttentionArrays &arrays,
                         runtime::ElementType type);

/// Writes O of `problem`, `words` of its element type, to the .npy file
/// `path` with the shape (B, H, SQ, Dv), or (TQ, H, Dv) for packed
/// sequences.
runtime::Status writeAttentionOutput(const std::string &path,
                                     const AttentionProblem &problem,
                                     const std::vector<uint16_t> &words);

/// Writes the log-sum-exp of each query row of `problem` to the .npy file
/// `path`, shape (B, H, SQ) or (H, TQ) for packed sequences, dtype '<f4'.
runtime::Status writeAttentionLse(const std::string &path,
                                  const AttentionProblem &problem,
                                  const std::vector<float> &lse);

} // namespace fa4::runner

#endif // FA4_RUNNER_ATTENTIONFILES_H

//===- AttentionFiles.cpp - Attention inputs from .npy files --------------===//
//
// Reads the three input arrays, checks their ranks and that their shapes fit
// together and with the sizes given on the command line, and writes O. Every
// refusal names the file and the numbers that disagree.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/AttentionFiles.h"

#include <algorithm>

using namespace fa4::runner;
using fa4::runtime::ElementType;
using fa4::runtime::Expected;
using fa4::runtime::Status;

namespace {
/// One size of the problem that a file fixes.
struct Bound {
  const char *name;
  uint64_t *target;
  uint64_t value;
  const std::string *path;
  const NpyArray *array;
};
} // namespace

Expected<AttentionArrays>
fa4::runner::readAttentionArrays(const std::string &q, const std::string &k,
                                 const std::string &v,
                                 AttentionProblem &problem, bool packed) {
  AttentionArrays arrays;
  size_t rank = packed ? 3 : 4;
  for (auto [path, array] :
       {std::pair{&q, &arrays.q}, {&k, &arrays.k}, {&v, &arrays.v}}) {
    Expected<NpyArray> read = readNpy(*path);
    if (!read.ok())
      return read.status();
    *array = read.take();
    if (array->shape.size() != rank)
      return Status::error(*path + ": shape " + array->shapeText() +
                           " has rank " + std::to_string(array->shape.size()) +
                           (packed ? ", not 3 (T, H, D) of packed sequences"
                                   : ", not 4 (B, H, S, D)"));
  }
  const std::vector<uint64_t> &qs = arrays.q.shape, &ks = arrays.k.shape,
                              &vs = arrays.v.shape;
  // V's head dim, the last, is its own (Dv); the rest is K's.
  if (!std::equal(ks.begin(), ks.end() - 1, vs.begin()))
    return Status::error(k + " and " + v + " disagree: K has shape " +
                         arrays.k.shapeText() + ", V " + arrays.v.shapeText() +
                         " (only their head dims may differ)");
  if (packed) {
    if (qs[2] != ks[2])
      return Status::error(q + " and " + k + " disagree on the head dim: Q " +
                           "has shape " + arrays.q.shapeText() + ", K " +
                           arrays.k.shapeText());
    // The tokens must be those of the lengths given (--seqlens); offsets
    // from files are checked against them by the caller.
    if (problem.isVarlen())
      for (auto [path, array, tokens, what] :
           {std::tuple{&q, &arrays.q, problem.totalQ(), "query"},
            {&k, &arrays.k, problem.totalK(), "key"}})
        if (array->shape[0] != tokens)
          return Status::error(*path + ": shape " + array->shapeText() +
                               " has " + std::to_string(array->shape[0]) +
                               " tokens, the " + what + " lengths add up to " +
                               std::to_string(tokens));
    Bound bounds[] = {{"heads", &problem.heads, qs[1], &q, &arrays.q},
                      {"kv-heads", &problem.kvHeads, ks[1], &k, &arrays.k},
                      {"head-dim", &problem.headDim, qs[2], &q, &arrays.q},
                      {"head-dim-v", &problem.headDimV, vs[2], &v, &arrays.v}};
    for (const Bound &bound : bounds) {
      if (*bound.target != 0 && *bound.target != bound.value)
        return Status::error(std::string(bound.name) + " = " +
                             std::to_string(*bound.target) +
                             " disagrees with " + *bound.path +
                             ", whose shape " + bound.array->shapeText() +
                             " has " + bound.name + " " +
                             std::to_string(bound.value));
      *bound.target = bound.value;
    }
    return arrays;
  }
  for (auto [i, dim] : {std::pair{0, "batch"}, {3, "head dim"}})
    if (qs[i] != ks[i])
      return Status::error(q + " and " + k + " disagree on the " + dim +
                           ": Q has shape " + arrays.q.shapeText() + ", K " +
                           arrays.k.shapeText());
  Bound bounds[] = {{"batch", &problem.batch, qs[0], &q, &arrays.q},
                    {"heads", &problem.heads, qs[1], &q, &arrays.q},
                    {"seq-q", &problem.seqQ, qs[2], &q, &arrays.q},
                    {"seq-k", &problem.seqK, ks[2], &k, &arrays.k},
                    {"kv-heads", &problem.kvHeads, ks[1], &k, &arrays.k},
                    {"head-dim", &problem.headDim, qs[3], &q, &arrays.q},
                    {"head-dim-v", &problem.headDimV, vs[3], &v, &arrays.v}};
  for (const Bound &bound : bounds) {
    if (*bound.target != 0 && *bound.target != bound.value)
      return Status::error(std::string(bound.name) + " = " +
                           std::to_string(*bound.target) + " disagrees with " +
                           *bound.path + ", whose shape " +
                           bound.array->shapeText() + " has " + bound.name +
                           " " + std::to_string(bound.value));
    *bound.target = bound.value;
  }
  return arrays;
}

AttentionInputs fa4::runner::toInputs(const AttentionArrays &arrays,
                                      ElementType type) {
  return {toWords(arrays.q, type), toWords(arrays.k, type),
          toWords(arrays.v, type)};
}

Status fa4::runner::writeAttentionOutput(const std::string &path,
                                         const AttentionProblem &problem,
                                         const std::vector<uint16_t> &words) {
  uint64_t dv = problem.valueHeadDim();
  if (problem.isVarlen())
    return writeNpy(path, problem.elementType,
                    {problem.totalQ(), problem.heads, dv}, words);
  return writeNpy(path, problem.elementType,
                  {problem.batch, problem.heads, problem.seqQ, dv}, words);
}

Status fa4::runner::writeAttentionLse(const std::string &path,
                                      const AttentionProblem &problem,
                                      const std::vector<float> &lse) {
  if (problem.isVarlen())
    return writeNpy(path, {problem.heads, problem.totalQ()}, lse);
  return writeNpy(path, {problem.batch, problem.heads, problem.seqQ}, lse);
}

Expected<std::vector<int64_t>>
fa4::runner::readSequenceOffsets(const std::string &path) {
  Expected<NpyArray> array = readNpy(path);
  if (!array.ok())
    return array.status();
  if (array->shape.size() != 1)
    return Status::error(path + ": shape " + array->shapeText() +
                         " has rank " + std::to_string(array->shape.size()) +
                         ", not 1 (B + 1 offsets)");
  return toIntegers(*array, path);
}

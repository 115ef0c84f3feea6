//===- TmaRules.cpp - the TMA rules of a tensor map -----------------------===//
//
// The TMA rules of cuTensorMapEncodeTiled, checked with messages that name
// the numbers, without CUDA: the kernel-file verifier checks a box with
// them, the runtime a whole tensor map before it encodes one.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/TmaRules.h"

#include <algorithm>
#include <sstream>

using namespace fa4::runtime;

static constexpr unsigned kMaxRank = 5;
static constexpr uint64_t kMaxGlobalDim = uint64_t(1) << 32;
static constexpr uint64_t kStrideLimit = uint64_t(1) << 40;
static constexpr uint32_t kMaxBoxDim = 256;
static constexpr uint64_t kAlignment = 16;

/// "[a, b, c]".
template <typename T> static std::string list(const std::vector<T> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// Checks that no dimension's stride falls inside the extent of the
/// dimension below it in memory. Dimension 0 is the contiguous one; the others
/// may be in any order of stride (a BSHD tensor viewed as D, S, H, B is fine).
/// A dimension of extent 1 has one index and cannot overlap anything: its
/// stride does not count (one KV head of a (B, S, 1, D) tensor).
static Status checkNoOverlap(const TensorMapSpec &spec) {
  struct Dim {
    unsigned index;
    uint64_t extent;
    uint64_t stride;
  };
  std::vector<Dim> dims = {
      {0, spec.globalDims[0], elementSize(spec.elementType)}};
  for (unsigned i = 1; i < spec.rank(); ++i)
    if (spec.globalDims[i] > 1)
      dims.push_back({i, spec.globalDims[i], spec.globalStrides[i - 1]});
  std::stable_sort(
      dims.begin() + 1, dims.end(),
      [](const Dim &a, const Dim &b) { return a.stride < b.stride; });
  for (size_t i = 1; i < dims.size(); ++i) {
    const Dim &below = dims[i - 1], &dim = dims[i];
    // extent * stride may not fit in 64 bits; compare by division instead.
    if (below.extent > dim.stride / below.stride)
      return Status::error("global dim " + std::to_string(dim.index) +
                           " (stride " + std::to_string(dim.stride) +
                           " B) overlaps global dim " +
                           std::to_string(below.index) + ", which spans " +
                           std::to_string(below.extent) + " x " +
                           std::to_string(below.stride) + " B");
  }
  return Status::success();
}

Status fa4::runtime::checkTensorMap(const TensorMapSpec &spec,
                                    uint64_t globalAddress) {
  unsigned rank = spec.rank();
  if (rank < 1 || rank > kMaxRank)
    return Status::error("tensor map rank " + std::to_string(rank) +
                         " is outside [1, " + std::to_string(kMaxRank) + "]");
  if (spec.globalStrides.size() != rank - 1)
    return Status::error("tensor map of rank " + std::to_string(rank) +
                         " needs " + std::to_string(rank - 1) +
                         " global strides, got " +
                         std::to_string(spec.globalStrides.size()));
  if (spec.boxDims.size() != rank)
    return Status::error("tensor map of rank " + std::to_string(rank) +
                         " needs " + std::to_string(rank) + " box dims, got " +
                         std::to_string(spec.boxDims.size()));

  if (globalAddress % kAlignment != 0) {
    std::ostringstream os;
    os << "global address 0x" << std::hex << globalAddress << std::dec
       << " is not " << kAlignment << "-byte aligned";
    return Status::error(os.str());
  }

  for (unsigned i = 0; i < rank; ++i)
    if (spec.globalDims[i] < 1 || spec.globalDims[i] > kMaxGlobalDim)
      return Status::error("global dim " + std::to_string(i) + " is " +
                           std::to_string(spec.globalDims[i]) +
                           "; each global dim must be in [1, 2^32]");

  for (unsigned i = 1; i < rank; ++i) {
    uint64_t stride = spec.globalStrides[i - 1];
    if (stride % kAlignment != 0)
      return Status::error("global stride of dim " + std::to_string(i) +
                           " is " + std::to_string(stride) +
                           " B, not a multiple of " +
                           std::to_string(kAlignment) + " B");
    if (stride >= kStrideLimit)
      return Status::error("global stride of dim " + std::to_string(i) +
                           " is " + std::to_string(stride) +
                           " B; strides must be below 2^40 B");
  }
  if (Status status = checkNoOverlap(spec); !status.ok())
    return status;

  return checkTensorMapBox(spec.elementType, spec.boxDims, spec.swizzle);
}

Status fa4::runtime::checkTensorMapBox(ElementType elementType,
                                       const std::vector<uint32_t> &boxDims,
                                       Swizzle swizzle) {
  if (boxDims.empty() || boxDims.size() > kMaxRank)
    return Status::error("a box of rank " + std::to_string(boxDims.size()) +
                         " is outside [1, " + std::to_string(kMaxRank) + "]");
  for (unsigned i = 0; i < boxDims.size(); ++i)
    if (boxDims[i] < 1 || boxDims[i] > kMaxBoxDim)
      return Status::error("box dim " + std::to_string(i) + " is " +
                           std::to_string(boxDims[i]) +
                           "; each box dim must be in [1, " +
                           std::to_string(kMaxBoxDim) + "]");
  uint64_t innerBytes = uint64_t(boxDims[0]) * elementSize(elementType);
  std::string inner = "box inner extent " + std::to_string(innerBytes) +
                      " B (" + std::to_string(boxDims[0]) + " x " +
                      elementTypeName(elementType) + ")";
  if (innerBytes % kAlignment != 0)
    return Status::error(inner + " is not a multiple of " +
                         std::to_string(kAlignment) + " B");
  unsigned span = swizzleBytes(swizzle);
  if (span != 0 && innerBytes > span)
    return Status::error(inner + " exceeds the " + std::to_string(span) +
                         " B swizzle span");
  return Status::success();
}

std::string fa4::runtime::describeTensorMap(const TensorMapSpec &spec) {
  return "rank-" + std::to_string(spec.rank()) + " " +
         elementTypeName(spec.elementType) + " tensor map with dims " +
         list(spec.globalDims) + ", strides " + list(spec.globalStrides) +
         " B, box " + list(spec.boxDims) + ", swizzle " +
         std::to_string(swizzleBytes(spec.swizzle)) + " B";
}

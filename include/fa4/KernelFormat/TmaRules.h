//===- TmaRules.h - the TMA rules of a tensor map ---------------*- C++ -*-===//
//
// A tiled view of a tensor as cuTensorMapEncodeTiled takes it, and the TMA
// rules that otherwise surface as an opaque CUDA_ERROR_INVALID_VALUE from
// that call, or as a fault at launch, checked with messages that name the
// offending numbers. No CUDA: the kernel-file verifier checks boxes with
// them, the runtime whole tensor maps before it encodes one.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_TMARULES_H
#define FA4_KERNELFORMAT_TMARULES_H

#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fa4::runtime {

/// A tiled view of a tensor in global memory, in the order
/// cuTensorMapEncodeTiled takes it: dimension 0 is the innermost
/// (contiguous) one. Element strides are 1, there is no interleave, and L2
/// promotion is 128 B.
struct TensorMapSpec {
  ElementType elementType = ElementType::BF16;
  /// Extent of each dimension in elements, innermost first; the rank (1 to 5)
  /// is the number of entries.
  std::vector<uint64_t> globalDims;
  /// Stride in bytes of dimensions 1 to rank-1 (rank-1 entries); dimension 0
  /// is contiguous, its stride is the element size.
  std::vector<uint64_t> globalStrides;
  /// Box (tile) extent of each dimension in elements, innermost first.
  std::vector<uint32_t> boxDims;
  Swizzle swizzle = Swizzle::None;
  OobFill oobFill = OobFill::Zero;

  /// Number of dimensions.
  unsigned rank() const { return unsigned(globalDims.size()); }
};

/// Checks `spec` over a tensor at `globalAddress` against the TMA rules:
/// rank in [1, 5] with matching dims, strides and box; address 16-byte
/// aligned; dims in [1, 2^32]; strides multiples of 16 B, below 2^40 B and not
/// overlapping another dimension's extent (one of extent 1 cannot); box dims
/// in [1, 256]; box inner extent a multiple of 16 B and, when swizzled,
/// within the swizzle span.
/// The rules of a box alone (what a kernel file fixes before any tensor is
/// bound): rank 1 to 5, each extent in [1, 256], the inner extent a multiple
/// of 16 bytes and within the swizzle span.
Status checkTensorMapBox(ElementType elementType,
                         const std::vector<uint32_t> &boxDims, Swizzle swizzle);

Status checkTensorMap(const TensorMapSpec &spec, uint64_t globalAddress);

/// "rank-3 bf16 tensor map with dims [...], strides [...] B, box [...],
/// swizzle 128 B": what a message about `spec` names.
std::string describeTensorMap(const TensorMapSpec &spec);

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_TMARULES_H

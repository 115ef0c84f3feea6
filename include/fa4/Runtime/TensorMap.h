//===- TensorMap.h - TMA tensor maps ----------------------------*- C++ -*-===//
//
// Building the TMA descriptors (CUtensorMap) that kernels take by value. The
// TMA rules that otherwise surface as an opaque CUDA_ERROR_INVALID_VALUE from
// cuTensorMapEncodeTiled, or as a fault at launch, are checked first by
// `checkTensorMap`, whose messages name the offending numbers; that check
// needs no driver.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_TENSORMAP_H
#define FA4_RUNTIME_TENSORMAP_H

#include "fa4/Runtime/Status.h"
#include "fa4/Runtime/Types.h"

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace fa4::runtime {

class Driver;

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

/// Checks `spec` with `checkTensorMap`, then encodes it for the tensor at
/// `globalAddress` with cuTensorMapEncodeTiled. The result is the 128-byte
/// descriptor (128-byte aligned as cuda.h 13 declares it; the hardware needs
/// 64) to pass by value as a kernel parameter.
Expected<CUtensorMap> encodeTensorMap(const Driver &driver,
                                      const TensorMapSpec &spec,
                                      CUdeviceptr globalAddress);

} // namespace fa4::runtime

#endif // FA4_RUNTIME_TENSORMAP_H

//===- TensorMap.h - TMA tensor maps ----------------------------*- C++ -*-===//
//
// Building the TMA descriptors (CUtensorMap) that kernels take by value,
// after the TMA rules (fa4/KernelFormat/TmaRules.h) are checked.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNTIME_TENSORMAP_H
#define FA4_RUNTIME_TENSORMAP_H

#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/TmaRules.h"

#include <cuda.h>

namespace fa4::runtime {

class Driver;

/// Checks `spec` with `checkTensorMap`, then encodes it for the tensor at
/// `globalAddress` with cuTensorMapEncodeTiled. The result is the 128-byte
/// descriptor (128-byte aligned as cuda.h 13 declares it; the hardware needs
/// 64) to pass by value as a kernel parameter.
Expected<CUtensorMap> encodeTensorMap(const Driver &driver,
                                      const TensorMapSpec &spec,
                                      CUdeviceptr globalAddress);

} // namespace fa4::runtime

#endif // FA4_RUNTIME_TENSORMAP_H

//===- KernelSource.h - where libfa4 gets its kernels -----------*- C++ -*-===//
//
// libfa4 gets a kernel by its key through one hook: with the compiler, compiled
// or from the compile cache (KernelSourceCompiler.cpp); without it, a kernel
// file from $FA4_KERNEL_DIR (KernelSourceFiles.cpp). The rest of the library
// needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_CAPI_KERNELSOURCE_H
#define FA4_LIB_CAPI_KERNELSOURCE_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/KernelKey.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/fa4.h"

#include <cstdint>
#include <string>

namespace fa4::capi {

/// A kernel file and how it was got.
struct SourcedKernel {
  runtime::KernelFile file;
  fa4_source source = FA4_SOURCE_COMPILED;
  double seconds = 0;
};

/// The kernel of `key`. Thread-safe.
runtime::Expected<SourcedKernel> getKernel(const KernelKey &key);

/// What fa4_version says after "fa4 <version> ".
const char *buildDescription();

} // namespace fa4::capi

#endif // FA4_LIB_CAPI_KERNELSOURCE_H

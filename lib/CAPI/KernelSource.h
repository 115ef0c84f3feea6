//===- KernelSource.h - where libfa4 gets its kernels -----------*- C++ -*-===//
//
// libfa4 gets a shipped kernel through one hook: with the compiler, compiled
// or from the compile cache (KernelSourceCompiler.cpp); without it, a kernel
// file from $FA4_KERNEL_DIR (KernelSourceFiles.cpp). The rest of the library
// needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_CAPI_KERNELSOURCE_H
#define FA4_LIB_CAPI_KERNELSOURCE_H

#include "fa4/Runtime/KernelFile.h"
#include "fa4/Runtime/Status.h"
#include "fa4/fa4.h"

#include <cstdint>
#include <string>

namespace fa4::capi {

/// A shipped kernel's plan choices; 0 is the derived choice.
struct Plan {
  int32_t kvStages = 0;
  int32_t blockN = 0;
};

/// A kernel file and how it was got.
struct SourcedKernel {
  runtime::KernelFile file;
  fa4_source source = FA4_SOURCE_COMPILED;
  double seconds = 0;
};

/// The shipped kernel `name` with `plan`. Thread-safe.
runtime::Expected<SourcedKernel> getKernel(const std::string &name,
                                           const Plan &plan);

/// What fa4_version says after "fa4 <version> ".
const char *buildDescription();

} // namespace fa4::capi

#endif // FA4_LIB_CAPI_KERNELSOURCE_H

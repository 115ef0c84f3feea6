//===- KernelSourceCompiler.cpp - libfa4's kernels from the compiler ------===//
//
// With the compiler, libfa4 gets the kernel of a key through
// `getShippedKernel`: this process's table, the compile cache
// ($FA4_CACHE_DIR), or a compile. One MLIR context serves the process; the
// compiles take turns.
//
//===----------------------------------------------------------------------===//

#include "KernelSource.h"

#include "fa4/Compiler/Compiler.h"
#include "fa4/KernelFormat/KernelCache.h"

#include <mutex>

namespace rt = ::fa4::runtime;

const char *fa4::capi::buildDescription() {
  static const std::string text =
      std::string("(compiler build ") +
      std::string(mlir::fa4::getCompilerBuildId()).substr(0, 16) + ")";
  return text.c_str();
}

rt::Expected<fa4::capi::SourcedKernel>
fa4::capi::getKernel(const KernelKey &key) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  static mlir::MLIRContext *context =
      mlir::fa4::createCompilerContext().release();
  mlir::fa4::DiagnosticText diagnostics(*context);
  mlir::fa4::ShippedKernelRequest request;
  request.key = key;
  request.cacheDirectory = rt::defaultCacheDirectory().value_or("");
  mlir::FailureOr<mlir::fa4::ShippedKernel> got =
      mlir::fa4::getShippedKernel(*context, request);
  if (failed(got))
    return rt::Status::error("compiling '" + key.name() + "' failed: " +
                             diagnostics.str());
  SourcedKernel kernel;
  kernel.file = std::move(got->file);
  kernel.seconds = got->seconds;
  switch (got->source) {
  case mlir::fa4::ShippedKernel::Source::Compiled:
    kernel.source = FA4_SOURCE_COMPILED;
    break;
  case mlir::fa4::ShippedKernel::Source::Cache:
    kernel.source = FA4_SOURCE_CACHE;
    break;
  case mlir::fa4::ShippedKernel::Source::Process:
    kernel.source = FA4_SOURCE_PROCESS;
    break;
  }
  return kernel;
}

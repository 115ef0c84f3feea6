//===- Compiler.h - compile fa4's kernels to kernel files ---------*- C++
//-*-===//
//
// The compiler as one call: a kernel program that fa4 ships (or any fa4-level
// module) goes through the fa4-to-llvm pipeline, LLVM IR, PTX and ptxas into
// a kernel file the runtime loads. Each stage's text can be kept for
// `--emit` and `--dump-dir`. This is the API fa4-run (and any later binding)
// calls.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_COMPILER_COMPILER_H
#define FA4_COMPILER_COMPILER_H

#include "fa4/Runtime/KernelFile.h"
#include "fa4/Target/Target.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>

namespace mlir::fa4 {

/// The kernels fa4 ships: `attention-hd64`, `attention-hd128` (bf16),
/// `attention-hd64-f16`, `attention-hd128-f16`, `gemm`.
ArrayRef<StringRef> getShippedKernels();

/// The fa4-level source of a shipped kernel, or nothing for an unknown name.
std::optional<StringRef> getShippedKernelSource(StringRef name);

/// What a compilation produced besides the kernel file.
struct CompileArtifacts {
  /// The text of each stage, by name: `fa4` (the input), `llvm-dialect`,
  /// `llvm-ir`, `ptx`, and `ptxas-report`.
  std::map<std::string, std::string> stages;
  /// Wall-clock seconds from parsing to the cubin.
  double seconds = 0;
};

/// Compile the fa4-level module in `source` into a kernel file for
/// `options.arch`. Diagnostics go to the context's handlers; `name` labels
/// the buffer in them.
FailureOr<::fa4::runtime::KernelFile>
compileKernel(MLIRContext &context, StringRef source, StringRef name,
              const TargetOptions &options, CompileArtifacts &artifacts);

/// A context with every dialect and translation the compiler needs.
std::unique_ptr<MLIRContext> createCompilerContext();

} // namespace mlir::fa4

#endif // FA4_COMPILER_COMPILER_H

//===- Compiler.h - compile fa4's kernels to kernel files -------*- C++ -*-===//
//
// The compiler as one call: a kernel program written in fa4's DSL (or any
// tile-level or fa4-level module) goes through the tile-to-fa4 passes, the
// fa4-to-llvm pipeline, LLVM IR, PTX and ptxas into a kernel file the
// runtime loads. Each stage's text can be kept for `--emit` and
// `--dump-dir`. This is the API fa4-run (and any later binding) calls.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_COMPILER_COMPILER_H
#define FA4_COMPILER_COMPILER_H

#include "fa4/Runtime/KernelFile.h"
#include "fa4/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::fa4 {

/// The programs fa4 ships, written in its DSL: `attention-hd64`,
/// `attention-hd128`, `attention-hd256` (bf16), their `-f16` variants,
/// each of those with a sliding window (`-window`), a logit softcap
/// (`-softcap`, bf16) or both (`attention-hd128-window-softcap`), packed
/// sequences of variable lengths (`attention-hd64-varlen`,
/// `attention-hd128-varlen`, `attention-hd256-varlen`,
/// `attention-hd128-f16-varlen`, `attention-hd128-varlen-window`), and `gemm`.
ArrayRef<StringRef> getShippedKernels();

/// Plan choices that override the derived ones.
struct PlanOptions {
  std::optional<int64_t> kvStages;
  std::optional<int64_t> qkStages;
  /// Rows of one K/V block (attention only; the program's default for its
  /// head dim when not given).
  std::optional<int64_t> blockN;
  /// A persistent kernel (fa4-persistent).
  bool persistent = false;
};

/// Builds the shipped program `name` at the tile level with its plan
/// (`#fa4.config`, derived from its head dim and element type) attached.
/// Null, with diagnostics, for an unknown name or an impossible plan.
OwningOpRef<ModuleOp> buildShippedProgram(MLIRContext &context,
                                          StringRef name,
                                          const PlanOptions &plan = {});

/// Attaches to every function of `module` (a tile program, e.g. one the DSL
/// wrote) the plan fa4 derives for loads of `width` columns of 16-bit
/// elements of `elementType` (bf16 or f16): the head dim of attention, the K
/// block of a GEMM; `plan` overrides the derived choices. Fails with
/// diagnostics for a plan that cannot work (shared memory, stages).
LogicalResult attachPlan(ModuleOp module, int64_t width, Type elementType,
                         const PlanOptions &plan = {});

/// What a compilation produced besides the kernel file.
struct CompileArtifacts {
  /// The text of each stage, by name: `tile` (a tile program as given),
  /// `fa4` (the fa4-level kernel), `llvm-dialect`, `llvm-ir`, `ptx`, and
  /// `ptxas-report`.
  std::map<std::string, std::string> stages;
  /// Wall-clock seconds from the tile (or fa4) module to the cubin.
  double seconds = 0;
};

/// Compiles `module` into a kernel file for `options.arch`: a tile program
/// (its kernels with an `#fa4.config`) through tile-to-fa4 first, an
/// fa4-level module as it is. Diagnostics go to the context's handlers.
FailureOr<::fa4::runtime::KernelFile>
compileModule(ModuleOp module, const TargetOptions &options,
              CompileArtifacts &artifacts);

/// A context with every dialect and translation the compiler needs.
std::unique_ptr<MLIRContext> createCompilerContext();

} // namespace mlir::fa4

#endif // FA4_COMPILER_COMPILER_H

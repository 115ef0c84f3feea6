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

#include "FA4/FA4Dialect.h"
#include "fa4/DSL/Programs.h"
#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/KernelKey.h"
#include "fa4/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::fa4 {

/// Builds the DSL program of `key` at the tile level with its plan
/// (`#fa4.config`, derived from the key's head dims, element type and plan)
/// attached: the plan is derived first and the program written for its
/// tiles. Null, with diagnostics, for a key no program has or an impossible
/// plan.
OwningOpRef<ModuleOp> buildShippedProgram(MLIRContext &context,
                                          const ::fa4::KernelKey &key);

/// The forward attention program of `key` (family Attention) with an
/// author's mods (FlexAttention's `score_mod` and `mask_mod`, and a key
/// range that skips whole blocks; Programs.h), its plan derived as
/// buildShippedProgram derives the key's: a kernel of the author's, which
/// the key does not name (compile it with compileModule). Null, with
/// diagnostics, as buildShippedProgram.
OwningOpRef<ModuleOp>
buildAttentionWithMods(MLIRContext &context, const ::fa4::KernelKey &key,
                       const ::fa4::dsl::AttentionMods &mods);

/// The request ConfigAttr::derive takes for loads of `width` columns (the
/// head dim of Q and K; `widthV` of V, 0 for the same) of 16-bit elements of
/// `elementType`, with `plan`'s choices: the one conversion from the plan
/// type to the plan attribute.
ConfigRequest getConfigRequest(Type elementType, int64_t width,
                               int64_t widthV, const ::fa4::Plan &plan);

/// Attaches to every function of `module` (a tile program, e.g. one the DSL
/// wrote) the plan fa4 derives for loads of `width` columns of 16-bit
/// elements of `elementType` (bf16 or f16): the head dim of attention, the K
/// block of a GEMM; `plan` overrides the derived choices. Fails with
/// diagnostics for a plan that cannot work (shared memory, stages).
LogicalResult attachPlan(ModuleOp module, int64_t width, Type elementType,
                         const ::fa4::Plan &plan = {});

/// What a compilation produced besides the kernel file.
struct CompileArtifacts {
  /// Whether to keep the text of every stage; without it only the ptxas
  /// report is kept (printing the IR of each stage takes time).
  bool keepStages = true;
  /// The text of each stage, by name: `tile` (a tile program as given),
  /// `fa4` (the fa4-level kernel), `llvm-dialect`, `llvm-ir`, `ptx`, and
  /// `ptxas-report`.
  std::map<std::string, std::string> stages;
  /// Wall-clock seconds from the tile (or fa4) module to the cubin.
  double seconds = 0;
  /// Where they went: `tile-to-fa4`, `fa4-to-llvm`, `llvm-ir` (translated
  /// and optimized), `nvptx` (the backend, to PTX) and `ptxas`, in that
  /// order.
  std::vector<std::pair<std::string, double>> phases;

  /// ptxas's spill counts from the report ("0 bytes spill stores, 0 bytes
  /// spill loads"): what a kernel costs in registers beyond the file;
  /// "no ptxas report" when there is none.
  std::string spills() const;
};

/// Writes each stage of `stages` (CompileArtifacts::stages) that it holds to
/// `dir` as PREFIX.tile.mlir, PREFIX.fa4.mlir, PREFIX.llvm.mlir, PREFIX.ll,
/// PREFIX.ptx and PREFIX.ptxas.txt, creating `dir`; the error names the
/// file it could not write.
::fa4::runtime::Status
writeCompileStages(const std::map<std::string, std::string> &stages,
                   StringRef dir, StringRef prefix);

/// Compiles `module` into a kernel file for `options.arch`: a tile program
/// (its kernels with an `#fa4.config`) through tile-to-fa4 first, an
/// fa4-level module as it is. Diagnostics go to the context's handlers.
FailureOr<::fa4::runtime::KernelFile>
compileModule(ModuleOp module, const TargetOptions &options,
              CompileArtifacts &artifacts);

/// A context with every dialect and translation the compiler needs.
std::unique_ptr<MLIRContext> createCompilerContext();

/// The diagnostics of a context as text, "location: message" lines, while
/// this lives: what a caller of the compiler reports on failure.
class DiagnosticText {
public:
  explicit DiagnosticText(MLIRContext &context);
  const std::string &str() const { return text; }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};

/// The compiler's build id: a SHA-256 of its libraries, made at build time
/// (cmake/FA4BuildId.cmake). Part of every compile-cache key.
const char *getCompilerBuildId();

/// One of fa4's shipped kernels to get, compiled or from the compile cache.
struct ShippedKernelRequest {
  ::fa4::KernelKey key;
  TargetOptions target;
  /// The compile cache's directory; empty: no cache, always compile.
  std::string cacheDirectory;
  /// Keep the text of every stage when it compiles.
  bool keepStages = false;
  /// Compile even when the cache or this process has the kernel (and
  /// refresh the cache entry).
  bool refresh = false;
};

/// A shipped kernel and how it was got.
struct ShippedKernel {
  ::fa4::runtime::KernelFile file;
  /// The stages and times of the compile; empty when it was not compiled.
  CompileArtifacts artifacts;
  /// Where the kernel came from: compiled, the cache on disk, or this
  /// process's table of kernels already got.
  enum class Source { Compiled, Cache, Process } source = Source::Compiled;
  /// The cache key (the kernel's name and a hash of its key's text, the
  /// compiler build, LLVM, ptxas and target) and entry path; empty without
  /// a cache.
  std::string cacheKey, cacheEntry;
  /// Why an entry that was there was not used, and a store that failed
  /// (the kernel is good either way); empty when neither happened.
  std::string cacheRejected, cacheStoreError;
  /// Seconds building the DSL program, and in all.
  double buildSeconds = 0, seconds = 0;
};

/// Gets the kernel of `request.key`: from this
/// process's table, else from the cache entry of its key, else compiled
/// (and stored). Diagnostics go to `context`'s handlers. Thread-safe.
FailureOr<ShippedKernel> getShippedKernel(MLIRContext &context,
                                          const ShippedKernelRequest &request);

} // namespace mlir::fa4

#endif // FA4_COMPILER_COMPILER_H

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
  /// Consumer warpgroups, one per 64 query rows of a CTA (attention: 2 or 3;
  /// unset: 2).
  std::optional<int64_t> consumerWarpgroups;
  /// A persistent kernel (fa4-persistent); unset: the program's measured
  /// choice (attention at head dims 64 and 128), else not.
  std::optional<bool> persistent;
  /// Q stages (1 or 2; derived: 2 for a persistent kernel when they fit).
  std::optional<int64_t> qStages;
  /// Bounded barrier waits that report a hang (fa4-instrument-hangs).
  bool debugHangs = false;
  /// Each MMA step's descriptor rebuilt from its address; unset: derived
  /// (at padded head dim 64).
  std::optional<bool> rebuildDescriptors;
  /// A persistent kernel's tiles numbered with the heads varying fastest
  /// (not by default: see fa4-run --help).
  std::optional<bool> interleaveHeads;
  /// A persistent kernel's CTAs take their tiles as they come free, from a
  /// counter; unset: the program's measured choice (attention), else not.
  std::optional<bool> dynamicSchedule;
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
};

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
  std::string name;
  PlanOptions plan;
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
  /// The cache key (the program's name and a hash of the tile program,
  /// plan, compiler build, LLVM, ptxas and target) and entry path; empty
  /// without a cache.
  std::string cacheKey, cacheEntry;
  /// Why an entry that was there was not used, and a store that failed
  /// (the kernel is good either way); empty when neither happened.
  std::string cacheRejected, cacheStoreError;
  /// Seconds building the DSL program, and in all.
  double buildSeconds = 0, seconds = 0;
};

/// Gets the shipped kernel `request.name` with its plan: from this
/// process's table, else from the cache entry of its key, else compiled
/// (and stored). Diagnostics go to `context`'s handlers. Thread-safe.
FailureOr<ShippedKernel> getShippedKernel(MLIRContext &context,
                                          const ShippedKernelRequest &request);

} // namespace mlir::fa4

#endif // FA4_COMPILER_COMPILER_H

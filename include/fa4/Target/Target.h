//===- Target.h - MLIR to LLVM IR, PTX and cubin ----------------*- C++ -*-===//
//
// The back end of fa4: takes a module in the LLVM and NVVM dialects (kernels
// are `llvm.func`s with `nvvm.kernel`), checks that the ops it uses exist on
// the chosen GPU architecture and that its TMA tensor maps stay in the
// parameter space, and turns it into optimized LLVM IR for NVPTX,
// into PTX through LLVM's NVPTX backend, and into a cubin through ptxas.
// Every error is an MLIR diagnostic at the module or at the offending op.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TARGET_TARGET_H
#define FA4_TARGET_TARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::fa4 {

/// Where cheap loop-invariant values live (integer arithmetic, shifts,
/// casts and address arithmetic out of values a loop has anyway: a mask's
/// column indices, shuffle lanes, wgmma descriptors of tiles that stay in
/// shared memory).
enum class LoopInvariants {
  /// Hoisted out of their loops (LLVM's default), each held in a register
  /// across the loop.
  Hoist,
  /// Recomputed where a loop uses them, and the backend's machine-level
  /// hoisting off: fewer registers, a few more instructions a step.
  Recompute,
  /// Hoisted, and when ptxas reports spills, recomputed too: the
  /// recomputed cubin is kept when it spills at least 16 bytes and a
  /// quarter fewer.
  Auto,
};

/// What the NVPTX backend and ptxas are asked to produce.
struct TargetOptions {
  /// The GPU architecture: `sm_90a` (Hopper with wgmma and setmaxnreg),
  /// `sm_100a` (Blackwell with tcgen05), or plain `sm_90` (Hopper without the
  /// architecture-specific instructions).
  std::string arch = "sm_90a";
  /// The PTX ISA version as major * 10 + minor: 86, 87, 88 or 90. The NVPTX
  /// backend would default to 80, where the TMA copy intrinsics do not exist.
  unsigned ptxVersion = 86;
  /// The level of LLVM's default optimization pipeline and of the backend,
  /// 0 to 3.
  unsigned optLevel = 3;
  /// The ptxas to run; empty searches `$CUDA_PATH/bin`, `/usr/local/cuda/bin`
  /// and `PATH`, in that order.
  std::string ptxasPath;
  /// Flags passed to ptxas after `-arch=<arch> -v`.
  std::vector<std::string> ptxasFlags;
  /// Where cheap loop invariants live; Auto needs ptxas's report, so where
  /// only LLVM IR or PTX is made it hoists.
  LoopInvariants loopInvariants = LoopInvariants::Auto;
};

/// The name of `value` on command lines and in cache keys: "hoist",
/// "recompute" or "auto".
StringRef stringifyLoopInvariants(LoopInvariants value);

/// The options that decide what code generation makes, as one line
/// ("arch=sm_90a ptx=86 opt=3 ptxas-flags= loop-invariants=auto"): the part
/// of a compile request's and of a cache key's text that the target owns
/// (which ptxas runs is the caller's to name: its path, or its identity).
std::string describeCodegen(const TargetOptions &options);

/// The accepted values of `TargetOptions::arch`.
ArrayRef<StringRef> getSupportedArchs();

/// The accepted values of `TargetOptions::ptxVersion`.
ArrayRef<unsigned> getSupportedPtxVersions();

/// Check the architecture, PTX version and optimization level of `options`;
/// report the first bad one at `loc`, listing the accepted values.
LogicalResult verifyTargetOptions(const TargetOptions &options, Location loc);

/// Check that every NVVM op in `module` exists on `options.arch` (wgmma needs
/// sm_90a, setmaxnreg an architecture-specific target, tcgen05 sm_100a, and
/// ops with the NVVM `RequiresSM` traits what those say). Reports each
/// offending op at its location.
LogicalResult checkTargetFeatures(ModuleOp module,
                                  const TargetOptions &options);

/// Check that every TMA op in `module` that takes its tensor map straight
/// from a by-value kernel argument (`llvm.byval`) finds `nvvm.grid_constant`
/// on that argument; without it LLVM copies the argument to local memory,
/// which TMA cannot read, and the kernel fails at launch.
LogicalResult checkTensorMapArguments(ModuleOp module);

/// Checks what the translation or the NVPTX backend would crash or abort on
/// rather than report: inline asm constraints and `$N` references against
/// the operands, NVVM ops and values outside functions, kernel launch
/// bounds out of range. Diagnostics at the op.
LogicalResult checkBackendSafety(ModuleOp module);

/// Register the LLVM IR translation interfaces of the builtin, LLVM and NVVM
/// dialects, the ones `translateToLLVMIR` needs.
void registerTargetTranslations(DialectRegistry &registry);

/// Verify `options`, check the target features and the tensor-map arguments
/// of `module`, lower the NVVM
/// ops that have no intrinsic to inline PTX (`convert-nvvm-to-llvm`, then
/// `reconcile-unrealized-casts`; this rewrites `module` in place), translate
/// to LLVM IR with the NVPTX triple and data layout, and run LLVM's default
/// optimization pipeline at `options.optLevel`; with
/// `LoopInvariants::Recompute`, then recompute cheap invariants in loops.
FailureOr<std::unique_ptr<llvm::Module>>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                  const TargetOptions &options);

/// Generate PTX for `llvmModule` with LLVM's NVPTX backend for
/// `options.arch` and `options.ptxVersion` (without machine-level hoisting
/// of loop invariants for `LoopInvariants::Recompute`); report failures at
/// `loc`.
FailureOr<std::string> emitPTX(llvm::Module &llvmModule,
                               const TargetOptions &options, Location loc);

/// `translateToLLVMIR` followed by `emitPTX`.
FailureOr<std::string> emitPTX(ModuleOp module, const TargetOptions &options);

/// The ptxas that `assembleCubin` runs: `options.ptxasPath` when set (it must
/// be an executable file), else the first found in `$CUDA_PATH/bin`,
/// `/usr/local/cuda/bin` and `PATH`. Reports where it looked at `loc`.
FailureOr<std::string> findPtxas(const TargetOptions &options, Location loc);

/// Assemble `ptx` into a cubin with `ptxas -arch=<arch> -v`, through
/// temporary files that are removed afterwards. Returns the cubin's bytes and
/// sets `report` to what ptxas printed (registers, spills, shared memory). A
/// ptxas failure is an error at `loc` that includes ptxas's output.
FailureOr<std::string> assembleCubin(Location loc, StringRef ptx,
                                     const TargetOptions &options,
                                     std::string &report);

/// What code generation and ptxas made of one LLVM module.
struct Assembly {
  std::string ptx;
  std::string cubin;
  /// ptxas's `-v` report.
  std::string report;
  /// The LLVM IR the PTX was generated from, when asked for.
  std::string llvmIR;
  /// Seconds in the NVPTX backend and in ptxas, all attempts together.
  double backendSeconds = 0, ptxasSeconds = 0;
};

/// PTX and a cubin for `llvmModule` (as `translateToLLVMIR` left it; code
/// generation rewrites it): `emitPTX`, then `assembleCubin`. With
/// `LoopInvariants::Auto`, when ptxas reports spills, a copy of the module
/// goes through again with the invariants recomputed, kept when it saves
/// enough spills (see LoopInvariants::Auto). `keepLLVMIR` sets
/// `Assembly::llvmIR`.
FailureOr<Assembly> assemble(llvm::Module &llvmModule,
                             const TargetOptions &options, Location loc,
                             bool keepLLVMIR = false);

/// The bytes of spill stores over the functions of ptxas's `-v` report.
uint64_t spillStoreBytes(StringRef report);

/// Warns, at the function of `module` ptxas names, of each note in ptxas's
/// `-v` report that the cubin runs its MMAs otherwise than the PTX says: a
/// wait it injected for MMAs in flight (C7517: the code before the wait no
/// longer overlaps them) or MMAs it serialized ("Potential Performance
/// Loss"). The cubin is right; the overlap a schedule counted on is gone.
void warnOfLostOverlap(StringRef report, ModuleOp module);

} // namespace mlir::fa4

#endif // FA4_TARGET_TARGET_H

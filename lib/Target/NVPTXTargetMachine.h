//===- NVPTXTargetMachine.h - the NVPTX TargetMachine -----------*- C++ -*-===//
//
// Private to FA4Target: the one place that initializes LLVM's NVPTX target
// and builds the TargetMachine whose data layout the translation uses and
// whose backend emits PTX.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_TARGET_NVPTXTARGETMACHINE_H
#define FA4_LIB_TARGET_NVPTXTARGETMACHINE_H

#include "fa4/Target/Target.h"

#include "llvm/Target/TargetMachine.h"

namespace mlir::fa4 {

/// The LLVM triple of every fa4 kernel.
inline constexpr StringLiteral kNVPTXTriple = "nvptx64-nvidia-cuda";

/// Build the NVPTX TargetMachine for `options.arch` with the
/// `+ptx<options.ptxVersion>` feature at `options.optLevel`, initializing the
/// NVPTX target (and no other) on first use; with `shortPointers`, its data
/// layout makes shared-memory pointers 32 bits wide. `options` must have
/// passed `verifyTargetOptions`; failures are reported at `loc`.
FailureOr<std::unique_ptr<llvm::TargetMachine>>
createNVPTXTargetMachine(const TargetOptions &options, Location loc,
                         bool shortPointers = false);

/// Whether `module`'s kernels are planned with 32-bit shared-memory
/// pointers (`#fa4.config`'s `short_pointers`; a kernel without a config
/// with 64-bit ones). A module is translated with one width: kernels that
/// plan different widths fail with an error naming two of them.
FailureOr<bool> plannedShortPointers(ModuleOp module);

/// Whether `llvmModule`'s data layout has 32-bit shared-memory pointers.
bool hasShortPointers(const llvm::Module &llvmModule);

} // namespace mlir::fa4

#endif // FA4_LIB_TARGET_NVPTXTARGETMACHINE_H

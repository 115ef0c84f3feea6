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
/// NVPTX target (and no other) on first use. `options` must have passed
/// `verifyTargetOptions`; failures are reported at `loc`.
FailureOr<std::unique_ptr<llvm::TargetMachine>>
createNVPTXTargetMachine(const TargetOptions &options, Location loc);

} // namespace mlir::fa4

#endif // FA4_LIB_TARGET_NVPTXTARGETMACHINE_H

//===- NVPTXTargetMachine.cpp - the NVPTX TargetMachine -------------------===//
//
// Initializes LLVM's NVPTX target once and builds TargetMachines for the
// architecture and PTX version a `TargetOptions` names.
//
//===----------------------------------------------------------------------===//

#include "NVPTXTargetMachine.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm-c/Target.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace mlir::fa4;

/// Register the NVPTX target, its MC layer and its PTX printer; the other
/// targets in libLLVM stay uninitialized.
static void initializeNVPTXTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

static llvm::CodeGenOptLevel getCodeGenOptLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

FailureOr<std::unique_ptr<llvm::TargetMachine>>
mlir::fa4::createNVPTXTargetMachine(const TargetOptions &options,
                                    Location loc) {
  initializeNVPTXTarget();
  llvm::Triple triple(kNVPTXTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "cannot find the NVPTX target: " << error;
  std::string features = "+ptx" + std::to_string(options.ptxVersion);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.arch, features, llvm::TargetOptions(),
      /*RM=*/std::nullopt, /*CM=*/std::nullopt,
      getCodeGenOptLevel(options.optLevel)));
  if (!machine)
    return emitError(loc) << "cannot create the NVPTX target machine for "
                          << options.arch << " with " << features;
  return machine;
}

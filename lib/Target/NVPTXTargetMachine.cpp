//===- NVPTXTargetMachine.cpp - the NVPTX TargetMachine -------------------===//
//
// Initializes LLVM's NVPTX target once and builds TargetMachines for the
// architecture and PTX version a `TargetOptions` names, with the width of
// shared-memory pointers a kernel's plan (`short_pointers`) or a translated
// module's data layout asks for.
//
//===----------------------------------------------------------------------===//

#include "NVPTXTargetMachine.h"

#include "FA4/FA4Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm-c/Target.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/NVPTXAddrSpace.h"
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

/// The NVPTX backend's `nvptx-short-ptr` option, which its TargetMachine
/// reads when it is built.
static llvm::cl::opt<bool> *shortPointerOption() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("nvptx-short-ptr");
  return it == options.end() ? nullptr
                             : static_cast<llvm::cl::opt<bool> *>(it->second);
}

FailureOr<bool> mlir::fa4::plannedShortPointers(ModuleOp module) {
  LLVM::LLVMFuncOp first;
  bool planned = false;
  WalkResult walk =
      module.walk([&](LLVM::LLVMFuncOp kernel) {
        if (!kernel->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          return WalkResult::advance();
        ConfigAttr config = lookupConfig(kernel);
        bool shortPointers = config && config.getShortPointers();
        if (!first) {
          first = kernel;
          planned = shortPointers;
          return WalkResult::advance();
        }
        if (shortPointers == planned)
          return WalkResult::advance();
        auto width = [](bool s) { return s ? "32-bit" : "64-bit"; };
        InFlightDiagnostic error =
            kernel.emitError()
            << "kernel '" << kernel.getSymName() << "' plans "
            << width(shortPointers) << " shared-memory pointers and kernel '"
            << first.getSymName() << "' " << width(planned)
            << " ones (#fa4.config's short_pointers); a module is translated "
               "with one width: compile them apart";
        error.attachNote(first.getLoc())
            << "kernel '" << first.getSymName() << "' is here";
        return WalkResult::interrupt();
      });
  if (walk.wasInterrupted())
    return failure();
  return planned;
}

bool mlir::fa4::hasShortPointers(const llvm::Module &llvmModule) {
  return llvmModule.getDataLayout().getPointerSizeInBits(
             llvm::NVPTXAS::ADDRESS_SPACE_SHARED) == 32;
}

FailureOr<std::unique_ptr<llvm::TargetMachine>>
mlir::fa4::createNVPTXTargetMachine(const TargetOptions &options, Location loc,
                                    bool shortPointers) {
  initializeNVPTXTarget();
  llvm::Triple triple(kNVPTXTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "cannot find the NVPTX target: " << error;
  std::string features = "+ptx" + std::to_string(options.ptxVersion);
  // LLVM takes the pointer width from a global option when it builds the
  // machine: set for this machine alone, one machine at a time.
  llvm::cl::opt<bool> *shortOption = shortPointerOption();
  if (shortPointers && !shortOption)
    return emitError(loc) << "this LLVM's NVPTX backend has no "
                             "'nvptx-short-ptr' option for 32-bit "
                             "shared-memory pointers";
  static std::mutex building;
  std::lock_guard<std::mutex> lock(building);
  bool previous = shortOption && *shortOption;
  if (shortOption)
    shortOption->setValue(shortPointers);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.arch, features, llvm::TargetOptions(),
      /*RM=*/std::nullopt, /*CM=*/std::nullopt,
      getCodeGenOptLevel(options.optLevel)));
  if (shortOption)
    shortOption->setValue(previous);
  if (!machine)
    return emitError(loc) << "cannot create the NVPTX target machine for "
                          << options.arch << " with " << features;
  return machine;
}

//===- EmitPTX.cpp - LLVM IR to PTX through the NVPTX backend -------------===//
//
// Runs LLVM's NVPTX code generator on a translated module and returns the PTX
// text.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "NVPTXTargetMachine.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::fa4;

/// Add the NVPTX backend's passes to `codegen`, with or without its
/// machine-level hoisting of loop invariants, which would hoist again what
/// `LoopInvariants::Recompute` put in the loops. LLVM reads that choice from
/// its `-disable-machine-licm` option as the passes are added, so the
/// option is set and restored around that, under a lock: compiles on other
/// threads see it as it was. Returns false when the target cannot emit.
static bool addCodegenPasses(llvm::TargetMachine &machine,
                             llvm::legacy::PassManager &codegen,
                             llvm::raw_pwrite_stream &os, bool hoist) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto *disable = static_cast<llvm::cl::opt<bool> *>(
      llvm::cl::getRegisteredOptions().lookup("disable-machine-licm"));
  bool previous = disable && disable->getValue();
  if (disable && !hoist)
    disable->setValue(true);
  bool failed = machine.addPassesToEmitFile(
      codegen, os, /*DwoOut=*/nullptr, llvm::CodeGenFileType::AssemblyFile);
  if (disable)
    disable->setValue(previous);
  return !failed;
}

FailureOr<std::string> mlir::fa4::emitPTX(llvm::Module &llvmModule,
                                          const TargetOptions &options,
                                          Location loc) {
  if (failed(verifyTargetOptions(options, loc)))
    return failure();
  // The pointer widths of the translation's data layout.
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createNVPTXTargetMachine(options, loc, hasShortPointers(llvmModule));
  if (failed(machine))
    return failure();
  llvmModule.setTargetTriple((*machine)->getTargetTriple());
  llvmModule.setDataLayout((*machine)->createDataLayout());

  SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager codegen;
  if (!addCodegenPasses(**machine, codegen, os,
                        options.loopInvariants != LoopInvariants::Recompute))
    return emitError(loc) << "the NVPTX backend cannot emit PTX for "
                          << options.arch;
  // The backend's errors (an inline asm operand it cannot lower, say) come
  // back as diagnostics; without a handler LLVMContext exits the process.
  struct Errors {
    std::string text;
  } errors;
  llvm::LLVMContext &llvmContext = llvmModule.getContext();
  auto previous = llvmContext.getDiagnosticHandlerCallBack();
  void *previousContext = llvmContext.getDiagnosticContext();
  llvmContext.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *context) {
        if (info->getSeverity() != llvm::DS_Error)
          return;
        auto *collected = static_cast<Errors *>(context);
        llvm::raw_string_ostream os(collected->text);
        llvm::DiagnosticPrinterRawOStream printer(os);
        if (!collected->text.empty())
          os << "; ";
        info->print(printer);
      },
      &errors);
  codegen.run(llvmModule);
  llvmContext.setDiagnosticHandlerCallBack(previous, previousContext);
  if (!errors.text.empty())
    return emitError(loc) << "the NVPTX backend failed: " << errors.text;
  return std::string(ptx);
}

FailureOr<std::string> mlir::fa4::emitPTX(ModuleOp module,
                                          const TargetOptions &options) {
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      translateToLLVMIR(module, llvmContext, options);
  if (failed(llvmModule))
    return failure();
  return emitPTX(**llvmModule, options, module.getLoc());
}

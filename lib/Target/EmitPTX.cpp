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
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fa4;

FailureOr<std::string> mlir::fa4::emitPTX(llvm::Module &llvmModule,
                                          const TargetOptions &options,
                                          Location loc) {
  if (failed(verifyTargetOptions(options, loc)))
    return failure();
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createNVPTXTargetMachine(options, loc);
  if (failed(machine))
    return failure();
  llvmModule.setTargetTriple((*machine)->getTargetTriple());
  llvmModule.setDataLayout((*machine)->createDataLayout());

  SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, /*DwoOut=*/nullptr,
                                      llvm::CodeGenFileType::AssemblyFile))
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

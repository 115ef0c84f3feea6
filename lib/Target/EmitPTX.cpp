//===- EmitPTX.cpp - LLVM IR to PTX through the NVPTX backend -------------===//
//
// Runs LLVM's NVPTX code generator on a translated module and returns the PTX
// text.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "NVPTXTargetMachine.h"

#include "llvm/ADT/SmallString.h"
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
  codegen.run(llvmModule);
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

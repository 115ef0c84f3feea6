//===- TranslateFuzzer.cpp - fa4-translate under libFuzzer ----------------===//
//
// Inputs that parse and verify go where fa4-translate takes them: its
// checks (target features, tensor-map arguments, what the backend would
// crash on), the translation to LLVM IR and LLVM's NVPTX backend, to PTX.
// ptxas is not run.
//
//===----------------------------------------------------------------------===//

#include "FuzzIR.h"

#include "fa4/Target/Target.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = fa4::fuzz::context(mlir::fa4::registerTargetTranslations);
  mlir::OwningOpRef<mlir::ModuleOp> module = fa4::fuzz::parse(ctx, data, size);
  if (!module)
    return 0;
  mlir::fa4::TargetOptions options;
  llvm::LLVMContext llvmContext;
  mlir::FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      mlir::fa4::translateToLLVMIR(*module, llvmContext, options);
  if (mlir::failed(llvmModule))
    return 0;
  (void)mlir::fa4::emitPTX(**llvmModule, options, module->getLoc());
  return 0;
}

//===- TranslateToLLVMIR.cpp - LLVM + NVVM dialects to LLVM IR ------------===//
//
// Turns a module in the LLVM and NVVM dialects into optimized LLVM IR for the
// NVPTX target: checks the target, lowers the NVVM ops that only exist as
// inline PTX, translates, sets the triple and data layout, and runs LLVM's
// default optimization pipeline (then, when asked, recomputes cheap loop
// invariants in their loops), then widens what the NVPTX backend would
// print as PTX that ptxas refuses (bf16 compares).
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "LoopInvariants.h"
#include "NVPTXTargetMachine.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

using namespace mlir;
using namespace mlir::fa4;

void mlir::fa4::registerTargetTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

/// Rewrite the NVVM ops that have no LLVM intrinsic (mbarrier.try_wait.parity,
/// wgmma.mma_async, predicated forms, ...) into inline PTX, and fold the casts
/// that rewriting leaves.
static LogicalResult lowerNVVMToInlinePTX(ModuleOp module) {
  PassManager pm = PassManager::on<ModuleOp>(module.getContext());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return pm.run(module);
}

/// Run LLVM's default pipeline at `optLevel` (the O0 pipeline for 0), with
/// the NVPTX-specific passes `machine` registers.
static void optimize(llvm::Module &llvmModule, llvm::TargetMachine &machine,
                     unsigned optLevel) {
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgsccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(moduleAnalyses);
  builder.registerCGSCCAnalyses(cgsccAnalyses);
  builder.registerFunctionAnalyses(functionAnalyses);
  builder.registerLoopAnalyses(loopAnalyses);
  builder.crossRegisterProxies(loopAnalyses, functionAnalyses, cgsccAnalyses,
                               moduleAnalyses);

  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = levels[optLevel];
  llvm::ModulePassManager passes =
      optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                    : builder.buildPerModuleDefaultPipeline(level);
  passes.run(llvmModule, moduleAnalyses);
}

/// Every bf16 comparison widened to f32 (both conversions exact). LLVM's
/// optimizer narrows `fcmp (fpext bf16 x), C` to a bf16 compare, and the
/// NVPTX backend prints that, in a function whose f32 denormals flush to
/// zero (all of fa4's kernels), as `setp.ftz.bf16`, which ptxas refuses:
/// `.ftz` exists for f32 and f16 compares only. A bf16 input tested
/// against 0 (GELU's erf, a sign) would otherwise not assemble.
static void widenBF16Compares(llvm::Module &llvmModule) {
  SmallVector<llvm::FCmpInst *> compares;
  for (llvm::Function &function : llvmModule)
    for (llvm::Instruction &inst : llvm::instructions(function))
      if (auto *compare = dyn_cast<llvm::FCmpInst>(&inst))
        if (compare->getOperand(0)->getType()->getScalarType()->isBFloatTy())
          compares.push_back(compare);
  for (llvm::FCmpInst *compare : compares) {
    llvm::IRBuilder<> b(compare);
    llvm::Type *type = compare->getOperand(0)->getType();
    llvm::Type *wide = type->getWithNewType(b.getFloatTy());
    llvm::Value *wider = b.CreateFCmp(
        compare->getPredicate(), b.CreateFPExt(compare->getOperand(0), wide),
        b.CreateFPExt(compare->getOperand(1), wide));
    cast<llvm::Instruction>(wider)->copyFastMathFlags(compare);
    compare->replaceAllUsesWith(wider);
    compare->eraseFromParent();
  }
}

FailureOr<std::unique_ptr<llvm::Module>>
mlir::fa4::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                             const TargetOptions &options) {
  Location loc = module.getLoc();
  if (failed(verifyTargetOptions(options, loc)) ||
      failed(checkBackendSafety(module)) ||
      failed(checkTargetFeatures(module, options)) ||
      failed(checkTensorMapArguments(module)))
    return failure();
  FailureOr<bool> shortPointers = plannedShortPointers(module);
  if (failed(shortPointers))
    return failure();
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createNVPTXTargetMachine(options, loc, *shortPointers);
  if (failed(machine) || failed(lowerNVVMToInlinePTX(module)))
    return failure();

  // fa4's parameter attributes (tensor-map types, names) are launch metadata
  // that LLVM IR has no place for; the translation would warn about each.
  module.walk([](LLVM::LLVMFuncOp function) {
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      if (DictionaryAttr attrs = function.getArgAttrDict(i))
        for (NamedAttribute attr : llvm::to_vector(attrs.getValue()))
          if (attr.getName().getValue().starts_with("fa4."))
            function.removeArgAttr(i, attr.getName());
  });

  DialectRegistry registry;
  registerTargetTranslations(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return emitError(loc) << "cannot translate the module to LLVM IR";

  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvmModule->setDataLayout((*machine)->createDataLayout());
  optimize(*llvmModule, **machine, options.optLevel);
  if (options.loopInvariants == LoopInvariants::Recompute)
    recomputeLoopInvariants(*llvmModule);
  widenBF16Compares(*llvmModule);
  return llvmModule;
}

//===- Compiler.cpp - compile fa4's kernels to kernel files ---------------===//
//
// Parses an fa4-level kernel, lowers it with the fa4-to-llvm pipeline,
// describes its launch, translates it to LLVM IR and PTX and assembles the
// cubin, keeping each stage's text.
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"

#include "fa4/Conversion/FA4ToNVVM.h"
#include "fa4/InitAll.h"
#include "fa4/Target/KernelFileEmission.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::fa4;

namespace {
/// The shipped programs, embedded at build time from lib/Kernels.
#include "ShippedKernels.inc"

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

std::string print(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, /*AAW=*/nullptr);
  return text;
}
} // namespace

ArrayRef<StringRef> mlir::fa4::getShippedKernels() {
  static const SmallVector<StringRef> names = [] {
    SmallVector<StringRef> result;
    for (const auto &kernel : kShippedKernels)
      result.push_back(kernel.name);
    return result;
  }();
  return names;
}

std::optional<StringRef> mlir::fa4::getShippedKernelSource(StringRef name) {
  for (const auto &kernel : kShippedKernels)
    if (name == kernel.name)
      return StringRef(kernel.source);
  return std::nullopt;
}

std::unique_ptr<MLIRContext> mlir::fa4::createCompilerContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerTargetTranslations(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

FailureOr<::fa4::runtime::KernelFile>
mlir::fa4::compileKernel(MLIRContext &context, StringRef source, StringRef name,
                         const TargetOptions &options,
                         CompileArtifacts &artifacts) {
  auto start = std::chrono::steady_clock::now();
  artifacts.stages["fa4"] = source.str();
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, config, name);
  if (!module)
    return failure();

  PassManager pm(&context);
  buildFA4ToLLVMPipeline(pm);
  if (failed(pm.run(*module)))
    return failure();
  artifacts.stages["llvm-dialect"] = print(module->getOperation());

  FailureOr<::fa4::runtime::KernelFile> file = describeKernel(*module, options);
  if (failed(file))
    return failure();

  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      translateToLLVMIR(*module, llvmContext, options);
  if (failed(llvmModule))
    return failure();
  artifacts.stages["llvm-ir"] = print(**llvmModule);

  Location loc = module->getLoc();
  FailureOr<std::string> ptx = emitPTX(**llvmModule, options, loc);
  if (failed(ptx))
    return failure();
  artifacts.stages["ptx"] = *ptx;

  std::string report;
  FailureOr<std::string> cubin = assembleCubin(loc, *ptx, options, report);
  artifacts.stages["ptxas-report"] = report;
  if (failed(cubin))
    return failure();
  file->binary = std::move(*cubin);
  artifacts.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return file;
}

//===- Compiler.cpp - compile fa4's kernels to kernel files ---------------===//
//
// Builds fa4's DSL programs with their plans, lowers a tile program with
// the tile-to-fa4 passes and an fa4-level kernel with the fa4-to-llvm
// pipeline, describes its launch, translates it to LLVM IR and PTX and
// assembles the cubin, keeping each stage's text.
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "fa4/Conversion/FA4ToNVVM.h"
#include "fa4/DSL/Programs.h"
#include "fa4/InitAll.h"
#include "fa4/Target/KernelFileEmission.h"
#include "fa4/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::fa4;

namespace {
std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}
} // namespace

ArrayRef<StringRef> mlir::fa4::getShippedKernels() {
  static const StringRef names[] = {
      "attention-hd64",     "attention-hd128",     "attention-hd256",
      "attention-hd64-f16", "attention-hd128-f16", "attention-hd256-f16",
      "attention-hd64-window", "attention-hd128-window",
      "attention-hd256-window", "attention-hd64-f16-window",
      "attention-hd128-f16-window", "attention-hd256-f16-window",
      "attention-hd64-softcap", "attention-hd128-softcap",
      "attention-hd256-softcap", "attention-hd128-window-softcap",
      "attention-hd64-varlen", "attention-hd128-varlen",
      "attention-hd256-varlen", "attention-hd128-f16-varlen",
      "attention-hd128-varlen-window", "gemm"};
  return names;
}

OwningOpRef<ModuleOp> mlir::fa4::buildShippedProgram(MLIRContext &context,
                                                     StringRef name,
                                                     const PlanOptions &plan) {
  Location loc = UnknownLoc::get(&context);
  if (!llvm::is_contained(getShippedKernels(), name)) {
    emitError(loc) << "fa4 has no program named '" << name << "'";
    return nullptr;
  }
  OwningOpRef<ModuleOp> module;
  PlanOptions choices = plan;
  Type elementType = BFloat16Type::get(&context);
  int64_t width = 0;
  if (name == "gemm") {
    if (plan.blockN) {
      emitError(loc) << "the gemm program has no plan choice of key block "
                        "rows";
      return nullptr;
    }
    if (plan.consumerWarpgroups && *plan.consumerWarpgroups != 2) {
      emitError(loc) << "the gemm program has 2 consumer warpgroups, not "
                     << *plan.consumerWarpgroups;
      return nullptr;
    }
    // 128 x 64 tiles of A and B through four stages: the plan of a head
    // dim of 64.
    width = 64;
    if (!choices.kvStages)
      choices.kvStages = 4;
    module = ::fa4::dsl::buildGemm(&context, {});
  } else {
    StringRef rest = name.drop_front(strlen("attention-hd"));
    bool softcap = rest.consume_back("-softcap");
    bool window = rest.consume_back("-window");
    bool varlen = rest.consume_back("-varlen");
    bool f16 = rest.consume_back("-f16");
    ::fa4::dsl::AttentionOptions options;
    rest.getAsInteger(10, options.headDim);
    options.window = window;
    options.softcap = softcap;
    options.varlen = varlen;
    if (f16) {
      options.elementType = ::fa4::dsl::f16;
      elementType = Float16Type::get(&context);
    }
    width = options.headDim;
    if (plan.blockN)
      options.blockN = *plan.blockN;
    choices.consumerWarpgroups = plan.consumerWarpgroups.value_or(
        ::fa4::dsl::attentionConsumerWarpgroups(options));
    options.blockM = 64 * *choices.consumerWarpgroups;
    choices.blockN = ::fa4::dsl::attentionBlockN(options);
    if (!choices.persistent)
      choices.persistent = ::fa4::dsl::attentionPersistent(options);
    // The static order is the one interleave_heads numbers.
    if (!choices.dynamicSchedule)
      choices.dynamicSchedule = *choices.persistent &&
                                !choices.interleaveHeads.value_or(false) &&
                                ::fa4::dsl::attentionDynamicSchedule(options);
    module = ::fa4::dsl::buildAttention(&context, options);
  }
  if (!module || failed(attachPlan(*module, width, elementType, choices)))
    return nullptr;
  return module;
}

LogicalResult mlir::fa4::attachPlan(ModuleOp module, int64_t width,
                                    Type elementType, const PlanOptions &plan) {
  ConfigRequest request;
  request.elementType = elementType;
  request.headDim = width;
  request.kvStages = plan.kvStages;
  request.qkStages = plan.qkStages;
  request.bn = plan.blockN;
  request.qTiles = plan.consumerWarpgroups;
  request.persistent = plan.persistent.value_or(false);
  request.qStages = plan.qStages;
  request.debugHangs = plan.debugHangs;
  request.rebuildDescriptors = plan.rebuildDescriptors;
  request.interleaveHeads = plan.interleaveHeads.value_or(false);
  request.dynamicSchedule = plan.dynamicSchedule.value_or(false);
  // A kernel that stores through a tensor map does so by TMA.
  WalkResult walk = module->walk([&](func::FuncOp function) {
    request.tmaStore = storesThroughTensorMap(function);
    FailureOr<ConfigAttr> config = ConfigAttr::derive(
        [&] { return emitError(module.getLoc()); }, module.getContext(),
        request);
    if (failed(config))
      return WalkResult::interrupt();
    function->setAttr(FA4Dialect::getConfigAttrName(), *config);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

mlir::fa4::DiagnosticText::DiagnosticText(MLIRContext &context)
    : handler(&context, [this](Diagnostic &diagnostic) {
        llvm::raw_string_ostream os(text);
        if (!isa<UnknownLoc>(diagnostic.getLocation()))
          os << diagnostic.getLocation() << ": ";
        os << diagnostic << "\n";
        return success();
      }) {}

std::unique_ptr<MLIRContext> mlir::fa4::createCompilerContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerTargetTranslations(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

FailureOr<::fa4::runtime::KernelFile>
mlir::fa4::compileModule(ModuleOp module, const TargetOptions &options,
                         CompileArtifacts &artifacts) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  Clock::time_point start = Clock::now();
  MLIRContext &context = *module.getContext();
  bool keep = artifacts.keepStages;
  bool tileProgram = false;
  module.walk([&](Operation *op) {
    if (isa<tile::LoadOp, tile::DotOp>(op))
      tileProgram = true;
  });
  if (tileProgram) {
    if (keep)
      artifacts.stages["tile"] = print(module);
    Clock::time_point phase = Clock::now();
    PassManager pm(&context);
    buildTileToFA4Pipeline(pm);
    if (failed(pm.run(module)))
      return failure();
    artifacts.phases.push_back({"tile-to-fa4", since(phase)});
  }
  if (keep)
    artifacts.stages["fa4"] = print(module);

  Clock::time_point phase = Clock::now();
  PassManager pm(&context);
  buildFA4ToLLVMPipeline(pm);
  if (failed(pm.run(module)))
    return failure();
  artifacts.phases.push_back({"fa4-to-llvm", since(phase)});
  if (keep)
    artifacts.stages["llvm-dialect"] = print(module);

  EmissionTimes times;
  FailureOr<::fa4::runtime::KernelFile> file = emitKernelFile(
      module, options, artifacts.stages["ptxas-report"],
      keep ? &artifacts.stages["llvm-ir"] : nullptr,
      keep ? &artifacts.stages["ptx"] : nullptr, &times);
  if (failed(file))
    return failure();
  artifacts.phases.push_back({"llvm-ir", times.llvmIR});
  artifacts.phases.push_back({"nvptx", times.backend});
  artifacts.phases.push_back({"ptxas", times.ptxas});
  artifacts.seconds = since(start);
  return file;
}

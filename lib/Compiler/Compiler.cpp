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
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

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

ConfigRequest mlir::fa4::getConfigRequest(Type elementType, int64_t width,
                                          int64_t widthV,
                                          const ::fa4::Plan &plan) {
  ConfigRequest request;
  request.elementType = elementType;
  request.headDim = width;
  request.headDimV = widthV;
  request.plan = plan;
  return request;
}

/// Attaches `config` to every function of `module`, which must store
/// through a tensor map exactly when the plan says so.
static LogicalResult attachConfig(ModuleOp module, ConfigAttr config) {
  WalkResult walk = module->walk([&](func::FuncOp function) {
    if (storesThroughTensorMap(function) != config.getTmaStore()) {
      function.emitError() << "the plan was derived for a kernel that "
                           << (config.getTmaStore() ? "stores" : "does not "
                                                                 "store")
                           << " through a tensor map";
      return WalkResult::interrupt();
    }
    function->setAttr(FA4Dialect::getConfigAttrName(), config);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The attention options of `key` (forward or backward), and its element
/// type in `context`.
static ::fa4::dsl::AttentionOptions attentionOptions(MLIRContext &context,
                                                     const ::fa4::KernelKey &key,
                                                     Type &elementType) {
  ::fa4::dsl::AttentionOptions options;
  options.headDim = key.headDim;
  options.headDimV = key.valueHeadDim();
  options.window = key.window;
  options.softcap = key.softcap;
  options.varlen = key.varlen;
  options.pageRows = key.pageRows;
  elementType = BFloat16Type::get(&context);
  if (key.dtype == ::fa4::DType::F16) {
    options.elementType = ::fa4::dsl::f16;
    elementType = Float16Type::get(&context);
  }
  return options;
}

/// Derives the plan of `key` with the program's choices in `plan`
/// (`tmaStore`: whether the program stores by TMA), writes the program for
/// its tiles (its rows and key block) with `build`, and attaches the
/// plan's `#fa4.config`.
template <typename Build>
static OwningOpRef<ModuleOp>
buildWithPlan(MLIRContext &context, const ::fa4::KernelKey &key,
              Type elementType, const ::fa4::Plan &plan, bool tmaStore,
              ::fa4::dsl::AttentionOptions options, Build &&build) {
  ConfigRequest request =
      getConfigRequest(elementType, key.headDim, key.valueHeadDim(), plan);
  request.tmaStore = tmaStore;
  FailureOr<ConfigAttr> config = ConfigAttr::derive(
      [&] { return emitError(UnknownLoc::get(&context)); }, &context,
      request);
  if (failed(config))
    return nullptr;
  options.blockM = config->getBm() * config->getQTiles();
  options.blockN = config->getBn();
  OwningOpRef<ModuleOp> module = build(options);
  if (!module || failed(attachConfig(*module, *config)))
    return nullptr;
  return module;
}

/// The attention program of `key` (with an author's `mods`, if any): the
/// program's measured choices fill the plan's unset fields, the plan is
/// derived, and the program is written for its tiles (its rows, key block
/// and padded head dims).
static OwningOpRef<ModuleOp>
buildAttentionProgram(MLIRContext &context, const ::fa4::KernelKey &key,
                      const ::fa4::dsl::AttentionMods &mods = {}) {
  Type elementType;
  ::fa4::dsl::AttentionOptions options =
      attentionOptions(context, key, elementType);
  options.mods = mods;
  ::fa4::Plan plan = key.plan;
  if (!plan.consumerWarpgroups)
    plan.consumerWarpgroups = ::fa4::dsl::attentionConsumerWarpgroups(options);
  if (!plan.persistent)
    plan.persistent = ::fa4::dsl::attentionPersistent(options);
  // The static order is the one interleave_heads numbers.
  if (!plan.dynamicSchedule)
    plan.dynamicSchedule = *plan.persistent &&
                           !plan.interleaveHeads.value_or(false) &&
                           ::fa4::dsl::attentionDynamicSchedule(options);
  if (!plan.pinDescriptors)
    plan.pinDescriptors =
        ::fa4::dsl::attentionPinDescriptors(options, plan.blockN.value_or(0));
  // Dense attention writes O through a tensor map, packed sequences
  // through a pointer.
  return buildWithPlan(context, key, elementType, plan, !key.varlen, options,
                       [&](const ::fa4::dsl::AttentionOptions &tiles) {
                         return ::fa4::dsl::buildAttention(&context, tiles);
                       });
}

/// An attention backward program of `key`: its plan derived for the head
/// dims (the loop's blocks of the backward's choice where the plan leaves
/// them), the program written for its tiles. The preprocess writes D
/// through a pointer; dQ, dK and dV leave by TMA, or for packed sequences
/// through pointers.
/// `program` is the main kernels' (dQ, dK/dV, dK, dV, the five products),
/// none for the preprocess and the postprocess, whose plans derive nothing.
static OwningOpRef<ModuleOp> buildAttentionBackwardProgram(
    MLIRContext &context, const ::fa4::KernelKey &key,
    std::optional<::fa4::dsl::BackwardProgram> program) {
  Type elementType;
  ::fa4::dsl::AttentionOptions options =
      attentionOptions(context, key, elementType);
  ::fa4::Plan plan = key.plan;
  using ::fa4::dsl::BackwardProgram;
  if (program && !plan.blockN)
    plan.blockN = ::fa4::dsl::attentionBackwardBlockN(options, *program);
  if (program && !plan.consumerWarpgroups)
    plan.consumerWarpgroups =
        ::fa4::dsl::attentionBackwardConsumerWarpgroups(options, *program);
  if (program && !plan.kvStages)
    if (int64_t stages = ::fa4::dsl::attentionBackwardKvStages(*program))
      plan.kvStages = stages;
  if (program && *program != BackwardProgram::Dq && !plan.pinDescriptors)
    plan.pinDescriptors = ::fa4::dsl::attentionBackwardPinDescriptors(options);
  if (program && !plan.shortPointers)
    plan.shortPointers =
        ::fa4::dsl::attentionBackwardShortPointers(options, *program);
  bool pre = key.family == ::fa4::Family::AttentionBackwardPreprocess;
  return buildWithPlan(
      context, key, elementType, plan, !pre && !key.varlen, options,
      [&](const ::fa4::dsl::AttentionOptions &tiles) {
        if (program)
          return ::fa4::dsl::buildAttentionBackwardProgram(&context, tiles,
                                                           *program);
        return pre ? ::fa4::dsl::buildAttentionBackwardPreprocess(&context,
                                                                  tiles)
                   : ::fa4::dsl::buildAttentionBackwardPostprocess(&context,
                                                                   tiles);
      });
}

/// A decode program of `key`: the main kernel's plan derived for its head
/// dims, the combine's for V's (both store through pointers); the program
/// written for its tiles.
static OwningOpRef<ModuleOp> buildAttentionDecodeProgram(MLIRContext &context,
                                                         const ::fa4::KernelKey &key) {
  Type elementType;
  ::fa4::dsl::AttentionOptions options =
      attentionOptions(context, key, elementType);
  bool combine = key.family == ::fa4::Family::AttentionDecodeCombine;
  ::fa4::Plan plan = key.plan;
  // The combine's f32 parts three ahead (two over 128 columns of V, where
  // the derived plan's accounting, made for attention's 16-bit K and V
  // tiles, leaves no room for three; 6 and 12 were no faster,
  // bench/RESULTS.md, 2026-12-06).
  if (combine && !plan.kvStages)
    plan.kvStages = key.valueHeadDim() <= 128 ? 3 : 2;
  // The combine's tiles of 64 rows, one consumer warpgroup: its loop's cost
  // is the rows' work per part, and a decode step has few rows (32 at one
  // sequence of 32 query heads). Measured on the H200 (bench/RESULTS.md,
  // 2026-12-04): 16 parts in 5.5 us, 8.2 with tiles of 128.
  if (combine && !plan.consumerWarpgroups)
    plan.consumerWarpgroups = 1;
  if (!combine && !plan.kvStages && plan.blockN)
    if (int64_t stages = ::fa4::dsl::attentionDecodeKvStages(*plan.blockN))
      plan.kvStages = stages;
  return buildWithPlan(
      context, key, elementType, plan, /*tmaStore=*/false, options,
      [&](const ::fa4::dsl::AttentionOptions &tiles) {
        return combine ? ::fa4::dsl::buildAttentionDecodeCombine(&context, tiles)
                       : ::fa4::dsl::buildAttentionDecode(&context, tiles);
      });
}

/// The gemm program of `key`: its plan of a head dim of 64.
static OwningOpRef<ModuleOp> buildGemmProgram(MLIRContext &context,
                                              const ::fa4::KernelKey &key) {
  Location loc = UnknownLoc::get(&context);
  ::fa4::Plan plan = key.plan;
  if (plan.blockN) {
    emitError(loc) << "the gemm program has no plan choice of key block rows";
    return nullptr;
  }
  if (plan.consumerWarpgroups && *plan.consumerWarpgroups != 2) {
    emitError(loc) << "the gemm program has 2 consumer warpgroups, not "
                   << *plan.consumerWarpgroups;
    return nullptr;
  }
  // 128 x 64 tiles of A and B through four stages: the plan of a head dim
  // of 64.
  if (!plan.kvStages)
    plan.kvStages = 4;
  OwningOpRef<ModuleOp> module = ::fa4::dsl::buildGemm(&context, {});
  if (!module ||
      failed(attachPlan(*module, 64, BFloat16Type::get(&context), plan)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
mlir::fa4::buildAttentionWithMods(MLIRContext &context,
                                  const ::fa4::KernelKey &key,
                                  const ::fa4::dsl::AttentionMods &mods) {
  Location loc = UnknownLoc::get(&context);
  if (::fa4::runtime::Status s = key.verify(); !s.ok()) {
    emitError(loc) << s.message();
    return nullptr;
  }
  if (key.family != ::fa4::Family::Attention) {
    emitError(loc) << "mods are the forward attention program's; key '"
                   << key.name() << "' is not forward attention";
    return nullptr;
  }
  return buildAttentionProgram(context, key, mods);
}

OwningOpRef<ModuleOp>
mlir::fa4::buildShippedProgram(MLIRContext &context,
                               const ::fa4::KernelKey &key) {
  Location loc = UnknownLoc::get(&context);
  if (::fa4::runtime::Status s = key.verify(); !s.ok()) {
    emitError(loc) << s.message();
    return nullptr;
  }
  using ::fa4::Family;
  using ::fa4::dsl::BackwardProgram;
  switch (key.family) {
  case Family::Attention:
    return buildAttentionProgram(context, key);
  case Family::Gemm:
    return buildGemmProgram(context, key);
  case Family::AttentionBackwardPreprocess:
  case Family::AttentionBackwardPostprocess:
    return buildAttentionBackwardProgram(context, key, std::nullopt);
  case Family::AttentionBackwardDq:
    return buildAttentionBackwardProgram(context, key, BackwardProgram::Dq);
  case Family::AttentionBackwardDkDv:
    return buildAttentionBackwardProgram(context, key, BackwardProgram::DkDv);
  case Family::AttentionBackwardDk:
    return buildAttentionBackwardProgram(context, key, BackwardProgram::Dk);
  case Family::AttentionBackwardDv:
    return buildAttentionBackwardProgram(context, key, BackwardProgram::Dv);
  case Family::AttentionBackwardFused:
    return buildAttentionBackwardProgram(context, key, BackwardProgram::Fused);
  case Family::AttentionDecode:
  case Family::AttentionDecodeCombine:
    return buildAttentionDecodeProgram(context, key);
  }
  llvm_unreachable("a kernel family");
}

LogicalResult mlir::fa4::attachPlan(ModuleOp module, int64_t width,
                                    Type elementType,
                                    const ::fa4::Plan &plan) {
  ConfigRequest request = getConfigRequest(elementType, width, 0, plan);
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

std::string mlir::fa4::CompileArtifacts::spills() const {
  auto report = stages.find("ptxas-report");
  size_t at = report == stages.end()
                  ? std::string::npos
                  : report->second.find("bytes spill stores");
  if (at == std::string::npos)
    return "no ptxas report";
  const std::string &text = report->second;
  size_t first = text.rfind(',', at) + 2;
  return text.substr(first, text.find('\n', at) - first);
}

::fa4::runtime::Status
mlir::fa4::writeCompileStages(const std::map<std::string, std::string> &stages,
                              StringRef dir, StringRef prefix) {
  using ::fa4::runtime::Status;
  // Each stage's file: its name's extension says what the text is.
  static const struct {
    const char *stage, *extension;
  } kFiles[] = {{"tile", ".tile.mlir"},
                {"fa4", ".fa4.mlir"},
                {"llvm-dialect", ".llvm.mlir"},
                {"llvm-ir", ".ll"},
                {"ptx", ".ptx"},
                {"ptxas-report", ".ptxas.txt"}};
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return Status::error("cannot create '" + dir.str() +
                         "': " + error.message());
  for (const auto &file : kFiles) {
    auto text = stages.find(file.stage);
    if (text == stages.end())
      continue;
    SmallString<256> path(dir);
    llvm::sys::path::append(path, prefix + file.extension);
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (error)
      return Status::error("cannot write '" + std::string(path) +
                           "': " + error.message());
    os << text->second;
  }
  return Status::success();
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
  // A tile program loads, multiplies or stores tiles (a kernel may do only
  // the last); after tile-to-fa4 none of those is left.
  bool tileProgram = false;
  module.walk([&](Operation *op) {
    if (isa<tile::LoadOp, tile::DotOp, tile::StoreOp>(op))
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

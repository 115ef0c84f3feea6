//===- FA4ToNVVM.cpp - the convert-fa4-to-nvvm pass -----------------------===//
//
// The pass that lowers fa4 kernels to the LLVM and NVVM dialects: it sizes
// each kernel's block from its warp roles, gives warpgroup ids their values,
// declares the dynamic shared memory, runs one conversion with the fa4
// pattern sets and the upstream arith, math, vector, cf and func ones, and
// marks tensor-map parameters as by-value grid constants. Also builds the
// registered fa4-to-llvm pipeline.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "Tile/TileDialect.h"
#include "fa4/Transforms/Passes.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_CONVERTFA4TONVVM
#include "fa4/Conversion/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

/// Bytes and alignment of a CUtensorMap kernel parameter.
static constexpr int64_t kTensorMapBytes = 128;
static constexpr int64_t kTensorMapAlign = 64;

void mlir::fa4::detail::beginConditionalBlock(
    ConversionPatternRewriter &rewriter, Location loc, Value condition) {
  Block *current = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(current, rewriter.getInsertionPoint());
  Block *only = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(current);
  LLVM::CondBrOp::create(rewriter, loc, condition, only, after);
  rewriter.setInsertionPointToEnd(only);
  rewriter.setInsertionPoint(LLVM::BrOp::create(rewriter, loc, after));
}

void mlir::fa4::addFA4TypeConversions(LLVMTypeConverter &converter) {
  MLIRContext *context = &converter.getContext();
  auto shared = LLVM::LLVMPointerType::get(context, kSharedSpace);
  converter.addConversion([shared](PipelineType) -> Type { return shared; });
  converter.addConversion([shared](MemRefType type) -> std::optional<Type> {
    auto space = dyn_cast_or_null<IntegerAttr>(type.getMemorySpace());
    if (space && space.getInt() == kSharedSpace && type.hasStaticShape())
      return Type(shared);
    return std::nullopt;
  });
  converter.addConversion([context](TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
}

namespace {

struct ConvertFA4ToNVVMPass
    : public mlir::fa4::impl::ConvertFA4ToNVVMBase<ConvertFA4ToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    Builder builder(context);

    // Pipeline states must be explicit and register tiles distributed
    // first: neither `!fa4.pipeline_state` nor a laid-out tensor has an LLVM
    // type, and the conversion would stop at the op with no reason given.
    WalkResult early = module.walk([](Operation *op) {
      auto touches = [&](auto isKind) {
        return llvm::any_of(op->getOperandTypes(), isKind) ||
               llvm::any_of(op->getResultTypes(), isKind);
      };
      if (touches([](Type type) { return isa<PipelineStateType>(type); })) {
        op->emitOpError() << "has an implicit pipeline state; run "
                             "fa4-explicit-pipeline-state first "
                             "(docs/Rationale.md, "
                             "\"Explicit pipeline state\")";
        return WalkResult::interrupt();
      }
      if (touches([](Type type) {
            auto tensor = dyn_cast<RankedTensorType>(type);
            return tensor && getDistributedType(tensor);
          })) {
        op->emitOpError() << "holds laid-out register tiles; run "
                             "fa4-distribute-register-tiles first "
                             "(docs/Rationale.md, "
                             "\"Register tiles distributed\")";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (early.wasInterrupted())
      return signalPassFailure();

    // Shared-memory tiles lower to bare pointers, which function boundaries
    // (memref descriptors there) cannot carry.
    for (auto function : module.getOps<func::FuncOp>()) {
      auto isTile = llvm::IsaPred<MemRefType>;
      if (llvm::any_of(function.getArgumentTypes(), isTile) ||
          llvm::any_of(function.getResultTypes(), isTile)) {
        function.emitError() << "shared-memory tiles cannot cross function "
                                "boundaries; inline @"
                             << function.getSymName() << " into its kernel";
        return signalPassFailure();
      }
    }

    // Kernels, and which of their parameters are tensor maps.
    llvm::StringMap<SmallVector<std::pair<unsigned, TensorMapType>>>
        tensorMapArgs;
    // Kernels' plans, for the registers they start with.
    llvm::StringMap<ConfigAttr> configs;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName))
        continue;
      configs[kernel.getSymName()] = lookupConfig(kernel);
      if (!kernel->hasAttr(kThreadsAttrName)) {
        kernel.emitError() << "kernel has no thread count; give it an "
                              "fa4.warp_specialize and run "
                              "fa4-lower-warp-roles first (docs/Rationale.md, "
                              "\"Roles lowered\")";
        return signalPassFailure();
      }
      auto &maps = tensorMapArgs[kernel.getSymName()];
      for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
        if (auto map = dyn_cast<TensorMapType>(type))
          maps.emplace_back(i, map);
    }

    // The kernel's dynamic shared memory.
    bool needsSmem = false;
    module.walk([&](Operation *op) {
      needsSmem |= isa<PipelineCreateOp, SharedBufferOp>(op);
    });
    module.walk([&](FunctionOpInterface function) {
      needsSmem |= function->hasAttr(kNamedBarrierOffsetAttrName);
    });
    if (needsSmem && !module.lookupSymbol(kDynamicSmemName)) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(
          b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kDynamicSmemName,
          Attribute(), /*alignment=*/1024, kSharedSpace);
    }

    // Kernels built to diagnose hangs: the report's globals and function,
    // and the named barriers each kernel's entry initialises as mbarriers.
    if (failed(prepareHangDiagnosis(module)))
      return signalPassFailure();
    llvm::StringMap<NamedBarrierCounts> namedBarriers;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName) ||
          !plannedWithHangDiagnosis(kernel))
        continue;
      FailureOr<NamedBarrierCounts> counts = collectNamedBarriers(kernel);
      if (failed(counts))
        return signalPassFailure();
      namedBarriers[kernel.getSymName()] = std::move(*counts);
    }

    if (failed(expandMathWithoutInstructions(module)))
      return signalPassFailure();
    LLVMTypeConverter converter(context);
    addFA4TypeConversions(converter);
    RewritePatternSet patterns(context);
    populatePipelineToNVVMPatterns(converter, patterns);
    populateRoleToNVVMPatterns(converter, patterns);
    populateMmaToNVVMPatterns(converter, patterns);
    populateMemoryToNVVMPatterns(converter, patterns);
    populateMathToNVVMPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    // Only the divisions that have no LLVM counterpart are expanded:
    // arith-expand would also turn every float max and min into two compares
    // and two selects, where NVPTX has one max.f32 / max.NaN.f32.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<FA4Dialect, tile::TileDialect, arith::ArithDialect,
                             cf::ControlFlowDialect, func::FuncDialect,
                             math::MathDialect, vector::VectorDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Launch bounds (setmaxnreg needs the register count at entry declared)
    // and tensor maps by value in the parameter space.
    auto mapType =
        LLVM::LLVMArrayType::get(builder.getI8Type(), kTensorMapBytes);
    for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
      if (auto barriers = namedBarriers.find(function.getSymName());
          barriers != namedBarriers.end())
        initNamedBarriers(function, barriers->second);
      auto it = tensorMapArgs.find(function.getSymName());
      if (it == tensorMapArgs.end())
        continue;
      int64_t threads =
          function->getAttrOfType<IntegerAttr>(kThreadsAttrName).getInt();
      function->setAttr("nvvm.kernel", builder.getUnitAttr());
      function->setAttr(
          "nvvm.maxntid",
          builder.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
      function->setAttr("nvvm.maxnreg",
                        builder.getI32IntegerAttr(getEntryRegisters(
                            threads, configs.lookup(function.getSymName()))));
      // f32 denormals flush to zero, as CUDA's fast math does: exp2 becomes
      // the single MUFU ex2.approx.ftz instead of a denormal-safe sequence.
      function.setDenormalFpMathF32Attr(builder.getStringAttr("preserve-sign"));
      for (auto [i, map] : it->second) {
        // What the launch needs to build the map: element type, box, swizzle.
        function.setArgAttr(i, kTensorMapArgAttrName, TypeAttr::get(map));
        function.setArgAttr(i, "llvm.byval", TypeAttr::get(mapType));
        function.setArgAttr(i, "llvm.align",
                            builder.getI64IntegerAttr(kTensorMapAlign));
        function.setArgAttr(i, "nvvm.grid_constant", builder.getUnitAttr());
      }
    }
  }
};
} // namespace

void mlir::fa4::buildFA4ToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createFA4ExplicitPipelineState());
  // Distribution may add scratch buffers (a row reduction across warps)
  // that the allocation then places.
  pm.addPass(createFA4DistributeRegisterTiles());
  pm.addPass(createFA4AllocateSharedMemory());
  pm.addPass(createFA4InstrumentHangs());
  pm.addPass(createFA4LowerWarpRoles());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertFA4ToNVVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

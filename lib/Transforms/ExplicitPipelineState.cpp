//===- ExplicitPipelineState.cpp - states as stage index and phase --------===//
//
// The `fa4-explicit-pipeline-state` pass: a 1:N type conversion that turns
// every `!fa4.pipeline_state` into (stage, phase) i32 values, through scf
// loops, and expands `fa4.pipeline.start` and `fa4.pipeline.step` into
// arithmetic.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4EXPLICITPIPELINESTATE
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

namespace {

/// Types that still mention the implicit state.
static bool hasImplicitState(TypeRange types) {
  return llvm::any_of(types, llvm::IsaPred<PipelineStateType>);
}

/// Concatenate the converted values of several operands.
static SmallVector<Value> flatten(ArrayRef<ValueRange> ranges) {
  SmallVector<Value> values;
  for (ValueRange range : ranges)
    llvm::append_range(values, range);
  return values;
}

struct StartLowering : public OpConversionPattern<PipelineStartOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineStartOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value stage = arith::ConstantIntOp::create(b, 0, 32);
    Value phase = arith::ConstantIntOp::create(
        b, op.getSide() == PipelineSide::producer ? 1 : 0, 32);
    rewriter.replaceOpWithMultiple(op, {{stage, phase}});
    return success();
  }
};

struct StepLowering : public OpConversionPattern<PipelineStepOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineStepOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange state = adaptor.getState();
    if (state.size() != 2)
      return rewriter.notifyMatchFailure(op, "state is not (stage, phase)");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t kvStages = op.getPipeline().getType().getKvStages();
    Value one = arith::ConstantIntOp::create(b, 1, 32);
    Value zero = arith::ConstantIntOp::create(b, 0, 32);
    Value next = arith::AddIOp::create(b, state[0], one);
    Value wraps =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, next,
                              arith::ConstantIntOp::create(b, kvStages, 32));
    Value stage = arith::SelectOp::create(b, wraps, zero, next);
    Value flipped = arith::XOrIOp::create(b, state[1], one);
    Value phase = arith::SelectOp::create(b, wraps, flipped, state[1]);
    rewriter.replaceOpWithMultiple(op, {{stage, phase}});
    return success();
  }
};

/// Rebuild a sub-stage op with its state as (stage, phase).
template <typename OpT>
struct SubStageLowering : public OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<OpT>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpT op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> state = flatten(adaptor.getState());
    if (state.size() != 2)
      return rewriter.notifyMatchFailure(op, "state is not (stage, phase)");
    rewriter.modifyOpInPlace(op, [&] { op.getStateMutable().assign(state); });
    return success();
  }
};

struct ExplicitPipelineStatePass
    : public fa4::impl::FA4ExplicitPipelineStateBase<
          ExplicitPipelineStatePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion(
        [&](PipelineStateType, SmallVectorImpl<Type> &results) {
          results.append(2, IntegerType::get(context, 32));
          return success();
        });

    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect>();
    target.addIllegalOp<PipelineStartOp, PipelineStepOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *op) {
      return !hasImplicitState(op->getOperandTypes()) &&
             !hasImplicitState(op->getResultTypes());
    });

    // Which carried values of the loops of a persistent kernel's tiles will
    // be states, by position after the conversion.
    constexpr StringLiteral kUniformArgs = "uniform_iter_args";
    getOperation().walk([&](scf::ForOp tileLoop) {
      if (!tileLoop->hasAttr(kTileLoopAttrName))
        return;
      tileLoop.walk([&](scf::ForOp loop) {
        SmallVector<int64_t> positions;
        int64_t position = 0;
        for (Type type : loop.getResultTypes()) {
          bool state = isa<PipelineStateType>(type);
          for (int64_t i = 0; i < (state ? 2 : 1); ++i, ++position)
            if (state)
              positions.push_back(position);
        }
        loop->setAttr(kUniformArgs,
                      DenseI64ArrayAttr::get(context, positions));
      });
    });

    RewritePatternSet patterns(context);
    patterns
        .add<StartLowering, StepLowering, SubStageLowering<ProducerAcquireOp>,
             SubStageLowering<ProducerLoadOp>, SubStageLowering<ConsumerWaitOp>,
             SubStageLowering<ConsumerReleaseOp>>(converter, context);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();

    // The states a persistent kernel carries from tile to tile are the same
    // in every lane of a warp, but ptxas cannot prove it through the waits
    // of a tile: it would keep them, and the stage addresses and MMA
    // descriptors derived from them in the main loop, in vector registers.
    // A broadcast from lane 0 at the start of each iteration of the tile
    // loop, and of every loop inside it, says so.
    getOperation().walk([&](scf::ForOp loop) {
      auto positions = loop->getAttrOfType<DenseI64ArrayAttr>(kUniformArgs);
      if (!positions)
        return;
      loop->removeAttr(kUniformArgs);
      OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
      Location loc = loop.getLoc();
      Value mask = arith::ConstantIntOp::create(b, loc, -1, 32);
      Value lane0 = arith::ConstantIntOp::create(b, loc, 0, 32);
      Value clamp = arith::ConstantIntOp::create(b, loc, 31, 32);
      for (int64_t position : positions.asArrayRef()) {
        BlockArgument arg = loop.getRegionIterArgs()[position];
        Value uniform =
            NVVM::ShflOp::create(b, loc, arg.getType(), mask, arg, lane0, clamp,
                                 NVVM::ShflKind::idx, UnitAttr());
        arg.replaceAllUsesExcept(uniform, uniform.getDefiningOp());
      }
    });
  }
};
} // namespace

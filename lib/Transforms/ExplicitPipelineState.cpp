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
    : public mlir::fa4::impl::FA4ExplicitPipelineStateBase<
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

    RewritePatternSet patterns(context);
    patterns
        .add<StartLowering, StepLowering, SubStageLowering<ProducerAcquireOp>,
             SubStageLowering<ProducerLoadOp>, SubStageLowering<ProducerPutOp>,
             SubStageLowering<ConsumerWaitOp>,
             SubStageLowering<ConsumerReleaseOp>>(converter, context);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

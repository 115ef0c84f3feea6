//===- Roles.cpp - named barriers and warp votes to NVVM ------------------===//
//
// Lowering of what warps coordinate through: the named barriers that order
// warp roles, to bar.sync and bar.arrive (the roles themselves are lowered by
// fa4-lower-warp-roles), and warp votes, to vote.sync.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

struct NamedBarrierSyncLowering
    : public ConvertOpToLLVMPattern<NamedBarrierSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    NVVM::BarrierOp::create(b, Type(), i32Const(b, op.getId()),
                            i32Const(b, op.getThreads()),
                            NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct NamedBarrierArriveLowering
    : public ConvertOpToLLVMPattern<NamedBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    NVVM::BarrierArriveOp::create(b, i32Const(b, op.getId()),
                                  i32Const(b, op.getThreads()));
    rewriter.eraseOp(op);
    return success();
  }
};

/// The thread's elements or'ed together, then `vote.sync.any` over the warp.
struct WarpAnyLowering : public ConvertOpToLLVMPattern<WarpAnyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WarpAnyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getPred().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "undistributed predicate");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value any;
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
      Value element =
          LLVM::ExtractElementOp::create(b, adaptor.getPred(), i32Const(b, i));
      any = any ? LLVM::OrOp::create(b, any, element).getResult() : element;
    }
    rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(
        op, b.getI1Type(), i32Const(b, -1), any, NVVM::VoteSyncKind::any);
    return success();
  }
};

} // namespace

void mlir::fa4::populateRoleToNVVMPatterns(LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<NamedBarrierSyncLowering, NamedBarrierArriveLowering,
               WarpAnyLowering>(converter);
}

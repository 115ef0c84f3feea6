//===- Roles.cpp - named barriers to NVVM ---------------------------------===//
//
// Lowering of the named barriers that order warp roles to bar.sync and
// bar.arrive (the roles themselves are lowered by fa4-lower-warp-roles).
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

} // namespace

void mlir::fa4::populateRoleToNVVMPatterns(LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<NamedBarrierSyncLowering, NamedBarrierArriveLowering>(converter);
}

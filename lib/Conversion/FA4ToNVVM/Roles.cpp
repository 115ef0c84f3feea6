//===- Roles.cpp - named barriers to NVVM ---------------------------------===//
//
// Lowering of the named barriers that order warp roles to bar.sync and
// bar.arrive (the roles themselves are lowered by fa4-lower-warp-roles), or,
// in a kernel built to diagnose hangs, to arrivals on an mbarrier per
// barrier id and a bounded wait for the phase the arrival belongs to.
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
    if (plannedWithHangDiagnosis(op)) {
      // Every thread arrives; the arrival's state names the phase to wait
      // for.
      FailureOr<Value> standIn = namedBarrierPtr(b, op, op.getId());
      if (failed(standIn))
        return failure();
      Value barrier = *standIn;
      Value state =
          NVVM::MBarrierArriveOp::create(b, b.getI64Type(), barrier, Value())
              .getRes();
      emitBoundedWait(rewriter, op.getLoc(), hangSite(op), Value(), Value(),
                      [&](ImplicitLocOpBuilder &lb) -> Value {
                        return NVVM::MBarrierTryWaitOp::create(
                            lb, lb.getI1Type(), barrier, state, Value());
                      });
      rewriter.eraseOp(op);
      return success();
    }
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
    if (plannedWithHangDiagnosis(op)) {
      FailureOr<Value> standIn = namedBarrierPtr(b, op, op.getId());
      if (failed(standIn))
        return failure();
      NVVM::MBarrierArriveOp::create(b, b.getI64Type(), *standIn, Value());
    } else {
      NVVM::BarrierArriveOp::create(b, i32Const(b, op.getId()),
                                    i32Const(b, op.getThreads()));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::fa4::populateRoleToNVVMPatterns(LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<NamedBarrierSyncLowering, NamedBarrierArriveLowering>(converter);
}

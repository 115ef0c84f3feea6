//===- Math.cpp - math the NVPTX backend does not select -------------------===//
//
// `math.log2` on f32 (a row's log-sum-exp): LLVM's log2 intrinsic has no
// NVPTX lowering for f32 vectors, so each element becomes the hardware
// lg2.approx (about 2^-22 relative error), as the upstream exp2 becomes
// ex2.approx. `math.tanh` on f32 (a logit softcap) becomes the hardware
// tanh.approx.f32 (sm_75 and later, about 2^-11 relative error), which LLVM
// 22 has no intrinsic for.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

struct Log2Lowering : public ConvertOpToLLVMPattern<math::Log2Op> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(math::Log2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = adaptor.getOperand().getType();
    auto vector = dyn_cast<VectorType>(type);
    Type element = vector ? vector.getElementType() : type;
    if (!element.isF32() || (vector && vector.getRank() != 1))
      return rewriter.notifyMatchFailure(op, "not f32 or a 1-d f32 vector");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto lg2 = [&](Value x) {
      return LLVM::CallIntrinsicOp::create(
                 b, element, b.getStringAttr("llvm.nvvm.lg2.approx.f"),
                 ValueRange{x})
          .getResult(0);
    };
    if (!vector) {
      rewriter.replaceOp(op, lg2(adaptor.getOperand()));
      return success();
    }
    Value result = LLVM::PoisonOp::create(b, vector);
    for (int64_t i = 0; i < vector.getNumElements(); ++i) {
      Value x = LLVM::ExtractElementOp::create(b, adaptor.getOperand(),
                                               i32Const(b, i));
      result = LLVM::InsertElementOp::create(b, result, lg2(x), i32Const(b, i));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Each element of an f32 (or 1-d f32 vector) `math.tanh` through
/// tanh.approx.f32.
struct TanhLowering : public ConvertOpToLLVMPattern<math::TanhOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(math::TanhOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = adaptor.getOperand().getType();
    auto vector = dyn_cast<VectorType>(type);
    Type element = vector ? vector.getElementType() : type;
    if (!element.isF32() || (vector && vector.getRank() != 1))
      return rewriter.notifyMatchFailure(op, "not f32 or a 1-d f32 vector");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto tanh = [&](Value x) {
      return LLVM::InlineAsmOp::create(
                 b, element, ValueRange{x}, "tanh.approx.f32 $0, $1;", "=f,f",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::tailcallkind::TailCallKind::None,
                 LLVM::AsmDialectAttr::get(b.getContext(),
                                           LLVM::AsmDialect::AD_ATT),
                 ArrayAttr())
          .getResult(0);
    };
    if (!vector) {
      rewriter.replaceOp(op, tanh(adaptor.getOperand()));
      return success();
    }
    Value result = LLVM::PoisonOp::create(b, vector);
    for (int64_t i = 0; i < vector.getNumElements(); ++i) {
      Value x = LLVM::ExtractElementOp::create(b, adaptor.getOperand(),
                                               i32Const(b, i));
      result =
          LLVM::InsertElementOp::create(b, result, tanh(x), i32Const(b, i));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::fa4::populateMathToNVVMPatterns(LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  // Before the upstream math-to-llvm patterns.
  patterns.add<Log2Lowering, TanhLowering>(converter, /*benefit=*/2);
}

//===- Math.cpp - math the NVPTX backend does not select
//-------------------===//
//
// `math.log2` on f32 (a row's log-sum-exp): LLVM's log2 intrinsic has no
// NVPTX lowering for f32 vectors, so each element becomes the hardware
// lg2.approx (about 2^-22 relative error), as the upstream exp2 becomes
// ex2.approx. `math.tanh` on f32 (a logit softcap) becomes LLVM's tanh
// intrinsic with `afn`, which the NVPTX backend selects as the hardware
// tanh.approx.f32 (sm_75 and later, about 2^-11 relative error); without
// `afn` it has no NVPTX lowering at all. An intrinsic, not inline PTX: LLVM
// may schedule, hoist and combine it like any pure operation.
// `math.rsqrt` with `afn` becomes rsqrt.approx.f32 (about 2^-22 relative
// error; without `afn`, MathToLLVM's 1 / sqrt). `math.erf` becomes MLIR's
// rational polynomial (FMAs, a division and selects): NVPTX has no erf.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

/// `OpT` on f32 or a 1-d f32 vector, each element through `scalar` (one
/// hardware approximation).
/// With `onlyAfn`, only an op that allows approximate functions.
template <typename OpT>
struct ApproxLowering : public ConvertOpToLLVMPattern<OpT> {
  using Scalar = Value (*)(ImplicitLocOpBuilder &, Type, Value);
  ApproxLowering(LLVMTypeConverter &converter, Scalar scalar,
                 PatternBenefit benefit, bool onlyAfn = false)
      : ConvertOpToLLVMPattern<OpT>(converter, benefit), scalar(scalar),
        onlyAfn(onlyAfn) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (onlyAfn &&
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return rewriter.notifyMatchFailure(op, "exact: no fastmath<afn>");
    Type type = adaptor.getOperand().getType();
    auto vector = dyn_cast<VectorType>(type);
    Type element = vector ? vector.getElementType() : type;
    if (!element.isF32() || (vector && vector.getRank() != 1))
      return rewriter.notifyMatchFailure(op, "not f32 or a 1-d f32 vector");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    if (!vector) {
      rewriter.replaceOp(op, scalar(b, element, adaptor.getOperand()));
      return success();
    }
    Value result = LLVM::PoisonOp::create(b, vector);
    for (int64_t i = 0; i < vector.getNumElements(); ++i) {
      Value x = LLVM::ExtractElementOp::create(b, adaptor.getOperand(),
                                               i32Const(b, i));
      result = LLVM::InsertElementOp::create(b, result, scalar(b, element, x),
                                             i32Const(b, i));
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  Scalar scalar;
  bool onlyAfn;
};

/// lg2.approx.f32 of `x`.
Value lg2(ImplicitLocOpBuilder &b, Type element, Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, element, b.getStringAttr("llvm.nvvm.lg2.approx.f"),
             ValueRange{x})
      .getResult(0);
}

/// rsqrt.approx.f32 of `x`.
Value rsqrtApprox(ImplicitLocOpBuilder &b, Type element, Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, element, b.getStringAttr("llvm.nvvm.rsqrt.approx.f"),
             ValueRange{x})
      .getResult(0);
}

/// tanh.approx.f32 of `x`.
Value tanhApprox(ImplicitLocOpBuilder &b, Type element, Value x) {
  return LLVM::TanhOp::create(
      b, element, x,
      LLVM::FastmathFlagsAttr::get(b.getContext(), LLVM::FastmathFlags::afn));
}

} // namespace

void mlir::fa4::populateMathToNVVMPatterns(LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  // Before the upstream math-to-llvm patterns.
  patterns.add<ApproxLowering<math::Log2Op>>(converter, lg2, /*benefit=*/2);
  patterns.add<ApproxLowering<math::TanhOp>>(converter, tanhApprox,
                                             /*benefit=*/2);
  patterns.add<ApproxLowering<math::RsqrtOp>>(converter, rsqrtApprox,
                                              /*benefit=*/2, /*onlyAfn=*/true);
}

LogicalResult
mlir::fa4::detail::expandMathWithoutInstructions(Operation *root) {
  SmallVector<Operation *> erfs;
  root->walk([&](math::ErfOp op) { erfs.push_back(op); });
  if (erfs.empty())
    return success();
  RewritePatternSet patterns(root->getContext());
  populatePolynomialApproximateErfPattern(patterns);
  return applyOpPatternsGreedily(erfs, std::move(patterns));
}

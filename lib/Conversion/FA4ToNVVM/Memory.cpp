//===- Memory.cpp - global stores and program ids to NVVM -----------------===//
//
// Lowering of `fa4.global_store` (each thread's pairs of an #fa4.acc tile, or
// a quad's two values of an #fa4.rows tile, rows past the limit masked) and
// of the tile dialect's program ids.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "Tile/TileDialect.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

struct GlobalStoreLowering : public ConvertOpToLLVMPattern<GlobalStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GlobalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getTile().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "undistributed tile");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type i64 = b.getI64Type();
    Type elementType = type.getElementType();
    int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
    Value tile = adaptor.getTile();

    // Thread position in its warpgroup: rows 16w + l/4 (+8), columns
    // 2(l%4) (+1) of each 8-column block.
    Value tid = LLVM::ZExtOp::create(b, i64, threadId(b));
    Value inGroup = LLVM::URemOp::create(b, tid, i64Const(b, 128));
    Value warp = LLVM::UDivOp::create(b, inGroup, i64Const(b, 32));
    Value lane = LLVM::URemOp::create(b, inGroup, i64Const(b, 32));
    Value row = LLVM::AddOp::create(
        b, adaptor.getRow(),
        LLVM::AddOp::create(b, LLVM::MulOp::create(b, warp, i64Const(b, 16)),
                            LLVM::UDivOp::create(b, lane, i64Const(b, 4))));
    Value col = LLVM::AddOp::create(
        b, adaptor.getCol(),
        LLVM::MulOp::create(b, LLVM::URemOp::create(b, lane, i64Const(b, 4)),
                            i64Const(b, 2)));

    // A #fa4.rows tile: two values a thread, rows 16w + l/4 and +8, the same
    // in the four threads of a quad; the first of them stores.
    if (type.getNumElements() == 2) {
      Value leader = LLVM::ICmpOp::create(
          b, LLVM::ICmpPredicate::eq,
          LLVM::URemOp::create(b, lane, i64Const(b, 4)), i64Const(b, 0));
      Value rowCol = adaptor.getCol();
      for (int64_t h = 0; h < 2; ++h) {
        Value r = LLVM::AddOp::create(b, row, i64Const(b, 8 * h));
        Value inside = LLVM::AndOp::create(
            b, leader,
            LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::ult, r,
                                 adaptor.getRowLimit()));
        Value index = LLVM::AddOp::create(
            b, LLVM::MulOp::create(b, r, adaptor.getStride()), rowCol);
        Value ptr = LLVM::GEPOp::create(b, adaptor.getBase().getType(),
                                        elementType, adaptor.getBase(),
                                        ArrayRef<LLVM::GEPArg>{index});
        auto oneType = VectorType::get({1}, elementType);
        Value value = LLVM::ShuffleVectorOp::create(
            b, oneType, tile, tile, ArrayRef<int32_t>{static_cast<int32_t>(h)});
        Value mask = LLVM::UndefOp::create(b, VectorType::get({1}, b.getI1Type()));
        mask = LLVM::InsertElementOp::create(b, mask, inside, i32Const(b, 0));
        LLVM::MaskedStoreOp::create(b, value, ptr, mask,
                                    b.getI32IntegerAttr(elementBytes));
      }
      rewriter.eraseOp(op);
      return success();
    }

    auto pairType = VectorType::get({2}, elementType);
    auto maskType = VectorType::get({2}, b.getI1Type());
    int64_t blocks = type.getNumElements() / 4;
    for (int64_t h = 0; h < 2; ++h) {
      Value r = LLVM::AddOp::create(b, row, i64Const(b, 8 * h));
      Value inside = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::ult, r,
                                          adaptor.getRowLimit());
      Value mask = LLVM::UndefOp::create(b, maskType);
      mask = LLVM::InsertElementOp::create(b, mask, inside, i32Const(b, 0));
      mask = LLVM::InsertElementOp::create(b, mask, inside, i32Const(b, 1));
      Value rowStart = LLVM::MulOp::create(b, r, adaptor.getStride());
      for (int64_t j = 0; j < blocks; ++j) {
        Value c = LLVM::AddOp::create(b, col, i64Const(b, 8 * j));
        Value index = LLVM::AddOp::create(b, rowStart, c);
        Value ptr = LLVM::GEPOp::create(b, adaptor.getBase().getType(),
                                        elementType, adaptor.getBase(),
                                        ArrayRef<LLVM::GEPArg>{index});
        int32_t first = static_cast<int32_t>(4 * j + 2 * h);
        Value pair = LLVM::ShuffleVectorOp::create(
            b, pairType, tile, tile, ArrayRef<int32_t>{first, first + 1});
        LLVM::MaskedStoreOp::create(b, pair, ptr, mask,
                                    b.getI32IntegerAttr(2 * elementBytes));
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

template <typename OpT, typename X, typename Y, typename Z>
struct GridLowering : public ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename ConvertOpToLLVMPattern<OpT>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type i32 = b.getI32Type();
    Value id;
    switch (op.getDim()) {
    case 0:
      id = X::create(b, i32);
      break;
    case 1:
      id = Y::create(b, i32);
      break;
    default:
      id = Z::create(b, i32);
      break;
    }
    Type index = this->getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, index, id);
    return success();
  }
};

} // namespace

void mlir::fa4::populateMemoryToNVVMPatterns(LLVMTypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<GlobalStoreLowering,
               GridLowering<tile::ProgramIdOp, NVVM::BlockIdXOp,
                            NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridLowering<tile::NumProgramsOp, NVVM::GridDimXOp,
                            NVVM::GridDimYOp, NVVM::GridDimZOp>>(converter);
}

//===- Mma.cpp - asynchronous MMA to wgmma --------------------------------===//
//
// Lowering of `fa4.mma.async` to `wgmma.mma_async` on sm_90a (shared-memory
// operands, either of them mn-major, through `nvvm.wgmma.mma_async`, register
// A through inline PTX, since NVVM has no op for it) with 128-byte-swizzle
// matrix descriptors and scale-d = 0 for an MMA without an accumulator, and
// of `fa4.mma.wait` to `wgmma.wait_group`.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "FA4/AccFragment.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"

#include <optional>

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

/// Bytes of one row of a 128-byte-swizzled tile, and of an 8-row group.
constexpr int64_t kRowBytes = 128;
constexpr int64_t kGroupBytes = 8 * kRowBytes;
/// A descriptor's high word: the stride byte offset (one 8-row group, in
/// 16-byte units) and the 128-byte swizzle mode (1 in bits 62-63).
constexpr int64_t kHighWord =
    ((kGroupBytes >> 4) & 0x3FFF) | (int64_t(1) << 30);
/// A descriptor's leading-byte-offset field, in the low word.
constexpr int64_t leadingField(int64_t leadingBytes) {
  return ((leadingBytes >> 4) & 0x3FFF) << 16;
}

/// The shared-memory matrix descriptors (PTX ISA "Matrix Descriptor Format")
/// of one 128-byte-swizzled operand tile. The high word (stride byte offset,
/// swizzle mode) is a constant, and the start address, 14 bits of 16-byte
/// units in the low word, cannot carry into the leading-offset field: a
/// CTA's shared memory ends below 2^18 bytes. So the low word of the tile's
/// first byte is built once and the descriptor of any byte offset into the
/// tile is one 32-bit add of that offset in 16-byte units.
class TileDescriptors {
public:
  /// With `pin`, the low word goes through an opaque move where the MMA
  /// runs, so that LLVM does not hoist the steps' words (one add each) out
  /// of a loop into one register a step.
  TileDescriptors(ImplicitLocOpBuilder &b, Value base, int64_t leadingBytes,
                  bool pin) {
    Value address = LLVM::PtrToIntOp::create(b, b.getI32Type(), base);
    Value start = LLVM::LShrOp::create(
        b, LLVM::AndOp::create(b, address, i32Const(b, 0x3FFFF)),
        i32Const(b, 4));
    low = LLVM::OrOp::create(b, start, i32Const(b, leadingField(leadingBytes)));
    if (pin)
      low = LLVM::InlineAsmOp::create(
                b, b.getI32Type(), ValueRange{low}, "mov.b32 $0, $1;", "=r,r",
                /*has_side_effects=*/true, /*is_align_stack=*/false,
                LLVM::tailcallkind::TailCallKind::None,
                LLVM::AsmDialectAttr::get(b.getContext(),
                                          LLVM::AsmDialect::AD_ATT),
                ArrayAttr())
                .getResult(0);
  }

  /// The descriptor of the operand `bytes` past the tile's first byte.
  Value at(ImplicitLocOpBuilder &b, int64_t bytes) const {
    Value word =
        bytes ? LLVM::AddOp::create(b, low, i32Const(b, bytes >> 4)) : low;
    auto pairType = VectorType::get(2, b.getI32Type());
    Value pair = LLVM::UndefOp::create(b, pairType);
    pair = LLVM::InsertElementOp::create(b, pair, word, i32Const(b, 0));
    pair = LLVM::InsertElementOp::create(b, pair, i32Const(b, kHighWord),
                                         i32Const(b, 1));
    return LLVM::BitcastOp::create(b, b.getI64Type(), pair);
  }

  /// The operand at k16 step `kk` of a k-major tile of `rows` rows: column
  /// blocks of 64 16-bit elements (128 bytes) follow each other.
  static int64_t kMajorOffset(int64_t rows, int64_t kk) {
    return kk * 16 / 64 * rows * kRowBytes + (kk % 4) * 32;
  }
  /// The operand at k16 step `kk` of an mn-major tile: K rows of 128 bytes.
  static int64_t mnMajorOffset(int64_t kk) { return kk * 16 * kRowBytes; }

private:
  Value low;
};

/// The same descriptor built from the operand's address alone, in 64 bits
/// (plans with `rebuild_descriptors`): the step's offset, the mask and the
/// shift again at each step.
Value rebuiltDescriptor(ImplicitLocOpBuilder &b, Value ptr,
                        int64_t leadingBytes) {
  Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), ptr);
  Value start = LLVM::LShrOp::create(
      b, LLVM::AndOp::create(b, address, i64Const(b, 0x3FFFF)), i64Const(b, 4));
  return LLVM::OrOp::create(
      b, start, i64Const(b, leadingField(leadingBytes) | kHighWord << 32));
}

Value vectorToStruct(ImplicitLocOpBuilder &b, Value vector, Type structType) {
  auto vectorType = cast<VectorType>(vector.getType());
  Value result = LLVM::UndefOp::create(b, structType);
  for (int64_t i = 0, e = vectorType.getNumElements(); i < e; ++i) {
    Value element = LLVM::ExtractElementOp::create(b, vector, i32Const(b, i));
    result = LLVM::InsertValueOp::create(b, result, element, i);
  }
  return result;
}

Value structToVector(ImplicitLocOpBuilder &b, Value value, VectorType type) {
  Value result = LLVM::UndefOp::create(b, type);
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    Value element = LLVM::ExtractValueOp::create(b, value, i);
    result = LLVM::InsertElementOp::create(b, result, element, i32Const(b, i));
  }
  return result;
}

Type accStructType(MLIRContext *context, VectorType acc) {
  SmallVector<Type> fields(acc.getNumElements(), acc.getElementType());
  return LLVM::LLVMStructType::getLiteral(context, fields);
}

NVVM::WGMMATypes wgmmaType(Type type) {
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  return NVVM::WGMMATypes::f32;
}

/// The register-A wgmma through inline PTX: `a` holds the thread's values
/// of the 64 x K operand in accumulator order; k16 step `kk` takes column
/// blocks 2kk and 2kk+1, packed in pairs.
Value registerAStep(ImplicitLocOpBuilder &b, Value acc, Value a, int64_t kk,
                    Value descB, int64_t n, Type elementType, bool transB,
                    bool scaleD, Type structType) {
  SmallVector<Value> regs;
  for (int64_t j = 2 * kk; j < 2 * kk + 2; ++j)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t first = accValueIndex(j, h, 0);
      Value pair = LLVM::ShuffleVectorOp::create(
          b, a, a, ArrayRef<int32_t>{int32_t(first), int32_t(first + 1)});
      regs.push_back(LLVM::BitcastOp::create(b, b.getI32Type(), pair));
    }
  int64_t outs = n / 2;
  std::string accList, constraints;
  for (int64_t i = 0; i < outs; ++i) {
    accList += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=f,";
  }
  // Operands after the outputs: a0..a3, the B descriptor, scale-d.
  auto arg = [&](int64_t i) { return "$" + std::to_string(outs + i); };
  std::string type = elementType.isBF16() ? "bf16" : "f16";
  std::string asmString = "{\n.reg .pred p;\nsetp.ne.b32 p, " + arg(5) +
                          ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                          std::to_string(n) + "k16.f32." + type + "." + type +
                          " {" + accList + "}, {" + arg(0) + ", " + arg(1) +
                          ", " + arg(2) + ", " + arg(3) + "}, " + arg(4) +
                          ", p, 1, 1, " + (transB ? "1" : "0") + ";\n}";
  constraints += "r,r,r,r,l,r";
  for (int64_t i = 0; i < outs; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(regs);
  operands.push_back(descB);
  operands.push_back(i32Const(b, scaleD ? 1 : 0));
  for (int64_t i = 0; i < outs; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, acc, i));
  return LLVM::InlineAsmOp::create(
             b, structType, operands, asmString, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

struct MmaAsyncLowering : public ConvertOpToLLVMPattern<MmaAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MmaAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getType());
    if (!accType)
      return rewriter.notifyMatchFailure(op, "undistributed accumulator");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MLIRContext *context = b.getContext();
    MemRefType bType = op.getB().getType();
    bool mnMajor = op.getBMnMajor();
    int64_t n = bType.getDimSize(mnMajor ? 1 : 0);
    int64_t k = bType.getDimSize(mnMajor ? 0 : 1);
    Type elementType = bType.getElementType();
    Type structType = accStructType(context, accType);

    // Without an accumulator the first k16 step runs with scale-d = 0 and
    // reads no registers: its inputs stay undefined.
    Value acc = adaptor.getAcc()
                    ? vectorToStruct(b, adaptor.getAcc(), structType)
                    : LLVM::UndefOp::create(b, structType).getResult();
    auto aTile = dyn_cast<MemRefType>(op.getA().getType());
    // The leading byte offset of B: unused by a k-major 128-byte-swizzled
    // tile (16 by convention), the distance between column blocks of 64
    // N-elements in an mn-major one.
    int64_t bLeading = mnMajor ? k * kRowBytes : 16;
    auto bOffset = [&](int64_t kk) {
      return mnMajor ? TileDescriptors::mnMajorOffset(kk)
                     : TileDescriptors::kMajorOffset(n, kk);
    };
    // Descriptors of the tiles' first bytes, one add off them a step; or,
    // where the plan says so, each step's rebuilt from its address.
    ConfigAttr config = lookupConfig(op);
    bool rebuild = config && config.getRebuildDescriptors();
    bool pin = config && config.getPinDescriptors();
    // An mn-major A (K x M) is laid out as an mn-major B is: K rows of
    // 128 bytes, column blocks of 64 M-elements one after the other.
    bool aMnMajor = op.getAMnMajor();
    int64_t aRows = aTile ? aTile.getDimSize(0) : 0;
    int64_t aLeading = aMnMajor ? aRows * kRowBytes : 16;
    auto aOffset = [&](int64_t kk) {
      return aMnMajor ? TileDescriptors::mnMajorOffset(kk)
                      : TileDescriptors::kMajorOffset(aRows, kk);
    };
    std::optional<TileDescriptors> aDescriptors, bDescriptors;
    if (!rebuild) {
      if (aTile)
        aDescriptors.emplace(b, adaptor.getA(), aLeading, pin);
      bDescriptors.emplace(b, adaptor.getB(), bLeading, pin);
    }
    auto descriptor = [&](Value tile, int64_t leading, int64_t bytes,
                          std::optional<TileDescriptors> &hoisted) {
      return rebuild ? rebuiltDescriptor(b, offsetPtr(b, tile, bytes), leading)
                     : hoisted->at(b, bytes);
    };
    NVVM::WgmmaFenceAlignedOp::create(b);
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      bool scaleD = adaptor.getAcc() || kk > 0;
      Value descB =
          descriptor(adaptor.getB(), bLeading, bOffset(kk), bDescriptors);
      if (aTile) {
        Value descA =
            descriptor(adaptor.getA(), aLeading, aOffset(kk), aDescriptors);
        acc = NVVM::WgmmaMmaAsyncOp::create(
            b, structType, acc, descA, descB,
            NVVM::MMAShapeAttr::get(context, 64, n, 16),
            NVVM::WGMMATypesAttr::get(context, wgmmaType(elementType)),
            NVVM::WGMMATypesAttr::get(context, wgmmaType(elementType)),
            NVVM::WGMMATypesAttr::get(context,
                                      wgmmaType(accType.getElementType())),
            NVVM::WGMMAScaleOutAttr::get(context,
                                         scaleD ? NVVM::WGMMAScaleOut::one
                                                : NVVM::WGMMAScaleOut::zero),
            NVVM::WGMMAScaleInAttr::get(context, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(context, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(context, aMnMajor ? NVVM::MMALayout::col
                                                       : NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(context, mnMajor ? NVVM::MMALayout::row
                                                      : NVVM::MMALayout::col),
            NVVM::MMAIntOverflowAttr());
      } else {
        acc = registerAStep(b, acc, adaptor.getA(), kk, descB, n, elementType,
                            mnMajor, scaleD, structType);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    rewriter.replaceOp(op, structToVector(b, acc, accType));
    return success();
  }
};

/// `wgmma.wait_group`, then an empty asm that re-defines each accumulator
/// it covers, so that no read of them is scheduled before the wait.
struct MmaWaitLowering : public ConvertOpToLLVMPattern<MmaWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    NVVM::WgmmaWaitGroupSyncOp::create(b, op.getPending());
    SmallVector<Value> results;
    for (Value acc : adaptor.getAccs()) {
      auto type = dyn_cast<VectorType>(acc.getType());
      if (!type)
        return rewriter.notifyMatchFailure(op, "undistributed tile");
      Type structType = accStructType(b.getContext(), type);
      std::string constraints;
      SmallVector<Value> operands;
      int64_t count = type.getNumElements();
      StringRef reg = type.getElementType().isF32() ? "f" : "h";
      for (int64_t i = 0; i < count; ++i)
        constraints += ("=" + reg + ",").str();
      for (int64_t i = 0; i < count; ++i) {
        constraints += std::to_string(i) + (i + 1 < count ? "," : "");
        operands.push_back(
            LLVM::ExtractElementOp::create(b, acc, i32Const(b, i)));
      }
      Value defined =
          LLVM::InlineAsmOp::create(
              b, structType, operands, "// fa4.mma.wait", constraints,
              /*has_side_effects=*/true, /*is_align_stack=*/false,
              LLVM::tailcallkind::TailCallKind::None,
              LLVM::AsmDialectAttr::get(b.getContext(),
                                        LLVM::AsmDialect::AD_ATT),
              ArrayAttr())
              .getResult(0);
      results.push_back(structToVector(b, defined, type));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::fa4::populateMmaToNVVMPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<MmaAsyncLowering, MmaWaitLowering>(converter);
}

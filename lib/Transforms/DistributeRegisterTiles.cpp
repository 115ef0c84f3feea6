//===- DistributeRegisterTiles.cpp - laid-out tiles to thread values ------===//
//
// The `fa4-distribute-register-tiles` pass: a type conversion from tensors
// with an fa4 layout (#fa4.acc, #fa4.rows, #fa4.cols, #fa4.blocked) to the
// vector of values one thread holds, with the per-thread code of row reductions
// (quad shuffles; a one-hot row sum read as the one column it picks),
// broadcasts, iotas, splats and exp2, O's rescaling in a loop
// skipped by the warps whose factors are all 1, and structural conversion of
// loops; then positions converted to f32 once a thread where they are a
// repeated scalar plus constants.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/AccFragment.h"
#include "FA4/CoalescedFragment.h"
#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4DISTRIBUTEREGISTERTILES
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

namespace {

bool isLaidOut(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         isa_and_nonnull<AccLayoutAttr, RowsLayoutAttr, ColsLayoutAttr,
                         BlockedLayoutAttr, CoalescedLayoutAttr>(
             tensor.getEncoding());
}

/// The thread's place in its warpgroup, as i32 values: its index there,
/// its warp and its lane.
struct WarpgroupThread {
  Value inGroup, warp, lane;
};
WarpgroupThread warpgroupThread(ImplicitLocOpBuilder &b) {
  Value tid = NVVM::ThreadIdXOp::create(b, b.getI32Type());
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, v, 32);
  };
  Value inGroup = arith::RemUIOp::create(b, tid, c(128));
  return {inGroup, arith::DivUIOp::create(b, inGroup, c(32)),
          arith::RemUIOp::create(b, inGroup, c(32))};
}

/// A balanced tree of `combine` over `values`: log2 of them dependent
/// steps instead of one chain through all.
Value reduceTree(SmallVector<Value> level,
                 function_ref<Value(Value, Value)> combine) {
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(combine(level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

/// `value` combined with the same value of the lanes `offsets` apart, by
/// butterfly shuffles: every lane of the group ends with the whole.
Value reduceLanes(ImplicitLocOpBuilder &b, Value value,
                  ArrayRef<int64_t> offsets,
                  function_ref<Value(Value, Value)> combine) {
  Value fullMask = arith::ConstantIntOp::create(b, -1, 32);
  Value clamp = arith::ConstantIntOp::create(b, 0x1f, 32);
  for (int64_t lanes : offsets) {
    Value offset = arith::ConstantIntOp::create(b, lanes, 32);
    Value other =
        NVVM::ShflOp::create(b, value.getType(), fullMask, value, offset, clamp,
                             NVVM::ShflKind::bfly, UnitAttr());
    value = combine(value, other);
  }
  return value;
}

bool mentionsLayout(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isLaidOut) ||
         llvm::any_of(op->getResultTypes(), isLaidOut);
}

/// Rebuild an elementwise arith/math op or an fa4 op with the converted
/// operand and result types; its attributes and properties stay.
struct RetypeOp : public ConversionPattern {
  RetypeOp(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect, FA4Dialect>(
            op->getDialect()) ||
        op->getNumRegions() != 0 || isa<arith::ConstantOp>(op))
      return rewriter.notifyMatchFailure(op, "not a retypable op");
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         llvm::to_vector(op->getDiscardableAttrs()));
    state.propertiesAttr = op->getPropertiesAsAttribute();
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

struct ConstantLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = getTypeConverter()->convertType<VectorType>(op.getType());
    if (!dense || !type)
      return rewriter.notifyMatchFailure(op, "only splat tiles distribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type,
        DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
    return success();
  }
};

struct SplatLowering : public OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getTypeConverter()->convertType<VectorType>(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

struct Exp2Lowering : public OpConversionPattern<tile::Exp2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // math.exp2 on f32 becomes the hardware ex2.approx in the NVPTX backend.
    rewriter.replaceOpWithNewOp<math::Exp2Op>(op, adaptor.getSrc());
    return success();
  }
};

/// The scratch of shared memory through which a reduction of `layout`
/// along `axis` combines its warps' partial results (`values` a thread), a
/// buffer of the kernel's own: a row of partial results for each warp
/// (axis 1) or for each row group (axis 0) of the kernel's consumer
/// warpgroups (`warpgroups` of them).
Value reductionScratch(OpBuilder &rewriter, Operation *op,
                       CoalescedGeometry layout, int64_t axis, int64_t values,
                       int64_t warpgroups) {
  SmallVector<int64_t> shape =
      axis == 1
          ? SmallVector<int64_t>{4 * warpgroups, layout.warpRows() * values}
          : SmallVector<int64_t>{4 / layout.warps * warpgroups, layout.cols};
  auto type = MemRefType::get(
      shape, rewriter.getF32Type(), AffineMap(),
      IntegerAttr::get(IntegerType::get(op->getContext(), 64), 3));
  OpBuilder::InsertionGuard guard(rewriter);
  auto function = op->getParentOfType<func::FuncOp>();
  rewriter.setInsertionPointToStart(&function.getBody().front());
  return SharedBufferOp::create(rewriter, op->getLoc(), type, IntegerAttr());
}

/// The tile and column of `sum(where(iota(axis 1) == j, t, 0), 1)` on an
/// #fa4.acc f32 tile t: column j of t picked out as a row vector (0 where no
/// column is j), which a program writes to read a column chosen at run time.
std::optional<std::pair<Value, Value>> matchColumnPick(tile::ReduceOp op) {
  if (op.getKind() != tile::ReduceKind::sum || op.getAxis() != 1)
    return std::nullopt;
  auto select = op.getSrc().getDefiningOp<arith::SelectOp>();
  if (!select || !isa<RankedTensorType>(select.getCondition().getType()) ||
      !matchPattern(select.getFalseValue(), m_PosZeroFloat()))
    return std::nullopt;
  auto type = cast<RankedTensorType>(select.getType());
  if (!type.getElementType().isF32() ||
      !isa_and_nonnull<AccLayoutAttr>(type.getEncoding()))
    return std::nullopt;
  auto compare = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!compare || compare.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  for (auto [lhs, rhs] : {std::pair(compare.getLhs(), compare.getRhs()),
                          std::pair(compare.getRhs(), compare.getLhs())}) {
    auto iota = lhs.getDefiningOp<tile::IotaOp>();
    auto splat = rhs.getDefiningOp<tile::SplatOp>();
    if (iota && splat && iota.getAxis() == 1 &&
        splat.getValue().getType().isInteger(32))
      return std::pair(select.getTrueValue(), splat.getValue());
  }
  return std::nullopt;
}

/// Column j of a thread's #fa4.acc values `tile` of `columns` columns, as
/// its two rows' values: the lane of its quad that holds column j has it at
/// accValueIndex(block, h, pair column) for row half h (AccFragment.h),
/// picked by a tree of selects on the bits of (block, pair column) (j is
/// the warp's one value) and taken by one shuffle a row half. The sum it
/// stands for adds +0 to the value (so -0 reads +0) and is 0 where no
/// column is j.
Value pickColumn(ImplicitLocOpBuilder &b, Type resultType, Value tile, Value j,
                 int64_t columns) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, v, 32);
  };
  Type f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0));
  auto [inGroup, warp, lane] = warpgroupThread(b);
  AccColumnPlace place =
      buildAccColumnPlace<arith::DivUIOp, arith::RemUIOp>(b, j, c);
  Value from = arith::AddIOp::create(
      b, arith::SubIOp::create(b, lane, arith::RemUIOp::create(
                                            b, lane, c(kAccQuadLanes))),
      place.quadLane);
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, j, c(columns));
  // Candidate i (to a power of two, the rest 0) is (block i / 2, pair
  // column i % 2): the tree's first level picks by the pair column, each
  // next one by the block's next bit.
  int64_t blocks = columns / kAccBlockColumns;
  int64_t candidates = llvm::PowerOf2Ceil(2 * blocks);
  auto isSet = [&](Value bits, int64_t bit) -> Value {
    Value shifted = bit ? arith::ShRUIOp::create(b, bits, c(bit)) : bits;
    return arith::TruncIOp::create(b, b.getI1Type(),
                                   arith::AndIOp::create(b, shifted, c(1)));
  };
  SmallVector<Value> halves;
  for (int64_t h = 0; h < 2; ++h) {
    SmallVector<Value> level;
    for (int64_t i = 0; i < candidates; ++i)
      level.push_back(i < 2 * blocks
                          ? vector::ExtractOp::create(
                                b, tile, accValueIndex(i / 2, h, i % 2))
                                .getResult()
                          : zero);
    for (int64_t m = 0; level.size() > 1; ++m) {
      Value taken = m == 0 ? isSet(place.pairColumn, 0)
                           : isSet(place.block, m - 1);
      SmallVector<Value> next;
      for (size_t i = 0; i < level.size(); i += 2)
        next.push_back(
            arith::SelectOp::create(b, taken, level[i + 1], level[i]));
      level = std::move(next);
    }
    Value value =
        NVVM::ShflOp::create(b, f32, c(-1), level.front(), from, c(0x1f),
                             NVVM::ShflKind::idx, UnitAttr());
    value = arith::SelectOp::create(b, inRange, value, zero);
    halves.push_back(arith::AddFOp::create(b, value, zero));
  }
  return vector::FromElementsOp::create(b, resultType, halves);
}

/// Reduction of a register tile: of an #fa4.acc tile's rows, within the
/// thread over its column blocks and parities as a tree, then across the
/// four lanes of its quad; of a #fa4.coalesced tile's rows or columns,
/// within the thread as a tree, then across the warp's lanes that share the
/// row or column, then (where several warps do) through shared memory.
struct ReduceLowering : public OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto coalesced =
        dyn_cast_or_null<CoalescedLayoutAttr>(srcType.getEncoding());
    int64_t axis = op.getAxis();
    if (!coalesced &&
        (axis != 1 || !isa_and_nonnull<AccLayoutAttr>(srcType.getEncoding())))
      return op.emitOpError()
             << "reduces " << srcType << " along axis " << axis
             << ": fa4 reduces the rows of a tile that a dot writes (axis "
                "1), not yet its columns";
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    bool isMax = op.getKind() == tile::ReduceKind::max;
    auto combine = [&](Value x, Value y) -> Value {
      if (isMax)
        return arith::MaxNumFOp::create(b, x, y);
      return arith::AddFOp::create(b, x, y);
    };
    Value src = adaptor.getSrc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (auto pick = matchColumnPick(op)) {
      rewriter.replaceOp(op, pickColumn(b, resultType,
                                        rewriter.getRemappedValue(pick->first),
                                        pick->second, srcType.getDimSize(1)));
      return success();
    }
    SmallVector<Value> results;
    if (coalesced) {
      CoalescedGeometry layout = coalesced.getGeometry();
      int64_t perRow = layout.rowValues();
      int64_t rows = layout.rowVectorValues(srcType.getDimSize(0));
      // Lanes l and l ^ offset share a row (offsets below L) or a column
      // (L and above).
      SmallVector<int64_t> offsets;
      for (int64_t lanes = axis == 1 ? 1 : layout.lanes();
           lanes < (axis == 1 ? layout.lanes() : 32); lanes *= 2)
        offsets.push_back(lanes);
      // Each of the thread's rows (axis 1) or columns (axis 0): a tree over
      // its values there, then the lanes.
      int64_t count = axis == 1 ? rows : perRow;
      for (int64_t r = 0; r < count; ++r) {
        SmallVector<Value> level;
        for (int64_t i = 0, n = axis == 1 ? perRow : rows; i < n; ++i)
          level.push_back(vector::ExtractOp::create(
              b, src, axis == 1 ? r * perRow + i : i * perRow + r));
        results.push_back(reduceLanes(b, reduceTree(std::move(level), combine),
                                      offsets, combine));
      }
      Value partial = vector::FromElementsOp::create(b, resultType, results);
      // The warps that share a row, or a column, combine their results
      // through a scratch of the kernel's shared memory.
      ConfigAttr config = lookupConfig(op);
      int64_t warpgroups = config ? config.getQTiles() : 1;
      bool acrossWarps =
          axis == 1 ? layout.warps > 1 : 4 / layout.warps * warpgroups > 1;
      if (acrossWarps) {
        if (!srcType.getElementType().isF32())
          return op.emitOpError() << "reduces " << srcType
                                  << " across warps: fa4 combines f32 results";
        Value scratch = reductionScratch(rewriter, op, layout, axis,
                                         results.size(), warpgroups);
        partial = CombineWarpsOp::create(
            b, resultType, partial, scratch, WarpgroupIdOp::create(b), axis,
            CoalescedLayoutAttr::get(op.getContext(), layout.cols, layout.warps,
                                     /*slice=*/-1),
            isMax);
      }
      rewriter.replaceOp(op, partial);
      return success();
    }
    int64_t blocks = srcType.getDimSize(1) / kAccBlockColumns;
    for (int64_t h = 0; h < 2; ++h) {
      SmallVector<Value> level;
      for (int64_t j = 0; j < blocks; ++j)
        for (int64_t e = 0; e < 2; ++e)
          level.push_back(
              vector::ExtractOp::create(b, src, accValueIndex(j, h, e)));
      results.push_back(reduceLanes(b, reduceTree(std::move(level), combine),
                                    {1, 2}, combine));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, resultType,
                                                        results);
    return success();
  }
};

/// Broadcast of a #fa4.rows vector along the columns of an #fa4.acc tile,
/// or of a #fa4.cols vector along its rows.
struct BroadcastLowering : public OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> mask;
    if (auto coalesced =
            dyn_cast_or_null<CoalescedLayoutAttr>(resultType.getEncoding())) {
      // Along the columns each value takes its row's; along the rows its
      // column's.
      int64_t perRow = coalesced.getGeometry().rowValues();
      for (int64_t i = 0, e = getDistributedType(resultType).getNumElements();
           i < e; ++i)
        mask.push_back(op.getAxis() == 1 ? i / perRow : i % perRow);
      rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, adaptor.getSrc(),
                                                     adaptor.getSrc(), mask);
      return success();
    }
    if (!isa_and_nonnull<AccLayoutAttr>(resultType.getEncoding()))
      return rewriter.notifyMatchFailure(
          op, "only broadcasts into #fa4.acc tiles distribute");
    int64_t count = accValueCount(resultType.getDimSize(1));
    if (op.getAxis() == 0) {
      // A shuffle moves 32 bits.
      Type element = resultType.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() > 32)
        return op.emitOpError()
               << "broadcasts a column vector of " << element
               << " along the rows: fa4 moves a column's value between lanes "
                  "by 32-bit shuffles (elements of up to 32 bits)";
      rewriter.replaceOp(
          op, broadcastColumns(op, adaptor.getSrc(), count, rewriter));
      return success();
    }
    // Along the columns each value takes its row half's.
    for (int64_t i = 0; i < count; ++i)
      mask.push_back(accValuePosition(i).half);
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, adaptor.getSrc(),
                                                   adaptor.getSrc(), mask);
    return success();
  }

  /// A #fa4.cols vector repeated along the rows of an #fa4.acc tile of
  /// `count` values a thread: each of the thread's column pairs from the
  /// lane that holds it (AccFragment.h), one shuffle a column, shared by
  /// the two row halves.
  static Value broadcastColumns(tile::BroadcastOp op, Value src, int64_t count,
                                ConversionPatternRewriter &rewriter) {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, v, 32);
    };
    Type element = cast<VectorType>(src.getType()).getElementType();
    Type i32 = b.getI32Type();
    unsigned bits = element.getIntOrFloatBitWidth();
    // Shuffles move 32 bits: narrower values widen and come back.
    auto toWord = [&](Value v) -> Value {
      if (element.isF32() || element.isInteger(32))
        return v;
      if (!element.isInteger())
        v = arith::BitcastOp::create(b, b.getIntegerType(bits), v);
      return arith::ExtUIOp::create(b, i32, v);
    };
    auto fromWord = [&](Value v) -> Value {
      if (element.isF32() || element.isInteger(32))
        return v;
      v = arith::TruncIOp::create(b, b.getIntegerType(bits), v);
      if (!element.isInteger())
        v = arith::BitcastOp::create(b, element, v);
      return v;
    };
    auto [inGroup, warp, lane] = warpgroupThread(b);
    Value quad = arith::RemUIOp::create(b, lane, c(kAccQuadLanes));
    Value fullMask = c(-1), clamp = c(0x1f);
    DenseMap<std::pair<int64_t, int64_t>, Value> taken;
    SmallVector<Value> values;
    for (int64_t i = 0; i < count; ++i) {
      AccValuePosition position = accValuePosition(i);
      Value &value = taken[{position.block, position.column}];
      if (!value) {
        Value word = toWord(vector::ExtractOp::create(
            b, src, colsBroadcastIndex(position.block, position.column)));
        Value from = arith::AddIOp::create(
            b, quad, c(colsBroadcastLane(position.block)));
        value = fromWord(NVVM::ShflOp::create(b, word.getType(), fullMask, word,
                                              from, clamp, NVVM::ShflKind::idx,
                                              UnitAttr()));
      }
      values.push_back(value);
    }
    return vector::FromElementsOp::create(b, VectorType::get({count}, element),
                                          values);
  }
};

/// The narrowest accumulator whose rescaling is guarded.
constexpr int64_t kMinSkippedRescaleColumns = 128;

/// O's rescaling in a loop that carries it, `acc * broadcast(alpha)` with
/// alpha a #fa4.rows vector: skipped by the warps whose factors are all
/// exactly 1 (a vote and a branch against a multiply per accumulator
/// value). Multiplying by 1 is the identity for every f32 value, so the
/// result is the same either way; an online softmax whose running max
/// rarely moves (the DSL attention's conditional rescaling) skips nearly
/// every block's multiplies.
struct RowScaleLowering : public OpConversionPattern<arith::MulFOp> {
  RowScaleLowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::MulFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !isa_and_nonnull<AccLayoutAttr>(type.getEncoding()) ||
        !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a row scaling");
    // Worth a vote and a branch from 64 values a thread (N = 128) on:
    // measured on the H200 (bench/RESULTS.md, 2026-12-02), the skip gains
    // 2-10 % at head dim 256 and 1-2 % at 128 in sustained runs, and costs
    // 6-13 % at 64, where the branch breaks up the short softmax between
    // the MMAs.
    if (type.getDimSize(1) < kMinSkippedRescaleColumns)
      return rewriter.notifyMatchFailure(op, "too few values to skip");
    // The loop around it carries a tile of this shape: an accumulator
    // rescaled each iteration (not, say, O's final normalisation in the
    // loop over a persistent kernel's tiles).
    auto loop = op->getParentOfType<scf::ForOp>();
    Type distributed = getTypeConverter()->convertType(type);
    if (!loop || !llvm::any_of(loop.getRegionIterArgs(), [&](Value arg) {
          return arg.getType() == type || arg.getType() == distributed;
        }))
      return rewriter.notifyMatchFailure(op, "not in a loop carrying it");
    unsigned factorIndex;
    tile::BroadcastOp broadcast;
    for (unsigned i : {1u, 0u})
      if (auto b = op->getOperand(i).getDefiningOp<tile::BroadcastOp>();
          b && b.getAxis() == 1) {
        broadcast = b;
        factorIndex = i;
        break;
      }
    if (!broadcast)
      return rewriter.notifyMatchFailure(op, "no row factor");
    Value factors = rewriter.getRemappedValue(broadcast.getSrc());
    auto factorType = dyn_cast_or_null<VectorType>(
        factors ? factors.getType() : Type());
    if (!factorType)
      return rewriter.notifyMatchFailure(op, "row factors not distributed");
    Value acc = adaptor.getOperands()[1 - factorIndex];
    Value wide = adaptor.getOperands()[factorIndex];

    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value one = arith::ConstantFloatOp::create(
        b, cast<FloatType>(factorType.getElementType()), APFloat(1.0f));
    Value scales;
    for (int64_t i = 0, e = factorType.getNumElements(); i < e; ++i) {
      Value differs = arith::CmpFOp::create(
          b, arith::CmpFPredicate::UNE,
          vector::ExtractOp::create(b, factors, i), one);
      scales = scales ? arith::OrIOp::create(b, scales, differs) : differs;
    }
    Value any = NVVM::VoteSyncOp::create(
        b, b.getI1Type(), arith::ConstantIntOp::create(b, -1, 32), scales,
        NVVM::VoteSyncKind::any);
    auto guard = scf::IfOp::create(
        b, any,
        [&](OpBuilder &tb, Location loc) {
          // An empty asm with side effects keeps the branch a branch: LLVM
          // would otherwise speculate the one vector multiply and select,
          // doing the multiplies always and a select per value on top.
          LLVM::InlineAsmOp::create(
              tb, loc, Type(), ValueRange(), "", "",
              /*has_side_effects=*/true, /*is_align_stack=*/false,
              LLVM::tailcallkind::TailCallKind::None,
              LLVM::AsmDialectAttr::get(tb.getContext(),
                                        LLVM::AsmDialect::AD_ATT),
              ArrayAttr());
          Value scaled = arith::MulFOp::create(tb, loc, acc, wide,
                                               op.getFastmathAttr());
          scf::YieldOp::create(tb, loc, scaled);
        },
        [&](OpBuilder &eb, Location loc) {
          scf::YieldOp::create(eb, loc, acc);
        });
    rewriter.replaceOp(op, guard.getResults());
    return success();
  }
};

/// Row or column index of each of a thread's values.
struct IotaLowering : public OpConversionPattern<tile::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto vectorType = getTypeConverter()->convertType<VectorType>(type);
    if (!vectorType)
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type elementType = type.getElementType();
    auto toElement = [&](Value index) {
      return elementType == b.getI32Type()
                 ? index
                 : arith::IndexCastOp::create(b, elementType, index)
                       .getResult();
    };
    if (auto coalesced =
            dyn_cast_or_null<CoalescedLayoutAttr>(type.getEncoding())) {
      // CoalescedFragment.h: the thread's first row and column, and each
      // value's offsets from them.
      CoalescedGeometry layout = coalesced.getGeometry();
      auto [inGroup, warp, lane] = warpgroupThread(b);
      auto [row, col] =
          buildCoalescedThreadOrigin<arith::AddIOp, arith::MulIOp,
                                     arith::DivUIOp, arith::RemUIOp>(
              b, layout, warp, lane, [&](int64_t v) -> Value {
                return arith::ConstantIntOp::create(b, v, 32);
              });
      bool rows =
          coalesced.isRowVector() || (coalesced.isTile() && op.getAxis() == 0);
      SmallVector<Attribute> offsets;
      for (int64_t i = 0, n = vectorType.getNumElements(); i < n; ++i)
        offsets.push_back(b.getIntegerAttr(
            elementType, coalesced.isRowVector() ? i * layout.footprintRows()
                         : rows                  ? layout.rowOffset(i)
                                                 : layout.columnOffset(i)));
      Value splat = vector::BroadcastOp::create(b, vectorType,
                                                toElement(rows ? row : col));
      Value offsetVector = arith::ConstantOp::create(
          b, vectorType, DenseElementsAttr::get(vectorType, offsets));
      rewriter.replaceOpWithNewOp<arith::AddIOp>(op, splat, offsetVector);
      return success();
    }
    // Thread position in its warpgroup: warp w, lane l; its first row and
    // column in the tile (AccFragment.h).
    auto [inGroup, warp, lane] = warpgroupThread(b);
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, v, 32);
    };
    auto [baseRow, baseCol] =
        buildAccThreadOrigin<arith::AddIOp, arith::MulIOp, arith::DivUIOp,
                             arith::RemUIOp>(b, warp, lane, c);

    bool rows = isa<RowsLayoutAttr>(type.getEncoding()) ||
                (isa<AccLayoutAttr>(type.getEncoding()) && op.getAxis() == 0);
    Value base = rows ? baseRow : baseCol;
    SmallVector<Attribute> offsets;
    if (isa<BlockedLayoutAttr>(type.getEncoding())) {
      // A run: the thread's piece of consecutive elements.
      int64_t piece = vectorType.getNumElements();
      base = arith::MulIOp::create(b, inGroup, c(piece));
      for (int64_t i = 0; i < piece; ++i)
        offsets.push_back(b.getIntegerAttr(elementType, i));
    } else if (isa<RowsLayoutAttr>(type.getEncoding())) {
      offsets = {b.getIntegerAttr(elementType, 0),
                 b.getIntegerAttr(elementType, kAccHalfRows)};
    } else if (isa<ColsLayoutAttr>(type.getEncoding())) {
      // The thread's pairs from column 2 l on.
      base = arith::MulIOp::create(b, lane, c(kColsLaneColumns));
      for (int64_t i = 0, n = colsValueCount(type.getDimSize(0)); i < n; ++i)
        offsets.push_back(b.getIntegerAttr(elementType, colsValueColumn(i)));
    } else {
      for (int64_t i = 0, n = accValueCount(type.getDimSize(1)); i < n; ++i) {
        AccValuePosition value = accValuePosition(i);
        offsets.push_back(b.getIntegerAttr(
            elementType, rows ? value.rowOffset() : value.columnOffset()));
      }
    }
    if (elementType != b.getI32Type())
      base = arith::IndexCastOp::create(b, elementType, base);
    Value splat = vector::BroadcastOp::create(b, vectorType, base);
    Value offsetVector = arith::ConstantOp::create(
        b, vectorType, DenseElementsAttr::get(vectorType, offsets));
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, splat, offsetVector);
    return success();
  }
};

/// An i32 vector that is one scalar repeated plus a constant for each
/// value: the scalar as a sum of signed terms, and the constants.
struct RepeatedPlusConstants {
  SmallVector<std::pair<Value, bool>> terms; // (scalar, subtracted)
  SmallVector<int64_t> constants;

  /// The repeated scalar, as i32 ops at `b` (there are terms).
  Value buildScalar(ImplicitLocOpBuilder &b) const {
    Value scalar;
    for (auto [term, negated] : terms) {
      if (!scalar)
        scalar = negated ? arith::SubIOp::create(
                               b, arith::ConstantIntOp::create(b, 0, 32), term)
                               .getResult()
                         : term;
      else
        scalar = negated ? arith::SubIOp::create(b, scalar, term).getResult()
                         : arith::AddIOp::create(b, scalar, term).getResult();
    }
    return scalar;
  }
};

/// `value` as a repeated scalar plus constants when it is built of
/// broadcasts, constants, additions and subtractions (a distributed iota,
/// its offset by a splat, two iotas' difference: a key's distance from a
/// query); none otherwise.
std::optional<RepeatedPlusConstants> repeatedPlusConstants(Value value,
                                                           int depth = 0) {
  auto type = dyn_cast<VectorType>(value.getType());
  if (!type || !type.getElementType().isInteger(32) || depth > 8)
    return std::nullopt;
  int64_t n = type.getNumElements();
  if (auto broadcast = value.getDefiningOp<vector::BroadcastOp>()) {
    if (isa<VectorType>(broadcast.getSource().getType()))
      return std::nullopt;
    return RepeatedPlusConstants{{{broadcast.getSource(), false}},
                                 SmallVector<int64_t>(n, 0)};
  }
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    auto dense = dyn_cast<DenseIntElementsAttr>(constant.getValue());
    if (!dense)
      return std::nullopt;
    RepeatedPlusConstants result;
    for (const APInt &c : dense.getValues<APInt>())
      result.constants.push_back(c.getSExtValue());
    return result;
  }
  Operation *op = value.getDefiningOp();
  bool subtract = isa_and_nonnull<arith::SubIOp>(op);
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
    return std::nullopt;
  auto lhs = repeatedPlusConstants(op->getOperand(0), depth + 1);
  auto rhs = repeatedPlusConstants(op->getOperand(1), depth + 1);
  if (!lhs || !rhs)
    return std::nullopt;
  for (auto [term, negated] : rhs->terms)
    lhs->terms.push_back({term, negated != subtract});
  for (auto [c, d] : llvm::zip(lhs->constants, rhs->constants))
    c += subtract ? -d : d;
  return lhs;
}

/// Whether every value of the f32 vector `value` is the same one (a
/// broadcast scalar, a splat constant, or elementwise math of such): a
/// per-thread scalar such as a head's ALiBi slope.
bool isRepeated(Value value, int depth = 0) {
  if (depth > 8)
    return false;
  if (auto broadcast = value.getDefiningOp<vector::BroadcastOp>())
    return !isa<VectorType>(broadcast.getSource().getType());
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  if (op->getNumResults() != 1 || op->getNumOperands() == 0 ||
      !OpTrait::hasElementwiseMappableTraits(op) ||
      !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return operand.getType() == value.getType() &&
           isRepeated(operand, depth + 1);
  });
}

/// The conversions to f32 of i32 vectors that are a repeated scalar plus
/// small constants (positions: a score's key and query, their distance)
/// convert the scalar once and add the constants in f32: one conversion a
/// thread instead of one a value (conversions run at a quarter of the
/// rate of f32 arithmetic, on the pipe of the exponentials). Exact while
/// the scalar and the values lie within 2^24 (sequences of up to 16M
/// tokens), within one ulp beyond.
/// A product of such a conversion with a repeated scalar y, y · (x + c)
/// (ALiBi's slope times a key's distance), becomes fma(c, y, x · y): one
/// instruction a distinct constant instead of an add and a multiply, and a
/// value whose sum with a scaled score fuses the score's multiply (s · scale
/// + y · (x + c) one FMA); within half an ulp of x · y of the product.
/// Repeated factors of the product after it join y (y · (x + c) · z:
/// fma(c, y · z, x · (y · z)), the products reassociated).
void convertRepeatedScalarsOnce(Operation *root) {
  SmallVector<arith::SIToFPOp> conversions;
  root->walk([&](arith::SIToFPOp op) {
    auto type = dyn_cast<VectorType>(op.getType());
    if (type && type.getElementType().isF32())
      conversions.push_back(op);
  });
  constexpr int64_t kExact = int64_t(1) << 24;
  for (arith::SIToFPOp op : conversions) {
    std::optional<RepeatedPlusConstants> parts =
        repeatedPlusConstants(op.getIn());
    if (!parts || parts->terms.empty() ||
        llvm::any_of(parts->constants,
                     [&](int64_t c) { return c <= -kExact || c >= kExact; }))
      continue;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    Value scalar = parts->buildScalar(b);
    auto type = cast<VectorType>(op.getType());
    Value result = vector::BroadcastOp::create(
        b, type, arith::SIToFPOp::create(b, b.getF32Type(), scalar));
    if (llvm::any_of(parts->constants, [](int64_t c) { return c != 0; })) {
      SmallVector<float> values(parts->constants.begin(),
                                parts->constants.end());
      Value repeated = result;
      Value constants = arith::ConstantOp::create(
          b, type, DenseElementsAttr::get(type, llvm::ArrayRef<float>(values)));
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        auto product = dyn_cast<arith::MulFOp>(use.getOwner());
        if (!product)
          continue;
        Value factor = product->getOperand(1 - use.getOperandNumber());
        if (!isRepeated(factor))
          continue;
        // Further repeated factors of the product join y: y · (x + c) · z
        // becomes fma(c, y · z, x · (y · z)) (a bias divided by the softmax
        // scale).
        SmallVector<arith::MulFOp> chain = {product};
        SmallVector<Value> factors = {factor};
        while (chain.back()->hasOneUse()) {
          auto next = dyn_cast<arith::MulFOp>(*chain.back()->user_begin());
          if (!next)
            break;
          Value other = next.getLhs() == chain.back().getResult()
                            ? next.getRhs()
                            : next.getLhs();
          if (!isRepeated(other))
            break;
          chain.push_back(next);
          factors.push_back(other);
        }
        arith::MulFOp last = chain.back();
        ImplicitLocOpBuilder at(last.getLoc(), last);
        auto flags = product.getFastmath();
        for (Value other : llvm::drop_begin(factors))
          factor = arith::MulFOp::create(at, factor, other, flags);
        Value scaled = arith::MulFOp::create(at, repeated, factor, flags);
        last.replaceAllUsesWith(
            math::FmaOp::create(at, constants, factor, scaled, flags)
                .getResult());
        for (arith::MulFOp link : llvm::reverse(chain))
          link.erase();
      }
      if (op->use_empty()) {
        op.erase();
        continue;
      }
      result = arith::AddFOp::create(b, repeated, constants);
    }
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

/// Divisions, remainders and shifts by one amount of an i32 vector that is
/// a repeated scalar plus constants with few distinct constants (a score's
/// query row, two a thread; its key column, half the values) are computed
/// once for each distinct value and spread by a shuffle: chunked
/// attention's `query / C == key / C` divides a thread's 2 rows and 32
/// columns, not its 64 scores twice.
void computeDistinctValuesOnce(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    auto type = op->getNumResults() == 1
                    ? dyn_cast<VectorType>(op->getResult(0).getType())
                    : VectorType();
    if (type && type.getElementType().isInteger(32) &&
        isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::ShRSIOp, arith::ShRUIOp, arith::FloorDivSIOp,
            arith::CeilDivSIOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    auto type = cast<VectorType>(op->getResult(0).getType());
    // The amount: one scalar repeated, or one constant.
    Value amount = op->getOperand(1), amountScalar;
    SplatElementsAttr amountSplat;
    if (auto broadcast = amount.getDefiningOp<vector::BroadcastOp>();
        broadcast && !isa<VectorType>(broadcast.getSource().getType()))
      amountScalar = broadcast.getSource();
    else if (auto constant = amount.getDefiningOp<arith::ConstantOp>())
      amountSplat = dyn_cast<SplatElementsAttr>(constant.getValue());
    if (!amountScalar && !amountSplat)
      continue;
    std::optional<RepeatedPlusConstants> parts =
        repeatedPlusConstants(op->getOperand(0));
    if (!parts || parts->terms.empty())
      continue;
    SmallVector<int64_t> distinct;
    SmallVector<int64_t> spread;
    for (int64_t c : parts->constants) {
      auto *it = llvm::find(distinct, c);
      spread.push_back(it - distinct.begin());
      if (it == distinct.end())
        distinct.push_back(c);
    }
    if (2 * distinct.size() > parts->constants.size())
      continue;
    ImplicitLocOpBuilder b(op->getLoc(), op);
    auto few =
        VectorType::get({int64_t(distinct.size())}, type.getElementType());
    SmallVector<int32_t> constants(distinct.begin(), distinct.end());
    Value values = arith::AddIOp::create(
        b, vector::BroadcastOp::create(b, few, parts->buildScalar(b)),
        arith::ConstantOp::create(
            b, few, DenseElementsAttr::get(few, ArrayRef<int32_t>(constants))));
    Value amounts =
        amountScalar ? Value(vector::BroadcastOp::create(b, few, amountScalar))
                     : Value(arith::ConstantOp::create(
                           b, few,
                           SplatElementsAttr::get(
                               few, amountSplat.getSplatValue<Attribute>())));
    OperationState state(op->getLoc(), op->getName(),
                         ValueRange{values, amounts}, TypeRange{few},
                         op->getAttrs());
    Value once = b.create(state)->getResult(0);
    Value result = vector::ShuffleOp::create(b, once, once, spread);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

struct DistributeRegisterTilesPass
    : public mlir::fa4::impl::FA4DistributeRegisterTilesBase<
          DistributeRegisterTilesPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([](RankedTensorType type) -> Type {
      if (VectorType distributed = getDistributedType(type))
        return distributed;
      return type;
    });

    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !mentionsLayout(op); });
    RewritePatternSet patterns(context);
    patterns.add<RetypeOp, ConstantLowering, SplatLowering, Exp2Lowering,
                 ReduceLowering, BroadcastLowering, IotaLowering,
                 RowScaleLowering>(converter, context);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    // Helper functions may take and return laid-out tiles.
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    convertRepeatedScalarsOnce(getOperation());
    computeDistinctValuesOnce(getOperation());
  }
};
} // namespace

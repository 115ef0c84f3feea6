//===- Memory.cpp - global stores and program ids to NVVM -----------------===//
//
// Lowering of `fa4.global_store` (each thread's pairs of an #fa4.acc tile, or
// a quad's two values of an #fa4.rows tile, or a thread's pieces of an
// #fa4.coalesced tile, rows past the limit and columns past the count not
// written), of `fa4.global_load` (a thread's rows or columns of a vector,
// or its values, pairs or pieces of a tile, zeros past its end), of
// a warpgroup's read of a shared-memory tile into registers and its write
// there (`fa4.shared_load`, ldmatrix; `fa4.shared_store`, stmatrix), of the
// TMA-store epilogue
// (`fa4.shared_buffer`, `fa4.tma_store`, `fa4.tma_store_wait`) and of the tile
// dialect's program ids.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "FA4/AccFragment.h"
#include "FA4/CoalescedFragment.h"
#include "Tile/TileDialect.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

/// Moves `b` into a block of its own that runs where `inside` holds, before
/// `op` (atomics cannot be masked as stores are, and a branch keeps a
/// store's math beside it); `b.setInsertionPoint(op)` ends it.
void beginUnder(ImplicitLocOpBuilder &b, ConversionPatternRewriter &rewriter,
                Operation *op, Value inside) {
  rewriter.setInsertionPoint(op);
  beginConditionalBlock(rewriter, b.getLoc(), inside);
  b.setInsertionPoint(rewriter.getInsertionBlock(),
                      rewriter.getInsertionPoint());
}

/// `values` (a vector) added into consecutive elements from `ptr`, one
/// relaxed atomic add per value (NVPTX: `atom.global.add.f32`, its result
/// unused).
void atomicAdd(ImplicitLocOpBuilder &b, Value values, Value ptr) {
  auto type = cast<VectorType>(values.getType());
  Type element = type.getElementType();
  int64_t count = type.getNumElements();
  for (int64_t e = 0; e < count; ++e) {
    Value at = e ? LLVM::GEPOp::create(b, ptr.getType(), element, ptr,
                                       ArrayRef<LLVM::GEPArg>{int32_t(e)})
                       .getResult()
                 : ptr;
    LLVM::AtomicRMWOp::create(
        b, LLVM::AtomicBinOp::fadd, at,
        LLVM::ExtractElementOp::create(b, values, i32Const(b, e)),
        LLVM::AtomicOrdering::monotonic);
  }
}

/// The address of element `index` from `base`.
Value elementPtr(ImplicitLocOpBuilder &b, Value base, Type element,
                 Value index) {
  return LLVM::GEPOp::create(b, base.getType(), element, base,
                             ArrayRef<LLVM::GEPArg>{index});
}

/// Whether `x < y`, as signed integers.
Value isLess(ImplicitLocOpBuilder &b, Value x, Value y) {
  return LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::slt, x, y);
}

/// The element at `index` from `base` where `inside` holds (of the base
/// itself, discarded, elsewhere: a valid address), else `zero`.
Value loadOrZero(ImplicitLocOpBuilder &b, Value base, Type element,
                 Value inside, Value index, Value zero) {
  Value offset = LLVM::SelectOp::create(b, inside, index, i64Const(b, 0));
  return LLVM::SelectOp::create(
      b, inside,
      LLVM::LoadOp::create(b, element, elementPtr(b, base, element, offset)),
      zero);
}

/// The `width` consecutive values of `tile` from value `first` (a piece
/// of 8 unless said).
Value pieceOf(ImplicitLocOpBuilder &b, Value tile, int64_t first,
              int64_t width = kCoalescedPiece) {
  SmallVector<int32_t> mask;
  for (int64_t e = 0; e < width; ++e)
    mask.push_back(static_cast<int32_t>(first + e));
  auto type = VectorType::get(
      {width}, cast<VectorType>(tile.getType()).getElementType());
  return LLVM::ShuffleVectorOp::create(b, type, tile, tile, mask);
}

/// The thread's first row and column of a #fa4.coalesced `layout`, as i64
/// values, and its lane.
struct CoalescedThread {
  Value row, col, warp, lane;
};
CoalescedThread coalescedThread(ImplicitLocOpBuilder &b,
                                CoalescedGeometry layout) {
  auto [inGroup, warp, lane] = warpgroupThread(b, b.getI64Type());
  auto [row, col] = buildCoalescedThreadOrigin<LLVM::AddOp, LLVM::MulOp,
                                               LLVM::UDivOp, LLVM::URemOp>(
      b, layout, warp, lane, [&](int64_t v) { return i64Const(b, v); });
  return {row, col, warp, lane};
}

/// The mask of a piece of 8 from column `c`: where the row lies inside
/// and the column `c + e` is below `count` (no count: every column).
Value pieceMask(ImplicitLocOpBuilder &b, Value rowInside, Value c,
                Value count) {
  Value mask = LLVM::UndefOp::create(
      b, VectorType::get({kCoalescedPiece}, b.getI1Type()));
  for (int64_t e = 0; e < kCoalescedPiece; ++e) {
    Value inside = rowInside;
    if (count)
      inside = LLVM::AndOp::create(
          b, inside,
          isLess(b, LLVM::AddOp::create(b, c, i64Const(b, e)), count));
    mask = LLVM::InsertElementOp::create(b, mask, inside, i32Const(b, e));
  }
  return mask;
}

/// A #fa4.coalesced load: the thread's values of the tile (row by row
/// `a`, piece by piece `k`), of a row vector (a value per row) or of a
/// column vector (its pieces), each past the rows or the count 0. With
/// `pieces` one vector load a piece (the address of an element at
/// `base` where it lies outside, a valid one), else one load a value.
LogicalResult lowerCoalescedLoad(GlobalLoadOp op, Value base, Value start,
                                 Value count, Value stride, Value rows,
                                 VectorType type,
                                 ConversionPatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  auto attr = cast<CoalescedLayoutAttr>(op.getLayoutAttr());
  CoalescedGeometry layout = attr.getGeometry();
  Type element = type.getElementType();
  auto [row, col, warp, lane] = coalescedThread(b, layout);
  auto zeroOf = [&](Type t) { return LLVM::ZeroOp::create(b, t).getResult(); };
  auto at = [&](Value index) { return elementPtr(b, base, element, index); };
  Value zero = zeroOf(element);
  auto pieceType = VectorType::get({kCoalescedPiece}, element);
  SmallVector<Value> values;
  // The piece of 8 from column `c` of the row starting at `rowStart`.
  auto readPiece = [&](Value rowInside, Value rowStart, Value c) {
    Value piece;
    if (op.getPieces()) {
      // 16 bytes or more, at a multiple of 8 elements.
      Value inside = LLVM::AndOp::create(b, rowInside, isLess(b, c, count));
      Value offset = LLVM::SelectOp::create(
          b, inside, LLVM::AddOp::create(b, rowStart, c), i64Const(b, 0));
      piece = LLVM::SelectOp::create(
          b, inside, LLVM::LoadOp::create(b, pieceType, at(offset), 16),
          zeroOf(pieceType));
    } else {
      // A masked load of the piece from its first element (those outside
      // are not read), element-aligned: one address a piece.
      piece = LLVM::MaskedLoadOp::create(
          b, pieceType, at(LLVM::AddOp::create(b, rowStart, c)),
          pieceMask(b, rowInside, c, count), zeroOf(pieceType),
          static_cast<uint32_t>(element.getIntOrFloatBitWidth() / 8));
    }
    for (int64_t e = 0; e < kCoalescedPiece; ++e)
      values.push_back(
          LLVM::ExtractElementOp::create(b, piece, i32Const(b, e)));
  };
  Value yes = LLVM::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(true));
  if (attr.isRowVector()) {
    for (int64_t a = 0; a < type.getNumElements(); ++a) {
      Value r =
          LLVM::AddOp::create(b, row, i64Const(b, a * layout.footprintRows()));
      values.push_back(loadOrZero(b, base, element, isLess(b, r, count),
                                  LLVM::AddOp::create(b, start, r), zero));
    }
  } else {
    int64_t rowCount =
        attr.isTile() ? type.getNumElements() / layout.rowValues() : 1;
    for (int64_t a = 0; a < rowCount; ++a) {
      Value rowInside = yes, rowStart = start;
      if (attr.isTile()) {
        Value r = LLVM::AddOp::create(b, row,
                                      i64Const(b, a * layout.footprintRows()));
        rowInside = isLess(b, r, rows);
        rowStart =
            LLVM::AddOp::create(b, start, LLVM::MulOp::create(b, r, stride));
      }
      for (int64_t k = 0; k < layout.pieces(); ++k)
        readPiece(rowInside, rowStart,
                  LLVM::AddOp::create(b, col,
                                      i64Const(b, k * layout.footprintCols())));
    }
  }
  Value result = LLVM::UndefOp::create(b, type);
  for (auto [i, value] : llvm::enumerate(values))
    result = LLVM::InsertElementOp::create(b, result, value,
                                           i32Const(b, int64_t(i)));
  rewriter.replaceOp(op, result);
  return success();
}

/// Each of a thread's values of the vector (its two rows, its columns, or
/// its piece of a run) or of the #fa4.acc tile read with one load, of the
/// element at the base when it lies past `count` (or `rows`: a valid address
/// however short the vector), and replaced by 0 there: no branch.
struct GlobalLoadLowering : public ConvertOpToLLVMPattern<GlobalLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GlobalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "undistributed vector");
    if (isa<CoalescedLayoutAttr>(op.getLayoutAttr()))
      return lowerCoalescedLoad(op, adaptor.getBase(), adaptor.getStart(),
                                adaptor.getCount(), adaptor.getStride(),
                                adaptor.getRows(), type, rewriter);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type i64 = b.getI64Type();
    Type element = type.getElementType();
    auto [inGroup, warp, lane] = warpgroupThread(b, i64);
    auto [row, col] = buildAccThreadOrigin<LLVM::AddOp, LLVM::MulOp,
                                           LLVM::UDivOp, LLVM::URemOp>(
        b, warp, lane, [&](int64_t v) { return i64Const(b, v); });
    Value zero = LLVM::ConstantOp::create(
        b, element,
        isa<FloatType>(element) ? TypedAttr(b.getFloatAttr(element, 0.0))
                                : TypedAttr(b.getIntegerAttr(element, 0)));
    // The element at `index` from the base where `inside` holds (of the
    // base itself, discarded, elsewhere: a valid address), else 0.
    auto loadOne = [&](Value inside, Value index) {
      return loadOrZero(b, adaptor.getBase(), element, inside, index, zero);
    };
    Value result = LLVM::UndefOp::create(b, type);
    // A tile of the #fa4.acc layout: the thread's pairs of values (two
    // adjacent columns) of its two rows.
    if (op.getStride()) {
      int64_t blocks = type.getNumElements() / kAccBlockValues;
      // Each of the thread's two rows: where it starts, whether it lies
      // inside.
      Value rowStarts[2], rowInside[2];
      for (int64_t h = 0; h < 2; ++h) {
        Value r = LLVM::AddOp::create(b, row, i64Const(b, kAccHalfRows * h));
        rowStarts[h] =
            LLVM::AddOp::create(b, adaptor.getStart(),
                                LLVM::MulOp::create(b, r, adaptor.getStride()));
        rowInside[h] = isLess(b, r, adaptor.getRows());
      }
      // A thread whose pairs all lie inside, at an address aligned to a
      // pair (the second row's is the first's: 8 rows apart), reads each
      // pair with one load from its rows' addresses; one at an edge or a
      // misaligned tensor value by value, each tested against the rows
      // and columns left.
      int64_t pairBytes = 2 * element.getIntOrFloatBitWidth() / 8;
      Value firstPair = elementPtr(b, adaptor.getBase(), element,
                                   LLVM::AddOp::create(b, rowStarts[0], col));
      Value aligned = LLVM::ICmpOp::create(
          b, LLVM::ICmpPredicate::eq,
          LLVM::AndOp::create(b, LLVM::PtrToIntOp::create(b, i64, firstPair),
                              i64Const(b, pairBytes - 1)),
          i64Const(b, 0));
      Value whole = LLVM::AndOp::create(
          b, rowInside[1],
          isLess(b,
                 LLVM::AddOp::create(
                     b, col, i64Const(b, kAccBlockColumns * (blocks - 1) + 1)),
                 adaptor.getCount()));
      Block *current = rewriter.getInsertionBlock();
      Block *after = rewriter.splitBlock(current, rewriter.getInsertionPoint());
      after->addArgument(type, op.getLoc());
      Block *byPairs = rewriter.createBlock(after);
      Block *byValues = rewriter.createBlock(after);
      b.setInsertionPointToEnd(current);
      LLVM::CondBrOp::create(b, LLVM::AndOp::create(b, whole, aligned), byPairs,
                             byValues);

      b.setInsertionPointToEnd(byPairs);
      Value pairs = result;
      auto pairType = VectorType::get({2}, element);
      for (int64_t h = 0; h < 2; ++h) {
        Value rowPtr = elementPtr(b, adaptor.getBase(), element,
                                  LLVM::AddOp::create(b, rowStarts[h], col));
        for (int64_t j = 0; j < blocks; ++j) {
          Value at =
              j ? LLVM::GEPOp::create(
                      b, rowPtr.getType(), element, rowPtr,
                      ArrayRef<LLVM::GEPArg>{int32_t(kAccBlockColumns * j)})
                      .getResult()
                : rowPtr;
          Value pair = LLVM::LoadOp::create(b, pairType, at, pairBytes);
          for (int64_t e = 0; e < 2; ++e)
            pairs = LLVM::InsertElementOp::create(
                b, pairs,
                LLVM::ExtractElementOp::create(b, pair, i32Const(b, e)),
                i32Const(b, accValueIndex(j, h, e)));
        }
      }
      LLVM::BrOp::create(b, ValueRange{pairs}, after);

      b.setInsertionPointToEnd(byValues);
      Value values = result;
      for (int64_t h = 0; h < 2; ++h) {
        for (int64_t j = 0; j < blocks; ++j)
          for (int64_t e = 0; e < 2; ++e) {
            Value c = LLVM::AddOp::create(
                b, col, i64Const(b, kAccBlockColumns * j + e));
            Value inside = LLVM::AndOp::create(
                b, rowInside[h], isLess(b, c, adaptor.getCount()));
            values = LLVM::InsertElementOp::create(
                b, values,
                loadOne(inside, LLVM::AddOp::create(b, rowStarts[h], c)),
                i32Const(b, accValueIndex(j, h, e)));
          }
      }
      LLVM::BrOp::create(b, ValueRange{values}, after);

      rewriter.setInsertionPointToStart(after);
      rewriter.replaceOp(op, after->getArgument(0));
      return success();
    }
    bool blocked = isa<BlockedLayoutAttr>(op.getLayoutAttr());
    bool rows = isa<RowsLayoutAttr>(op.getLayoutAttr());
    // A run's piece: the thread's consecutive elements; a column vector's
    // pairs from column 2 l on (AccFragment.h). Those past the vector's
    // columns lie before `count` (memory there) or are not read.
    int64_t piece = type.getNumElements();
    Value first =
        blocked ? Value(LLVM::MulOp::create(b, inGroup, i64Const(b, piece)))
        : rows  ? row
                : Value(LLVM::MulOp::create(b, lane,
                                            i64Const(b, kColsLaneColumns)));
    for (int64_t i = 0; i < piece; ++i) {
      int64_t step = blocked ? i : rows ? kAccHalfRows * i : colsValueColumn(i);
      Value index = LLVM::AddOp::create(b, first, i64Const(b, step));
      Value inside = isLess(b, index, adaptor.getCount());
      Value value =
          loadOne(inside, LLVM::AddOp::create(b, adaptor.getStart(), index));
      result = LLVM::InsertElementOp::create(b, result, value, i32Const(b, i));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A #fa4.coalesced store: the thread's values of the tile, row by row `a`
/// (rows past the limit not written) and piece by piece (columns past the
/// count not written: with `pieces` a piece under one test by one vector
/// store, else value by value under their own), or of a row vector, a
/// value a row by the row's first lane.
LogicalResult lowerCoalescedStore(GlobalStoreOp op,
                                  GlobalStoreOp::Adaptor adaptor,
                                  VectorType type,
                                  ConversionPatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  auto attr = cast<CoalescedLayoutAttr>(op.getLayoutAttr());
  CoalescedGeometry layout = attr.getGeometry();
  Type element = type.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  Value tile = adaptor.getTile();
  Value base = adaptor.getBase();
  auto [row, col, warp, lane] = coalescedThread(b, layout);
  auto at = [&](Value index) { return elementPtr(b, base, element, index); };
  auto storeOne = [&](Value inside, Value value, Value index) {
    auto oneType = VectorType::get({1}, element);
    Value one = LLVM::UndefOp::create(b, oneType);
    one = LLVM::InsertElementOp::create(b, one, value, i32Const(b, 0));
    Value mask = LLVM::UndefOp::create(b, VectorType::get({1}, b.getI1Type()));
    mask = LLVM::InsertElementOp::create(b, mask, inside, i32Const(b, 0));
    LLVM::MaskedStoreOp::create(b, one, at(index), mask,
                                b.getI32IntegerAttr(bytes));
  };
  Value first = LLVM::AddOp::create(b, adaptor.getRow(), row);
  auto rowOf = [&](int64_t a) {
    Value r =
        LLVM::AddOp::create(b, first, i64Const(b, a * layout.footprintRows()));
    Value inside = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::ult, r,
                                        adaptor.getRowLimit());
    Value rowStart = LLVM::AddOp::create(
        b, LLVM::MulOp::create(b, r, adaptor.getStride()), adaptor.getCol());
    return std::pair{inside, rowStart};
  };
  if (attr.isRowVector()) {
    // The row's first lane (of the first of its warps) writes its value.
    Value leader = LLVM::ICmpOp::create(
        b, LLVM::ICmpPredicate::eq,
        LLVM::URemOp::create(b, lane, i64Const(b, layout.lanes())),
        i64Const(b, 0));
    if (layout.warps > 1)
      leader = LLVM::AndOp::create(
          b, leader,
          LLVM::ICmpOp::create(
              b, LLVM::ICmpPredicate::eq,
              LLVM::URemOp::create(b, warp, i64Const(b, layout.warps)),
              i64Const(b, 0)));
    for (int64_t a = 0; a < type.getNumElements(); ++a) {
      auto [inside, index] = rowOf(a);
      storeOne(LLVM::AndOp::create(b, leader, inside),
               LLVM::ExtractElementOp::create(b, tile, i32Const(b, a)), index);
    }
    rewriter.eraseOp(op);
    return success();
  }
  Value columns = adaptor.getColumns();
  auto columnInside = [&](Value inside, Value c) {
    if (!columns)
      return inside;
    return LLVM::AndOp::create(b, inside, isLess(b, c, columns)).getResult();
  };
  int64_t perRow = layout.rowValues();
  for (int64_t a = 0, n = type.getNumElements() / perRow; a < n; ++a) {
    auto [rowInside, rowStart] = rowOf(a);
    for (int64_t k = 0; k < layout.pieces(); ++k) {
      Value c =
          LLVM::AddOp::create(b, col, i64Const(b, k * layout.footprintCols()));
      Value piece = pieceOf(b, tile, a * perRow + k * kCoalescedPiece);
      Value ptr = at(LLVM::AddOp::create(b, rowStart, c));
      if (op.getPieces()) {
        beginUnder(b, rewriter, op, columnInside(rowInside, c));
        LLVM::StoreOp::create(b, piece, ptr, 16);
        b.setInsertionPoint(op);
        continue;
      }
      // A masked store of the piece from its first element.
      LLVM::MaskedStoreOp::create(b, piece, ptr,
                                  pieceMask(b, rowInside, c, columns),
                                  b.getI32IntegerAttr(bytes));
    }
  }
  rewriter.eraseOp(op);
  return success();
}

/// What a thread stores: the tile's values, their element type and size;
/// and where: its index in the warpgroup, its lane, and its first row and
/// column in the tile (AccFragment.h).
struct ThreadStore {
  Value tile;
  Type elementType;
  int64_t elementBytes;
  Value inGroup, lane, row, col;
};

/// One value at a time: a #fa4.rows tile (two values a thread, rows 16w +
/// l/4 and +8, the same in the four threads of a quad; the first of them
/// stores) or a run of a 1-d tile (each thread its piece of consecutive
/// elements, stored as the rows of one column).
LogicalResult lowerValueStore(ImplicitLocOpBuilder &b, GlobalStoreOp op,
                              GlobalStoreOp::Adaptor adaptor, VectorType type,
                              const ThreadStore &store,
                              ConversionPatternRewriter &rewriter) {
  Value tile = store.tile, inGroup = store.inGroup, lane = store.lane,
        row = store.row;
  Type elementType = store.elementType;
  int64_t elementBytes = store.elementBytes;
  bool blocked = isa<BlockedLayoutAttr>(op.getLayout());
  int64_t values = type.getNumElements();
  Value first = row, leader;
  int64_t step = kAccHalfRows;
  if (blocked) {
    first = LLVM::AddOp::create(
        b, adaptor.getRow(),
        LLVM::MulOp::create(b, inGroup, i64Const(b, values)));
    step = 1;
  } else {
    leader = LLVM::ICmpOp::create(
        b, LLVM::ICmpPredicate::eq,
        LLVM::URemOp::create(b, lane, i64Const(b, kAccQuadLanes)),
        i64Const(b, 0));
  }
  for (int64_t i = 0; i < values; ++i) {
    Value r = LLVM::AddOp::create(b, first, i64Const(b, step * i));
    Value inside = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::ult, r,
                                        adaptor.getRowLimit());
    if (leader)
      inside = LLVM::AndOp::create(b, leader, inside);
    Value index = LLVM::AddOp::create(
        b, LLVM::MulOp::create(b, r, adaptor.getStride()), adaptor.getCol());
    Value ptr =
        LLVM::GEPOp::create(b, adaptor.getBase().getType(), elementType,
                            adaptor.getBase(), ArrayRef<LLVM::GEPArg>{index});
    auto oneType = VectorType::get({1}, elementType);
    Value value = LLVM::ShuffleVectorOp::create(
        b, oneType, tile, tile, ArrayRef<int32_t>{static_cast<int32_t>(i)});
    if (op.getAdd()) {
      beginUnder(b, rewriter, op, inside);
      atomicAdd(b, value, ptr);
      b.setInsertionPoint(op);
      continue;
    }
    Value mask = LLVM::UndefOp::create(b, VectorType::get({1}, b.getI1Type()));
    mask = LLVM::InsertElementOp::create(b, mask, inside, i32Const(b, 0));
    LLVM::MaskedStoreOp::create(b, value, ptr, mask,
                                b.getI32IntegerAttr(elementBytes));
  }
  rewriter.eraseOp(op);
  return success();
}

/// An #fa4.acc tile, a pair of a row half's values at a time (AccFragment.h):
/// each pair by one masked store under its row's test, or, under a column
/// count, under its own tests.
LogicalResult lowerAccStore(ImplicitLocOpBuilder &b, GlobalStoreOp op,
                            GlobalStoreOp::Adaptor adaptor, VectorType type,
                            const ThreadStore &store,
                            ConversionPatternRewriter &rewriter) {
  Value tile = store.tile, row = store.row, col = store.col;
  Type elementType = store.elementType;
  int64_t elementBytes = store.elementBytes;
  auto pairType = VectorType::get({2}, elementType);
  auto maskType = VectorType::get({2}, b.getI1Type());
  int64_t blocks = type.getNumElements() / kAccBlockValues;
  // Column blocks of 8 past a constant `columns` are not written; any
  // other count is tested pair by pair, against what is left of the row
  // from the thread's first column of the tile.
  Value left;
  if (Value count = op.getColumns()) {
    std::optional<int64_t> known = getConstantIntValue(count);
    if (known && *known % kAccBlockColumns == 0)
      blocks = std::min(blocks, *known / kAccBlockColumns);
    else
      left = LLVM::SubOp::create(b, adaptor.getColumns(),
                                 LLVM::SubOp::create(b, col, adaptor.getCol()));
  }
  // Row half h: whether its row lies inside, and where it starts.
  Value rowInside[2], rowStart[2];
  Value threadRow = row, threadCol = col;
  auto rowHalf = [&](int64_t h) {
    Value r = LLVM::AddOp::create(b, threadRow, i64Const(b, kAccHalfRows * h));
    rowInside[h] = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::ult, r,
                                        adaptor.getRowLimit());
    return r;
  };
  // The address of the pair of block j in row half h, and the index of
  // its first value in the tile.
  auto pairAt = [&](int64_t j, int64_t h) {
    Value c =
        LLVM::AddOp::create(b, threadCol, i64Const(b, kAccBlockColumns * j));
    Value index = LLVM::AddOp::create(b, rowStart[h], c);
    Value ptr =
        LLVM::GEPOp::create(b, adaptor.getBase().getType(), elementType,
                            adaptor.getBase(), ArrayRef<LLVM::GEPArg>{index});
    int32_t first = static_cast<int32_t>(accValueIndex(j, h, 0));
    return std::pair{ptr, first};
  };

  // Under a column count, a pair at a time: under the test of its first
  // value, the pair whole where its second lies inside too (one vector
  // store), else the first alone (an odd count's last column). The
  // branches keep each value's math beside its store (a masked store
  // whose values' tests differ becomes a branch a value, which crowd a
  // thread's registers).
  if (left) {
    // Whether row half h's pairs start at even element offsets.
    Value aligned[2];
    for (int64_t h = 0; h < 2; ++h) {
      rowStart[h] = LLVM::MulOp::create(b, rowHalf(h), adaptor.getStride());
      aligned[h] = LLVM::ICmpOp::create(
          b, LLVM::ICmpPredicate::eq,
          LLVM::AndOp::create(b, LLVM::AddOp::create(b, rowStart[h], col),
                              i64Const(b, 1)),
          i64Const(b, 0));
    }
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t j = 0; j < blocks; ++j) {
        int64_t c = kAccBlockColumns * j;
        Value firstInside = LLVM::AndOp::create(
            b, rowInside[h],
            LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::sgt, left,
                                 i64Const(b, c)));
        beginUnder(b, rewriter, op, firstInside);
        auto [ptr, first] = pairAt(j, h);
        Value value =
            LLVM::ExtractElementOp::create(b, tile, i32Const(b, first));
        Value whole = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::sgt, left,
                                           i64Const(b, c + 1));
        if (op.getAdd()) {
          Value second =
              LLVM::ExtractElementOp::create(b, tile, i32Const(b, first + 1));
          Value ptr1 = LLVM::GEPOp::create(b, ptr.getType(), elementType, ptr,
                                           ArrayRef<LLVM::GEPArg>{int32_t(1)});
          LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::fadd, ptr, value,
                                    LLVM::AtomicOrdering::monotonic);
          beginUnder(b, rewriter, &*b.getInsertionPoint(), whole);
          LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::fadd, ptr1, second,
                                    LLVM::AtomicOrdering::monotonic);
        } else {
          // The pair whole by one vector store where its address allows
          // (an even element offset; an odd row stride leaves every
          // other row's pairs odd), else value by value.
          Value pair = LLVM::ShuffleVectorOp::create(
              b, pairType, tile, tile, ArrayRef<int32_t>{first, first + 1});
          Value vector = LLVM::AndOp::create(b, whole, aligned[h]);
          Value scalars = LLVM::XOrOp::create(
              b, vector,
              LLVM::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(true)));
          Value second =
              LLVM::ExtractElementOp::create(b, tile, i32Const(b, first + 1));
          // The first value's block ends at its branch to what follows.
          Operation *end = &*b.getInsertionPoint();
          beginUnder(b, rewriter, end, vector);
          LLVM::StoreOp::create(b, pair, ptr, 2 * elementBytes);
          beginUnder(b, rewriter, end, scalars);
          LLVM::StoreOp::create(b, value, ptr, elementBytes);
          beginUnder(b, rewriter, &*b.getInsertionPoint(), whole);
          LLVM::StoreOp::create(
              b, second,
              LLVM::GEPOp::create(b, ptr.getType(), elementType, ptr,
                                  ArrayRef<LLVM::GEPArg>{int32_t(1)}),
              elementBytes);
        }
        b.setInsertionPoint(op);
      }
    rewriter.eraseOp(op);
    return success();
  }

  for (int64_t h = 0; h < 2; ++h) {
    Value r = rowHalf(h);
    Value mask;
    if (!op.getAdd()) {
      mask = LLVM::UndefOp::create(b, maskType);
      for (int32_t e = 0; e < 2; ++e)
        mask = LLVM::InsertElementOp::create(b, mask, rowInside[h],
                                             i32Const(b, e));
    }
    rowStart[h] = LLVM::MulOp::create(b, r, adaptor.getStride());
    // An atomic add's row half: one block under the row's test.
    if (op.getAdd())
      beginUnder(b, rewriter, op, rowInside[h]);
    for (int64_t j = 0; j < blocks; ++j) {
      auto [ptr, first] = pairAt(j, h);
      Value pair = LLVM::ShuffleVectorOp::create(
          b, pairType, tile, tile, ArrayRef<int32_t>{first, first + 1});
      if (op.getAdd())
        atomicAdd(b, pair, ptr);
      else
        LLVM::MaskedStoreOp::create(b, pair, ptr, mask,
                                    b.getI32IntegerAttr(2 * elementBytes));
    }
    if (op.getAdd())
      b.setInsertionPoint(op);
  }
  rewriter.eraseOp(op);
  return success();
}

struct GlobalStoreLowering : public ConvertOpToLLVMPattern<GlobalStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GlobalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getTile().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "undistributed tile");
    if (isa<CoalescedLayoutAttr>(op.getLayout()))
      return lowerCoalescedStore(op, adaptor, type, rewriter);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type i64 = b.getI64Type();
    // The thread's first row and column in the tile (AccFragment.h).
    auto [inGroup, warp, lane] = warpgroupThread(b, i64);
    auto [row, col] = buildAccThreadOrigin<LLVM::AddOp, LLVM::MulOp,
                                           LLVM::UDivOp, LLVM::URemOp>(
        b, warp, lane, [&](int64_t v) { return i64Const(b, v); },
        adaptor.getRow(), adaptor.getCol());
    Type elementType = type.getElementType();
    ThreadStore store{adaptor.getTile(),
                      elementType,
                      elementType.getIntOrFloatBitWidth() / 8,
                      inGroup,
                      lane,
                      row,
                      col};
    if (isa<BlockedLayoutAttr, RowsLayoutAttr>(op.getLayout()))
      return lowerValueStore(b, op, adaptor, type, store, rewriter);
    return lowerAccStore(b, op, adaptor, type, store, rewriter);
  }
};

/// The partial results of the warps that share a row (axis 1), or of the
/// row groups that share a column (axis 0), combined through the scratch:
/// the first lane that holds each result stores it to its slot, the warps
/// meet at a named barrier, each thread combines the slots of its rows or
/// columns, and the warps meet again before the scratch may be reused.
struct CombineWarpsLowering : public ConvertOpToLLVMPattern<CombineWarpsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(CombineWarpsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value result = op.getAxis() == 1 ? combineRows(b, op, adaptor, rewriter)
                                     : combineColumns(b, op, adaptor, rewriter);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// Row reductions: the row's first lane in each warp stores its partial
  /// results, the warpgroup meets at its reduction barrier and each thread
  /// combines the slots of the warps of its row group.
  static Value combineRows(ImplicitLocOpBuilder &b, CombineWarpsOp op,
                           OpAdaptor adaptor,
                           ConversionPatternRewriter &rewriter) {
    auto type = cast<VectorType>(op.getType());
    int64_t values = type.getNumElements();
    CoalescedGeometry layout = op.getLayout().getGeometry();
    int64_t warps = layout.warps, lanes = layout.lanes(),
            warpRows = layout.warpRows();
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    auto [inGroup, warp, lane] = warpgroupThread(b, i32);
    Value group = adaptor.getWarpgroup();
    if (group.getType() != i32)
      group = LLVM::TruncOp::create(b, i32, group);
    Value rowInWarp = LLVM::UDivOp::create(b, lane, i32Const(b, lanes));
    Value base = adaptor.getScratch();
    // The slot of value `a` of the thread's row in warp `w`.
    auto slot = [&](Value w, int64_t a) {
      Value warpIndex = LLVM::AddOp::create(
          b, LLVM::MulOp::create(b, group, i32Const(b, 4)), w);
      Value row = LLVM::AddOp::create(
          b, LLVM::MulOp::create(b, warpIndex, i32Const(b, warpRows)),
          rowInWarp);
      Value index = LLVM::AddOp::create(
          b, LLVM::MulOp::create(b, row, i32Const(b, values)), i32Const(b, a));
      return elementPtr(b, base, f32, index);
    };
    auto barrier = [&] {
      NVVM::BarrierOp::create(
          b, Type(),
          LLVM::AddOp::create(b, group, i32Const(b, kReduceBarrierId)),
          i32Const(b, 128), NVVM::BarrierReductionAttr(), Value());
    };
    Value leader = LLVM::ICmpOp::create(
        b, LLVM::ICmpPredicate::eq,
        LLVM::URemOp::create(b, lane, i32Const(b, lanes)), i32Const(b, 0));
    beginUnder(b, rewriter, op, leader);
    for (int64_t a = 0; a < values; ++a)
      LLVM::StoreOp::create(b,
                            LLVM::ExtractElementOp::create(
                                b, adaptor.getPartial(), i32Const(b, a)),
                            slot(warp, a));
    b.setInsertionPoint(op);
    barrier();
    Value first = LLVM::MulOp::create(
        b, LLVM::UDivOp::create(b, warp, i32Const(b, warps)),
        i32Const(b, warps));
    Value result = LLVM::UndefOp::create(b, type);
    for (int64_t a = 0; a < values; ++a) {
      Value acc;
      for (int64_t j = 0; j < warps; ++j) {
        Value other = LLVM::LoadOp::create(
            b, f32, slot(LLVM::AddOp::create(b, first, i32Const(b, j)), a));
        acc = !acc          ? other
              : op.getMax() ? Value(LLVM::MaxNumOp::create(b, acc, other))
                            : Value(LLVM::FAddOp::create(b, acc, other));
      }
      result = LLVM::InsertElementOp::create(b, result, acc, i32Const(b, a));
    }
    barrier();
    return result;
  }

  /// Column reductions: the first row's lanes of each row group store the
  /// group's partial results, a row of the scratch for each group, 16 bytes
  /// at once; the consumer warpgroups meet, each thread combines the
  /// groups' values of its columns, and they meet again.
  static Value combineColumns(ImplicitLocOpBuilder &b, CombineWarpsOp op,
                              OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) {
    auto type = cast<VectorType>(op.getType());
    CoalescedGeometry layout = op.getLayout().getGeometry();
    int64_t rowGroups = 4 / layout.warps;
    int64_t groups = op.getScratch().getType().getDimSize(0);
    Type i64 = b.getI64Type(), f32 = b.getF32Type();
    CoalescedThread thread = coalescedThread(b, layout);
    Value warpgroup = adaptor.getWarpgroup();
    if (warpgroup.getType() != i64)
      warpgroup = LLVM::ZExtOp::create(b, i64, warpgroup);
    Value group = LLVM::AddOp::create(
        b, LLVM::MulOp::create(b, warpgroup, i64Const(b, rowGroups)),
        LLVM::UDivOp::create(b, thread.warp, i64Const(b, layout.warps)));
    Value base = adaptor.getScratch();
    constexpr int64_t kQuad = 4;
    auto quadType = VectorType::get({kQuad}, f32);
    // The slot of the thread's values from `first` in row group `g`: the
    // columns of piece first / 8 and its quad.
    auto slot = [&](Value g, int64_t first) {
      Value column = LLVM::AddOp::create(
          b, thread.col, i64Const(b, layout.columnOffset(first)));
      Value index = LLVM::AddOp::create(
          b, LLVM::MulOp::create(b, g, i64Const(b, layout.cols)), column);
      return elementPtr(b, base, f32, index);
    };
    auto barrier = [&] {
      NVVM::BarrierOp::create(b, Type(), i32Const(b, kColumnReduceBarrierId),
                              i32Const(b, 128 * (groups / rowGroups)),
                              NVVM::BarrierReductionAttr(), Value());
    };
    int64_t values = type.getNumElements();
    Value leader = LLVM::ICmpOp::create(
        b, LLVM::ICmpPredicate::ult, thread.lane, i64Const(b, layout.lanes()));
    beginUnder(b, rewriter, op, leader);
    for (int64_t first = 0; first < values; first += kQuad)
      LLVM::StoreOp::create(b, pieceOf(b, adaptor.getPartial(), first, kQuad),
                            slot(group, first), 16);
    b.setInsertionPoint(op);
    barrier();
    Value result = LLVM::UndefOp::create(b, type);
    for (int64_t first = 0; first < values; first += kQuad) {
      Value acc;
      for (int64_t g = 0; g < groups; ++g) {
        Value other =
            LLVM::LoadOp::create(b, quadType, slot(i64Const(b, g), first), 16);
        acc = !acc          ? other
              : op.getMax() ? Value(LLVM::MaxNumOp::create(b, acc, other))
                            : Value(LLVM::FAddOp::create(b, acc, other));
      }
      for (int64_t e = 0; e < kQuad; ++e)
        result = LLVM::InsertElementOp::create(
            b, result, LLVM::ExtractElementOp::create(b, acc, i32Const(b, e)),
            i32Const(b, first + e));
    }
    barrier();
    return result;
  }
};

/// A staging buffer: its place in the dynamic shared memory.
struct SharedBufferLowering : public ConvertOpToLLVMPattern<SharedBufferOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SharedBufferOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint64_t> offset = op.getOffset();
    if (!offset)
      return op.emitOpError()
             << "has no shared-memory offset; run fa4-allocate-shared-memory "
                "first (docs/Rationale.md, \"Shared memory allocated\")";
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(op, dynamicSmemAt(b, static_cast<int64_t>(*offset)));
    return success();
  }
};

/// Where a warp's `stmatrix` and `ldmatrix` find the warpgroup's rows of a
/// shared-memory tile laid out as a TMA box expects it: column blocks of
/// 128 bytes (one swizzle span) holding every row of the buffer, the 16-byte
/// chunk c of row r at chunk c ^ (r % 8) (the 128-byte swizzle). An 8 x 8
/// matrix of the accumulator layout (8-column block j, row half h) is what
/// one `stmatrix` or `ldmatrix` moves: lane l holds row l / 4, columns
/// 2 (l % 4) and + 1; four of them go at once, (j, 0), (j, 1), (j + 1, 0),
/// (j + 1, 1), lane l giving the address of row l % 8 of matrix l / 8, i.e.
/// row 16 w + 8 ((l / 8) % 2) + l % 8 of warp w and column block j + l / 16.
struct MatrixAddressing {
  Value rowBase, chunkXorBytes;
  int64_t spanColumns, blockBytes;

  MatrixAddressing(ImplicitLocOpBuilder &b, Value buffer, int64_t bufferRows,
                   Value first, Value warp, Value lane, int64_t spanColumns)
      : spanColumns(spanColumns), blockBytes(bufferRows * 128) {
    Value row = LLVM::AddOp::create(
        b, first,
        LLVM::AddOp::create(
            b, LLVM::MulOp::create(b, warp, i32Const(b, 16)),
            LLVM::AddOp::create(
                b,
                LLVM::MulOp::create(
                    b,
                    LLVM::URemOp::create(
                        b, LLVM::UDivOp::create(b, lane, i32Const(b, 8)),
                        i32Const(b, 2)),
                    i32Const(b, 8)),
                LLVM::URemOp::create(b, lane, i32Const(b, 8)))));
    // Chunk (j + odd) ^ (row % 8) for an even j: j ^ ((odd ^ row) % 8).
    Value odd = LLVM::UDivOp::create(b, lane, i32Const(b, 16));
    Value chunkXor = LLVM::AndOp::create(
        b, LLVM::XOrOp::create(b, odd, row), i32Const(b, 7));
    chunkXorBytes = LLVM::MulOp::create(b, chunkXor, i32Const(b, 16));
    rowBase =
        offsetPtr(b, buffer, LLVM::MulOp::create(b, row, i32Const(b, 128)));
  }

  /// The lane's address for the four matrices of column blocks j, j + 1
  /// (j even).
  Value at(ImplicitLocOpBuilder &b, int64_t j) const {
    int64_t column = kAccBlockColumns * j;
    Value chunk =
        LLVM::XOrOp::create(b, chunkXorBytes, i32Const(b, (j % 8) * 16));
    return offsetPtr(
        b, offsetPtr(b, rowBase, (column / spanColumns) * blockBytes), chunk);
  }
};

/// Where a thread's pairs of 32-bit values of the accumulator layout lie in
/// a warpgroup's rows of a 128-byte-swizzled tile (`buffer`, from row
/// `firstRow`): a 128-byte row holds 32 columns, so the pair of columns
/// 8 j + 2 (l % 4) of row r sits in 16-byte chunk 2 (j % 4) + (l % 4) / 2
/// of the row's span, XORed with r % 8, 8 (l % 2) bytes in.
struct WordPairAddressing {
  Value source, row, chunkInPair, within;
  int64_t blockBytes;

  WordPairAddressing(ImplicitLocOpBuilder &b, Value source, MemRefType buffer,
                     Value firstRow, Value warp, Value lane)
      : source(source), blockBytes(buffer.getDimSize(0) * 128) {
    Type i32 = b.getI32Type();
    // Row 16 w + l / 4 of the warpgroup's (+ 8 for the second half).
    row = LLVM::AddOp::create(
        b, LLVM::TruncOp::create(b, i32, firstRow),
        LLVM::AddOp::create(
            b, LLVM::MulOp::create(b, warp, i32Const(b, kAccWarpRows)),
            LLVM::UDivOp::create(b, lane, i32Const(b, kAccQuadLanes))));
    Value quad = LLVM::URemOp::create(b, lane, i32Const(b, kAccQuadLanes));
    chunkInPair = LLVM::UDivOp::create(b, quad, i32Const(b, 2));
    within = LLVM::MulOp::create(
        b, LLVM::URemOp::create(b, lane, i32Const(b, 2)), i32Const(b, 8));
  }

  /// Calls `visit` with the address of each of the thread's pairs in
  /// `blocks` 8-column blocks and the index of its first value.
  template <typename Visit>
  void forEach(ImplicitLocOpBuilder &b, int64_t blocks, Visit visit) const {
    const int64_t span = 32;
    for (int64_t h = 0; h < 2; ++h) {
      Value r = LLVM::AddOp::create(b, row, i32Const(b, kAccHalfRows * h));
      Value rowBase =
          offsetPtr(b, source, LLVM::MulOp::create(b, r, i32Const(b, 128)));
      Value swizzle = LLVM::URemOp::create(b, r, i32Const(b, 8));
      for (int64_t j = 0; j < blocks; ++j) {
        int64_t column = kAccBlockColumns * j;
        Value chunk = LLVM::XOrOp::create(
            b,
            LLVM::AddOp::create(b, chunkInPair,
                                i32Const(b, 2 * ((column % span) / 8))),
            swizzle);
        Value at = offsetPtr(
            b, offsetPtr(b, rowBase, (column / span) * blockBytes),
            LLVM::AddOp::create(
                b, LLVM::MulOp::create(b, chunk, i32Const(b, 16)), within));
        visit(at, static_cast<int64_t>(accValueIndex(j, h, 0)));
      }
    }
  }
};

/// A warpgroup's rows of a shared-memory tile into its registers, where the
/// accumulator layout has them: 16-bit elements four 8 x 8 matrices at a
/// time with `ldmatrix` (MatrixAddressing); 32-bit ones a thread's pair of
/// each block and row half with one 8-byte load (WordPairAddressing).
struct SharedLoadLowering : public ConvertOpToLLVMPattern<SharedLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SharedLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    auto buffer = dyn_cast<MemRefType>(op.getSource().getType());
    if (!type || !buffer)
      return rewriter.notifyMatchFailure(
          op, "undistributed tile or a source outside a stage");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type i32 = b.getI32Type();
    Type elementType = type.getElementType();
    auto [inGroup, warp, lane] = warpgroupThread(b, i32);
    if (elementType.getIntOrFloatBitWidth() == 32) {
      rewriter.replaceOp(op, loadWords(b, adaptor.getSource(), buffer, type,
                                       adaptor.getRow(), warp, lane));
      return success();
    }
    MatrixAddressing addressing(
        b, adaptor.getSource(), buffer.getDimSize(0),
        LLVM::TruncOp::create(b, i32, adaptor.getRow()), warp, lane,
        128 * 8 / elementType.getIntOrFloatBitWidth());
    Type quad = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, i32));
    auto pairType = VectorType::get({2}, elementType);
    Value result = LLVM::PoisonOp::create(b, type);
    int64_t blocks = type.getNumElements() / kAccBlockValues;
    for (int64_t j = 0; j < blocks; j += 2) {
      Value matrices = NVVM::LdMatrixOp::create(
          b, quad, addressing.at(b, j), 4, NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
          NVVM::LdStMatrixEltType::B16);
      int64_t m = 0;
      for (int64_t jj : {j, j + 1})
        for (int64_t h = 0; h < 2; ++h, ++m) {
          Value pair = LLVM::BitcastOp::create(
              b, pairType, LLVM::ExtractValueOp::create(b, matrices, m));
          int64_t at = static_cast<int64_t>(accValueIndex(jj, h, 0));
          for (int64_t e = 0; e < 2; ++e)
            result = LLVM::InsertElementOp::create(
                b, result,
                LLVM::ExtractElementOp::create(b, pair, i32Const(b, e)),
                i32Const(b, at + e));
        }
    }
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  static Value loadWords(ImplicitLocOpBuilder &b, Value source,
                         MemRefType buffer, VectorType type, Value firstRow,
                         Value warp, Value lane) {
    WordPairAddressing pairs(b, source, buffer, firstRow, warp, lane);
    auto pairType = VectorType::get({2}, type.getElementType());
    Value result = LLVM::PoisonOp::create(b, type);
    pairs.forEach(
        b, type.getNumElements() / kAccBlockValues,
        [&](Value at, int64_t index) {
          Value pair = LLVM::LoadOp::create(b, pairType, at, /*alignment=*/8);
          for (int64_t e = 0; e < 2; ++e)
            result = LLVM::InsertElementOp::create(
                b, result,
                LLVM::ExtractElementOp::create(b, pair, i32Const(b, e)),
                i32Const(b, index + e));
        });
    return result;
  }
};

/// The thread's fence that makes its shared-memory writes visible to the
/// async proxy (TMA and wgmma), which reads them after a barrier of all the
/// writers.
void fenceForAsyncProxy(ImplicitLocOpBuilder &b) {
  NVVM::FenceProxyOp::create(
      b,
      NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

/// A warpgroup's 16-bit `tile` (a thread's values, `blocks` 8-column blocks
/// of the accumulator layout) into its rows of a shared-memory tile, four
/// 8 x 8 matrices a warp at a time with `stmatrix` (MatrixAddressing); then
/// the fence for the async proxy.
void storeMatrices(ImplicitLocOpBuilder &b, Value tile, int64_t blocks,
                   const MatrixAddressing &addressing) {
  Type i32 = b.getI32Type();
  auto pairType =
      VectorType::get({2}, cast<VectorType>(tile.getType()).getElementType());
  for (int64_t j = 0; j < blocks; j += 2) {
    SmallVector<Value> sources;
    for (int64_t jj : {j, j + 1})
      for (int64_t h = 0; h < 2; ++h) {
        int32_t at = static_cast<int32_t>(accValueIndex(jj, h, 0));
        Value pair = LLVM::ShuffleVectorOp::create(
            b, pairType, tile, tile, ArrayRef<int32_t>{at, at + 1});
        sources.push_back(LLVM::BitcastOp::create(b, i32, pair));
      }
    NVVM::StMatrixOp::create(
        b, addressing.at(b, j), sources, NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
  }
  fenceForAsyncProxy(b);
}

/// The warpgroup's tile into its rows of a shared-memory tile
/// (storeMatrices), for an MMA to read after a barrier.
struct SharedStoreLowering : public ConvertOpToLLVMPattern<SharedStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SharedStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(adaptor.getTile().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "undistributed tile");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type i32 = b.getI32Type();
    MemRefType buffer = op.getBuffer().getType();
    auto [inGroup, warp, lane] = warpgroupThread(b, i32);
    MatrixAddressing addressing(
        b, adaptor.getBuffer(), buffer.getDimSize(0),
        LLVM::TruncOp::create(b, i32, adaptor.getRow()), warp, lane,
        128 * 8 / type.getElementType().getIntOrFloatBitWidth());
    storeMatrices(b, adaptor.getTile(), type.getNumElements() / kAccBlockValues,
                  addressing);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The warpgroup's tile into the staging buffer (16-bit values with
/// `stmatrix`, storeMatrices; 32-bit ones a pair at a time), then out
/// through TMA: copied, or with `add` added to the tensor's elements
/// (`cp.reduce.async.bulk.tensor .add`).
struct TmaStoreLowering : public ConvertOpToLLVMPattern<TmaStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(adaptor.getTile().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "undistributed tile");
    // A thread's share of a 64 x N tile, N a multiple of the 64-column box.
    if (type.getNumElements() % 32 != 0)
      return op.emitOpError() << "stores " << type
                              << " a thread: not the share of a 64 x N tile "
                                 "with N a multiple of 64";
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    Type i32 = b.getI32Type();
    Type elementType = type.getElementType();
    int64_t bits = elementType.getIntOrFloatBitWidth();
    if (bits != 16 && bits != 32)
      return op.emitOpError()
             << "stages 16- or 32-bit elements, not " << elementType;
    MemRefType buffer = op.getBuffer().getType();
    TensorMapType map = op.getMap().getType();
    int64_t span = map.getBox().back();
    int64_t blockBytes = buffer.getDimSize(0) * 128;
    // The tile's 8-column blocks j.
    int64_t blocks = type.getNumElements() / kAccBlockValues;
    Value tile = adaptor.getTile();

    auto [inGroup, warp, lane] = warpgroupThread(b, i32);
    Value first = LLVM::TruncOp::create(b, i32, adaptor.getRow());
    std::optional<MatrixAddressing> addressing;
    if (bits == 16)
      addressing.emplace(b, adaptor.getBuffer(), buffer.getDimSize(0), first,
                         warp, lane, span);
    Value barrier = LLVM::TruncOp::create(b, i32, adaptor.getBarrier());
    // The warpgroup meets at its barrier; in a kernel built to diagnose
    // hangs, on the barrier's stand-in mbarrier with a bounded wait.
    bool bounded = plannedWithHangDiagnosis(op);
    Value standIn;
    if (bounded) {
      FailureOr<Value> ptr = namedBarrierPtr(b, op, barrier);
      if (failed(ptr))
        return failure();
      standIn = *ptr;
    }
    auto meet = [&] {
      if (!bounded) {
        NVVM::BarrierOp::create(b, Type(), barrier, i32Const(b, 128),
                                NVVM::BarrierReductionAttr(), Value());
        return;
      }
      Value state =
          NVVM::MBarrierArriveOp::create(b, b.getI64Type(), standIn, Value())
              .getRes();
      emitBoundedWait(rewriter, loc, hangSite(op), Value(), Value(),
                      [&](ImplicitLocOpBuilder &lb) -> Value {
                        return NVVM::MBarrierTryWaitOp::create(
                            lb, lb.getI1Type(), standIn, state, Value());
                      });
      b.setInsertionPoint(rewriter.getInsertionBlock(),
                          rewriter.getInsertionPoint());
    };

    // The previous store has read its source; then the warpgroup writes.
    NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, b.getUnitAttr());
    meet();
    if (addressing) {
      storeMatrices(b, tile, blocks, *addressing);
    } else {
      // 32-bit values a pair at a time (WordPairAddressing), then the fence.
      auto pairType = VectorType::get({2}, elementType);
      WordPairAddressing(b, adaptor.getBuffer(), buffer, adaptor.getRow(), warp,
                         lane)
          .forEach(b, blocks, [&](Value at, int64_t index) {
            int32_t i = static_cast<int32_t>(index);
            LLVM::StoreOp::create(
                b,
                LLVM::ShuffleVectorOp::create(b, pairType, tile, tile,
                                              ArrayRef<int32_t>{i, i + 1}),
                at, /*alignment=*/8);
          });
      fenceForAsyncProxy(b);
    }
    // The writes become visible to TMA; the warpgroup's first thread copies.
    meet();

    b.setInsertionPoint(rewriter.getInsertionBlock(),
                        rewriter.getInsertionPoint());
    beginConditionalBlock(rewriter, op.getLoc(),
                          LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq,
                                               inGroup, i32Const(b, 0)));
    b.setInsertionPoint(rewriter.getInsertionBlock(),
                        rewriter.getInsertionPoint());
    // TMA coordinates are innermost first, in i32.
    SmallVector<Value> coords;
    for (Value coord : llvm::reverse(adaptor.getCoords()))
      coords.push_back(LLVM::TruncOp::create(b, i32, coord));
    Value firstRowBase = offsetPtr(
        b, adaptor.getBuffer(), LLVM::MulOp::create(b, first, i32Const(b, 128)));
    int64_t columns = blocks * 8;
    for (int64_t c = 0; c * span < columns; ++c) {
      SmallVector<Value> boxCoords(coords);
      if (c)
        boxCoords[0] = LLVM::AddOp::create(b, coords[0], i32Const(b, c * span));
      Value source = offsetPtr(b, firstRowBase, c * blockBytes);
      if (op.getAdd())
        NVVM::CpAsyncBulkTensorReduceOp::create(
            b, adaptor.getMap(), source, NVVM::TMAReduxKind::ADD,
            NVVM::TMAStoreMode::TILE, boxCoords, Value());
      else
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            b, adaptor.getMap(), source, boxCoords, Value(),
            NVVM::TMAStoreMode::TILE, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every thread waits for its bulk groups (to complete, or to have read
/// their source): only the ones that issued TMA stores have any.
struct TmaStoreWaitLowering : public ConvertOpToLLVMPattern<TmaStoreWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    NVVM::CpAsyncBulkWaitGroupOp::create(
        b, 0, op.getRead() ? b.getUnitAttr() : UnitAttr());
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
  patterns.add<GlobalLoadLowering, GlobalStoreLowering, CombineWarpsLowering,
               SharedBufferLowering, SharedLoadLowering, SharedStoreLowering,
               TmaStoreLowering, TmaStoreWaitLowering,
               GridLowering<tile::ProgramIdOp, NVVM::BlockIdXOp,
                            NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridLowering<tile::NumProgramsOp, NVVM::GridDimXOp,
                            NVVM::GridDimYOp, NVVM::GridDimZOp>>(converter);
}

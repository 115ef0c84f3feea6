//===- AccFragment.h - a thread's values of an #fa4.acc tile ----*- C++ -*-===//
//
// The one owner of the `#fa4.acc` fragment: which of a thread's values of a
// 64 x N accumulator tile holds which row and column. It is the register
// fragment of D in the PTX ISA's "Matrix fragments for wgmma .m64nNk16"
// (the figure "WGMMA .m64nNk16 register fragment layout for accumulator
// matrix D"): warp w of the warpgroup holds rows 16w ... 16w + 15; lane l
// holds rows 16w + l/4 and 16w + l/4 + 8 (row half h = 0, 1) and, in each
// 8-column block j, columns 8j + 2(l%4) and + 1 (column c = 0, 1); the
// value of (j, h, c) is at index 4j + 2h + c. The passes that distribute
// register tiles and the patterns that lower them to NVVM both read it from
// here: the index arithmetic as integer functions, the thread's first row
// and column as IR of either dialect's integer ops.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_ACCFRAGMENT_H
#define FA4_ACCFRAGMENT_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cstdint>
#include <utility>

namespace mlir::fa4 {

/// The rows of the tile one warp holds.
constexpr int64_t kAccWarpRows = 16;
/// The rows between a thread's two row halves.
constexpr int64_t kAccHalfRows = 8;
/// The columns of one column block.
constexpr int64_t kAccBlockColumns = 8;
/// A thread's values in one column block: 2 row halves x 2 columns.
constexpr int64_t kAccBlockValues = 4;
/// The lanes that share a row (a quad).
constexpr int64_t kAccQuadLanes = 4;

/// The number of values a thread holds of a 64 x `columns` tile.
constexpr int64_t accValueCount(int64_t columns) {
  return columns / kAccBlockColumns * kAccBlockValues;
}

/// The index among a thread's values of the value in column block `block`,
/// row half `half` and column `column` (0 or 1) of the thread's pair.
constexpr int64_t accValueIndex(int64_t block, int64_t half, int64_t column) {
  return kAccBlockValues * block + 2 * half + column;
}

/// Where the value at `index` lies: its column block, row half and column
/// within the thread's pair; the inverse of accValueIndex.
struct AccValuePosition {
  int64_t block, half, column;

  /// Its row, relative to the thread's first row.
  constexpr int64_t rowOffset() const { return kAccHalfRows * half; }
  /// Its column, relative to the thread's first column.
  constexpr int64_t columnOffset() const {
    return kAccBlockColumns * block + column;
  }
};
constexpr AccValuePosition accValuePosition(int64_t index) {
  return {index / kAccBlockValues, index % kAccBlockValues / 2, index % 2};
}

/// A thread's values of an `N`-element #fa4.cols vector: its column pairs
/// (2p, 2p + 1) spread over the lanes of each warp, pair p in lane p % 32,
/// so that lane l holds pairs l, l + 32, ...: 2 ceil(N / 64) values, those
/// of its k-th pair at 2k and 2k + 1 (pairs past the vector's end are
/// undefined). A thread of an #fa4.acc tile takes column c of its column
/// block j from lane 4 (j % 8) + l % 4, value 2 (j / 8) + c (a shuffle).
/// A lane's first column of a #fa4.cols vector is kColsLaneColumns * lane.
constexpr int64_t kColsLaneColumns = 2;
constexpr int64_t colsValueCount(int64_t columns) {
  return 2 * ((columns / 2 + 31) / 32);
}
/// The column of the value at `index`, relative to the thread's first, 2l.
constexpr int64_t colsValueColumn(int64_t index) {
  return 64 * (index / 2) + index % 2;
}
/// The value index and the first of the four source lanes (+ l % 4) of
/// column `column` (0 or 1) of an #fa4.acc thread's column block `block`.
constexpr int64_t colsBroadcastIndex(int64_t block, int64_t column) {
  return 2 * (block / 8) + column;
}
constexpr int64_t colsBroadcastLane(int64_t block) { return 4 * (block % 8); }

static_assert(colsValueCount(64) == 2 && colsValueCount(72) == 4 &&
                  colsValueCount(8) == 2 && colsValueCount(256) == 8,
              "a thread holds 2 ceil(N / 64) values of a column vector");

static_assert(accValuePosition(accValueIndex(3, 1, 0)).block == 3 &&
                  accValuePosition(accValueIndex(3, 1, 0)).half == 1 &&
                  accValuePosition(accValueIndex(3, 1, 0)).column == 0,
              "accValuePosition inverts accValueIndex");

/// The IR of the first row and column the calling thread holds, given its
/// `warp` in the warpgroup and its `lane`: `rowBase + 16 warp + lane / 4`
/// and `colBase + 2 (lane % 4)`, each without the add when its base is
/// null. Built, in that order, of one dialect's integer ops (`llvm` or
/// `arith`); `constant` makes a constant of the type of `warp` and `lane`.
template <typename AddOp, typename MulOp, typename DivUOp, typename RemUOp>
std::pair<Value, Value>
buildAccThreadOrigin(ImplicitLocOpBuilder &b, Value warp, Value lane,
                     function_ref<Value(int64_t)> constant, Value rowBase = {},
                     Value colBase = {}) {
  Value warpRow = MulOp::create(b, warp, constant(kAccWarpRows));
  Value quad = DivUOp::create(b, lane, constant(kAccQuadLanes));
  Value row = AddOp::create(b, warpRow, quad);
  if (rowBase)
    row = AddOp::create(b, rowBase, row);
  Value inQuad = RemUOp::create(b, lane, constant(kAccQuadLanes));
  Value col = MulOp::create(b, inQuad, constant(2));
  if (colBase)
    col = AddOp::create(b, colBase, col);
  return {row, col};
}

/// Where column `column` (a value of the type `constant` makes) of an
/// #fa4.acc tile lies among a thread's values, as IR of one dialect's
/// integer ops: the lane of its quad that holds it ((column % 8) / 2), its
/// column block (column / 8) and its column within the lane's pair
/// (column % 2); the thread's value is then at accValueIndex(block, h,
/// pair column) for row half h.
struct AccColumnPlace {
  Value quadLane, block, pairColumn;
};
template <typename DivUOp, typename RemUOp>
AccColumnPlace buildAccColumnPlace(ImplicitLocOpBuilder &b, Value column,
                                   function_ref<Value(int64_t)> constant) {
  Value inBlock = RemUOp::create(b, column, constant(kAccBlockColumns));
  return {DivUOp::create(b, inBlock, constant(2)),
          DivUOp::create(b, column, constant(kAccBlockColumns)),
          RemUOp::create(b, column, constant(2))};
}

} // namespace mlir::fa4

#endif // FA4_ACCFRAGMENT_H

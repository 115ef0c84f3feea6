//===- CoalescedFragment.h - a thread's values of #fa4.coalesced -*- C++
//-*-===//
//
// The one owner of the `#fa4.coalesced<cols = C, warps = W>` fragment:
// which of a thread's values of a warpgroup's `R x C` tile holds which row
// and column, and the same for the tile's row and column vectors (`slice =
// 1`, `0`). W of the warpgroup's four warps share a row (1, 2 or 4). The
// lanes of a warp spread along a row in pieces of 8 consecutive elements
// (16 bytes of a 16-bit type, one vector access), `L = min(32, C / (8 W))`
// lanes a row, so that a warp reads `32 / L` rows of 8 L columns at once,
// the W warps of a row group 8 L W columns, and the warpgroup `(4 / W)
// (32 / L)` rows, the tile's footprint; the tile repeats the footprint
// down the rows (`a`) and along the columns (`k`). Thread (warp w, lane l)
// holds rows `a F + (w / W) (32 / L) + l / L` and columns
// `8 L W k + 8 L (w % W) + 8 (l % L) + e`, the value of (a, k, e) at index
// `(a K + k) 8 + e` with `F` the footprint's rows and `K = C / (8 L W)`. A
// row reduction is a tree over the thread's values of a row, butterfly
// shuffles among the row's `L` lanes and, when W > 1, a combine of the W
// warps' partial sums through shared memory; a column reduction is a tree
// over the thread's rows, butterfly shuffles among the `32 / L` lanes of a
// warp that hold the same columns and a combine of the row groups of all
// the consumer warpgroups through shared memory; a row vector holds the values
// of the thread's rows (`a`), a column vector those of its columns (`k`,
// `e`), the same in every row group.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_COALESCEDFRAGMENT_H
#define FA4_COALESCEDFRAGMENT_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace mlir::fa4 {

/// The consecutive elements of a row that one thread holds at a time.
constexpr int64_t kCoalescedPiece = 8;
/// The most values a thread holds of a #fa4.coalesced tile.
constexpr int64_t kMaxCoalescedValues = 128;

/// The geometry of a `#fa4.coalesced<cols = C, warps = W>` layout: W of
/// the warpgroup's four warps share a row.
struct CoalescedGeometry {
  int64_t cols;
  int64_t warps = 1;

  /// The lanes of a warp that share a row.
  constexpr int64_t lanes() const {
    return std::min<int64_t>(32, cols / (kCoalescedPiece * warps));
  }
  /// The rows of one warp, and of the warpgroup's footprint.
  constexpr int64_t warpRows() const { return 32 / lanes(); }
  constexpr int64_t footprintRows() const { return 4 / warps * warpRows(); }
  /// The columns the row's lanes of all its warps cover at once.
  constexpr int64_t footprintCols() const {
    return kCoalescedPiece * lanes() * warps;
  }
  /// The pieces of a row a thread holds (K).
  constexpr int64_t pieces() const { return cols / footprintCols(); }
  /// A thread's values of one of its rows.
  constexpr int64_t rowValues() const { return pieces() * kCoalescedPiece; }
  /// A thread's values of an `rows x cols` tile, and of its row vector.
  constexpr int64_t tileValues(int64_t rows) const {
    return rows / footprintRows() * rowValues();
  }
  constexpr int64_t rowVectorValues(int64_t rows) const {
    return rows / footprintRows();
  }
  /// The row (a) and the column of the thread's value at `index`, relative
  /// to the thread's first row and column.
  constexpr int64_t rowOffset(int64_t index) const {
    return index / rowValues() * footprintRows();
  }
  constexpr int64_t columnOffset(int64_t index) const {
    int64_t inRow = index % rowValues();
    return inRow / kCoalescedPiece * footprintCols() + inRow % kCoalescedPiece;
  }
  /// Whether the layout exists: 1, 2 or 4 warps a row, and `C / W` 8 to
  /// 256 columns by powers of two or a multiple of 256.
  constexpr bool valid() const {
    if (warps != 1 && warps != 2 && warps != 4)
      return false;
    if (cols % (kCoalescedPiece * warps) != 0 || cols / warps < kCoalescedPiece)
      return false;
    int64_t perWarp = cols / warps;
    if (perWarp >= 256)
      return perWarp % 256 == 0;
    return (lanes() & (lanes() - 1)) == 0;
  }
};

static_assert(CoalescedGeometry{1024}.lanes() == 32 &&
                  CoalescedGeometry{1024}.pieces() == 4 &&
                  CoalescedGeometry{1024}.columnOffset(9) == 257 &&
                  CoalescedGeometry{64}.footprintRows() == 16 &&
                  CoalescedGeometry{64}.rowOffset(8) == 16 &&
                  CoalescedGeometry{4096, 4}.footprintRows() == 1 &&
                  CoalescedGeometry{4096, 4}.rowValues() == 32 &&
                  CoalescedGeometry{4096, 4}.columnOffset(9) == 1025,
              "the coalesced geometry");

/// The IR of the first row and column the calling thread holds, given its
/// `warp` in the warpgroup and its `lane`: `(w / W) (32 / L) + l / L` and
/// `(w % W) 8 L + 8 (l % L)`. Built of one dialect's integer ops (`llvm`
/// or `arith`); `constant` makes a constant of the type of `warp` and
/// `lane`.
template <typename AddOp, typename MulOp, typename DivUOp, typename RemUOp>
std::pair<Value, Value>
buildCoalescedThreadOrigin(ImplicitLocOpBuilder &b, CoalescedGeometry layout,
                           Value warp, Value lane,
                           function_ref<Value(int64_t)> constant) {
  Value rowGroup = warp, colGroup;
  if (layout.warps > 1) {
    rowGroup = DivUOp::create(b, warp, constant(layout.warps));
    colGroup = RemUOp::create(b, warp, constant(layout.warps));
  }
  Value row =
      AddOp::create(b, MulOp::create(b, rowGroup, constant(layout.warpRows())),
                    DivUOp::create(b, lane, constant(layout.lanes())));
  Value col =
      MulOp::create(b, RemUOp::create(b, lane, constant(layout.lanes())),
                    constant(kCoalescedPiece));
  if (colGroup)
    col = AddOp::create(
        b, col,
        MulOp::create(b, colGroup, constant(kCoalescedPiece * layout.lanes())));
  return {row, col};
}

} // namespace mlir::fa4

#endif // FA4_COALESCEDFRAGMENT_H

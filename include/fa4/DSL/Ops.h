//===- Ops.h - the operators and functions of the DSL -----------*- C++ -*-===//
//
// What a DSL program computes with, as free functions and operators on the
// handles of Values.h: index arithmetic, Boolean logic, elementwise tile math
// (arith and math on ranked tensors), dot, transposes, reductions,
// broadcasts, and block loads and stores through descriptors. Each call
// builds its ops at the author's line (the trailing `SourceLoc`, or the
// location the operand wrapper recorded) and verifies them.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DSL_OPS_H
#define FA4_DSL_OPS_H

#include "fa4/DSL/Values.h"

#include "llvm/ADT/ArrayRef.h"

namespace fa4::dsl {

//===----------------------------------------------------------------------===//
// Index and Bool scalars
//===----------------------------------------------------------------------===//

// Index arithmetic (`arith.addi`, `arith.subi`, `arith.muli` on index) and
// comparisons (`arith.cmpi` with signed predicates). The location is that of
// the right operand.
Index operator+(const Index &lhs, IndexArg rhs);
Index operator-(const Index &lhs, IndexArg rhs);
Index operator*(const Index &lhs, IndexArg rhs);
Index operator-(IndexArg operand);
Bool operator<(const Index &lhs, IndexArg rhs);
Bool operator<=(const Index &lhs, IndexArg rhs);
Bool operator>(const Index &lhs, IndexArg rhs);
Bool operator>=(const Index &lhs, IndexArg rhs);
Bool operator==(const Index &lhs, IndexArg rhs);
Bool operator!=(const Index &lhs, IndexArg rhs);

namespace detail {
/// `lhs - rhs`, at the right operand.
Index subtract(IndexArg lhs, IndexArg rhs);
} // namespace detail

// An integer on the left: `128 * m`.
template <typename T, EnableIfInteger<T> = 0>
Index operator+(T lhs, IndexArg rhs) {
  return rhs.index + IndexArg(lhs, rhs.loc);
}
template <typename T, EnableIfInteger<T> = 0>
Index operator-(T lhs, IndexArg rhs) {
  return detail::subtract(IndexArg(lhs, rhs.loc), rhs);
}
template <typename T, EnableIfInteger<T> = 0>
Index operator*(T lhs, IndexArg rhs) {
  return rhs.index * IndexArg(lhs, rhs.loc);
}

/// `lhs / rhs` and `lhs % rhs` of non-negative indices (`arith.divsi`,
/// `arith.remsi`): a head from a (batch, head) program id, a KV head from a
/// query head.
Index operator/(const Index &lhs, IndexArg rhs);
Index operator%(const Index &lhs, IndexArg rhs);

/// `ceil(lhs / rhs)` (`arith.ceildivsi`).
Index ceilDiv(const Index &lhs, IndexArg rhs,
              SourceLoc loc = SourceLoc::current());
/// The smaller and the larger of two indices (`arith.minsi`, `arith.maxsi`).
Index min(const Index &lhs, IndexArg rhs, SourceLoc loc = SourceLoc::current());
Index max(const Index &lhs, IndexArg rhs, SourceLoc loc = SourceLoc::current());
template <typename T, EnableIfInteger<T> = 0>
Index min(T lhs, const Index &rhs, SourceLoc loc = SourceLoc::current()) {
  return min(rhs, IndexArg(lhs, loc), loc);
}
template <typename T, EnableIfInteger<T> = 0>
Index max(T lhs, const Index &rhs, SourceLoc loc = SourceLoc::current()) {
  return max(rhs, IndexArg(lhs, loc), loc);
}
/// `cond ? ifTrue : ifFalse` (`arith.select`).
Index select(const Bool &cond, IndexArg ifTrue, IndexArg ifFalse,
             SourceLoc loc = SourceLoc::current());

// Boolean logic on i1 (`arith.andi`, `arith.ori`, `arith.xori` with true).
// Both operands are always evaluated: these build ops, they do not branch.
Bool operator&&(const Bool &lhs, BoolArg rhs);
Bool operator||(const Bool &lhs, BoolArg rhs);
Bool operator!(BoolArg operand);

//===----------------------------------------------------------------------===//
// f32 and i32 scalars
//===----------------------------------------------------------------------===//

// Arithmetic and comparisons of a scalar argument with a scalar of its type
// or a number (`arith.addf`/`arith.addi`, `arith.cmpf o*`/`arith.cmpi s*`).
Scalar operator+(const Scalar &lhs, ScalarArg rhs);
Scalar operator-(const Scalar &lhs, ScalarArg rhs);
Scalar operator*(const Scalar &lhs, ScalarArg rhs);
Scalar operator/(const Scalar &lhs, ScalarArg rhs);
// A number over a scalar, e.g. a reciprocal `1.0 / scale`.
Scalar operator/(NumberArg lhs, const Scalar &rhs);
Bool operator<(const Scalar &lhs, ScalarArg rhs);
Bool operator<=(const Scalar &lhs, ScalarArg rhs);
Bool operator>(const Scalar &lhs, ScalarArg rhs);
Bool operator>=(const Scalar &lhs, ScalarArg rhs);
Bool operator==(const Scalar &lhs, ScalarArg rhs);
Bool operator!=(const Scalar &lhs, ScalarArg rhs);

//===----------------------------------------------------------------------===//
// Elementwise tile math
//===----------------------------------------------------------------------===//

// Elementwise arithmetic of two tiles of one type, or of a tile and an
// `Operand` made that tile's type: `arith.addf`/`arith.addi` and so on
// (`arith.divsi` for integer division). Float +, - and * carry
// `fastmath<contract>`, so that a product and a sum may fuse into an FMA, as
// nvcc does by default. The location is that of the operand that is not the
// tile on the operator's side (the right one for `s - 1.0`).
Tile operator+(const Tile &lhs, Operand rhs);
Tile operator-(const Tile &lhs, Operand rhs);
Tile operator*(const Tile &lhs, Operand rhs);
Tile operator/(const Tile &lhs, Operand rhs);
Tile operator+(NonTileOperand lhs, const Tile &rhs);
Tile operator-(NonTileOperand lhs, const Tile &rhs);
Tile operator*(NonTileOperand lhs, const Tile &rhs);
Tile operator/(NonTileOperand lhs, const Tile &rhs);
/// `arith.negf`, or `0 - t` for an integer tile.
Tile operator-(TileArg operand);

// Elementwise comparisons giving an i1 tile: `arith.cmpf` with ordered
// predicates (`une` for `!=`) for float tiles, `arith.cmpi` with signed
// predicates for integer tiles.
Tile operator<(const Tile &lhs, Operand rhs);
Tile operator<=(const Tile &lhs, Operand rhs);
Tile operator>(const Tile &lhs, Operand rhs);
Tile operator>=(const Tile &lhs, Operand rhs);
Tile operator==(const Tile &lhs, Operand rhs);
Tile operator!=(const Tile &lhs, Operand rhs);
Tile operator<(NonTileOperand lhs, const Tile &rhs);
Tile operator<=(NonTileOperand lhs, const Tile &rhs);
Tile operator>(NonTileOperand lhs, const Tile &rhs);
Tile operator>=(NonTileOperand lhs, const Tile &rhs);
Tile operator==(NonTileOperand lhs, const Tile &rhs);
Tile operator!=(NonTileOperand lhs, const Tile &rhs);

// A column and a row combined, Triton's `a[:, None] op b[None, :]`: the
// M x N tile whose element (i, j) is `col[i] op row[j]`, for an M-element
// `col` (`a.col()`) and an N-element `row` (`b.row()`) of one element type,
// in either order; e.g. a document mask `qdoc.col() == kdoc.row()`.
Tile operator+(const Broadcast &lhs, const Broadcast &rhs);
Tile operator-(const Broadcast &lhs, const Broadcast &rhs);
Tile operator*(const Broadcast &lhs, const Broadcast &rhs);
Tile operator/(const Broadcast &lhs, const Broadcast &rhs);
Tile operator<(const Broadcast &lhs, const Broadcast &rhs);
Tile operator<=(const Broadcast &lhs, const Broadcast &rhs);
Tile operator>(const Broadcast &lhs, const Broadcast &rhs);
Tile operator>=(const Broadcast &lhs, const Broadcast &rhs);
Tile operator==(const Broadcast &lhs, const Broadcast &rhs);
Tile operator!=(const Broadcast &lhs, const Broadcast &rhs);

// Logic on i1 tiles (masks); a `Bool` operand is splat.
Tile operator&&(const Tile &lhs, Operand rhs);
Tile operator||(const Tile &lhs, Operand rhs);
Tile operator&&(NonTileOperand lhs, const Tile &rhs);
Tile operator||(NonTileOperand lhs, const Tile &rhs);
Tile operator!(TileArg operand);

/// The elementwise larger and smaller of two tiles (`arith.maximumf`,
/// `arith.minimumf`; `arith.maxsi`, `arith.minsi` for integer tiles).
Tile max(const Tile &lhs, const Tile &rhs,
         SourceLoc loc = SourceLoc::current());
Tile min(const Tile &lhs, const Tile &rhs,
         SourceLoc loc = SourceLoc::current());
// `max(t, 0.0)` would otherwise convert 0.0 to an axis and reduce.
Tile max(const Tile &lhs, double rhs,
         SourceLoc loc = SourceLoc::current()) = delete;

/// `mask ? ifTrue : ifFalse` elementwise (`arith.select`), a tile of the
/// mask's shape: of the type of a tile among the values (of the mask's
/// shape), else of a column, row or scalar among them (an index gives i32,
/// a `Bool` i1), else f32 (`where(m, 1.0, 0.0)`).
Tile where(const Tile &mask, Operand ifTrue, Operand ifFalse,
           SourceLoc loc = SourceLoc::current());

/// Elementwise 2^x (`tile.exp2`).
Tile exp2(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise log2 x (`math.log2` with `fastmath<afn>`).
Tile log2(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise tanh x (`math.tanh` with `fastmath<afn>`: the hardware's
/// approximation).
Tile tanh(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise e^x, as `exp2(x * log2(e))`: the hardware's ex2.approx, as
/// Triton's `tl.exp`.
Tile exp(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise ln x, as `log2(x) * ln(2)`.
Tile log(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise square root (`math.sqrt`: sqrt.rn, correctly rounded).
Tile sqrt(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise 1 / sqrt(x) (`math.rsqrt` with `fastmath<afn>`: the
/// hardware's rsqrt.approx, about 2^-22 relative error), RMSNorm's and layer
/// norm's scale.
Tile rsqrt(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise error function (`math.erf`: a rational polynomial on the FMA
/// units, within a few f32 ulps), GELU's.
Tile erf(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Elementwise |x| (`math.absf`; `math.absi` for integer tiles).
Tile abs(const Tile &tile, SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Dot, shapes and reductions
//===----------------------------------------------------------------------===//

/// `acc + a · b` (`tile.dot`), in the accumulator's type.
Tile dot(const Tile &a, const Tile &b, const Tile &acc,
         SourceLoc loc = SourceLoc::current());
/// The transpose of a 2-d tile (`tile.trans`).
Tile trans(const Tile &tile, SourceLoc loc = SourceLoc::current());
/// The maximum and the sum along `axis`, which the result drops
/// (`tile.reduce`): `max(s, 1)` is the row maximum of `s`.
Tile max(const Tile &tile, int axis, SourceLoc loc = SourceLoc::current());
Tile sum(const Tile &tile, int axis, SourceLoc loc = SourceLoc::current());
/// `tile` repeated along the new dimension `axis` of `shape`
/// (`tile.broadcast`); `Tile::col` and `Tile::row` say the same implicitly.
Tile broadcast(const Tile &tile, int axis, llvm::ArrayRef<int64_t> shape,
               SourceLoc loc = SourceLoc::current());
/// A tile of `shape` holding a scalar everywhere (`tile.splat`): an index
/// becomes an i32 tile (through `arith.index_cast`), a `Scalar` a tile of its
/// type, a `Bool` an i1 tile.
Tile splat(const Index &value, llvm::ArrayRef<int64_t> shape,
           SourceLoc loc = SourceLoc::current());
Tile splat(const Scalar &value, llvm::ArrayRef<int64_t> shape,
           SourceLoc loc = SourceLoc::current());
Tile splat(const Bool &value, llvm::ArrayRef<int64_t> shape,
           SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Block `coords` of `desc` (`tile.load`), one coordinate per block
/// dimension in units of the block: a tile of the block's shape without its
/// leading 1s (a `1x128x64` block loads a 128x64 tile).
Tile load(const Desc &desc, llvm::ArrayRef<IndexArg> coords,
          SourceLoc loc = SourceLoc::current());
/// The blocks of `desc` at each of `blocks` (a coordinate list each, as for
/// `load`) stacked along the block's rows (`tile.load` of coordinate
/// groups): a gather of row blocks, one TMA copy each, into one tile of
/// blocks.size() times the block's rows, such as a key block of a paged KV
/// cache read from its pages.
Tile loadRows(const Desc &desc,
              llvm::ArrayRef<llvm::SmallVector<IndexArg, 4>> blocks,
              SourceLoc loc = SourceLoc::current());
/// Write `tile` to block `coords` of `desc` (`tile.store`).
void store(const Desc &desc, llvm::ArrayRef<IndexArg> coords, const Tile &tile,
           SourceLoc loc = SourceLoc::current());
/// `load` and `store` of the block that starts at element `offsets`, one
/// per dimension (`tile.load`/`tile.store ... elements`), like Triton's
/// descriptor loads: a block may start at any row, such as a packed
/// sequence's first token.
Tile loadAt(const Desc &desc, llvm::ArrayRef<IndexArg> offsets,
            SourceLoc loc = SourceLoc::current());
void storeAt(const Desc &desc, llvm::ArrayRef<IndexArg> offsets,
             const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Adds the f32 `tile` into block `coords` of `desc`'s tensor, each element
/// atomically (Triton's `tl.atomic_add`): programs that add into one block
/// sum there, in no fixed order. Elements past the tensor's edge are left.
void atomicAdd(const Desc &desc, llvm::ArrayRef<IndexArg> coords,
               const Tile &tile, SourceLoc loc = SourceLoc::current());
/// Element `index` of the i32 tensor at `ptr` (`tile.load_scalar`), as an
/// index: a length or an offset the kernel reads at run time, such as
/// `cu_seqlens[b]`.
Index load(const Ptr &ptr, const IndexArg &index,
           SourceLoc loc = SourceLoc::current());
/// Element `index` of the tensor at `ptr` (`tile.load_scalar`) as a
/// `Scalar`: an f32 (a bf16 or f16 element widened) or an i32, such as a
/// per-batch scale the kernel reads at run time.
Scalar loadScalar(const Ptr &ptr, const IndexArg &index,
                  SourceLoc loc = SourceLoc::current());

} // namespace fa4::dsl

#endif // FA4_DSL_OPS_H

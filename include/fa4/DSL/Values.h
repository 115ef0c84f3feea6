//===- Values.h - what a DSL program computes with --------------*- C++ -*-===//
//
// The handles of the fa4 DSL, each an SSA value of the kernel being built:
// `Index`, `Bool` and `Scalar` scalars, `Tile` ranked tensors, `Desc`
// descriptors and `Ptr` pointers. Also the element types a program names
// (`bf16`, `f16`, `f32`, `i32`, `i1`), `SourceLoc`, the author's file and line
// that every DSL function takes as its defaulted last parameter, and the
// operand wrappers that carry that location through overloaded operators.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DSL_VALUES_H
#define FA4_DSL_VALUES_H

#include "fa4/DSL/Extent.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <type_traits>

namespace fa4::dsl {

class Program;

/// A position in the author's C++ source.
///
/// Every DSL function takes one as its last parameter, defaulted to
/// `SourceLoc::current()`. The builtins in the default arguments of `current`
/// are evaluated where the defaulted parameter is used, that is at the
/// author's call, as for C++20's `std::source_location::current()`, which
/// this stands in for under the project's C++17. An overloaded operator
/// cannot have a defaulted parameter, so its operand type does: `Operand`,
/// `IndexArg` and the other wrappers below take a defaulted `SourceLoc` in
/// their converting constructors, which run at the author's operand.
struct SourceLoc {
  const char *file = "";
  unsigned line = 0;
  unsigned column = 0;

  /// The position of the call that uses this default argument.
  static constexpr SourceLoc current(const char *file = __builtin_FILE(),
                                     unsigned line = __builtin_LINE(),
                                     unsigned column = __builtin_COLUMN()) {
    return {file, line, column};
  }
};

/// The element types a program names, as Triton's `tl.bfloat16`.
enum class DType { BF16, F16, F32, I32, I1 };
inline constexpr DType bf16 = DType::BF16;
inline constexpr DType f16 = DType::F16;
inline constexpr DType f32 = DType::F32;
inline constexpr DType i32 = DType::I32;
inline constexpr DType i1 = DType::I1;

namespace detail {

/// What every handle is: a value of the program being built. A handle
/// without a value is the result of a DSL call that failed; it was reported
/// where it failed, and every DSL call that receives it quietly gives another
/// such handle, so that one mistake gives one error.
class Handle {
public:
  Handle() = default;
  Handle(Program *program, mlir::Value value)
      : program(program), value(value) {}

  Program *getProgram() const { return program; }
  mlir::Value getValue() const { return value; }
  /// False for the result of a failed DSL call.
  bool isValid() const { return program && value; }

protected:
  Program *program = nullptr;
  mlir::Value value;
};

} // namespace detail

/// An `index` scalar: program ids, sequence lengths, block counts.
class Index : public detail::Handle {
public:
  using Handle::Handle;
};

/// An `i1` scalar: the condition of `Program::ifElse` and `select`.
class Bool : public detail::Handle {
public:
  using Handle::Handle;
};

/// An `f32` or `i32` scalar kernel argument (the softmax scale, a flag).
class Scalar : public detail::Handle {
public:
  using Handle::Handle;
};

/// A `!tile.ptr<T>`: the base address of a global tensor.
class Ptr : public detail::Handle {
public:
  using Handle::Handle;
  /// Dimension `d` (0 outermost) of the tensor this pointer argument points
  /// to, and its stride in elements, as launch rules; the argument must
  /// declare its shape. A tensor whose strides the kernel reads may have any
  /// strides; one whose strides it does not read must be contiguous.
  Extent dim(int64_t d, SourceLoc loc = SourceLoc::current()) const;
  Extent stride(int64_t d, SourceLoc loc = SourceLoc::current()) const;
};

/// A `!tile.desc<BLOCKxT>`: a global tensor read and written in blocks.
class Desc : public detail::Handle {
public:
  using Handle::Handle;
  /// The shape of one block.
  llvm::ArrayRef<int64_t> getBlockShape() const;
  /// Dimension `d` (0 outermost) and its stride in elements of the tensor
  /// this descriptor argument views, as launch rules.
  Extent dim(int64_t d, SourceLoc loc = SourceLoc::current()) const;
  Extent stride(int64_t d, SourceLoc loc = SourceLoc::current()) const;
};

class Broadcast;

/// A tile: a ranked tensor, the unit of a tile program's math.
class Tile : public detail::Handle {
public:
  using Handle::Handle;

  /// The tensor type; null for the result of a failed call.
  mlir::RankedTensorType getType() const;
  llvm::ArrayRef<int64_t> getShape() const;
  int64_t getRank() const;
  mlir::Type getElementType() const;

  /// The tile converted to `type`: `arith.truncf` or `arith.extf` between
  /// float types, `arith.sitofp`, `arith.fptosi`, `arith.extsi` or
  /// `arith.trunci` otherwise; the tile itself when it has that type.
  Tile to(DType type, SourceLoc loc = SourceLoc::current()) const;

  /// This 1-d tile of M elements as an M x 1 column, Triton's `t[:, None]`:
  /// combined elementwise with an M x N tile, it is repeated along axis 1
  /// (`tile.broadcast axis 1`). `s - m.col()` subtracts row i's `m` from
  /// every element of row i of `s`.
  Broadcast col(SourceLoc loc = SourceLoc::current()) const;
  /// This 1-d tile of N elements as a 1 x N row, Triton's `t[None, :]`,
  /// repeated along axis 0 when combined with an M x N tile.
  Broadcast row(SourceLoc loc = SourceLoc::current()) const;
};

/// A 1-d tile viewed as a column or a row of a 2-d tile (`Tile::col`,
/// `Tile::row`): only an operand of an elementwise operation with a 2-d tile,
/// which makes it that tile's shape.
class Broadcast {
public:
  Broadcast(const Tile &tile, int64_t axis, SourceLoc loc = SourceLoc())
      : tile(tile), axis(axis), loc(loc) {}

  const Tile &getTile() const { return tile; }
  /// The axis of the 2-d tile along which the 1-d tile is repeated.
  int64_t getAxis() const { return axis; }
  /// Where the author wrote `col()` or `row()`.
  SourceLoc getLoc() const { return loc; }

private:
  Tile tile;
  int64_t axis;
  SourceLoc loc;
};

template <typename T>
using EnableIfNumber = std::enable_if_t<std::is_arithmetic_v<T>, int>;
template <typename T>
using EnableIfInteger = std::enable_if_t<std::is_integral_v<T>, int>;

/// One operand of a tile operator or function: a tile, a column or row
/// (`Broadcast`), a number (an `arith.constant` splat of the other tile's
/// type), or an `Index`, `Scalar` or `Bool` (a `tile.splat`; an index is
/// first cast to the tile's integer type). The converting constructors
/// record where the author wrote the operand.
class Operand {
public:
  enum class Kind { Tile, Broadcast, Number, Index, Scalar, Bool };

  Operand(const Tile &tile, SourceLoc loc = SourceLoc::current())
      : kind(Kind::Tile), handle(tile), loc(loc) {}
  Operand(const Broadcast &view, SourceLoc loc = SourceLoc::current())
      : kind(Kind::Broadcast), handle(view.getTile()), axis(view.getAxis()),
        loc(loc) {}
  template <typename T, EnableIfNumber<T> = 0>
  Operand(T number, SourceLoc loc = SourceLoc::current())
      : kind(Kind::Number), number(static_cast<double>(number)), loc(loc) {}
  Operand(const Index &index, SourceLoc loc = SourceLoc::current())
      : kind(Kind::Index), handle(index), loc(loc) {}
  Operand(const Scalar &scalar, SourceLoc loc = SourceLoc::current())
      : kind(Kind::Scalar), handle(scalar), loc(loc) {}
  Operand(const Bool &flag, SourceLoc loc = SourceLoc::current())
      : kind(Kind::Bool), handle(flag), loc(loc) {}

  Kind getKind() const { return kind; }
  /// The tile, the broadcast tile, or the scalar; none for a number.
  const detail::Handle &getHandle() const { return handle; }
  /// The tile of a `Kind::Tile` operand.
  Tile getTile() const { return {handle.getProgram(), handle.getValue()}; }
  int64_t getAxis() const { return axis; }
  double getNumber() const { return number; }
  SourceLoc getLoc() const { return loc; }

private:
  Kind kind;
  detail::Handle handle;
  int64_t axis = 0;
  double number = 0;
  SourceLoc loc;
};

/// The left operand of a tile operator whose right operand is the tile:
/// anything an `Operand` is but a tile (`1.0 - p`, `m.col() * s`), so that
/// `tile op tile` has one meaning.
class NonTileOperand : public Operand {
public:
  NonTileOperand(const Broadcast &view, SourceLoc loc = SourceLoc::current())
      : Operand(view, loc) {}
  template <typename T, EnableIfNumber<T> = 0>
  NonTileOperand(T number, SourceLoc loc = SourceLoc::current())
      : Operand(number, loc) {}
  NonTileOperand(const Index &index, SourceLoc loc = SourceLoc::current())
      : Operand(index, loc) {}
  NonTileOperand(const Scalar &scalar, SourceLoc loc = SourceLoc::current())
      : Operand(scalar, loc) {}
  NonTileOperand(const Bool &flag, SourceLoc loc = SourceLoc::current())
      : Operand(flag, loc) {}
};

/// The operand of a unary tile operator, with where the author wrote it.
struct TileArg {
  TileArg(const Tile &tile, SourceLoc loc = SourceLoc::current())
      : tile(tile), loc(loc) {}
  Tile tile;
  SourceLoc loc;
};

/// A number on the left of a scalar operator (`1.0 / scale`), with where
/// the author wrote it.
struct NumberArg {
  template <typename T, EnableIfNumber<T> = 0>
  NumberArg(T number, SourceLoc loc = SourceLoc::current())
      : number(static_cast<double>(number)), loc(loc) {}
  double number;
  SourceLoc loc;
};

/// A `Bool` operand of a Boolean operator, with where the author wrote it.
struct BoolArg {
  BoolArg(const Bool &flag, SourceLoc loc = SourceLoc::current())
      : flag(flag), loc(loc) {}
  Bool flag;
  SourceLoc loc;
};

/// An index operand: an `Index`, or an integer that becomes an
/// `arith.constant` of type index. Tile coordinates, loop bounds and
/// descriptor sizes are lists of these (`{bh, m, 0}`).
struct IndexArg {
  IndexArg(const Index &index, SourceLoc loc = SourceLoc::current())
      : index(index), loc(loc) {}
  template <typename T, EnableIfInteger<T> = 0>
  IndexArg(T number, SourceLoc loc = SourceLoc::current())
      : number(static_cast<int64_t>(number)), isNumber(true), loc(loc) {}

  Index index;
  int64_t number = 0;
  bool isNumber = false;
  SourceLoc loc;
};

/// An operand of a `Scalar` operator: a `Scalar` or a number.
struct ScalarArg {
  ScalarArg(const Scalar &scalar, SourceLoc loc = SourceLoc::current())
      : scalar(scalar), loc(loc) {}
  template <typename T, EnableIfNumber<T> = 0>
  ScalarArg(T number, SourceLoc loc = SourceLoc::current())
      : number(static_cast<double>(number)), isNumber(true), loc(loc) {}

  Scalar scalar;
  double number = 0;
  bool isNumber = false;
  SourceLoc loc;
};

} // namespace fa4::dsl

#endif // FA4_DSL_VALUES_H

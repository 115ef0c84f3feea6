//===- Tiles.cpp - tile operations ----------------------------------------===//
//
// The operators and functions of the DSL on tiles: what an operand stands
// for next to a tile (the tile, a broadcast column or row, a constant, a
// splat scalar), elementwise arithmetic, comparisons, logic and selects,
// conversions, exponentials, logarithms, roots, erf and abs, dot, transposes,
// reductions, broadcasts, splats, and block loads and stores.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/Ops.h"

#include "Build.h"
#include "Programs/Base2.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace fa4::dsl;
using namespace fa4::dsl::detail;
namespace arith = mlir::arith;
namespace tile = mlir::fa4::tile;

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

RankedTensorType Tile::getType() const {
  return value ? llvm::cast<RankedTensorType>(value.getType()) : nullptr;
}

ArrayRef<int64_t> Tile::getShape() const {
  RankedTensorType type = getType();
  return type ? type.getShape() : ArrayRef<int64_t>();
}

int64_t Tile::getRank() const { return getShape().size(); }

Type Tile::getElementType() const {
  RankedTensorType type = getType();
  return type ? type.getElementType() : Type();
}

ArrayRef<int64_t> Desc::getBlockShape() const {
  if (!value)
    return {};
  return llvm::cast<tile::DescriptorType>(value.getType()).getBlockShape();
}

/// `tile` viewed as a column or a row of a 2-d tile, repeated along `axis`.
static Broadcast view(const Tile &tile, int64_t axis, SourceLoc loc) {
  if (!tile.isValid() || tile.getRank() == 1)
    return {tile, axis, loc};
  tile.getProgram()->emitError(loc)
      << (axis == 1 ? "col()" : "row()") << " of " << tile.getType()
      << ": only 1-d tiles broadcast as a column or a row";
  return {Tile(), axis, loc};
}

Broadcast Tile::col(SourceLoc loc) const { return view(*this, 1, loc); }

Broadcast Tile::row(SourceLoc loc) const { return view(*this, 0, loc); }

Tile Tile::to(DType type, SourceLoc loc) const {
  if (!isValid())
    return {};
  Type source = getElementType(), target = program->getType(type);
  if (source == target)
    return *this;
  RankedTensorType result = getType().clone(target);
  auto sourceFloat = llvm::dyn_cast<mlir::FloatType>(source);
  auto targetFloat = llvm::dyn_cast<mlir::FloatType>(target);
  if (sourceFloat && targetFloat) {
    if (sourceFloat.getWidth() > targetFloat.getWidth())
      return {program, program->create<arith::TruncFOp>(loc, result, value)};
    if (sourceFloat.getWidth() < targetFloat.getWidth())
      return {program, program->create<arith::ExtFOp>(loc, result, value)};
    program->emitError(loc)
        << "no conversion of " << getType() << " to " << target
        << " of the same width: convert to f32 first";
    return {};
  }
  if (sourceFloat)
    return {program, program->create<arith::FPToSIOp>(loc, result, value)};
  if (targetFloat) {
    if (source.isInteger(1))
      return {program, program->create<arith::UIToFPOp>(loc, result, value)};
    return {program, program->create<arith::SIToFPOp>(loc, result, value)};
  }
  unsigned sourceWidth = source.getIntOrFloatBitWidth();
  unsigned targetWidth = target.getIntOrFloatBitWidth();
  if (sourceWidth > targetWidth)
    return {program, program->create<arith::TruncIOp>(loc, result, value)};
  if (source.isInteger(1))
    return {program, program->create<arith::ExtUIOp>(loc, result, value)};
  return {program, program->create<arith::ExtSIOp>(loc, result, value)};
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// A splat of `scalar` to `like` (`tile.splat`).
static Value splatTo(Program &program, Value scalar, RankedTensorType like,
                     SourceLoc loc) {
  return program.create<tile::SplatOp>(loc, like, scalar);
}

/// The tile `operand` stands for in the operation `what` with a tile of type
/// `like`; null after an error, reported at the operand, or for an invalid
/// handle.
static Value resolve(Program &program, const Operand &operand,
                     RankedTensorType like, StringRef what) {
  SourceLoc loc = operand.getLoc();
  const detail::Handle &handle = operand.getHandle();
  Type element = like.getElementType();
  switch (operand.getKind()) {
  case Operand::Kind::Number:
    return buildNumber(program, operand.getNumber(), like, loc);
  case Operand::Kind::Tile: {
    Tile tile = operand.getTile();
    if (!tile.isValid())
      return {};
    if (tile.getType() == like)
      return tile.getValue();
    program.emitError(loc) << "'" << what << "' of " << like << " and "
                           << tile.getType() << " tiles: the "
                           << (tile.getShape() == like.getShape()
                                   ? "element types"
                                   : "shapes")
                           << " differ";
    return {};
  }
  case Operand::Kind::Broadcast: {
    Tile tile = operand.getTile();
    if (!tile.isValid())
      return {};
    int64_t axis = operand.getAxis();
    StringRef kind = axis == 1 ? "column" : "row";
    if (tile.getRank() != 1 || like.getRank() != 2) {
      program.emitError(loc)
          << "'" << what << "' of " << like << " and a " << kind << " "
          << tile.getType() << ": a 1-d tile broadcasts to a 2-d tile";
      return {};
    }
    if (tile.getShape()[0] != like.getDimSize(1 - axis)) {
      program.emitError(loc)
          << "'" << what << "' of " << like << " and a " << kind << " of "
          << tile.getShape()[0] << " elements: the tile has "
          << like.getDimSize(1 - axis) << (axis == 1 ? " rows" : " columns");
      return {};
    }
    if (tile.getElementType() != element) {
      program.emitError(loc)
          << "'" << what << "' of " << like << " and a " << kind << " of "
          << tile.getType() << ": the element types differ";
      return {};
    }
    return program.create<tile::BroadcastOp>(
        loc, like, tile.getValue(),
        program.getBuilder().getI64IntegerAttr(axis));
  }
  case Operand::Kind::Index: {
    if (!handle.isValid())
      return {};
    if (!isIntegerLike(element)) {
      program.emitError(loc) << "'" << what << "' of " << like
                             << " and an index: only integer tiles take "
                                "index operands";
      return {};
    }
    Value index = handle.getValue();
    if (!element.isIndex())
      index = program.create<arith::IndexCastOp>(loc, element, index);
    return splatTo(program, index, like, loc);
  }
  case Operand::Kind::Scalar:
  case Operand::Kind::Bool: {
    if (!handle.isValid())
      return {};
    Type type = handle.getValue().getType();
    if (type != element) {
      program.emitError(loc)
          << "'" << what << "' of " << like << " and a scalar of " << type
          << ": the element types differ";
      return {};
    }
    return splatTo(program, handle.getValue(), like, loc);
  }
  }
  llvm_unreachable("unknown operand kind");
}

/// `lhs op rhs` where at least one of them is a tile, which fixes the type.
static Tile elementwise(BinaryKind kind, const Operand &lhs, const Operand &rhs,
                        SourceLoc loc) {
  Tile like =
      lhs.getKind() == Operand::Kind::Tile ? lhs.getTile() : rhs.getTile();
  if (!like.isValid())
    return {};
  Program &program = *like.getProgram();
  Value left = resolve(program, lhs, like.getType(), spell(kind));
  Value right = resolve(program, rhs, like.getType(), spell(kind));
  if (!left || !right)
    return {};
  return {&program, buildBinary(program, kind, left, right, loc)};
}

/// `lhs op rhs` of a column and a row: the 2-d tile they span, each
/// broadcast to it.
static Tile outer(BinaryKind kind, const Broadcast &lhs, const Broadcast &rhs,
                  SourceLoc loc) {
  const Tile &left = lhs.getTile(), &right = rhs.getTile();
  if (!left.isValid() || !right.isValid())
    return {};
  Program &program = *left.getProgram();
  if (lhs.getAxis() == rhs.getAxis() || left.getRank() != 1 ||
      right.getRank() != 1) {
    program.emitError(loc)
        << "'" << spell(kind) << "' of two "
        << (lhs.getAxis() == 1 ? "columns" : "rows") << " (" << left.getType()
        << " and " << right.getType()
        << "): a column (`a.col()`) and a row (`b.row()`) of 1-d tiles span "
           "a 2-d tile";
    return {};
  }
  const Broadcast &col = lhs.getAxis() == 1 ? lhs : rhs;
  const Broadcast &row = lhs.getAxis() == 1 ? rhs : lhs;
  auto like = RankedTensorType::get(
      {col.getTile().getShape()[0], row.getTile().getShape()[0]},
      left.getElementType());
  Value a = resolve(program, Operand(lhs, lhs.getLoc()), like, spell(kind));
  Value b = resolve(program, Operand(rhs, rhs.getLoc()), like, spell(kind));
  if (!a || !b)
    return {};
  return {&program, buildBinary(program, kind, a, b, loc)};
}

/// The operators with the tile on the left, and with the tile on the right.
static Tile tileLeft(BinaryKind kind, const Tile &lhs, const Operand &rhs) {
  return elementwise(kind, Operand(lhs, rhs.getLoc()), rhs, rhs.getLoc());
}

static Tile tileRight(BinaryKind kind, const Operand &lhs, const Tile &rhs) {
  return elementwise(kind, lhs, Operand(rhs, lhs.getLoc()), lhs.getLoc());
}

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

#define FA4_OUTER_OPERATOR(op, kind)                                           \
  Tile fa4::dsl::operator op(const Broadcast &lhs, const Broadcast &rhs) {     \
    return outer(BinaryKind::kind, lhs, rhs, rhs.getLoc());                    \
  }
FA4_OUTER_OPERATOR(+, Add)
FA4_OUTER_OPERATOR(-, Sub)
FA4_OUTER_OPERATOR(*, Mul)
FA4_OUTER_OPERATOR(/, Div)
FA4_OUTER_OPERATOR(<, Lt)
FA4_OUTER_OPERATOR(<=, Le)
FA4_OUTER_OPERATOR(>, Gt)
FA4_OUTER_OPERATOR(>=, Ge)
FA4_OUTER_OPERATOR(==, Eq)
FA4_OUTER_OPERATOR(!=, Ne)
#undef FA4_OUTER_OPERATOR

Tile fa4::dsl::operator+(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Add, lhs, rhs);
}
Tile fa4::dsl::operator-(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Sub, lhs, rhs);
}
Tile fa4::dsl::operator*(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Mul, lhs, rhs);
}
Tile fa4::dsl::operator/(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Div, lhs, rhs);
}
Tile fa4::dsl::operator+(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Add, lhs, rhs);
}
Tile fa4::dsl::operator-(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Sub, lhs, rhs);
}
Tile fa4::dsl::operator*(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Mul, lhs, rhs);
}
Tile fa4::dsl::operator/(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Div, lhs, rhs);
}

Tile fa4::dsl::operator-(TileArg operand) {
  const Tile &tile = operand.tile;
  if (!tile.isValid() || !llvm::isa<mlir::FloatType>(tile.getElementType()))
    return elementwise(BinaryKind::Sub, Operand(0, operand.loc),
                       Operand(tile, operand.loc), operand.loc);
  Program *program = tile.getProgram();
  return {program, program->create<arith::NegFOp>(operand.loc, tile.getType(),
                                                  tile.getValue())};
}

Tile fa4::dsl::operator<(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Lt, lhs, rhs);
}
Tile fa4::dsl::operator<=(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Le, lhs, rhs);
}
Tile fa4::dsl::operator>(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Gt, lhs, rhs);
}
Tile fa4::dsl::operator>=(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Ge, lhs, rhs);
}
Tile fa4::dsl::operator==(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Eq, lhs, rhs);
}
Tile fa4::dsl::operator!=(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Ne, lhs, rhs);
}
Tile fa4::dsl::operator<(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Lt, lhs, rhs);
}
Tile fa4::dsl::operator<=(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Le, lhs, rhs);
}
Tile fa4::dsl::operator>(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Gt, lhs, rhs);
}
Tile fa4::dsl::operator>=(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Ge, lhs, rhs);
}
Tile fa4::dsl::operator==(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Eq, lhs, rhs);
}
Tile fa4::dsl::operator!=(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Ne, lhs, rhs);
}

Tile fa4::dsl::operator&&(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::And, lhs, rhs);
}
Tile fa4::dsl::operator||(const Tile &lhs, Operand rhs) {
  return tileLeft(BinaryKind::Or, lhs, rhs);
}
Tile fa4::dsl::operator&&(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::And, lhs, rhs);
}
Tile fa4::dsl::operator||(NonTileOperand lhs, const Tile &rhs) {
  return tileRight(BinaryKind::Or, lhs, rhs);
}

Tile fa4::dsl::operator!(TileArg operand) {
  const Tile &tile = operand.tile;
  if (!tile.isValid())
    return {};
  Program *program = tile.getProgram();
  if (!tile.getElementType().isInteger(1)) {
    program->emitError(operand.loc)
        << "'!' takes an i1 tile, got " << tile.getType();
    return {};
  }
  Value yes = buildNumber(*program, 1, tile.getType(), operand.loc);
  return {program, program->create<arith::XOrIOp>(operand.loc, tile.getType(),
                                                  tile.getValue(), yes)};
}

Tile fa4::dsl::max(const Tile &lhs, const Tile &rhs, SourceLoc loc) {
  return elementwise(BinaryKind::Max, Operand(lhs, loc), Operand(rhs, loc),
                     loc);
}

Tile fa4::dsl::min(const Tile &lhs, const Tile &rhs, SourceLoc loc) {
  return elementwise(BinaryKind::Min, Operand(lhs, loc), Operand(rhs, loc),
                     loc);
}

Tile fa4::dsl::where(const Tile &mask, Operand ifTrue, Operand ifFalse,
                     SourceLoc loc) {
  if (!mask.isValid())
    return {};
  Program &program = *mask.getProgram();
  if (!mask.getElementType().isInteger(1)) {
    program.emitError(loc) << "where takes an i1 mask, got " << mask.getType();
    return {};
  }
  const Operand *typed = ifTrue.getKind() == Operand::Kind::Tile    ? &ifTrue
                         : ifFalse.getKind() == Operand::Kind::Tile ? &ifFalse
                                                                    : nullptr;
  RankedTensorType type;
  if (typed) {
    Tile like = typed->getTile();
    if (!like.isValid())
      return {};
    if (like.getShape() != mask.getShape()) {
      program.emitError(loc) << "where of a " << mask.getType() << " mask and "
                             << like.getType() << " values: the shapes differ";
      return {};
    }
    type = like.getType();
  } else {
    // No tile among the values: the mask's shape, and the type of the
    // first value that has one (a column or row, a scalar; an index is an
    // i32, a flag an i1), f32 for two numbers, as Triton's `tl.where`.
    mlir::Builder &builder = program.getBuilder();
    Type element;
    for (const Operand *value : {&ifTrue, &ifFalse}) {
      const detail::Handle &handle = value->getHandle();
      if (element || value->getKind() == Operand::Kind::Number)
        continue;
      if (!handle.isValid())
        return {};
      switch (value->getKind()) {
      case Operand::Kind::Broadcast:
        element = value->getTile().getElementType();
        break;
      case Operand::Kind::Scalar:
        element = handle.getValue().getType();
        break;
      case Operand::Kind::Index:
        element = builder.getI32Type();
        break;
      default:
        element = builder.getI1Type();
      }
    }
    type = RankedTensorType::get(mask.getShape(),
                                 element ? element : builder.getF32Type());
  }
  Value left = resolve(program, ifTrue, type, "where");
  Value right = resolve(program, ifFalse, type, "where");
  if (!left || !right)
    return {};
  return {&program, program.create<arith::SelectOp>(loc, type, mask.getValue(),
                                                    left, right)};
}

/// Whether `tile` has a float element type; says so at `loc` in `name`'s
/// words otherwise.
static bool isFloatTile(const Tile &tile, StringRef name, SourceLoc loc) {
  if (llvm::isa<mlir::FloatType>(tile.getElementType()))
    return true;
  tile.getProgram()->emitError(loc)
      << name << " takes a float tile, got " << tile.getType()
      << "; convert it first (`t.to(f32)`)";
  return false;
}

/// `OpT` of a float `tile`, with `flags`.
template <typename OpT>
static Tile floatMath(const Tile &tile, StringRef name, SourceLoc loc,
                      arith::FastMathFlags flags = arith::FastMathFlags::none) {
  if (!tile.isValid() || !isFloatTile(tile, name, loc))
    return {};
  Program *program = tile.getProgram();
  return {program,
          program->create<OpT>(loc, tile.getType(), tile.getValue(), flags)};
}

Tile fa4::dsl::exp2(const Tile &tile, SourceLoc loc) {
  if (!tile.isValid())
    return {};
  Program *program = tile.getProgram();
  return {program,
          program->create<tile::Exp2Op>(loc, tile.getType(), tile.getValue())};
}

Tile fa4::dsl::log2(const Tile &tile, SourceLoc loc) {
  return floatMath<mlir::math::Log2Op>(tile, "log2", loc,
                                       arith::FastMathFlags::afn);
}

Tile fa4::dsl::tanh(const Tile &tile, SourceLoc loc) {
  return floatMath<mlir::math::TanhOp>(tile, "tanh", loc,
                                       arith::FastMathFlags::afn);
}

Tile fa4::dsl::exp(const Tile &tile, SourceLoc loc) {
  if (!tile.isValid() || !isFloatTile(tile, "exp", loc))
    return {};
  return exp2(tile * Operand(kLog2e, loc), loc);
}

Tile fa4::dsl::log(const Tile &tile, SourceLoc loc) {
  if (!tile.isValid() || !isFloatTile(tile, "log", loc))
    return {};
  return log2(tile, loc) * Operand(kLn2, loc);
}

Tile fa4::dsl::sqrt(const Tile &tile, SourceLoc loc) {
  return floatMath<mlir::math::SqrtOp>(tile, "sqrt", loc);
}

Tile fa4::dsl::rsqrt(const Tile &tile, SourceLoc loc) {
  return floatMath<mlir::math::RsqrtOp>(tile, "rsqrt", loc,
                                        arith::FastMathFlags::afn);
}

Tile fa4::dsl::erf(const Tile &tile, SourceLoc loc) {
  return floatMath<mlir::math::ErfOp>(tile, "erf", loc);
}

Tile fa4::dsl::abs(const Tile &tile, SourceLoc loc) {
  if (!tile.isValid())
    return {};
  Program *program = tile.getProgram();
  if (llvm::isa<mlir::FloatType>(tile.getElementType()))
    return {program, program->create<mlir::math::AbsFOp>(loc, tile.getType(),
                                                         tile.getValue())};
  return {program, program->create<mlir::math::AbsIOp>(loc, tile.getType(),
                                                       tile.getValue())};
}

//===----------------------------------------------------------------------===//
// Dot, shapes and reductions
//===----------------------------------------------------------------------===//

Tile fa4::dsl::dot(const Tile &a, const Tile &b, const Tile &acc,
                   SourceLoc loc) {
  if (!a.isValid() || !b.isValid() || !acc.isValid())
    return {};
  Program *program = acc.getProgram();
  return {program,
          program->create<tile::DotOp>(loc, acc.getType(), a.getValue(),
                                       b.getValue(), acc.getValue())};
}

Tile fa4::dsl::trans(const Tile &tile, SourceLoc loc) {
  if (!tile.isValid())
    return {};
  // Of a tile that is not 2-d, the verifier says so.
  RankedTensorType type = tile.getType();
  if (type.getRank() == 2)
    type = RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                 type.getElementType());
  Program *program = tile.getProgram();
  return {program, program->create<tile::TransOp>(loc, type, tile.getValue())};
}

static Tile reduce(tile::ReduceKind kind, const Tile &tile, int axis,
                   SourceLoc loc) {
  if (!tile.isValid())
    return {};
  // Along an axis the tile does not have, the verifier says so.
  RankedTensorType type = tile.getType();
  if (axis >= 0 && axis < type.getRank()) {
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    type = RankedTensorType::get(shape, type.getElementType());
  }
  Program *program = tile.getProgram();
  return {program, program->create<tile::ReduceOp>(
                       loc, type, kind, tile.getValue(),
                       program->getBuilder().getI64IntegerAttr(axis))};
}

Tile fa4::dsl::max(const Tile &tile, int axis, SourceLoc loc) {
  return reduce(tile::ReduceKind::max, tile, axis, loc);
}

Tile fa4::dsl::sum(const Tile &tile, int axis, SourceLoc loc) {
  return reduce(tile::ReduceKind::sum, tile, axis, loc);
}

Tile fa4::dsl::broadcast(const Tile &tile, int axis, ArrayRef<int64_t> shape,
                         SourceLoc loc) {
  if (!tile.isValid())
    return {};
  Program *program = tile.getProgram();
  if (!checkShape(*program, shape, loc))
    return {};
  auto type = RankedTensorType::get(shape, tile.getElementType());
  return {program, program->create<tile::BroadcastOp>(
                       loc, type, tile.getValue(),
                       program->getBuilder().getI64IntegerAttr(axis))};
}

/// A splat of the scalar `handle` to `shape` in `element`, which the scalar
/// has (after a cast, for an index).
static Tile splatScalar(const detail::Handle &handle, Type element,
                        ArrayRef<int64_t> shape, SourceLoc loc) {
  if (!handle.isValid())
    return {};
  Program *program = handle.getProgram();
  if (!checkShape(*program, shape, loc))
    return {};
  Value scalar = handle.getValue();
  if (scalar.getType() != element)
    scalar = program->create<arith::IndexCastOp>(loc, element, scalar);
  return {program, splatTo(*program, scalar,
                           RankedTensorType::get(shape, element), loc)};
}

Tile fa4::dsl::splat(const Index &value, ArrayRef<int64_t> shape,
                     SourceLoc loc) {
  if (!value.isValid())
    return {};
  return splatScalar(value, value.getProgram()->getType(i32), shape, loc);
}

Tile fa4::dsl::splat(const Scalar &value, ArrayRef<int64_t> shape,
                     SourceLoc loc) {
  if (!value.isValid())
    return {};
  return splatScalar(value, value.getValue().getType(), shape, loc);
}

Tile fa4::dsl::splat(const Bool &value, ArrayRef<int64_t> shape,
                     SourceLoc loc) {
  if (!value.isValid())
    return {};
  return splatScalar(value, value.getValue().getType(), shape, loc);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// The values of `coords`, or nothing if one is an invalid handle.
static std::optional<SmallVector<Value>> getCoords(Program &program,
                                                   ArrayRef<IndexArg> coords) {
  SmallVector<Value> values;
  for (const IndexArg &coord : coords) {
    Value value = program.getIndex(coord);
    if (!value)
      return std::nullopt;
    values.push_back(value);
  }
  return values;
}

/// Block `coords` of `desc` (element offsets with `elements`).
static Tile loadBlock(const Desc &desc, ArrayRef<IndexArg> coords,
                      bool elements, SourceLoc loc) {
  if (!desc.isValid())
    return {};
  Program *program = desc.getProgram();
  std::optional<SmallVector<Value>> values = getCoords(*program, coords);
  if (!values)
    return {};
  // The block without its leading 1s.
  ArrayRef<int64_t> shape = desc.getBlockShape();
  while (shape.size() > 1 && shape.front() == 1)
    shape = shape.drop_front();
  auto type = RankedTensorType::get(
      shape, llvm::cast<tile::DescriptorType>(desc.getValue().getType())
                 .getElementType());
  return {program, program->create<tile::LoadOp>(loc, type, desc.getValue(),
                                                 *values, elements)};
}

static void storeBlock(const Desc &desc, ArrayRef<IndexArg> coords,
                       const Tile &tile, bool elements, SourceLoc loc,
                       bool add = false) {
  if (!desc.isValid() || !tile.isValid())
    return;
  Program *program = desc.getProgram();
  std::optional<SmallVector<Value>> values = getCoords(*program, coords);
  if (!values)
    return;
  program->create<tile::StoreOp>(loc, tile.getValue(), desc.getValue(),
                                 *values, elements, add);
}

Tile fa4::dsl::load(const Desc &desc, ArrayRef<IndexArg> coords,
                    SourceLoc loc) {
  return loadBlock(desc, coords, false, loc);
}

Tile fa4::dsl::loadRows(const Desc &desc,
                        ArrayRef<SmallVector<IndexArg, 4>> blocks,
                        SourceLoc loc) {
  if (!desc.isValid())
    return {};
  Program *program = desc.getProgram();
  ArrayRef<int64_t> block = desc.getBlockShape();
  if (block.size() < 2 || blocks.empty()) {
    program->emitError(loc)
        << "loadRows gathers blocks of 2 or more "
           "dimensions, one or more of them; got "
        << blocks.size() << " of a " << block.size() << "-d block";
    return {};
  }
  SmallVector<Value> values;
  for (ArrayRef<IndexArg> coords : blocks) {
    if (coords.size() != block.size()) {
      program->emitError(loc)
          << "loadRows: a block of a " << block.size() << "-d descriptor takes "
          << block.size() << " coordinates, got " << coords.size();
      return {};
    }
    std::optional<SmallVector<Value>> group = getCoords(*program, coords);
    if (!group)
      return {};
    values.append(*group);
  }
  // The stacked blocks without their leading 1s.
  SmallVector<int64_t> shape(block);
  shape[shape.size() - 2] *= int64_t(blocks.size());
  ArrayRef<int64_t> kept = shape;
  while (kept.size() > 1 && kept.front() == 1)
    kept = kept.drop_front();
  auto type = RankedTensorType::get(
      kept, llvm::cast<tile::DescriptorType>(desc.getValue().getType())
                .getElementType());
  return {program, program->create<tile::LoadOp>(loc, type, desc.getValue(),
                                                 values, false)};
}

void fa4::dsl::store(const Desc &desc, ArrayRef<IndexArg> coords,
                     const Tile &tile, SourceLoc loc) {
  storeBlock(desc, coords, tile, false, loc);
}

Tile fa4::dsl::loadAt(const Desc &desc, ArrayRef<IndexArg> offsets,
                      SourceLoc loc) {
  return loadBlock(desc, offsets, true, loc);
}

void fa4::dsl::storeAt(const Desc &desc, ArrayRef<IndexArg> offsets,
                       const Tile &tile, SourceLoc loc) {
  storeBlock(desc, offsets, tile, true, loc);
}

void fa4::dsl::atomicAdd(const Desc &desc, ArrayRef<IndexArg> coords,
                         const Tile &tile, SourceLoc loc) {
  storeBlock(desc, coords, tile, false, loc, /*add=*/true);
}

/// Element `index` of the tensor at the valid `ptr` (`tile.load_scalar`),
/// of its element type; null after an error.
static Value loadElement(const Ptr &ptr, const IndexArg &index, SourceLoc loc) {
  Program *program = ptr.getProgram();
  Value at = program->getIndex(index);
  if (!at)
    return {};
  Type element =
      llvm::cast<tile::PointerType>(ptr.getValue().getType()).getElementType();
  return program->create<tile::LoadScalarOp>(loc, element, ptr.getValue(), at);
}

Index fa4::dsl::load(const Ptr &ptr, const IndexArg &index, SourceLoc loc) {
  if (!ptr.isValid())
    return {};
  Program *program = ptr.getProgram();
  Type element =
      llvm::cast<tile::PointerType>(ptr.getValue().getType()).getElementType();
  if (!element.isInteger(32)) {
    program->emitError(loc)
        << "reading an index through a pointer to " << element
        << ": index reads take i32 tensors (loadScalar "
           "reads a value of any float type)";
    return {};
  }
  Value value = loadElement(ptr, index, loc);
  if (!value)
    return {};
  return {program, program->create<arith::IndexCastOp>(
                       loc, program->getBuilder().getIndexType(), value)};
}

Scalar fa4::dsl::loadScalar(const Ptr &ptr, const IndexArg &index,
                            SourceLoc loc) {
  if (!ptr.isValid())
    return {};
  Program *program = ptr.getProgram();
  Type element =
      llvm::cast<tile::PointerType>(ptr.getValue().getType()).getElementType();
  bool narrow = element.isBF16() || element.isF16();
  if (!element.isF32() && !element.isInteger(32) && !narrow) {
    program->emitError(loc) << "loadScalar reads f32, bf16, f16 and i32 "
                               "tensors, not one of "
                            << element;
    return {};
  }
  Value value = loadElement(ptr, index, loc);
  if (!value)
    return {};
  if (narrow)
    value = program->create<arith::ExtFOp>(
        loc, program->getBuilder().getF32Type(), value);
  return {program, value};
}

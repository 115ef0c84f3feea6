//===- Scalars.cpp - index, Boolean and scalar operations -----------------===//
//
// The operators and functions of the DSL on `Index`, `Bool` and `Scalar`
// handles: index arithmetic and comparisons, ceilDiv, min, max and select,
// Boolean logic, and arithmetic and comparisons of scalar arguments.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/Ops.h"

#include "Build.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace fa4::dsl;
using namespace fa4::dsl::detail;
namespace arith = mlir::arith;

using mlir::Value;

//===----------------------------------------------------------------------===//
// Index
//===----------------------------------------------------------------------===//

/// The program of the index operands: that of the one that is an `Index`.
static Program *getProgram(const IndexArg &lhs, const IndexArg &rhs) {
  return lhs.isNumber ? rhs.index.getProgram() : lhs.index.getProgram();
}

/// `lhs op rhs` on indices, at `loc`; null after an error.
static Value buildIndex(BinaryKind kind, const IndexArg &lhs,
                        const IndexArg &rhs, SourceLoc loc) {
  Program *program = getProgram(lhs, rhs);
  if (!program)
    return {};
  Value left = program->getIndex(lhs), right = program->getIndex(rhs);
  if (!left || !right)
    return {};
  return buildBinary(*program, kind, left, right, loc);
}

static Index indexResult(BinaryKind kind, const IndexArg &lhs,
                         const IndexArg &rhs, SourceLoc loc) {
  return {getProgram(lhs, rhs), buildIndex(kind, lhs, rhs, loc)};
}

static Bool boolResult(BinaryKind kind, const IndexArg &lhs,
                       const IndexArg &rhs, SourceLoc loc) {
  return {getProgram(lhs, rhs), buildIndex(kind, lhs, rhs, loc)};
}

Index fa4::dsl::operator+(const Index &lhs, IndexArg rhs) {
  return indexResult(BinaryKind::Add, {lhs, rhs.loc}, rhs, rhs.loc);
}

Index fa4::dsl::operator-(const Index &lhs, IndexArg rhs) {
  return indexResult(BinaryKind::Sub, {lhs, rhs.loc}, rhs, rhs.loc);
}

Index fa4::dsl::operator*(const Index &lhs, IndexArg rhs) {
  return indexResult(BinaryKind::Mul, {lhs, rhs.loc}, rhs, rhs.loc);
}

Index fa4::dsl::operator-(IndexArg operand) {
  return indexResult(BinaryKind::Sub, {0, operand.loc}, operand, operand.loc);
}

Index fa4::dsl::detail::subtract(IndexArg lhs, IndexArg rhs) {
  return indexResult(BinaryKind::Sub, lhs, rhs, rhs.loc);
}

Bool fa4::dsl::operator<(const Index &lhs, IndexArg rhs) {
  return boolResult(BinaryKind::Lt, {lhs, rhs.loc}, rhs, rhs.loc);
}

Bool fa4::dsl::operator<=(const Index &lhs, IndexArg rhs) {
  return boolResult(BinaryKind::Le, {lhs, rhs.loc}, rhs, rhs.loc);
}

Bool fa4::dsl::operator>(const Index &lhs, IndexArg rhs) {
  return boolResult(BinaryKind::Gt, {lhs, rhs.loc}, rhs, rhs.loc);
}

Bool fa4::dsl::operator>=(const Index &lhs, IndexArg rhs) {
  return boolResult(BinaryKind::Ge, {lhs, rhs.loc}, rhs, rhs.loc);
}

Bool fa4::dsl::operator==(const Index &lhs, IndexArg rhs) {
  return boolResult(BinaryKind::Eq, {lhs, rhs.loc}, rhs, rhs.loc);
}

Bool fa4::dsl::operator!=(const Index &lhs, IndexArg rhs) {
  return boolResult(BinaryKind::Ne, {lhs, rhs.loc}, rhs, rhs.loc);
}

/// `lhs OP rhs` for a division-like arith op, at `loc`.
template <typename OpT>
static Index divideLike(const Index &lhs, const IndexArg &rhs, SourceLoc loc) {
  Program *program = lhs.getProgram();
  if (!lhs.isValid())
    return {};
  Value divisor = program->getIndex(rhs);
  if (!divisor)
    return {};
  return {program, program->create<OpT>(loc, lhs.getValue(), divisor)};
}

Index fa4::dsl::operator/(const Index &lhs, IndexArg rhs) {
  return divideLike<arith::DivSIOp>(lhs, rhs, rhs.loc);
}

Index fa4::dsl::operator%(const Index &lhs, IndexArg rhs) {
  return divideLike<arith::RemSIOp>(lhs, rhs, rhs.loc);
}

Index fa4::dsl::ceilDiv(const Index &lhs, IndexArg rhs, SourceLoc loc) {
  return divideLike<arith::CeilDivSIOp>(lhs, rhs, loc);
}

Index fa4::dsl::min(const Index &lhs, IndexArg rhs, SourceLoc loc) {
  return indexResult(BinaryKind::Min, {lhs, loc}, rhs, loc);
}

Index fa4::dsl::max(const Index &lhs, IndexArg rhs, SourceLoc loc) {
  return indexResult(BinaryKind::Max, {lhs, loc}, rhs, loc);
}

Index fa4::dsl::select(const Bool &cond, IndexArg ifTrue, IndexArg ifFalse,
                       SourceLoc loc) {
  Program *program = cond.getProgram();
  if (!cond.isValid())
    return {};
  Value left = program->getIndex(ifTrue), right = program->getIndex(ifFalse);
  if (!left || !right)
    return {};
  return {program, program->create<arith::SelectOp>(
                       loc, left.getType(), cond.getValue(), left, right)};
}

//===----------------------------------------------------------------------===//
// Bool
//===----------------------------------------------------------------------===//

static Bool buildLogic(BinaryKind kind, const Bool &lhs, const Bool &rhs,
                       SourceLoc loc) {
  Program *program = lhs.getProgram();
  if (!lhs.isValid() || !rhs.isValid())
    return {};
  return {program,
          buildBinary(*program, kind, lhs.getValue(), rhs.getValue(), loc)};
}

Bool fa4::dsl::operator&&(const Bool &lhs, BoolArg rhs) {
  return buildLogic(BinaryKind::And, lhs, rhs.flag, rhs.loc);
}

Bool fa4::dsl::operator||(const Bool &lhs, BoolArg rhs) {
  return buildLogic(BinaryKind::Or, lhs, rhs.flag, rhs.loc);
}

Bool fa4::dsl::operator!(BoolArg operand) {
  Program *program = operand.flag.getProgram();
  if (!operand.flag.isValid())
    return {};
  Value flag = operand.flag.getValue();
  Value yes = buildNumber(*program, 1, flag.getType(), operand.loc);
  return {program, program->create<arith::XOrIOp>(operand.loc, flag.getType(),
                                                  flag, yes)};
}

//===----------------------------------------------------------------------===//
// Scalar
//===----------------------------------------------------------------------===//

/// `lhs op rhs` on a scalar and a scalar of its type or a number; null after
/// an error.
static Value buildScalar(BinaryKind kind, const Scalar &lhs,
                         const ScalarArg &rhs) {
  Program *program = lhs.getProgram();
  if (!lhs.isValid() || (!rhs.isNumber && !rhs.scalar.isValid()))
    return {};
  mlir::Type type = lhs.getValue().getType();
  Value right = rhs.isNumber ? buildNumber(*program, rhs.number, type, rhs.loc)
                             : rhs.scalar.getValue();
  if (!right)
    return {};
  if (right.getType() != type) {
    program->emitError(rhs.loc)
        << "'" << spell(kind) << "' of " << type << " and " << right.getType()
        << " scalars: the types differ";
    return {};
  }
  return buildBinary(*program, kind, lhs.getValue(), right, rhs.loc);
}

Scalar fa4::dsl::operator+(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Add, lhs, rhs)};
}

Scalar fa4::dsl::operator-(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Sub, lhs, rhs)};
}

Scalar fa4::dsl::operator*(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Mul, lhs, rhs)};
}

Scalar fa4::dsl::operator/(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Div, lhs, rhs)};
}

/// `lhs op rhs` on a number and a scalar; null after an error.
static Value buildNumberScalar(BinaryKind kind, const NumberArg &lhs,
                               const Scalar &rhs) {
  Program *program = rhs.getProgram();
  if (!rhs.isValid())
    return {};
  Value left =
      buildNumber(*program, lhs.number, rhs.getValue().getType(), lhs.loc);
  if (!left)
    return {};
  return buildBinary(*program, kind, left, rhs.getValue(), lhs.loc);
}

Scalar fa4::dsl::operator/(NumberArg lhs, const Scalar &rhs) {
  return {rhs.getProgram(), buildNumberScalar(BinaryKind::Div, lhs, rhs)};
}

Bool fa4::dsl::operator<(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Lt, lhs, rhs)};
}

Bool fa4::dsl::operator<=(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Le, lhs, rhs)};
}

Bool fa4::dsl::operator>(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Gt, lhs, rhs)};
}

Bool fa4::dsl::operator>=(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Ge, lhs, rhs)};
}

Bool fa4::dsl::operator==(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Eq, lhs, rhs)};
}

Bool fa4::dsl::operator!=(const Scalar &lhs, ScalarArg rhs) {
  return {lhs.getProgram(), buildScalar(BinaryKind::Ne, lhs, rhs)};
}

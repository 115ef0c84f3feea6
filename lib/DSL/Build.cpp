//===- Build.cpp - shared helpers of the DSL's implementation -------------===//
//
// The arith op of each binary operation of the DSL for each element type,
// and the constants of numbers.
//
//===----------------------------------------------------------------------===//

#include "Build.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace fa4::dsl;
using namespace fa4::dsl::detail;
namespace arith = mlir::arith;

using mlir::Type;
using mlir::Value;

llvm::StringRef detail::spell(BinaryKind kind) {
  switch (kind) {
  case BinaryKind::Add:
    return "+";
  case BinaryKind::Sub:
    return "-";
  case BinaryKind::Mul:
    return "*";
  case BinaryKind::Div:
    return "/";
  case BinaryKind::Max:
    return "max";
  case BinaryKind::Min:
    return "min";
  case BinaryKind::And:
    return "&&";
  case BinaryKind::Or:
    return "||";
  case BinaryKind::Lt:
    return "<";
  case BinaryKind::Le:
    return "<=";
  case BinaryKind::Gt:
    return ">";
  case BinaryKind::Ge:
    return ">=";
  case BinaryKind::Eq:
    return "==";
  case BinaryKind::Ne:
    return "!=";
  }
  llvm_unreachable("unknown binary operation");
}

bool detail::isIntegerLike(Type type) {
  Type element = mlir::getElementTypeOrSelf(type);
  return element.isIndex() || (element.isInteger() && !element.isInteger(1));
}

/// The comparison result for operands of `type`: i1, or a tensor of i1.
static Type getMaskType(Type type) {
  auto i1 = mlir::IntegerType::get(type.getContext(), 1);
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

static Value buildFloat(Program &program, BinaryKind kind, Value lhs, Value rhs,
                        SourceLoc loc) {
  Type type = lhs.getType();
  auto compare = [&](arith::CmpFPredicate predicate) -> Value {
    return program.create<arith::CmpFOp>(loc, getMaskType(type), predicate, lhs,
                                         rhs);
  };
  // Products and sums may fuse into FMAs, as nvcc's default -fmad=true
  // allows: the softmax's x * scale - max is one FFMA.
  auto contract = arith::FastMathFlags::contract;
  switch (kind) {
  case BinaryKind::Add:
    return program.create<arith::AddFOp>(loc, type, lhs, rhs, contract);
  case BinaryKind::Sub:
    return program.create<arith::SubFOp>(loc, type, lhs, rhs, contract);
  case BinaryKind::Mul:
    return program.create<arith::MulFOp>(loc, type, lhs, rhs, contract);
  case BinaryKind::Div:
    return program.create<arith::DivFOp>(loc, type, lhs, rhs);
  case BinaryKind::Max:
    return program.create<arith::MaximumFOp>(loc, type, lhs, rhs);
  case BinaryKind::Min:
    return program.create<arith::MinimumFOp>(loc, type, lhs, rhs);
  case BinaryKind::Lt:
    return compare(arith::CmpFPredicate::OLT);
  case BinaryKind::Le:
    return compare(arith::CmpFPredicate::OLE);
  case BinaryKind::Gt:
    return compare(arith::CmpFPredicate::OGT);
  case BinaryKind::Ge:
    return compare(arith::CmpFPredicate::OGE);
  case BinaryKind::Eq:
    return compare(arith::CmpFPredicate::OEQ);
  case BinaryKind::Ne:
    return compare(arith::CmpFPredicate::UNE);
  case BinaryKind::And:
  case BinaryKind::Or:
    return {};
  }
  llvm_unreachable("unknown binary operation");
}

static Value buildInteger(Program &program, BinaryKind kind, Value lhs,
                          Value rhs, SourceLoc loc) {
  Type type = lhs.getType();
  auto compare = [&](arith::CmpIPredicate predicate) -> Value {
    return program.create<arith::CmpIOp>(loc, getMaskType(type), predicate, lhs,
                                         rhs);
  };
  switch (kind) {
  case BinaryKind::Add:
    return program.create<arith::AddIOp>(loc, type, lhs, rhs);
  case BinaryKind::Sub:
    return program.create<arith::SubIOp>(loc, type, lhs, rhs);
  case BinaryKind::Mul:
    return program.create<arith::MulIOp>(loc, type, lhs, rhs);
  case BinaryKind::Div:
    return program.create<arith::DivSIOp>(loc, type, lhs, rhs);
  case BinaryKind::Max:
    return program.create<arith::MaxSIOp>(loc, type, lhs, rhs);
  case BinaryKind::Min:
    return program.create<arith::MinSIOp>(loc, type, lhs, rhs);
  case BinaryKind::Lt:
    return compare(arith::CmpIPredicate::slt);
  case BinaryKind::Le:
    return compare(arith::CmpIPredicate::sle);
  case BinaryKind::Gt:
    return compare(arith::CmpIPredicate::sgt);
  case BinaryKind::Ge:
    return compare(arith::CmpIPredicate::sge);
  case BinaryKind::Eq:
    return compare(arith::CmpIPredicate::eq);
  case BinaryKind::Ne:
    return compare(arith::CmpIPredicate::ne);
  case BinaryKind::And:
  case BinaryKind::Or:
    return {};
  }
  llvm_unreachable("unknown binary operation");
}

static Value buildBoolean(Program &program, BinaryKind kind, Value lhs,
                          Value rhs, SourceLoc loc) {
  Type type = lhs.getType();
  switch (kind) {
  case BinaryKind::And:
    return program.create<arith::AndIOp>(loc, type, lhs, rhs);
  case BinaryKind::Or:
    return program.create<arith::OrIOp>(loc, type, lhs, rhs);
  case BinaryKind::Eq:
    return program.create<arith::CmpIOp>(loc, type, arith::CmpIPredicate::eq,
                                         lhs, rhs);
  case BinaryKind::Ne:
    return program.create<arith::XOrIOp>(loc, type, lhs, rhs);
  default:
    return {};
  }
}

Value detail::buildBinary(Program &program, BinaryKind kind, Value lhs,
                          Value rhs, SourceLoc loc) {
  Type element = mlir::getElementTypeOrSelf(lhs.getType());
  Value result;
  if (llvm::isa<mlir::FloatType>(element))
    result = buildFloat(program, kind, lhs, rhs, loc);
  else if (element.isInteger(1))
    result = buildBoolean(program, kind, lhs, rhs, loc);
  else if (isIntegerLike(element))
    result = buildInteger(program, kind, lhs, rhs, loc);
  if (!result)
    program.emitError(loc) << "'" << spell(kind) << "' does not apply to "
                           << lhs.getType();
  return result;
}

Value detail::buildNumber(Program &program, double number, Type type,
                          SourceLoc loc) {
  Type element = mlir::getElementTypeOrSelf(type);
  mlir::TypedAttr scalar;
  if (llvm::isa<mlir::FloatType>(element)) {
    scalar = mlir::FloatAttr::get(element, number);
  } else if (element.isIntOrIndex()) {
    // The integer must be exact and fit the type: 0 or 1 for i1, the signed
    // range otherwise.
    unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
    double bound = width == 1 ? 2 : std::ldexp(1.0, width - 1);
    double lowest = width == 1 ? 0 : -bound;
    if (number != std::trunc(number) || number < lowest || number >= bound) {
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format("%g", number);
      program.emitError(loc)
          << "the number " << text << " is not a value of " << element;
      return {};
    }
    auto value = static_cast<int64_t>(number);
    scalar = mlir::IntegerAttr::get(
        element, width == 1 ? llvm::APInt(1, value)
                            : llvm::APInt(width, value, /*isSigned=*/true));
  } else {
    program.emitError(loc) << "no number is a value of " << element;
    return {};
  }
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type))
    return program.getConstant(
        llvm::cast<mlir::TypedAttr>(mlir::DenseElementsAttr::get(
            tensor, llvm::ArrayRef<mlir::Attribute>(scalar))),
        loc);
  return program.getConstant(scalar, loc);
}

bool detail::checkShape(Program &program, llvm::ArrayRef<int64_t> shape,
                        SourceLoc loc) {
  if (!shape.empty() && llvm::all_of(shape, [](int64_t n) { return n > 0; }))
    return true;
  auto diag = program.emitError(loc) << "tile shape [";
  llvm::interleaveComma(shape, diag);
  diag << "] needs at least one dimension, all positive";
  return false;
}

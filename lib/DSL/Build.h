//===- Build.h - shared helpers of the DSL's implementation -----*- C++ -*-===//
//
// What the scalar and the tile operations of the DSL share: one builder of
// binary arith ops that picks the op from the element type, and the
// constant of a number in a given type.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_DSL_BUILD_H
#define FA4_LIB_DSL_BUILD_H

#include "fa4/DSL/Program.h"

namespace fa4::dsl::detail {

/// A binary operation of the DSL: arithmetic, min and max, logic and
/// comparisons.
enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  And,
  Or,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne
};

/// The operator or function that writes `kind`: "+", "max", "&&", "<".
llvm::StringRef spell(BinaryKind kind);

/// `lhs op rhs` on two values of one type, scalars or tensors: the arith op
/// for the element type (float, integer or index, or i1 for logic); an i1
/// value or tensor for comparisons. Reports at `loc` and gives null when the
/// element type has no such operation.
mlir::Value buildBinary(Program &program, BinaryKind kind, mlir::Value lhs,
                        mlir::Value rhs, SourceLoc loc);

/// The constant of `number` in `type` (a scalar, or a tensor splat): a float,
/// or an integer that fits the integer type. Reports at `loc` and gives null
/// otherwise.
mlir::Value buildNumber(Program &program, double number, mlir::Type type,
                        SourceLoc loc);

/// Whether `shape` is the shape of a tile: at least one dimension, all
/// positive. Reports at `loc` otherwise.
bool checkShape(Program &program, llvm::ArrayRef<int64_t> shape, SourceLoc loc);

/// Whether `type` is a scalar or tensor of integers (index included) other
/// than i1.
bool isIntegerLike(mlir::Type type);

} // namespace fa4::dsl::detail

#endif // FA4_LIB_DSL_BUILD_H

//===- InitAll.h - everything an fa4 tool registers ---------------*- C++
//-*-===//
//
// The one registration function shared by fa4-opt, fa4-translate and fa4-run:
// the fa4 and tile dialects, the upstream dialects fa4 programs use, and the
// passes a pipeline may name.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_INITALL_H
#define FA4_INITALL_H

#include "mlir/Support/LogicalResult.h"

namespace llvm {
class MemoryBuffer;
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::fa4 {

/// Add the fa4 and tile dialects and the upstream dialects that fa4 programs
/// use (func, arith, math, scf, memref, cf, vector, LLVM, NVVM) to
/// `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Register the fa4 passes and conversions, the `fa4-to-llvm` pipeline, and
/// the upstream passes fa4 pipelines name (canonicalize, cse, scf to cf,
/// nvvm to llvm, reconcile-unrealized-casts).
void registerAllPasses();

/// Refuses, before parsing, input that would crash MLIR 22's parser rather
/// than get a diagnostic: a dense array of an element type without a bit
/// width (`array<index: 1>`), an llvm.insertvalue or llvm.extractvalue
/// position of 2^32 or more. Writes the error, with the buffer's name, line
/// and column, to `os`.
LogicalResult checkParserHazards(const llvm::MemoryBuffer &buffer,
                                 llvm::raw_ostream &os);

} // namespace mlir::fa4

#endif // FA4_INITALL_H

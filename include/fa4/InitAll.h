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

} // namespace mlir::fa4

#endif // FA4_INITALL_H

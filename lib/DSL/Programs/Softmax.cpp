//===- Softmax.cpp - a row softmax in the DSL -----------------------------===//
//
// The fused softmax of Triton's tutorial: each program normalizes 128 rows
// of X [R, N] whole (N up to 256, one tile wide), in f32 and base 2, and
// writes Y = softmax(X) along each row. A kernel without MMA: two loads'
// worth of work in registers (a masked row max, exp2, a row sum, a
// division), one TMA store.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

#include "Base2.h"

#include <limits>

using namespace fa4::dsl;

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildSoftmax(mlir::MLIRContext *context,
                       const SoftmaxOptions &options) {
  const int64_t n = options.columns;
  if (n < 16 || n > 256 || n % 8 != 0) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << "softmax: " << n << " columns is not a multiple of 8 in [16, 256]";
    return nullptr;
  }
  // The tile covers whole 128-byte rows; loads read zeros past N, which
  // the mask keeps out of the max and the sum.
  const int64_t np = (n + 63) / 64 * 64;
  const double inf = std::numeric_limits<double>::infinity();
  Program p(context, "softmax");
  Desc x = p.desc("x", {128, np}, options.elementType, {Extent::any(), n});
  Desc y = p.desc("y", {128, np}, options.elementType, {x.dim(0), n});
  p.grid({cdiv(x.dim(0), 128)});
  Index i = p.programId(0);

  Tile s = load(x, {i, 0}).to(f32) * kLog2e;
  s = where(p.iota({128, np}, 1) < n, s, -inf);
  Tile e = exp2(s - max(s, 1).col());
  store(y, {i, 0}, (e * (1.0 / sum(e, 1)).col()).to(options.elementType));
  return p.finish();
}

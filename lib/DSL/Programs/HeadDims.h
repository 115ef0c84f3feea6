//===- HeadDims.h - attention's head dims and their tiles -------*- C++ -*-===//
//
// The head dims attention's programs take and the width of their tiles:
// whole 128-byte rows (64 columns of 16-bit elements) that hold the head
// dim; loads read zeros past it and stores write only its columns. One
// owner for the forward's, the backward's and decode's programs, on the
// kernel key's rules.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_DSL_PROGRAMS_HEADDIMS_H
#define FA4_LIB_DSL_PROGRAMS_HEADDIMS_H

#include "fa4/KernelFormat/KernelKey.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <cstdint>

namespace fa4::dsl {

/// `dim` rounded up to whole 128-byte rows of 16-bit elements (the kernel
/// key's rule, which the C API's decode workspace shares).
inline int64_t padToRows(int64_t dim) {
  return ::fa4::KernelKey::paddedHeadDim(dim);
}

/// `dim` padded to whole 128-byte rows, or 0 with an error naming
/// `program` and `what` when it is not a head dim attention has (a multiple
/// of 16 in [32, 256]).
inline int64_t paddedHeadDim(mlir::MLIRContext *context, const char *program,
                             const char *what, int64_t dim) {
  if (!::fa4::KernelKey::isHeadDim(dim)) {
    mlir::emitError(mlir::UnknownLoc::get(context))
        << program << what << " " << dim << " is not a multiple of "
        << ::fa4::KernelKey::kHeadDimStep << " in ["
        << ::fa4::KernelKey::kMinHeadDim << ", "
        << ::fa4::KernelKey::kMaxHeadDim << "]";
    return 0;
  }
  return padToRows(dim);
}

} // namespace fa4::dsl

#endif // FA4_LIB_DSL_PROGRAMS_HEADDIMS_H

//===- Passes.h - fa4 passes --------------------------------------*- C++
//-*-===//
//
// Declarations and registration of the fa4 passes that work on kernel plans.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TRANSFORMS_PASSES_H
#define FA4_TRANSFORMS_PASSES_H

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::fa4 {

#define GEN_PASS_DECL
#include "fa4/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa4/Transforms/Passes.h.inc"

/// From a tile program whose kernels carry an `#fa4.config` to fa4 kernels,
/// registered as `fa4-tile-to-fa4`: layout assignment, TMA pipelining, the
/// qk split, warp specialization, the overlapped softmax schedule, CSE.
void buildTileToFA4Pipeline(OpPassManager &pm);

/// Whether `function`, a tile program, stores through one of its descriptor
/// arguments: its plan then needs `tma_store` (fa4-attach-config and the
/// compiler derive it so).
bool storesThroughTensorMap(Operation *function);

} // namespace mlir::fa4

#endif // FA4_TRANSFORMS_PASSES_H

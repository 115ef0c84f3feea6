//===- PlannedKernels.h - what the tile-to-fa4 passes share -----*- C++ -*-===//
//
// The tile-to-fa4 passes each work on the kernels that carry a plan
// (`#fa4.config`); two of them retype kernel arguments and need the first
// row of the calling consumer warpgroup's share of the CTA's rows.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_TRANSFORMS_PLANNEDKERNELS_H
#define FA4_LIB_TRANSFORMS_PLANNEDKERNELS_H

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::fa4::detail {

/// Runs `fn` on each function of `module` that carries an `#fa4.config`,
/// with that plan, and stops at the first failure.
LogicalResult
forEachPlannedKernel(ModuleOp module,
                     function_ref<LogicalResult(func::FuncOp, ConfigAttr)> fn);

/// Makes `function`'s type take the entry block's argument types again, after
/// a pass has retyped arguments.
void updateFunctionType(func::FuncOp function);

/// Columns of one 128-byte swizzle span of `element`: a TMA box's inner
/// extent and the contraction chunk of one MMA of shared-memory operands.
inline int64_t spanColumns(Type element) {
  return 128 / (element.getIntOrFloatBitWidth() / 8);
}

/// `fa4.warpgroup_id * bm`, the first of the CTA rows the calling consumer
/// warpgroup owns, built at the start of `function`.
Value buildWarpgroupFirstRow(func::FuncOp function, ConfigAttr config);

} // namespace mlir::fa4::detail

#endif // FA4_LIB_TRANSFORMS_PLANNEDKERNELS_H

//===- PlannedKernels.cpp - what the tile-to-fa4 passes share -------------===//
//
// The walk over planned kernels, the function type after retyped arguments,
// and the warpgroup's first row.
//
//===----------------------------------------------------------------------===//

#include "PlannedKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::fa4;

LogicalResult mlir::fa4::detail::forEachPlannedKernel(
    ModuleOp module,
    function_ref<LogicalResult(func::FuncOp, ConfigAttr)> fn) {
  WalkResult result = module.walk([&](func::FuncOp function) {
    auto config =
        function->getAttrOfType<ConfigAttr>(FA4Dialect::getConfigAttrName());
    if (config && failed(fn(function, config)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void mlir::fa4::detail::updateFunctionType(func::FuncOp function) {
  function.setFunctionType(FunctionType::get(
      function.getContext(), function.getBody().front().getArgumentTypes(),
      function.getFunctionType().getResults()));
}

Value mlir::fa4::detail::buildWarpgroupFirstRow(func::FuncOp function,
                                     ConfigAttr config) {
  auto b = ImplicitLocOpBuilder::atBlockBegin(function.getLoc(),
                                              &function.getBody().front());
  Value wg = WarpgroupIdOp::create(b);
  return arith::MulIOp::create(b, wg,
                               arith::ConstantIndexOp::create(b, config.getBm()));
}

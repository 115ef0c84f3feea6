//===- PlannedKernels.cpp - what the tile-to-fa4 passes share -------------===//
//
// The walk over planned kernels, the function type after retyped arguments,
// the warpgroup's first row, and whether a program stores through a tensor
// map.
//
//===----------------------------------------------------------------------===//

#include "PlannedKernels.h"

#include "fa4/Transforms/Passes.h"

#include "Tile/TileDialect.h"

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

bool mlir::fa4::storesThroughTensorMap(Operation *function) {
  auto functionOp = dyn_cast<FunctionOpInterface>(function);
  if (!functionOp || functionOp.isExternal())
    return false;
  Block *entry = &functionOp.getFunctionBody().front();
  WalkResult found = function->walk([&](tile::StoreOp store) {
    auto arg = dyn_cast<BlockArgument>(store.getDesc());
    return arg && arg.getOwner() == entry ? WalkResult::interrupt()
                                          : WalkResult::advance();
  });
  return found.wasInterrupted();
}

//===- TileToFA4.cpp - the tile-to-fa4 pass pipeline ----------------------===//
//
// The passes that turn a tile program into a warp-specialized, pipelined fa4
// kernel, in the order each relies on the one before.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

void mlir::fa4::buildTileToFA4Pipeline(OpPassManager &pm) {
  pm.addPass(createFA4AssignLayouts());
  pm.addPass(createFA4PipelineTMA());
  pm.addPass(createFA4SplitQk());
  pm.addPass(createFA4WarpSpecialize());
  pm.addPass(createFA4Persistent());
  pm.addPass(createFA4OverlapSoftmax());
  pm.addPass(createCSEPass());
}

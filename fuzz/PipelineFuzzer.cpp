//===- PipelineFuzzer.cpp - fa4's pass pipelines under libFuzzer ----------===//
//
// Inputs that parse and verify go through the pipelines fa4's compiler runs:
// a tile program through tile-to-fa4 and then fa4-to-llvm, an fa4-level
// kernel through fa4-to-llvm. A pass may refuse the input; it must not crash
// or leave IR that does not verify.
//
//===----------------------------------------------------------------------===//

#include "FuzzIR.h"

#include "Tile/TileDialect.h"
#include "fa4/Conversion/FA4ToNVVM.h"
#include "fa4/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = fa4::fuzz::context();
  mlir::OwningOpRef<mlir::ModuleOp> module = fa4::fuzz::parse(ctx, data, size);
  if (!module)
    return 0;
  bool tileProgram = false;
  module->walk([&](mlir::Operation *op) {
    tileProgram |= op->getName().getDialectNamespace() == "tile";
  });
  mlir::PassManager pm(&ctx);
  if (tileProgram)
    mlir::fa4::buildTileToFA4Pipeline(pm);
  mlir::fa4::buildFA4ToLLVMPipeline(pm);
  // The pass manager verifies after each pass; a failure is a refusal.
  (void)pm.run(*module);
  return 0;
}

//===- consumer.cpp - an out-of-tree user of the fa4 libraries ------------===//
//
// Registers the fa4 dialects through the installed package, parses a file
// and prints the plan of every kernel in it: what a compiler writer's first
// program against fa4 looks like.
//
//===----------------------------------------------------------------------===//

#include "FA4/FA4Dialect.h"
#include "fa4/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: fa4-consumer FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::fa4::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  module->walk([](mlir::Operation *op) {
    auto config = op->getAttrOfType<mlir::fa4::ConfigAttr>("fa4.config");
    if (!config)
      return;
    mlir::fa4::SharedMemoryPlan plan = config.getSharedMemoryPlan();
    llvm::outs() << "kernel " << op->getName() << ": " << config.getQkStages()
                 << " qk stages, " << config.getKvStages() << " kv stages, "
                 << plan.total() << " B of shared memory\n";
  });
  return 0;
}

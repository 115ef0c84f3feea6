//===- fa4-opt.cpp - the fa4 optimizer driver -----------------------------===//
//
// mlir-opt for fa4: parses fa4, tile and upstream IR, runs pass pipelines and
// prints the result, with mlir-opt's command line.
//
//===----------------------------------------------------------------------===//

#include "fa4/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fa4::registerAllDialects(registry);
  mlir::fa4::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "fa4 optimizer driver: runs fa4 passes on fa4, tile and upstream IR\n",
      registry));
}

//===- InitAll.cpp - everything an fa4 tool registers ---------------------===//
//
// Implementation of the shared registration of dialects and passes.
//
//===----------------------------------------------------------------------===//

#include "fa4/InitAll.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "fa4/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::fa4::registerAllDialects(DialectRegistry &registry) {
  registry.insert<FA4Dialect, tile::TileDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  scf::SCFDialect>();
}

void mlir::fa4::registerAllPasses() {
  registerFA4Passes();
  registerTransformsPasses();
}

//===- InitAll.cpp - everything an fa4 tool registers ---------------------===//
//
// Implementation of the shared registration of dialects and passes.
//
//===----------------------------------------------------------------------===//

#include "fa4/InitAll.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "fa4/Conversion/FA4ToNVVM.h"
#include "fa4/Transforms/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::fa4::registerAllDialects(DialectRegistry &registry) {
  registry.insert<FA4Dialect, tile::TileDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  scf::SCFDialect>();
}

void mlir::fa4::registerAllPasses() {
  registerFA4Passes();
  registerFA4ConversionPasses();
  registerTransformsPasses();
  // The upstream conversions fa4 pipelines use, one by one: the umbrella
  // registration would pull in every conversion library.
  registerPass([] { return createSCFToControlFlowPass(); });
  registerPass([] { return createReconcileUnrealizedCastsPass(); });
  registerPass([] { return createConvertNVVMToLLVMPass(); });
  PassPipelineRegistration<>(
      "fa4-to-llvm",
      "lower fa4 kernels to the LLVM and NVVM dialects (explicit pipeline "
      "states, shared memory, register tiles, scf to cf, fa4 to NVVM)",
      buildFA4ToLLVMPipeline);
  PassPipelineRegistration<>(
      "fa4-tile-to-fa4",
      "turn a tile program with an #fa4.config into a warp-specialized, "
      "TMA-pipelined fa4 kernel (layouts, TMA pipelines, qk split, roles)",
      buildTileToFA4Pipeline);
}

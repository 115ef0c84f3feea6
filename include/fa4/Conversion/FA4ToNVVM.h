//===- FA4ToNVVM.h - lowering fa4 to NVVM and LLVM ----------------*- C++
//-*-===//
//
// The conversion of fa4 kernels (pipelines, TMA loads, warp roles,
// asynchronous MMA, named barriers, global stores) to the NVVM and LLVM
// dialects for sm_90a, as reusable pattern sets and a pass.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_CONVERSION_FA4TONVVM_H
#define FA4_CONVERSION_FA4TONVVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fa4 {

/// Add the fa4 types to an LLVM type converter: pipelines and shared-memory
/// tiles become `!llvm.ptr<3>`, tensor maps the generic pointer to the
/// by-value kernel parameter.
void addFA4TypeConversions(LLVMTypeConverter &converter);

/// Pipelines and their sub-stages: mbarrier init, waits, arrivals, the
/// elected expect-tx and the TMA copies; shared-memory views.
void populatePipelineToNVVMPatterns(LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns);
/// Named barriers.
void populateRoleToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);
/// Asynchronous MMA to wgmma (shared-memory and register A) and its wait.
void populateMmaToNVVMPatterns(LLVMTypeConverter &converter,
                               RewritePatternSet &patterns);
/// Global stores of register tiles and program ids.
void populateMemoryToNVVMPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns);
/// f32 math with no NVPTX lowering (log2) to the approximate hardware units.
void populateMathToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

/// The whole lowering of fa4 kernels to the LLVM dialect, registered as
/// `fa4-to-llvm`: explicit pipeline states, shared-memory allocation,
/// register-tile distribution, hang instrumentation (kernels planned with
/// `debug_hangs` only), warp roles, scf to cf, convert-fa4-to-nvvm,
/// cleanups.
void buildFA4ToLLVMPipeline(OpPassManager &pm);

#define GEN_PASS_DECL
#include "fa4/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa4/Conversion/Passes.h.inc"

} // namespace mlir::fa4

#endif // FA4_CONVERSION_FA4TONVVM_H

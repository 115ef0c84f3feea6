//===- Common.h - helpers shared by the fa4 to NVVM patterns ------*- C++
//-*-===//
//
// Small builders every fa4-to-NVVM pattern file needs: integer constants,
// thread and warp ids, byte offsets into shared memory, and the addresses of
// a pipeline's mbarriers and stage buffers.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_CONVERSION_FA4TONVVM_COMMON_H
#define FA4_LIB_CONVERSION_FA4TONVVM_COMMON_H

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fa4::detail {

/// The NVVM address space of shared memory.
constexpr unsigned kSharedSpace = 3;
/// The name of the kernel's dynamic shared memory.
constexpr StringLiteral kDynamicSmemName = "fa4_dynamic_smem";

inline Value i32Const(ImplicitLocOpBuilder &b, int64_t value) {
  return LLVM::ConstantOp::create(b, b.getI32Type(),
                                  b.getI32IntegerAttr(value));
}

inline Value i64Const(ImplicitLocOpBuilder &b, int64_t value) {
  return LLVM::ConstantOp::create(b, b.getI64Type(),
                                  b.getI64IntegerAttr(value));
}

/// `threadIdx.x` as i32.
inline Value threadId(ImplicitLocOpBuilder &b) {
  return NVVM::ThreadIdXOp::create(b, b.getI32Type());
}

/// `ptr + bytes` for a pointer and an i32 or i64 byte offset.
inline Value offsetPtr(ImplicitLocOpBuilder &b, Value ptr, Value bytes) {
  return LLVM::GEPOp::create(b, ptr.getType(), b.getI8Type(), ptr,
                             ArrayRef<LLVM::GEPArg>{bytes});
}

inline Value offsetPtr(ImplicitLocOpBuilder &b, Value ptr, int64_t bytes) {
  if (bytes == 0)
    return ptr;
  return LLVM::GEPOp::create(
      b, ptr.getType(), b.getI8Type(), ptr,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(bytes)});
}

/// The first byte of sub-stage (stage, qk) among a pipeline's buffers, as an
/// i32 byte offset from the region's base.
inline Value subStageIndex(ImplicitLocOpBuilder &b, PipelineType type,
                           Value stage, int64_t qk) {
  Value scaled = LLVM::MulOp::create(b, stage, i32Const(b, type.getQkStages()));
  return LLVM::AddOp::create(b, scaled, i32Const(b, qk));
}

/// The full (producer) barrier of a sub-stage; the empty (consumer) barrier
/// is `kv * qk` barriers further.
inline Value barrierPtr(ImplicitLocOpBuilder &b, PipelineType type, Value base,
                        Value stage, int64_t qk, bool empty) {
  Value index = subStageIndex(b, type, stage, qk);
  if (empty)
    index = LLVM::AddOp::create(
        b, index, i32Const(b, type.getKvStages() * type.getQkStages()));
  Value bytes = LLVM::MulOp::create(b, index, i32Const(b, 8));
  return offsetPtr(b, offsetPtr(b, base, type.getBarrierOffset()), bytes);
}

/// Buffer `tile` of sub-stage (stage, qk).
inline Value bufferPtr(ImplicitLocOpBuilder &b, PipelineType type, Value base,
                       Value stage, int64_t qk, unsigned tile) {
  Value index = subStageIndex(b, type, stage, qk);
  Value bytes =
      LLVM::MulOp::create(b, index, i32Const(b, type.getSubStageStride()));
  return offsetPtr(b, offsetPtr(b, base, bytes), type.getTileOffset(tile));
}

} // namespace mlir::fa4::detail

#endif // FA4_LIB_CONVERSION_FA4TONVVM_COMMON_H

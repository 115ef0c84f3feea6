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
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <map>
#include <optional>

namespace mlir {
class ConversionPatternRewriter;
} // namespace mlir

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

/// The calling thread's place in its warpgroup, in `type` (i32 or i64):
/// its index there, its warp and its lane.
struct WarpgroupThread {
  Value inGroup, warp, lane;
};
inline WarpgroupThread warpgroupThread(ImplicitLocOpBuilder &b, Type type) {
  Value tid = threadId(b);
  if (type != tid.getType())
    tid = LLVM::ZExtOp::create(b, type, tid);
  auto constant = [&](int64_t value) {
    return LLVM::ConstantOp::create(b, type, b.getIntegerAttr(type, value));
  };
  Value inGroup = LLVM::URemOp::create(b, tid, constant(128));
  return {inGroup, LLVM::UDivOp::create(b, inGroup, constant(32)),
          LLVM::URemOp::create(b, inGroup, constant(32))};
}

/// An i32 that every lane of the warp holds (all must be here), as the
/// warp's minimum of it (`redux.sync`), which tells ptxas it is the same in
/// every lane. Measured on the schedule slots (bench/RESULTS.md,
/// 2026-12-03): 1-2 % faster than the plain read, where a broadcast from
/// lane 0 (`shfl.sync`) was not; the main loop's states stay out of uniform
/// registers either way.
inline Value warpUniform(ImplicitLocOpBuilder &b, Value value) {
  return NVVM::ReduxOp::create(b, b.getI32Type(), value, NVVM::ReduxKind::UMIN,
                               i32Const(b, -1));
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

/// The byte at `offset` of the kernel's dynamic shared memory.
inline Value dynamicSmemAt(ImplicitLocOpBuilder &b, int64_t offset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kSharedSpace);
  Value smem = LLVM::AddressOfOp::create(b, ptrType, kDynamicSmemName);
  return offsetPtr(b, smem, offset);
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

/// Branches around a block that only the threads where `condition` holds
/// run (one elected thread, a warpgroup's first): splits the block at the
/// rewriter's insertion point, after `condition`, into one that branches on
/// it and one where every thread goes on, and leaves the rewriter in the new
/// block, before its branch to the latter.
void beginConditionalBlock(ConversionPatternRewriter &rewriter, Location loc,
                           Value condition);

/// Buffer `tile` of sub-stage (stage, qk).
inline Value bufferPtr(ImplicitLocOpBuilder &b, PipelineType type, Value base,
                       Value stage, int64_t qk, unsigned tile) {
  Value index = subStageIndex(b, type, stage, qk);
  Value bytes =
      LLVM::MulOp::create(b, index, i32Const(b, type.getSubStageStride()));
  return offsetPtr(b, offsetPtr(b, base, bytes), type.getTileOffset(tile));
}

//===----------------------------------------------------------------------===//
// Math (Math.cpp)
//===----------------------------------------------------------------------===//

/// Math that NVPTX has no instruction for (`math.erf`) rewritten, before
/// the conversion, into the ops of MLIR's polynomial approximation.
LogicalResult expandMathWithoutInstructions(Operation *root);

//===----------------------------------------------------------------------===//
// Hang diagnosis (HangDiagnosis.cpp)
//===----------------------------------------------------------------------===//

/// Whether `op` is, or is in, a function planned with `debug_hangs`.
bool plannedWithHangDiagnosis(Operation *op);

/// The `fa4.hang_site` fa4-instrument-hangs gave `op`, if any.
std::optional<int64_t> hangSite(Operation *op);

/// For a module with kernels planned with `debug_hangs`: the report's
/// globals, the site table (from the module's `fa4.hang_sites`) and the
/// report function.
LogicalResult prepareHangDiagnosis(ModuleOp module);

/// The mbarrier that stands in for named barrier `id` in the kernel of
/// `op` (at its `fa4.named_barrier_offset`); an error at `op` when the
/// kernel has none.
FailureOr<Value> namedBarrierPtr(ImplicitLocOpBuilder &b, Operation *op,
                                 int64_t id);
/// The same for an id known at run time (an i32).
FailureOr<Value> namedBarrierPtr(ImplicitLocOpBuilder &b, Operation *op,
                                 Value id);

/// Named barrier id -> its thread count, in id order.
using NamedBarrierCounts = std::map<int64_t, int64_t>;

/// The named barriers `function` uses; an error at an op that gives a
/// barrier another thread count than an earlier one.
FailureOr<NamedBarrierCounts> collectNamedBarriers(FunctionOpInterface function);

/// Thread 0 initialises the stand-in mbarriers at `kernel`'s entry, then the
/// init fence and a CTA barrier.
void initNamedBarriers(LLVM::LLVMFuncOp kernel, const NamedBarrierCounts &counts);

/// At the rewriter's insertion point: loops until `tryWait` (built in the
/// loop) is true. With a `site`, gives up after fa4::runtime::kHangCycles
/// and calls the report function with the site, `stage` and `phase` (0
/// when null) and the cycles waited. Leaves the rewriter at the start of the
/// code after the wait.
void emitBoundedWait(ConversionPatternRewriter &rewriter, Location loc,
                     std::optional<int64_t> site, Value stage, Value phase,
                     function_ref<Value(ImplicitLocOpBuilder &)> tryWait);

} // namespace mlir::fa4::detail

#endif // FA4_LIB_CONVERSION_FA4TONVVM_COMMON_H

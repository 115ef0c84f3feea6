//===- AllocateSharedMemory.cpp - place pipelines in shared memory --------===//
//
// The `fa4-allocate-shared-memory` pass: gives every pipeline of a kernel,
// and every staging buffer (`fa4.shared_buffer`), the offset of its region
// in the kernel's dynamic shared memory, each region rounded up to 1024 B,
// and records the total the kernel needs, checked
// against the target's limit: the same sum the plan verifier checks. The
// regions that need no such alignment go in the padding after the first
// region with room (so the total does not change), else in a region of
// their own: a schedule pipeline's slots and barriers, and, in a kernel
// built to diagnose hangs that has named barriers, the mbarriers that stand
// in for them.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/FA4Dialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4ALLOCATESHAREDMEMORY
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

namespace {
struct AllocateSharedMemoryPass
    : public mlir::fa4::impl::FA4AllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  void runOnOperation() override {
    Builder builder(&getContext());
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      ConfigAttr config = lookupConfig(function);
      bool standIns = false;
      if (config && config.getDebugHangs())
        function->walk([&](Operation *op) {
          standIns |=
              isa<NamedBarrierSyncOp, NamedBarrierArriveOp, TmaStoreOp>(op);
        });
      int64_t offset = 0;
      bool any = false;
      // The padding after each aligned region: (start, bytes), 8-aligned.
      SmallVector<std::pair<int64_t, int64_t>> gaps;
      SmallVector<PipelineCreateOp> small;
      function->walk([&](Operation *op) {
        int64_t bytes;
        // Every region before is rounded up: this one starts aligned.
        if (auto create = dyn_cast<PipelineCreateOp>(op)) {
          PipelineType type = create.getPipeline().getType();
          if (type.isSlotPipeline()) {
            small.push_back(create);
            any = true;
            return;
          }
          create.setOffsetAttr(builder.getI64IntegerAttr(offset));
          bytes = type.getRegionBytes();
        } else if (auto buffer = dyn_cast<SharedBufferOp>(op)) {
          buffer.setOffsetAttr(builder.getI64IntegerAttr(offset));
          MemRefType type = buffer.getBuffer().getType();
          bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
        } else {
          return;
        }
        any = true;
        int64_t aligned = getAlignedRegionBytes(bytes);
        int64_t end = llvm::alignTo(bytes, 8);
        gaps.push_back({offset + end, aligned - end});
        offset += aligned;
      });
      // `bytes` in the first gap with room, else at the end.
      auto place = [&](int64_t bytes) {
        bytes = llvm::alignTo(bytes, 8);
        for (auto &[start, room] : gaps) {
          if (room < bytes)
            continue;
          int64_t at = start;
          start += bytes;
          room -= bytes;
          return at;
        }
        int64_t at = offset;
        offset += getAlignedRegionBytes(bytes);
        return at;
      };
      for (PipelineCreateOp create : small)
        create.setOffsetAttr(builder.getI64IntegerAttr(
            place(create.getPipeline().getType().getRegionBytes())));
      if (standIns)
        function->setAttr(
            kNamedBarrierOffsetAttrName,
            builder.getI64IntegerAttr(place(kNamedBarrierStandInBytes)));
      if (!any && !standIns && !function->hasAttr(kKernelAttrName))
        continue;
      Target target = config ? config.getTarget() : Target::sm_90a;
      int64_t limit = getTargetLimits(target).sharedMemoryPerBlock;
      if (offset > limit) {
        function.emitError()
            << "kernel needs " << offset
            << " B of shared memory for its pipelines but "
            << stringifyTarget(target) << " allows " << limit << " B";
        return signalPassFailure();
      }
      function->setAttr(kSharedMemoryBytesAttrName,
                        builder.getI64IntegerAttr(offset));
    }
  }
};
} // namespace

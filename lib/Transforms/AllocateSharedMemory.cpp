//===- AllocateSharedMemory.cpp - place pipelines in shared memory --------===//
//
// The `fa4-allocate-shared-memory` pass: gives every pipeline of a kernel,
// and every staging buffer (`fa4.shared_buffer`), the offset of its region
// in the kernel's dynamic shared memory, each region rounded up to 1024 B,
// and records the total the kernel needs, checked
// against the target's limit: the same sum the plan verifier checks. A
// kernel built to diagnose hangs that has named barriers also gets the
// mbarriers that stand in for them, in the padding after the first region
// with room (so the total does not change), else in a region of their own.
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
    : public fa4::impl::FA4AllocateSharedMemoryBase<AllocateSharedMemoryPass> {
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
      std::optional<int64_t> standInOffset;
      int64_t offset = 0;
      bool any = false;
      function->walk([&](Operation *op) {
        int64_t bytes;
        // Every region before is rounded up: this one starts aligned.
        if (auto create = dyn_cast<PipelineCreateOp>(op)) {
          create.setOffsetAttr(builder.getI64IntegerAttr(offset));
          bytes = create.getPipeline().getType().getRegionBytes();
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
        if (standIns && !standInOffset &&
            aligned - end >= kNamedBarrierStandInBytes)
          standInOffset = offset + end;
        offset += aligned;
      });
      if (standIns && !standInOffset) {
        standInOffset = offset;
        offset += getAlignedRegionBytes(kNamedBarrierStandInBytes);
      }
      if (standInOffset)
        function->setAttr(kNamedBarrierOffsetAttrName,
                          builder.getI64IntegerAttr(*standInOffset));
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

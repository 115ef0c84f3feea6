//===- AllocateSharedMemory.cpp - place pipelines in shared memory --------===//
//
// The `fa4-allocate-shared-memory` pass: gives every pipeline of a kernel,
// and every staging buffer (`fa4.shared_buffer`), the offset of its region
// in the kernel's dynamic shared memory, and records the total the kernel
// needs, checked against the target's limit. The layout is
// SharedMemoryLayout's, the routine the plan verifier sums a plan with:
// regions rounded up to 1024 B, then the small items (a schedule pipeline's
// slots and barriers, and, in a kernel built to diagnose hangs that has
// named barriers, the mbarriers that stand in for them) in the padding
// after the first region with room, else in a region of their own.
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
      SharedMemoryLayout layout;
      bool any = false;
      SmallVector<PipelineCreateOp> small;
      function->walk([&](Operation *op) {
        if (auto create = dyn_cast<PipelineCreateOp>(op)) {
          PipelineType type = create.getPipeline().getType();
          any = true;
          if (type.isSlotPipeline())
            small.push_back(create);
          else
            create.setOffsetAttr(builder.getI64IntegerAttr(
                layout.addRegion(type.getRegionBytes())));
        } else if (auto buffer = dyn_cast<SharedBufferOp>(op)) {
          any = true;
          MemRefType type = buffer.getBuffer().getType();
          buffer.setOffsetAttr(builder.getI64IntegerAttr(layout.addRegion(
              type.getNumElements() * type.getElementTypeBitWidth() / 8)));
        }
      });
      for (PipelineCreateOp create : small)
        create.setOffsetAttr(builder.getI64IntegerAttr(
            layout.addSmall(create.getPipeline().getType().getRegionBytes())));
      if (standIns)
        function->setAttr(kNamedBarrierOffsetAttrName,
                          builder.getI64IntegerAttr(
                              layout.addSmall(kNamedBarrierStandInBytes)));
      if (!any && !standIns && !function->hasAttr(kKernelAttrName))
        continue;
      Target target = config ? config.getTarget() : Target::sm_90a;
      int64_t limit = getTargetLimits(target).sharedMemoryPerBlock;
      int64_t offset = layout.total();
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

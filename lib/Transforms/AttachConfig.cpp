//===- AttachConfig.cpp - attach a derived #fa4.config --------------------===//
//
// The `fa4-attach-config` pass: derives a kernel plan from the problem given
// on the command line and attaches it to every function without one.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/FA4Dialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4ATTACHCONFIG
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

namespace {
struct AttachConfigPass
    : public mlir::fa4::impl::FA4AttachConfigBase<AttachConfigPass> {
  using FA4AttachConfigBase::FA4AttachConfigBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // Report at the first function when there is one: a module built from a
    // pipe has no location of its own.
    Location loc = module.getLoc();
    auto functions = module.getOps<FunctionOpInterface>();
    if (!functions.empty())
      loc = (*functions.begin())->getLoc();
    auto emitError = [&] { return mlir::emitError(loc); };

    ConfigRequest request;
    if (dtype == "bf16")
      request.elementType = BFloat16Type::get(context);
    else if (dtype == "f16")
      request.elementType = Float16Type::get(context);
    else {
      emitError() << "dtype '" << dtype << "' is not bf16 or f16";
      return signalPassFailure();
    }
    std::optional<Target> parsedTarget = symbolizeTarget(target);
    if (!parsedTarget) {
      emitError() << "target '" << target << "' is not sm_90a or sm_100a";
      return signalPassFailure();
    }
    request.target = *parsedTarget;
    request.headDim = headDim;
    request.headDimV = headDimV;
    ::fa4::Plan &plan = request.plan;
    if (kvStages)
      plan.kvStages = kvStages;
    if (qkStages)
      plan.qkStages = qkStages;
    if (blockN)
      plan.blockN = blockN;
    if (consumerWarpgroups)
      plan.consumerWarpgroups = consumerWarpgroups;
    plan.persistent = persistent;
    if (qStages)
      plan.qStages = qStages;
    plan.debugHangs = debugHangs;
    plan.interleaveHeads = interleaveHeads;
    plan.dynamicSchedule = dynamicSchedule;
    if (!plan.set("rebuild-descriptors", rebuildDescriptors).ok()) {
      emitError() << "rebuild-descriptors '" << rebuildDescriptors
                  << "' is not true, false or derived";
      return signalPassFailure();
    }

    // A kernel that stores through a tensor map does so by TMA.
    for (auto function : functions) {
      if (function->hasAttr(FA4Dialect::getConfigAttrName()))
        continue;
      request.tmaStore = storesThroughTensorMap(function);
      FailureOr<ConfigAttr> config =
          ConfigAttr::derive(emitError, context, request);
      if (failed(config))
        return signalPassFailure();
      function->setAttr(FA4Dialect::getConfigAttrName(), *config);
    }
  }
};
} // namespace

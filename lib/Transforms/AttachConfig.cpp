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
    : public fa4::impl::FA4AttachConfigBase<AttachConfigPass> {
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
    if (kvStages)
      request.kvStages = kvStages;
    if (qkStages)
      request.qkStages = qkStages;
    if (blockN)
      request.bn = blockN;
    if (consumerWarpgroups)
      request.qTiles = consumerWarpgroups;
    request.persistent = persistent;
    if (qStages)
      request.qStages = qStages;
    request.debugHangs = debugHangs;
    request.interleaveHeads = interleaveHeads;
    request.dynamicSchedule = dynamicSchedule;
    if (rebuildDescriptors == "true" || rebuildDescriptors == "false")
      request.rebuildDescriptors = rebuildDescriptors == "true";
    else if (rebuildDescriptors != "derived") {
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

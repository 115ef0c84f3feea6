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
#include "llvm/ADT/StringExtras.h"

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

  /// The plan fields among `options` (`name=value` by a plan field's name)
  /// go to the plan type's parser, the rest to the declared options: a new
  /// plan field is an option here without a line of this pass.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    plan = {};
    SmallVector<StringRef> own;
    SmallVector<StringRef> words;
    options.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef word : words) {
      std::pair<StringRef, StringRef> pair = word.split('=');
      StringRef name = pair.first, value = pair.second;
      bool planField = llvm::any_of(
          ::fa4::Plan::fields(),
          [&](const ::fa4::Plan::Field &field) { return name == field.name; });
      if (!planField) {
        own.push_back(word);
        continue;
      }
      if (::fa4::runtime::Status s = plan.set(name, value); !s.ok())
        return errorHandler(s.message());
    }
    return FA4AttachConfigBase::initializeOptions(llvm::join(own, " "),
                                                  errorHandler);
  }

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
    request.plan = plan;

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

private:
  /// The plan fields given as options.
  ::fa4::Plan plan;
};
} // namespace

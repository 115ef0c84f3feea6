//===- SplitQk.cpp - stage K over the head dimension ----------------------===//
//
// The `fa4-split-qk` pass: a `k` pipeline of whole K tiles (as TMA
// pipelining leaves it) becomes a pipeline of qk stages, each holding a
// band of head-dim columns (the plan's band: the padded head dim over its
// qk stages; a tile of V's width read transposed, in the backward, takes
// as many as it holds, or stays whole where they do not divide it) with
// its own full and empty barriers.
// The producer acquires and loads band by band; the consumer waits for a
// band just before the MMA chunk that reads it (so the first chunk of Q·Kᵀ
// starts as soon as its own columns land) and releases the bands one by one.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "PlannedKernels.h"

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4SPLITQK
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

/// Splits the pipeline created by `create` into bands of `band` columns.
static LogicalResult split(PipelineCreateOp create, int64_t band) {
  auto type = cast<PipelineType>(create.getType());
  auto tile = cast<MemRefType>(type.getTiles()[0]);
  int64_t rows = tile.getDimSize(0), cols = tile.getDimSize(1);
  if (band <= 0 || cols % band != 0)
    return create.emitOpError() << "cannot split " << cols
                                << " head-dim columns into bands of " << band;
  int64_t stages = cols / band;
  if (stages == 1)
    return success();
  auto bandType = MemRefType::get({rows, band}, tile.getElementType(),
                                  AffineMap(), tile.getMemorySpace());
  create.getResult().setType(
      PipelineType::get(create.getContext(), type.getKind(),
                        type.getKvStages(), stages, {bandType}));

  SmallVector<Operation *> users(create->getUsers());
  for (Operation *user : users) {
    ImplicitLocOpBuilder b(user->getLoc(), user);
    if (auto acquire = dyn_cast<ProducerAcquireOp>(user)) {
      for (int64_t s = 0; s < stages; ++s)
        ProducerAcquireOp::create(b, create, acquire.getState(), s);
      acquire.erase();
    } else if (auto load = dyn_cast<ProducerLoadOp>(user)) {
      // The column of each coordinate group (one, or one per row of boxes
      // of a gather) moves to the band's.
      SmallVector<Value> cols(load.getCoords());
      size_t rank = load.getMap().getType().getBox().size();
      for (int64_t s = 0; s < stages; ++s) {
        SmallVector<Value> coords(cols);
        for (size_t last = rank - 1; last < coords.size(); last += rank)
          coords[last] = arith::AddIOp::create(
              b, cols[last], arith::ConstantIndexOp::create(b, s * band));
        ProducerLoadOp::create(b, create, load.getState(), s, 0,
                               load.getMap(), coords);
      }
      load.erase();
    } else if (auto release = dyn_cast<ConsumerReleaseOp>(user)) {
      for (int64_t s = 0; s < stages; ++s)
        ConsumerReleaseOp::create(b, create, release.getState(), s);
      release.erase();
    } else if (auto wait = dyn_cast<ConsumerWaitOp>(user)) {
      // Each view of the whole tile reads one band; wait for the band just
      // before its first view.
      SmallVector<Value> bands(stages);
      SmallVector<Operation *> views(wait->getUsers());
      llvm::sort(views, [](Operation *x, Operation *y) {
        return x->isBeforeInBlock(y);
      });
      for (Operation *viewOp : views) {
        auto view = dyn_cast<SubtileOp>(viewOp);
        std::optional<int64_t> row =
            view ? getConstantIntValue(view.getRow()) : std::nullopt;
        std::optional<int64_t> col =
            view ? getConstantIntValue(view.getCol()) : std::nullopt;
        if (!row || !col || *row != 0 ||
            *col % band + view.getType().getDimSize(1) > band)
          return viewOp->emitOpError()
                 << "reads a K tile across its " << stages
                 << " qk stages of " << band
                 << " columns: fa4 splits K where each MMA chunk reads one";
        int64_t s = *col / band;
        ImplicitLocOpBuilder vb(view.getLoc(), view);
        if (!bands[s])
          bands[s] = ConsumerWaitOp::create(vb, TypeRange{bandType}, create,
                                            wait.getState(), s)
                         .getResult(0);
        if (view.getType() == bandType) {
          view.replaceAllUsesWith(bands[s]);
        } else {
          view.replaceAllUsesWith(
              SubtileOp::create(vb, view.getType(), bands[s], view.getRow(),
                                arith::ConstantIndexOp::create(vb, *col % band))
                  .getResult());
        }
        view.erase();
      }
      wait.erase();
    }
  }
  return success();
}

namespace {
struct SplitQkPass : public mlir::fa4::impl::FA4SplitQkBase<SplitQkPass> {
  void runOnOperation() override {
    auto splitKernel = [](func::FuncOp function, ConfigAttr config) {
      if (config.getQkStages() <= 1)
        return success();
      SmallVector<PipelineCreateOp> creates;
      // K's bands; a tile of V's width they do not divide stays whole.
      int64_t band = config.getPaddedHeadDim() / config.getQkStages();
      function.walk([&](PipelineCreateOp create) {
        auto type = cast<PipelineType>(create.getType());
        if (type.getKind() == PipelineKind::k && type.getQkStages() == 1 &&
            type.getTiles().size() == 1 &&
            type.getTile(0).getDimSize(1) % band == 0)
          creates.push_back(create);
      });
      for (PipelineCreateOp create : creates)
        if (failed(split(create, band)))
          return failure();
      return success();
    };
    if (failed(mlir::fa4::detail::forEachPlannedKernel(getOperation(), splitKernel)))
      signalPassFailure();
  }
};
} // namespace

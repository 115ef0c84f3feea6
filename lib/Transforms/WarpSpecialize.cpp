//===- WarpSpecialize.cpp - producer and consumer roles -------------------===//
//
// The `fa4-warp-specialize` pass: a pipelined kernel body, with the producer
// and the consumer side of its pipelines still in program order, becomes an
// `fa4.warp_specialize` with the roles of its plan. Each role starts as a
// copy of the body and keeps its side: the producer role what its acquires
// and TMA loads need (loop bounds, coordinates, its states), the consumer
// role everything but those. Loop-carried values a role does not need leave
// its loops. A kernel without TMA loads runs on its consumer warps alone.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "PlannedKernels.h"

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4WARPSPECIALIZE
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

static bool isProducerOp(Operation *op) {
  return isa<ProducerAcquireOp, ProducerLoadOp>(op);
}

namespace {
/// What one role keeps of its copy of the body: the roots and everything
/// they need, through operands, enclosing ops and loop-carried values.
class Liveness {
public:
  explicit Liveness(Block *role) : role(role) {}

  void markOp(Operation *op) {
    while (op && op->getBlock() != nullptr && op != role->getParentOp()) {
      if (!live.insert(op).second)
        return;
      // A loop needs its bounds, and its initial values until
      // canonicalization drops the carried values that are not used.
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        for (Value bound :
             {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
          markValue(bound);
        for (Value init : loop.getInitArgs())
          if (Operation *def = init.getDefiningOp())
            markOp(def);
      } else {
        for (Value operand : op->getOperands())
          markValue(operand);
      }
      // Terminators of kept regions keep their loops' carried values only
      // as far as those are live; scf.if results are kept whole.
      if (auto ifOp = dyn_cast<scf::IfOp>(op))
        for (Region &region : ifOp->getRegions())
          for (Block &block : region)
            markOp(block.getTerminator());
      op = op->getParentOp();
    }
  }

  void markValue(Value value) {
    if (Operation *def = value.getDefiningOp()) {
      markOp(def);
      return;
    }
    auto arg = cast<BlockArgument>(value);
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop) {
      if (Operation *parent = arg.getOwner()->getParentOp())
        markOp(parent);
      return;
    }
    markOp(loop);
    if (arg == loop.getInductionVar() || !carried.insert(arg).second)
      return;
    unsigned i = arg.getArgNumber() - 1;
    markValue(loop.getInitArgs()[i]);
    markValue(loop.getBody()->getTerminator()->getOperand(i));
  }

  bool isLive(Operation *op) const { return live.contains(op); }
  bool isCarried(BlockArgument arg) const { return carried.contains(arg); }

private:
  Block *role;
  DenseSet<Operation *> live;
  DenseSet<BlockArgument> carried;
};
} // namespace

/// Makes every loop of `role` yield the dead carried values unchanged, so
/// that canonicalization drops them.
static void yieldDeadUnchanged(Block *role, const Liveness &liveness) {
  role->walk([&](scf::ForOp loop) {
    if (!liveness.isLive(loop))
      return;
    Operation *yield = loop.getBody()->getTerminator();
    for (BlockArgument arg : loop.getRegionIterArgs())
      if (!liveness.isCarried(arg))
        yield->setOperand(arg.getArgNumber() - 1, arg);
  });
}

/// Erases the ops of `role` that `keep` rejects, with their uses.
static void eraseUnless(Block *role, function_ref<bool(Operation *)> keep) {
  SmallVector<Operation *> dead;
  role->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>() || keep(op))
      return WalkResult::advance();
    dead.push_back(op);
    return WalkResult::skip();
  });
  for (Operation *op : dead)
    op->dropAllReferences();
  for (Operation *op : llvm::reverse(dead)) {
    op->dropAllUses();
    op->erase();
  }
}

/// Drops unchanged carried values and dead ops from the roles.
static LogicalResult cleanUp(Operation *warpSpecialize) {
  MLIRContext *context = warpSpecialize->getContext();
  RewritePatternSet patterns(context);
  scf::ForOp::getCanonicalizationPatterns(patterns, context);
  scf::IfOp::getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(warpSpecialize->getRegions()[0],
                               std::move(patterns));
}

static LogicalResult specialize(func::FuncOp function, ConfigAttr config) {
  Block &body = function.getBody().front();
  Operation *terminator = body.getTerminator();
  SmallVector<Operation *> moved;
  // The shared memory stays the kernel's: pipelines and staging buffers.
  for (Operation &op : body.without_terminator())
    if (!isa<PipelineCreateOp, SharedBufferOp>(op))
      moved.push_back(&op);
  for (Operation &op : body.without_terminator())
    if (isa<WarpSpecializeOp>(op))
      return op.emitOpError() << "is already there: the kernel has its roles";

  OpBuilder b(terminator);
  auto specialized = WarpSpecializeOp::create(b, function.getLoc());
  b.createBlock(&specialized.getBody());
  Block *producer = nullptr, *consumer = nullptr;
  for (RoleAttr role : config.getRoleList()) {
    if (role.getKind() != RoleKind::producer &&
        role.getKind() != RoleKind::consumer)
      return function.emitOpError()
             << "has a plan with a " << stringifyRoleKind(role.getKind())
             << " role: fa4-warp-specialize forms producer and consumer "
                "roles (sm_90a plans)";
    OpBuilder::InsertionGuard guard(b);
    auto op = RoleOp::create(b, function.getLoc(), role.getKind(),
                             role.getWarps(), role.getRegs());
    Block *block = b.createBlock(&op.getBody());
    (role.getKind() == RoleKind::producer ? producer : consumer) = block;
    b.setInsertionPointToEnd(block);
    IRMapping mapping;
    for (Operation *op : moved)
      b.clone(*op, mapping);
  }
  if (!producer || !consumer)
    return function.emitOpError()
           << "has a plan without a producer and a consumer role";
  for (Operation *op : llvm::reverse(moved)) {
    op->dropAllUses();
    op->erase();
  }

  // The producer keeps its acquires and loads and what they need.
  Liveness liveness(producer);
  producer->walk([&](Operation *op) {
    if (isProducerOp(op))
      liveness.markOp(op);
  });
  yieldDeadUnchanged(producer, liveness);
  eraseUnless(producer, [&](Operation *op) { return liveness.isLive(op); });

  // The consumer keeps everything else; the producer's states, carried
  // unchanged, go with canonicalization.
  consumer->walk([&](scf::ForOp loop) {
    Operation *yield = loop.getBody()->getTerminator();
    for (BlockArgument arg : loop.getRegionIterArgs()) {
      auto start = loop.getInitArgs()[arg.getArgNumber() - 1]
                       .getDefiningOp<PipelineStartOp>();
      if (start && start.getSide() == PipelineSide::producer)
        yield->setOperand(arg.getArgNumber() - 1, arg);
    }
  });
  eraseUnless(consumer, [](Operation *op) {
    if (isProducerOp(op))
      return false;
    if (auto step = dyn_cast<PipelineStepOp>(op))
      return !step->use_empty();
    return true;
  });
  return cleanUp(specialized);
}

/// A kernel that loads nothing by TMA (it computes, or loads through
/// pointers, and stores): its plan's consumer warps alone run it, in one
/// role with the registers they start with, so that it has a thread count
/// and its warpgroups their index.
static LogicalResult consumersOnly(func::FuncOp function, ConfigAttr config) {
  Block &body = function.getBody().front();
  for (Operation &op : body.without_terminator())
    if (isa<WarpSpecializeOp>(op))
      return success();
  RoleAttr consumer;
  for (RoleAttr role : config.getRoleList())
    if (role.getKind() == RoleKind::consumer)
      consumer = role;
  if (!consumer)
    return function.emitOpError() << "has a plan without a consumer role";
  SmallVector<Operation *> moved;
  for (Operation &op : body.without_terminator())
    if (!isa<SharedBufferOp>(op))
      moved.push_back(&op);
  OpBuilder b(body.getTerminator());
  auto specialized = WarpSpecializeOp::create(b, function.getLoc());
  b.createBlock(&specialized.getBody());
  int64_t warps = consumer.getWarps();
  auto role = RoleOp::create(b, function.getLoc(), RoleKind::consumer, warps,
                             getEntryRegisters(warps * 32, config));
  Block *block = b.createBlock(&role.getBody());
  for (Operation *op : moved)
    op->moveBefore(block, block->end());
  return success();
}

namespace {
struct WarpSpecializePass
    : public mlir::fa4::impl::FA4WarpSpecializeBase<WarpSpecializePass> {
  void runOnOperation() override {
    auto specializeKernel = [](func::FuncOp function, ConfigAttr config) {
      bool pipelined = false;
      function.walk([&](ProducerLoadOp) { pipelined = true; });
      if (pipelined && config.getCtasPerSm() != 1)
        return LogicalResult(
            function.emitOpError()
            << "loads by TMA, so its producer warp and consumer warpgroups "
               "share an SM's registers through setmaxnreg, but the plan "
               "asks for "
            << config.getCtasPerSm()
            << " CTAs an SM (ctas-per-sm): such a kernel runs one");
      return pipelined ? specialize(function, config)
                       : consumersOnly(function, config);
    };
    if (failed(mlir::fa4::detail::forEachPlannedKernel(getOperation(), specializeKernel)))
      signalPassFailure();
  }
};
} // namespace

//===- Persistent.cpp - CTAs that loop over tiles -------------------------===//
//
// The `fa4-persistent` pass: each role of a warp-specialized kernel whose
// plan says `persistent` runs its body in a loop over the tiles of the
// logical grid, 2-d or 3-d, with the pipeline states carried from tile to
// tile, so that the producer runs ahead into the next tile while the
// consumers finish the current one.
//
// The schedule is static and folded: the tiles of one (y, z) pair up as
// x = k and x = X - 1 - k, and CTA c takes pairs c, c + P, ... (P CTAs),
// each pair's x = k first. A program whose tiles grow or shrink with x (a
// causal attention's query blocks) gives every pair the same work, so the
// CTAs finish together; with fewer pairs than CTAs each tile is its own
// pair, so that no CTA is left idle. The pairs are numbered x first, so
// that the tiles running at once share a head's K and V in L2, or, with
// `interleave_heads`, (y, z) first, so that each CTA's pairs spread over x.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "PlannedKernels.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "fa4/Runtime/LaunchRule.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4PERSISTENT
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

/// The pipeline a state belongs to: the one its start or step names, seen
/// through the loops and conditionals that carry it. Null when unknown.
static Value pipelineOf(Value state) {
  if (auto arg = dyn_cast<BlockArgument>(state)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return nullptr;
    return pipelineOf(loop.getInitArgs()[arg.getArgNumber() - 1]);
  }
  Operation *def = state.getDefiningOp();
  unsigned index = cast<OpResult>(state).getResultNumber();
  if (auto start = dyn_cast<PipelineStartOp>(def))
    return start.getPipeline();
  if (auto step = dyn_cast<PipelineStepOp>(def))
    return step.getPipeline();
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return pipelineOf(loop.getInitArgs()[index]);
  if (auto branch = dyn_cast<scf::IfOp>(def))
    return pipelineOf(branch.thenYield().getOperand(index));
  return nullptr;
}

/// The op of `block` that is or encloses `op`.
static Operation *topLevel(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

/// The last op of `block` that uses `value` or a buffer a consumer wait on
/// it returned, at any depth. Null when nothing does.
static Operation *lastUse(Block *block, Value value) {
  Operation *last = nullptr;
  auto note = [&](Operation *user) {
    Operation *top = topLevel(block, user);
    if (top && (!last || last->isBeforeInBlock(top)))
      last = top;
  };
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      note(user);
      // Buffers, and views of them, count as uses of the stage.
      if (isa<ConsumerWaitOp>(user) || (v != value && user->getNumResults()))
        for (Value result : user->getResults())
          if (isa<MemRefType>(result.getType()))
            worklist.push_back(result);
    }
  }
  return last;
}

/// Wraps the body of `role` in the tile loop over the logical grid `grid`
/// (x, y and, for a program that uses it, z); with `interleave` the pairs
/// are numbered with (y, z) varying fastest.
static LogicalResult makePersistent(RoleOp role, ArrayRef<Value> grid,
                                    bool interleave) {
  Block &body = role.getBody().front();
  Location loc = role.getLoc();
  bool producer = role.getKind() == RoleKind::producer;

  // The starts go before the loop; their states become carried values.
  SmallVector<PipelineStartOp> starts;
  for (auto start :
       llvm::make_early_inc_range(body.getOps<PipelineStartOp>())) {
    start->moveBefore(&body, body.begin());
    starts.push_back(start);
  }
  // The ops of one tile: everything after the starts but the waits for the
  // TMA stores, which end the role after the last tile.
  Block::iterator first = body.begin();
  std::advance(first, starts.size());
  SmallVector<Operation *> tileOps, endOps;
  for (Operation &op : llvm::make_range(first, body.end()))
    (isa<TmaStoreWaitOp>(op) ? endOps : tileOps).push_back(&op);

  // The schedule's arithmetic in 32 bits: a 64-bit division is a long
  // call. The tile counts fit: 2^31 tiles of 128 rows of even a 16-wide
  // 16-bit Q would be 8 TiB.
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  Type i32 = b.getI32Type();
  auto narrow = [&](OpBuilder &ob, Value index) -> Value {
    return arith::IndexCastUIOp::create(ob, loc, i32, index);
  };
  auto widen = [&](OpBuilder &ob, Value value) -> Value {
    return arith::IndexCastUIOp::create(ob, loc, ob.getIndexType(), value);
  };
  auto constant = [&](OpBuilder &ob, int64_t value) -> Value {
    return arith::ConstantIntOp::create(ob, loc, value, 32);
  };
  Value cta =
      narrow(b, tile::ProgramIdOp::create(b, loc, b.getIndexType(), 0));
  Value ctas =
      narrow(b, tile::NumProgramsOp::create(b, loc, b.getIndexType(), 0));
  Value x = narrow(b, grid[0]);
  Value others = narrow(b, grid[1]);
  for (Value extent : grid.drop_front(2))
    others = arith::MulIOp::create(b, loc, others, narrow(b, extent));
  // Fold when there are at least as many pairs as CTAs.
  Value one = constant(b, 1);
  Value halfX = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, x, one), one);
  Value fold = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::uge,
      arith::MulIOp::create(b, loc, halfX, others), ctas);
  Value slots = arith::SelectOp::create(b, loc, fold, halfX, x);
  Value pairs = arith::MulIOp::create(b, loc, slots, others);
  SmallVector<Value> inits = llvm::map_to_vector(
      starts, [](PipelineStartOp start) -> Value { return start.getState(); });
  auto outer = scf::ForOp::create(b, loc, cta, pairs, ctas, inits);
  outer->setAttr(kTileLoopAttrName, b.getUnitAttr());
  Block *outerBody = outer.getBody();
  if (!outerBody->empty())
    outerBody->getTerminator()->erase();
  // Pair v: slot k = v mod slots of (y, z) = v / slots (interleaved: (y,
  // z) = v mod Y·Z of slot k = v / Y·Z); its tiles x = k and, folded,
  // x = X - 1 - k when that is another.
  OpBuilder ob = OpBuilder::atBlockEnd(outerBody);
  Value v = outer.getInductionVar();
  Value inner = interleave ? others : slots;
  Value low = arith::RemUIOp::create(ob, loc, v, inner);
  Value high = arith::DivUIOp::create(ob, loc, v, inner);
  Value k = interleave ? high : low;
  Value rest = interleave ? low : high;
  Value mirror = arith::SubIOp::create(
      ob, loc, arith::SubIOp::create(ob, loc, x, one), k);
  Value second = arith::AndIOp::create(
      ob, loc, fold,
      arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ne, mirror, k));
  Value count = arith::SelectOp::create(ob, loc, second, constant(ob, 2), one);
  auto loop = scf::ForOp::create(ob, loc, constant(ob, 0), count, one,
                                 outer.getRegionIterArgs());
  scf::YieldOp::create(ob, loc, loop.getResults());
  Block *loopBody = loop.getBody();
  // An empty loop body has its terminator only when it carries nothing.
  if (!loopBody->empty())
    loopBody->getTerminator()->erase();
  for (Operation *op : tileOps)
    op->moveBefore(loopBody, loopBody->end());
  for (auto [start, arg] : llvm::zip(starts, loop.getRegionIterArgs()))
    start.getState().replaceUsesWithIf(arg, [&](OpOperand &use) {
      return loop->isProperAncestor(use.getOwner());
    });

  // The logical program ids and grid: the pair's first tile is x = k, its
  // second x = X - 1 - k; (y, z) = (rest mod Y, rest / Y) of a 3-d grid.
  OpBuilder lb = OpBuilder::atBlockBegin(loopBody);
  Value firstOfPair = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq,
                                      loop.getInductionVar(), constant(lb, 0));
  SmallVector<Value> ids = {
      widen(lb, arith::SelectOp::create(lb, loc, firstOfPair, k, mirror))};
  if (grid.size() == 3) {
    Value y = narrow(lb, grid[1]);
    ids.push_back(widen(lb, arith::RemUIOp::create(lb, loc, rest, y)));
    rest = arith::DivUIOp::create(lb, loc, rest, y);
  }
  ids.push_back(widen(lb, rest));
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (auto id = dyn_cast<tile::ProgramIdOp>(op)) {
      if (id.getDim() >= grid.size())
        return WalkResult::interrupt();
      id.replaceAllUsesWith(ids[id.getDim()]);
      id->erase();
    } else if (auto count = dyn_cast<tile::NumProgramsOp>(op)) {
      if (count.getDim() >= grid.size())
        return WalkResult::interrupt();
      count.replaceAllUsesWith(grid[count.getDim()]);
      count->erase();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return role.emitOpError() << "uses a grid dimension past the "
                              << grid.size() << " of its logical grid";

  // Each pipeline's state after one tile. One the tile never steps (a Q
  // tile, loaded once) is stepped after its last use, and released first by
  // the consumer: the producer waits for that before it loads the next
  // tile's.
  SmallVector<Value> yields;
  for (auto [start, arg] : llvm::zip(starts, loop.getRegionIterArgs())) {
    Value pipeline = start.getPipeline();
    Value last = arg;
    for (Operation &op : *loopBody)
      for (Value result : op.getResults())
        if (isa<PipelineStateType>(result.getType()) &&
            pipelineOf(result) == pipeline)
          last = result;
    if (last == arg) {
      Operation *use = lastUse(loopBody, arg);
      OpBuilder sb(loopBody, loopBody->end());
      if (use)
        sb.setInsertionPointAfter(use);
      if (!producer) {
        auto type = cast<PipelineType>(pipeline.getType());
        for (int64_t qk = 0; qk < type.getQkStages(); ++qk)
          ConsumerReleaseOp::create(sb, loc, pipeline, arg, qk);
      }
      last = PipelineStepOp::create(sb, loc, pipeline, arg);
    }
    yields.push_back(last);
  }
  OpBuilder yb = OpBuilder::atBlockEnd(loopBody);
  scf::YieldOp::create(yb, loc, yields);
  for (Operation *op : endOps)
    op->moveAfter(outer);
  return success();
}

namespace {
struct PersistentPass
    : public mlir::fa4::impl::FA4PersistentBase<PersistentPass> {
  void runOnOperation() override {
    if (failed(mlir::fa4::detail::forEachPlannedKernel(
            getOperation(),
            [&](func::FuncOp function, ConfigAttr config) -> LogicalResult {
              if (!config.getPersistent())
                return success();
              SmallVector<RoleOp> roles;
              function.walk([&](RoleOp role) { roles.push_back(role); });
              if (roles.empty())
                return function.emitOpError()
                       << "is planned persistent but has no warp roles; "
                          "fa4-persistent runs after fa4-warp-specialize";
              // The logical grid, as trailing arguments: x and y, and z
              // for a program that uses it. With a launch description they
              // take the values of its grid rules, and the launch grid
              // becomes one CTA per SM, at most one per tile.
              MLIRContext *context = function.getContext();
              bool usesZ = false;
              function.walk([&](Operation *op) {
                if (auto id = dyn_cast<tile::ProgramIdOp>(op))
                  usesZ |= id.getDim() == 2;
                if (auto count = dyn_cast<tile::NumProgramsOp>(op))
                  usesZ |= count.getDim() == 2;
              });
              unsigned dims = usesZ ? 3 : 2;
              Type index = IndexType::get(context);
              unsigned n = function.getNumArguments();
              SmallVector<std::string> rules;
              if (auto grid = function->getAttrOfType<StringAttr>(kGridAttrName)) {
                for (std::string_view rule :
                     ::fa4::runtime::splitRules(grid.getValue()))
                  rules.push_back(StringRef(rule).trim().str());
                if (rules.size() != 3 || (!usesZ && rules[2] != "1"))
                  return function.emitOpError()
                         << "is planned persistent but its grid '"
                         << grid.getValue()
                         << "' is not of the form 'x, y, 1' of a program "
                            "that does not use the grid's z dimension";
              }
              const char *names[] = {"grid_x", "grid_y", "grid_z"};
              for (unsigned i = 0; i < dims; ++i) {
                StringRef name = names[i];
                SmallVector<NamedAttribute> attrs = {
                    NamedAttribute(StringAttr::get(context, kNameArgAttrName),
                                   StringAttr::get(context, name))};
                if (!rules.empty())
                  attrs.push_back(NamedAttribute(
                      StringAttr::get(context, kValueArgAttrName),
                      StringAttr::get(context, rules[i])));
                if (failed(function.insertArgument(
                        function.getNumArguments(), index,
                        DictionaryAttr::get(context, attrs),
                        function.getLoc())))
                  return failure();
              }
              if (!rules.empty())
                function->setAttr(
                    kGridAttrName,
                    StringAttr::get(context,
                                    usesZ ? "min(num_sms, grid_x * grid_y * "
                                            "grid_z), 1, 1"
                                          : "min(num_sms, grid_x * grid_y), "
                                            "1, 1"));
              SmallVector<Value> grid;
              for (unsigned i = 0; i < dims; ++i)
                grid.push_back(function.getArgument(n + i));
              for (RoleOp role : roles)
                if (failed(makePersistent(role, grid,
                                          config.getInterleaveHeads())))
                  return failure();
              return success();
            })))
      signalPassFailure();
  }
};
} // namespace

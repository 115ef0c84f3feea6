//===- Persistent.cpp - CTAs that loop over tiles -------------------------===//
//
// The `fa4-persistent` pass: each role of a warp-specialized kernel whose
// plan says `persistent` runs its body in a loop over the tiles of the
// logical grid, 2-d or 3-d, with the pipeline states carried from tile to
// tile, so that the producer runs ahead into the next tile while the
// consumers finish the current one.
//
// The static schedule is folded: the tiles of one (y, z) pair up as
// x = k and x = X - 1 - k, and CTA c takes pairs c, c + P, ... (P CTAs),
// each pair's x = k first. A program whose tiles grow or shrink with x (a
// causal attention's query blocks) gives every pair the same work, so the
// CTAs finish together; with fewer pairs than CTAs each tile is its own
// pair, so that no CTA is left idle. The pairs are numbered x first, so
// that the tiles running at once share a head's K and V in L2, or, with
// `interleave_heads`, (y, z) first, so that each CTA's pairs spread over x.
//
// The dynamic schedule (`dynamic_schedule`) balances work that no fixed
// order does (a window's short first blocks, packed sequences): the
// producer claims each next tile from a counter in global memory as its CTA
// comes free and hands the tile's coordinates to the other roles through a
// schedule pipeline; the tiles are numbered in groups of (y, z) pairs whose
// K and V fit in L2 (the program's `fa4.grid_group`), the longest x first.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "PlannedKernels.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "fa4/KernelFormat/LaunchRule.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
    Operation *parent = arg.getOwner()->getParentOp();
    unsigned number = arg.getArgNumber();
    if (auto loop = dyn_cast<scf::WhileOp>(parent))
      return pipelineOf(arg.getOwner() == loop.getBeforeBody()
                            ? loop.getInits()[number]
                            : loop.getConditionOp().getArgs()[number]);
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop || number == 0)
      return nullptr;
    return pipelineOf(loop.getInitArgs()[number - 1]);
  }
  Operation *def = state.getDefiningOp();
  unsigned index = cast<OpResult>(state).getResultNumber();
  if (auto start = dyn_cast<PipelineStartOp>(def))
    return start.getPipeline();
  if (auto step = dyn_cast<PipelineStepOp>(def))
    return step.getPipeline();
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return pipelineOf(loop.getInitArgs()[index]);
  if (auto loop = dyn_cast<scf::WhileOp>(def))
    return pipelineOf(loop.getConditionOp().getArgs()[index]);
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

/// The parts of a role that fa4-persistent rearranges: the pipeline starts
/// (moved to the top, their states carried from tile to tile), the ops of
/// one tile, and the waits for the TMA stores, which end the role after the
/// last tile.
struct RoleParts {
  SmallVector<PipelineStartOp> starts;
  SmallVector<Operation *> tileOps, endOps;
};

static RoleParts splitRole(RoleOp role) {
  Block &body = role.getBody().front();
  RoleParts parts;
  for (auto start :
       llvm::make_early_inc_range(body.getOps<PipelineStartOp>())) {
    start->moveBefore(&body, body.begin());
    parts.starts.push_back(start);
  }
  Block::iterator first = body.begin();
  std::advance(first, parts.starts.size());
  for (Operation &op : llvm::make_range(first, body.end()))
    (isa<TmaStoreWaitOp>(op) ? parts.endOps : parts.tileOps).push_back(&op);
  return parts;
}

/// Moves the tile's ops to the end of `loopBody`, whose block arguments
/// from `stateArgs` on are the carried pipeline states, and binds the
/// program ids to `ids` and the grid sizes to `grid`. Returns each
/// pipeline's state after the tile. One the tile never steps (a Q tile,
/// loaded once) is stepped after its last use, and released first by the
/// consumer: the producer waits for that before it loads the next tile's.
/// When that last use is a TMA store staged in the stage, the release
/// waits for the store to have read it.
static FailureOr<SmallVector<Value>>
fillTile(RoleOp role, RoleParts &parts, Block *loopBody, unsigned stateArgs,
         ArrayRef<Value> ids, ArrayRef<Value> grid) {
  Location loc = role.getLoc();
  for (Operation *op : parts.tileOps)
    op->moveBefore(loopBody, loopBody->end());
  ValueRange args = loopBody->getArguments().drop_front(stateArgs);
  for (auto [start, arg] : llvm::zip(parts.starts, args))
    start.getState().replaceUsesWithIf(arg, [&](OpOperand &use) {
      return loopBody->getParentOp()->isProperAncestor(use.getOwner());
    });

  WalkResult walk = loopBody->walk([&](Operation *op) {
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

  SmallVector<Value> yields;
  for (auto [start, arg] : llvm::zip(parts.starts, args)) {
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
      if (role.getKind() != RoleKind::producer) {
        // A stage that staged a TMA store (`o_in_q`) is free once the
        // store has read it.
        auto stagesStore = [&](TmaStoreOp store) {
          auto wait = store.getBuffer().getDefiningOp<ConsumerWaitOp>();
          return wait && wait.getPipeline() == pipeline
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        };
        if (use && use->walk(stagesStore).wasInterrupted())
          TmaStoreWaitOp::create(sb, loc, /*read=*/true);
        auto type = cast<PipelineType>(pipeline.getType());
        for (int64_t qk = 0; qk < type.getQkStages(); ++qk)
          ConsumerReleaseOp::create(sb, loc, pipeline, arg, qk);
      }
      last = PipelineStepOp::create(sb, loc, pipeline, arg);
    }
    yields.push_back(last);
  }
  return yields;
}

/// The schedule's arithmetic is in 32 bits: a 64-bit division is a long
/// call. The tile counts fit: 2^31 tiles of 128 rows of even a 16-wide
/// 16-bit Q would be 8 TiB.
struct Int32Builder {
  OpBuilder &b;
  Location loc;
  Value narrow(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  }
  Value widen(Value value) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), value);
  }
  Value constant(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 32);
  }
};

/// The tiles of the logical grid other than x, Y·Z, in i32.
static Value otherTiles(Int32Builder &ib, ArrayRef<Value> grid) {
  Value others = ib.narrow(grid[1]);
  for (Value extent : grid.drop_front(2))
    others = arith::MulIOp::create(ib.b, ib.loc, others, ib.narrow(extent));
  return others;
}

/// The program ids (index) of tile (x, rest) where rest numbers (y, z) with
/// y varying fastest, both i32.
static SmallVector<Value> tileIds(Int32Builder &ib, ArrayRef<Value> grid,
                                  Value x, Value rest) {
  SmallVector<Value> ids = {ib.widen(x)};
  if (grid.size() == 3) {
    Value y = ib.narrow(grid[1]);
    ids.push_back(ib.widen(arith::RemUIOp::create(ib.b, ib.loc, rest, y)));
    rest = arith::DivUIOp::create(ib.b, ib.loc, rest, y);
  }
  ids.push_back(ib.widen(rest));
  return ids;
}

/// Wraps the body of `role` in the static tile loop over the logical grid
/// `grid` (x, y and, for a program that uses it, z); with `interleave` the
/// pairs are numbered with (y, z) varying fastest.
static LogicalResult makeStatic(RoleOp role, ArrayRef<Value> grid,
                                bool interleave) {
  Block &body = role.getBody().front();
  Location loc = role.getLoc();
  RoleParts parts = splitRole(role);

  OpBuilder b = OpBuilder::atBlockEnd(&body);
  Int32Builder ib{b, loc};
  Value cta = ib.narrow(tile::ProgramIdOp::create(b, loc, b.getIndexType(), 0));
  Value ctas =
      ib.narrow(tile::NumProgramsOp::create(b, loc, b.getIndexType(), 0));
  Value x = ib.narrow(grid[0]);
  Value others = otherTiles(ib, grid);
  // Fold when there are at least as many pairs as CTAs.
  Value one = ib.constant(1);
  Value halfX = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, x, one), one);
  Value fold =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                            arith::MulIOp::create(b, loc, halfX, others), ctas);
  Value slots = arith::SelectOp::create(b, loc, fold, halfX, x);
  Value pairs = arith::MulIOp::create(b, loc, slots, others);
  SmallVector<Value> inits =
      llvm::map_to_vector(parts.starts, [](PipelineStartOp start) -> Value {
        return start.getState();
      });
  auto outer = scf::ForOp::create(b, loc, cta, pairs, ctas, inits);
  outer->setAttr(kTileLoopAttrName, b.getUnitAttr());
  Block *outerBody = outer.getBody();
  if (!outerBody->empty())
    outerBody->getTerminator()->erase();
  // Pair v: slot k = v mod slots of (y, z) = v / slots (interleaved: (y,
  // z) = v mod Y·Z of slot k = v / Y·Z); its tiles x = k and, folded,
  // x = X - 1 - k when that is another.
  b.setInsertionPointToEnd(outerBody);
  Value v = outer.getInductionVar();
  Value inner = interleave ? others : slots;
  Value low = arith::RemUIOp::create(b, loc, v, inner);
  Value high = arith::DivUIOp::create(b, loc, v, inner);
  Value k = interleave ? high : low;
  Value rest = interleave ? low : high;
  Value mirror =
      arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, x, one), k);
  Value second = arith::AndIOp::create(
      b, loc, fold,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, mirror, k));
  Value count = arith::SelectOp::create(b, loc, second, ib.constant(2), one);
  auto loop = scf::ForOp::create(b, loc, ib.constant(0), count, one,
                                 outer.getRegionIterArgs());
  scf::YieldOp::create(b, loc, loop.getResults());
  Block *loopBody = loop.getBody();
  // An empty loop body has its terminator only when it carries nothing.
  if (!loopBody->empty())
    loopBody->getTerminator()->erase();

  // The pair's first tile is x = k, its second x = X - 1 - k.
  b.setInsertionPointToStart(loopBody);
  Value firstOfPair = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, loop.getInductionVar(), ib.constant(0));
  Value tileX = arith::SelectOp::create(b, loc, firstOfPair, k, mirror);
  SmallVector<Value> ids = tileIds(ib, grid, tileX, rest);
  FailureOr<SmallVector<Value>> yields =
      fillTile(role, parts, loopBody, /*stateArgs=*/1, ids, grid);
  if (failed(yields))
    return failure();
  b.setInsertionPointToEnd(loopBody);
  scf::YieldOp::create(b, loc, *yields);
  for (Operation *op : parts.endOps)
    op->moveAfter(outer);
  return success();
}

/// What the roles of a dynamically scheduled kernel share: the schedule
/// pipeline, the tile counter and the size of a group of (y, z) pairs
/// (index; null for 1).
struct DynamicSchedule {
  Value pipeline, counter, group;
};

/// Wraps the body of `role` in a loop over the tiles the CTA takes as they
/// come free. Tile t of the grid is, in groups of G (y, z) pairs, the
/// pairs fastest: group g = t / (G·X) holds the pairs gG .. gG + size - 1
/// (size G, or what is left for the last), and t's place r in it is
/// (x, pair) = (r / size, gG + r mod size). The producer starts with tile
/// `cta`, puts each tile's (x, pair) into the schedule pipeline before it
/// loads the tile, and claims the next (fa4.claim_tile) after it (an atomic
/// issued at the tile's start and read at its end measured 1-10 % slower on
/// the H200, bench/RESULTS.md); past the last tile it puts x = X, which
/// stops the other roles. They take the tiles from the pipeline and hand
/// each slot back at once.
static LogicalResult makeDynamic(RoleOp role, ArrayRef<Value> grid,
                                 const DynamicSchedule &schedule) {
  Block &body = role.getBody().front();
  Location loc = role.getLoc();
  bool producer = role.getKind() == RoleKind::producer;
  RoleParts parts = splitRole(role);

  OpBuilder b = OpBuilder::atBlockEnd(&body);
  Int32Builder ib{b, loc};
  Value x = ib.narrow(grid[0]);
  auto side = producer ? PipelineSide::producer : PipelineSide::consumer;
  Value scheduleStart =
      PipelineStartOp::create(b, loc, schedule.pipeline, side).getState();
  Type i32 = b.getI32Type();

  // Carried: the producer's tile index, the pipeline states, the schedule's
  // state. The others' loops also pass the tile's (x, pair) on.
  SmallVector<Value> inits;
  Value others, tiles, group, span;
  if (producer) {
    others = otherTiles(ib, grid);
    tiles = arith::MulIOp::create(b, loc, x, others);
    // G in [1, Y·Z].
    group = schedule.group ? ib.narrow(schedule.group) : ib.constant(1);
    group = arith::MaxUIOp::create(
        b, loc, arith::MinUIOp::create(b, loc, group, others), ib.constant(1));
    span = arith::MulIOp::create(b, loc, group, x);
    inits.push_back(
        ib.narrow(tile::ProgramIdOp::create(b, loc, b.getIndexType(), 0)));
  }
  for (PipelineStartOp start : parts.starts)
    inits.push_back(start.getState());
  inits.push_back(scheduleStart);
  SmallVector<Type> passed =
      llvm::map_to_vector(inits, [](Value value) { return value.getType(); });
  if (!producer)
    passed.insert(passed.begin(), {i32, i32});
  auto loop = scf::WhileOp::create(
      b, loc, passed, inits,
      [&](OpBuilder &bb, Location, ValueRange args) {
        SmallVector<Value> forward(args);
        Value more;
        if (producer) {
          more = arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::ult,
                                       args.front(), tiles);
        } else {
          Value state = args.back();
          auto wait = ConsumerWaitOp::create(bb, loc, TypeRange{i32, i32},
                                             schedule.pipeline, state, 0);
          ConsumerReleaseOp::create(bb, loc, schedule.pipeline, state, 0);
          forward.back() =
              PipelineStepOp::create(bb, loc, schedule.pipeline, state);
          forward.insert(forward.begin(), wait.getResults().begin(),
                         wait.getResults().end());
          more = arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::ult,
                                       wait.getResult(0), x);
        }
        scf::ConditionOp::create(bb, loc, more, forward);
      },
      [&](OpBuilder &, Location, ValueRange) {});
  loop->setAttr(kTileLoopAttrName, b.getUnitAttr());
  Block *loopBody = loop.getAfterBody();
  Value scheduleState = loopBody->getArguments().back();

  b.setInsertionPointToStart(loopBody);
  Value tileX, rest;
  if (producer) {
    Value tile = loopBody->getArgument(0);
    Value g = arith::DivUIOp::create(b, loc, tile, span);
    Value first = arith::MulIOp::create(b, loc, g, group);
    Value place = arith::SubIOp::create(b, loc, tile,
                                        arith::MulIOp::create(b, loc, g, span));
    Value size = arith::MinUIOp::create(
        b, loc, group, arith::SubIOp::create(b, loc, others, first));
    tileX = arith::DivUIOp::create(b, loc, place, size);
    rest = arith::AddIOp::create(
        b, loc, first,
        arith::SubIOp::create(b, loc, place,
                              arith::MulIOp::create(b, loc, tileX, size)));
    ProducerAcquireOp::create(b, loc, schedule.pipeline, scheduleState, 0);
    ProducerPutOp::create(b, loc, schedule.pipeline, scheduleState,
                          ValueRange{tileX, rest});
    scheduleState =
        PipelineStepOp::create(b, loc, schedule.pipeline, scheduleState);
  } else {
    tileX = loopBody->getArgument(0);
    rest = loopBody->getArgument(1);
  }
  SmallVector<Value> ids = tileIds(ib, grid, tileX, rest);
  FailureOr<SmallVector<Value>> yields = fillTile(
      role, parts, loopBody, /*stateArgs=*/producer ? 1 : 2, ids, grid);
  if (failed(yields))
    return failure();
  b.setInsertionPointToEnd(loopBody);
  SmallVector<Value> results;
  if (producer) {
    Value ctas =
        ib.narrow(tile::NumProgramsOp::create(b, loc, b.getIndexType(), 0));
    results.push_back(
        ClaimTileOp::create(b, loc, schedule.counter, ctas, tiles));
  }
  llvm::append_range(results, *yields);
  results.push_back(scheduleState);
  scf::YieldOp::create(b, loc, results);

  // The producer's last put, x = X, stops the others.
  b.setInsertionPointAfter(loop);
  if (producer) {
    Value state = loop.getResults().back();
    ProducerAcquireOp::create(b, loc, schedule.pipeline, state, 0);
    ProducerPutOp::create(b, loc, schedule.pipeline, state,
                          ValueRange{x, ib.constant(0)});
  }
  for (Operation *op : llvm::reverse(parts.endOps))
    op->moveAfter(loop);
  return success();
}

namespace {
struct PersistentPass
    : public mlir::fa4::impl::FA4PersistentBase<PersistentPass> {
  void runOnOperation() override {
    if (failed(mlir::fa4::detail::forEachPlannedKernel(
            getOperation(),
            [&](func::FuncOp function, ConfigAttr config) -> LogicalResult {
              // The grid group matters to a dynamic schedule only.
              auto groupRule =
                  function->getAttrOfType<StringAttr>(kGridGroupAttrName);
              function->removeAttr(kGridGroupAttrName);
              if (!config.getPersistent())
                return success();
              SmallVector<RoleOp> roles;
              function.walk([&](RoleOp role) { roles.push_back(role); });
              if (roles.empty())
                return function.emitOpError()
                       << "is planned persistent but has no warp roles; "
                          "fa4-persistent runs after fa4-warp-specialize "
                          "(docs/Rationale.md, \"Warp roles\")";
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
              auto addArgument = [&](Type type, StringRef name,
                                     ArrayRef<NamedAttribute> extra) {
                SmallVector<NamedAttribute> attrs = {
                    NamedAttribute(StringAttr::get(context, kNameArgAttrName),
                                   StringAttr::get(context, name))};
                llvm::append_range(attrs, extra);
                unsigned at = function.getNumArguments();
                if (failed(function.insertArgument(
                        at, type, DictionaryAttr::get(context, attrs),
                        function.getLoc())))
                  return Value();
                return Value(function.getArgument(at));
              };
              auto valueRule = [&](StringRef rule) {
                return NamedAttribute(
                    StringAttr::get(context, kValueArgAttrName),
                    StringAttr::get(context, rule));
              };
              const char *names[] = {"grid_x", "grid_y", "grid_z"};
              SmallVector<Value> grid;
              for (unsigned i = 0; i < dims; ++i) {
                SmallVector<NamedAttribute> value;
                if (!rules.empty())
                  value.push_back(valueRule(rules[i]));
                grid.push_back(addArgument(index, names[i], value));
                if (!grid.back())
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
              if (!config.getDynamicSchedule()) {
                for (RoleOp role : roles)
                  if (failed(
                          makeStatic(role, grid, config.getInterleaveHeads())))
                    return failure();
                return success();
              }

              // A dynamic schedule also takes the size of its groups of
              // (y, z) pairs, when the program gives a rule for it, and
              // the tile counter; its roles share a schedule pipeline that
              // every thread outside the producer releases.
              DynamicSchedule schedule;
              if (groupRule) {
                schedule.group =
                    addArgument(index, "grid_group", valueRule(groupRule));
                if (!schedule.group)
                  return failure();
              }
              schedule.counter = addArgument(
                  LLVM::LLVMPointerType::get(context, 1), "tile_counter",
                  NamedAttribute(StringAttr::get(context, kCounterArgAttrName),
                                 UnitAttr::get(context)));
              if (!schedule.counter)
                return failure();
              // One producer claims and puts; the others read.
              int64_t producers = 0, readers = 0;
              for (RoleOp role : roles) {
                if (role.getKind() == RoleKind::producer)
                  ++producers;
                else
                  readers += role.getWarps() * 32;
              }
              if (producers != 1 || readers == 0)
                return function.emitOpError()
                       << "is planned with a dynamic schedule but has "
                       << producers << " producer role(s) and " << readers
                       << " threads in other roles; one producer claims "
                          "the tiles and hands them to the others";
              auto specialize =
                  roles.front()->getParentOfType<WarpSpecializeOp>();
              OpBuilder b(specialize);
              SmallVector<Type> slots(kScheduleSlots,
                                      IntegerType::get(context, 32));
              auto type = PipelineType::get(context, PipelineKind::schedule,
                                            kSchedulePipelineStages, 1, slots);
              schedule.pipeline = PipelineCreateOp::create(
                  b, specialize.getLoc(), type, readers, IntegerAttr());
              for (RoleOp role : roles)
                if (failed(makeDynamic(role, grid, schedule)))
                  return failure();
              return success();
            })))
      signalPassFailure();
  }
};
} // namespace

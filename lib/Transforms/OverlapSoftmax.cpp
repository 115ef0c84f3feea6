//===- OverlapSoftmax.cpp - keep the tensor cores busy during softmax -----===//
//
// The `fa4-overlap-softmax` pass: FA3/FA4's consumer schedule on sm_90a. In a
// consumer loop that computes S = Q·Kᵀ, a softmax, and acc = acc·α + P·V
// with P from registers, the P·V of each key block is deferred by one
// iteration: iteration j issues S_j and then P_(j-1)·V_(j-1), runs the
// softmax of S_j while that MMA runs, and only then waits for it and
// rescales. The first iteration is peeled and the last P·V follows the loop.
// With two or more consumer warpgroups they also take turns issuing their
// MMAs, round robin ("ping-pong"): warpgroup w waits at its turn barrier
// (kTurnBarrierId + w) before its MMAs and hands the turn to warpgroup
// w + 1 (mod N) once they are issued, so that one warpgroup's softmax
// overlaps the others' MMAs.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Remarks.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4OVERLAPSOFTMAX
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

namespace {
/// The parts of a consumer loop that the schedule moves.
struct AttentionLoop {
  scf::ForOp loop;
  /// P·V: the V wait, the MMA with P in registers, its wait, the release and
  /// the step of the V state.
  ConsumerWaitOp vWait;
  MmaAsyncOp pv;
  MmaWaitOp pvWait;
  ConsumerReleaseOp vRelease;
  PipelineStepOp vStep;
  /// Positions of the accumulator and of the V state among the carried
  /// values.
  unsigned accIndex, vIndex;
  /// The wait for S, the last MMA of S, and the first op of S's group.
  MmaWaitOp sWait;
  MmaAsyncOp lastS;
  Operation *firstS;
  /// The ops that read the carried accumulator (its rescaling), in order.
  SmallVector<Operation *> rescale;
};
} // namespace

/// The pass's optimization remarks (MLIR's remark engine, off unless a
/// tool enables it: `fa4-opt --remarks-filter=fa4-overlap-softmax`).
static constexpr remark::RemarkOpts kRemarks =
    remark::RemarkOpts::name("OverlapSoftmax").category("fa4-overlap-softmax");

/// Recognizes the attention loop in `loop`, or fails. A loop with one MMA
/// whose A operand is a register tile (a P·V) that the schedule cannot take
/// says why in a missed remark at the loop (the DSL author's line); other
/// loops (a GEMM's, a backward's with two such MMAs) are left alone
/// silently.
static FailureOr<AttentionLoop> match(scf::ForOp loop) {
  AttentionLoop m;
  m.loop = loop;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto mma : body->getOps<MmaAsyncOp>()) {
    if (!isa<RankedTensorType>(mma.getA().getType()))
      continue;
    if (m.pv)
      return failure();
    m.pv = mma;
  }
  if (!m.pv || !m.pv.getAcc())
    return failure();
  auto reject = [&](const Twine &why) {
    remark::missed(loop.getLoc(), kRemarks)
        << remark::reason("the loop keeps its order: {0}", why.str());
    return failure();
  };
  if (!m.pv.getResult().hasOneUse())
    return reject(
        "P·V's product (the loop's one MMA with A in registers) has " +
        Twine(llvm::range_size(m.pv.getResult().getUses())) +
        " uses, not one wait");
  m.vWait = m.pv.getB().getDefiningOp<ConsumerWaitOp>();
  m.pvWait = dyn_cast<MmaWaitOp>(*m.pv.getResult().getUsers().begin());
  if (!m.vWait || m.vWait->getBlock() != body)
    return reject("P·V's B operand is not a stage waited for in the loop");
  if (!m.pvWait || m.pvWait.getNumResults() != 1 ||
      !m.pvWait.getResult(0).hasOneUse() ||
      *m.pvWait.getResult(0).getUsers().begin() != yield)
    return reject("P·V is not completed by a wait of its own whose result "
                  "the loop carries and nothing else reads");
  m.accIndex = m.pvWait.getResult(0).getUses().begin()->getOperandNumber();
  auto vState = dyn_cast<BlockArgument>(m.vWait.getState().front());
  if (m.vWait.getState().size() != 1 || !vState ||
      vState.getOwner() != body || vState.getArgNumber() == 0)
    return reject("the wait for P·V's B operand does not take a pipeline "
                  "state the loop carries");
  m.vIndex = vState.getArgNumber() - 1;
  for (Operation *user : vState.getUsers()) {
    if (auto release = dyn_cast<ConsumerReleaseOp>(user))
      m.vRelease = release;
    else if (auto step = dyn_cast<PipelineStepOp>(user))
      m.vStep = step;
    else if (user != m.vWait)
      return reject("the pipeline state of P·V's B operand is also used by '" +
                    user->getName().getStringRef() +
                    "' (its wait, release and step only)");
  }
  if (!m.vRelease || !m.vStep ||
      yield.getOperand(m.vIndex) != m.vStep.getResult())
    return reject("the stage of P·V's B operand is not released and stepped "
                  "in the loop, its next state carried");

  // S: the other MMAs, completed by one wait.
  for (auto wait : body->getOps<MmaWaitOp>())
    if (wait != m.pvWait) {
      if (m.sWait || wait.getAccs().size() != 1)
        return reject("the MMAs other than P·V (the schedule's S) are not "
                      "completed by one wait of one accumulator");
      m.sWait = wait;
    }
  if (!m.sWait)
    return reject("no MMA but P·V is waited for in the loop (no S)");
  m.lastS = m.sWait.getAccs().front().getDefiningOp<MmaAsyncOp>();
  if (!m.lastS || m.lastS->getBlock() != body)
    return reject("S's wait does not complete an MMA of the loop");
  for (Operation &op : *body)
    if (isa<ConsumerWaitOp, MmaAsyncOp>(op) && &op != m.vWait) {
      m.firstS = &op;
      break;
    }

  // The rescaling: every op that reads the carried accumulator, up to P·V.
  BlockArgument acc = loop.getRegionIterArgs()[m.accIndex];
  DenseSet<Operation *> rescale;
  SmallVector<Value> worklist = {acc};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == m.pv)
        continue;
      if (user->getBlock() != body || isa<scf::YieldOp>(user) ||
          !isPure(user))
        return reject("the carried accumulator reaches '" +
                      user->getName().getStringRef() +
                      "', which is not a pure op of the loop's body on its "
                      "way to P·V");
      if (rescale.insert(user).second)
        llvm::append_range(worklist, user->getResults());
    }
  }
  for (Operation &op : *body)
    if (rescale.contains(&op))
      m.rescale.push_back(&op);
  if (m.rescale.empty() || m.pv.getAcc().getDefiningOp() != m.rescale.back())
    return reject("P·V does not accumulate onto the carried accumulator "
                  "(rescaled or not)");
  return m;
}

/// The consumer warpgroups' turns: warpgroup `group` of `groups` waits at
/// its own turn barrier and hands the turn to the next one.
struct Turns {
  Value group;
  int64_t groups = 0;

  /// `OpT` on the barrier of warpgroup (group + shift) mod groups: a chain
  /// of scf.if on the warpgroup index, the last one in the else branch.
  /// Each barrier has 256 threads: the warpgroup that waits at it and the
  /// one that arrives.
  template <typename OpT>
  void emit(OpBuilder &b, Location loc, int64_t shift,
            int64_t first = 0) const {
    int64_t id = kTurnBarrierId + (first + shift) % groups;
    if (first == groups - 1) {
      OpT::create(b, loc, id, 256);
      return;
    }
    Value isThis = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, group,
        arith::ConstantIndexOp::create(b, loc, first));
    scf::IfOp::create(
        b, loc, isThis,
        [&](OpBuilder &tb, Location tloc) {
          OpT::create(tb, tloc, id, 256);
          scf::YieldOp::create(tb, tloc);
        },
        [&](OpBuilder &eb, Location eloc) {
          emit<OpT>(eb, eloc, shift, first + 1);
          scf::YieldOp::create(eb, eloc);
        });
  }
};

/// Rewrites the matched loop into the overlapped schedule.
static void schedule(AttentionLoop &m, const Turns &turns) {
  scf::ForOp loop = m.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  DenseSet<Operation *> moved = {m.vWait, m.pv, m.pvWait, m.vRelease,
                                 m.vStep};
  DenseSet<Operation *> rescale(m.rescale.begin(), m.rescale.end());
  auto sync = [&](OpBuilder &b) {
    if (turns.groups > 1)
      turns.emit<NamedBarrierSyncOp>(b, loc, 0);
  };
  auto arrive = [&](OpBuilder &b) {
    if (turns.groups > 1)
      turns.emit<NamedBarrierArriveOp>(b, loc, 1);
  };

  OpBuilder b(loop);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                    loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), any,
                                 /*withElseRegion=*/true);
  OpBuilder eb = guard.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, loop.getInitArgs());

  // The first iteration, without its P·V.
  OpBuilder pb = guard.getThenBodyBuilder();
  IRMapping first;
  first.map(loop.getInductionVar(), loop.getLowerBound());
  first.map(loop.getRegionIterArgs(), loop.getInitArgs());
  for (Operation &op : body->without_terminator()) {
    if (moved.contains(&op))
      continue;
    if (&op == m.firstS)
      sync(pb);
    pb.clone(op, first);
    if (&op == m.lastS)
      arrive(pb);
  }

  // Iterations 1 .. n-1: S_j, then P_(j-1)·V_(j-1); softmax_j; then the
  // wait for P·V and the rescaling by α_j. The carried accumulator is the
  // rescaled one, before the pending P·V; P_(j-1) rides along.
  SmallVector<Value> inits;
  for (auto [i, value] : llvm::enumerate(yield.getOperands()))
    inits.push_back(i == m.accIndex  ? first.lookup(m.pv.getAcc())
                    : i == m.vIndex ? loop.getInitArgs()[i]
                                    : first.lookupOrDefault(value));
  Value p0 = first.lookup(m.pv.getA());
  inits.push_back(p0);
  Value start = arith::AddIOp::create(pb, loc, loop.getLowerBound(),
                                      loop.getStep());
  auto steady = scf::ForOp::create(pb, loc, start, loop.getUpperBound(),
                                   loop.getStep(), inits);
  Block *steadyBody = steady.getBody();
  OpBuilder lb = OpBuilder::atBlockBegin(steadyBody);
  IRMapping next;
  next.map(loop.getInductionVar(), steady.getInductionVar());
  next.map(loop.getRegionIterArgs(),
           steady.getRegionIterArgs().drop_back());
  Value pPrev = steady.getRegionIterArgs().back();
  Value accPrev = steady.getRegionIterArgs()[m.accIndex];
  Value vState = steady.getRegionIterArgs()[m.vIndex];
  Value pv;
  for (Operation &op : body->without_terminator()) {
    if (moved.contains(&op) || rescale.contains(&op))
      continue;
    if (&op == m.firstS)
      sync(lb);
    if (&op == m.sWait.getOperation()) {
      Value v = ConsumerWaitOp::create(lb, loc,
                                       TypeRange{m.vWait->getResultTypes()},
                                 m.vWait.getPipeline(), vState,
                                 m.vWait.getQk())
              .getResult(0);
      pv = MmaAsyncOp::create(lb, loc, m.pv.getType(), pPrev, v, accPrev,
                              m.pv.getBMnMajorAttr());
      arrive(lb);
      auto sWait = cast<MmaWaitOp>(lb.clone(op, next));
      sWait.setPending(1);
      continue;
    }
    lb.clone(op, next);
  }
  Value done = MmaWaitOp::create(lb, loc, TypeRange{m.pv.getType()},
                                 ValueRange{pv}, 0)
                   .getResult(0);
  ConsumerReleaseOp::create(lb, loc, m.vRelease.getPipeline(), vState,
                            m.vRelease.getQk());
  Value vNext = PipelineStepOp::create(lb, loc, m.vStep.getPipeline(), vState);
  next.map(loop.getRegionIterArgs()[m.accIndex], done);
  for (Operation *op : m.rescale)
    lb.clone(*op, next);
  SmallVector<Value> yields;
  for (auto [i, value] : llvm::enumerate(yield.getOperands()))
    yields.push_back(i == m.accIndex  ? next.lookup(m.pv.getAcc())
                     : i == m.vIndex ? vNext
                                     : next.lookupOrDefault(value));
  yields.push_back(next.lookup(m.pv.getA()));
  scf::YieldOp::create(lb, loc, yields);

  // The last P·V.
  ValueRange last = steady.getResults();
  Value vLast = last[m.vIndex];
  Value v = ConsumerWaitOp::create(pb, loc, TypeRange{m.vWait->getResultTypes()},
                                   m.vWait.getPipeline(), vLast,
                                   m.vWait.getQk())
                .getResult(0);
  Value accLast = MmaAsyncOp::create(pb, loc, m.pv.getType(), last.back(), v,
                                     last[m.accIndex], m.pv.getBMnMajorAttr());
  accLast = MmaWaitOp::create(pb, loc, TypeRange{m.pv.getType()},
                              ValueRange{accLast}, 0)
                .getResult(0);
  ConsumerReleaseOp::create(pb, loc, m.vRelease.getPipeline(), vLast,
                            m.vRelease.getQk());
  Value vEnd = PipelineStepOp::create(pb, loc, m.vStep.getPipeline(), vLast);
  SmallVector<Value> results(last.drop_back());
  results[m.accIndex] = accLast;
  results[m.vIndex] = vEnd;
  scf::YieldOp::create(pb, loc, results);

  loop.replaceAllUsesWith(guard.getResults());
  loop.erase();
}

namespace {
struct OverlapSoftmaxPass
    : public mlir::fa4::impl::FA4OverlapSoftmaxBase<OverlapSoftmaxPass> {
  void runOnOperation() override {
    getOperation().walk([&](RoleOp role) {
      if (role.getKind() != RoleKind::consumer)
        return;
      SmallVector<AttentionLoop> loops;
      role.walk([&](scf::ForOp loop) {
        if (FailureOr<AttentionLoop> m = match(loop); succeeded(m))
          loops.push_back(*m);
      });
      if (loops.empty())
        return;
      // The consumer warpgroups take turns; one has nobody to wait for.
      // Warpgroup 0 issues first: the last warpgroup hands it the first
      // turn, once, before the role's first op that holds an attention
      // loop. Each turn taken hands the next one over, so the turns stay in
      // step through any number of loops (the tiles of a persistent
      // kernel), which all warpgroups run alike.
      Turns turns;
      turns.groups = role.getWarps() / 4;
      if (turns.groups > 1) {
        Block &body = role.getBody().front();
        OpBuilder b = OpBuilder::atBlockBegin(&body);
        Location loc = role.getLoc();
        turns.group = WarpgroupIdOp::create(b, loc);
        b.setInsertionPoint(body.findAncestorOpInBlock(*loops.front().loop));
        Value isLast = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, turns.group,
            arith::ConstantIndexOp::create(b, loc, turns.groups - 1));
        scf::IfOp::create(b, loc, isLast, [&](OpBuilder &tb, Location tloc) {
          NamedBarrierArriveOp::create(tb, tloc, kTurnBarrierId, 256);
          scf::YieldOp::create(tb, tloc);
        });
      }
      for (AttentionLoop &m : loops) {
        remark::passed(m.loop.getLoc(), kRemarks) << remark::reason(
            "P·V of each key block issued with the next block's S and waited "
            "for after its softmax; {0} consumer warpgroup(s) taking turns",
            turns.groups);
        schedule(m, turns);
      }
    });
  }
};
} // namespace

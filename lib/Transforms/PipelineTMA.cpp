//===- PipelineTMA.cpp - descriptor loads to TMA pipelines ----------------===//
//
// The `fa4-pipeline-tma` pass: after layout assignment, every `tile.load` of
// a kernel's descriptor argument becomes a pipeline of shared-memory stages
// filled by TMA, and every `tile.dot` that reads loaded tiles an
// asynchronous MMA chain that waits for them and releases them (a register
// tile staged in shared memory, `fa4.shared_tile`, is read from its buffer,
// transposed, and a warpgroup's columns of B from a view). The producer
// and the consumer side of each pipeline still sit in one body here, in
// program order; `fa4-warp-specialize` gives them their own warps. In a
// one-tile plan, a TMA store's staging tile becomes the Q stage. Each MMA
// wait then moves down to just before the first use of what it waits for,
// past the MMAs issued meanwhile (which it leaves in flight): dots the
// program writes one after the other run together.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "PlannedKernels.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4PIPELINETMA
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;
using mlir::fa4::detail::spanColumns;

namespace {
/// How a dot reads a loaded tile.
enum class Use { A, BTransposed, B };

/// One descriptor load on its way to a pipeline.
struct Load {
  tile::LoadOp op;
  /// The loop the load runs in, or null when it runs once.
  scf::ForOp loop;
  /// The descriptor's block shape.
  SmallVector<int64_t> block;
  /// The dots that read it, and how.
  SmallVector<std::pair<tile::DotOp, Use>, 2> dots;
  /// The reads of a warpgroup's rows into registers.
  SmallVector<SharedLoadOp, 1> reads;
  /// In a loop, the last dot or read of the tile: the stage is released
  /// after it.
  Operation *lastUse = nullptr;
  /// The shared-memory buffer of one stage.
  MemRefType bufferType;
  /// The tensor map its descriptor argument becomes.
  TensorMapType mapType;
  /// The other operand of its dot when both are loaded in the loop: the two
  /// share a pipeline, one stage holding both tiles (`tile` 0 is A).
  Load *partner = nullptr;
  unsigned tile = 0;
  Value pipeline;
  /// The producer's and the consumer's states where the load was.
  Value producerState, consumerState;
  /// The buffer the consumer waited for.
  Value buffer;
};

class Pipelining {
public:
  Pipelining(func::FuncOp function, ConfigAttr config)
      : function(function), config(config) {}
  LogicalResult run();

private:
  LogicalResult classify(Load &load);
  LogicalResult prepare(Load &load);
  void pair();
  void createPipeline(Load &load);
  void threadStates();
  void produce(Load &load);
  void waitFor(Load &load, Operation *user);
  LogicalResult rewriteDot(tile::DotOp dot);
  void rewriteReads(Load &load);
  LogicalResult stageInQ();
  void sinkWaits();
  Value firstRow();

  func::FuncOp function;
  ConfigAttr config;
  SmallVector<Load> loads;
  DenseMap<Value, Load *> loadOf;
  Value firstRowValue;
};
} // namespace

LogicalResult Pipelining::classify(Load &load) {
  tile::LoadOp op = load.op;
  auto arg = dyn_cast<BlockArgument>(op.getDesc());
  if (!arg || arg.getOwner() != &function.getBody().front())
    return op.emitOpError() << "loads through a descriptor that is not a "
                               "kernel argument: TMA needs a host-built map";
  Operation *parent = op->getParentOp();
  if (auto loop = dyn_cast<scf::ForOp>(parent)) {
    for (Operation *outer = loop->getParentOp(); outer != function;
         outer = outer->getParentOp())
      if (!isa<scf::ForOp>(outer))
        return op.emitOpError()
               << "loads in a loop inside '" << outer->getName()
               << "': fa4 pipelines the loads of loops nested in loops only";
    load.loop = loop;
  } else if (parent != function) {
    return op.emitOpError()
           << "loads inside '" << parent->getName()
           << "': fa4 pipelines loads of the kernel body or of its loop";
  }

  auto addDot = [&](Operation *user, Value operand, bool transposed) {
    auto dot = dyn_cast<tile::DotOp>(user);
    if (!dot)
      return false;
    if (dot.getA() == operand && !transposed)
      load.dots.push_back({dot, Use::A});
    else if (dot.getB() == operand)
      load.dots.push_back({dot, transposed ? Use::BTransposed : Use::B});
    else
      return false;
    return true;
  };
  for (Operation *user : op->getUsers()) {
    bool ok = true;
    if (auto read = dyn_cast<SharedLoadOp>(user)) {
      load.reads.push_back(read);
    } else if (isa<WarpgroupRowsOp, WarpgroupColsOp, tile::TransOp>(user)) {
      bool transposed = isa<tile::TransOp>(user);
      for (Operation *inner : user->getUsers())
        ok &= addDot(inner, user->getResult(0), transposed);
    } else {
      ok = addDot(user, op.getResult(), false);
    }
    if (!ok)
      return user->emitOpError()
             << "uses a loaded tile: fa4 feeds loaded tiles (whole, a "
                "warpgroup's rows or columns, or transposed) to dots, or "
                "reads them into registers (fa4.shared_load)";
  }
  if (load.dots.empty() && load.reads.empty())
    return op.emitOpError() << "loads a tile that no dot or read uses";
  SmallVector<Operation *> users;
  for (auto [dot, use] : load.dots)
    users.push_back(dot);
  for (SharedLoadOp read : load.reads)
    users.push_back(read);
  for (Operation *user : users) {
    if (!load.loop)
      continue;
    if (user->getBlock() != load.loop.getBody())
      return user->emitOpError()
             << "reads a tile loaded in the loop from another block: fa4 "
                "releases a stage after the last dot or read that uses it";
    if (!load.lastUse || load.lastUse->isBeforeInBlock(user))
      load.lastUse = user;
  }
  return success();
}

/// Checks the load's block, finds the tensor-map type of span-wide boxes
/// its descriptor argument becomes, and sizes its stage buffer.
LogicalResult Pipelining::prepare(Load &load) {
  tile::LoadOp op = load.op;
  auto descType = cast<tile::DescriptorType>(op.getDesc().getType());
  ArrayRef<int64_t> block = descType.getBlockShape();
  load.block.assign(block.begin(), block.end());
  int64_t rank = block.size();
  if (rank < 2 || !llvm::all_of(block.drop_back(2),
                                [](int64_t size) { return size == 1; }))
    return op.emitOpError() << "loads " << descType
                            << ": fa4 loads 2-d blocks (with leading 1s)";
  Type element = descType.getElementType();
  // A gather of row blocks fills the stage with them, one after the other;
  // the tensor map's box is one block's rows.
  int64_t groups = int64_t(op.getCoords().size()) / rank;
  int64_t rows = block[rank - 2] * groups, cols = block[rank - 1];
  int64_t span = spanColumns(element);
  if (cols % span != 0)
    return op.emitOpError() << "loads blocks of " << cols << " columns: TMA "
                            << "with the 128-byte swizzle moves " << span
                            << "-column boxes";

  MLIRContext *context = function.getContext();
  load.bufferType = MemRefType::get(
      {rows, cols}, element, AffineMap(),
      IntegerAttr::get(IntegerType::get(context, 64), 3));
  SmallVector<int64_t> box(block);
  box.back() = span;
  load.mapType = TensorMapType::get(context, element, box, 128);
  // A block loaded once for a dot stays in a stage the plan sizes (Q's in
  // attention): its CTA rows (or a warpgroup's) by the width the plan was
  // derived for.
  int64_t ctaRows = config.getBm() * config.getQTiles();
  if (!load.loop && !load.dots.empty() &&
      ((rows != ctaRows && rows != config.getBm()) ||
       (cols != config.getPaddedHeadDim() &&
        cols != config.getPaddedHeadDimV()) ||
       element != config.getElementType())) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << rows << "x" << cols << "x" << element << " block";
    os << " once, outside a loop, for a dot: fa4 keeps such a block in "
          "shared memory for the whole program, in a stage of the plan's "
       << ctaRows << " CTA rows by the " << config.getPaddedHeadDim()
       << " columns of " << config.getElementType()
       << " it was derived for; derive the plan for this width or load the "
          "block in a loop";
    return op.emitOpError() << "loads a " << text;
  }
  return success();
}

/// Pairs the A and B operands of a dot that are both loaded in its loop:
/// they travel in one stage, on one barrier pair (a GEMM's k-step).
void Pipelining::pair() {
  for (Load &load : loads) {
    if (!load.loop || load.partner || load.dots.empty() ||
        load.dots.front().second != Use::A)
      continue;
    tile::DotOp dot = load.dots.front().first;
    for (Load &other : loads)
      if (&other != &load && other.loop == load.loop && !other.partner &&
          !other.dots.empty() && other.dots.front().first == dot &&
          other.dots.front().second != Use::A) {
        load.partner = &other;
        other.partner = &load;
        other.tile = 1;
        break;
      }
  }
}

void Pipelining::createPipeline(Load &load) {
  if (load.tile != 0)
    return;
  tile::LoadOp op = load.op;
  MLIRContext *context = function.getContext();
  SmallVector<Type> buffers = {load.bufferType};
  if (load.partner)
    buffers.push_back(load.partner->bufferType);
  // A load outside the loop (Q) has the plan's Q stages: a persistent
  // kernel with two loads the next tile's while this one's is read. One
  // that no dot reads is a plain operand (its shape is the program's).
  PipelineKind kind = load.dots.empty() ? PipelineKind::operand
                                        : PipelineKind::q;
  int64_t kv = config.getQStages();
  if (load.loop && load.dots.empty()) {
    // A tile read into registers in the loop.
    kv = config.getKvStages();
    kind = PipelineKind::operand;
  } else if (load.loop) {
    kv = config.getKvStages();
    // By how its dots read it: an A operand; a B read only transposed
    // (K in Q·Kᵀ: fa4-split-qk may stage it over the head dim); a B read
    // mn-major, by some dot at least (V in P·V; the backward's Q, read by
    // S = K·Qᵀ and by dK += dS·Q, whole).
    auto uses = [&](Use use) {
      return llvm::any_of(load.dots,
                          [&](auto &dot) { return dot.second == use; });
    };
    kind = uses(Use::B)             ? PipelineKind::v
           : uses(Use::BTransposed) ? PipelineKind::k
                                    : PipelineKind::operand;
  }
  auto pipelineType = PipelineType::get(context, kind, kv, 1, buffers);

  int64_t consumerThreads = 0;
  for (RoleAttr role : config.getRoleList())
    if (role.getKind() != RoleKind::producer)
      consumerThreads += 32 * role.getWarps();
  OpBuilder b(&function.getBody().front(), function.getBody().front().begin());
  load.pipeline = PipelineCreateOp::create(b, op.getLoc(), pipelineType,
                                           consumerThreads, IntegerAttr());
  if (load.partner)
    load.partner->pipeline = load.pipeline;
}

/// Carries the pipeline states that `starts` begin right before `loop`
/// through the loops around it instead, started before the outermost: each
/// of those loops takes them as iteration arguments and yields what the
/// loop inside it leaves, so that the states go on from one run of the
/// inner loop to the next. `replaced` hears of each loop grown in place of
/// another.
static void
carryThroughOuterLoops(scf::ForOp loop, SmallVector<Value> starts,
                       function_ref<void(scf::ForOp, scf::ForOp)> replaced) {
  IRRewriter rewriter(loop.getContext());
  while (auto outer = dyn_cast<scf::ForOp>(loop->getParentOp())) {
    SmallVector<Value> inits;
    OpBuilder b(outer);
    for (Value start : starts)
      inits.push_back(b.clone(*start.getDefiningOp())->getResult(0));
    ValueRange ends = loop.getResults().take_back(starts.size());
    auto grown = cast<scf::ForOp>(*outer.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>(ends);
        }));
    replaced(outer, grown);
    for (auto [start, arg] :
         llvm::zip(starts, grown.getRegionIterArgs().take_back(inits.size()))) {
      Operation *op = start.getDefiningOp();
      start.replaceAllUsesWith(arg);
      op->erase();
    }
    loop = grown;
    starts = inits;
  }
}

/// How many loops hold `loop`.
static int64_t loopDepth(scf::ForOp loop) {
  int64_t depth = 0;
  for (Operation *op = loop->getParentOp(); isa<scf::ForOp>(op);
       op = op->getParentOp())
    ++depth;
  return depth;
}

/// Gives each load's pipeline a producer and a consumer state where the
/// load is: started before the kernel body, or carried by the loop (all the
/// loop's pipelines at once, since growing a loop replaces it) and by the
/// loops around it. The deepest loops go first: a loop is grown again only
/// for the loops inside it, so that the states taken from a loop stay its
/// own.
void Pipelining::threadStates() {
  SmallVector<scf::ForOp> loops;
  SmallVector<SmallVector<Load *>> carriedBy;
  for (Load &load : loads) {
    // A pair's B rides on A's states.
    if (load.tile != 0)
      continue;
    Location loc = load.op.getLoc();
    if (!load.loop) {
      OpBuilder b(load.op);
      load.producerState = PipelineStartOp::create(b, loc, load.pipeline,
                                                   PipelineSide::producer);
      load.consumerState = PipelineStartOp::create(b, loc, load.pipeline,
                                                   PipelineSide::consumer);
      continue;
    }
    auto *at = llvm::find(loops, load.loop);
    if (at == loops.end()) {
      loops.push_back(load.loop);
      carriedBy.emplace_back();
      at = loops.end() - 1;
    }
    carriedBy[at - loops.begin()].push_back(&load);
  }
  SmallVector<int64_t> depths;
  for (scf::ForOp loop : loops)
    depths.push_back(loopDepth(loop));
  SmallVector<size_t> order(loops.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order,
                    [&](size_t a, size_t b) { return depths[a] > depths[b]; });
  auto replaced = [&](scf::ForOp old, scf::ForOp grown) {
    for (scf::ForOp &loop : loops)
      if (loop == old)
        loop = grown;
    for (Load &load : loads)
      if (load.loop == old)
        load.loop = grown;
  };
  IRRewriter rewriter(function.getContext());
  for (size_t index : order) {
    scf::ForOp loop = loops[index];
    ArrayRef<Load *> carried = carriedBy[index];
    SmallVector<Value> inits;
    OpBuilder b(loop);
    for (Load *load : carried)
      for (PipelineSide side : {PipelineSide::producer, PipelineSide::consumer})
        inits.push_back(PipelineStartOp::create(b, load->op.getLoc(),
                                                load->pipeline, side));
    auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location loc, ArrayRef<BlockArgument> args) {
          SmallVector<Value> next;
          for (auto [i, arg] : llvm::enumerate(args))
            next.push_back(PipelineStepOp::create(
                yb, loc, carried[i / 2]->pipeline, arg));
          return next;
        }));
    replaced(loop, grown);
    ArrayRef<BlockArgument> args =
        grown.getRegionIterArgs().take_back(inits.size());
    for (auto [i, load] : llvm::enumerate(carried)) {
      load->producerState = args[2 * i];
      load->consumerState = args[2 * i + 1];
      if (Load *partner = load->partner) {
        partner->producerState = load->producerState;
        partner->consumerState = load->consumerState;
      }
    }
    carryThroughOuterLoops(grown, inits, replaced);
  }
}

/// The element coordinates of the block `load` names (of each block, one
/// group after the other, for a gather of row blocks).
static SmallVector<Value> elementCoords(ImplicitLocOpBuilder &b,
                                        Load &load) {
  if (load.op.getElements())
    return SmallVector<Value>(load.op.getCoords());
  SmallVector<Value> coords;
  size_t rank = load.block.size();
  for (auto [i, coord] : llvm::enumerate(load.op.getCoords())) {
    int64_t size = load.block[i % rank];
    coords.push_back(
        size == 1 ? coord
                  : arith::MulIOp::create(
                        b, coord, arith::ConstantIndexOp::create(b, size))
                        .getResult());
  }
  return coords;
}

/// The producer's acquire and TMA load where the program loaded the block;
/// for a pair, both loads of the stage where the later of the two was.
void Pipelining::produce(Load &load) {
  Load *later = &load;
  if (load.partner) {
    if (load.tile != 0)
      return;
    if (load.op->isBeforeInBlock(load.partner->op))
      later = load.partner;
  }
  ImplicitLocOpBuilder b(later->op.getLoc(), later->op);
  ProducerAcquireOp::create(b, load.pipeline, load.producerState);
  for (Load *part : {&load, load.partner}) {
    if (!part)
      continue;
    ProducerLoadOp::create(b, load.pipeline, load.producerState, 0,
                           part->tile, part->op.getDesc(),
                           elementCoords(b, *part));
  }
}

Value Pipelining::firstRow() {
  if (!firstRowValue)
    firstRowValue = mlir::fa4::detail::buildWarpgroupFirstRow(function, config);
  return firstRowValue;
}

/// The loaded tile a dot operand reads: the load behind a warpgroup's rows
/// or columns or a transpose.
static Value loadedTile(Value operand) {
  if (Operation *def = operand.getDefiningOp())
    if (isa<WarpgroupRowsOp, WarpgroupColsOp, tile::TransOp>(def))
      return def->getOperand(0);
  return operand;
}

/// The consumer's wait for `load`'s stage, once: what the loop loaded just
/// before `user`, what was loaded once where it was loaded.
void Pipelining::waitFor(Load &load, Operation *user) {
  if (load.buffer)
    return;
  OpBuilder builder(load.loop ? user : load.op.getOperation());
  auto type = cast<PipelineType>(load.pipeline.getType());
  auto wait = ConsumerWaitOp::create(builder, load.op.getLoc(),
                                     TypeRange(type.getTiles()), load.pipeline,
                                     load.consumerState);
  load.buffer = wait.getResult(load.tile);
  if (load.partner)
    load.partner->buffer = wait.getResult(load.partner->tile);
}

/// A read into registers reads the stage's buffer; in the loop, the stage
/// is released right after it (the values are in registers) when nothing
/// after it reads the stage.
void Pipelining::rewriteReads(Load &load) {
  for (SharedLoadOp read : load.reads) {
    waitFor(load, read);
    read.getSourceMutable().assign(load.buffer);
    if (load.loop && load.lastUse == read) {
      OpBuilder builder(read->getContext());
      builder.setInsertionPointAfter(read);
      ConsumerReleaseOp::create(builder, read.getLoc(), load.pipeline,
                                load.consumerState);
    }
  }
}

LogicalResult Pipelining::rewriteDot(tile::DotOp dot) {
  Load *a = loadOf.lookup(loadedTile(dot.getA()));
  Load *b = loadOf.lookup(loadedTile(dot.getB()));
  if (!b)
    return dot.emitOpError() << "reads a B operand that is not a loaded tile: "
                                "the MMA reads B from shared memory";
  Location loc = dot.getLoc();
  // A stage read by several dots (Q in the backward's S = K·Qᵀ and
  // dK += dS·Q) is released after the last of them.
  auto lastUse = [&](Load *load) { return load->lastUse == dot; };
  for (Load *load : {a, b})
    if (load)
      waitFor(*load, dot);
  OpBuilder builder(dot);
  ImplicitLocOpBuilder ib(loc, builder);
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(ib, value);
  };
  auto accType = cast<RankedTensorType>(dot.getAcc().getType());
  auto bType = cast<MemRefType>(b->buffer.getType());
  bool bTransposed = isa_and_nonnull<tile::TransOp>(dot.getB().getDefiningOp());
  Type element = bType.getElementType();
  int64_t span = spanColumns(element);
  int64_t contraction =
      cast<RankedTensorType>(dot.getA().getType()).getDimSize(1);
  // A constant-zero accumulator is left out: the first MMA starts from zero
  // (scale-d = 0) rather than reading zero-filled registers.
  Value acc = dot.getAcc();
  if (matchPattern(acc, m_AnyZeroFloat()))
    acc = Value();

  // A staged tile's transpose, or the warpgroup's rows of it.
  Value stagedA = dot.getA();
  auto aRows = stagedA.getDefiningOp<WarpgroupRowsOp>();
  if (aRows)
    stagedA = aRows.getTile();
  auto staged = loadedTile(stagedA).getDefiningOp<SharedTileOp>();
  auto bCols = dot.getB().getDefiningOp<WarpgroupColsOp>();
  if (staged) {
    // A register tile staged in shared memory (fa4.shared_store), read
    // transposed: mn-major, like B, so one MMA runs over the contraction
    // along both tiles' rows; B is the warpgroup's columns of its tile, or
    // A the warpgroup's rows of the transpose (columns of the staged tile).
    if (!isa<tile::TransOp>(stagedA.getDefiningOp()) || bTransposed)
      return dot.emitOpError()
             << "reads a staged register tile untransposed or a transposed "
                "B: fa4 multiplies a staged tile's transpose by mn-major B "
                "(dSᵀ · K)";
    Value bView = b->buffer;
    if (bCols) {
      int64_t cols =
          cast<RankedTensorType>(bCols.getResult().getType()).getDimSize(1);
      auto view = MemRefType::get({bType.getDimSize(0), cols}, element,
                                  AffineMap(), bType.getMemorySpace());
      Value first =
          arith::MulIOp::create(ib, WarpgroupIdOp::create(ib), index(cols));
      bView = SubtileOp::create(ib, view, b->buffer, index(0), first);
    }
    Value aView = staged.getBuffer();
    if (aRows) {
      MemRefType stagedType = staged.getBuffer().getType();
      int64_t rows = accType.getDimSize(0);
      auto view = MemRefType::get({stagedType.getDimSize(0), rows}, element,
                                  AffineMap(), stagedType.getMemorySpace());
      aView = SubtileOp::create(ib, view, aView, index(0), firstRow());
    }
    acc = MmaAsyncOp::create(ib, accType, aView, bView, acc, ib.getUnitAttr(),
                             ib.getUnitAttr());
  } else if (!a) {
    // A in registers: one MMA over the whole contraction.
    if (bTransposed)
      return dot.emitOpError() << "reads A from registers and a transposed "
                                  "B: fa4 multiplies register A by "
                                  "mn-major B (P·V)";
    acc = MmaAsyncOp::create(ib, accType, dot.getA(), b->buffer, acc,
                             ib.getUnitAttr());
  } else {
    if (!bTransposed && contraction > span)
      return dot.emitOpError()
             << "contracts over " << contraction << " rows of an mn-major B "
             << "with A in shared memory: fa4 chunks the contraction by "
             << span << " columns of k-major tiles";
    int64_t rows = accType.getDimSize(0);
    Value row = isa_and_nonnull<WarpgroupRowsOp>(dot.getA().getDefiningOp())
                    ? firstRow()
                    : index(0);
    auto aChunk = MemRefType::get({rows, std::min(span, contraction)}, element,
                                  AffineMap(), bType.getMemorySpace());
    auto bChunk = MemRefType::get({bType.getDimSize(0), span}, element,
                                  AffineMap(), bType.getMemorySpace());
    for (int64_t c = 0; c * span < contraction; ++c) {
      Value aView =
          SubtileOp::create(ib, aChunk, a->buffer, row, index(c * span));
      Value bView = b->buffer;
      if (bTransposed && bType.getDimSize(1) != span)
        bView = SubtileOp::create(ib, bChunk, b->buffer, index(0),
                                  index(c * span));
      acc = MmaAsyncOp::create(ib, accType, aView, bView, acc,
                               bTransposed ? UnitAttr() : ib.getUnitAttr());
    }
  }
  Value result =
      MmaWaitOp::create(ib, TypeRange{accType}, ValueRange{acc}, 0).getResult(
          0);
  for (Load *load : {a, b})
    if (load && load->loop && lastUse(load) &&
        !(load == b && a && a->partner == b))
      ConsumerReleaseOp::create(ib, load->pipeline, load->consumerState);
  dot.replaceAllUsesWith(result);
  dot.erase();
  return success();
}

/// In a one-tile plan, or a persistent one with `o_in_q`, O's staging tile
/// is the Q stage, dead after the last QK: a `fa4.shared_buffer` that only
/// TMA stores after the Q load use, and that fits in the Q stage, becomes
/// that stage's buffer (fa4-persistent releases the stage once the stores
/// have read it); only a stage whose readers take their warpgroup's rows. A kernel that loads no such tile (one whose loads are of
/// another type or shape, such as an f32 accumulator converted to bf16)
/// keeps the staging buffer: fa4-allocate-shared-memory gives it a region
/// of its own and checks the total. A persistent plan with `o_in_q` must
/// have the stage: its shared-memory budget counts no staging buffer.
LogicalResult Pipelining::stageInQ() {
  SmallVector<SharedBufferOp> buffers;
  function.walk([&](SharedBufferOp buffer) { buffers.push_back(buffer); });
  if ((config.getPersistent() && !config.getOInQ()) || buffers.empty())
    return success();
  Block &entry = function.getBody().front();
  // Each staging tile takes a stage of its own (the backward's dK and dV
  // those of K and V).
  DenseSet<Value> taken;
  for (SharedBufferOp staging : buffers) {
    MemRefType type = staging.getBuffer().getType();
    // A stage the warpgroups read only their own rows of (an A operand,
    // reads into registers): each writes its O rows where it alone read.
    // A B operand is read whole, by both warpgroups' MMAs.
    Value q;
    for (Load &load : loads)
      if (!load.loop && load.buffer && !taken.contains(load.buffer) &&
          llvm::all_of(load.dots,
                       [](auto &dot) { return dot.second == Use::A; }) &&
          load.bufferType.getElementType() == type.getElementType() &&
          load.bufferType.getDimSize(0) == type.getDimSize(0) &&
          load.bufferType.getDimSize(1) >= type.getDimSize(1))
        q = load.buffer;
    Operation *wait = q ? q.getDefiningOp() : nullptr;
    bool after = wait && llvm::all_of(staging->getUsers(), [&](Operation *user) {
      Operation *top = entry.findAncestorOpInBlock(*user);
      return isa<TmaStoreOp>(user) && top && wait->isBeforeInBlock(top);
    });
    if (!after && !config.getPersistent())
      continue;
    if (!after)
      return staging.emitOpError()
             << "stages " << type << " in a persistent plan with o_in_q, "
             << "which keeps it in the Q stage, but the kernel loads no "
                "tile of "
             << type.getDimSize(0) << " rows and at least "
             << type.getDimSize(1) << " columns of "
             << type.getElementType()
             << " once before its TMA stores; with o-in-q=false (derived "
                "true at some head dims) O gets a buffer of its own";
    taken.insert(q);
    staging.getBuffer().replaceAllUsesWith(q);
    staging.erase();
  }
  return success();
}

/// Whether `op` may run between an MMA and the wait for it: pure
/// computation (a conditional of it too, such as a mask), reads of global
/// memory, waits for loaded stages and their views, the producer's loads,
/// and other MMAs (each one group more in flight). Releases and barriers
/// keep the wait before them.
static bool passable(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>())
    return false;
  // The producer's ops leave for a role of their own (fa4-warp-specialize).
  if (isa<MmaAsyncOp, ConsumerWaitOp, SubtileOp, GlobalLoadOp,
          ProducerAcquireOp, ProducerLoadOp>(op))
    return true;
  return isMemoryEffectFree(op);
}

/// The buffer a shared-memory view is part of: through subtiles to the
/// stage or staging buffer.
static Value rootBuffer(Value view) {
  while (auto subtile = view.getDefiningOp<SubtileOp>())
    view = subtile.getSource();
  return view;
}

/// Whether two shared-memory views may share memory: views of one buffer,
/// or stages of one pipeline (two waits may hand out the same stage).
static bool mayAlias(Value a, Value b) {
  a = rootBuffer(a);
  b = rootBuffer(b);
  if (a == b)
    return true;
  auto waitA = a.getDefiningOp<ConsumerWaitOp>();
  auto waitB = b.getDefiningOp<ConsumerWaitOp>();
  return waitA && waitB && waitA.getPipeline() == waitB.getPipeline();
}

namespace {
/// What a wait may let run before it of the ops that write shared memory or
/// meet at a barrier: those that touch nothing an MMA issued before the
/// wait in its block (in flight, as far as the pass knows) reads. The PTX
/// ISA leaves undefined any access to an in-flight `wgmma`'s register A
/// operand or accumulator before `wgmma.wait_group`, and a store into a
/// tile it reads races with it.
class InFlight {
public:
  explicit InFlight(MmaWaitOp wait) : block(wait->getBlock()) {
    for (Operation &op : *block) {
      if (&op == wait.getOperation())
        break;
      if (auto mma = dyn_cast<MmaAsyncOp>(op))
        mmas.push_back(mma);
    }
  }

  /// Whether a store of register `tile` into shared `buffer` leaves the
  /// MMAs in flight alone.
  bool storeAllowed(Value tile, Value buffer) const {
    return llvm::none_of(mmas, [&](MmaAsyncOp mma) {
      bool readsTile = tile == mma.getA() || tile == mma.getAcc();
      bool readsBuffer = mayAlias(buffer, mma.getB()) ||
                         (isa<MemRefType>(mma.getA().getType()) &&
                          mayAlias(buffer, mma.getA()));
      return readsTile || readsBuffer;
    });
  }

  /// Whether `op`, a store into shared memory or a barrier, may run while
  /// the MMAs are in flight. A barrier may when every store of the block
  /// may: a warpgroup that passes it then writes nothing that the other's
  /// MMAs, in flight past their own wait, read.
  bool allows(Operation *op) const {
    if (auto store = dyn_cast<SharedStoreOp>(op))
      return storeAllowed(store.getTile(), store.getBuffer());
    if (auto store = dyn_cast<TmaStoreOp>(op))
      return storeAllowed(store.getTile(), store.getBuffer());
    if (isa<NamedBarrierSyncOp>(op))
      return llvm::all_of(*block, [&](Operation &other) {
        return !isa<SharedStoreOp, TmaStoreOp>(other) || allows(&other);
      });
    return false;
  }

private:
  Block *block;
  SmallVector<MmaAsyncOp> mmas;
};
} // namespace

/// Each `fa4.mma.wait` (with the stage releases right after it, which must
/// follow it) moves down past the ops that do not use its results and may
/// run meanwhile, up to the first that does or that must not; its pending
/// count grows by the MMA groups (one a `fa4.mma.async`) it passes. Stores
/// into shared memory and barriers it passes only as InFlight allows (the
/// backward's dV MMA runs while dS is staged, dK's while dQ is stored). The
/// forward's waits stay where they are: each is followed by its results'
/// first use, or by a release and the loop's end.
void Pipelining::sinkWaits() {
  SmallVector<MmaWaitOp> waits;
  function.walk([&](MmaWaitOp wait) { waits.push_back(wait); });
  for (MmaWaitOp wait : waits) {
    InFlight inFlight(wait);
    SmallVector<Operation *> group = {wait};
    Operation *next = wait->getNextNode();
    while (isa_and_nonnull<ConsumerReleaseOp>(next)) {
      group.push_back(next);
      next = next->getNextNode();
    }
    DenseSet<Value> results(wait->result_begin(), wait->result_end());
    // A use anywhere in `op`, its regions included.
    auto uses = [&](Operation *op) {
      return op
          ->walk([&](Operation *inner) {
            return llvm::any_of(inner->getOperands(),
                                [&](Value v) { return results.contains(v); })
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
    };
    int64_t passed = 0;
    bool passesTmaStore = false;
    Operation *stop = next;
    for (; stop && (passable(stop) || inFlight.allows(stop)) && !uses(stop);
         stop = stop->getNextNode()) {
      passed += isa<MmaAsyncOp>(stop);
      passesTmaStore |= isa<TmaStoreOp>(stop);
    }
    // Only past an MMA, or a TMA store (its barriers and copies run under
    // the MMA): a wait with nothing more in flight stays where the program
    // put it (measured on the H200, bench/RESULTS.md, 2026-12-04: dQ's dP
    // wait moved past P's exponentials is 15 % slower at head dim 128, 3 %
    // faster at 64).
    if ((!passed && !passesTmaStore) || !stop)
      continue;
    // It lands before the first use of its results, or the first op it
    // may not pass.
    for (Operation *op : group)
      op->moveBefore(stop);
    wait.setPending(wait.getPending() + passed);
  }
}

LogicalResult Pipelining::run() {
  function.walk([&](tile::LoadOp op) { loads.push_back({op}); });
  for (Load &load : loads)
    if (failed(classify(load)) || failed(prepare(load)))
      return failure();
  // A descriptor loaded more than once (a row read twice, by two loops)
  // gives each load a pipeline of its own, all through one tensor map: the
  // arguments change type once every load has read its block.
  for (Load &load : loads)
    cast<BlockArgument>(load.op.getDesc()).setType(load.mapType);
  pair();
  for (Load &load : loads)
    createPipeline(load);
  threadStates();
  for (Load &load : loads)
    produce(load);
  for (Load &load : loads)
    loadOf[load.op.getResult()] = &load;

  SmallVector<tile::DotOp> dots;
  function.walk([&](tile::DotOp dot) { dots.push_back(dot); });
  for (tile::DotOp dot : dots)
    if (failed(rewriteDot(dot)))
      return failure();
  for (Load &load : loads)
    rewriteReads(load);

  if (failed(stageInQ()))
    return failure();

  // The views of loaded and staged tiles went with the dots.
  SmallVector<Operation *> dead;
  function.walk([&](Operation *op) {
    if (isa<WarpgroupRowsOp, WarpgroupColsOp, SharedTileOp, tile::TransOp>(op))
      dead.push_back(op);
  });
  for (Operation *op : llvm::reverse(dead))
    op->erase();
  for (Load &load : loads)
    load.op.erase();
  sinkWaits();
  mlir::fa4::detail::updateFunctionType(function);
  return success();
}

namespace {
struct PipelineTMAPass : public mlir::fa4::impl::FA4PipelineTMABase<PipelineTMAPass> {
  void runOnOperation() override {
    if (failed(mlir::fa4::detail::forEachPlannedKernel(
            getOperation(), [](func::FuncOp function, ConfigAttr config) {
              return Pipelining(function, config).run();
            })))
      signalPassFailure();
  }
};
} // namespace

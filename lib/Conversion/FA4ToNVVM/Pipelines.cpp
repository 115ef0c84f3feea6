//===- Pipelines.cpp - fa4 pipelines to mbarriers and TMA -----------------===//
//
// Lowering of pipeline creation (barrier init), the producer side (acquire,
// elected expect-tx and TMA box copies, a schedule slot's elected store and
// arrive) and the consumer side (wait, release), of the dynamic schedule's
// tile claim, and of shared-memory views, to NVVM.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;

namespace {

/// Spin-wait hint of `mbarrier.try_wait.parity`, in nanoseconds.
constexpr int64_t kWaitTicks = 10000000;

/// The (stage, phase) operands of a sub-stage op, which
/// fa4-explicit-pipeline-state must have made explicit.
FailureOr<ValueRange> explicitState(Operation *op, ValueRange state) {
  if (state.size() != 2)
    return op->emitOpError()
           << "has an implicit pipeline state; run "
              "fa4-explicit-pipeline-state first (docs/Rationale.md, "
              "\"Explicit pipeline state\")";
  return state;
}

struct CreateLowering : public ConvertOpToLLVMPattern<PipelineCreateOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(PipelineCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint64_t> offset = op.getOffset();
    if (!offset)
      return op.emitOpError()
             << "has no shared-memory offset; run fa4-allocate-shared-memory "
                "first (docs/Rationale.md, \"Shared memory allocated\")";
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    PipelineType type = op.getPipeline().getType();
    Value base = dynamicSmemAt(b, static_cast<int64_t>(*offset));

    // Thread 0 initialises every barrier; the fence makes the inits visible
    // to the async proxy, the CTA barrier to every thread.
    Value leader = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, threadId(b),
                                        i32Const(b, 0));
    int64_t subStages = type.getKvStages() * type.getQkStages();
    Value fullCount = i32Const(b, type.getFullArrivals());
    Value emptyCount = i32Const(b, op.getConsumerArrivals());
    Value barriers = offsetPtr(b, base, type.getBarrierOffset());
    for (int64_t i = 0; i < subStages; ++i) {
      NVVM::MBarrierInitOp::create(b, offsetPtr(b, barriers, 8 * i), fullCount,
                                   leader);
      NVVM::MBarrierInitOp::create(
          b, offsetPtr(b, barriers, 8 * (subStages + i)), emptyCount, leader);
    }
    NVVM::FenceMbarrierInitOp::create(b);
    NVVM::BarrierOp::create(b);
    rewriter.replaceOp(op, base);
    return success();
  }
};

template <typename OpT>
struct WaitOnBarrier : public ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename ConvertOpToLLVMPattern<OpT>::OpAdaptor;

  /// Producers wait for empty stages, consumers for full ones.
  static constexpr bool kEmpty = std::is_same_v<OpT, ProducerAcquireOp>;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ValueRange> state = explicitState(op, adaptor.getState());
    if (failed(state))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    PipelineType type = op.getPipeline().getType();
    Value base = adaptor.getPipeline();
    int64_t qk = static_cast<int64_t>(op.getQk());
    Value barrier = barrierPtr(b, type, base, (*state)[0], qk, kEmpty);
    if (std::optional<int64_t> site = hangSite(op)) {
      // Built to diagnose hangs: a wait that gives up and reports.
      Value phase = (*state)[1];
      emitBoundedWait(rewriter, op.getLoc(), site, (*state)[0], phase,
                      [&](ImplicitLocOpBuilder &lb) -> Value {
                        return NVVM::MBarrierTryWaitOp::create(
                            lb, lb.getI1Type(), barrier, phase,
                            i32Const(lb, kWaitTicks));
                      });
      b.setInsertionPoint(rewriter.getInsertionBlock(),
                          rewriter.getInsertionPoint());
    } else {
      NVVM::MBarrierTryWaitParityOp::create(b, barrier, (*state)[1],
                                            i32Const(b, kWaitTicks));
    }
    // The buffers' addresses; a schedule slot's value, which the wait's
    // acquire made visible, the same in every thread (and so reduced over
    // the warp, for ptxas's sake).
    SmallVector<Value> buffers;
    if constexpr (!kEmpty)
      for (unsigned t = 0, e = type.getTiles().size(); t < e; ++t) {
        Value buffer = bufferPtr(b, type, base, (*state)[0], qk, t);
        Type tile = type.getTiles()[t];
        buffers.push_back(
            isa<MemRefType>(tile)
                ? buffer
                : warpUniform(b, LLVM::LoadOp::create(b, tile, buffer)));
      }
    rewriter.replaceOp(op, buffers);
    return success();
  }
};

struct ReleaseLowering : public ConvertOpToLLVMPattern<ConsumerReleaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ConsumerReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ValueRange> state = explicitState(op, adaptor.getState());
    if (failed(state))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value barrier = barrierPtr(
        b, op.getPipeline().getType(), adaptor.getPipeline(), (*state)[0],
        static_cast<int64_t>(op.getQk()), /*empty=*/true);
    NVVM::MBarrierArriveOp::create(b, b.getI64Type(), barrier, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// One elected thread announces the tile's bytes and copies it box by box.
/// The shared-memory tile is laid out as column blocks of one box width, so
/// box (i, j) lands at `j * rows * boxBytesPerRow + i * boxBytes`.
struct LoadLowering : public ConvertOpToLLVMPattern<ProducerLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ProducerLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ValueRange> state = explicitState(op, adaptor.getState());
    if (failed(state))
      return failure();
    Location loc = op.getLoc();
    PipelineType type = op.getPipeline().getType();
    unsigned tileIndex = static_cast<unsigned>(op.getTile());
    MemRefType tile = type.getTile(tileIndex);
    TensorMapType map = op.getMap().getType();
    int64_t elementBytes = tile.getElementTypeBitWidth() / 8;
    int64_t rows = tile.getDimSize(0), cols = tile.getDimSize(1);
    ArrayRef<int64_t> box = map.getBox();
    int64_t boxRows = box[box.size() - 2], boxCols = box.back();

    // The elected thread issues, every thread goes on.
    ImplicitLocOpBuilder b(loc, rewriter);
    beginConditionalBlock(rewriter, loc,
                          NVVM::ElectSyncOp::create(b, b.getI1Type(), Value()));
    b.setInsertionPoint(rewriter.getInsertionBlock(),
                        rewriter.getInsertionPoint());
    Value base = adaptor.getPipeline();
    int64_t qk = static_cast<int64_t>(op.getQk());
    Value full = barrierPtr(b, type, base, (*state)[0], qk, /*empty=*/false);
    Value dst = bufferPtr(b, type, base, (*state)[0], qk, tileIndex);
    int64_t bytes = tile.getNumElements() * elementBytes;
    NVVM::MBarrierArriveExpectTxOp::create(b, Type(), full, i32Const(b, bytes),
                                           NVVM::MemScopeKind::CTA,
                                           /*relaxed=*/false, Value());

    // TMA coordinates are innermost first, in i32; a gather has a group
    // for each row of boxes.
    size_t rank = box.size();
    bool gather = adaptor.getCoords().size() > rank;
    auto rowCoords = [&](int64_t i) {
      ValueRange group = adaptor.getCoords();
      if (gather)
        group = group.slice(i * rank, rank);
      SmallVector<Value> coords;
      for (Value coord : llvm::reverse(group))
        coords.push_back(LLVM::TruncOp::create(b, b.getI32Type(), coord));
      return coords;
    };
    auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
    SmallVector<Value> coords = rowCoords(0);
    for (int64_t i = 0; i < rows / boxRows; ++i) {
      if (gather && i)
        coords = rowCoords(i);
      for (int64_t j = 0; j < cols / boxCols; ++j) {
        SmallVector<Value> boxCoords(coords);
        if (j)
          boxCoords[0] =
              LLVM::AddOp::create(b, coords[0], i32Const(b, j * boxCols));
        if (i && !gather)
          boxCoords[1] =
              LLVM::AddOp::create(b, coords[1], i32Const(b, i * boxRows));
        int64_t offset =
            (j * rows * boxCols + i * boxRows * boxCols) * elementBytes;
        Value target = LLVM::AddrSpaceCastOp::create(b, clusterPtr,
                                                     offsetPtr(b, dst, offset));
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, target, adaptor.getMap(), boxCoords, full, ValueRange(), Value(),
            Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
            NVVM::CTAGroupKindAttr(), Value());
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// One elected thread writes the schedule slots, then arrives on the full
/// barrier; the arrive's release orders the stores before the phase flips.
struct PutLowering : public ConvertOpToLLVMPattern<ProducerPutOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ProducerPutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ValueRange> state = explicitState(op, adaptor.getState());
    if (failed(state))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    beginConditionalBlock(rewriter, op.getLoc(),
                          NVVM::ElectSyncOp::create(b, b.getI1Type(), Value()));
    b.setInsertionPoint(rewriter.getInsertionBlock(),
                        rewriter.getInsertionPoint());
    PipelineType type = op.getPipeline().getType();
    Value base = adaptor.getPipeline();
    for (auto [slot, value] : llvm::enumerate(adaptor.getValues()))
      LLVM::StoreOp::create(b, value,
                            bufferPtr(b, type, base, (*state)[0], 0, slot));
    NVVM::MBarrierArriveOp::create(
        b, b.getI64Type(),
        barrierPtr(b, type, base, (*state)[0], 0, /*empty=*/false), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lane 0 adds 1 to the counter (and stores 0 back when it took the last
/// value); every lane gets `programs` plus the old value from it.
struct ClaimTileLowering : public ConvertOpToLLVMPattern<ClaimTileOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ClaimTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Block *current = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(current, rewriter.getInsertionPoint());
    Block *claim = rewriter.createBlock(after);
    Block *reset = rewriter.createBlock(after);
    Block *join = rewriter.createBlock(after, {i32}, {loc});
    rewriter.setInsertionPointToEnd(current);
    ImplicitLocOpBuilder b(loc, rewriter);
    Value lane = NVVM::LaneIdOp::create(b, i32);
    Value first =
        LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, lane, i32Const(b, 0));
    LLVM::CondBrOp::create(b, first, claim, ValueRange(), join,
                           ValueRange{i32Const(b, 0)});

    b.setInsertionPointToStart(claim);
    Value counter = adaptor.getCounter();
    Value old = LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::add, counter,
                                          i32Const(b, 1),
                                          LLVM::AtomicOrdering::monotonic);
    Value last = LLVM::SubOp::create(b, adaptor.getTiles(), i32Const(b, 1));
    Value tookLast =
        LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, old, last);
    LLVM::CondBrOp::create(b, tookLast, reset, ValueRange(), join,
                           ValueRange{old});

    b.setInsertionPointToStart(reset);
    LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::xchg, counter,
                              i32Const(b, 0), LLVM::AtomicOrdering::monotonic);
    LLVM::BrOp::create(b, ValueRange{old}, join);

    b.setInsertionPointToStart(join);
    Value taken = NVVM::ShflOp::create(
        b, i32, i32Const(b, -1), join->getArgument(0), i32Const(b, 0),
        i32Const(b, 31), NVVM::ShflKind::idx, UnitAttr());
    Value tile = LLVM::AddOp::create(b, adaptor.getPrograms(), taken);
    LLVM::BrOp::create(b, after);
    rewriter.replaceOp(op, tile);
    return success();
  }
};

/// A view of a swizzled tile: whole column blocks of 128 bytes, whole
/// groups of rows.
struct SubtileLowering : public ConvertOpToLLVMPattern<SubtileOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SubtileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MemRefType source = op.getSource().getType();
    int64_t elementBytes = source.getElementTypeBitWidth() / 8;
    int64_t atomCols = 128 / elementBytes;
    Value block =
        LLVM::UDivOp::create(b, adaptor.getCol(), i64Const(b, atomCols));
    Value blockBytes =
        LLVM::MulOp::create(b, block, i64Const(b, source.getDimSize(0) * 128));
    Value rowBytes = LLVM::MulOp::create(b, adaptor.getRow(), i64Const(b, 128));
    Value bytes = LLVM::AddOp::create(b, blockBytes, rowBytes);
    rewriter.replaceOp(op, offsetPtr(b, adaptor.getSource(), bytes));
    return success();
  }
};

} // namespace

void mlir::fa4::populatePipelineToNVVMPatterns(LLVMTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<CreateLowering, WaitOnBarrier<ProducerAcquireOp>,
               WaitOnBarrier<ConsumerWaitOp>, ReleaseLowering, LoadLowering,
               PutLowering, ClaimTileLowering, SubtileLowering>(converter);
}

//===- FA4Ops.cpp - fa4 operations ----------------------------------------===//
//
// Verifiers of the fa4 ops: pipelines against the kernel's plan, qk sub-stage
// ranges, TMA loads against their tensor maps, warp roles against the SM,
// MMA shapes, and named-barrier ids.
//
//===----------------------------------------------------------------------===//

#include "FA4/FA4Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fa4;

/// `[%state]` or `[%stage, %phase]`: the types follow from the count.
static ParseResult
parseState(OpAsmParser &parser,
           SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
           SmallVectorImpl<Type> &types) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands))
    return failure();
  MLIRContext *context = parser.getContext();
  if (operands.size() == 1) {
    types.push_back(PipelineStateType::get(context));
    return success();
  }
  if (operands.size() == 2) {
    types.append(2, IntegerType::get(context, 32));
    return success();
  }
  return parser.emitError(loc) << "expected a pipeline state, or a stage "
                                  "index and a phase, got "
                               << operands.size() << " operands";
}

static void printState(OpAsmPrinter &printer, Operation *, OperandRange state,
                       TypeRange) {
  printer << state;
}

#define GET_OP_CLASSES
#include "FA4/FA4Ops.cpp.inc"

/// "128x64xbf16": a shape and an element type, as in the config's words.
static std::string describeTile(ArrayRef<int64_t> shape, Type elementType) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (int64_t dim : shape)
    os << dim << "x";
  os << elementType;
  return text;
}

static StringRef kindName(PipelineKind kind) {
  switch (kind) {
  case PipelineKind::q:
    return "Q";
  case PipelineKind::k:
    return "K";
  case PipelineKind::v:
    return "V";
  case PipelineKind::operand:
    return "operand";
  case PipelineKind::schedule:
    return "schedule";
  }
  llvm_unreachable("unknown pipeline kind");
}

//===----------------------------------------------------------------------===//
// PipelineCreateOp
//===----------------------------------------------------------------------===//

LogicalResult PipelineCreateOp::verify() {
  PipelineType type = getPipeline().getType();
  ConfigAttr config = lookupConfig(*this);
  if (!config || type.getKind() == PipelineKind::operand ||
      type.getKind() == PipelineKind::schedule)
    return success();

  // Q, K and V tiles span the config's head dim or V's (the backward loads
  // dO beside Q and reads V transposed as the forward reads K). K arrives
  // whole (one qk stage) from TMA pipelining, and in bands of the plan's
  // qk stages after fa4-split-qk: the head dim's bands, as many as its
  // width holds.
  const int64_t band = config.getPaddedHeadDim() / config.getQkStages();
  const int64_t qk = type.getQkStages();
  if (type.getKind() == PipelineKind::k && qk != 1 &&
      qk * band != config.getPaddedHeadDim() &&
      qk * band != config.getPaddedHeadDimV())
    return emitOpError() << "K pipeline has " << qk
                         << " qk stages but the config plans "
                         << config.getQkStages() << " of " << band
                         << " columns (or 1 before the qk split)";

  int64_t rows = 0;
  SmallVector<int64_t, 2> widths = {config.getPaddedHeadDim()};
  if (config.getPaddedHeadDimV() != config.getPaddedHeadDim())
    widths.push_back(config.getPaddedHeadDimV());
  StringRef meaning;
  switch (type.getKind()) {
  case PipelineKind::q:
    rows = config.getBm();
    meaning = "bm x head_dim";
    // One Q tile that the consumer warpgroups share.
    if (type.getTiles().size() == 1 &&
        type.getTile(0).getDimSize(0) == config.getBm() * config.getQTiles())
      rows = config.getBm() * config.getQTiles();
    break;
  case PipelineKind::k:
    rows = config.getBn();
    meaning = "bn x head_dim / qk stages";
    if (qk != 1)
      widths = {band};
    break;
  case PipelineKind::v:
    rows = config.getBn();
    widths = {config.getPaddedHeadDimV(), config.getPaddedHeadDim()};
    if (widths[0] == widths[1])
      widths.pop_back();
    meaning = "bn x head_dim_v";
    break;
  case PipelineKind::operand:
  case PipelineKind::schedule:
    llvm_unreachable("operand and schedule pipelines are not checked");
  }
  for (unsigned i = 0, e = type.getTiles().size(); i < e; ++i) {
    MemRefType tile = type.getTile(i);
    if (tile.getRank() != 2 || tile.getDimSize(0) != rows ||
        !llvm::is_contained(widths, tile.getDimSize(1)) ||
        tile.getElementType() != config.getElementType()) {
      InFlightDiagnostic diag =
          emitOpError() << kindName(type.getKind()) << " pipeline tile "
                        << describeTile(tile.getShape(), tile.getElementType())
                        << " does not match the config's "
                        << describeTile({rows, widths[0]},
                                        config.getElementType());
      if (widths.size() > 1)
        diag << " or "
             << describeTile({rows, widths[1]}, config.getElementType());
      diag << " (" << meaning
           << (widths.size() > 1 ? ", or the other head dim" : "") << ")";
      return diag;
    }
  }
  if (type.getKind() != PipelineKind::q &&
      type.getKvStages() != config.getKvStages())
    return emitOpError() << kindName(type.getKind()) << " pipeline has "
                         << type.getKvStages()
                         << " kv stages but the config plans "
                         << config.getKvStages();
  return success();
}

//===----------------------------------------------------------------------===//
// Sub-stage ops
//===----------------------------------------------------------------------===//

/// The state is one `!fa4.pipeline_state` or (stage, phase) as two i32; the
/// qk sub-stage `qk` must exist; V pipelines have only sub-stage 0.
static LogicalResult verifyQkStageOf(Operation *op, PipelineType type,
                                     ValueRange state, int64_t qk) {
  bool implicit =
      state.size() == 1 && isa<PipelineStateType>(state[0].getType());
  bool isExplicit = state.size() == 2 && state[0].getType().isInteger(32) &&
                    state[1].getType().isInteger(32);
  if (!implicit && !isExplicit)
    return op->emitOpError() << "takes a pipeline state, or a stage index "
                                "and a phase as two i32 values";
  if (type.getKind() == PipelineKind::v && qk != 0)
    return op->emitOpError()
           << "V pipelines are loaded complete and take qk stage 0 only, got "
           << qk;
  if (qk < 0 || qk >= type.getQkStages())
    return op->emitOpError()
           << "qk stage " << qk << " is out of range for a pipeline with "
           << type.getQkStages() << " qk stages";
  return success();
}

LogicalResult ProducerAcquireOp::verifyQkStage() {
  return verifyQkStageOf(*this, getPipeline().getType(), getState(), getQk());
}
LogicalResult ProducerAcquireOp::verify() { return verifyQkStage(); }

LogicalResult ProducerLoadOp::verifyQkStage() {
  return verifyQkStageOf(*this, getPipeline().getType(), getState(), getQk());
}

LogicalResult ProducerLoadOp::verify() {
  if (failed(verifyQkStage()))
    return failure();
  PipelineType type = getPipeline().getType();
  if (type.getKind() == PipelineKind::schedule)
    return emitOpError() << "cannot load a schedule pipeline's i32 slot "
                            "through a tensor map; fa4.producer.put writes it";
  int64_t numTiles = type.getTiles().size();
  int64_t tileIndex = static_cast<int64_t>(getTile());
  if (tileIndex < 0 || tileIndex >= numTiles)
    return emitOpError() << "tile " << tileIndex
                         << " is out of range for a pipeline with " << numTiles
                         << " tiles per stage";
  MemRefType tile = type.getTile(getTile());
  TensorMapType map = getMap().getType();
  if (map.getElementType() != tile.getElementType())
    return emitOpError() << "tensor map of " << map.getElementType()
                         << " cannot fill a tile of " << tile.getElementType();
  ArrayRef<int64_t> box = map.getBox();
  // One coordinate group, or one per row of boxes (a gather).
  int64_t rowBoxes =
      tile.getRank() == 2 && box.size() >= 2 && box[box.size() - 2] > 0
          ? tile.getDimSize(0) / box[box.size() - 2]
          : 1;
  size_t numCoords = getCoords().size();
  if (numCoords != box.size() &&
      (rowBoxes < 2 || numCoords != box.size() * size_t(rowBoxes)))
    return emitOpError() << "a tensor map of rank " << box.size() << " takes "
                         << box.size() << " coordinates"
                         << (rowBoxes > 1
                                 ? ", or " +
                                       std::to_string(box.size() * rowBoxes) +
                                       " (one group per row of "
                                       "boxes)"
                                 : std::string())
                         << ", got " << numCoords;
  // Leading box dimensions of extent 1 (batch, head) do not reach the tile.
  int64_t extra = static_cast<int64_t>(box.size()) - tile.getRank();
  if (extra < 0 || llvm::any_of(box.take_front(std::max<int64_t>(extra, 0)),
                                [](int64_t dim) { return dim != 1; }))
    return emitOpError() << "tensor map box of rank " << box.size()
                         << " cannot fill a " << tile.getRank()
                         << "-d tile (leading box dimensions past the tile's "
                            "rank must be 1)";
  box = box.take_back(tile.getRank());
  for (auto [tileDim, boxDim] : llvm::zip_equal(tile.getShape(), box))
    if (tileDim % boxDim != 0)
      return emitOpError() << "tile "
                           << describeTile(tile.getShape(),
                                           tile.getElementType())
                           << " is not a whole number of "
                           << describeTile(box, map.getElementType())
                           << " boxes";
  return success();
}

LogicalResult ConsumerWaitOp::verifyQkStage() {
  return verifyQkStageOf(*this, getPipeline().getType(), getState(), getQk());
}

LogicalResult ConsumerWaitOp::verify() {
  if (failed(verifyQkStage()))
    return failure();
  PipelineType type = getPipeline().getType();
  if (getBuffers().getTypes() != type.getTiles())
    return emitOpError() << "results must be the pipeline's "
                         << type.getTiles().size() << " tile buffers, in order";
  return success();
}

LogicalResult ProducerPutOp::verifyQkStage() {
  return verifyQkStageOf(*this, getPipeline().getType(), getState(), 0);
}

LogicalResult ProducerPutOp::verify() {
  if (failed(verifyQkStage()))
    return failure();
  PipelineType type = getPipeline().getType();
  if (type.getKind() != PipelineKind::schedule)
    return emitOpError() << "writes the i32 slots of a schedule pipeline, not "
                            "the tiles of a "
                         << kindName(type.getKind()) << " pipeline";
  if (getValues().size() != type.getTiles().size())
    return emitOpError() << "writes " << getValues().size()
                         << " value(s) into a stage of "
                         << type.getTiles().size() << " slot(s)";
  return success();
}

LogicalResult ConsumerReleaseOp::verifyQkStage() {
  return verifyQkStageOf(*this, getPipeline().getType(), getState(), getQk());
}
LogicalResult ConsumerReleaseOp::verify() { return verifyQkStage(); }

//===----------------------------------------------------------------------===//
// Warp roles
//===----------------------------------------------------------------------===//

LogicalResult WarpSpecializeOp::verify() {
  SmallVector<std::tuple<RoleKind, int64_t, int64_t>> roles;
  for (Operation &op : getBody().front()) {
    auto role = dyn_cast<RoleOp>(op);
    if (!role)
      return op.emitOpError()
             << "cannot stand directly in 'fa4.warp_specialize': its body "
                "holds only 'fa4.role' ops";
    roles.emplace_back(role.getKind(), role.getWarps(), role.getRegs());
  }
  if (roles.empty())
    return emitOpError() << "needs at least one 'fa4.role'";
  ConfigAttr config = lookupConfig(*this);
  Target target = config ? config.getTarget() : Target::sm_90a;
  return verifyRoleBudget([&] { return emitOpError(); }, roles, target);
}

LogicalResult RoleOp::verify() {
  return verifyRole([&] { return emitOpError(); }, getKind(), getWarps(),
                    getRegs());
}

LogicalResult WarpgroupIdOp::verify() {
  if ((*this)->getParentOfType<RoleOp>())
    return success();
  auto function = (*this)->getParentOfType<FunctionOpInterface>();
  if (function && function->hasAttr(FA4Dialect::getConfigAttrName()))
    return success();
  return emitOpError() << "must be nested in an 'fa4.role', or in a kernel "
                          "with an #fa4.config before its roles are formed";
}

/// That `result` is a whole share of `source`'s dimension `dim` (the other
/// the same): a consumer warpgroup's rows or columns of a CTA tile.
static LogicalResult verifyShare(Operation *op, Type sourceType,
                                 Type resultType, int dim) {
  auto source = cast<RankedTensorType>(sourceType);
  auto result = cast<RankedTensorType>(resultType);
  if (source.getRank() != 2 || result.getRank() != 2 ||
      source.getElementType() != result.getElementType() ||
      source.getDimSize(1 - dim) != result.getDimSize(1 - dim) ||
      result.getDimSize(dim) <= 0 ||
      source.getDimSize(dim) % result.getDimSize(dim) != 0)
    return op->emitOpError()
           << "takes a whole share of the " << (dim ? "columns" : "rows")
           << " of a 2-d tile: " << result << " is not a share of " << source;
  return success();
}

LogicalResult WarpgroupRowsOp::verify() {
  return verifyShare(*this, getTile().getType(), getResult().getType(), 0);
}

LogicalResult WarpgroupColsOp::verify() {
  return verifyShare(*this, getTile().getType(), getResult().getType(), 1);
}

//===----------------------------------------------------------------------===//
// Asynchronous MMA
//===----------------------------------------------------------------------===//

LogicalResult MmaAsyncOp::verify() {
  MemRefType bType = getB().getType();
  bool mnMajor = getBMnMajor();
  // After distribution each register operand is one thread's values: N/2
  // accumulator values, K/2 register-A values.
  // The accumulator, or the result it would be when the product starts from
  // zero: the two have one type.
  Type accTile = getResult().getType();
  if (isa<VectorType>(accTile) || isa<VectorType>(getA().getType())) {
    int64_t n = bType.getDimSize(mnMajor ? 1 : 0);
    int64_t k = bType.getDimSize(mnMajor ? 0 : 1);
    auto accVector = dyn_cast<VectorType>(accTile);
    if (!accVector || accVector.getNumElements() != n / 2)
      return emitOpError() << "a distributed accumulator holds N/2 = " << n / 2
                           << " values per thread";
    if (auto aVector = dyn_cast<VectorType>(getA().getType()))
      if (aVector.getNumElements() != k / 2)
        return emitOpError() << "a distributed register A holds K/2 = " << k / 2
                             << " values per thread";
    return success();
  }
  auto aType = cast<ShapedType>(getA().getType());
  auto accType = cast<RankedTensorType>(accTile);
  if (aType.getRank() != 2 || accType.getRank() != 2)
    return emitOpError() << "A and the accumulator must be 2-d, got ranks "
                         << aType.getRank() << " and " << accType.getRank();
  if (aType.getElementType() != bType.getElementType())
    return emitOpError() << "A of " << aType.getElementType() << " and B of "
                         << bType.getElementType()
                         << " must have one element type";
  bool aMnMajor = getAMnMajor();
  if (aMnMajor && !isa<MemRefType>(aType))
    return emitOpError() << "reads an mn-major A from shared memory, not "
                         << aType;
  if (aMnMajor && aType.getElementTypeBitWidth() != 16)
    return emitOpError() << "reads an mn-major A of 16-bit elements (wgmma "
                            "transposes those only), not "
                         << aType.getElementType();
  int64_t m = aType.getDimSize(aMnMajor ? 1 : 0),
          k = aType.getDimSize(aMnMajor ? 0 : 1);
  int64_t bk = bType.getDimSize(mnMajor ? 0 : 1);
  int64_t n = bType.getDimSize(mnMajor ? 1 : 0);
  if (bk != k)
    return emitOpError() << "contraction sizes differ: A is " << m << "x" << k
                         << ", B ("
                         << (mnMajor ? "mn-major, K x N" : "k-major, N x K")
                         << ") is " << bType.getDimSize(0) << "x"
                         << bType.getDimSize(1);
  if (accType.getShape() != ArrayRef<int64_t>{m, n})
    return emitOpError() << "accumulator is " << accType.getDimSize(0) << "x"
                         << accType.getDimSize(1) << " but A x B is " << m
                         << "x" << n;
  if (m % 64 != 0)
    return emitOpError() << "M " << m
                         << " is not a multiple of 64 (one warpgroup MMA "
                            "covers 64 rows)";
  if (n % 8 != 0 || n > 256)
    return emitOpError() << "N " << n << " is not a multiple of 8 up to 256";
  if (k % 16 != 0)
    return emitOpError() << "K " << k << " is not a multiple of 16";
  return success();
}

namespace {
/// An accumulator that is a constant zero is no accumulator: the MMA starts
/// from zero (scale-d = 0) instead of reading zero-filled registers.
struct DropZeroAccumulator : public OpRewritePattern<MmaAsyncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MmaAsyncOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAcc() || !matchPattern(op.getAcc(), m_AnyZeroFloat()))
      return rewriter.notifyMatchFailure(op, "no constant-zero accumulator");
    rewriter.modifyOpInPlace(op, [&] { op.getAccMutable().clear(); });
    return success();
  }
};
} // namespace

void MmaAsyncOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<DropZeroAccumulator>(context);
}

LogicalResult MmaWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

static LogicalResult verifyNamedBarrier(Operation *op, int64_t id,
                                        int64_t threads) {
  if (id == 0)
    return op->emitOpError()
           << "named barrier id 0 is the CTA-wide barrier of __syncthreads; "
              "use 1 to 15";
  if (id < 0 || id > 15)
    return op->emitOpError()
           << "named barrier id " << id << " is outside [1, 15]";
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    return op->emitOpError() << "thread count " << threads
                             << " is not a multiple of the warp size 32 in "
                                "[32, 1024]";
  return success();
}

LogicalResult NamedBarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}

LogicalResult NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}

//===----------------------------------------------------------------------===//
// Shared-memory views and global stores
//===----------------------------------------------------------------------===//

LogicalResult SubtileOp::verify() {
  MemRefType source = getSource().getType();
  MemRefType result = getResult().getType();
  if (source.getElementType() != result.getElementType() ||
      source.getMemorySpace() != result.getMemorySpace())
    return emitOpError() << "a view keeps the element type and memory space "
                            "of its source";
  for (int i = 0; i < 2; ++i)
    if (result.getDimSize(i) > source.getDimSize(i))
      return emitOpError() << "a " << result.getDimSize(0) << "x"
                           << result.getDimSize(1) << " view does not fit in "
                           << "a " << source.getDimSize(0) << "x"
                           << source.getDimSize(1) << " tile";
  return success();
}

/// That `op`'s `layout`, which a distributed value no longer says, is
/// there when `value` is distributed (a vector) and is `value`'s layout
/// when it is a tensor.
static LogicalResult verifyLayout(Operation *op, Attribute layout, Type value,
                                  StringRef verb) {
  auto tensor = dyn_cast<RankedTensorType>(value);
  if (!tensor) {
    if (!layout)
      return op->emitOpError() << verb << " " << value
                               << ", a thread's values, without its layout";
    return success();
  }
  if (layout == tensor.getEncoding())
    return success();
  if (!layout)
    return op->emitOpError() << "does not say the layout of " << tensor;
  return op->emitOpError() << "says layout " << layout << " but " << verb << " "
                           << tensor;
}

LogicalResult GlobalStoreOp::verify() {
  Type element = isa<VectorType>(getTile().getType())
                     ? cast<VectorType>(getTile().getType()).getElementType()
                     : cast<RankedTensorType>(getTile().getType())
                           .getElementType();
  if (getAdd() && !element.isF32())
    return emitOpError() << "adds " << element
                         << " values atomically: atomic adds take f32";
  Attribute layout = getLayout();
  auto coalesced = dyn_cast<CoalescedLayoutAttr>(layout);
  if (getPieces() && !coalesced)
    return emitOpError() << "says pieces without a #fa4.coalesced layout";
  if (failed(verifyLayout(*this, layout, getTile().getType(), "stores")))
    return failure();
  if (isa<ColsLayoutAttr>(layout))
    return emitOpError() << "stores tiles in the #fa4.acc, #fa4.rows, "
                            "#fa4.blocked or #fa4.coalesced layout (a tile "
                            "or its row or column vector), not "
                         << layout;
  if (!getColumns())
    return success();
  if (!isa<AccLayoutAttr>(layout) && !(coalesced && !coalesced.isRowVector()))
    return emitOpError() << "takes columns() with " << layout
                         << ": columns() takes #fa4.acc and #fa4.coalesced "
                            "tiles and column vectors";
  return success();
}

LogicalResult GlobalLoadOp::verify() {
  bool tile = bool(getStride());
  if (tile != bool(getRows()))
    return emitOpError() << "takes stride() and rows() together (a 2-d "
                            "tile's) or neither (a vector's)";
  Attribute layout = getLayoutAttr();
  auto coalesced = dyn_cast_or_null<CoalescedLayoutAttr>(layout);
  if (getPieces() && !coalesced)
    return emitOpError() << "says pieces without a #fa4.coalesced layout";
  if (failed(verifyLayout(*this, layout, getResult().getType(), "loads")))
    return failure();
  if (!layout)
    return emitOpError() << "loads " << getResult().getType()
                         << ", which has no fa4 layout";
  if (isa<AccLayoutAttr>(layout) || (coalesced && coalesced.isTile())) {
    if (!tile)
      return emitOpError() << "loads a tile in " << layout
                           << " without stride() and rows()";
    return success();
  }
  if (tile)
    return emitOpError() << "takes stride() and rows(), a 2-d tile's, but "
                            "loads a vector in "
                         << layout;
  return success();
}

LogicalResult CombineWarpsOp::verify() {
  CoalescedLayoutAttr layout = getLayout();
  CoalescedGeometry geometry = layout.getGeometry();
  int64_t axis = getAxis();
  if (!layout.isTile() || (axis != 0 && axis != 1))
    return emitOpError() << "combines the reductions of a #fa4.coalesced "
                            "tile along axis 0 or 1, not "
                         << layout << " along axis " << axis;
  if (axis == 1 && geometry.warps == 1)
    return emitOpError() << "combines row reductions across the warps that "
                            "share a row, and in "
                         << layout << " a warp holds its rows alone";
  MemRefType scratch = getScratch().getType();
  int64_t values = cast<VectorType>(getPartial().getType()).getNumElements();
  if (axis == 0 && values != geometry.rowValues())
    return emitOpError() << "combines column reductions of " << layout
                         << ", whose threads hold " << geometry.rowValues()
                         << " columns, not " << values;
  // A row of the scratch for each warp (axis 1) or row group (axis 0).
  int64_t groups = axis == 1 ? 4 : 4 / geometry.warps;
  int64_t width = axis == 1 ? geometry.warpRows() * values : geometry.cols;
  if (!scratch.getElementType().isF32() || scratch.getRank() != 2 ||
      scratch.getDimSize(0) % groups != 0 || scratch.getDimSize(1) != width)
    return emitOpError() << "takes a scratch of f32 values, a row of " << width
                         << " for each " << (axis == 1 ? "warp" : "row group")
                         << ", not " << scratch;
  return success();
}

LogicalResult SharedStoreOp::verify() {
  MemRefType buffer = getBuffer().getType();
  Type element = buffer.getElementType();
  if (element.getIntOrFloatBitWidth() != 16 || buffer.getDimSize(1) % 64 ||
      buffer.getDimSize(0) % 64)
    return emitOpError() << "writes 2-d tiles of 16-bit elements, a multiple "
                            "of 64 rows by whole 128-byte swizzle spans, not "
                         << buffer;
  Type tile = getTile().getType();
  if (auto tensor = dyn_cast<RankedTensorType>(tile)) {
    if (!isa_and_nonnull<AccLayoutAttr>(tensor.getEncoding()) ||
        tensor.getRank() != 2 || tensor.getDimSize(0) != 64 ||
        tensor.getDimSize(1) != buffer.getDimSize(1) ||
        tensor.getElementType() != element)
      return emitOpError() << "writes a warpgroup's 64 rows of " << buffer
                           << " from the #fa4.acc layout, "
                           << RankedTensorType::get(
                                  {64, buffer.getDimSize(1)}, element,
                                  AccLayoutAttr::get(getContext()))
                           << ", not " << tile;
    return success();
  }
  auto vector = cast<VectorType>(tile);
  if (vector.getNumElements() != buffer.getDimSize(1) / 2 ||
      vector.getElementType() != element)
    return emitOpError() << "a thread holds " << buffer.getDimSize(1) / 2
                         << " values of " << element
                         << " of a warpgroup's 64 x " << buffer.getDimSize(1)
                         << " tile, not " << vector;
  return success();
}

LogicalResult SharedTileOp::verify() {
  MemRefType buffer = getBuffer().getType();
  auto tile = cast<RankedTensorType>(getTile().getType());
  if (tile.getEncoding() || tile.getShape() != buffer.getShape() ||
      tile.getElementType() != buffer.getElementType())
    return emitOpError() << "is the whole tile of " << buffer
                         << " in shared memory, not " << tile;
  return success();
}

LogicalResult SharedLoadOp::verify() {
  Type source = getSource().getType();
  ArrayRef<int64_t> shape;
  Type element;
  if (auto tensor = dyn_cast<RankedTensorType>(source)) {
    shape = tensor.getShape();
    element = tensor.getElementType();
    if (tensor.getEncoding())
      return emitOpError() << "reads a loaded tile in shared memory, not the "
                              "register tile "
                           << tensor;
  } else {
    auto buffer = cast<MemRefType>(source);
    shape = buffer.getShape();
    element = buffer.getElementType();
  }
  unsigned bits = element.getIntOrFloatBitWidth();
  int64_t span = bits == 16 || bits == 32 ? 1024 / bits : 0;
  if (shape.size() != 2 || !span || shape[1] % span != 0 ||
      shape[0] % 64 != 0)
    return emitOpError() << "reads 2-d tiles of 16- or 32-bit elements, a "
                            "multiple of 64 rows by whole 128-byte swizzle "
                            "spans, not "
                         << source;
  Type result = getResult().getType();
  if (auto tensor = dyn_cast<RankedTensorType>(result)) {
    if (!isa_and_nonnull<AccLayoutAttr>(tensor.getEncoding()) ||
        tensor.getRank() != 2 || tensor.getDimSize(0) != 64 ||
        tensor.getDimSize(1) != shape[1] || tensor.getElementType() != element)
      return emitOpError() << "reads a warpgroup's 64 rows of " << source
                           << " in the #fa4.acc layout as "
                           << RankedTensorType::get(
                                  {64, shape[1]}, element,
                                  AccLayoutAttr::get(getContext()))
                           << ", not " << result;
    return success();
  }
  auto vector = cast<VectorType>(result);
  if (!isa<MemRefType>(source))
    return emitOpError() << "reads a thread's values (" << vector
                         << ") from a stage buffer (a memref), not from "
                         << source << ": run fa4-pipeline-tma first";
  if (vector.getNumElements() != shape[1] / 2 ||
      vector.getElementType() != element)
    return emitOpError() << "a thread holds " << shape[1] / 2 << " values of "
                         << element << " of a warpgroup's 64 x " << shape[1]
                         << " share, not " << vector;
  return success();
}

LogicalResult TmaStoreOp::verify() {
  TensorMapType map = getMap().getType();
  ArrayRef<int64_t> box = map.getBox();
  if (getCoords().size() != box.size())
    return emitOpError() << "has " << getCoords().size()
                         << " coordinates for a tensor map of rank "
                         << box.size();
  int64_t elementBits = map.getElementType().getIntOrFloatBitWidth();
  if (box.size() < 2 || box[box.size() - 2] != 64 || map.getSwizzle() != 128 ||
      (elementBits != 16 && elementBits != 32) ||
      box.back() != 1024 / elementBits)
    return emitOpError() << "stores 16- or 32-bit elements through boxes of "
                            "64 rows by one 128-byte swizzle span (64 or 32 "
                            "columns) with the 128-byte swizzle, got "
                         << map;
  if (getAdd() && !map.getElementType().isF32())
    return emitOpError() << "adds f32 values, not " << map.getElementType();
  MemRefType buffer = getBuffer().getType();
  if (buffer.getElementType() != map.getElementType())
    return emitOpError() << "stages " << map.getElementType()
                         << " elements in a buffer of "
                         << buffer.getElementType();
  auto tensor = dyn_cast<RankedTensorType>(getTile().getType());
  if (!tensor)
    return success();
  if (!isa_and_nonnull<AccLayoutAttr>(tensor.getEncoding()))
    return emitOpError() << "stores tiles in the #fa4.acc layout, got "
                         << tensor;
  if (tensor.getElementType() != map.getElementType())
    return emitOpError() << "stores a tile of " << tensor.getElementType()
                         << " through a tensor map of "
                         << map.getElementType();
  int64_t cols = tensor.getDimSize(1);
  if (cols % box.back() != 0 || cols > buffer.getDimSize(1))
    return emitOpError() << "stores " << cols << " columns: a whole number "
                         << "of " << box.back() << "-column boxes, at most "
                         << "the buffer's " << buffer.getDimSize(1);
  return success();
}

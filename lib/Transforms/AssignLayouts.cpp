//===- AssignLayouts.cpp - register tiles of one consumer warpgroup -------===//
//
// The `fa4-assign-layouts` pass: the first step from a tile program to the
// fa4 level. The consumer warpgroups of the kernel's plan split the rows of
// its CTA tiles, so every tile held in registers becomes the share of one
// warpgroup in an fa4 layout (2-d tiles in the wgmma accumulator layout
// #fa4.acc, row vectors in #fa4.rows); loaded tiles stay whole, in shared
// memory, and a dot that reads one as its A operand reads the warpgroup's
// rows of it (`fa4.warpgroup_rows`). A 1-d tile is a row vector unless it
// is repeated along the rows of a 2-d tile (`v.row()`), directly or through
// the elementwise ops, loops and conditionals that connect it to one: then
// it is a column vector (#fa4.cols), which every warpgroup holds whole.
// Vectors, and 2-d tiles of the CTA's rows (a score bias), loaded through
// a `tile.make_desc` of a kernel pointer become `fa4.global_load`s, the
// tiles the warpgroup's rows in #fa4.acc. Row indices (`tile.iota` along
// axis 0) gain the warpgroup's first row, and stores of register tiles
// through a `tile.make_desc` of a kernel pointer become `fa4.global_store`s
// with the tensor's edge as their row limit and, where the width may end
// inside a block, a column count; stores through a descriptor
// argument (a tensor map) TMA stores through a staging tile of shared
// memory (`fa4.tma_store`, with a `fa4.tma_store_wait` before the kernel
// returns; atomic adds of f32 tiles TMA adds). A dot that reads a
// transposed register tile reads it from a shared-memory tile the
// warpgroups write it into (`fa4.shared_store`, between named barriers of
// them all), and its product is split by columns over the warpgroups (each
// holds all its rows, a share of its columns, from the same share of B's
// columns, `fa4.warpgroup_cols`), or, when it has the CTA's rows, by rows.
// Scalar reads through a kernel pointer
// (`tile.load_scalar`) become LLVM loads. In a kernel without a dot, 2-d
// tiles of other rows than the CTA's take #fa4.coalesced (each warpgroup its
// share of the rows, CoalescedFragment.h) and the vectors joined to their
// reductions and broadcasts its slices; their loads and stores through
// pointers are split by one uniform test into a copy that moves whole
// 16-byte pieces and one that moves values.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "PlannedKernels.h"

#include "FA4/CoalescedFragment.h"
#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4ASSIGNLAYOUTS
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

/// A tile that lives in shared memory: a loaded block, a register tile
/// staged there (`fa4.shared_tile`), a warpgroup's columns of one, or a
/// transpose.
static bool isShared(Value value) {
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<tile::LoadOp, SharedTileOp>(def))
    return true;
  if (isa_and_nonnull<tile::TransOp, WarpgroupColsOp>(def))
    return isShared(def->getOperand(0));
  return false;
}

/// The register tile a dot reads transposed as its A operand (`trans(x)`
/// of an `x` that is not in shared memory), or null.
static Value transposedRegisterA(tile::DotOp dot) {
  auto trans = dot.getA().getDefiningOp<tile::TransOp>();
  if (!trans || isShared(trans.getSrc()))
    return Value();
  return trans.getSrc();
}

/// The element offset of the slice that the `lead` leading (unit) block
/// dimensions of a `tile.make_desc` select, whatever their strides:
/// (B, H, S, D) and (B, S, H, D) alike.
static Value sliceOffset(ImplicitLocOpBuilder &b, ValueRange coords,
                         ValueRange strides, int64_t lead) {
  Value offset = arith::ConstantIndexOp::create(b, 0);
  for (int64_t i = 0; i < lead; ++i)
    offset = arith::AddIOp::create(
        b, offset, arith::MulIOp::create(b, coords[i], strides[i]));
  return offset;
}

/// The element coordinate of a block coordinate along a dimension of
/// `size`-element blocks: block coordinates count blocks; with `elements`
/// they are the element offsets already.
static Value elementCoord(ImplicitLocOpBuilder &b, Value coord, int64_t size,
                          bool elements) {
  if (elements)
    return coord;
  return arith::MulIOp::create(b, coord,
                               arith::ConstantIndexOp::create(b, size));
}

namespace {
/// Layout assignment of one kernel under its plan.
class LayoutAssignment {
public:
  LayoutAssignment(func::FuncOp function, ConfigAttr config)
      : function(function), config(config), rows(config.getBm()),
        ctaRows(config.getBm() * config.getQTiles()) {}

  LogicalResult run();

private:
  /// The warpgroup's share of a register tile of type `type`, or null with
  /// an error at `loc`.
  RankedTensorType share(Value value, RankedTensorType type, Location loc);
  LogicalResult retype(Value value, Location loc);
  LogicalResult retypeConstant(arith::ConstantOp constant);
  /// Offsets an axis-0 iota by the warpgroup's first row (or the first
  /// element of its run).
  void offsetRowIota(tile::IotaOp iota);
  /// Whether a launch of the kernel requires `size`, an index argument
  /// given by a launch rule, to be a multiple of `multiple` (the author's
  /// `p.require(dim % multiple == 0)`).
  bool requiresMultiple(Value size, int64_t multiple);
  LogicalResult lowerStore(tile::StoreOp store);
  LogicalResult storeThroughTMA(tile::StoreOp store);
  LogicalResult readIntoRegisters(tile::LoadOp load);
  LogicalResult stageTransposedA(tile::DotOp dot, Value x);
  LogicalResult findColumnShares();
  LogicalResult loadVector(tile::LoadOp load);
  LogicalResult findColumnVectors();
  /// The first row of this warpgroup's share, as an index.
  Value firstRow();
  /// The first column of this warpgroup's share of a tile split by columns
  /// in shares of `cols`, made at `b`'s point.
  static Value firstColumn(ImplicitLocOpBuilder &b, int64_t cols) {
    return arith::MulIOp::create(b, WarpgroupIdOp::create(b),
                                 arith::ConstantIndexOp::create(b, cols));
  }
  /// A store of a #fa4.coalesced column vector (one value per column of a
  /// tile, the same in every row group): by the first row group's lanes of
  /// the first warpgroup, as the first row of a tile.
  LogicalResult storeColumnVector(tile::StoreOp store, tile::MakeDescOp desc,
                                  CoalescedLayoutAttr layout);
  /// The first element of this warpgroup's `run` of a 1-d tile, or its
  /// first row of a #fa4.coalesced tile or row vector.
  Value firstElement(RankedTensorType run);
  /// Whether a 2-d register tile of `rows` CTA rows takes #fa4.coalesced:
  /// one of other rows than the plan's in a kernel without a dot.
  bool coalesces(int64_t rows) const { return !hasDot && rows != ctaRows; }
  /// The #fa4.coalesced layout (with `slice`) of a 2-d tile of `rows` CTA
  /// rows by `cols`: the fewest warps a row (1, 2 or 4) whose footprint the
  /// warpgroups' shares of the rows fill, a thread holding at most 64
  /// values if it can, else at most kMaxCoalescedValues; null when none.
  CoalescedLayoutAttr coalescedLayout(int64_t rows, int64_t cols,
                                      int64_t slice) const {
    if (rows % warpgroups() != 0)
      return {};
    int64_t share = rows / warpgroups();
    for (int64_t most : {int64_t(64), kMaxCoalescedValues})
      for (int64_t warps : {1, 2, 4}) {
        CoalescedGeometry layout{cols, warps};
        if (layout.valid() && share % layout.footprintRows() == 0 &&
            layout.tileValues(share) <= most)
          return CoalescedLayoutAttr::get(config.getContext(), cols, warps,
                                          slice);
      }
    return {};
  }
  /// A #fa4.coalesced load's or store's second copy, which reads or writes
  /// whole pieces, where `whole` holds (one uniform branch: each piece at
  /// once where the addresses allow, value by value elsewhere).
  void splitByPieces(Operation *op, Value whole);
  /// Whether all of `values` are multiples of a piece.
  Value wholePieces(ImplicitLocOpBuilder &b, ValueRange values);
  /// Loads of #fa4.coalesced tiles and vectors in loops, one iteration
  /// ahead: each loop carries the next iteration's.
  LogicalResult prefetchLoads();

  func::FuncOp function;
  ConfigAttr config;
  int64_t rows;
  int64_t ctaRows;
  Value firstRowValue;
  /// The first element of this warpgroup's run, by the run's length.
  DenseMap<int64_t, Value> firstElements;
  Operation *storeWait = nullptr;
  /// The 1-d register tiles that are column vectors.
  DenseSet<Value> columnVectors;
  /// The 2-d register tiles the warpgroups split by columns (each holds
  /// all the rows of its share of the columns): the products of dots that
  /// read a transposed register tile, and the math on them.
  DenseSet<Value> columnShares;
  /// The register tiles stageTransposedA staged, and their transposes.
  DenseMap<Value, Value> stagedTransposes;
  /// The 1-d register tiles that are row or column vectors of a
  /// #fa4.coalesced tile, with their layout.
  DenseMap<Value, CoalescedLayoutAttr> coalescedVectors;
  int64_t warpgroups() const { return ctaRows / rows; }
  bool hasDot = false;
};
} // namespace

RankedTensorType LayoutAssignment::share(Value value, RankedTensorType type,
                                         Location loc) {
  MLIRContext *context = type.getContext();
  if (auto coalesced = coalescedVectors.lookup(value)) {
    int64_t length = type.getDimSize(0);
    if (coalesced.isColumnVector())
      return RankedTensorType::get({length}, type.getElementType(), coalesced);
    return RankedTensorType::get({length / warpgroups()}, type.getElementType(),
                                 coalesced);
  }
  if (type.getRank() == 2 && coalesces(type.getDimSize(0))) {
    int64_t ctaTileRows = type.getDimSize(0), cols = type.getDimSize(1);
    CoalescedLayoutAttr layout = coalescedLayout(ctaTileRows, cols, -1);
    if (!layout) {
      mlir::emitError(loc)
          << "a register tile " << type << " in a kernel without a dot: fa4 "
          << "spreads its rows over the " << warpgroups()
          << " consumer warpgroups, and a row over 1, 2 or 4 warps of up to "
             "32 lanes in pieces of 8 columns, which takes a multiple of 8 "
             "columns (8 to 128 a warp by powers of two, or a multiple of "
             "256), rows a multiple of "
          << warpgroups() << " warpgroups times a warp's rows, and at most "
          << kMaxCoalescedValues * 128 * warpgroups() << " elements";
      return nullptr;
    }
    return RankedTensorType::get({ctaTileRows / warpgroups(), cols},
                                 type.getElementType(), layout);
  }
  // A product split by columns (stageTransposedA checked its shape) and
  // the elementwise math on it: all its rows, a share of its columns.
  if (columnShares.contains(value))
    return RankedTensorType::get(
        {type.getDimSize(0), type.getDimSize(1) / warpgroups()},
        type.getElementType(), AccLayoutAttr::get(context));
  if (type.getRank() == 1 && columnVectors.contains(value))
    return RankedTensorType::get(type.getShape(), type.getElementType(),
                                 ColsLayoutAttr::get(context));
  if (type.getRank() == 2 && type.getDimSize(0) == ctaRows)
    return RankedTensorType::get({rows, type.getDimSize(1)},
                                 type.getElementType(),
                                 AccLayoutAttr::get(context));
  if (type.getRank() == 1 && type.getDimSize(0) == ctaRows)
    return RankedTensorType::get({rows}, type.getElementType(),
                                 RowsLayoutAttr::get(context));
  // Any other 1-d tile, neither a row nor a column of a 2-d one: a run of
  // consecutive elements a warpgroup, a piece a thread.
  int64_t warpgroups = ctaRows / rows, threads = 128 * warpgroups;
  if (type.getRank() == 1) {
    int64_t length = type.getDimSize(0);
    if (length % threads != 0 || length / threads > kMaxBlockedValues) {
      mlir::emitError(loc)
          << "a 1-d register tile of " << length << " elements: fa4 spreads "
          << "a 1-d tile that is neither a row nor a column of a 2-d one over "
          << "the " << threads << " consumer threads, a multiple of " << threads
          << " elements up to " << threads * kMaxBlockedValues;
      return nullptr;
    }
    return RankedTensorType::get({length / warpgroups}, type.getElementType(),
                                 BlockedLayoutAttr::get(context));
  }
  mlir::emitError(loc) << "a register tile " << type
                       << " does not have the plan's " << ctaRows
                       << " rows (" << ctaRows / rows
                       << " consumer warpgroups of " << rows
                       << " rows): fa4 keeps 2-d tiles and row vectors of "
                          "the CTA's rows in registers, and column vectors "
                          "(repeated along the rows of a 2-d tile)";
  return nullptr;
}

LogicalResult LayoutAssignment::retype(Value value, Location loc) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getEncoding() || isShared(value))
    return success();
  RankedTensorType shared = share(value, type, loc);
  if (!shared)
    return failure();
  value.setType(shared);
  return success();
}

LogicalResult LayoutAssignment::retypeConstant(arith::ConstantOp constant) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  if (!type || !type.getEncoding())
    return success();
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return constant.emitOpError()
           << "a register tile constant must be a splat to be split among "
              "the consumer warpgroups";
  constant.setValueAttr(
      DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
  return success();
}

Value LayoutAssignment::firstRow() {
  if (!firstRowValue)
    firstRowValue = mlir::fa4::detail::buildWarpgroupFirstRow(function, config);
  return firstRowValue;
}

Value LayoutAssignment::firstElement(RankedTensorType run) {
  Value &first = firstElements[run.getDimSize(0)];
  if (!first) {
    auto b = ImplicitLocOpBuilder::atBlockBegin(function.getLoc(),
                                                &function.getBody().front());
    first = arith::MulIOp::create(
        b, WarpgroupIdOp::create(b),
        arith::ConstantIndexOp::create(b, run.getDimSize(0)));
  }
  return first;
}

void LayoutAssignment::offsetRowIota(tile::IotaOp iota) {
  auto type = cast<RankedTensorType>(iota.getType());
  Value first = isa<BlockedLayoutAttr, CoalescedLayoutAttr>(type.getEncoding())
                    ? firstElement(type)
                    : firstRow();
  ImplicitLocOpBuilder b(iota.getLoc(), iota);
  b.setInsertionPointAfter(iota);
  Value scalar = first;
  if (!type.getElementType().isIndex())
    scalar = arith::IndexCastOp::create(b, type.getElementType(), first);
  Value offset = tile::SplatOp::create(b, type, scalar);
  auto shifted = arith::AddIOp::create(b, iota, offset);
  iota.getResult().replaceAllUsesExcept(shifted, shifted);
}

bool LayoutAssignment::requiresMultiple(Value size, int64_t multiple) {
  auto arg = dyn_cast<BlockArgument>(size);
  auto rules = function->getAttrOfType<ArrayAttr>(kRequireAttrName);
  if (!arg || arg.getOwner() != &function.getBody().front() || !rules)
    return false;
  auto value = function.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                     kValueArgAttrName);
  if (!value)
    return false;
  // The rule's text without spaces: "b.dim0 % 128 == 0" as "b.dim0%128==0".
  auto squeezed = [](StringRef text) {
    std::string out;
    llvm::copy_if(text, std::back_inserter(out),
                  [](char c) { return c != ' '; });
    return out;
  };
  std::string rule =
      squeezed(value.getValue()) + "%" + std::to_string(multiple) + "==0";
  return llvm::any_of(rules, [&](Attribute r) {
    auto text = dyn_cast<StringAttr>(r);
    return text && squeezed(text.getValue()) == rule;
  });
}

LogicalResult LayoutAssignment::lowerStore(tile::StoreOp store) {
  auto tileType = cast<RankedTensorType>(store.getValue().getType());
  if (!tileType.getEncoding())
    return store.emitOpError()
           << "stores a shared-memory tile: fa4 stores register tiles";
  if (auto arg = dyn_cast<BlockArgument>(store.getDesc()))
    if (arg.getOwner() == &function.getBody().front())
      return storeThroughTMA(store);
  auto desc = store.getDesc().getDefiningOp<tile::MakeDescOp>();
  auto base = desc ? dyn_cast<BlockArgument>(desc.getBase()) : nullptr;
  if (!base || base.getOwner() != &function.getBody().front())
    return store.emitOpError()
           << "stores through a tile.make_desc of a kernel pointer argument";
  ArrayRef<int64_t> block = desc.getDesc().getType().getBlockShape();
  int64_t rank = block.size();
  auto coalesced = dyn_cast<CoalescedLayoutAttr>(tileType.getEncoding());
  if (coalesced && store.getAdd())
    return store.emitOpError()
           << "adds " << tileType
           << ": fa4 stores a tile of other rows than the plan's, and its "
              "row and column vectors, without atomics";
  if (coalesced && coalesced.isColumnVector())
    return storeColumnVector(store, desc, coalesced);
  // A #fa4.coalesced tile is stored as an #fa4.acc one is, from the
  // warpgroup's first row.
  bool acc = isa<AccLayoutAttr>(tileType.getEncoding()) ||
             (coalesced && coalesced.isTile());
  // A run of a 1-d tile is stored as the rows of a row vector are, from
  // the warpgroup's first element.
  bool blocked = isa<BlockedLayoutAttr>(tileType.getEncoding());
  bool ownRows = blocked || coalesced;
  // A tile split by columns: every warpgroup has all its rows.
  bool columnShare = columnShares.contains(store.getValue());
  int64_t blockRows = ownRows       ? tileType.getDimSize(0) * warpgroups()
                      : columnShare ? rows
                                    : ctaRows;
  int64_t rowDim = rank - (acc ? 2 : 1);
  if (rowDim < 0 || block[rowDim] != blockRows)
    return store.emitOpError() << "stores blocks of " << blockRows
                               << (blocked ? " elements (the tile's)"
                                           : " rows (the plan's CTA rows)")
                               << ", not " << desc.getDesc().getType();

  ImplicitLocOpBuilder b(store.getLoc(), store);
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(b, value);
  };
  ValueRange coords = store.getCoords(), shape = desc.getShape(),
             strides = desc.getStrides();
  // The slice of the leading (unit) block dimensions joins the column, so
  // rows count within the slice.
  Value lead = sliceOffset(b, coords, strides, rowDim);
  bool elements = store.getElements();
  auto scaled = [&](Value coord, int64_t size) {
    return elementCoord(b, coord, size, elements);
  };
  Value row = scaled(coords[rowDim], blockRows);
  if (!columnShare)
    row = arith::AddIOp::create(b, row,
                                ownRows ? firstElement(tileType) : firstRow());
  Value limit = shape[rowDim];
  Value firstCol =
      acc ? scaled(coords[rowDim + 1], block[rowDim + 1]) : index(0);
  if (columnShare)
    firstCol = arith::AddIOp::create(b, firstCol,
                                     firstColumn(b, tileType.getDimSize(1)));
  Value col = arith::AddIOp::create(b, firstCol, lead);
  // Columns past the tensor's edge are not written: none to test when the
  // width is a whole number of blocks (a constant one, or one a launch
  // requires) and the block starts at a block boundary; a tensor narrower
  // than the block (a head dim padded to whole 128-byte rows) by a
  // constant; any other by what is left of the row from the block's first
  // column (a matrix's last block of columns).
  Value columns;
  if (acc) {
    int64_t blockCols = block[rowDim + 1];
    std::optional<int64_t> width = getConstantIntValue(shape[rowDim + 1]);
    std::optional<int64_t> first = getConstantIntValue(coords[rowDim + 1]);
    bool aligned = !elements || (first && *first % blockCols == 0);
    bool wholeBlocks = width ? *width % blockCols == 0
                             : requiresMultiple(shape[rowDim + 1], blockCols);
    if (width && first && *width < blockCols && !columnShare)
      columns = index(*width - *first * (elements ? 1 : blockCols));
    else if (!wholeBlocks || !aligned)
      columns = arith::SubIOp::create(b, shape[rowDim + 1], firstCol);
  }
  // A #fa4.coalesced tile's pieces are whole where its rows' starts and
  // its column count are multiples of one.
  Value whole;
  if (coalesced && coalesced.isTile()) {
    SmallVector<Value> starts = {strides[rowDim], col};
    if (columns)
      starts.push_back(columns);
    whole = wholePieces(b, starts);
  }
  auto global = GlobalStoreOp::create(
      b, store.getValue(), base, row, col, limit, strides[rowDim], columns,
      store.getAdd(), tileType.getEncoding(), /*pieces=*/false);
  if (whole)
    splitByPieces(global, whole);
  store.erase();
  return success();
}

LogicalResult LayoutAssignment::storeColumnVector(tile::StoreOp store,
                                                  tile::MakeDescOp desc,
                                                  CoalescedLayoutAttr layout) {
  auto type = cast<RankedTensorType>(store.getValue().getType());
  ArrayRef<int64_t> block = desc.getDesc().getType().getBlockShape();
  int64_t rank = block.size();
  int64_t length = type.getDimSize(0);
  ValueRange coords = store.getCoords(), shape = desc.getShape(),
             strides = desc.getStrides();
  std::optional<int64_t> unit = getConstantIntValue(strides.back());
  if (block.back() != length || !unit || *unit != 1 ||
      !llvm::all_of(block.drop_back(), [](int64_t n) { return n == 1; }))
    return store.emitOpError()
           << "stores the column vector " << type << " in blocks of "
           << desc.getDesc().getType() << ": fa4 stores it in blocks of its "
           << length << " elements (after leading 1s), contiguous";
  ImplicitLocOpBuilder b(store.getLoc(), store);
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(b, value);
  };
  // The vector's first element within the slice of the leading dimensions,
  // and what is left of the row from it; a tile of one row that only the
  // first warpgroup holds (the others' rows start at their index).
  Value first = elementCoord(b, coords.back(), length, store.getElements());
  Value col = arith::AddIOp::create(b, first,
                                    sliceOffset(b, coords, strides, rank - 1));
  Value columns = arith::SubIOp::create(b, shape.back(), first);
  Value whole = wholePieces(b, {col, columns});
  auto global = GlobalStoreOp::create(
      b, store.getValue(), desc.getBase(), WarpgroupIdOp::create(b), col,
      index(1), index(0), columns, /*add=*/false, layout, /*pieces=*/false);
  splitByPieces(global, whole);
  store.erase();
  return success();
}

Value LayoutAssignment::wholePieces(ImplicitLocOpBuilder &b,
                                    ValueRange values) {
  Value piece = arith::ConstantIndexOp::create(b, kCoalescedPiece);
  Value zero = arith::ConstantIndexOp::create(b, 0);
  Value whole;
  for (Value v : values) {
    if (std::optional<int64_t> known = getConstantIntValue(v);
        known && *known % kCoalescedPiece == 0)
      continue;
    Value test = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, arith::RemUIOp::create(b, v, piece), zero);
    whole = whole ? arith::AndIOp::create(b, whole, test) : test;
  }
  return whole ? whole : arith::ConstantIntOp::create(b, 1, 1).getResult();
}

void LayoutAssignment::splitByPieces(Operation *op, Value whole) {
  OpBuilder b(op);
  auto branch = scf::IfOp::create(b, op->getLoc(), op->getResultTypes(), whole,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
  for (bool pieces : {true, false}) {
    Region &region = pieces ? branch.getThenRegion() : branch.getElseRegion();
    OpBuilder inner(op->getContext());
    inner.createBlock(&region);
    Operation *copy = inner.clone(*op);
    if (pieces)
      copy->setAttr("pieces", inner.getUnitAttr());
    scf::YieldOp::create(inner, op->getLoc(), copy->getResults());
  }
  op->replaceAllUsesWith(branch.getResults());
  op->erase();
}

/// A load of a #fa4.coalesced tile or vector: a `fa4.global_load`, or the
/// `scf.if` of its two copies.
static bool isCoalescedLoad(Operation *op) {
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return branch.getNumResults() == 1 &&
           isa<GlobalLoadOp>(branch.thenBlock()->front());
  auto load = dyn_cast<GlobalLoadOp>(op);
  return load && isa_and_nonnull<CoalescedLayoutAttr>(load.getLayoutAttr());
}

/// The ops of `loop`'s body that `op` (one of them) depends on, in body
/// order, when they can be evaluated for any iteration: ops without
/// regions or side effects whose operands are the induction variable,
/// values from outside the loop or results of such ops. Fails otherwise (a
/// loop-carried value, a load).
static FailureOr<SmallVector<Operation *>> addressSlice(Operation *op,
                                                        scf::ForOp loop) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> pending;
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(op->getRegions(), used);
  llvm::append_range(pending, op->getOperands());
  llvm::append_range(pending, used);
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    if (value == loop.getInductionVar() ||
        value.getParentRegion()->isProperAncestor(&loop.getRegion()) ||
        !loop->isAncestor(value.getParentRegion()->getParentOp()))
      continue;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body || def->getNumRegions() ||
        !isMemoryEffectFree(def))
      return failure();
    if (slice.insert(def))
      llvm::append_range(pending, def->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

LogicalResult LayoutAssignment::prefetchLoads() {
  SmallVector<scf::ForOp> loops;
  function.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  IRRewriter rewriter(function.getContext());
  for (scf::ForOp loop : loops) {
    SmallVector<Operation *> loads;
    SmallVector<SmallVector<Operation *>> slices;
    for (Operation &op : loop.getBody()->without_terminator())
      if (isCoalescedLoad(&op))
        if (FailureOr<SmallVector<Operation *>> slice = addressSlice(&op, loop);
            succeeded(slice)) {
          loads.push_back(&op);
          slices.push_back(std::move(*slice));
        }
    if (loads.empty())
      continue;
    // The loads (and what their addresses take) for iteration `iv`, at
    // `b`'s insertion point.
    Value oldIv = loop.getInductionVar();
    auto loadsAt = [&](OpBuilder &b, Value iv, Value bodyIv) {
      SmallVector<Value> results;
      for (auto [load, slice] : llvm::zip(loads, slices)) {
        IRMapping map;
        map.map(oldIv, iv);
        map.map(bodyIv, iv);
        for (Operation *op : slice)
          b.clone(*op, map);
        results.push_back(b.clone(*load, map)->getResult(0));
      }
      return results;
    };
    // The first iteration's before the loop (a loop of no iteration reads
    // within the tensor's rows and columns all the same: its loads test
    // them); each iteration the next one's but the last.
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> first = loadsAt(rewriter, loop.getLowerBound(), oldIv);
    Value step = loop.getStep();
    Value upper = loop.getUpperBound();
    FailureOr<LoopLikeOpInterface> rotated = loop.replaceWithAdditionalYields(
        rewriter, first, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument>) {
          // The body may still be the old loop's or already the new one's.
          Value iv = b.getInsertionBlock()->getArgument(0);
          Value next = arith::AddIOp::create(b, loc, iv, step);
          // The last iteration loads nothing (zeros that no one reads).
          Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             next, upper);
          SmallVector<Type> types;
          for (Operation *load : loads)
            types.push_back(load->getResult(0).getType());
          auto ahead = scf::IfOp::create(b, loc, types, more,
                                         /*addThenBlock=*/false,
                                         /*addElseBlock=*/false);
          OpBuilder inner(b.getContext());
          inner.createBlock(&ahead.getThenRegion());
          scf::YieldOp::create(inner, loc, loadsAt(inner, next, iv));
          inner.createBlock(&ahead.getElseRegion());
          SmallVector<Value> zeros;
          for (Type type : types)
            zeros.push_back(arith::ConstantOp::create(
                inner, loc, cast<TypedAttr>(inner.getZeroAttr(type))));
          scf::YieldOp::create(inner, loc, zeros);
          return SmallVector<Value>(ahead.getResults());
        });
    if (failed(rotated))
      return loop.emitOpError() << "cannot carry its loads ahead";
    auto carried = cast<scf::ForOp>(rotated->getOperation())
                       .getRegionIterArgs()
                       .take_back(loads.size());
    for (auto [load, arg] : llvm::zip(loads, carried)) {
      load->getResult(0).replaceAllUsesWith(arg);
      load->erase();
    }
  }
  return success();
}

/// A register tile stored through a descriptor argument leaves by TMA: the
/// argument becomes a tensor map of one warpgroup's rows by one 128-byte
/// swizzle span, and the store a `fa4.tma_store` through a staging tile of
/// the CTA's rows (fa4-pipeline-tma makes it the Q stage in a one-tile
/// plan).
LogicalResult LayoutAssignment::storeThroughTMA(tile::StoreOp store) {
  auto arg = cast<BlockArgument>(store.getDesc());
  if (!config.getTmaStore())
    return store.emitOpError()
           << "stores through descriptor argument #" << arg.getArgNumber()
           << " but the plan has no tma_store (fa4-attach-config sets it for "
              "a kernel that does)";
  if (!arg.hasOneUse())
    return store.emitOpError() << "descriptor argument #" << arg.getArgNumber()
                               << " is used more than once: fa4 stores "
                                  "through a tensor map once";
  auto tileType = cast<RankedTensorType>(store.getValue().getType());
  auto descType = cast<tile::DescriptorType>(arg.getType());
  ArrayRef<int64_t> block = descType.getBlockShape();
  int64_t rank = block.size();
  Type element = descType.getElementType();
  int64_t span = mlir::fa4::detail::spanColumns(element);
  // A tile split by columns: each warpgroup stores all the block's rows
  // and its share of the columns.
  bool columnShare = columnShares.contains(store.getValue());
  int64_t blockRows = columnShare ? rows : ctaRows;
  unsigned bits = element.getIntOrFloatBitWidth();
  if (!isa_and_nonnull<AccLayoutAttr>(tileType.getEncoding()) || rank < 2 ||
      !llvm::all_of(block.drop_back(2), [](int64_t n) { return n == 1; }) ||
      block[rank - 2] != blockRows || block[rank - 1] % span != 0 ||
      (bits != 16 && !(bits == 32 && store.getAdd())))
    return store.emitOpError()
           << "stores " << tileType << " in blocks of " << descType
           << ": a TMA store takes 2-d blocks (with leading 1s) of "
           << (columnShare ? "one warpgroup's " : "the plan's ") << blockRows
           << (columnShare ? " rows" : " CTA rows") << " by whole " << span
           << "-column spans of a 16-bit type, or adds f32 ones";
  // The staging tile holds each warpgroup's share by the warpgroup's rows.
  int64_t cols = columnShare ? tileType.getDimSize(1) : block[rank - 1];

  MLIRContext *context = function.getContext();
  OpBuilder eb(&function.getBody().front(), function.getBody().front().begin());
  Value buffer = SharedBufferOp::create(
      eb, store.getLoc(),
      MemRefType::get({ctaRows, cols}, element, AffineMap(),
                      IntegerAttr::get(IntegerType::get(context, 64), 3)),
      IntegerAttr());
  ImplicitLocOpBuilder b(store.getLoc(), store);
  SmallVector<Value> coords;
  for (auto [i, coord] : llvm::enumerate(store.getCoords())) {
    Value c = coord;
    if (!store.getElements() && block[i] != 1)
      c = arith::MulIOp::create(b, c,
                                arith::ConstantIndexOp::create(b, block[i]));
    if (static_cast<int64_t>(i) == rank - 2 && !columnShare)
      c = arith::AddIOp::create(b, c, firstRow());
    if (static_cast<int64_t>(i) == rank - 1 && columnShare)
      c = arith::AddIOp::create(b, c, firstColumn(b, cols));
    coords.push_back(c);
  }
  Value barrier = arith::AddIOp::create(
      b, WarpgroupIdOp::create(b),
      arith::ConstantIndexOp::create(b, kEpilogueBarrierId));
  SmallVector<int64_t> box(block);
  box[rank - 2] = rows;
  box.back() = span;
  arg.setType(TensorMapType::get(context, element, box, 128));
  TmaStoreOp::create(b, store.getValue(), buffer, firstRow(), arg, coords,
                     barrier, store.getAdd());
  // Before the kernel ends, the TMA stores complete.
  if (!storeWait) {
    OpBuilder wb(function.getBody().front().getTerminator());
    storeWait = TmaStoreWaitOp::create(wb, store.getLoc());
  }
  store.erase();
  return success();
}

/// A dot that reads a transposed register tile `x` (its rows the CTA's,
/// split over the consumer warpgroups), such as dQ = dSᵀ · K of an
/// attention backward whose CTA holds dSᵀ by key rows: the warpgroups write
/// their rows of `x` into a shared-memory tile of the CTA's (one barrier of
/// them all before, so that no MMA still reads the previous tile, and one
/// after), and the MMA reads it transposed from there. The product's rows
/// are then x's columns: one warpgroup's MMA, when each warpgroup computes
/// its share of the columns from the same share of B's; or the CTA's,
/// when each computes its rows from its columns of the staged tile and all
/// of B (dQ over 128 queries at head dim 64).
LogicalResult LayoutAssignment::stageTransposedA(tile::DotOp dot, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto result = cast<RankedTensorType>(dot.getType());
  if (type.getRank() != 2 || type.getDimSize(0) != ctaRows ||
      type.getElementTypeBitWidth() != 16 ||
      (type.getDimSize(1) != rows && type.getDimSize(1) != ctaRows)) {
    InFlightDiagnostic diag =
        dot.emitOpError()
        << "reads the transpose of the register tile " << type
        << ": fa4 stages a register tile for a transposed MMA operand "
           "through shared memory when it has the plan's "
        << ctaRows << " CTA rows and " << rows
        << " columns (one warpgroup's MMA, the product split by columns)";
    if (ctaRows != rows)
      diag << " or " << ctaRows
           << " (the product's rows the CTA's, split by rows)";
    return diag << " of a 16-bit type";
  }
  if (!isShared(dot.getB()) || dot.getB().getDefiningOp<tile::TransOp>())
    return dot.emitOpError()
           << "multiplies a transposed register tile by a B operand that is "
              "not a loaded tile (untransposed): the MMA reads B from shared "
              "memory, mn-major";
  // x with one warpgroup's columns: the product has one MMA's rows and
  // splits by columns. x with the CTA's columns: the product has the CTA's
  // rows and splits by rows like any other (each warpgroup's MMA reads its
  // rows of the transpose, its columns of the staged tile, and all of B).
  bool byColumns = type.getDimSize(1) == rows;
  int64_t cols = result.getDimSize(1);
  if (byColumns && cols % (warpgroups() * 64) != 0) {
    InFlightDiagnostic diag = dot.emitOpError()
                              << "computes " << result
                              << ", whose columns fa4 splits over the "
                              << warpgroups()
                              << " consumer warpgroups: a multiple of "
                              << warpgroups() * 64
                              << " columns (64 a warpgroup), not " << cols;
    if (ctaRows != rows)
      diag << " (a transposed tile of the CTA's " << ctaRows
           << " columns, e.g. blocks of " << ctaRows
           << " queries in the attention backward, splits by rows instead)";
    return diag;
  }
  ImplicitLocOpBuilder b(dot.getLoc(), dot);
  // x is staged once where a dot before this one in its block staged it:
  // the dots read one buffer.
  Value transposed = stagedTransposes.lookup(x);
  Operation *staged = transposed ? transposed.getDefiningOp() : nullptr;
  if (!staged || staged->getBlock() != dot->getBlock() ||
      !staged->isBeforeInBlock(dot)) {
    MLIRContext *context = function.getContext();
    OpBuilder eb(&function.getBody().front(),
                 function.getBody().front().begin());
    Value buffer = SharedBufferOp::create(
        eb, dot.getLoc(),
        MemRefType::get(type.getShape(), type.getElementType(), AffineMap(),
                        IntegerAttr::get(IntegerType::get(context, 64), 3)),
        IntegerAttr());
    int64_t threads = 128 * warpgroups();
    NamedBarrierSyncOp::create(b, kStagingBarrierId, threads);
    SharedStoreOp::create(b, x, buffer, firstRow());
    NamedBarrierSyncOp::create(b, kStagingBarrierId, threads);
    Value tile = SharedTileOp::create(b, type, buffer);
    transposed = tile::TransOp::create(
        b,
        RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                              type.getElementType()),
        tile);
    stagedTransposes[x] = transposed;
  }
  Operation *oldTrans = dot.getA().getDefiningOp();
  dot.getAMutable().assign(transposed);
  if (oldTrans->use_empty())
    oldTrans->erase();
  if (!byColumns)
    return success();
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  Value mine = WarpgroupColsOp::create(
      b,
      RankedTensorType::get({bType.getDimSize(0), cols / warpgroups()},
                            bType.getElementType()),
      dot.getB());
  dot.getBMutable().assign(mine);
  return success();
}

/// The tiles split by columns: a dot's product that stageTransposedA
/// split, its accumulator, and what elementwise math makes of them, up to
/// the stores. Nothing else takes such a tile.
LogicalResult LayoutAssignment::findColumnShares() {
  SmallVector<Value> work;
  function.walk([&](tile::DotOp dot) {
    if (dot.getB().getDefiningOp<WarpgroupColsOp>()) {
      work.push_back(dot.getResult());
      work.push_back(dot.getAcc());
    }
  });
  auto elementwise = [](Operation *op) {
    return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
           op->getNumResults() == 1 && op->getNumRegions() == 0;
  };
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!isa<RankedTensorType>(value.getType()) ||
        !columnShares.insert(value).second)
      continue;
    Operation *def = value.getDefiningOp();
    if (def && elementwise(def) && !isa<arith::ConstantOp>(def))
      llvm::append_range(work, def->getOperands());
    else if (!def || !isa<arith::ConstantOp, tile::DotOp>(def))
      return mlir::emitError(value.getLoc())
             << "a tile split by columns over the consumer warpgroups (the "
                "product of a dot that reads a transposed register tile) "
                "comes from here: fa4 takes such a tile from the dot, "
                "constants and elementwise math";
    for (Operation *user : value.getUsers()) {
      if (elementwise(user)) {
        work.push_back(user->getResult(0));
        llvm::append_range(work, user->getOperands());
      } else if (auto dot = dyn_cast<tile::DotOp>(user);
                 !(dot && dot.getAcc() == value) &&
                 !(isa<tile::StoreOp>(user) &&
                   cast<tile::StoreOp>(user).getValue() == value)) {
        return user->emitOpError()
               << "uses a tile split by columns over the consumer "
                  "warpgroups (the product of a dot that reads a transposed "
                  "register tile): fa4 feeds such a tile to elementwise "
                  "math, as the accumulator of its dot, and to stores";
      }
    }
  }
  return success();
}

/// A loaded tile that ops other than dots use (elementwise math, a row
/// reduction, a store) is read into registers once, right after the load:
/// the warpgroup's rows in the #fa4.acc layout (`fa4.shared_load`), which
/// those uses take instead. The MMA reads it where it is.
LogicalResult LayoutAssignment::readIntoRegisters(tile::LoadOp load) {
  if (load.getDesc().getDefiningOp<tile::MakeDescOp>())
    return loadVector(load);
  auto type = cast<RankedTensorType>(load.getType());
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : load->getUses())
    if (!isa<tile::TransOp, tile::DotOp>(use.getOwner()))
      uses.push_back(&use);
  if (uses.empty())
    return success();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (type.getRank() != 2 || type.getDimSize(0) != ctaRows ||
      (bits != 16 && bits != 32))
    return uses.front()->getOwner()->emitOpError()
           << "uses a loaded " << type
           << " in registers: fa4 reads loaded 2-d tiles of 16- or 32-bit "
              "elements and the plan's "
           << ctaRows << " CTA rows into registers (" << rows
           << " a warpgroup), 1-d tiles through a tile.make_desc of a "
              "kernel pointer; other loaded tiles feed dots only";
  OpBuilder b(load->getContext());
  b.setInsertionPointAfter(load);
  // The first row is computed at the kernel's entry.
  Value first = firstRow();
  auto share = RankedTensorType::get({rows, type.getDimSize(1)},
                                     type.getElementType(),
                                     AccLayoutAttr::get(function.getContext()));
  Value registers =
      SharedLoadOp::create(b, load.getLoc(), share, load.getResult(), first);
  for (OpOperand *use : uses)
    use->set(registers);
  return success();
}

/// A vector loaded through a `tile.make_desc` of a kernel pointer (a
/// row's or column's term kept in global memory) is read by each thread
/// for its rows or columns, zeros past the tensor's edge: a
/// `fa4.global_load` of the CTA's vector, from its first element. Its
/// layout comes with the register tiles'; a row vector's start then moves
/// to the warpgroup's first row.
LogicalResult LayoutAssignment::loadVector(tile::LoadOp load) {
  auto desc = load.getDesc().getDefiningOp<tile::MakeDescOp>();
  auto base = dyn_cast<BlockArgument>(desc.getBase());
  if (!base || base.getOwner() != &function.getBody().front())
    return load.emitOpError()
           << "loads through a tile.make_desc that is not of a kernel "
              "pointer argument";
  ArrayRef<int64_t> block = desc.getDesc().getType().getBlockShape();
  int64_t rank = block.size();
  auto type = cast<RankedTensorType>(load.getType());
  ValueRange coords = load.getCoords(), shape = desc.getShape(),
             strides = desc.getStrides();
  std::optional<int64_t> unit = getConstantIntValue(strides.back());
  // A vector, or a 2-d tile of the CTA's rows (a score bias), each after
  // leading unit block dimensions.
  int64_t lead = rank - type.getRank();
  // One block (a gather's several blocks of rows are not this load's), of
  // the CTA's rows or, in a kernel without a dot, of any (#fa4.coalesced).
  bool coalesced = type.getRank() == 2 && coalesces(type.getDimSize(0));
  bool tile = type.getRank() == 2 &&
              (type.getDimSize(0) == ctaRows || coalesced) && lead >= 0 &&
              block[rank - 2] == type.getDimSize(0);
  if ((type.getRank() != 1 && !tile) ||
      static_cast<int64_t>(coords.size()) != rank ||
      !(isa<Float32Type, BFloat16Type, Float16Type>(type.getElementType()) ||
        type.getElementType().isInteger(32)) ||
      !llvm::all_of(block.take_front(lead), [](int64_t n) { return n == 1; }) ||
      !unit || *unit != 1)
    return load.emitOpError()
           << "loads " << type << " in blocks of " << desc.getDesc().getType()
           << " through a tile.make_desc: fa4 loads f32, bf16, f16 or i32 "
              "vectors and 2-d tiles of the plan's "
           << ctaRows
           << " CTA rows (of any rows in a kernel without a dot) that way "
              "(blocks of leading 1s, then contiguous rows), and other 2-d "
              "tiles through descriptor arguments (tensor maps)";
  ImplicitLocOpBuilder b(load.getLoc(), load);
  auto scaled = [&](int64_t dim) {
    return elementCoord(b, coords[dim], block[dim], load.getElements());
  };
  // The vector (or each row of the tile) starts at its block (or element)
  // coordinate in the last dimension, within the slice of the leading ones.
  Value start = sliceOffset(b, coords, strides, lead);
  Value first = scaled(rank - 1);
  start = arith::AddIOp::create(b, start, first);
  Value count = arith::SubIOp::create(b, shape.back(), first);
  Value stride, rowsLeft;
  if (tile) {
    // The warpgroup's first row of the tile, and the rows left from it.
    Value first = firstRow();
    if (coalesced) {
      int64_t shareRows = type.getDimSize(0) / warpgroups();
      first = firstElement(
          RankedTensorType::get({shareRows}, type.getElementType()));
    }
    Value row = arith::AddIOp::create(b, scaled(rank - 2), first);
    stride = strides[rank - 2];
    start =
        arith::AddIOp::create(b, start, arith::MulIOp::create(b, row, stride));
    rowsLeft = arith::SubIOp::create(b, shape[rank - 2], row);
  }
  auto vector =
      GlobalLoadOp::create(b, type, base, start, count, stride, rowsLeft,
                           /*layout=*/nullptr, /*pieces=*/false);
  load.replaceAllUsesWith(vector.getResult());
  load.erase();
  return success();
}

LogicalResult LayoutAssignment::findColumnVectors() {
  // Classes of 1-d values that must share a layout: the operands and
  // results of an elementwise op, and what loops and conditionals carry.
  llvm::EquivalenceClasses<Value> classes;
  auto isVector = [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.getRank() == 1;
  };
  auto join = [&](Value x, Value y) {
    if (isVector(x) && isVector(y))
      classes.unionSets(x, y);
  };
  // Columns: what `v.row()` repeats along the rows. Rows: what `m.col()`
  // repeats along the columns, and row reductions.
  SmallVector<Value> seeds;
  SmallVector<std::pair<Value, Operation *>> rowUses;
  // The vectors of #fa4.coalesced tiles: the tile's columns and the
  // dimension the vector drops.
  SmallVector<std::tuple<Value, CoalescedLayoutAttr, Operation *>> sliced;
  auto coalescedOf = [&](Type tile, int64_t axis) {
    auto type = cast<RankedTensorType>(tile);
    return coalesces(type.getDimSize(0))
               ? coalescedLayout(type.getDimSize(0), type.getDimSize(1), axis)
               : CoalescedLayoutAttr();
  };
  function.walk([&](Operation *op) {
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
      if (auto layout = coalescedOf(broadcast.getType(), broadcast.getAxis()))
        sliced.push_back({broadcast.getSrc(), layout, op});
      else if (broadcast.getAxis() == 0)
        seeds.push_back(broadcast.getSrc());
      else
        rowUses.push_back({broadcast.getSrc(), op});
      return;
    }
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      if (auto layout =
              coalescedOf(reduce.getSrc().getType(), reduce.getAxis()))
        sliced.push_back({reduce.getResult(), layout, op});
      else if (reduce.getAxis() == 1)
        rowUses.push_back({reduce.getResult(), op});
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [i, result] : llvm::enumerate(loop.getResults())) {
        join(result, loop.getInitArgs()[i]);
        join(result, loop.getRegionIterArgs()[i]);
        join(result, yield.getOperand(i));
      }
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!region->empty())
          for (auto [result, yielded] : llvm::zip(
                   branch.getResults(),
                   region->front().getTerminator()->getOperands()))
            join(result, yielded);
      return;
    }
    if (op->getNumRegions() || isa<scf::YieldOp>(op))
      return;
    Value anchor;
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (isVector(v)) {
        if (anchor)
          join(anchor, v);
        else
          anchor = v;
      }
  });
  for (auto [seed, layout, op] : sliced) {
    auto leader = classes.findLeader(classes.insert(seed));
    for (auto member = leader; member != classes.member_end(); ++member) {
      CoalescedLayoutAttr &known = coalescedVectors[*member];
      if (known && known != layout)
        return op->emitOpError() << "takes " << seed.getType() << " as a "
                                 << (layout.isRowVector() ? "row" : "column")
                                 << " vector of a tile of " << layout.getCols()
                                 << " columns, but the vector is also the "
                                 << (known.isRowVector() ? "row" : "column")
                                 << " vector of a tile of " << known.getCols()
                                 << " columns: fa4 gives a vector one layout";
      known = layout;
    }
  }
  for (Value seed : seeds) {
    auto leader = classes.findLeader(classes.insert(seed));
    for (auto member = leader; member != classes.member_end(); ++member)
      columnVectors.insert(*member);
  }
  for (auto [value, op] : rowUses)
    if (columnVectors.contains(value))
      return op->emitOpError()
             << "takes " << value.getType()
             << " as a row vector (one value per row), but the vector is "
                "also repeated along the rows of a 2-d tile (a column "
                "vector, `v.row()`): fa4 gives a vector one layout";
  return success();
}

LogicalResult LayoutAssignment::run() {
  hasDot = function.walk([](tile::DotOp) { return WalkResult::interrupt(); })
               .wasInterrupted();
  // Loaded tiles stay in shared memory, where the MMA reads them; the ops
  // that compute with them read the warpgroup's rows into registers.
  SmallVector<tile::LoadOp> loads;
  function.walk([&](tile::LoadOp load) { loads.push_back(load); });
  for (tile::LoadOp load : loads)
    if (failed(readIntoRegisters(load)))
      return failure();
  // Register tiles that dots read transposed go through shared memory.
  SmallVector<std::pair<tile::DotOp, Value>> staged;
  function.walk([&](tile::DotOp dot) {
    if (Value x = transposedRegisterA(dot))
      staged.push_back({dot, x});
  });
  for (auto [dot, x] : staged)
    if (failed(stageTransposedA(dot, x)))
      return failure();
  if (failed(findColumnShares()))
    return failure();
  WalkResult uses = function.walk([&](tile::TransOp op) {
    if (!isShared(op.getResult()))
      return WalkResult::advance();
    for (Operation *user : op->getUsers())
      if (!isa<tile::TransOp, tile::DotOp>(user)) {
        user->emitOpError() << "uses a transposed loaded tile: fa4 feeds "
                               "transposed loaded tiles to dots only";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (uses.wasInterrupted())
    return failure();
  if (failed(findColumnVectors()))
    return failure();

  // Register tiles: every tensor that is not a loaded block.
  WalkResult walk = function.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(retype(arg, op->getLoc())))
            return WalkResult::interrupt();
    for (Value result : op->getResults())
      if (failed(retype(result, op->getLoc())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  SmallVector<Operation *> ops;
  function.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (failed(retypeConstant(constant)))
        return failure();
    } else if (auto iota = dyn_cast<tile::IotaOp>(op)) {
      Attribute layout = cast<RankedTensorType>(iota.getType()).getEncoding();
      auto coalesced = dyn_cast_or_null<CoalescedLayoutAttr>(layout);
      if (iota.getAxis() == 0 &&
          (isa<AccLayoutAttr, RowsLayoutAttr, BlockedLayoutAttr>(layout) ||
           (coalesced && !coalesced.isColumnVector())))
        offsetRowIota(iota);
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      auto a = cast<RankedTensorType>(dot.getA().getType());
      if (isShared(dot.getA()) && a.getDimSize(0) == ctaRows) {
        OpBuilder b(dot);
        Value mine = WarpgroupRowsOp::create(
            b, dot.getLoc(),
            RankedTensorType::get({rows, a.getDimSize(1)},
                                  a.getElementType()),
            dot.getA());
        dot.getAMutable().assign(mine);
      }
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      if (failed(lowerStore(store)))
        return failure();
    } else if (auto vector = dyn_cast<GlobalLoadOp>(op)) {
      // A row vector: the warpgroup's rows; a run: the warpgroup's run (a
      // tile starts at the warpgroup's rows already).
      auto type = cast<RankedTensorType>(vector.getType());
      vector.setLayoutAttr(type.getEncoding());
      if (auto coalesced = dyn_cast<CoalescedLayoutAttr>(type.getEncoding())) {
        ImplicitLocOpBuilder b(vector.getLoc(), vector);
        SmallVector<Value> starts = {vector.getStart(), vector.getCount()};
        if (coalesced.isTile()) {
          starts.push_back(vector.getStride());
        } else if (coalesced.isRowVector()) {
          // A row vector's values are the warpgroup's rows': no pieces.
          Value first = firstElement(type);
          vector.getStartMutable().assign(
              arith::AddIOp::create(b, vector.getStart(), first));
          vector.getCountMutable().assign(
              arith::SubIOp::create(b, vector.getCount(), first));
          continue;
        }
        splitByPieces(vector, wholePieces(b, starts));
        continue;
      }
      if (isa<RowsLayoutAttr, BlockedLayoutAttr>(type.getEncoding())) {
        bool blocked = isa<BlockedLayoutAttr>(type.getEncoding());
        Value first = blocked ? firstElement(type) : firstRow();
        OpBuilder b(vector);
        vector.getStartMutable().assign(arith::AddIOp::create(
            b, vector.getLoc(), vector.getStart(), first));
        vector.getCountMutable().assign(arith::SubIOp::create(
            b, vector.getLoc(), vector.getCount(), first));
      }
    }
  }

  if (failed(prefetchLoads()))
    return failure();

  // Descriptors of kernel pointers served only the stores; the pointers
  // become global LLVM pointers.
  function.walk([](tile::MakeDescOp desc) {
    if (desc->use_empty())
      desc.erase();
  });
  Block &entry = function.getBody().front();
  auto global = LLVM::LLVMPointerType::get(function.getContext(), 1);
  // Scalar reads become loads of one element (the same in every thread).
  WalkResult scalars = function.walk([&](tile::LoadScalarOp load) {
    auto base = dyn_cast<BlockArgument>(load.getBase());
    if (!base || base.getOwner() != &entry) {
      load.emitOpError() << "reads through a pointer that is not a kernel "
                            "argument";
      return WalkResult::interrupt();
    }
    ImplicitLocOpBuilder b(load.getLoc(), load);
    Value offset = arith::IndexCastOp::create(b, b.getI64Type(),
                                              load.getIndex());
    Value address =
        LLVM::GEPOp::create(b, global, load.getType(), base,
                            ArrayRef<LLVM::GEPArg>{offset});
    load.replaceAllUsesWith(
        LLVM::LoadOp::create(b, load.getType(), address).getResult());
    load.erase();
    return WalkResult::advance();
  });
  if (scalars.wasInterrupted())
    return failure();
  for (BlockArgument arg : entry.getArguments()) {
    if (!isa<tile::PointerType>(arg.getType()))
      continue;
    for (Operation *user : arg.getUsers())
      if (!isa<GlobalStoreOp, GlobalLoadOp, LLVM::GEPOp>(user))
        return user->emitOpError() << "uses a kernel pointer; fa4 stores "
                                      "through pointers and reads scalars";
    arg.setType(global);
  }
  mlir::fa4::detail::updateFunctionType(function);
  return success();
}

namespace {
struct AssignLayoutsPass
    : public mlir::fa4::impl::FA4AssignLayoutsBase<AssignLayoutsPass> {
  void runOnOperation() override {
    if (failed(mlir::fa4::detail::forEachPlannedKernel(
            getOperation(), [](func::FuncOp function, ConfigAttr config) {
              return LayoutAssignment(function, config).run();
            })))
      signalPassFailure();
  }
};
} // namespace

//===- TileOps.cpp - tile operations --------------------------------------===//
//
// Verifiers of the tile ops: grid dimensions, descriptor ranks and element
// types, block coordinates, dot shapes, and the axes of reductions,
// broadcasts and iotas.
//
//===----------------------------------------------------------------------===//

#include "Tile/TileDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::fa4::tile;

#define GET_OP_CLASSES
#include "Tile/TileOps.cpp.inc"

/// "128x64": a shape as the diagnostics print it.
static std::string describeShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

static LogicalResult verifyGridDim(Operation *op, int64_t dim) {
  if (dim < 0 || dim > 2)
    return op->emitOpError()
           << "grid dimension " << dim << " is outside [0, 2]";
  return success();
}

LogicalResult ProgramIdOp::verify() { return verifyGridDim(*this, getDim()); }
LogicalResult NumProgramsOp::verify() { return verifyGridDim(*this, getDim()); }

LogicalResult MakeDescOp::verify() {
  DescriptorType desc = getDesc().getType();
  int64_t rank = desc.getBlockShape().size();
  if (static_cast<int64_t>(getShape().size()) != rank ||
      static_cast<int64_t>(getStrides().size()) != rank)
    return emitOpError() << "a " << rank << "-d descriptor takes " << rank
                         << " sizes and " << rank << " strides, got "
                         << getShape().size() << " and " << getStrides().size();
  if (getBase().getType().getElementType() != desc.getElementType())
    return emitOpError() << "descriptor of " << desc.getElementType()
                         << " built on a pointer to "
                         << getBase().getType().getElementType();
  return success();
}

/// A block access names one tile coordinate per descriptor dimension and
/// moves a tensor of exactly the block's type; a load of `groups` blocks
/// stacked along the block's rows moves that many times the rows.
static LogicalResult verifyBlockAccess(Operation *op, DescriptorType desc,
                                       size_t numCoords, Type tensor,
                                       StringRef what, int64_t groups = 1) {
  size_t rank = desc.getBlockShape().size();
  if (numCoords != rank * groups)
    return op->emitOpError()
           << what << " a " << rank << "-d descriptor takes " << rank
           << " tile coordinates (one per dimension), got " << numCoords;
  // The block's leading unit dimensions may be dropped: a [1, 128, 64]
  // block of a [B·H, S, D] tensor moves a 128 x 64 tile.
  SmallVector<int64_t> block(desc.getBlockShape());
  if (groups > 1)
    block[rank - 2] *= groups;
  auto blockType = RankedTensorType::get(block, desc.getElementType());
  auto type = dyn_cast<RankedTensorType>(tensor);
  bool matches = type && type.getElementType() == desc.getElementType() &&
                 !type.getEncoding();
  if (matches) {
    size_t dropped = block.size() - std::min(block.size(), size_t(type.getRank()));
    matches = type.getShape() == ArrayRef(block).drop_front(dropped) &&
              llvm::all_of(ArrayRef(block).take_front(dropped),
                           [](int64_t size) { return size == 1; });
  }
  if (!matches)
    return op->emitOpError()
           << "tile type " << tensor << " differs from the "
           << (groups > 1 ? "stacked blocks' " : "descriptor's block ")
           << blockType << " (leading 1s of the block may be dropped)";
  return success();
}

LogicalResult LoadOp::verify() {
  size_t rank = getDesc().getType().getBlockShape().size();
  size_t numCoords = getCoords().size();
  if (numCoords > rank) {
    // Blocks stacked along the rows: one coordinate group per block.
    if (rank < 2 || numCoords % rank != 0)
      return emitOpError() << "loading " << numCoords << " coordinates from a "
                           << rank
                           << "-d descriptor: a gather of row blocks takes "
                              "a whole group of "
                           << rank << " per block, of a block of 2-d or more";
    return verifyBlockAccess(*this, getDesc().getType(), numCoords,
                             getResult().getType(), "loading",
                             int64_t(numCoords / rank));
  }
  return verifyBlockAccess(*this, getDesc().getType(), numCoords,
                           getResult().getType(), "loading");
}

LogicalResult StoreOp::verify() {
  if (getAdd() && !getValue().getType().getElementType().isF32())
    return emitOpError() << "adds " << getValue().getType()
                         << " atomically: atomic adds take f32 tiles";
  return verifyBlockAccess(*this, getDesc().getType(), getCoords().size(),
                           getValue().getType(), "storing");
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "dot takes 2-d tiles, got ranks " << a.getRank()
                         << ", " << b.getRank() << " and " << acc.getRank();
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError() << "dot of " << describeShape(a.getShape()) << " and "
                         << describeShape(b.getShape())
                         << ": contraction sizes " << a.getDimSize(1) << " and "
                         << b.getDimSize(0) << " differ";
  if (acc.getDimSize(0) != a.getDimSize(0) ||
      acc.getDimSize(1) != b.getDimSize(1))
    return emitOpError() << "accumulator " << describeShape(acc.getShape())
                         << " does not hold the " << a.getDimSize(0) << "x"
                         << b.getDimSize(1) << " product";
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "dot operands of " << a.getElementType() << " and "
                         << b.getElementType() << " differ in element type";
  return success();
}

LogicalResult TransOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (src.getRank() != 2)
    return emitOpError() << "transposes 2-d tiles, got rank " << src.getRank();
  if (result != RankedTensorType::get({src.getDimSize(1), src.getDimSize(0)},
                                      src.getElementType()))
    return emitOpError() << "result " << result << " is not the transpose of "
                         << src;
  return success();
}

/// `axis` names a dimension of a tile of rank `rank`.
static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for a " << rank << "-d tile";
  return success();
}

/// `shape` with dimension `axis` removed.
static SmallVector<int64_t> dropAxis(ArrayRef<int64_t> shape, int64_t axis) {
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + axis);
  return result;
}

LogicalResult ReduceOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyAxis(*this, getAxis(), src.getRank())))
    return failure();
  SmallVector<int64_t> expected = dropAxis(src.getShape(), getAxis());
  if (result.getShape() != ArrayRef(expected) ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "reducing " << src << " along axis " << getAxis()
                         << " gives "
                         << RankedTensorType::get(expected,
                                                  src.getElementType())
                         << ", not " << result;
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyAxis(*this, getAxis(), result.getRank())))
    return failure();
  if (dropAxis(result.getShape(), getAxis()) != src.getShape() ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "broadcasting " << src << " along axis "
                         << getAxis() << " cannot give " << result;
  return success();
}

LogicalResult IotaOp::verify() {
  return verifyAxis(*this, getAxis(),
                    cast<RankedTensorType>(getResult().getType()).getRank());
}

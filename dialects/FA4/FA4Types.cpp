//===- FA4Types.cpp - fa4 types -------------------------------------------===//
//
// Verifiers and helpers of the pipeline and tensor-map types: the tiles of a
// stage live in shared memory, V pipelines are complete, and tensor-map boxes
// follow the TMA rules.
//
//===----------------------------------------------------------------------===//

#include "FA4/FA4Dialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fa4;

/// Shared memory in the NVVM numbering of address spaces.
static constexpr unsigned kSharedMemorySpace = 3;

/// Bytes of one stage buffer: a shared-memory tile, or a schedule
/// pipeline's i32 slot.
static int64_t tileBytes(Type tile) {
  if (auto memref = dyn_cast<MemRefType>(tile))
    return memref.getNumElements() * memref.getElementTypeBitWidth() / 8;
  return tile.getIntOrFloatBitWidth() / 8;
}

/// Where a stage buffer may start: a tile on the 1024 bytes of a 128-byte
/// swizzle pattern, a slot after the one before.
static int64_t tileAlignment(Type tile) {
  return isa<MemRefType>(tile) ? PipelineType::kTileAlignment : tileBytes(tile);
}

LogicalResult PipelineType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   PipelineKind kind, int64_t kvStages,
                                   int64_t qkStages, ArrayRef<Type> tiles) {
  if (kvStages < 1 || qkStages < 1)
    return emitError() << "a pipeline needs at least one kv and one qk stage, "
                          "got kv = "
                       << kvStages << ", qk = " << qkStages;
  if (kind == PipelineKind::v && qkStages != 1)
    return emitError() << "V pipelines are loaded complete: qk stages must be "
                          "1, got "
                       << qkStages;
  if (kind == PipelineKind::schedule) {
    if (qkStages != 1 || tiles.empty() ||
        !llvm::all_of(tiles, [](Type t) { return t.isInteger(32); }))
      return emitError() << "a schedule pipeline carries i32 slots in one qk "
                            "stage, got qk = "
                         << qkStages << " and stage types " << tiles;
    return success();
  }
  if (tiles.empty())
    return emitError() << "a pipeline stage needs at least one tile";
  for (Type type : tiles) {
    auto tile = dyn_cast<MemRefType>(type);
    auto space =
        tile ? dyn_cast_or_null<IntegerAttr>(tile.getMemorySpace()) : nullptr;
    if (!tile || !tile.hasStaticShape() || tile.getRank() != 2 || !space ||
        space.getInt() != kSharedMemorySpace)
      return emitError() << "pipeline tile " << type
                         << " must be a statically shaped 2-d memref in "
                            "shared memory (address space 3)";
  }
  return success();
}

int64_t PipelineType::getSubStageBytes() const {
  int64_t bytes = 0;
  for (Type tile : getTiles())
    bytes += tileBytes(tile);
  return bytes;
}

int64_t PipelineType::getTileOffset(unsigned tile) const {
  int64_t offset = 0;
  for (unsigned i = 0; i < tile; ++i)
    offset +=
        llvm::alignTo(tileBytes(getTiles()[i]), tileAlignment(getTiles()[i]));
  return offset;
}

int64_t PipelineType::getSubStageStride() const {
  return llvm::alignTo(getTileOffset(getTiles().size()), kBarrierBytes);
}

int64_t PipelineType::getBarrierOffset() const {
  return getKvStages() * getQkStages() * getSubStageStride();
}

int64_t PipelineType::getRegionBytes() const {
  return getBarrierOffset() +
         getPipelineBarrierBytes(getKvStages(), getQkStages());
}

int64_t mlir::fa4::getPipelineBufferBytes(int64_t kvStages, int64_t qkStages,
                                          ArrayRef<int64_t> tileBytes) {
  int64_t subStage = 0;
  for (int64_t bytes : tileBytes)
    subStage += llvm::alignTo(bytes, PipelineType::kTileAlignment);
  return kvStages * qkStages * subStage;
}

int64_t mlir::fa4::getPipelineBarrierBytes(int64_t kvStages,
                                           int64_t qkStages) {
  return 2 * kvStages * qkStages * PipelineType::kBarrierBytes;
}

int64_t mlir::fa4::getAlignedRegionBytes(int64_t bytes) {
  return llvm::alignTo(bytes, PipelineType::kTileAlignment);
}

LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      Type elementType, ArrayRef<int64_t> box,
                      int64_t swizzle) {
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() < 8)
    return emitError() << "tensor map element type " << elementType
                       << " must be an integer or float of 8 bits or more";
  if (box.empty() || box.size() > 5)
    return emitError() << "tensor map box has rank " << box.size()
                       << "; TMA takes rank 1 to 5";
  for (int64_t dim : box)
    if (dim < 1 || dim > 256)
      return emitError() << "TMA box dimension " << dim
                         << " is outside [1, 256]";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle " << swizzle
                       << " B is not one of 0, 32, 64 or 128";
  int64_t inner = box.back() * elementType.getIntOrFloatBitWidth() / 8;
  if (inner % 16 != 0)
    return emitError() << "TMA box inner extent " << inner
                       << " B is not a multiple of 16 B";
  if (swizzle != 0 && inner > swizzle)
    return emitError() << "TMA box inner extent " << inner << " B exceeds the "
                       << swizzle << " B swizzle span";
  return success();
}

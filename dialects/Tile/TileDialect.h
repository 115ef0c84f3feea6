//===- TileDialect.h - the tile dialect ---------------------------*- C++
//-*-===//
//
// Public header of the tile dialect: the dialect, its types and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TILE_TILEDIALECT_H
#define FA4_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Tile/TileDialect.h.inc"
#include "Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "Tile/TileOps.h.inc"

#endif // FA4_TILE_TILEDIALECT_H

//===- TileDialect.cpp - the tile dialect ---------------------------------===//
//
// Registration of the tile dialect and the syntax and checks of its types.
//
//===----------------------------------------------------------------------===//

#include "Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa4::tile;

#include "Tile/TileDialect.cpp.inc"
#include "Tile/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Tile/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Tile/TileOps.cpp.inc"
      >();
}

/// `!tile.desc<128x64xbf16>`: the block shape, then the element type.
Type DescriptorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType);
}

void DescriptorType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getBlockShape())
    printer << dim << "x";
  printer << getElementType() << ">";
}

LogicalResult
DescriptorType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> blockShape, Type elementType) {
  if (blockShape.empty())
    return emitError() << "a descriptor block needs at least one dimension";
  for (int64_t dim : blockShape)
    if (dim <= 0)
      return emitError() << "descriptor block dimension " << dim
                         << " is not positive";
  if (!elementType.isIntOrFloat())
    return emitError() << "descriptor element type " << elementType
                       << " is not an integer or float type";
  return success();
}

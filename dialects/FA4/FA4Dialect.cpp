//===- FA4Dialect.cpp - the fa4 dialect -----------------------------------===//
//
// Registration of the fa4 dialect's attributes, types and ops, and the check
// of the discardable attributes it owns (`fa4.config`).
//
//===----------------------------------------------------------------------===//

#include "FA4/FA4Dialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa4;

#include "FA4/FA4Dialect.cpp.inc"
#include "FA4/FA4Enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "FA4/FA4Attrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "FA4/FA4Types.cpp.inc"

void FA4Dialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "FA4/FA4Attrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "FA4/FA4Types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "FA4/FA4Ops.cpp.inc"
      >();
}

LogicalResult FA4Dialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getConfigAttrName()) {
    if (!isa<ConfigAttr>(attr.getValue()))
      return op->emitError() << "'" << getConfigAttrName()
                             << "' must be a #fa4.config attribute";
    return success();
  }
  if (attr.getName() == kKernelAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kKernelAttrName << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() == kTileLoopAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "scf.for")
      return op->emitError() << "'" << kTileLoopAttrName
                             << "' must be a unit attribute on an scf.for";
    return success();
  }
  if (attr.getName() == kSharedMemoryBytesAttrName ||
      attr.getName() == kThreadsAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0)
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a non-negative integer";
    return success();
  }
  return op->emitError() << "unknown fa4 attribute '"
                         << attr.getName().getValue() << "'";
}

VectorType mlir::fa4::getDistributedType(RankedTensorType type) {
  Attribute encoding = type.getEncoding();
  if (isa_and_nonnull<AccLayoutAttr>(encoding))
    return VectorType::get({type.getDimSize(1) / 2}, type.getElementType());
  if (isa_and_nonnull<RowsLayoutAttr>(encoding))
    return VectorType::get({2}, type.getElementType());
  return {};
}

ConfigAttr mlir::fa4::lookupConfig(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto config =
            op->getAttrOfType<ConfigAttr>(FA4Dialect::getConfigAttrName()))
      return config;
  return {};
}

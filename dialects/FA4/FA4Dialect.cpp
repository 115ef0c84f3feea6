//===- FA4Dialect.cpp - the fa4 dialect -----------------------------------===//
//
// Registration of the fa4 dialect's attributes, types and ops, and the check
// of the discardable attributes it owns (`fa4.config`).
//
//===----------------------------------------------------------------------===//

#include "FA4/FA4Dialect.h"

#include "FA4/AccFragment.h"
#include "FA4/CoalescedFragment.h"
#include "fa4/KernelFormat/HangReport.h"
#include "fa4/KernelFormat/LaunchRule.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

/// Checks that `rule`, of attribute `name` of `op` (of its argument
/// `argument`, when given), parses as a launch rule.
static LogicalResult verifyRule(Operation *op, StringRef name,
                                std::string_view rule,
                                std::optional<unsigned> argument = {}) {
  ::fa4::runtime::Expected<::fa4::runtime::LaunchRule> parsed =
      ::fa4::runtime::LaunchRule::parse(StringRef(rule).trim());
  if (parsed.ok())
    return success();
  InFlightDiagnostic diag = op->emitError() << "'" << name << "'";
  if (argument)
    diag << " of argument " << *argument;
  return diag << ": " << parsed.status().message();
}

LogicalResult FA4Dialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getConfigAttrName()) {
    if (!isa<ConfigAttr>(attr.getValue()))
      return op->emitError() << "'" << getConfigAttrName()
                             << "' must be a #fa4.config attribute";
    return success();
  }
  if (attr.getName() == kKernelAttrName ||
      attr.getName() == kProgrammaticLaunchAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() == kTileLoopAttrName) {
    StringRef loop = op->getName().getStringRef();
    if (!isa<UnitAttr>(attr.getValue()) ||
        (loop != "scf.for" && loop != "scf.while"))
      return op->emitError() << "'" << kTileLoopAttrName
                             << "' must be a unit attribute on an scf.for or "
                                "scf.while";
    return success();
  }
  if (attr.getName() == kSharedMemoryBytesAttrName ||
      attr.getName() == kThreadsAttrName ||
      attr.getName() == kNamedBarrierOffsetAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0)
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a non-negative integer";
    return success();
  }
  if (attr.getName() == kHangSiteAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0 ||
        !isa<ProducerAcquireOp, ConsumerWaitOp, NamedBarrierSyncOp,
             TmaStoreOp>(op))
      return op->emitError()
             << "'" << kHangSiteAttrName
             << "' must be a non-negative integer on a producer.acquire, "
                "consumer.wait, named_barrier.sync or tma_store";
    return success();
  }
  if (attr.getName() == kHangSitesAttrName) {
    auto sites = dyn_cast<ArrayAttr>(attr.getValue());
    if (!sites || !isa<ModuleOp>(op))
      return op->emitError() << "'" << kHangSitesAttrName
                             << "' must be an array of strings on a module";
    for (auto [i, site] : llvm::enumerate(sites)) {
      // One entry: no NUL inside, and it parses as one site.
      auto text = dyn_cast<StringAttr>(site);
      std::optional<std::vector<::fa4::runtime::HangSite>> parsed;
      if (text && !text.getValue().contains('\0'))
        parsed = ::fa4::runtime::parseHangSites(text.getValue());
      if (!parsed || parsed->size() != 1)
        return op->emitError()
               << "'" << kHangSitesAttrName << "' entry " << i
               << " is not 'role|first thread|barrier|0 or 1|location'";
    }
    return success();
  }
  if (attr.getName() == kGridAttrName) {
    auto text = dyn_cast<StringAttr>(attr.getValue());
    if (!text)
      return op->emitError() << "'" << kGridAttrName
                             << "' must be a string of three launch rules";
    std::vector<std::string_view> rules =
        ::fa4::runtime::splitRules(text.getValue());
    if (rules.size() != 3)
      return op->emitError()
             << "'" << kGridAttrName << "' has " << rules.size()
             << " rules; it needs three (x, y, z), separated by commas";
    for (std::string_view rule : rules)
      if (failed(verifyRule(op, kGridAttrName, rule)))
        return failure();
    return success();
  }
  if (attr.getName() == kGridGroupAttrName) {
    auto text = dyn_cast<StringAttr>(attr.getValue());
    if (!text)
      return op->emitError()
             << "'" << kGridGroupAttrName << "' must be a launch-rule string";
    return verifyRule(op, kGridGroupAttrName, text.getValue());
  }
  if (attr.getName() == kRequireAttrName) {
    auto rules = dyn_cast<ArrayAttr>(attr.getValue());
    if (!rules || !llvm::all_of(rules, llvm::IsaPred<StringAttr>))
      return op->emitError() << "'" << kRequireAttrName
                             << "' must be an array of launch-rule strings";
    for (Attribute rule : rules)
      if (failed(verifyRule(op, kRequireAttrName,
                            cast<StringAttr>(rule).getValue())))
        return failure();
    return success();
  }
  return op->emitError() << "unknown fa4 attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult FA4Dialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned region,
                                                   unsigned index,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto where = [&]() {
    return op->emitError() << "'" << name << "' of argument " << index << " is "
                           << attr.getValue() << "; it";
  };
  if (name == kTensorMapArgAttrName) {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    if (!type || !isa<TensorMapType>(type.getValue()))
      return where() << " must be a !fa4.tensor_map type";
    return success();
  }
  if (name == kElementTypeArgAttrName) {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    Type element = type ? type.getValue() : Type();
    if (!element || !(element.isBF16() || element.isF16() || element.isF32() ||
                      element.isInteger(32)))
      return where() << " must be bf16, f16, f32 or i32";
    return success();
  }
  if (name == kCounterArgAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto pointer = function ? dyn_cast<LLVM::LLVMPointerType>(
                                  function.getArgumentTypes()[index])
                            : LLVM::LLVMPointerType();
    if (!isa<UnitAttr>(attr.getValue()) || !pointer ||
        pointer.getAddressSpace() != 1)
      return where() << " must be a unit attribute on a global !llvm.ptr<1>";
    return success();
  }
  auto text = dyn_cast<StringAttr>(attr.getValue());
  if (name == kNameArgAttrName) {
    if (!text || text.getValue().empty() ||
        text.getValue().find_first_of(" \t\r\n\v\f=") != StringRef::npos)
      return where() << " must be a non-empty string without whitespace or "
                        "'='";
    return success();
  }
  if (name == kAccessArgAttrName) {
    if (!text ||
        !llvm::is_contained({"input", "output", "inout"}, text.getValue()))
      return where() << " must be \"input\", \"output\" or \"inout\"";
    return success();
  }
  if (name == kValueArgAttrName) {
    if (!text)
      return where() << " must be a launch-rule string";
    return verifyRule(op, name, text.getValue(), index);
  }
  if (name == kShapeArgAttrName) {
    if (!text)
      return where() << " must be a string of launch rules";
    for (std::string_view rule : ::fa4::runtime::splitRules(text.getValue()))
      if (StringRef(rule).trim() != "*")
        if (failed(verifyRule(op, name, rule, index)))
          return failure();
    return success();
  }
  return op->emitError() << "unknown fa4 argument attribute '" << name
                         << "' on argument " << index;
}

VectorType mlir::fa4::getDistributedType(RankedTensorType type) {
  Attribute encoding = type.getEncoding();
  if (isa_and_nonnull<AccLayoutAttr>(encoding))
    return VectorType::get({accValueCount(type.getDimSize(1))},
                           type.getElementType());
  if (isa_and_nonnull<RowsLayoutAttr>(encoding))
    return VectorType::get({2}, type.getElementType());
  if (isa_and_nonnull<ColsLayoutAttr>(encoding))
    return VectorType::get({colsValueCount(type.getDimSize(0))},
                           type.getElementType());
  if (isa_and_nonnull<BlockedLayoutAttr>(encoding))
    return VectorType::get({type.getDimSize(0) / 128}, type.getElementType());
  if (auto coalesced = dyn_cast_or_null<CoalescedLayoutAttr>(encoding)) {
    CoalescedGeometry layout = coalesced.getGeometry();
    int64_t values = coalesced.isTile() ? layout.tileValues(type.getDimSize(0))
                     : coalesced.isRowVector()
                         ? layout.rowVectorValues(type.getDimSize(0))
                         : layout.rowValues();
    return VectorType::get({values}, type.getElementType());
  }
  return {};
}

ConfigAttr mlir::fa4::lookupConfig(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto config =
            op->getAttrOfType<ConfigAttr>(FA4Dialect::getConfigAttrName()))
      return config;
  return {};
}

//===- BackendChecks.cpp - what the NVPTX backend would crash on ----------===//
//
// A module in the LLVM and NVVM dialects can verify and still abort or crash
// the translation or the NVPTX backend: an inline asm whose constraints do
// not match its operands, or whose string names an operand `$N` it does not
// have ("LLVM ERROR: Invalid $ operand number"); an NVVM op outside any
// function; kernel attributes out of range (maxntid 0, more than 1024
// threads, maxnreg above 255). These are checked before translation and
// reported at the op, with the numbers.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::fa4;

/// The values an inline asm produces: none, its one result, or the fields
/// of its struct result when it has several outputs.
static unsigned resultValues(LLVM::InlineAsmOp op, unsigned outputs) {
  if (!op.getRes())
    return 0;
  auto type = dyn_cast<LLVM::LLVMStructType>(op.getRes().getType());
  if (outputs > 1 && type)
    return unsigned(type.getBody().size());
  return 1;
}

/// The constraints against the operands, and every `$N` of the string
/// against their number.
static LogicalResult checkInlineAsm(LLVM::InlineAsmOp op) {
  SmallVector<StringRef> constraints;
  StringRef text = op.getConstraints();
  if (!text.empty())
    text.split(constraints, ',');
  unsigned outputs = 0, inputs = 0;
  SmallVector<StringRef> tied;
  for (StringRef constraint : constraints) {
    constraint = constraint.trim();
    if (constraint.empty())
      return op.emitOpError() << "has an empty constraint in '"
                              << op.getConstraints() << "'";
    if (constraint.starts_with("~"))
      continue;
    if (constraint.starts_with("=")) {
      ++outputs;
      StringRef kind = constraint.drop_front();
      kind.consume_front("&");
      if (kind.size() != 1 || !StringRef("hrlfdqb").contains(kind[0]))
        return op.emitOpError()
               << "has the output constraint '" << constraint
               << "', not one of NVPTX's (=h, =r, =l, =f, =d, =q, =b)";
      continue;
    }
    ++inputs;
    if (llvm::all_of(constraint, llvm::isDigit)) {
      tied.push_back(constraint);
      continue;
    }
    // NVPTX's register classes and an immediate, after '*' for an
    // indirect operand.
    StringRef kind = constraint;
    kind.consume_front("*");
    if (kind.size() != 1 || !StringRef("hrlfdqbnC").contains(kind[0]))
      return op.emitOpError()
             << "has the input constraint '" << constraint
             << "', not one of NVPTX's (h, r, l, f, d, q, b, n, C) or a tied "
                "output number";
  }
  unsigned values = resultValues(op, outputs);
  if (values != outputs)
    return op.emitOpError() << "has " << outputs << " output constraints in '"
                            << op.getConstraints() << "' but " << values
                            << " result values";
  if (inputs != op.getOperands().size())
    return op.emitOpError() << "has " << inputs << " input constraints in '"
                            << op.getConstraints() << "' but "
                            << op.getOperands().size() << " operands";
  for (StringRef constraint : tied) {
    unsigned index = 0;
    if (constraint.getAsInteger(10, index) || index >= outputs)
      return op.emitOpError()
             << "ties an input to output " << constraint << " but has "
             << outputs << " outputs ('" << op.getConstraints() << "')";
  }
  // $N, ${N} and ${N:modifier} name operand N (outputs first); $$ is a $.
  StringRef asmString = op.getAsmString();
  unsigned operands = outputs + inputs;
  for (size_t i = 0; i < asmString.size(); ++i) {
    if (asmString[i] != '$')
      continue;
    if (i + 1 < asmString.size() && asmString[i + 1] == '$') {
      ++i;
      continue;
    }
    size_t start = i + 1;
    // $( $| $) are LLVM's variant markers, not operands.
    if (start < asmString.size() && StringRef("(|)").contains(asmString[start]))
      continue;
    if (start < asmString.size() && asmString[start] == '{')
      ++start;
    size_t end = start;
    while (end < asmString.size() && llvm::isDigit(asmString[end]))
      ++end;
    // Anything else after a '$' aborts the backend ("Bad $ operand number").
    if (end == start)
      return op.emitOpError()
             << "has a '$' at byte " << i
             << " of its string that names no operand (LLVM reads $N, ${N}, "
                "${N:modifier}, $$ and the variant markers $( $| $))";
    unsigned index = 0;
    if (asmString.substr(start, end - start).getAsInteger(10, index) ||
        index >= operands)
      return op.emitOpError()
             << "names operand $" << asmString.substr(start, end - start)
             << " but has " << operands << " (" << outputs << " outputs, "
             << inputs << " inputs)";
    i = end - 1;
  }
  return success();
}

/// An integer kernel attribute's entries (one, or a dense i32 array).
static std::optional<SmallVector<int64_t>> entries(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return SmallVector<int64_t>{integer.getInt()};
  if (auto array = dyn_cast<DenseI32ArrayAttr>(attr))
    return llvm::map_to_vector(array.asArrayRef(),
                               [](int32_t v) { return int64_t(v); });
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return SmallVector<int64_t>(array.asArrayRef());
  return std::nullopt;
}

/// The launch bounds a kernel declares, against what PTX allows.
static LogicalResult checkKernelAttributes(LLVM::LLVMFuncOp func) {
  for (StringRef name : {NVVM::NVVMDialect::getMaxntidAttrName(),
                         NVVM::NVVMDialect::getReqntidAttrName()}) {
    Attribute attr = func->getAttr(name);
    if (!attr)
      continue;
    std::optional<SmallVector<int64_t>> dims = entries(attr);
    if (!dims || dims->empty() || dims->size() > 3)
      return func.emitOpError() << "has " << name << " = " << attr
                                << "; it takes 1 to 3 thread counts";
    int64_t threads = 1;
    for (int64_t dim : *dims) {
      if (dim < 1 || dim > 1024)
        return func.emitOpError() << "has " << name << " = " << attr
                                  << ": a dimension of " << dim
                                  << " threads is outside [1, 1024]";
      threads *= dim;
    }
    if (threads > 1024)
      return func.emitOpError() << "has " << name << " = " << attr << ": "
                                << threads
                                << " threads; a block has at most 1024";
  }
  if (Attribute attr = func->getAttr(NVVM::NVVMDialect::getMaxnregAttrName())) {
    std::optional<SmallVector<int64_t>> value = entries(attr);
    if (!value || value->size() != 1 || (*value)[0] < 1 || (*value)[0] > 255)
      return func.emitOpError()
             << "has " << NVVM::NVVMDialect::getMaxnregAttrName() << " = "
             << attr << "; a thread has 1 to 255 registers";
  }
  if (Attribute attr =
          func->getAttr(NVVM::NVVMDialect::getMinctasmAttrName())) {
    std::optional<SmallVector<int64_t>> value = entries(attr);
    if (!value || value->size() != 1 || (*value)[0] < 1)
      return func.emitOpError()
             << "has " << NVVM::NVVMDialect::getMinctasmAttrName() << " = "
             << attr << "; it must be a positive count of CTAs";
  }
  return success();
}

LogicalResult mlir::fa4::checkBackendSafety(ModuleOp module) {
  bool failed = false;
  // At the top of the module only symbols (functions, globals) and the
  // module's own metadata ops translate.
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<SymbolOpInterface>(op) && op.getNumResults() != 0) {
      op.emitOpError() << "is outside any function; only functions and "
                          "globals can be translated at the top of a module";
      failed = true;
    } else if (isa_and_nonnull<NVVM::NVVMDialect>(op.getDialect())) {
      op.emitOpError() << "is outside any function";
      failed = true;
    }
  module.walk([&](Operation *op) {
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
      failed |= mlir::failed(checkInlineAsm(asmOp));
    else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
      failed |= mlir::failed(checkKernelAttributes(func));
  });
  return failure(failed);
}

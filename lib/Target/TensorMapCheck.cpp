//===- TensorMapCheck.cpp - tensor maps passed by value must stay there ---===//
//
// A TMA tensor map is best passed to a kernel by value (`llvm.byval`) as a
// grid constant: the TMA unit then reads it in the parameter space. Without
// `nvvm.grid_constant` LLVM copies a by-value argument into local memory and
// hands TMA that copy, which fails at launch; this check catches that before
// code generation.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fa4;

/// True for the NVVM ops that hand a tensor map to the TMA unit.
static bool readsTensorMap(Operation *op) {
  if (op->getName().getStringRef().starts_with("nvvm.cp.async.bulk.tensor."))
    return true;
  auto prefetch = dyn_cast<NVVM::PrefetchOp>(op);
  return prefetch && prefetch.getTensormap();
}

/// Report `value` at `op` when it is a by-value kernel argument without
/// `nvvm.grid_constant`.
static LogicalResult checkOperand(Operation *op, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return success();
  auto func = dyn_cast<LLVM::LLVMFuncOp>(argument.getOwner()->getParentOp());
  if (!func || argument.getOwner() != &func.getBody().front() ||
      !func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
    return success();
  unsigned index = argument.getArgNumber();
  if (!func.getArgAttr(index, LLVM::LLVMDialect::getByValAttrName()) ||
      func.getArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName()))
    return success();
  return op->emitError() << "'" << op->getName() << "' reads kernel argument "
                         << index << " of '" << func.getSymName()
                         << "', passed by value without "
                         << NVVM::NVVMDialect::getGridConstantAttrName()
                         << "; LLVM would copy it to local memory, where TMA "
                            "cannot read it";
}

LogicalResult mlir::fa4::checkTensorMapArguments(ModuleOp module) {
  bool failed = false;
  module.walk([&](Operation *op) {
    if (!readsTensorMap(op))
      return;
    for (Value operand : op->getOperands())
      failed |= mlir::failed(checkOperand(op, operand));
  });
  return failure(failed);
}

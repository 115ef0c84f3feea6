//===- FeatureCheck.cpp - NVVM ops against the target architecture --------===//
//
// Before code generation, every NVVM op of a module is checked against the
// chosen architecture, so that a kernel using wgmma on plain sm_90 or tcgen05
// on sm_90a gets a diagnostic at the op instead of a backend abort or a ptxas
// failure. Instruction families that MLIR's NVVM dialect does not mark with a
// `RequiresSM` trait (wgmma.mma_async, setmaxregister) have rules here; the
// other ops are checked through the trait. A setmaxregister that ptxas would
// silently drop gets a warning.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fa4;

namespace {
/// An instruction family that exists only on some architectures.
struct FeatureFamily {
  /// Ops whose name starts with this belong to the family.
  StringRef opPrefix;
  /// The PTX name of the family, for diagnostics.
  StringRef feature;
  /// The architectures that have it; the first is the one to suggest.
  ArrayRef<StringRef> archs;
};
} // namespace

static const StringRef kHopperOnly[] = {"sm_90a"};
static const StringRef kArchSpecific[] = {"sm_90a", "sm_100a"};
static const StringRef kBlackwellOnly[] = {"sm_100a"};

static const FeatureFamily kFamilies[] = {
    {"nvvm.wgmma.", "wgmma", kHopperOnly},
    {"nvvm.setmaxregister", "setmaxnreg", kArchSpecific},
    {"nvvm.tcgen05.", "tcgen05", kBlackwellOnly},
};

/// "plain sm_90" for the one architecture without the `a` suffix, so that the
/// message says why sm_90 is not enough.
static std::string describeArch(StringRef arch) {
  return arch.ends_with("a") ? arch.str() : ("plain " + arch).str();
}

/// Check `op` against the family rules; `std::nullopt` when no family names
/// it.
static std::optional<LogicalResult> checkFamily(Operation *op, StringRef arch) {
  StringRef name = op->getName().getStringRef();
  for (const FeatureFamily &family : kFamilies) {
    if (!name.starts_with(family.opPrefix))
      continue;
    if (llvm::is_contained(family.archs, arch))
      return success();
    return op->emitError() << "'" << name << "' needs "
                           << llvm::join(family.archs, " or ") << "; "
                           << describeArch(arch) << " has no " << family.feature
                           << " (pass --arch=" << family.archs.front() << ")";
  }
  return std::nullopt;
}

/// Check `op` against the architecture its `RequiresSM` trait names.
static LogicalResult checkRequiresSM(NVVM::RequiresSMInterface op,
                                     StringRef arch) {
  NVVM::NVVMCheckSMVersion required = op.getRequiredMinSMVersion();
  if (required.isCompatibleWith(
          NVVM::NVVMCheckSMVersion::getTargetSMVersionFromStr(arch)))
    return success();
  InFlightDiagnostic diag = op->emitError()
                            << "'" << op->getName() << "' needs ";
  if (required.archAccelerated) {
    llvm::interleave(
        required.smVersionList, diag,
        [&](int version) { diag << "sm_" << version << "a"; }, " or ");
  } else {
    diag << "sm_" << required.smVersionList.front() << " or newer";
  }
  diag << "; " << describeArch(arch) << " does not have it";
  return diag;
}

/// True when ptxas can derive the register count at entry of `func`: from
/// `.maxnreg`, or from `.minnctapersm` with `.maxntid` or `.reqntid` (ptxas
/// ignores `.minnctapersm` alone).
static bool declaresRegisterCount(LLVM::LLVMFuncOp func) {
  using NVVM::NVVMDialect;
  if (func->hasAttr(NVVMDialect::getMaxnregAttrName()))
    return true;
  return func->hasAttr(NVVMDialect::getMinctasmAttrName()) &&
         (func->hasAttr(NVVMDialect::getMaxntidAttrName()) ||
          func->hasAttr(NVVMDialect::getReqntidAttrName()));
}

/// ptxas ignores setmaxnreg (warning C7508) in a kernel that declares no
/// register count at entry; the kernel still assembles, so say it here.
static void warnIfIgnoredByPtxas(NVVM::SetMaxRegisterOp op) {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func || !func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
      declaresRegisterCount(func))
    return;
  op.emitWarning() << "ptxas ignores setmaxnreg (warning C7508) in kernel '"
                   << func.getSymName()
                   << "', which declares no register count at entry; set "
                      "nvvm.maxnreg, or nvvm.minctasm with nvvm.maxntid or "
                      "nvvm.reqntid";
}

LogicalResult mlir::fa4::checkTargetFeatures(ModuleOp module,
                                             const TargetOptions &options) {
  // The rules below read the architecture's name; an unknown one is
  // reported as such.
  if (!llvm::is_contained(getSupportedArchs(), options.arch))
    return verifyTargetOptions(options, module.getLoc());
  bool failed = false;
  module.walk([&](Operation *op) {
    if (!isa_and_nonnull<NVVM::NVVMDialect>(op->getDialect()))
      return;
    LogicalResult result = success();
    if (std::optional<LogicalResult> family = checkFamily(op, options.arch))
      result = *family;
    else if (auto requiresSM = dyn_cast<NVVM::RequiresSMInterface>(op))
      result = checkRequiresSM(requiresSM, options.arch);
    failed |= mlir::failed(result);
    if (auto setMaxRegister = dyn_cast<NVVM::SetMaxRegisterOp>(op))
      warnIfIgnoredByPtxas(setMaxRegister);
  });
  return failure(failed);
}

//===- TargetOptions.cpp - accepted architectures and PTX versions --------===//
//
// The architectures and PTX versions fa4 generates code for, the names of
// the loop-invariant choices, the options' description for requests and
// cache keys, and the check of a `TargetOptions` against them that runs
// before any code generation.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fa4;

ArrayRef<StringRef> mlir::fa4::getSupportedArchs() {
  static const StringRef archs[] = {"sm_90a", "sm_100a", "sm_90"};
  return archs;
}

ArrayRef<unsigned> mlir::fa4::getSupportedPtxVersions() {
  // The PTX versions LLVM 22's NVPTX backend knows from 8.6 on: 8.6 brought
  // the TMA copy intrinsics it selects and sm_100a; ptxas 13.0 reads up to 9.0.
  static const unsigned versions[] = {86, 87, 88, 90};
  return versions;
}

StringRef mlir::fa4::stringifyLoopInvariants(LoopInvariants value) {
  switch (value) {
  case LoopInvariants::Hoist:
    return "hoist";
  case LoopInvariants::Recompute:
    return "recompute";
  case LoopInvariants::Auto:
    return "auto";
  }
  llvm_unreachable("a LoopInvariants value");
}

std::string mlir::fa4::describeCodegen(const TargetOptions &options) {
  std::string text = "arch=" + options.arch +
                     " ptx=" + std::to_string(options.ptxVersion) +
                     " opt=" + std::to_string(options.optLevel) +
                     " ptxas-flags=" + llvm::join(options.ptxasFlags, ",");
  return text + " loop-invariants=" +
         stringifyLoopInvariants(options.loopInvariants).str();
}

LogicalResult mlir::fa4::verifyTargetOptions(const TargetOptions &options,
                                             Location loc) {
  if (!llvm::is_contained(getSupportedArchs(), options.arch))
    return emitError(loc) << "unknown GPU architecture '" << options.arch
                          << "'; accepted: "
                          << llvm::join(getSupportedArchs(), ", ");
  if (!llvm::is_contained(getSupportedPtxVersions(), options.ptxVersion)) {
    InFlightDiagnostic diag = emitError(loc)
                              << "unsupported PTX version "
                              << options.ptxVersion << "; accepted: ";
    llvm::interleaveComma(getSupportedPtxVersions(), diag);
    return diag;
  }
  if (options.optLevel > 3)
    return emitError(loc) << "optimization level " << options.optLevel
                          << " is out of range 0 to 3";
  return success();
}

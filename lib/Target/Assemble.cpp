//===- Assemble.cpp - LLVM IR to PTX and a cubin --------------------------===//
//
// Code generation and ptxas for one module, with the second attempt that
// `LoopInvariants::Auto` makes when the first cubin spills.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "LoopInvariants.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::fa4;

uint64_t mlir::fa4::spillStoreBytes(StringRef report) {
  // ptxas -v: "    288 bytes stack frame, 368 bytes spill stores, ..." a
  // function.
  uint64_t bytes = 0;
  StringRef rest = report;
  for (size_t at; (at = rest.find(" bytes spill stores")) != StringRef::npos;
       rest = rest.drop_front(at + 1)) {
    StringRef before = rest.take_front(at);
    StringRef number =
        before.drop_front(before.find_last_not_of("0123456789") + 1);
    uint64_t value = 0;
    if (!number.getAsInteger(10, value))
      bytes += value;
  }
  return bytes;
}

void mlir::fa4::warnOfLostOverlap(StringRef report, ModuleOp module) {
  SmallVector<StringRef> lines;
  report.split(lines, '\n');
  for (StringRef line : lines) {
    size_t code = line.find("(C75");
    if (code == StringRef::npos ||
        (!line.contains("warpgroup.wait is injected") &&
         !line.contains("Potential Performance Loss")))
      continue;
    // "... in function 'name'": at that function when the module has it.
    Location loc = module.getLoc();
    StringRef name = line.rsplit("function '").second.split('\'').first;
    if (auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      loc = function.getLoc();
    emitWarning(loc) << "ptxas changed the MMA schedule: "
                     << line.drop_front(code).trim();
  }
}

/// The spills the recomputed invariants must save for their cubin to be
/// kept: at least 16 bytes (four registers) and a quarter of the hoisted
/// cubin's. Smaller savings are spills outside the loops (a kernel's
/// prologue), which the instructions added to the loops would not repay;
/// the savings measured faster were 24 to 204 bytes, a half or more
/// (bench/RESULTS.md, 2026-12-06).
constexpr uint64_t kMinSavedBytes = 16;

namespace {
/// One pass through code generation and ptxas, timed into `assembly`.
LogicalResult generate(llvm::Module &llvmModule, const TargetOptions &options,
                       Location loc, bool keepLLVMIR, Assembly &assembly) {
  using Clock = std::chrono::steady_clock;
  if (keepLLVMIR) {
    assembly.llvmIR.clear();
    llvm::raw_string_ostream os(assembly.llvmIR);
    llvmModule.print(os, /*AAW=*/nullptr);
  }
  Clock::time_point start = Clock::now();
  FailureOr<std::string> ptx = emitPTX(llvmModule, options, loc);
  assembly.backendSeconds +=
      std::chrono::duration<double>(Clock::now() - start).count();
  if (failed(ptx))
    return failure();
  start = Clock::now();
  FailureOr<std::string> cubin =
      assembleCubin(loc, *ptx, options, assembly.report);
  assembly.ptxasSeconds +=
      std::chrono::duration<double>(Clock::now() - start).count();
  if (failed(cubin))
    return failure();
  assembly.ptx = std::move(*ptx);
  assembly.cubin = std::move(*cubin);
  return success();
}
} // namespace

FailureOr<Assembly> mlir::fa4::assemble(llvm::Module &llvmModule,
                                        const TargetOptions &options,
                                        Location loc, bool keepLLVMIR) {
  // Code generation rewrites the module: the second attempt starts from a
  // copy taken before it.
  std::unique_ptr<llvm::Module> copy;
  if (options.loopInvariants == LoopInvariants::Auto)
    copy = llvm::CloneModule(llvmModule);
  Assembly hoisted;
  if (failed(generate(llvmModule, options, loc, keepLLVMIR, hoisted)))
    return failure();
  uint64_t spilled = spillStoreBytes(hoisted.report);
  if (!copy || spilled == 0)
    return hoisted;
  TargetOptions recompute = options;
  recompute.loopInvariants = LoopInvariants::Recompute;
  recomputeLoopInvariants(*copy);
  Assembly recomputed;
  if (failed(generate(*copy, recompute, loc, keepLLVMIR, recomputed)))
    return failure();
  uint64_t saved =
      spilled - std::min(spilled, spillStoreBytes(recomputed.report));
  bool keepRecomputed = saved >= kMinSavedBytes && 4 * saved >= spilled;
  Assembly &kept = keepRecomputed ? recomputed : hoisted;
  kept.backendSeconds = hoisted.backendSeconds + recomputed.backendSeconds;
  kept.ptxasSeconds = hoisted.ptxasSeconds + recomputed.ptxasSeconds;
  return std::move(kept);
}

//===- fa4-translate.cpp - LLVM + NVVM IR to LLVM IR, PTX or a cubin ------===//
//
// The fa4 back-end driver: parses a module in the LLVM and NVVM dialects and
// writes optimized LLVM IR for NVPTX, PTX, a cubin assembled by ptxas, or the
// runtime's kernel file (the cubin with its launch metadata), with ptxas's
// register and shared-memory report on request. A thin main over FA4Target;
// `--split-input-file` and `--verify-diagnostics` work as in mlir-opt so that
// its diagnostics can be tested.
//
//===----------------------------------------------------------------------===//

#include "fa4/InitAll.h"
#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Target/KernelFileEmission.h"
#include "fa4/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
/// What fa4-translate writes.
enum class EmitKind { LLVM, PTX, Cubin, Kernel };
} // namespace

static cl::OptionCategory category("fa4-translate options");

static cl::opt<std::string> inputFilename(
    cl::Positional,
    cl::desc("<input: a module in the LLVM and NVVM dialects; - for stdin>"),
    cl::init("-"), cl::cat(category));

static cl::opt<std::string>
    outputFilename("o", cl::desc("Output file; - (the default) for stdout"),
                   cl::value_desc("file"), cl::init("-"), cl::cat(category));

static cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to write (default: ptx)"),
    cl::values(clEnumValN(EmitKind::LLVM, "llvm",
                          "LLVM IR for nvptx64-nvidia-cuda, after LLVM's "
                          "optimization pipeline"),
               clEnumValN(EmitKind::PTX, "ptx",
                          "PTX from LLVM's NVPTX backend"),
               clEnumValN(EmitKind::Cubin, "cubin",
                          "a cubin (binary) assembled by ptxas"),
               clEnumValN(EmitKind::Kernel, "kernel",
                          "the fa4 runtime's kernel file: the cubin of the "
                          "module's one nvvm.kernel function with its launch "
                          "metadata (block, shared memory, parameters)")),
    cl::init(EmitKind::PTX), cl::cat(category));

static cl::opt<std::string>
    arch("arch",
         cl::desc("GPU architecture: sm_90a (default; Hopper with wgmma and "
                  "setmaxnreg), sm_100a (Blackwell, tcgen05) or sm_90 "
                  "(Hopper without wgmma and setmaxnreg)"),
         cl::value_desc("sm_XX"), cl::init("sm_90a"), cl::cat(category));

static cl::opt<unsigned> ptxVersion(
    "ptx-version",
    cl::desc("PTX ISA version as major*10+minor: 86 (default), 87, 88 or 90; "
             "the TMA intrinsics need at least 86"),
    cl::value_desc("NN"), cl::init(86), cl::cat(category));

static cl::opt<unsigned>
    optLevel("O",
             cl::desc("LLVM optimization level 0-3 for the IR pipeline and "
                      "the backend (default 3; -O=N or -ON)"),
             cl::value_desc("N"), cl::init(3), cl::Prefix, cl::cat(category));

static cl::opt<std::string> ptxasPath(
    "ptxas",
    cl::desc("ptxas to run for --emit=cubin (default: $CUDA_PATH/bin/ptxas, "
             "then /usr/local/cuda/bin/ptxas, then PATH)"),
    cl::value_desc("path"), cl::cat(category));

static cl::list<std::string>
    ptxasFlags("ptxas-flag",
               cl::desc("Pass one more flag to ptxas after -arch=<arch> -v "
                        "(repeatable, e.g. --ptxas-flag=-lineinfo)"),
               cl::value_desc("flag"), cl::cat(category));

/// A --loop-invariants value under the name the target gives it.
static cl::OptionEnumValue loopInvariantsValue(mlir::fa4::LoopInvariants value,
                                               StringRef help) {
  return {mlir::fa4::stringifyLoopInvariants(value), int(value), help};
}

static cl::opt<mlir::fa4::LoopInvariants> loopInvariants(
    "loop-invariants",
    cl::desc("Where cheap loop-invariant values (index arithmetic, shuffle "
             "lanes, wgmma descriptors) live (default: auto)"),
    cl::values(
        loopInvariantsValue(mlir::fa4::LoopInvariants::Hoist,
                            "hoisted out of their loops, a register each "
                            "across the loop (LLVM's default)"),
        loopInvariantsValue(mlir::fa4::LoopInvariants::Recompute,
                            "recomputed where the loop uses them, the "
                            "backend's hoisting off: fewer registers, a few "
                            "more instructions"),
        loopInvariantsValue(mlir::fa4::LoopInvariants::Auto,
                            "hoisted; when ptxas reports spills, recomputed "
                            "too, kept when that spills at least 16 bytes "
                            "and a quarter fewer (--emit=llvm and ptx, which "
                            "run no ptxas: hoisted)")),
    cl::init(mlir::fa4::LoopInvariants::Auto), cl::cat(category));

static cl::opt<std::string>
    ptxasReport("ptxas-report",
                cl::desc("With --emit=cubin or kernel, write ptxas's -v report "
                         "(registers, spills, "
                         "shared memory) to this file"),
                cl::value_desc("file"), cl::cat(category));

static cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Translate each chunk between '// -----' lines on its own"),
    cl::cat(category));

static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check the diagnostics against the expected-* comments in the "
             "input instead of printing them"),
    cl::cat(category));

/// Parse one buffer and write what `--emit` asks for to `os`; append ptxas's
/// report to `report`. Diagnostics go through the context's handler.
static LogicalResult translate(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                               const mlir::fa4::TargetOptions &options,
                               raw_ostream &os, std::string &report) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();

  if (emitKind == EmitKind::Kernel) {
    std::string chunkReport;
    FailureOr<::fa4::runtime::KernelFile> file =
        mlir::fa4::emitKernelFile(*module, options, chunkReport);
    report += chunkReport;
    if (failed(file))
      return failure();
    ::fa4::runtime::Expected<std::string> bytes =
        ::fa4::runtime::serializeKernelFile(*file);
    if (!bytes.ok())
      return module->emitError()
             << "cannot write the kernel file: " << bytes.status().message();
    os << *bytes;
    return success();
  }

  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      mlir::fa4::translateToLLVMIR(*module, llvmContext, options);
  if (failed(llvmModule))
    return failure();
  if (emitKind == EmitKind::LLVM) {
    (*llvmModule)->print(os, /*AAW=*/nullptr);
    return success();
  }

  Location loc = module->getLoc();
  if (emitKind == EmitKind::PTX) {
    FailureOr<std::string> ptx = mlir::fa4::emitPTX(**llvmModule, options, loc);
    if (failed(ptx))
      return failure();
    os << *ptx;
    return success();
  }

  FailureOr<mlir::fa4::Assembly> assembly =
      mlir::fa4::assemble(**llvmModule, options, loc);
  if (failed(assembly))
    return failure();
  mlir::fa4::warnOfLostOverlap(assembly->report, *module);
  report += assembly->report;
  os << assembly->cubin;
  return success();
}

/// Translate one chunk of the input in a fresh context, printing its
/// diagnostics or, with --verify-diagnostics, checking them.
static LogicalResult processChunk(std::unique_ptr<llvm::MemoryBuffer> chunk,
                                  const DialectRegistry &registry,
                                  const mlir::fa4::TargetOptions &options,
                                  raw_ostream &os, std::string &report) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
  MLIRContext context(registry);
  // The source line already shows the op; its generic form adds nothing.
  context.printOpOnDiagnostic(false);
  if (!verifyDiagnostics) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return translate(sourceMgr, context, options, os, report);
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)translate(sourceMgr, context, options, os, report);
  return handler.verify();
}

/// Write `text` to `path`, reporting failures on stderr.
static LogicalResult writeFile(StringRef path, StringRef text) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    llvm::WithColor::error() << error << "\n";
    return failure();
  }
  file->os() << text;
  file->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fa4-translate: translates a module in the LLVM and NVVM dialects to "
      "LLVM IR, PTX, a cubin or a kernel file\n\n"
      "  fa4-translate kernel.mlir --emit=cubin --arch=sm_90a -o kernel.cubin "
      "--ptxas-report=kernel.txt\n"
      "  fa4-opt gemm.mlir --fa4-to-llvm | fa4-translate --emit=kernel -o "
      "gemm.kernel\n");

  bool binary = emitKind == EmitKind::Cubin || emitKind == EmitKind::Kernel;
  if (!ptxasReport.empty() && !binary) {
    llvm::WithColor::error() << "--ptxas-report needs --emit=cubin or "
                                "--emit=kernel\n";
    return 1;
  }
  if (binary && outputFilename == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed()) {
    llvm::WithColor::error()
        << "refusing to write a binary "
        << (emitKind == EmitKind::Cubin ? "cubin" : "kernel file")
        << " to a terminal; pass -o FILE\n";
    return 1;
  }

  mlir::fa4::TargetOptions options;
  options.arch = arch;
  options.ptxVersion = ptxVersion;
  options.optLevel = optLevel;
  options.ptxasPath = ptxasPath;
  options.ptxasFlags.assign(ptxasFlags.begin(), ptxasFlags.end());
  options.loopInvariants = loopInvariants;

  DialectRegistry registry;
  mlir::fa4::registerAllDialects(registry);
  mlir::fa4::registerTargetTranslations(registry);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }
  if (failed(mlir::fa4::checkParserHazards(*input, llvm::errs())))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }

  std::string report;
  auto processFn = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                       raw_ostream &os) {
    return processChunk(std::move(chunk), registry, options, os, report);
  };
  StringRef splitMarker = splitInputFile ? kDefaultSplitMarker : "";
  if (failed(splitAndProcessBuffer(std::move(input), processFn, output->os(),
                                   splitMarker, splitMarker)))
    return 1;
  if (!ptxasReport.empty() && failed(writeFile(ptxasReport, report)))
    return 1;
  output->keep();
  return 0;
}

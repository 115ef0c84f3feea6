//===- CompileWithCompiler.cpp - fa4-run's compile hook -------------------===//
//
// Builds a shipped DSL program and compiles it with the compiler library,
// writes its artifacts when asked, and hands back the kernel file, the text
// of each stage and the compile time (the DSL program built, to the cubin).
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "fa4/Compiler/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace rt = ::fa4::runtime;

bool fa4::run::hasCompiler() { return true; }

/// Writes `text` to `dir/name`.
static rt::Status writeFile(const std::string &dir, const std::string &name,
                            const std::string &text) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return rt::Status::error("cannot write '" + std::string(path) +
                             "': " + error.message());
  os << text;
  return rt::Status::success();
}

rt::Expected<fa4::run::CompiledKernel>
fa4::run::compileShipped(const std::string &name, const std::string &dumpDir,
                         const PlanChoices &plan) {
  if (!llvm::is_contained(mlir::fa4::getShippedKernels(), name))
    return rt::Status::error("fa4 has no kernel named '" + name + "'");
  std::unique_ptr<mlir::MLIRContext> context =
      mlir::fa4::createCompilerContext();
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  mlir::ScopedDiagnosticHandler handler(
      context.get(), [&](mlir::Diagnostic &diagnostic) {
        if (!mlir::isa<mlir::UnknownLoc>(diagnostic.getLocation()))
          os << diagnostic.getLocation() << ": ";
        os << diagnostic << "\n";
        return mlir::success();
      });
  mlir::fa4::TargetOptions options;
  mlir::fa4::CompileArtifacts artifacts;
  auto start = std::chrono::steady_clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> program =
      mlir::fa4::buildShippedProgram(*context, name,
                                     {plan.kvStages, plan.qkStages, plan.blockN,
                                      plan.persistent});
  if (!program)
    return rt::Status::error("building '" + name + "' failed:\n" +
                             diagnostics);
  mlir::FailureOr<rt::KernelFile> file =
      mlir::fa4::compileModule(*program, options, artifacts);
  if (failed(file))
    return rt::Status::error("compiling '" + name + "' failed:\n" +
                             diagnostics);

  CompiledKernel compiled;
  compiled.file = std::move(*file);
  compiled.stages = std::move(artifacts.stages);
  compiled.arch = options.arch;
  // From building the DSL program to the cubin.
  compiled.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (dumpDir.empty())
    return compiled;
  if (std::error_code error = llvm::sys::fs::create_directories(dumpDir))
    return rt::Status::error("cannot create '" + dumpDir +
                             "': " + error.message());
  static const struct {
    const char *stage, *file;
  } kStages[] = {{"tile", "kernel.tile.mlir"},
                 {"fa4", "kernel.fa4.mlir"},
                 {"llvm-dialect", "kernel.llvm.mlir"},
                 {"llvm-ir", "kernel.ll"},
                 {"ptx", "kernel.ptx"},
                 {"ptxas-report", "kernel.ptxas.txt"}};
  for (const auto &stage : kStages)
    if (rt::Status s =
            writeFile(dumpDir, stage.file, compiled.stages[stage.stage]);
        !s.ok())
      return s;
  llvm::SmallString<256> kernelPath(dumpDir);
  llvm::sys::path::append(kernelPath, name + ".kernel");
  if (rt::Status s =
          rt::writeKernelFile(compiled.file, std::string(kernelPath));
      !s.ok())
    return s;
  return compiled;
}

//===- CompileWithCompiler.cpp - fa4-run's compile hook -------------------===//
//
// Gets a shipped DSL program's kernel from the compile cache or compiles it
// with the compiler library, writes its artifacts when asked, and hands back
// the kernel file, the text of each stage and where the time went (the DSL
// program built, to the cubin).
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "fa4/Compiler/Compiler.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

namespace rt = ::fa4::runtime;

bool fa4::run::hasCompiler() { return true; }

rt::Expected<fa4::run::CompiledKernel>
fa4::run::compileShipped(const KernelKey &key, const std::string &dumpDir,
                         const std::string &cacheDir, bool refresh) {
  std::unique_ptr<mlir::MLIRContext> context =
      mlir::fa4::createCompilerContext();
  mlir::fa4::DiagnosticText diagnostics(*context);
  mlir::fa4::ShippedKernelRequest request;
  request.key = key;
  request.cacheDirectory = cacheDir;
  request.keepStages = refresh || !dumpDir.empty();
  request.refresh = refresh;
  mlir::FailureOr<mlir::fa4::ShippedKernel> got =
      mlir::fa4::getShippedKernel(*context, request);
  if (failed(got))
    return rt::Status::error("compiling '" + key.name() + "' failed:\n" +
                             diagnostics.str());

  CompiledKernel compiled;
  compiled.file = std::move(got->file);
  compiled.stages = std::move(got->artifacts.stages);
  compiled.arch = request.target.arch;
  compiled.seconds = got->seconds;
  compiled.fromCache = got->source != mlir::fa4::ShippedKernel::Source::Compiled;
  compiled.cacheEntry = got->cacheEntry;
  if (!got->cacheRejected.empty())
    compiled.cacheNotes.push_back(got->cacheRejected + "; compiled again");
  if (!got->cacheStoreError.empty())
    compiled.cacheNotes.push_back("not cached: " + got->cacheStoreError);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(diagnostics.str()).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines)
    compiled.warnings.push_back(line.str());
  if (!compiled.fromCache) {
    compiled.phases.push_back({"dsl", got->buildSeconds});
    llvm::append_range(compiled.phases, got->artifacts.phases);
  }
  if (dumpDir.empty())
    return compiled;
  // A kernel from the cache has no stages: only its file is written.
  if (rt::Status s =
          mlir::fa4::writeCompileStages(compiled.stages, dumpDir, "kernel");
      !s.ok())
    return s;
  llvm::SmallString<256> kernelPath(dumpDir);
  llvm::sys::path::append(kernelPath, key.name() + ".kernel");
  if (rt::Status s =
          rt::writeKernelFile(compiled.file, std::string(kernelPath));
      !s.ok())
    return s;
  return compiled;
}

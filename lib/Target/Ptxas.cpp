//===- Ptxas.cpp - PTX to cubin through ptxas -----------------------------===//
//
// Finds ptxas and runs it on PTX held in memory, through temporary files that
// are always removed, returning the cubin and ptxas's `-v` report.
//
//===----------------------------------------------------------------------===//

#include "fa4/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fa4;

/// True when `path` names an executable regular file.
static bool isExecutableFile(const llvm::Twine &path) {
  return llvm::sys::fs::is_regular_file(path) &&
         llvm::sys::fs::can_execute(path);
}

FailureOr<std::string> mlir::fa4::findPtxas(const TargetOptions &options,
                                            Location loc) {
  if (!options.ptxasPath.empty()) {
    if (isExecutableFile(options.ptxasPath))
      return options.ptxasPath;
    bool exists = llvm::sys::fs::exists(options.ptxasPath);
    return emitError(loc) << "ptxas '" << options.ptxasPath << "' "
                          << (exists ? "is not an executable file"
                                     : "does not exist");
  }

  SmallVector<std::string, 2> candidates;
  std::optional<std::string> cudaPath = llvm::sys::Process::GetEnv("CUDA_PATH");
  if (cudaPath && !cudaPath->empty()) {
    SmallString<128> path(*cudaPath);
    llvm::sys::path::append(path, "bin", "ptxas");
    candidates.push_back(std::string(path));
  }
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &candidate : candidates)
    if (isExecutableFile(candidate))
      return candidate;
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;

  InFlightDiagnostic diag = emitError(loc) << "ptxas not found: looked at ";
  for (const std::string &candidate : candidates)
    diag << candidate << ", ";
  diag << "and on PATH";
  if (!cudaPath || cudaPath->empty())
    diag << " (CUDA_PATH is not set)";
  diag << "; install the CUDA toolkit or name ptxas explicitly";
  return diag;
}

namespace {
/// A temporary file that is removed when this goes out of scope.
struct TempFile {
  SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
};
} // namespace

/// Create an empty temporary file `fa4-*.<suffix>`.
static LogicalResult createTempFile(StringRef suffix, TempFile &file,
                                    Location loc) {
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("fa4", suffix, file.path))
    return emitError(loc) << "cannot create a temporary ." << suffix
                          << " file: " << error.message();
  file.remover.emplace(file.path);
  return success();
}

FailureOr<std::string> mlir::fa4::assembleCubin(Location loc, StringRef ptx,
                                                const TargetOptions &options,
                                                std::string &report) {
  if (failed(verifyTargetOptions(options, loc)))
    return failure();
  FailureOr<std::string> ptxas = findPtxas(options, loc);
  if (failed(ptxas))
    return failure();

  TempFile ptxFile, cubinFile, logFile;
  if (failed(createTempFile("ptx", ptxFile, loc)) ||
      failed(createTempFile("cubin", cubinFile, loc)) ||
      failed(createTempFile("log", logFile, loc)))
    return failure();
  {
    std::error_code error;
    llvm::raw_fd_ostream os(ptxFile.path, error);
    if (!error) {
      os << ptx;
      os.close();
      error = os.error();
    }
    if (error)
      return emitError(loc)
             << "cannot write '" << ptxFile.path << "': " << error.message();
  }

  std::string archFlag = "-arch=" + options.arch;
  SmallVector<StringRef> args = {*ptxas, archFlag, "-v"};
  for (const std::string &flag : options.ptxasFlags)
    args.push_back(flag);
  args.append({ptxFile.path.str(), "-o", cubinFile.path.str()});
  // Both streams into one log, in the order ptxas writes them.
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.path.str(),
                                          logFile.path.str()};
  std::string execError;
  int exitCode = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt,
                                           redirects, /*SecondsToWait=*/0,
                                           /*MemoryLimit=*/0, &execError);

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> log =
      llvm::MemoryBuffer::getFile(logFile.path, /*IsText=*/true);
  report = log ? (*log)->getBuffer().str() : std::string();
  if (exitCode < 0)
    return emitError(loc) << "cannot run '" << *ptxas << "': " << execError;
  if (exitCode != 0)
    return emitError(loc) << "ptxas failed for " << options.arch
                          << " with exit code " << exitCode << ":\n"
                          << report;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> cubin =
      llvm::MemoryBuffer::getFile(cubinFile.path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!cubin)
    return emitError(loc) << "cannot read the cubin ptxas wrote to '"
                          << cubinFile.path
                          << "': " << cubin.getError().message();
  return (*cubin)->getBuffer().str();
}

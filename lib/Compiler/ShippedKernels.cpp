//===- ShippedKernels.cpp - shipped kernels through the compile cache -----===//
//
// A shipped kernel is got once per process and compiled once per machine:
// this process's table of kernels already got, keyed by the request, comes
// first; then the compile cache on disk, keyed by a hash of everything that
// decides the cubin (the kernel key, the compiler's build, LLVM's version,
// the ptxas binary and the target options): a hit builds no program; then
// the compiler, whose kernel is stored for the next process.
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"

#include "fa4/KernelFormat/KernelCache.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <mutex>

using namespace mlir;
using namespace mlir::fa4;
namespace rt = ::fa4::runtime;

namespace {
/// The request as one string: the key of this process's table.
std::string describeRequest(const ShippedKernelRequest &request) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << request.key.str() << " " << describeCodegen(request.target)
     << " ptxas=" << request.target.ptxasPath
     << " cache=" << request.cacheDirectory;
  return text;
}

/// The ptxas that will run, as its path, size and modification time: a
/// different ptxas gives a different key without running it (`ptxas
/// --version` takes ~40 ms, twice what a cache hit may cost).
FailureOr<std::string> identifyPtxas(const TargetOptions &target,
                                     Location loc) {
  FailureOr<std::string> path = findPtxas(target, loc);
  if (failed(path))
    return failure();
  llvm::sys::fs::file_status status;
  if (std::error_code error = llvm::sys::fs::status(*path, status))
    return emitError(loc) << "cannot read the status of ptxas '" << *path
                          << "': " << error.message();
  return *path + " " + std::to_string(status.getSize()) + " " +
         std::to_string(
             status.getLastModificationTime().time_since_epoch().count());
}

/// The cache key of `key` for `target`: its name and a hash of its text
/// with everything else that decides the cubin (the compiler's build, which
/// covers the DSL programs and the passes, LLVM, ptxas, the target).
std::string cacheKey(const ::fa4::KernelKey &key, const TargetOptions &target,
                     StringRef ptxas) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "fa4 compile cache key 3\nbuild " << getCompilerBuildId() << "\nllvm "
     << LLVM_VERSION_STRING << "\nptxas " << ptxas << "\n"
     << describeCodegen(target) << "\nkernel " << key.str() << "\n";
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()),
                        text.size()));
  return key.name() + "-" +
         llvm::toHex(ArrayRef<uint8_t>(digest).take_front(16),
                     /*LowerCase=*/true);
}

/// The kernels this process already got, by request.
struct ProcessTable {
  std::mutex mutex;
  std::map<std::string, rt::KernelFile> kernels;
};
ProcessTable &processTable() {
  static ProcessTable *table = new ProcessTable;
  return *table;
}
} // namespace

FailureOr<ShippedKernel>
mlir::fa4::getShippedKernel(MLIRContext &context,
                            const ShippedKernelRequest &request) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  auto since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  Location loc = UnknownLoc::get(&context);
  ShippedKernel kernel;
  std::string requestKey = describeRequest(request);
  ProcessTable &table = processTable();
  if (!request.refresh) {
    std::lock_guard<std::mutex> lock(table.mutex);
    auto it = table.kernels.find(requestKey);
    if (it != table.kernels.end()) {
      kernel.file = it->second;
      kernel.source = ShippedKernel::Source::Process;
      kernel.seconds = since(start);
      return kernel;
    }
  }

  std::optional<rt::KernelCache> cache;
  if (!request.cacheDirectory.empty()) {
    FailureOr<std::string> ptxas = identifyPtxas(request.target, loc);
    if (failed(ptxas))
      return failure();
    cache.emplace(request.cacheDirectory);
    kernel.cacheKey = cacheKey(request.key, request.target, *ptxas);
    kernel.cacheEntry = cache->entryPath(kernel.cacheKey);
    if (!request.refresh) {
      rt::Expected<rt::CacheLookup> found = cache->lookup(kernel.cacheKey);
      if (!found.ok())
        return emitError(loc) << found.status().message();
      kernel.cacheRejected = found->rejected;
      if (found->file) {
        kernel.file = std::move(*found->file);
        kernel.source = ShippedKernel::Source::Cache;
        std::lock_guard<std::mutex> lock(table.mutex);
        table.kernels.emplace(requestKey, kernel.file);
        kernel.seconds = since(start);
        return kernel;
      }
    }
  }

  Clock::time_point build = Clock::now();
  OwningOpRef<ModuleOp> program = buildShippedProgram(context, request.key);
  if (!program)
    return failure();
  kernel.buildSeconds = since(build);

  kernel.artifacts.keepStages = request.keepStages;
  FailureOr<rt::KernelFile> file =
      compileModule(*program, request.target, kernel.artifacts);
  if (failed(file))
    return failure();
  kernel.file = std::move(*file);
  if (cache)
    if (rt::Status s = cache->store(kernel.cacheKey, kernel.file); !s.ok())
      kernel.cacheStoreError = s.message();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    table.kernels.insert_or_assign(requestKey, kernel.file);
  }
  kernel.seconds = since(start);
  return kernel;
}

//===- KernelSourceFiles.cpp - libfa4's kernels from kernel files ---------===//
//
// Without the compiler (-DFA4_ENABLE_COMPILER=OFF), libfa4 runs kernel files
// compiled elsewhere: $FA4_KERNEL_DIR/<name>.kernel, named by their keys
// (KernelKey::name, plan choices included) as scripts/compile-kernels.sh
// writes them.
//
//===----------------------------------------------------------------------===//

#include "KernelSource.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

namespace rt = ::fa4::runtime;

const char *fa4::capi::buildDescription() { return "(runtime only)"; }

rt::Expected<fa4::capi::SourcedKernel>
fa4::capi::getKernel(const KernelKey &key) {
  auto start = std::chrono::steady_clock::now();
  // The file's name is the key's, plan choices included.
  std::string name = key.name();
  static std::mutex mutex;
  static std::map<std::string, rt::KernelFile> *loaded =
      new std::map<std::string, rt::KernelFile>;
  std::lock_guard<std::mutex> lock(mutex);
  SourcedKernel kernel;
  if (auto it = loaded->find(name); it != loaded->end()) {
    kernel.file = it->second;
    kernel.source = FA4_SOURCE_PROCESS;
    return kernel;
  }
  const char *dir = std::getenv("FA4_KERNEL_DIR");
  if (!dir || !*dir)
    return rt::Status::error(
        "this libfa4 was built without the compiler and FA4_KERNEL_DIR is not "
        "set: name the directory of the kernel files (scripts/compile-"
        "kernels.sh DIR) to run '" +
        name + "'");
  rt::Expected<rt::KernelFile> file =
      rt::readKernelFile(std::string(dir) + "/" + name + ".kernel");
  if (!file.ok())
    return file.status();
  loaded->emplace(name, *file);
  kernel.file = file.take();
  kernel.source = FA4_SOURCE_KERNEL_DIR;
  kernel.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return kernel;
}

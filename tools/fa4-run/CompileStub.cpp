//===- CompileStub.cpp - fa4-run built without the compiler ---------------===//
//
// The compile hook of an fa4-run built with -DFA4_ENABLE_COMPILER=OFF: it
// runs kernel files, given with --kernel or, for fa4's own kernels, read
// from $FA4_KERNEL_DIR/<name>.kernel (the name the key derives, as libfa4
// reads them; scripts/compile-kernels.sh writes such a directory).
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "fa4/KernelFormat/KernelFile.h"

#include <chrono>
#include <cstdlib>

bool fa4::run::hasCompiler() { return false; }

fa4::runtime::Expected<fa4::run::CompiledKernel>
fa4::run::compileShipped(const KernelKey &key, const std::string &,
                         const std::string &, bool) {
  const char *dir = std::getenv("FA4_KERNEL_DIR");
  if (!dir || !*dir)
    return runtime::Status::error(
        "--kernel FILE or FA4_KERNEL_DIR is required: this fa4-run was built "
        "without the compiler and cannot compile '" +
        key.name() +
        "' (compile it with scripts/compile-kernels.sh DIR or fa4-translate "
        "--emit=kernel)");
  auto start = std::chrono::steady_clock::now();
  runtime::Expected<runtime::KernelFile> file =
      runtime::readKernelFile(std::string(dir) + "/" + key.name() + ".kernel");
  if (!file.ok())
    return file.status();
  CompiledKernel kernel;
  kernel.file = file.take();
  kernel.arch = kernel.file.target;
  kernel.fromCache = true;
  kernel.cacheEntry = std::string(dir) + "/" + key.name() + ".kernel";
  kernel.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return kernel;
}

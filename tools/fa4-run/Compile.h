//===- Compile.h - fa4-run's way to its own kernels -------------*- C++ -*-===//
//
// When no --kernel is given, fa4-run compiles fa4's own kernel for the
// problem. This header keeps MLIR out of the rest of fa4-run: it is
// implemented over the compiler where fa4-run is built with it, and as a
// clear refusal where it is not (the GPU machine builds the runtime alone).
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TOOLS_FA4RUN_COMPILE_H
#define FA4_TOOLS_FA4RUN_COMPILE_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/KernelKey.h"
#include "fa4/KernelFormat/Status.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fa4::run {

/// Whether this fa4-run carries the compiler.
bool hasCompiler();

/// One of fa4's own kernels, compiled here.
struct CompiledKernel {
  runtime::KernelFile file;
  /// The text of each stage, by name: `tile`, `fa4`, `llvm-dialect`,
  /// `llvm-ir`, `ptx` and `ptxas-report`.
  std::map<std::string, std::string> stages;
  /// The target architecture and the time to get the kernel, the DSL
  /// program built to the cubin (or the cache entry read).
  std::string arch;
  double seconds = 0;
  /// Whether it came from the compile cache, and the entry's path (empty
  /// without a cache).
  bool fromCache = false;
  std::string cacheEntry;
  /// What to tell the user about the cache: an entry that was not used, a
  /// store that failed.
  std::vector<std::string> cacheNotes;
  /// Where a compile's time went: `dsl` (the program built), then the
  /// compiler's phases.
  std::vector<std::pair<std::string, double>> phases;
  /// The compiler's warnings of a kernel it compiled, a line each (ptxas
  /// serialized its MMAs, say).
  std::vector<std::string> warnings;
};

/// Gets fa4's own kernel of `key` (sm_90a): compiled, or read from the
/// compile cache in `cacheDir` (none when empty). With `refresh` it compiles
/// even when the cache has the kernel, and keeps the text of each stage
/// (tile IR, fa4 IR, LLVM dialect, LLVM IR, PTX, ptxas report). When
/// `dumpDir` is not empty, write the kernel file there (as
/// `<key.name()>.kernel`), and each stage when there are any. Prints
/// nothing.
runtime::Expected<CompiledKernel>
compileShipped(const KernelKey &key, const std::string &dumpDir,
               const std::string &cacheDir = {}, bool refresh = true);

} // namespace fa4::run

#endif // FA4_TOOLS_FA4RUN_COMPILE_H

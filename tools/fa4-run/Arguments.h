//===- Arguments.h - fa4-run's command line ---------------------*- C++ -*-===//
//
// The command line of fa4-run, parsed without LLVM (fa4-run is built on the
// GPU machine, which has none): `--name value` or `--name=value` options and
// `--flag`s, each at most once, checked against the problem they belong to.
// Every error is one lower-case sentence naming the option and the value.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TOOLS_FA4RUN_ARGUMENTS_H
#define FA4_TOOLS_FA4RUN_ARGUMENTS_H

#include "Compile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/Runner/AnyKernel.h"
#include "fa4/Runner/Problem.h"
#include "fa4/Runner/Run.h"

#include <optional>
#include <string>
#include <vector>

namespace fa4::run {

/// The problem the command line names: a preset, or any kernel run from its
/// launch description (`--kernel FILE` without `--problem`).
enum class ProblemKind { Gemm, Attention, Described };

/// What the command line asks for.
struct Arguments {
  /// --help: print the help and do nothing else.
  bool help = false;
  /// The kernel file to run; empty: compile fa4's own kernel for the problem.
  std::string kernelPath;
  /// Where to write the compiled kernel and each compilation stage.
  std::string dumpDir;
  /// --no-cache: compile fa4's own kernel without the compile cache.
  bool noCache = false;
  /// --emit: the compilation stage of fa4's own kernel to print instead of
  /// running (fa4, llvm, llvm-ir, ptx or ptxas-report); empty: run.
  std::string emit;
  /// --dtype: the element type of fa4's own kernel, or the one the kernel
  /// file must have.
  std::optional<runtime::ElementType> dtype;
  /// --kv-stages, --block-n, --plan, ...: plan choices for fa4's own
  /// kernel.
  Plan plan;
  /// Attention: .npy files of Q, K and V (all three or none), and of O to
  /// write after the run. With the inputs, the attention sizes not given are
  /// 0 until the files fix them, and so is the scale when not given.
  std::string qFile, kFile, vFile, outFile, lseFile;
  /// --backward: the attention backward's kernels (D, then dQ and dK/dV,
  /// or dV and dK apart, or the five products and the postprocess),
  /// checked against
  /// float64 gradients.
  bool backward = false;
  /// --fused-dq: the backward in five products (D, the dK/dV kernel that
  /// also sums dQ in f32, the postprocess that scales it); --deterministic:
  /// dQ by a kernel of its own; neither: as libfa4 chooses for the launch
  /// (fa4/KernelFormat/PlanTable.h).
  bool fusedDq = false;
  bool deterministic = false;
  /// --decode: decode's two kernels (the main one, split over the keys of a
  /// KV cache, and the combine of its parts), checked against float64.
  bool decode = false;
  /// --page-size: decode over a paged KV cache of pages of this many keys
  /// (0: a contiguous cache).
  int64_t pageSize = 0;
  /// --cache-seqlens: decode's keys in use per sequence (empty: --seq-k,
  /// the whole cache).
  std::vector<int64_t> cacheSeqlens;
  /// --splits: decode's CTAs per sequence and KV head (0: fa4's choice,
  /// KernelKey::decodeSplits).
  int64_t splits = 0;
  /// Attention of packed sequences: .npy files of the query and key
  /// offsets (cu_seqlens; the key file is the query file when not given).
  /// With --seqlens the lengths are in `attention` already.
  std::string cuSeqlensQFile, cuSeqlensKFile;
  /// Packed sequences, of either kind.
  bool varlen() const {
    return attention.isVarlen() || !cuSeqlensQFile.empty();
  }
  /// Any kernel: the `--arg`s and `--save`s in order, and `--describe`
  /// (print the launch description and exit).
  std::vector<runner::ArgumentSpec> kernelArgs;
  std::vector<runner::SaveSpec> saves;
  bool describe = false;
  /// No arguments at all: the built-in default problem.
  bool defaultProblem = false;
  ProblemKind problem = ProblemKind::Gemm;
  runner::GemmProblem gemm;
  runner::AttentionProblem attention;
  runner::RunOptions options;
  /// The CUDA driver library to open.
  std::string driverLibrary = "libcuda.so.1";
};

/// Parses `argv[1]` to `argv[argc - 1]`.
runtime::Expected<Arguments> parseArguments(int argc, const char *const *argv);

/// The text --help prints.
std::string helpText();

} // namespace fa4::run

#endif // FA4_TOOLS_FA4RUN_ARGUMENTS_H

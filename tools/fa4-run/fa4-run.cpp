//===- fa4-run.cpp - Run, check and time a compiled fa4 kernel ------------===//
//
// The user-facing runner: reads a kernel file (or compiles fa4's own, or
// prints one of its stages), reads .npy inputs when given, refuses a problem,
// an input or a kernel that cannot work before touching the GPU, then loads
// the CUDA driver and the kernel and hands the rest to the runner library
// (inputs, launch, check, timing) and writes O when asked. A thin main over
// FA4Runner and FA4Runtime with no MLIR, so that it builds on the GPU
// machine. Its exit status says what happened (see --help).
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "Backward.h"
#include "Compile.h"
#include "Decode.h"

#include "fa4/KernelFormat/Files.h"
#include "fa4/KernelFormat/KernelCache.h"
#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/PlanTable.h"
#include "fa4/Runner/AttentionFiles.h"
#include "fa4/Runner/Run.h"
#include "fa4/Runtime/Driver.h"
#include "fa4/Runtime/Kernel.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <new>
#include <optional>
#include <unistd.h>

using namespace fa4;
using runtime::Expected;
using runtime::Status;

namespace {
/// fa4-run's exit statuses, as --help documents them.
enum ExitCode {
  kPassed = 0,
  kCheckFailed = 1,
  kRefused = 2,
  kNoGpu = 3,
  kCudaError = 4,
};
} // namespace

static int fail(ExitCode code, const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "fa4-run: error: %s\n", message.c_str());
  return code;
}

/// Refuses `file` unless `problem` fits its launch description.
template <typename Problem>
static Status checkInput(const Problem &problem,
                         const runtime::KernelFile &file) {
  return runner::checkKernel(file, problem);
}

/// Loads the kernel on `driver` and runs the problem of `args`, on `inputs`
/// when given; writes O to --out and the log-sum-exp to --lse.
static int runOnGpu(const run::Arguments &args,
                    Expected<std::unique_ptr<runtime::Driver>> &driver,
                    const runtime::KernelFile &file,
                    const runner::AttentionInputs *inputs) {
  if (!driver.ok())
    return fail(kNoGpu,
                "no usable GPU, nothing ran: " + driver.status().message());
  const runtime::DeviceInfo &device = (*driver)->device();
  if (Status s =
          runtime::checkTarget(file.entry, file.target, file.format, device);
      !s.ok())
    return fail(kRefused, s.message());
  Expected<runtime::Kernel> kernel = runtime::Kernel::load(**driver, file);
  if (!kernel.ok())
    return fail(kCudaError, kernel.status().message());
  const runtime::FunctionInfo &info = kernel->info();
  std::printf("device: %s (%s, %d SMs); kernel '%s': %d registers, %d B "
              "local, %u B dynamic shared, block %s\n",
              device.name.c_str(), device.archName().c_str(), device.smCount,
              file.entry.c_str(), info.registers, info.localBytes,
              file.dynamicSharedBytes, file.block.str().c_str());
  std::fflush(stdout);

  runner::RunOptions options = args.options;
  options.keepOutput = !args.outFile.empty() || !args.lseFile.empty();
  Expected<runner::RunResult> result =
      args.problem == run::ProblemKind::Gemm
          ? runner::run(*kernel, file, args.gemm, options)
          : runner::run(*kernel, file, args.attention, options, inputs);
  if (!result.ok())
    return fail(kCudaError, result.status().message());
  for (const std::string &line : result->failure)
    std::printf("  %s\n", line.c_str());
  std::printf("%s\n", runner::formatSummary(*result).c_str());
  if (!args.outFile.empty()) {
    if (Status s = runner::writeAttentionOutput(args.outFile, args.attention,
                                                result->output);
        !s.ok())
      return fail(kRefused, s.message());
    std::printf("wrote O to %s\n", args.outFile.c_str());
  }
  if (!args.lseFile.empty()) {
    if (Status s = runner::writeAttentionLse(args.lseFile, args.attention,
                                             result->lse);
        !s.ok())
      return fail(kRefused, s.message());
    std::printf("wrote the log-sum-exp to %s\n", args.lseFile.c_str());
  }
  return result->passed() ? kPassed : kCheckFailed;
}

/// Runs a kernel from its launch description: `--describe` prints it; else
/// the `--arg`s make its inputs (checked before the GPU is touched), it runs
/// once (and is timed with --bench), and the `--save`s are written.
static int runDescribed(const run::Arguments &args) {
  Expected<runtime::KernelFile> file = runtime::readKernelFile(args.kernelPath);
  if (!file.ok())
    return fail(kRefused, file.status().message());
  if (args.describe) {
    std::fputs(runner::describeLaunch(*file).c_str(), stdout);
    return kPassed;
  }
  Expected<runner::KernelInputs> inputs = [&] {
    try {
      return runner::prepareInputs(*file, args.kernelArgs, args.options.seed);
    } catch (const std::bad_alloc &) {
      return Expected<runner::KernelInputs>(
          Status::error("out of host memory for the inputs"));
    }
  }();
  if (!inputs.ok())
    return fail(kRefused, inputs.status().message());
  if (Status s = runner::checkSaves(*inputs, args.saves); !s.ok())
    return fail(kRefused, s.message());
  Expected<std::unique_ptr<runtime::Driver>> driver =
      runtime::Driver::load(args.driverLibrary);
  if (!driver.ok())
    return fail(kNoGpu,
                "no usable GPU, nothing ran: " + driver.status().message());
  const runtime::DeviceInfo &device = (*driver)->device();
  if (Status s =
          runtime::checkTarget(file->entry, file->target, file->format, device);
      !s.ok())
    return fail(kRefused, s.message());
  Expected<runtime::Kernel> kernel = runtime::Kernel::load(**driver, *file);
  if (!kernel.ok())
    return fail(kCudaError, kernel.status().message());
  Expected<runner::KernelRunResult> result =
      runner::runKernel(*kernel, *file, *inputs, args.options);
  if (!result.ok())
    return fail(kCudaError, result.status().message());
  for (const std::string &line : result->failure)
    std::printf("  %s\n", line.c_str());
  std::string line = "kernel '" + file->entry + "': grid " +
                     result->grid.str() + ", block " + file->block.str() +
                     (result->failure.empty() ? ": ran" : ": FAIL");
  if (result->medianMs) {
    char text[64];
    std::snprintf(text, sizeof(text), "  time=%.3f ms (fastest %.3f ms)",
                  *result->medianMs, *result->minMs);
    line += text;
  }
  std::printf("%s\n", line.c_str());
  if (Status s = runner::saveTensors(*result, args.saves); !s.ok())
    return fail(kRefused, s.message());
  for (const runner::SaveSpec &save : args.saves)
    std::printf("wrote %s to %s\n", save.name.c_str(), save.path.c_str());
  return result->failure.empty() ? kPassed : kCheckFailed;
}

/// The key of fa4's own kernel for the problem of `args`.
static KernelKey kernelKey(const run::Arguments &args) {
  KernelKey key;
  if (args.problem == run::ProblemKind::Gemm) {
    key = KernelKey::gemm();
  } else {
    key.headDim = int64_t(args.attention.headDim);
    if (args.attention.valueHeadDim() != args.attention.headDim)
      key.headDimV = int64_t(args.attention.valueHeadDim());
    key.varlen = args.varlen();
    key.window = args.attention.hasWindow();
    key.softcap = args.attention.softcap > 0;
  }
  if (args.dtype == runtime::ElementType::F16)
    key.dtype = DType::F16;
  key.plan = args.plan;
  return key;
}

/// The compile cache fa4-run uses: none with --no-cache, else the
/// environment's (FA4_CACHE_DIR).
static std::string cacheDirectory(const run::Arguments &args) {
  if (args.noCache)
    return {};
  return runtime::defaultCacheDirectory().value_or("");
}

/// Gets fa4's own kernel `name` from the compile cache or compiles it,
/// writing it (and its stages, when compiled) to `dumpDir` unless empty, and
/// says which and where the time went. `refresh` compiles in any case.
static Expected<runtime::KernelFile> compile(const KernelKey &key,
                                             const std::string &dumpDir,
                                             const run::Arguments &args,
                                             bool refresh) {
  std::string name = key.name();
  Expected<run::CompiledKernel> kernel =
      run::compileShipped(key, dumpDir, cacheDirectory(args), refresh);
  if (!kernel.ok())
    return kernel.status();
  for (const std::string &note : kernel->cacheNotes)
    std::printf("fa4-run: %s\n", note.c_str());
  for (const std::string &warning : kernel->warnings)
    std::printf("fa4-run: warning: %s: %s\n", name.c_str(), warning.c_str());
  if (kernel->fromCache) {
    std::printf("%s for %s from cache %s in %.3f s\n", name.c_str(),
                kernel->arch.c_str(), kernel->cacheEntry.c_str(),
                kernel->seconds);
  } else {
    std::printf("compiled %s for %s in %.3f s (", name.c_str(),
                kernel->arch.c_str(), kernel->seconds);
    const char *separator = "";
    for (const auto &[phase, seconds] : kernel->phases) {
      std::printf("%s%s %.3f", separator, phase.c_str(), seconds);
      separator = ", ";
    }
    std::printf(")\n");
  }
  if (!dumpDir.empty())
    std::printf(kernel->fromCache
                    ? "wrote the kernel file to %s (from the cache: no stages; "
                      "--dump-dir compiles them)\n"
                    : "wrote the kernel file and its stages to %s\n",
                dumpDir.c_str());
  return std::move(kernel->file);
}

/// Prints stage `args.emit` of fa4's own kernel for the problem of `args`.
static int emitStage(const run::Arguments &args) {
  Expected<run::CompiledKernel> compiled = run::compileShipped(
      kernelKey(args), args.dumpDir, cacheDirectory(args));
  if (!compiled.ok())
    return fail(kRefused, compiled.status().message());
  std::string stage = args.emit == "llvm" ? "llvm-dialect" : args.emit;
  std::fputs(compiled->stages[stage].c_str(), stdout);
  return kPassed;
}

/// Compiles fa4's own kernel of each of `keys` for --backward or --decode
/// (`mode`), each with its stages in --dump-dir/<kernel name> when given;
/// a key no program has is refused with `mode`'s name. Returns the exit
/// status of a failure, or kPassed with the files in `files`.
static int compileKeys(const std::vector<KernelKey> &keys,
                       const run::Arguments &args, const char *mode,
                       std::vector<runtime::KernelFile> &files) {
  for (const KernelKey &key : keys) {
    if (Status s = key.verify(); !s.ok())
      return fail(kRefused, std::string(mode) + ": " + s.message());
    std::string dumpDir =
        args.dumpDir.empty() ? "" : args.dumpDir + "/" + key.name();
    Expected<runtime::KernelFile> file =
        compile(key, dumpDir, args, !dumpDir.empty());
    if (!file.ok())
      return fail(kRefused, file.status().message());
    files.push_back(file.take());
  }
  return kPassed;
}

/// A directory for the tensors of a run (--backward's, --decode's) under
/// the temporary directory, named by `mode` and the process, or an error.
static Expected<std::filesystem::path> workDirectory(const char *mode) {
  std::error_code error;
  std::filesystem::path work =
      std::filesystem::temp_directory_path(error) /
      ("fa4-run-" + std::string(mode) + "-" + std::to_string(getpid()));
  std::filesystem::create_directories(work, error);
  if (error)
    return Status::error("cannot make a directory for the " +
                         std::string(mode) + "'s tensors: " + error.message());
  return work;
}

/// --backward: compiles the attention backward's kernels for the
/// problem of `args` (each in a directory of its own under --dump-dir when
/// given), and with a GPU runs and checks them (Backward.h).
static int runBackwardKernels(const run::Arguments &args) {
  if (!args.kernelPath.empty())
    return fail(kRefused, "--backward compiles fa4's own kernels; it takes "
                          "no --kernel");
  KernelKey key = kernelKey(args);
  // The forward whose O and LSE the backward takes, as a trainer's does:
  // fa4's own for these options, its plan derived (--plan is the
  // backward's), then the way libfa4 takes for this launch unless told.
  KernelKey forward = key;
  forward.plan = Plan();
  std::vector<KernelKey> keys = {forward};
  for (const KernelKey &each : backwardKernelsForLaunch(
           key, int64_t(args.attention.seqK), args.attention.causal,
           args.deterministic, args.fusedDq))
    keys.push_back(each);
  std::vector<runtime::KernelFile> compiled;
  if (int status = compileKeys(keys, args, "--backward", compiled);
      status != kPassed)
    return status;
  Expected<std::unique_ptr<runtime::Driver>> driver =
      runtime::Driver::load(args.driverLibrary);
  if (!driver.ok())
    return fail(kNoGpu,
                "no usable GPU, nothing ran: " + driver.status().message());
  for (const runtime::KernelFile &file : compiled)
    if (Status s = runtime::checkTarget(file.entry, file.target, file.format,
                                        (*driver)->device());
        !s.ok())
      return fail(kRefused, s.message());
  Expected<std::filesystem::path> work = workDirectory("backward");
  if (!work.ok())
    return fail(kRefused, work.status().message());
  std::printf("backward of %s\n", runner::describe(args.attention).c_str());
  Expected<run::RunOutcome> outcome = Status::error("the backward did not run");
  std::error_code error;
  try {
    outcome = run::runBackward(
        args, **driver, compiled.front(),
        std::vector<runtime::KernelFile>(compiled.begin() + 1, compiled.end()),
        work->string());
  } catch (const std::bad_alloc &) {
    std::filesystem::remove_all(*work, error);
    return fail(kRefused, "out of host memory for the inputs and the "
                          "reference of this problem");
  }
  std::filesystem::remove_all(*work, error);
  if (!outcome.ok())
    return fail(kCudaError, outcome.status().message());
  for (const std::string &line : outcome->lines)
    std::printf("%s\n", line.c_str());
  return outcome->passed ? kPassed : kCheckFailed;
}

/// --decode: compiles decode's two kernels for the head dims, element type,
/// window, softcap and pages of `args` (each in a directory of its own
/// under --dump-dir when given), and with a GPU runs them on a random KV
/// cache as libfa4's fa4_attention_with_kvcache does and checks them
/// against float64 (Decode.h).
static int runDecodeKernels(const run::Arguments &args) {
  if (!args.kernelPath.empty())
    return fail(kRefused, "--decode compiles fa4's own kernels; it takes "
                          "no --kernel");
  if (args.attention.heads % args.attention.keyHeads())
    return fail(kRefused, "--decode: " + std::to_string(args.attention.heads) +
                              " query heads are not a multiple of the " +
                              std::to_string(args.attention.keyHeads()) +
                              " heads of the KV cache (--kv-heads)");
  KernelKey key;
  key.headDim = int64_t(args.attention.headDim);
  if (args.attention.valueHeadDim() != args.attention.headDim)
    key.headDimV = int64_t(args.attention.valueHeadDim());
  if (args.dtype == runtime::ElementType::F16)
    key.dtype = DType::F16;
  std::vector<KernelKey> keys;
  for (Family family : {Family::AttentionDecode, Family::AttentionDecodeCombine}) {
    key.family = family;
    bool main = family == Family::AttentionDecode;
    // The combine knows V's head dim only.
    if (!main) {
      key.headDim = key.valueHeadDim();
      key.headDimV = 0;
    }
    key.plan = main ? args.plan : Plan();
    key.window = main && args.attention.hasWindow();
    key.softcap = main && args.attention.softcap > 0;
    // Paged: key blocks gathered from the pages they span.
    key.pageRows = main ? KernelKey::decodePageRows(args.pageSize) : 0;
    keys.push_back(key);
  }
  std::vector<runtime::KernelFile> compiled;
  if (int status = compileKeys(keys, args, "--decode", compiled);
      status != kPassed)
    return status;
  for (const KernelKey &each : keys)
    std::printf("%s: compiled\n", each.name().c_str());
  std::array<runtime::KernelFile, 2> files = {std::move(compiled[0]),
                                              std::move(compiled[1])};
  Expected<std::unique_ptr<runtime::Driver>> driver =
      runtime::Driver::load(args.driverLibrary);
  if (!driver.ok())
    return fail(kNoGpu,
                "no usable GPU, nothing ran: " + driver.status().message());
  for (const runtime::KernelFile &file : files)
    if (Status s = runtime::checkTarget(file.entry, file.target, file.format,
                                        (*driver)->device());
        !s.ok())
      return fail(kRefused, s.message());
  Expected<std::filesystem::path> work = workDirectory("decode");
  if (!work.ok())
    return fail(kRefused, work.status().message());
  Expected<run::RunOutcome> outcome = Status::error("decode did not run");
  std::error_code error;
  try {
    outcome = run::runDecode(args, **driver, files, work->string());
  } catch (const std::bad_alloc &) {
    std::filesystem::remove_all(*work, error);
    return fail(kRefused, "out of host memory for the inputs and the "
                          "reference of this problem");
  }
  std::filesystem::remove_all(*work, error);
  if (!outcome.ok())
    return fail(kCudaError, outcome.status().message());
  for (const std::string &line : outcome->lines)
    std::printf("%s\n", line.c_str());
  return outcome->passed ? kPassed : kCheckFailed;
}

int main(int argc, char **argv) {
  Expected<run::Arguments> args = run::parseArguments(argc, argv);
  if (!args.ok())
    return fail(kRefused, args.status().message() +
                              "\nrun 'fa4-run --help' for the usage");
  if (args->help) {
    std::fputs(run::helpText().c_str(), stdout);
    return kPassed;
  }
  // What the run will write is checked before anything is read, compiled
  // or launched for it.
  for (auto [option, path] : {std::pair{"--out", &args->outFile},
                              std::pair{"--lse", &args->lseFile}})
    if (!path->empty())
      if (Status s = runtime::checkWritableFile(*path, option); !s.ok())
        return fail(kRefused, s.message());
  if (!args->dumpDir.empty())
    if (Status s = runtime::checkWritableDirectory(args->dumpDir, "--dump-dir");
        !s.ok())
      return fail(kRefused, s.message());
  if (args->problem == run::ProblemKind::Described)
    return runDescribed(*args);
  // Input files fix the attention sizes, the head dim of fa4's kernel
  // included, so they are read first.
  std::optional<runner::AttentionArrays> arrays;
  runner::AttentionProblem &attention = args->attention;
  if (!args->qFile.empty()) {
    Expected<runner::AttentionArrays> read = runner::readAttentionArrays(
        args->qFile, args->kFile, args->vFile, attention, args->varlen());
    if (!read.ok())
      return fail(kRefused, read.status().message());
    arrays = read.take();
    if (attention.scale == 0)
      attention.scale = 1.0 / std::sqrt(double(attention.headDim));
  }
  // Packed sequences from offset files, which must end at the tokens of the
  // input files when given.
  if (!args->cuSeqlensQFile.empty()) {
    std::vector<uint64_t> lengths[2];
    for (int side = 0; side < 2; ++side) {
      const std::string &path =
          side == 0 ? args->cuSeqlensQFile : args->cuSeqlensKFile;
      Expected<std::vector<int64_t>> offsets =
          runner::readSequenceOffsets(path);
      if (!offsets.ok())
        return fail(kRefused, offsets.status().message());
      std::optional<uint64_t> tokens;
      if (arrays)
        tokens = side == 0 ? arrays->q.shape[0] : arrays->k.shape[0];
      Expected<std::vector<uint64_t>> read = runner::lengthsFromOffsets(
          *offsets, path + (side == 0 ? " (cu_seqlens_q)" : " (cu_seqlens_k)"),
          tokens);
      if (!read.ok())
        return fail(kRefused, read.status().message());
      lengths[side] = read.take();
    }
    if (Status s = runner::setSequenceLengths(
            attention, std::move(lengths[0]), std::move(lengths[1]));
        !s.ok())
      return fail(kRefused, "--cu-seqlens-q and --cu-seqlens-k: " +
                                s.message());
  }
  if (!args->emit.empty())
    return emitStage(*args);
  if (args->decode)
    return runDecodeKernels(*args);
  if (args->backward) {
    if (Status s = runner::checkProblem(attention); !s.ok())
      return fail(kRefused, s.message());
    return runBackwardKernels(*args);
  }
  // Sizes that cannot work are refused before anything is compiled.
  if (Status s = args->problem == run::ProblemKind::Gemm
                     ? runner::checkProblem(args->gemm)
                     : runner::checkProblem(attention);
      !s.ok())
    return fail(kRefused, s.message());
  // The kernel: a kernel file, or fa4's own kernel for the problem,
  // compiled here. Without a GPU, the compiled kernel and its stages are what
  // the run leaves behind (in fa4-artifacts/<kernel>/ unless --dump-dir says
  // where, one directory per kernel so that runs of different kernels do not
  // mix their files).
  bool compiled = args->kernelPath.empty();
  Expected<std::unique_ptr<runtime::Driver>> driver =
      runtime::Driver::load(args->driverLibrary);
  // An explicit --dump-dir compiles to have the stages; the artifacts of a
  // machine without a GPU come from the cache when it has the kernel.
  std::string dumpDir = args->dumpDir;
  bool refresh = !dumpDir.empty();
  if (compiled && dumpDir.empty() && !driver.ok())
    dumpDir = "fa4-artifacts/" + kernelKey(*args).name();
  if (args->defaultProblem)
    std::printf("fa4-run: the default problem, %s\n",
                runner::describe(attention).c_str());
  Expected<runtime::KernelFile> file =
      compiled ? compile(kernelKey(*args), dumpDir, *args, refresh)
               : runtime::readKernelFile(args->kernelPath);
  if (!file.ok())
    return fail(kRefused, file.status().message());
  // The kernel's element type is the problem's; --dtype must agree with it.
  Expected<runtime::ElementType> type = runner::kernelElementType(*file);
  if (!type.ok())
    return fail(kRefused, type.status().message());
  if (args->dtype && *args->dtype != *type)
    return fail(
        kRefused,
        "--dtype " + std::string(runtime::elementTypeName(*args->dtype)) +
            " disagrees with kernel '" + file->entry +
            "', whose tensor maps are " + runtime::elementTypeName(*type));
  args->gemm.elementType = *type;
  attention.elementType = *type;
  Status input = args->problem == run::ProblemKind::Gemm
                     ? checkInput(args->gemm, *file)
                     : checkInput(attention, *file);
  if (!input.ok())
    return fail(kRefused, input.message());
  try {
    std::optional<runner::AttentionInputs> inputs;
    if (arrays)
      inputs = runner::toInputs(*arrays, *type);
    return runOnGpu(*args, driver, *file, inputs ? &*inputs : nullptr);
  } catch (const std::bad_alloc &) {
    return fail(kRefused, "out of host memory for the inputs and the "
                          "reference of this problem");
  }
}

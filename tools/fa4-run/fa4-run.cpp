//===- fa4-run.cpp - Run, check and time a compiled fa4 kernel ------------===//
//
// The user-facing runner: reads a kernel file, refuses a problem or a kernel
// that cannot work before touching the GPU, then loads the CUDA driver and
// the kernel and hands the rest to the runner library (inputs, launch, check,
// timing). A thin main over FA4Runner and FA4Runtime with no MLIR, so that it
// builds on the GPU machine. Its exit status says what happened (see --help).
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "Compile.h"

#include "fa4/Runner/Run.h"
#include "fa4/Runtime/Driver.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/Runtime/KernelFile.h"

#include <cstdio>
#include <new>

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

/// Refuses `problem` or `file` unless both fit the problem's ABI.
template <typename Problem>
static Status checkInput(const Problem &problem,
                         const runtime::KernelFile &file) {
  if (Status s = runner::checkProblem(problem); !s.ok())
    return s;
  return runner::checkKernel(file, problem);
}

/// Loads the kernel on `driver` and runs the problem of `args`.
static int runOnGpu(const run::Arguments &args,
                    Expected<std::unique_ptr<runtime::Driver>> &driver,
                    const runtime::KernelFile &file) {
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

  Expected<runner::RunResult> result =
      args.problem == run::ProblemKind::Gemm
          ? runner::run(*kernel, file, args.gemm, args.options)
          : runner::run(*kernel, file, args.attention, args.options);
  if (!result.ok())
    return fail(kCudaError, result.status().message());
  for (const std::string &line : result->failure)
    std::printf("  %s\n", line.c_str());
  std::printf("%s\n", runner::formatSummary(*result).c_str());
  return result->passed() ? kPassed : kCheckFailed;
}

int main(int argc, char **argv) {
  Expected<run::Arguments> args = run::parseArguments(argc, argv);
  if (!args.ok())
    return fail(kRefused, args.status().message() +
                              "\nrun 'fa4-run --help' for the usage");
  if (args->help) {
    std::fputs(run::helpText(), stdout);
    return kPassed;
  }
  // The kernel: a kernel file, or fa4's own kernel for the problem,
  // compiled here. Without a GPU, the compiled kernel and its stages are what
  // the run leaves behind (in fa4-artifacts/ unless --dump-dir says where).
  bool compiled = args->kernelPath.empty();
  Expected<std::unique_ptr<runtime::Driver>> driver =
      runtime::Driver::load(args->driverLibrary);
  std::string dumpDir = args->dumpDir;
  if (compiled && dumpDir.empty() && !driver.ok())
    dumpDir = "fa4-artifacts";
  std::string shipped =
      args->problem == run::ProblemKind::Gemm
          ? "gemm"
          : "attention-hd" + std::to_string(args->attention.headDim);
  if (args->defaultProblem)
    std::printf("fa4-run: the default problem, %s\n",
                runner::describe(args->attention).c_str());
  Expected<runtime::KernelFile> file =
      compiled ? run::compileShipped(shipped, dumpDir)
               : runtime::readKernelFile(args->kernelPath);
  if (!file.ok())
    return fail(kRefused, file.status().message());
  Status input = args->problem == run::ProblemKind::Gemm
                     ? checkInput(args->gemm, *file)
                     : checkInput(args->attention, *file);
  if (!input.ok())
    return fail(kRefused, input.message());
  try {
    return runOnGpu(*args, driver, *file);
  } catch (const std::bad_alloc &) {
    return fail(kRefused, "out of host memory for the inputs and the "
                          "reference of this problem");
  }
}

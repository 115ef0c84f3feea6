//===- gemm_relu.cpp - write a kernel in fa4's DSL, launch it by name -----===//
//
// C = relu(alpha * A * B) for row-major bf16 A [M, K], B [K, N] and C [M, N]:
// the kernel written as a tile program in fa4's C++ DSL (one program per
// 128 x 256 block of C, accumulating in f32 over 64-wide blocks of K),
// compiled in-process to a kernel file that describes its own launch, then
// launched through the runtime's launch API by binding the tensors and the
// scalar by name, checked against a CPU reference and timed.
//
//   gemm-relu [--m M] [--n N] [--k K] [--alpha X] [--kernel-out FILE]
//
// Without a GPU it compiles, writes the kernel file when asked, and says
// that nothing ran (exit status 3).
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"
#include "fa4/DSL/DSL.h"
#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/Runtime/Binding.h"
#include "fa4/Runtime/Buffer.h"
#include "fa4/Runtime/Driver.h"
#include "fa4/Runtime/Kernel.h"
#include "fa4/Runtime/Launch.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using fa4::runtime::Expected;
using fa4::runtime::Status;

/// The kernel, as a kernel author writes it.
static mlir::OwningOpRef<mlir::ModuleOp>
writeGemmRelu(mlir::MLIRContext *context) {
  using namespace fa4::dsl;
  const int64_t bm = 128, bn = 256, bk = 64;
  Program p(context, "gemm_relu");
  // The tensors and the launch: A [M, K], B [K, N], C [M, N]; the sizes come
  // from A and B; one program per block of C, whole column blocks.
  Desc a = p.desc("a", {bm, bk}, bf16);
  Desc b = p.desc("b", {bk, bn}, bf16, {a.dim(1), Extent::any()});
  Ptr c = p.ptr("c", bf16, {a.dim(0), b.dim(1)});
  Index m = p.index("m", a.dim(0)), n = p.index("n", b.dim(1)),
        k = p.index("k", a.dim(1));
  Scalar alpha = p.f32("alpha");
  p.grid({cdiv(a.dim(0), bm), cdiv(b.dim(1), bn)});
  p.require(b.dim(1) % bn == 0);

  // Program (i, j) computes block (i, j) of C.
  Index i = p.programId(0), j = p.programId(1);
  auto [acc] = p.forLoop(0, ceilDiv(k, bk), 1, {p.zeros({bm, bn}, f32)},
                         [&](Index kb, Tile partial) {
                           return dot(load(a, {i, kb}), load(b, {kb, j}),
                                      partial);
                         });
  Tile out = max(acc * alpha, p.zeros({bm, bn}, f32));
  store(p.makeDesc(c, {m, n}, {n, 1}, {bm, bn}), {i, j}, out.to(bf16));
  return p.finish();
}

/// bf16 <-> float, round to nearest even.
static uint16_t toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}
static float fromBF16(uint16_t word) {
  uint32_t bits = uint32_t(word) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// A deterministic tensor of bf16 values in [-1, 1).
static std::vector<uint16_t> randomTensor(size_t count, uint64_t seed) {
  std::vector<uint16_t> words(count);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    words[i] = toBF16(float(seed >> 40) / float(1 << 23) - 1.0f);
  }
  return words;
}

static int fail(int code, const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "gemm-relu: %s\n", message.c_str());
  return code;
}

int main(int argc, char **argv) {
  int64_t m = 1000, n = 1024, k = 512;
  double alpha = 0.5;
  std::string kernelOut;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string name = argv[i];
    if (name == "--m")
      m = std::atoll(argv[i + 1]);
    else if (name == "--n")
      n = std::atoll(argv[i + 1]);
    else if (name == "--k")
      k = std::atoll(argv[i + 1]);
    else if (name == "--alpha")
      alpha = std::atof(argv[i + 1]);
    else if (name == "--kernel-out")
      kernelOut = argv[i + 1];
    else
      return fail(2, "unknown option '" + name + "'");
  }
  if (argc % 2 == 0)
    return fail(2, "options take a value: --m M --n N --k K --alpha X "
                   "--kernel-out FILE");

  // 1. Write the kernel and compile it, in-process.
  std::unique_ptr<mlir::MLIRContext> context =
      mlir::fa4::createCompilerContext();
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, context.get());
  mlir::OwningOpRef<mlir::ModuleOp> module = writeGemmRelu(context.get());
  if (!module ||
      mlir::failed(mlir::fa4::attachPlan(
          *module, /*width=*/64, mlir::BFloat16Type::get(context.get()))))
    return fail(2, "the kernel does not build (see the errors above)");
  mlir::fa4::TargetOptions target;
  mlir::fa4::CompileArtifacts artifacts;
  mlir::FailureOr<fa4::runtime::KernelFile> file =
      mlir::fa4::compileModule(*module, target, artifacts);
  if (mlir::failed(file))
    return fail(2, "the kernel does not compile (see the errors above)");
  std::printf("compiled gemm_relu for %s in %.3f s\n", target.arch.c_str(),
              artifacts.seconds);
  if (!kernelOut.empty()) {
    if (Status s = fa4::runtime::writeKernelFile(*file, kernelOut); !s.ok())
      return fail(2, s.message());
    std::printf("wrote %s\n", kernelOut.c_str());
  }

  // 2. The problem's sizes against the kernel's description, before the GPU.
  Expected<fa4::runtime::Binding> check = fa4::runtime::Binding::create(*file);
  if (!check.ok())
    return fail(2, check.status().message());
  auto bindAll = [&](fa4::runtime::Binding &binding, CUdeviceptr a,
                     CUdeviceptr b, CUdeviceptr c) -> Status {
    using fa4::runtime::ElementType;
    for (auto [name, address, shape] :
         {std::tuple{"a", a, std::vector<int64_t>{m, k}},
          {"b", b, std::vector<int64_t>{k, n}},
          {"c", c, std::vector<int64_t>{m, n}}})
      if (Status s = binding.setTensor(name, {address, ElementType::BF16,
                                              shape, {}});
          !s.ok())
        return s;
    return binding.setScalar("alpha", alpha);
  };
  fa4::runtime::DeviceInfo anyDevice;
  anyDevice.smCount = 1;
  if (Status s = bindAll(*check, 256, 512, 768); !s.ok())
    return fail(2, s.message());
  if (Expected<fa4::runtime::ResolvedLaunch> launch = check->resolve(anyDevice);
      !launch.ok())
    return fail(2, launch.status().message());

  // 3. On the GPU: inputs, the launch by name, the check, the time.
  Expected<std::unique_ptr<fa4::runtime::Driver>> driver =
      fa4::runtime::Driver::load();
  if (!driver.ok())
    return fail(3, "no usable GPU, nothing ran: " + driver.status().message());
  Expected<fa4::runtime::Kernel> kernel =
      fa4::runtime::Kernel::load(**driver, *file);
  if (!kernel.ok())
    return fail(4, kernel.status().message());
  std::vector<uint16_t> aHost = randomTensor(size_t(m * k), 1);
  std::vector<uint16_t> bHost = randomTensor(size_t(k * n), 2);
  auto upload = [&](const std::vector<uint16_t> &host, size_t words) {
    Expected<fa4::runtime::DeviceBuffer> buffer =
        fa4::runtime::DeviceBuffer::allocate(**driver, words * 2);
    if (buffer.ok() && !host.empty())
      (void)buffer->copyFromHost(host.data(), host.size() * 2);
    return buffer;
  };
  Expected<fa4::runtime::DeviceBuffer> aDev = upload(aHost, aHost.size());
  Expected<fa4::runtime::DeviceBuffer> bDev = upload(bHost, bHost.size());
  Expected<fa4::runtime::DeviceBuffer> cDev = upload({}, size_t(m * n));
  if (!aDev.ok() || !bDev.ok() || !cDev.ok())
    return fail(4, "cannot allocate the tensors");
  (void)cDev->fill8(0xff);

  Expected<fa4::runtime::Launcher> launcher =
      fa4::runtime::Launcher::create(*kernel, *file);
  if (!launcher.ok())
    return fail(2, launcher.status().message());
  if (Status s = bindAll(launcher->binding(), aDev->address(),
                         bDev->address(), cDev->address());
      !s.ok())
    return fail(2, s.message());
  if (Status s = launcher->launch(); !s.ok())
    return fail(4, s.message());
  if (Status s = (*driver)->synchronize(); !s.ok())
    return fail(4, s.message());
  std::vector<uint16_t> cHost(size_t(m * n));
  if (Status s = cDev->copyToHost(cHost.data(), cHost.size() * 2); !s.ok())
    return fail(4, s.message());

  // The reference in double on 64 rows spread over C, and the last.
  std::vector<int64_t> rows;
  for (int64_t row = 0; row < m; row += std::max<int64_t>(1, m / 64))
    rows.push_back(row);
  if (rows.back() != m - 1)
    rows.push_back(m - 1);
  double errorSquares = 0, referenceSquares = 0;
  size_t nan = 0;
  for (int64_t row : rows)
    for (int64_t col = 0; col < n; ++col) {
      double sum = 0;
      for (int64_t i = 0; i < k; ++i)
        sum += double(fromBF16(aHost[size_t(row * k + i)])) *
               double(fromBF16(bHost[size_t(i * n + col)]));
      double reference = std::max(alpha * sum, 0.0);
      double out = fromBF16(cHost[size_t(row * n + col)]);
      nan += std::isnan(out);
      errorSquares += (out - reference) * (out - reference);
      referenceSquares += reference * reference;
    }
  double relError = std::sqrt(errorSquares / std::max(referenceSquares, 1e-30));
  bool passed = nan == 0 && relError < 1e-2;

  const fa4::runtime::LaunchConfig &config = launcher->config();
  Expected<float> ms =
      fa4::runtime::timeLaunches(*kernel, config, launcher->args(), 100);
  if (!ms.ok())
    return fail(4, ms.status().message());
  double perLaunch = *ms / 100;
  std::printf("gemm_relu m=%lld n=%lld k=%lld alpha=%g on grid %s: "
              "rel_err=%.1e %s  time=%.3f ms  %.1f TFLOP/s\n",
              (long long)m, (long long)n, (long long)k, alpha,
              config.grid.str().c_str(), relError, passed ? "PASS" : "FAIL",
              perLaunch, 2.0 * m * n * k / (perLaunch * 1e-3) / 1e12);
  return passed ? 0 : 1;
}

//===- triton_tutorials.cpp - Triton's tutorials in fa4's DSL -------------===//
//
// Kernels of Triton's tutorials as their authors write them, in fa4's C++
// DSL, each compiled in-process into a kernel file that describes its own
// launch:
//
// - layer-norm.kernel (tutorial 05, the forward): along each row of X
//   [M, N], Y = (X - mean) * rstd * W + B with rstd = 1 / sqrt(var + eps),
//   the rows' mean and rstd kept for a backward;
// - rms-norm.kernel: Y = X * rsqrt(mean(X^2) + eps) * W;
// - matmul-gelu.kernel (tutorial 03 with a bias and GELU as its epilogue):
//   C = gelu(A B + bias) for row-major A [M, K], B [K, N], bias [N], GELU
//   the exact one, x / 2 * (1 + erf(x / sqrt(2))).
//
// A norm program takes 128 rows whole (N up to 256: Triton's BLOCK_SIZE,
// fixed when the kernel is compiled, --n); the matmul one a 128 x 256 block
// of C. bf16 in and out, f32 math.
//
//   triton-tutorials [--out-dir DIR] [--n N]
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"
#include "fa4/DSL/DSL.h"
#include "fa4/KernelFormat/KernelFile.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

using namespace fa4::dsl;
using Module = mlir::OwningOpRef<mlir::ModuleOp>;

/// The block of a row of N elements: whole 128-byte rows of bf16.
static int64_t rowBlock(int64_t n) { return (n + 63) / 64 * 64; }

/// Tutorial 05's layer norm, the forward.
static Module layerNorm(mlir::MLIRContext *context, int64_t n) {
  const int64_t block = rowBlock(n);
  Program p(context, "layer_norm");
  Desc x = p.desc("x", {128, block}, bf16, {Extent::any(), n});
  Desc y = p.desc("y", {128, block}, bf16, {x.dim(0), n});
  Ptr w = p.ptr("w", bf16, {n}), b = p.ptr("b", bf16, {n});
  Ptr mean = p.ptr("mean", f32, {x.dim(0)});
  Ptr rstd = p.ptr("rstd", f32, {x.dim(0)});
  Index rows = p.index("rows", x.dim(0));
  Scalar eps = p.f32("eps");
  p.grid({cdiv(x.dim(0), 128)});

  // Program i normalizes rows [128 i, 128 i + 128); the loads read zeros
  // past N, which the centred values must not keep.
  Index i = p.programId(0);
  Tile xs = load(x, {i, 0}).to(f32);
  Tile mu = sum(xs, 1) * (1.0 / n);
  Tile xc = where(p.iota({128, block}, 1) < n, xs - mu.col(), 0.0);
  Tile r = rsqrt(sum(xc * xc, 1) * (1.0 / n) + eps);
  Tile wv = load(p.makeDesc(w, {n}, {1}, {block}), {0}).to(f32);
  Tile bv = load(p.makeDesc(b, {n}, {1}, {block}), {0}).to(f32);
  store(p.makeDesc(mean, {rows}, {1}, {128}), {i}, mu);
  store(p.makeDesc(rstd, {rows}, {1}, {128}), {i}, r);
  store(y, {i, 0}, (xc * r.col() * wv.row() + bv.row()).to(bf16));
  return p.finish();
}

/// RMSNorm (Llama's), one pass over each row.
static Module rmsNorm(mlir::MLIRContext *context, int64_t n) {
  const int64_t block = rowBlock(n);
  Program p(context, "rms_norm");
  Desc x = p.desc("x", {128, block}, bf16, {Extent::any(), n});
  Desc y = p.desc("y", {128, block}, bf16, {x.dim(0), n});
  Ptr w = p.ptr("w", bf16, {n});
  Scalar eps = p.f32("eps");
  p.grid({cdiv(x.dim(0), 128)});

  Index i = p.programId(0);
  Tile xs = load(x, {i, 0}).to(f32);
  Tile r = rsqrt(sum(xs * xs, 1) * (1.0 / n) + eps);
  Tile wv = load(p.makeDesc(w, {n}, {1}, {block}), {0}).to(f32);
  store(y, {i, 0}, (xs * r.col() * wv.row()).to(bf16));
  return p.finish();
}

/// Tutorial 03's matmul with a bias and GELU in its epilogue.
static Module matmulGelu(mlir::MLIRContext *context, int64_t) {
  const int64_t bm = 128, bn = 256, bk = 64;
  Program p(context, "matmul_gelu");
  Desc a = p.desc("a", {bm, bk}, bf16);
  Desc b = p.desc("b", {bk, bn}, bf16, {a.dim(1), Extent::any()});
  Ptr bias = p.ptr("bias", bf16, {b.dim(1)});
  Ptr c = p.ptr("c", bf16, {a.dim(0), b.dim(1)});
  Index m = p.index("m", a.dim(0)), n = p.index("n", b.dim(1)),
        k = p.index("k", a.dim(1));
  p.grid({cdiv(a.dim(0), bm), cdiv(b.dim(1), bn)});
  // C is stored in whole column blocks.
  p.require(b.dim(1) % bn == 0);

  Index i = p.programId(0), j = p.programId(1);
  auto [acc] =
      p.forLoop(0, ceilDiv(k, bk), 1, {p.zeros({bm, bn}, f32)},
                [&](Index kb, Tile partial) {
                  return dot(load(a, {i, kb}), load(b, {kb, j}), partial);
                });
  Tile x = acc + load(p.makeDesc(bias, {n}, {1}, {bn}), {j}).to(f32).row();
  Tile gelu = 0.5 * x * (1.0 + erf(x * 0.7071067811865476));
  store(p.makeDesc(c, {m, n}, {n, 1}, {bm, bn}), {i, j}, gelu.to(bf16));
  return p.finish();
}

/// ptxas's spill counts in `report` ("0 bytes spill stores, 0 bytes spill
/// loads"): what the epilogue or the norm costs in registers.
static std::string spills(const std::string &report) {
  size_t at = report.find("bytes spill stores");
  if (at == std::string::npos)
    return "no ptxas report";
  size_t first = report.rfind(',', at) + 2;
  return report.substr(first, report.find('\n', at) - first);
}

static int fail(int status, const std::string &message) {
  std::fprintf(stderr, "triton-tutorials: %s\n", message.c_str());
  return status;
}

int main(int argc, char **argv) {
  std::string outDir = ".";
  int64_t n = 200;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 < argc && arg == "--out-dir")
      outDir = argv[++i];
    else if (i + 1 < argc && arg == "--n")
      n = std::atoll(argv[++i]);
    else
      return fail(1, "usage: triton-tutorials [--out-dir DIR] [--n N]");
  }
  if (n < 16 || n > 256 || n % 8 != 0)
    return fail(1, "--n takes a multiple of 8 in [16, 256] (a norm's row "
                   "is one block), got " +
                       std::to_string(n));

  std::unique_ptr<mlir::MLIRContext> context =
      mlir::fa4::createCompilerContext();
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, context.get());
  mlir::Type bf16Type = mlir::BFloat16Type::get(context.get());
  // Each kernel, and the width of its loads that the plan is derived for.
  struct Tutorial {
    const char *name;
    std::function<Module(mlir::MLIRContext *, int64_t)> write;
    int64_t width;
  };
  for (const Tutorial &tutorial :
       {Tutorial{"layer-norm", layerNorm, rowBlock(n)},
        Tutorial{"rms-norm", rmsNorm, rowBlock(n)},
        Tutorial{"matmul-gelu", matmulGelu, 64}}) {
    Module module = tutorial.write(context.get(), n);
    if (!module ||
        mlir::failed(mlir::fa4::attachPlan(*module, tutorial.width, bf16Type)))
      return fail(2, std::string(tutorial.name) +
                         " does not build (see the errors above)");
    mlir::fa4::TargetOptions target;
    mlir::fa4::CompileArtifacts artifacts;
    artifacts.keepStages = false;
    mlir::FailureOr<fa4::runtime::KernelFile> file =
        mlir::fa4::compileModule(*module, target, artifacts);
    if (mlir::failed(file))
      return fail(2, std::string(tutorial.name) +
                         " does not compile (see the errors above)");
    std::string path = outDir + "/" + tutorial.name + ".kernel";
    if (fa4::runtime::Status s = fa4::runtime::writeKernelFile(*file, path);
        !s.ok())
      return fail(2, s.message());
    std::printf("compiled %s for %s (%s): wrote %s\n", tutorial.name,
                target.arch.c_str(),
                spills(artifacts.stages["ptxas-report"]).c_str(), path.c_str());
  }
  return 0;
}

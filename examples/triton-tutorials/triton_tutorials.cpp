//===- triton_tutorials.cpp - Triton's tutorials in fa4's DSL -------------===//
//
// Kernels of Triton's tutorials as their authors write them, in fa4's C++
// DSL, each compiled in-process into a kernel file that describes its own
// launch:
//
// - vector-add.kernel (tutorial 01): out = x + y for f32 vectors of any
//   length N, a block of 1024 elements a program (1-d tiles, spread over
//   the program's threads in consecutive pieces);
// - layer-norm.kernel (tutorial 05, the forward): along each row of X
//   [M, N], Y = (X - mean) * rstd * W + B with rstd = 1 / sqrt(var + eps),
//   the rows' mean and rstd kept for a backward;
// - rms-norm.kernel: Y = X * rsqrt(mean(X^2) + eps) * W;
// - matmul-gelu.kernel (tutorial 03 with a bias and GELU as its epilogue):
//   C = gelu(A B + bias) for row-major A [M, K], B [K, N], bias [N], GELU
//   the exact one, x / 2 * (1 + erf(x / sqrt(2))).
//
// A norm program takes 128 rows, any N (a multiple of 8: TMA's 16-byte
// row stride), in blocks of 128 columns, Triton's BLOCK_SIZE; the matmul
// one a 128 x 256 block of C, any M, and N and K multiples of 8 (B's and
// A's row strides), the rows and columns past C's edge not written. bf16
// in and out, f32 math.
//
//   triton-tutorials [--out-dir DIR]
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"
#include "fa4/DSL/DSL.h"
#include "fa4/KernelFormat/KernelFile.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace fa4::dsl;
using Module = mlir::OwningOpRef<mlir::ModuleOp>;

/// Tutorial 01's vector add: a program adds a block of 1024 elements,
/// those past N neither read nor written.
static Module vectorAdd(mlir::MLIRContext *context) {
  const int64_t block = 1024;
  Program p(context, "vector_add");
  Ptr x = p.ptr("x", f32, {Extent::any()});
  Ptr y = p.ptr("y", f32, {x.dim(0)});
  Ptr out = p.ptr("out", f32, {x.dim(0)});
  Index n = p.index("n", x.dim(0));
  p.grid({cdiv(x.dim(0), block)});

  Index i = p.programId(0);
  Tile a = load(p.makeDesc(x, {n}, {1}, {block}), {i});
  Tile b = load(p.makeDesc(y, {n}, {1}, {block}), {i});
  store(p.makeDesc(out, {n}, {1}, {block}), {i}, a + b);
  return p.finish();
}

/// The columns a norm program takes at a time: Triton's BLOCK_SIZE.
constexpr int64_t kBlock = 128;

/// Tutorial 05's layer norm, the forward: a loop over the row's blocks for
/// the mean, one for the variance of the centred values, one that
/// normalizes and stores (three reads of X, as the tutorial's).
static Module layerNorm(mlir::MLIRContext *context) {
  Program p(context, "layer_norm");
  Desc x = p.desc("x", {128, kBlock}, bf16);
  Desc y = p.desc("y", {128, kBlock}, bf16, {x.dim(0), x.dim(1)});
  Ptr w = p.ptr("w", bf16, {x.dim(1)}), b = p.ptr("b", bf16, {x.dim(1)});
  Ptr mean = p.ptr("mean", f32, {x.dim(0)});
  Ptr rstd = p.ptr("rstd", f32, {x.dim(0)});
  Index rows = p.index("rows", x.dim(0)), n = p.index("n", x.dim(1));
  Scalar eps = p.f32("eps");
  p.grid({cdiv(x.dim(0), 128)});

  // Program i normalizes rows [128 i, 128 i + 128); the loads read zeros
  // past N, which the centred values must not keep.
  Index i = p.programId(0);
  Index blocks = ceilDiv(n, kBlock);
  Tile perRow = 1.0 / splat(n, {128}).to(f32);
  auto [total] =
      p.forLoop(0, blocks, 1, {p.zeros({128}, f32)}, [&](Index c, Tile acc) {
        return acc + sum(load(x, {i, c}).to(f32), 1);
      });
  Tile mu = total * perRow;
  auto centred = [&](Index c) {
    Tile cols = p.iota({128, kBlock}, 1) + c * kBlock;
    return where(cols < n, load(x, {i, c}).to(f32) - mu.col(), 0.0);
  };
  auto [squares] =
      p.forLoop(0, blocks, 1, {p.zeros({128}, f32)}, [&](Index c, Tile acc) {
        Tile xc = centred(c);
        return acc + sum(xc * xc, 1);
      });
  Tile r = rsqrt(squares * perRow + eps);
  store(p.makeDesc(mean, {rows}, {1}, {128}), {i}, mu);
  store(p.makeDesc(rstd, {rows}, {1}, {128}), {i}, r);
  Desc wd = p.makeDesc(w, {n}, {1}, {kBlock});
  Desc bd = p.makeDesc(b, {n}, {1}, {kBlock});
  p.forLoop(0, blocks, 1, [&](Index c) {
    Tile wv = load(wd, {c}).to(f32), bv = load(bd, {c}).to(f32);
    store(y, {i, c}, (centred(c) * r.col() * wv.row() + bv.row()).to(bf16));
  });
  return p.finish();
}

/// RMSNorm (Llama's): a loop for the mean square, one that normalizes.
static Module rmsNorm(mlir::MLIRContext *context) {
  Program p(context, "rms_norm");
  Desc x = p.desc("x", {128, kBlock}, bf16);
  Desc y = p.desc("y", {128, kBlock}, bf16, {x.dim(0), x.dim(1)});
  Ptr w = p.ptr("w", bf16, {x.dim(1)});
  Index n = p.index("n", x.dim(1));
  Scalar eps = p.f32("eps");
  p.grid({cdiv(x.dim(0), 128)});

  Index i = p.programId(0);
  Index blocks = ceilDiv(n, kBlock);
  auto [squares] =
      p.forLoop(0, blocks, 1, {p.zeros({128}, f32)}, [&](Index c, Tile acc) {
        Tile xs = load(x, {i, c}).to(f32);
        return acc + sum(xs * xs, 1);
      });
  Tile r = rsqrt(squares * (1.0 / splat(n, {128}).to(f32)) + eps);
  Desc wd = p.makeDesc(w, {n}, {1}, {kBlock});
  p.forLoop(0, blocks, 1, [&](Index c) {
    Tile xs = load(x, {i, c}).to(f32);
    store(y, {i, c}, (xs * r.col() * load(wd, {c}).to(f32).row()).to(bf16));
  });
  return p.finish();
}

/// Tutorial 03's matmul with a bias and GELU in its epilogue.
static Module matmulGelu(mlir::MLIRContext *context) {
  const int64_t bm = 128, bn = 256, bk = 64;
  Program p(context, "matmul_gelu");
  Desc a = p.desc("a", {bm, bk}, bf16);
  Desc b = p.desc("b", {bk, bn}, bf16, {a.dim(1), Extent::any()});
  Ptr bias = p.ptr("bias", bf16, {b.dim(1)});
  Ptr c = p.ptr("c", bf16, {a.dim(0), b.dim(1)});
  Index m = p.index("m", a.dim(0)), n = p.index("n", b.dim(1)),
        k = p.index("k", a.dim(1));
  p.grid({cdiv(a.dim(0), bm), cdiv(b.dim(1), bn)});

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

static int fail(int status, const std::string &message) {
  std::fprintf(stderr, "triton-tutorials: %s\n", message.c_str());
  return status;
}

int main(int argc, char **argv) {
  std::string outDir = ".";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 < argc && arg == "--out-dir")
      outDir = argv[++i];
    else
      return fail(1, "usage: triton-tutorials [--out-dir DIR]");
  }

  std::unique_ptr<mlir::MLIRContext> context =
      mlir::fa4::createCompilerContext();
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, context.get());
  mlir::Type bf16Type = mlir::BFloat16Type::get(context.get());
  // Each kernel, and the width of its loads that the plan is derived for.
  struct Tutorial {
    const char *name;
    Module (*write)(mlir::MLIRContext *);
    int64_t width;
  };
  for (const Tutorial &tutorial : {Tutorial{"vector-add", vectorAdd, 64},
                                   Tutorial{"layer-norm", layerNorm, kBlock},
                                   Tutorial{"rms-norm", rmsNorm, kBlock},
                                   Tutorial{"matmul-gelu", matmulGelu, 64}}) {
    Module module = tutorial.write(context.get());
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
                target.arch.c_str(), artifacts.spills().c_str(), path.c_str());
  }
  return 0;
}

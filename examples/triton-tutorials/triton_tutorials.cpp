//===- triton_tutorials.cpp - Triton's tutorials in fa4's DSL -------------===//
//
// Kernels of Triton's tutorials as their authors write them, in fa4's C++
// DSL, each compiled in-process into a kernel file that describes its own
// launch:
//
// - vector-add.kernel (tutorial 01): out = x + y for f32 vectors of any
//   length N, a block of 1024 elements a program (1-d tiles, spread over
//   the program's threads in consecutive pieces);
// - softmax.kernel (tutorial 02): each row of X [M, N] through a softmax,
//   Y = exp(X - max) / sum(exp(X - max)), with an online maximum so that
//   rows of any length take two passes; softmax-row4096.kernel and
//   softmax-row8192.kernel in the tutorial's own form, a row of up to 4096
//   or 8192 in one block read once, a warpgroup's four warps on a row;
//   layer-norm-row4096.kernel, rms-norm-row4096.kernel and their 8192
//   siblings take the norms the same way;
// - layer-norm.kernel (tutorial 05, the forward): along each row of X
//   [M, N], Y = (X - mean) * rstd * W + B with rstd = 1 / sqrt(var + eps),
//   the rows' mean and rstd kept for a backward; layer-norm-dwdb.kernel,
//   the last kernel of its backward: the weight's and the bias's
//   gradients as the column sums of the partial sums DW and DB [M, N]
//   (tl.sum(dw, axis=0)), a program a block of 128 columns, 32 rows a step;
// - rms-norm.kernel: Y = X * rsqrt(mean(X^2) + eps) * W;
// - matmul-gelu.kernel (tutorial 03 with a bias and GELU as its epilogue):
//   C = gelu(A B + bias) for row-major A [M, K], B [K, N], bias [N], GELU
//   the exact one, x / 2 * (1 + erf(x / sqrt(2))).
//
// A softmax or norm program takes 8 rows of any N, in blocks of 512
// columns (Triton's BLOCK_SIZE) through pointers; the `-128` kernels
// (softmax-128.kernel, ...) 32 rows in blocks of 128, for short rows, as
// Triton compiles a kernel per BLOCK_SIZE. These are kernels without a
// dot, whose tiles fa4 lays out a row a warp (four at 128 columns), each
// lane 16-byte pieces of it (#fa4.coalesced), read and written a piece at
// once where the row stride allows, each loop's loads an iteration ahead;
// their plan runs four CTAs an SM. The matmul takes a 128 x 256 block of C,
// any M, and N and K multiples of 8 (B's and A's row strides), the rows
// and columns past C's edge not written. bf16 in and out, f32 math.
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
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

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

/// The rows and the columns a softmax or norm program takes at a time:
/// Triton's BLOCK_SIZE along a row, and a few rows (a row a warp at 1024
/// columns, four at 128).
struct RowBlock {
  int64_t rows, cols;
};
/// The blocks the row kernels are compiled for: wide rows, and rows of up to
/// 128 (`-128` kernels), as Triton compiles a kernel per BLOCK_SIZE.
constexpr RowBlock kWide{8, 512}, kNarrow{32, 128};
/// The CTAs of such a program an SM runs at once (the plan's ctas-per-sm).
constexpr int64_t kCtasPerSm = 4;

/// X [M, N] and Y [M, N] as kernel pointers, read and written in blocks of
/// `block`; the program's first row block and its column blocks.
struct RowProgram {
  RowBlock block;
  Ptr x, y;
  Index rows, n, i, blocks;
  Desc xs, ys;

  RowProgram(Program &p, RowBlock block)
      : block(block), x(p.ptr("x", bf16, {Extent::any(), Extent::any()})),
        y(p.ptr("y", bf16, {x.dim(0), x.dim(1)})),
        rows(p.index("rows", x.dim(0))), n(p.index("n", x.dim(1))),
        i(p.programId(0)), blocks(ceilDiv(n, block.cols)),
        xs(p.makeDesc(x, {rows, n}, {n, 1}, {block.rows, block.cols})),
        ys(p.makeDesc(y, {rows, n}, {n, 1}, {block.rows, block.cols})) {
    p.grid({cdiv(x.dim(0), block.rows)});
  }

  /// Whether each column of block `c` lies inside the row.
  Tile inside(Program &p, Index c) const {
    return p.iota({block.rows, block.cols}, 1) + c * block.cols < n;
  }
  /// A zero, or `value`, for each of the block's rows.
  Tile perRow(Program &p, double value = 0) const {
    return p.full({block.rows}, value, f32);
  }
};

/// Tutorial 05's layer norm, the forward: a loop over the row's blocks for
/// the mean, one for the variance of the centred values, one that
/// normalizes and stores (three reads of X, as the tutorial's; the later
/// two find the rows in the cache).
static Module layerNorm(mlir::MLIRContext *context, RowBlock block) {
  Program p(context, "layer_norm");
  RowProgram r(p, block);
  Ptr w = p.ptr("w", bf16, {r.x.dim(1)}), b = p.ptr("b", bf16, {r.x.dim(1)});
  Ptr mean = p.ptr("mean", f32, {r.x.dim(0)});
  Ptr rstd = p.ptr("rstd", f32, {r.x.dim(0)});
  Scalar eps = p.f32("eps");

  // The loads read zeros past N, which the centred values must not keep.
  Tile perRow = 1.0 / splat(r.n, {block.rows}).to(f32);
  auto [total] =
      p.forLoop(0, r.blocks, 1, {r.perRow(p)}, [&](Index c, Tile acc) {
        return acc + sum(load(r.xs, {r.i, c}).to(f32), 1);
      });
  Tile mu = total * perRow;
  auto centred = [&](Index c) {
    return where(r.inside(p, c), load(r.xs, {r.i, c}).to(f32) - mu.col(), 0.0);
  };
  auto [squares] =
      p.forLoop(0, r.blocks, 1, {r.perRow(p)}, [&](Index c, Tile acc) {
        Tile xc = centred(c);
        return acc + sum(xc * xc, 1);
      });
  Tile rs = rsqrt(squares * perRow + eps);
  store(p.makeDesc(mean, {r.rows}, {1}, {block.rows}), {r.i}, mu);
  store(p.makeDesc(rstd, {r.rows}, {1}, {block.rows}), {r.i}, rs);
  Desc wd = p.makeDesc(w, {r.n}, {1}, {block.cols});
  Desc bd = p.makeDesc(b, {r.n}, {1}, {block.cols});
  p.forLoop(0, r.blocks, 1, [&](Index c) {
    Tile wv = load(wd, {c}).to(f32), bv = load(bd, {c}).to(f32);
    store(r.ys, {r.i, c},
          (centred(c) * rs.col() * wv.row() + bv.row()).to(bf16));
  });
  return p.finish();
}

/// Tutorial 05's backward, its last kernel: the weight's and the bias's
/// gradients, the columns of the partial sums DW and DB [M, N] (the rows
/// that the programs of the fused backward added to) summed, a block of
/// `block.cols` columns a program, the rows a block at a time.
static Module layerNormDwDb(mlir::MLIRContext *context, RowBlock block) {
  Program p(context, "layer_norm_dwdb");
  Ptr dw = p.ptr("dw", f32, {Extent::any(), Extent::any()});
  Ptr db = p.ptr("db", f32, {dw.dim(0), dw.dim(1)});
  Ptr finalDw = p.ptr("final_dw", f32, {dw.dim(1)});
  Ptr finalDb = p.ptr("final_db", f32, {dw.dim(1)});
  Index m = p.index("m", dw.dim(0)), n = p.index("n", dw.dim(1));
  p.grid({cdiv(dw.dim(1), block.cols)});

  Index j = p.programId(0);
  Desc dws = p.makeDesc(dw, {m, n}, {n, 1}, {block.rows, block.cols});
  Desc dbs = p.makeDesc(db, {m, n}, {n, 1}, {block.rows, block.cols});
  Tile zeros = p.zeros({block.rows, block.cols}, f32);
  auto [w, b] =
      p.forLoop(0, ceilDiv(m, block.rows), 1, {zeros, zeros},
                [&](Index i, Tile w, Tile b) -> Tiles<2> {
                  return {w + load(dws, {i, j}), b + load(dbs, {i, j})};
                });
  store(p.makeDesc(finalDw, {n}, {1}, {block.cols}), {j}, sum(w, 0));
  store(p.makeDesc(finalDb, {n}, {1}, {block.cols}), {j}, sum(b, 0));
  return p.finish();
}

/// RMSNorm (Llama's): a loop for the mean square, one that normalizes.
static Module rmsNorm(mlir::MLIRContext *context, RowBlock block) {
  Program p(context, "rms_norm");
  RowProgram r(p, block);
  Ptr w = p.ptr("w", bf16, {r.x.dim(1)});
  Scalar eps = p.f32("eps");

  auto [squares] =
      p.forLoop(0, r.blocks, 1, {r.perRow(p)}, [&](Index c, Tile acc) {
        Tile xs = load(r.xs, {r.i, c}).to(f32);
        return acc + sum(xs * xs, 1);
      });
  Tile rs = rsqrt(squares * (1.0 / splat(r.n, {block.rows}).to(f32)) + eps);
  Desc wd = p.makeDesc(w, {r.n}, {1}, {block.cols});
  p.forLoop(0, r.blocks, 1, [&](Index c) {
    Tile xs = load(r.xs, {r.i, c}).to(f32);
    store(r.ys, {r.i, c},
          (xs * rs.col() * load(wd, {c}).to(f32).row()).to(bf16));
  });
  return p.finish();
}

/// Tutorial 02's softmax along the rows, for rows of any length: a loop
/// that keeps each row's running maximum and its sum of exponentials
/// (rescaled when the maximum grows), one that normalizes and stores.
static Module softmax(mlir::MLIRContext *context, RowBlock block) {
  const double inf = std::numeric_limits<double>::infinity();
  Program p(context, "softmax");
  RowProgram r(p, block);

  auto [m, l] = p.forLoop(
      0, r.blocks, 1, {r.perRow(p, -inf), r.perRow(p)},
      [&](Index c, Tile mPrev, Tile lPrev) -> Tiles<2> {
        Tile xs = where(r.inside(p, c), load(r.xs, {r.i, c}).to(f32), -inf);
        Tile mNew = max(mPrev, max(xs, 1));
        Tile l = lPrev * exp(mPrev - mNew) + sum(exp(xs - mNew.col()), 1);
        return {mNew, l};
      });
  Tile perSum = 1.0 / l;
  p.forLoop(0, r.blocks, 1, [&](Index c) {
    Tile xs = load(r.xs, {r.i, c}).to(f32);
    store(r.ys, {r.i, c}, (exp(xs - m.col()) * perSum.col()).to(bf16));
  });
  return p.finish();
}

/// Tutorial 02's softmax in its own form: a row in one block of `cols`
/// columns (N at most `cols`), read once and held in registers, a row a
/// warpgroup spread over its four warps.
static Module softmaxRow(mlir::MLIRContext *context, RowBlock block) {
  const double inf = std::numeric_limits<double>::infinity();
  Program p(context, "softmax_row");
  RowProgram r(p, block);
  p.require(r.x.dim(1) <= block.cols);
  Tile inside = p.iota({block.rows, block.cols}, 1) < r.n;
  Tile xs = where(inside, load(r.xs, {r.i, 0}).to(f32), -inf);
  Tile e = exp(xs - max(xs, 1).col());
  store(r.ys, {r.i, 0}, (e * (1.0 / sum(e, 1)).col()).to(bf16));
  return p.finish();
}

/// Tutorial 05's layer norm in its own form: a row in one block of
/// `block.cols` columns (N at most that), read once and held in registers.
static Module layerNormRow(mlir::MLIRContext *context, RowBlock block) {
  Program p(context, "layer_norm_row");
  RowProgram r(p, block);
  p.require(r.x.dim(1) <= block.cols);
  Ptr w = p.ptr("w", bf16, {r.x.dim(1)}), b = p.ptr("b", bf16, {r.x.dim(1)});
  Ptr mean = p.ptr("mean", f32, {r.x.dim(0)});
  Ptr rstd = p.ptr("rstd", f32, {r.x.dim(0)});
  Scalar eps = p.f32("eps");

  Tile perRow = 1.0 / splat(r.n, {block.rows}).to(f32);
  Tile xs = load(r.xs, {r.i, 0}).to(f32);
  Tile mu = sum(xs, 1) * perRow;
  Tile xc =
      where(p.iota({block.rows, block.cols}, 1) < r.n, xs - mu.col(), 0.0);
  Tile rs = rsqrt(sum(xc * xc, 1) * perRow + eps);
  store(p.makeDesc(mean, {r.rows}, {1}, {block.rows}), {r.i}, mu);
  store(p.makeDesc(rstd, {r.rows}, {1}, {block.rows}), {r.i}, rs);
  Tile wv = load(p.makeDesc(w, {r.n}, {1}, {block.cols}), {0}).to(f32);
  Tile bv = load(p.makeDesc(b, {r.n}, {1}, {block.cols}), {0}).to(f32);
  store(r.ys, {r.i, 0}, (xc * rs.col() * wv.row() + bv.row()).to(bf16));
  return p.finish();
}

/// RMSNorm with a row in one block of `block.cols` columns.
static Module rmsNormRow(mlir::MLIRContext *context, RowBlock block) {
  Program p(context, "rms_norm_row");
  RowProgram r(p, block);
  p.require(r.x.dim(1) <= block.cols);
  Ptr w = p.ptr("w", bf16, {r.x.dim(1)});
  Scalar eps = p.f32("eps");

  Tile xs = load(r.xs, {r.i, 0}).to(f32);
  Tile rs =
      rsqrt(sum(xs * xs, 1) * (1.0 / splat(r.n, {block.rows}).to(f32)) + eps);
  Tile wv = load(p.makeDesc(w, {r.n}, {1}, {block.cols}), {0}).to(f32);
  store(r.ys, {r.i, 0}, (xs * rs.col() * wv.row()).to(bf16));
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
  // Each kernel, the width of its loads that the plan is derived for, and
  // the plan's choices: the memory-bound row kernels run several CTAs an
  // SM, for the loads they keep in flight.
  fa4::Plan rowPlan;
  rowPlan.ctasPerSm = kCtasPerSm;
  using Writer = std::function<Module(mlir::MLIRContext *)>;
  struct Tutorial {
    std::string name;
    Writer write;
    int64_t width;
    fa4::Plan plan;
  };
  std::vector<Tutorial> tutorials = {{"vector-add", vectorAdd, 64, {}}};
  using RowWriter = Module (*)(mlir::MLIRContext *, RowBlock);
  for (auto [name, write] :
       {std::pair<const char *, RowWriter>{"softmax", softmax},
        {"layer-norm", layerNorm},
        {"rms-norm", rmsNorm}})
    for (auto [suffix, block] : {std::pair{"", kWide}, {"-128", kNarrow}})
      tutorials.push_back(
          {std::string(name) + suffix,
           [write = write, block = block](mlir::MLIRContext *c) {
             return write(c, block);
           },
           64, rowPlan});
  // A whole row in registers: two CTAs an SM, 128 registers a thread; one
  // for the layer norm of 8192 columns, which holds the row, the weight
  // and the bias (192 values a thread).
  fa4::Plan twoPerSm, onePerSm;
  twoPerSm.ctasPerSm = 2;
  for (auto [name, write] :
       {std::pair<const char *, RowWriter>{"softmax-row", softmaxRow},
        {"layer-norm-row", layerNormRow},
        {"rms-norm-row", rmsNormRow}})
    for (int64_t cols : {4096, 8192})
      tutorials.push_back(
          {name + std::to_string(cols),
           [write = write, cols](mlir::MLIRContext *c) {
             return write(c, {2, cols});
           },
           64, write == layerNormRow && cols == 8192 ? onePerSm : twoPerSm});
  // Tutorial 05's blocks, 32 rows of 128 columns a step: two sums and the
  // next step's loads in registers, two CTAs an SM.
  tutorials.push_back(
      {"layer-norm-dwdb",
       [](mlir::MLIRContext *c) { return layerNormDwDb(c, kNarrow); }, 64,
       twoPerSm});
  tutorials.push_back({"matmul-gelu", matmulGelu, 64, {}});
  for (const Tutorial &tutorial : tutorials) {
    Module module = tutorial.write(context.get());
    if (!module || mlir::failed(mlir::fa4::attachPlan(*module, tutorial.width,
                                                      bf16Type, tutorial.plan)))
      return fail(2, tutorial.name + " does not build (see the errors above)");
    mlir::fa4::TargetOptions target;
    mlir::fa4::CompileArtifacts artifacts;
    artifacts.keepStages = false;
    mlir::FailureOr<fa4::runtime::KernelFile> file =
        mlir::fa4::compileModule(*module, target, artifacts);
    if (mlir::failed(file))
      return fail(2,
                  tutorial.name + " does not compile (see the errors above)");
    std::string path = outDir + "/" + tutorial.name + ".kernel";
    if (fa4::runtime::Status s = fa4::runtime::writeKernelFile(*file, path);
        !s.ok())
      return fail(2, s.message());
    std::printf("compiled %s for %s (%s): wrote %s\n", tutorial.name.c_str(),
                target.arch.c_str(), artifacts.spills().c_str(), path.c_str());
  }
  return 0;
}

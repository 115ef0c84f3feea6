//===- Gemm.cpp - a GEMM in the DSL ---------------------------------------===//
//
// C = A · Bᵀ written like a Triton kernel: each program accumulates one
// block of C in f32 over the blocks of K, and stores it in bf16.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

using namespace fa4::dsl;

mlir::OwningOpRef<mlir::ModuleOp>
fa4::dsl::buildGemm(mlir::MLIRContext *context, const GemmOptions &options) {
  const int64_t bm = options.blockM, bn = options.blockN, bk = options.blockK;
  Program p(context, "gemm");
  // A is [M, K], B [N, K] and C [M, N]; the launch takes the sizes from A
  // and B, and runs one program per block of C. C is stored in whole
  // column blocks.
  Desc a = p.desc("a", {bm, bk}, bf16);
  Desc b = p.desc("b", {bn, bk}, bf16, {Extent::any(), a.dim(1)});
  Ptr c = p.ptr("c", bf16, {a.dim(0), b.dim(0)});
  Index m = p.index("m", a.dim(0)), n = p.index("n", b.dim(0)),
        k = p.index("k", a.dim(1));
  p.grid({cdiv(a.dim(0), bm), cdiv(b.dim(0), bn)});
  p.require(b.dim(0) % bn == 0);

  // Program (i, j) computes block (i, j) of C.
  Index i = p.programId(0), j = p.programId(1);
  auto [acc] = p.forLoop(
      0, ceilDiv(k, bk), 1, {p.zeros({bm, bn}, f32)},
      [&](Index kb, Tile partial) {
        return dot(load(a, {i, kb}), trans(load(b, {j, kb})), partial);
      });
  Desc cd = p.makeDesc(c, {m, n}, {n, 1}, {bm, bn});
  store(cd, {i, j}, acc.to(bf16));
  return p.finish();
}

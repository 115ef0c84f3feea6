// The plan's ctas-per-sm: a kernel without a producer warp (it loads
// through pointers) starts each thread with the SM's registers shared among
// that many CTAs (.maxnreg: 65536 / (256 threads x 4) = 64); a kernel that
// loads by TMA runs one CTA an SM, and asking for more is refused.
// RUN: fa4-opt %s --fa4-attach-config="head-dim=64 ctas-per-sm=4" --fa4-tile-to-fa4 --fa4-to-llvm | FileCheck %s
// RUN: fa4-opt %s --fa4-attach-config="head-dim=64" --fa4-tile-to-fa4 --fa4-to-llvm | FileCheck %s --check-prefix=ONE
// RUN: not fa4-opt %S/Inputs/gemm-tile.mlir --fa4-attach-config="head-dim=64 ctas-per-sm=2" --fa4-tile-to-fa4 2>&1 | FileCheck %s --check-prefix=TMA

// CHECK: llvm.func @scale({{.*}} nvvm.maxnreg = 64 : i32
// ONE: llvm.func @scale({{.*}} nvvm.maxnreg = 248 : i32
func.func @scale(%x: !tile.ptr<f32> {fa4.name = "x"}, %n: index {fa4.name = "n"}) attributes {fa4.kernel} {
  %c1 = arith.constant 1 : index
  %i = tile.program_id 0
  %xd = tile.make_desc %x, [%n, %n], [%n, %c1] : !tile.ptr<f32> -> !tile.desc<8x512xf32>
  %t = tile.load %xd[%i, %c1] : !tile.desc<8x512xf32> -> tensor<8x512xf32>
  %two = arith.constant dense<2.0> : tensor<8x512xf32>
  %y = arith.mulf %t, %two : tensor<8x512xf32>
  tile.store %y, %xd[%i, %c1] : tensor<8x512xf32>, !tile.desc<8x512xf32>
  return
}

// TMA: error: 'func.func' op loads by TMA, so its producer warp and consumer warpgroups share an SM's registers through setmaxnreg, but the plan asks for 2 CTAs an SM (ctas-per-sm): such a kernel runs one

// Math the NVPTX backend does not select as it stands: `math.log2` on f32
// becomes lg2.approx per element; `math.tanh` (a logit softcap) becomes
// LLVM's tanh intrinsic with `afn` per element, which the backend selects as
// tanh.approx.f32: a pure operation, not inline PTX. `math.rsqrt` with
// `afn` becomes rsqrt.approx (without it, MathToLLVM's exact 1 / sqrt);
// `math.sqrt` the correctly rounded sqrt.rn; `math.erf` MLIR's polynomial
// (no call, no erf instruction exists); `math.absf` abs.f32.
// RUN: fa4-opt %s --convert-fa4-to-nvvm | FileCheck %s
// RUN: fa4-opt %s --convert-fa4-to-nvvm | fa4-translate --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: llvm.func @softcap
func.func @softcap(%s: vector<2xf32>) -> vector<2xf32> {
  // CHECK: %[[X0:.*]] = llvm.extractelement
  // CHECK: llvm.intr.tanh(%[[X0]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
  // CHECK: llvm.intr.tanh(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
  // CHECK-NOT: llvm.inline_asm
  // PTX-COUNT-2: tanh.approx.f32
  %t = math.tanh %s fastmath<afn> : vector<2xf32>
  return %t : vector<2xf32>
}

// CHECK-LABEL: llvm.func @lse
func.func @lse(%l: f32) -> f32 {
  // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
  // PTX: lg2.approx.f32
  %r = math.log2 %l fastmath<afn> : f32
  return %r : f32
}

// CHECK-LABEL: llvm.func @norms
func.func @norms(%x: vector<2xf32>, %y: f32) -> (vector<2xf32>, f32, vector<2xf32>) {
  // CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
  // PTX-COUNT-2: rsqrt.approx.f32
  %r = math.rsqrt %x fastmath<afn> : vector<2xf32>
  // CHECK-NOT: llvm.nvvm.rsqrt
  // CHECK: llvm.intr.sqrt
  // CHECK: llvm.fdiv
  // PTX: sqrt.rn.f32
  %e = math.rsqrt %y : f32
  // CHECK: llvm.intr.sqrt
  // PTX: sqrt.rn.f32
  %s = math.sqrt %x : vector<2xf32>
  return %r, %e, %s : vector<2xf32>, f32, vector<2xf32>
}

// CHECK-LABEL: llvm.func @gelu
func.func @gelu(%x: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>) {
  // CHECK-NOT: math.erf
  // CHECK-NOT: llvm.call
  // CHECK: llvm.intr.fma
  // PTX-NOT: call
  // PTX: fma.rn.f32
  %e = math.erf %x : vector<4xf32>
  // CHECK: llvm.intr.fabs
  // PTX: abs.f32
  %a = math.absf %x : vector<4xf32>
  return %e, %a : vector<4xf32>, vector<4xf32>
}

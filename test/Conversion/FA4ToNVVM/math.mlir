// Math the NVPTX backend does not select as it stands: `math.log2` on f32
// becomes lg2.approx per element; `math.tanh` (a logit softcap) becomes
// LLVM's tanh intrinsic with `afn` per element, which the backend selects as
// tanh.approx.f32: a pure operation, not inline PTX.
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

// Asynchronous MMA to wgmma: fence, one m64n128k16 per k16 step with 128-byte
// swizzle descriptors (shared A and B), the register-A form as inline PTX
// with B transposed for an mn-major V tile, commit; the wait re-defines the
// accumulators. A descriptor's low word is built once per tile and each step
// adds its offset; a plan with `rebuild_descriptors` builds each step's from
// its address. Wrong inputs get diagnostics.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics --convert-fa4-to-nvvm | FileCheck %s

!Q = !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, memref<128x128xbf16, 3>>

// CHECK-LABEL: llvm.func @mma
func.func @mma(%p: !Q, %s: i32, %ph: i32, %acc: vector<64xf32>, %pa: vector<64xbf16>) -> vector<64xf32> {
  %q, %k, %v = fa4.consumer.wait %p[%s, %ph] : !Q -> memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, memref<128x128xbf16, 3>
  // The low words of A's and B's first bytes: start address >> 4 (14 bits),
  // LBO 16 B (1 << 16); the high word SBO 1024 B (64) | 128-byte swizzle
  // (1 << 30). Step 1 is 32 B into each: one add of 2.
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
  // CHECK: %[[A:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
  // CHECK: %[[B:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.insertelement %[[B]]
  // CHECK: llvm.mlir.constant(1073741888 : i32) : i32
  // CHECK: llvm.insertelement %[[A]]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
  // CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: llvm.add %[[B]], %[[TWO]] : i32
  // CHECK: llvm.add %[[A]], %{{.*}} : i32
  // CHECK-NOT: llvm.ptrtoint
  // CHECK-COUNT-3: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  %r = fa4.mma.async %q, %k, %acc : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
  // Register A, mn-major B (LBO = 128 rows x 128 B = 16384 B, 1024 << 16):
  // 8 k16 steps of 16 rows (2048 B, an add of 128) each.
  // CHECK: llvm.mlir.constant(67108864 : i32) : i32
  // CHECK: %[[V:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, {{.*}}, $63}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}"
  // CHECK: %[[STEP:.*]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK-NEXT: llvm.add %[[V]], %[[STEP]] : i32
  // CHECK-COUNT-7: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  %o = fa4.mma.async %pa, %v, %r b_mn_major : vector<64xbf16>, memref<128x128xbf16, 3>, vector<64xf32>
  // CHECK: nvvm.wgmma.wait.group.sync.aligned 1
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "// fa4.mma.wait", "=f,{{.*}}"
  %w = fa4.mma.wait %o pending(1) : vector<64xf32>
  return %w : vector<64xf32>
}

// -----

// Without an accumulator the first k16 step runs with scale-d = 0 on
// undefined inputs, the next ones accumulate; register A passes scale-d 0,
// then 1, as its predicate operand.
!Q = !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, memref<128x128xbf16, 3>>

// CHECK-LABEL: llvm.func @from_zero
func.func @from_zero(%p: !Q, %s: i32, %ph: i32, %pa: vector<64xbf16>) -> vector<64xf32> {
  %q, %k, %v = fa4.consumer.wait %p[%s, %ph] : !Q -> memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, memref<128x128xbf16, 3>
  // CHECK: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(f32
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[UNDEF]], {{.*}} D[<f32>, <zero>]
  // CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], {{.*}} D[<f32>, <one>]
  // CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  %r = fa4.mma.async %q, %k : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
  // The operands after the 64 outputs: a0..a3, the B descriptor, scale-d.
  // CHECK-COUNT-4: llvm.bitcast {{.*}} : vector<2xbf16> to i32
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: llvm.inline_asm {{.*}}wgmma.mma_async{{.*}}" %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO]],
  // CHECK-COUNT-4: llvm.bitcast {{.*}} : vector<2xbf16> to i32
  // CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.inline_asm {{.*}}wgmma.mma_async{{.*}}" %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE]],
  %o = fa4.mma.async %pa, %v b_mn_major : vector<64xbf16>, memref<128x128xbf16, 3>, vector<64xf32>
  %w, %w2 = fa4.mma.wait %r, %o pending(0) : vector<64xf32>, vector<64xf32>
  %sum = arith.addf %w, %w2 : vector<64xf32>
  return %sum : vector<64xf32>
}

// -----

// With `rebuild_descriptors` each step's descriptor comes from its own
// address in 64 bits: the constant fields SBO 1024 B (64 << 32), LBO 16 B
// (1 << 16) and the swizzle (1 << 62) or-ed into start >> 4 at every step.
!Q = !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>, memref<128x64xbf16, 3>>

// CHECK-LABEL: llvm.func @rebuilt
func.func @rebuilt(%p: !Q, %s: i32, %ph: i32, %acc: vector<64xf32>) -> vector<64xf32> attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 1, qk_stages = 1, swizzle = 128, q_tiles = 1, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 4, regs = 240>], rebuild_descriptors = true>} {
  %q, %k = fa4.consumer.wait %p[%s, %ph] : !Q -> memref<64x64xbf16, 3>, memref<128x64xbf16, 3>
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-2: llvm.mlir.constant(4611686293305360384 : i64) : i64
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-COUNT-2: llvm.mlir.constant(4611686293305360384 : i64) : i64
  // CHECK: nvvm.wgmma.mma_async
  %r = fa4.mma.async %q, %k, %acc : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
  %w = fa4.mma.wait %r pending(0) : vector<64xf32>
  return %w : vector<64xf32>
}

// -----

func.func @undistributed(%p: !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>, memref<128x64xbf16, 3>>, %s: i32, %ph: i32) {
  // expected-error @below {{holds laid-out register tiles; run fa4-distribute-register-tiles first (docs/Rationale.md, "Register tiles distributed")}}
  %acc = arith.constant dense<0.0> : tensor<64x128xf32, #fa4.acc>
  %q, %k = fa4.consumer.wait %p[%s, %ph] : !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>, memref<128x64xbf16, 3>> -> memref<64x64xbf16, 3>, memref<128x64xbf16, 3>
  %r = fa4.mma.async %q, %k, %acc : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32, #fa4.acc>
  return
}

// -----

// expected-error @below {{shared-memory tiles cannot cross function boundaries; inline @helper into its kernel}}
func.func @helper(%q: memref<64x64xbf16, 3>) {
  return
}

// -----

// A plan with `pin_descriptors`: each tile's low word passes through an
// opaque move where the MMA runs, and the steps add to that: in a loop over
// fixed tiles LLVM cannot hoist them into one register a step.
!Q = !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>, memref<128x64xbf16, 3>>

// CHECK-LABEL: llvm.func @pinned
func.func @pinned(%p: !Q, %s: i32, %ph: i32, %acc: vector<64xf32>) -> vector<64xf32> attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 1, qk_stages = 1, swizzle = 128, q_tiles = 1, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 4, regs = 240>], pin_descriptors = true>} {
  %q, %k = fa4.consumer.wait %p[%s, %ph] : !Q -> memref<64x64xbf16, 3>, memref<128x64xbf16, 3>
  // CHECK: %[[A:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r"
  // CHECK: %[[B:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r"
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: llvm.add %[[B]], %{{.*}} : i32
  // CHECK: llvm.add %[[A]], %{{.*}} : i32
  // CHECK: nvvm.wgmma.mma_async
  %r = fa4.mma.async %q, %k, %acc : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
  %w = fa4.mma.wait %r pending(0) : vector<64xf32>
  return %w : vector<64xf32>
}

// -----

// Both operands mn-major (the attention backward's dQ = dS · K: dS staged
// by key rows, read as its transpose, and a warpgroup's 64 columns of K):
// A's layout is `col` (transposed), its leading byte offset the distance
// between column blocks (128 rows of 128 B: 16384 B, 1024 in 16-byte
// units, 1024 << 16 in the low word), and each k16 step 16 rows (2048 B)
// further into both.
// CHECK-LABEL: llvm.func @transposed_a
func.func @transposed_a() -> vector<32xf32> {
  %a = fa4.shared_buffer {offset = 0 : i64} : memref<128x64xbf16, 3>
  %b = fa4.shared_buffer {offset = 16384 : i64} : memref<128x64xbf16, 3>
  // CHECK: llvm.mlir.constant(67108864 : i32)
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: nvvm.wgmma.mma_async %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK: llvm.add %{{.*}}, %{{.*}} : i32
  // CHECK-COUNT-7: nvvm.wgmma.mma_async %{{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  %r = fa4.mma.async %a, %b b_mn_major a_mn_major : memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, vector<32xf32>
  return %r : vector<32xf32>
}

// Every fa4 op, type and attribute prints and parses back, in the pretty and
// the generic form.
// RUN: fa4-opt %s | fa4-opt | FileCheck %s
// RUN: fa4-opt %s --mlir-print-op-generic | fa4-opt | FileCheck %s

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!V = !fa4.pipeline<v, kv = 3, qk = 1, memref<128x128xbf16, 3>>
!Q = !fa4.pipeline<q, kv = 1, qk = 1, memref<64x128xbf16, 3>, memref<64x128xbf16, 3>>
!KMap = !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>

// CHECK-LABEL: func.func @pipelines
// CHECK-SAME: fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>
func.func @pipelines(%kmap: !KMap, %vmap: !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>,
                     %row: index, %col: index)
    attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
                bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2,
                swizzle = 128, q_tiles = 2, target = sm_90a,
                roles = [#fa4.role<producer, warps = 4, regs = 24>,
                         #fa4.role<consumer, warps = 8, regs = 240>]>} {
  // CHECK: fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
  %k = fa4.pipeline.create consumers(256) : !K
  // CHECK: fa4.pipeline.create consumers(2) : !fa4.pipeline<v, kv = 3, qk = 1, memref<128x128xbf16, 3>>
  %v = fa4.pipeline.create consumers(2) : !V
  // CHECK: fa4.pipeline.create consumers(1) : !fa4.pipeline<q, kv = 1, qk = 1, memref<64x128xbf16, 3>, memref<64x128xbf16, 3>>
  %q = fa4.pipeline.create consumers(1) : !Q
  // CHECK: %[[P:.*]] = fa4.pipeline.start %{{.*}} producer : !fa4.pipeline<k
  %p0 = fa4.pipeline.start %k producer : !K
  // CHECK: %[[C:.*]] = fa4.pipeline.start %{{.*}} consumer : !fa4.pipeline<k
  %c0 = fa4.pipeline.start %k consumer : !K
  // CHECK: fa4.producer.acquire %{{.*}}[%[[P]]] : !fa4.pipeline<k
  fa4.producer.acquire %k[%p0] : !K
  // CHECK: fa4.producer.acquire %{{.*}}[%[[P]]] qk 1 : !fa4.pipeline<k
  fa4.producer.acquire %k[%p0] qk 1 : !K
  // CHECK: fa4.producer.load %{{.*}}[%[[P]]] qk 1, %{{.*}}[%{{.*}}, %{{.*}}] : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>, !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
  fa4.producer.load %k[%p0] qk 1, %kmap[%row, %col] : !K, !KMap
  // CHECK: fa4.producer.load %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] : !fa4.pipeline<v
  %pv = fa4.pipeline.start %v producer : !V
  fa4.producer.load %v[%pv], %vmap[%row, %col] : !V, !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
  // CHECK: fa4.producer.load %{{.*}}[%{{.*}}] tile 1, %{{.*}}[%{{.*}}, %{{.*}}] : !fa4.pipeline<q
  %pq = fa4.pipeline.start %q producer : !Q
  %qmap = builtin.unrealized_conversion_cast %kmap : !KMap to !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  fa4.producer.load %q[%pq] tile 1, %qmap[%row, %col] : !Q, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  // CHECK: fa4.pipeline.step %{{.*}}[%[[P]]] : !fa4.pipeline<k
  %p1 = fa4.pipeline.step %k[%p0] : !K
  // CHECK: fa4.consumer.wait %{{.*}}[%[[C]]] qk 1 : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>> -> memref<128x64xbf16, 3>
  %kt = fa4.consumer.wait %k[%c0] qk 1 : !K -> memref<128x64xbf16, 3>
  // CHECK: fa4.consumer.wait %{{.*}}[%{{.*}}] : !fa4.pipeline<q, {{.*}}> -> memref<64x128xbf16, 3>, memref<64x128xbf16, 3>
  %cq = fa4.pipeline.start %q consumer : !Q
  %q0, %q1 = fa4.consumer.wait %q[%cq] : !Q -> memref<64x128xbf16, 3>, memref<64x128xbf16, 3>
  // CHECK: fa4.consumer.release %{{.*}}[%[[C]]] qk 1 : !fa4.pipeline<k
  fa4.consumer.release %k[%c0] qk 1 : !K
  // CHECK: fa4.consumer.release %{{.*}}[%[[C]]] : !fa4.pipeline<k
  fa4.consumer.release %k[%c0] qk 0 : !K
  return
}

// CHECK-LABEL: func.func @operand_pipeline
func.func @operand_pipeline() {
  // CHECK: fa4.pipeline.create consumers(128) : !fa4.pipeline<operand, kv = 4, qk = 1, memref<128x64xf16, 3>, memref<256x64xf16, 3>>
  %ab = fa4.pipeline.create consumers(128) : !fa4.pipeline<operand, kv = 4, qk = 1, memref<128x64xf16, 3>, memref<256x64xf16, 3>>
  return
}

// CHECK-LABEL: func.func @roles
func.func @roles() {
  // CHECK: fa4.warp_specialize {
  // CHECK-NEXT: fa4.role producer warps(4) regs(24) {
  // CHECK: fa4.role consumer warps(8) regs(240) {
  // CHECK-NEXT: fa4.warpgroup_id
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
    }
    fa4.role consumer warps(8) regs(240) {
      %wg = fa4.warpgroup_id
    }
  }
  // 640 threads start with 96 registers each; the roles share 61440.
  // CHECK: fa4.role mma warps(4) regs(24)
  // CHECK: fa4.role softmax warps(8) regs(176)
  // CHECK: fa4.role correction warps(4) regs(80)
  // CHECK: fa4.role epilogue warps(4) regs(24)
  fa4.warp_specialize {
    fa4.role mma warps(4) regs(24) {
    }
    fa4.role softmax warps(8) regs(176) {
    }
    fa4.role correction warps(4) regs(80) {
    }
    fa4.role epilogue warps(4) regs(24) {
    }
  }
  return
}

// CHECK-LABEL: func.func @mma
func.func @mma(%q: memref<64x64xbf16, 3>, %k: memref<128x64xbf16, 3>,
               %v: memref<128x128xbf16, 3>, %p: tensor<64x128xbf16>,
               %s0: tensor<64x128xf32>, %o0: tensor<64x128xf32>) {
  // CHECK: %[[S:.*]] = fa4.mma.async %{{.*}}, %{{.*}}, %{{.*}} : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  %s = fa4.mma.async %q, %k, %s0 : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  // CHECK: %[[O:.*]] = fa4.mma.async %{{.*}}, %{{.*}}, %{{.*}} b_mn_major : tensor<64x128xbf16>, memref<128x128xbf16, 3>, tensor<64x128xf32>
  %o = fa4.mma.async %p, %v, %o0 b_mn_major : tensor<64x128xbf16>, memref<128x128xbf16, 3>, tensor<64x128xf32>
  // Without an accumulator the product starts from zero.
  // CHECK: fa4.mma.async %{{.*}}, %{{.*}} : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  %z = fa4.mma.async %q, %k : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  // CHECK: fa4.mma.wait %[[S]], %[[O]] pending(1) : tensor<64x128xf32>, tensor<64x128xf32>
  %s1, %o1 = fa4.mma.wait %s, %o pending(1) : tensor<64x128xf32>, tensor<64x128xf32>
  // CHECK: fa4.mma.wait pending(0)
  fa4.mma.wait pending(0)
  return
}

// CHECK-LABEL: func.func @named_barriers
func.func @named_barriers() {
  // CHECK: fa4.named_barrier.sync id(1) threads(256)
  fa4.named_barrier.sync id(1) threads(256)
  // CHECK: fa4.named_barrier.arrive id(15) threads(128)
  fa4.named_barrier.arrive id(15) threads(128)
  return
}

// CHECK-LABEL: func.func @configs
// CHECK-SAME: fa4.config = #fa4.config<element_type = f16, head_dim = 64, head_dim_v = 64, bm = 128, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_100a, roles = [#fa4.role<producer, warps = 4, regs = 48>, #fa4.role<softmax, warps = 8, regs = 192>, #fa4.role<correction, warps = 4, regs = 80>]>
func.func @configs() attributes {fa4.config = #fa4.config<element_type = f16, head_dim = 64,
    head_dim_v = 64, bm = 128, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1,
    swizzle = 128, q_tiles = 2, target = sm_100a,
    roles = [#fa4.role<producer, warps = 4, regs = 48>, #fa4.role<softmax, warps = 8, regs = 192>,
             #fa4.role<correction, warps = 4, regs = 80>]>} {
  return
}

// CHECK-LABEL: func.func @explicit_state
func.func @explicit_state(%k: !K, %stage: i32, %phase: i32) attributes {fa4.kernel, fa4.shared_memory_bytes = 4096 : i64} {
  // CHECK: fa4.producer.acquire %{{.*}}[%{{.*}}, %{{.*}}] qk 1 : !fa4.pipeline<k
  fa4.producer.acquire %k[%stage, %phase] qk 1 : !K
  // CHECK: fa4.consumer.wait %{{.*}}[%{{.*}}, %{{.*}}] : !fa4.pipeline<k{{.*}}> -> memref<128x64xbf16, 3>
  %t = fa4.consumer.wait %k[%stage, %phase] : !K -> memref<128x64xbf16, 3>
  // CHECK: fa4.consumer.release %{{.*}}[%{{.*}}, %{{.*}}] : !fa4.pipeline<k
  fa4.consumer.release %k[%stage, %phase] : !K
  // CHECK: fa4.pipeline.create consumers(1) {offset = 1024 : i64}
  %p = fa4.pipeline.create consumers(1) {offset = 1024 : i64} : !K
  return
}

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<64x128xf32, #fa4.acc>, %{{.*}}: tensor<64xf32, #fa4.rows>
func.func @layouts(%s: tensor<64x128xf32, #fa4.acc>, %m: tensor<64xf32, #fa4.rows>,
                   %q: memref<64x128xbf16, 3>, %v: memref<128x128xbf16, 3>,
                   %out: !llvm.ptr<1>, %i: index, %d: vector<64xf32>, %pa: vector<64xbf16>) {
  // CHECK: fa4.subtile %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x128xbf16, 3> -> memref<64x64xbf16, 3>
  %q1 = fa4.subtile %q[%i, %i] : memref<64x128xbf16, 3> -> memref<64x64xbf16, 3>
  %p = arith.truncf %s : tensor<64x128xf32, #fa4.acc> to tensor<64x128xbf16, #fa4.acc>
  // CHECK: fa4.global_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows(%{{.*}}) stride(%{{.*}}) layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
  fa4.global_store %p, %out[%i, %i] rows(%i) stride(%i) layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
  // CHECK: fa4.mma.async %{{.*}}, %{{.*}}, %{{.*}} b_mn_major : vector<64xbf16>, memref<128x128xbf16, 3>, vector<64xf32>
  %o = fa4.mma.async %pa, %v, %d b_mn_major : vector<64xbf16>, memref<128x128xbf16, 3>, vector<64xf32>
  // CHECK: fa4.mma.wait %{{.*}} pending(0) : vector<64xf32>
  %o1 = fa4.mma.wait %o pending(0) : vector<64xf32>
  // CHECK: fa4.global_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows(%{{.*}}) stride(%{{.*}}) layout(#fa4.acc) : vector<64xf32>, !llvm.ptr<1>
  fa4.global_store %o1, %out[%i, %i] rows(%i) stride(%i) layout(#fa4.acc) : vector<64xf32>, !llvm.ptr<1>
  return
}

// A consumer warpgroup's rows of a CTA tile, in a kernel whose roles are not
// formed yet.
// CHECK-LABEL: func.func @warpgroup_rows
func.func @warpgroup_rows(%q: tensor<128x128xbf16>) -> tensor<64x128xbf16>
    attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128,
      head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3,
      qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a,
      roles = [#fa4.role<producer, warps = 4, regs = 24>,
               #fa4.role<consumer, warps = 8, regs = 240>]>} {
  // CHECK: fa4.warpgroup_id
  %wg = fa4.warpgroup_id
  // CHECK: fa4.warpgroup_rows %{{.*}} : tensor<128x128xbf16> -> tensor<64x128xbf16>
  %r = fa4.warpgroup_rows %q : tensor<128x128xbf16> -> tensor<64x128xbf16>
  return %r : tensor<64x128xbf16>
}

// A register tile staged in shared memory for an MMA that reads it
// transposed (dSᵀ of the attention backward's dQ = dS · K), each
// warpgroup's share of B's columns, and the f32 product added to global
// memory by TMA.
// CHECK-LABEL: func.func @staged_operand
func.func @staged_operand(%ds: tensor<64x64xbf16, #fa4.acc>, %row: index,
                          %k: tensor<128x128xbf16>, %acc: tensor<64x64xf32, #fa4.acc>,
                          %map: !fa4.tensor_map<f32, box = [64, 32], swizzle = 128>,
                          %id: index) -> tensor<128x64xbf16>
    attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128,
      head_dim_v = 128, bm = 64, bn = 64, bk0 = 64, bk1 = 64, kv_stages = 2,
      qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a,
      roles = [#fa4.role<producer, warps = 4, regs = 24>,
               #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %buffer = fa4.shared_buffer : memref<128x64xbf16, 3>
  // CHECK: fa4.shared_store %{{.*}}, %{{.*}}[%{{.*}}] : tensor<64x64xbf16, #fa4.acc>, memref<128x64xbf16, 3>
  fa4.shared_store %ds, %buffer[%row] : tensor<64x64xbf16, #fa4.acc>, memref<128x64xbf16, 3>
  // CHECK: fa4.shared_tile %{{.*}} : memref<128x64xbf16, 3> -> tensor<128x64xbf16>
  %t = fa4.shared_tile %buffer : memref<128x64xbf16, 3> -> tensor<128x64xbf16>
  // CHECK: fa4.warpgroup_cols %{{.*}} : tensor<128x128xbf16> -> tensor<128x64xbf16>
  %kc = fa4.warpgroup_cols %k : tensor<128x128xbf16> -> tensor<128x64xbf16>
  %kb = fa4.shared_buffer : memref<128x64xbf16, 3>
  // CHECK: fa4.mma.async %{{.*}}, %{{.*}} b_mn_major a_mn_major : memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x64xf32, #fa4.acc>
  %dq = fa4.mma.async %buffer, %kb b_mn_major a_mn_major : memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x64xf32, #fa4.acc>
  %stage = fa4.shared_buffer : memref<128x64xf32, 3>
  // CHECK: fa4.tma_store %{{.*}} barrier(%{{.*}}) add : tensor<64x64xf32, #fa4.acc>, memref<128x64xf32, 3>, !fa4.tensor_map<f32, box = [64, 32], swizzle = 128>
  fa4.tma_store %dq, %stage[%row], %map[%row, %row] barrier(%id) add : tensor<64x64xf32, #fa4.acc>, memref<128x64xf32, 3>, !fa4.tensor_map<f32, box = [64, 32], swizzle = 128>
  return %t : tensor<128x64xbf16>
}

// The schedule pipeline of a dynamically scheduled persistent kernel: the
// producer claims a tile and puts its coordinates into a stage's i32 slots;
// a consumer's wait on the stage gives the values.
!S = !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
// CHECK-LABEL: func.func @schedule
func.func @schedule(%counter: !llvm.ptr<1>, %ctas: i32, %tiles: i32, %x: i32,
                    %yz: i32) -> (i32, i32, i32) {
  // CHECK: %[[S:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
  %s = fa4.pipeline.create consumers(256) : !S
  %p = fa4.pipeline.start %s producer : !S
  %c = fa4.pipeline.start %s consumer : !S
  // CHECK: %[[NEXT:.*]] = fa4.claim_tile %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
  %next = fa4.claim_tile %counter, %ctas, %tiles : !llvm.ptr<1>
  // CHECK: fa4.producer.acquire %[[S]][%{{.*}}] : !fa4.pipeline<schedule
  fa4.producer.acquire %s[%p] : !S
  // CHECK: fa4.producer.put %[[S]][%{{.*}}], %{{.*}}, %{{.*}} : !fa4.pipeline<schedule
  fa4.producer.put %s[%p], %x, %yz : !S
  // CHECK: %{{.*}}:2 = fa4.consumer.wait %[[S]][%{{.*}}] : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32> -> i32, i32
  %v:2 = fa4.consumer.wait %s[%c] : !S -> i32, i32
  // CHECK: fa4.consumer.release %[[S]][%{{.*}}] : !fa4.pipeline<schedule
  fa4.consumer.release %s[%c] : !S
  return %next, %v#0, %v#1 : i32, i32, i32
}

// Pipelines to mbarriers and TMA: init by thread 0 with the arrival counts,
// try_wait.parity on the empty (producer) and full (consumer) barriers,
// elected expect-tx with the tile's bytes and one TMA copy per box, arrive
// on release, and shared-memory views.
// RUN: fa4-opt %s --convert-fa4-to-nvvm | FileCheck %s

!K = !fa4.pipeline<k, kv = 2, qk = 2, memref<128x64xbf16, 3>>
!V = !fa4.pipeline<v, kv = 2, qk = 1, memref<128x128xbf16, 3>>

// CHECK: llvm.mlir.global external @fa4_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

// CHECK-LABEL: llvm.func @create
func.func @create() {
  // Region at 2048; barriers after 2 x 2 sub-stages of 16 KiB.
  // CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @fa4_dynamic_smem : !llvm.ptr<3>
  // CHECK: %[[BASE:.*]] = llvm.getelementptr %[[SMEM]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[LEADER:.*]] = llvm.icmp "eq"
  // CHECK: %[[BARRIERS:.*]] = llvm.getelementptr %[[BASE]][65536]
  // CHECK: nvvm.mbarrier.init %[[BARRIERS]], %[[ONE:.*]], predicate = %[[LEADER]]
  // CHECK: %[[EMPTY0:.*]] = llvm.getelementptr %[[BARRIERS]][32]
  // CHECK: nvvm.mbarrier.init %[[EMPTY0]], %[[CONSUMERS:.*]], predicate = %[[LEADER]]
  // CHECK-COUNT-6: nvvm.mbarrier.init
  // CHECK: nvvm.fence.mbarrier.init
  // CHECK: nvvm.barrier
  %k = fa4.pipeline.create consumers(256) {offset = 2048 : i64} : !K
  return
}

// CHECK-LABEL: llvm.func @producer
func.func @producer(%k: !K, %stage: i32, %phase: i32, %map: !fa4.tensor_map<bf16, box = [1, 128, 64], swizzle = 128>, %bh: index, %row: index) {
  %c64 = arith.constant 64 : index
  // Empty barrier of (stage, qk 1): 8 * (2 * stage + 1 + 4) bytes in.
  // CHECK: llvm.mul %{{.*}}, %{{.*}} : i32
  // CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
  fa4.producer.acquire %k[%stage, %phase] qk 1 : !K
  // CHECK: %[[ELECTED:.*]] = nvvm.elect.sync -> i1
  // CHECK: llvm.cond_br %[[ELECTED]], ^[[ISSUE:.*]], ^[[AFTER:.*]]
  // CHECK: ^[[ISSUE]]:
  // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  // CHECK: %[[DST:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  // CHECK: llvm.br ^[[AFTER]]
  fa4.producer.load %k[%stage, %phase] qk 1, %map[%bh, %row, %c64] : !K, !fa4.tensor_map<bf16, box = [1, 128, 64], swizzle = 128>
  return
}

// CHECK-LABEL: llvm.func @v_load
func.func @v_load(%v: !V, %stage: i32, %phase: i32, %map: !fa4.tensor_map<bf16, box = [1, 128, 64], swizzle = 128>, %bh: index, %row: index) {
  %c0 = arith.constant 0 : index
  // A 128 x 128 tile is two 128 x 64 boxes, the second 16 KiB further and 64
  // columns to the right.
  // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES:.*]] : !llvm.ptr<3>, i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK: llvm.add %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.getelementptr %{{.*}}[16384]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
  fa4.producer.load %v[%stage, %phase], %map[%bh, %row, %c0] : !V, !fa4.tensor_map<bf16, box = [1, 128, 64], swizzle = 128>
  return
}

// CHECK-LABEL: llvm.func @gather_load
func.func @gather_load(%v: !V, %stage: i32, %phase: i32, %map: !fa4.tensor_map<bf16, box = [1, 64, 64], swizzle = 128>, %p0: index, %r0: index, %p1: index, %r1: index) {
  %c0 = arith.constant 0 : index
  // A gather: the 128 x 128 tile's two rows of 64 x 64 boxes, each row from
  // its own coordinates (innermost first: column, row, page); the tile's
  // bytes announced once. Column block j of box row i lands at
  // (j * 128 + i * 64) rows of 128 B: 0, 16384, 8192, 24576.
  // CHECK: llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<3>, i32)
  // CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.constant(32768 : i32) : i32
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]] : !llvm.ptr<3>, i32
  // CHECK: %[[C0:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: %[[R0:.*]] = llvm.trunc %arg5 : i64 to i32
  // CHECK: %[[P0:.*]] = llvm.trunc %arg4 : i64 to i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%[[C0]], %[[R0]], %[[P0]]]
  // CHECK: llvm.getelementptr %{{.*}}[16384]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %[[R0]], %[[P0]]]
  // CHECK: %[[R1:.*]] = llvm.trunc %arg7 : i64 to i32
  // CHECK: %[[P1:.*]] = llvm.trunc %arg6 : i64 to i32
  // CHECK: llvm.getelementptr %{{.*}}[8192]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %[[R1]], %[[P1]]]
  // CHECK: llvm.getelementptr %{{.*}}[24576]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %[[R1]], %[[P1]]]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  fa4.producer.load %v[%stage, %phase], %map[%p0, %r0, %c0, %p1, %r1, %c0] : !V, !fa4.tensor_map<bf16, box = [1, 64, 64], swizzle = 128>
  return
}

// CHECK-LABEL: llvm.func @consumer
func.func @consumer(%k: !K, %q: !fa4.pipeline<q, kv = 1, qk = 1, memref<64x128xbf16, 3>>,
                    %stage: i32, %phase: i32, %r: index, %c: index) {
  // CHECK: nvvm.mbarrier.try_wait.parity
  %t = fa4.consumer.wait %k[%stage, %phase] qk 1 : !K -> memref<128x64xbf16, 3>
  // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
  fa4.consumer.release %k[%stage, %phase] qk 1 : !K
  // A view: column block c / 64 of 64 rows x 128 B, plus r rows of 128 B.
  // CHECK: nvvm.mbarrier.try_wait.parity
  // CHECK: llvm.udiv %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.getelementptr
  %qt = fa4.consumer.wait %q[%stage, %phase] : !fa4.pipeline<q, kv = 1, qk = 1, memref<64x128xbf16, 3>> -> memref<64x128xbf16, 3>
  %s = fa4.subtile %qt[%r, %c] : memref<64x128xbf16, 3> -> memref<64x64xbf16, 3>
  return
}

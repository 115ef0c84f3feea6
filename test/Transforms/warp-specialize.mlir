// fa4-warp-specialize: pipelines are created before the roles; the producer
// role keeps its acquires and TMA loads with what they need (the loop over
// key blocks carrying only its states), the consumer role the waits, MMAs,
// softmax, releases and stores (its loop carries the softmax state and the
// consumer states); neither keeps the other's side.
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk --fa4-warp-specialize | FileCheck %s
// RUN: fa4-opt %S/Inputs/gemm-tile.mlir --fa4-attach-config="head-dim=64 kv-stages=4" --fa4-tile-to-fa4 | FileCheck %s --check-prefix=GEMM
// RUN: fa4-opt %s --fa4-attach-config=head-dim=128 --fa4-tile-to-fa4 | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @attention
// CHECK-COUNT-3: fa4.pipeline.create
// CHECK-NEXT: fa4.warp_specialize {
// CHECK-NEXT: fa4.role producer warps(4) regs(24) {
// CHECK-NOT: fa4.consumer
// CHECK-NOT: fa4.mma
// CHECK-NOT: tile.exp2
// CHECK: fa4.producer.load
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (!fa4.pipeline_state, !fa4.pipeline_state) {
// CHECK-COUNT-2: fa4.producer.acquire
// CHECK-COUNT-2: fa4.producer.load
// CHECK: fa4.producer.acquire
// CHECK: fa4.producer.load
// CHECK-COUNT-2: fa4.pipeline.step
// CHECK: fa4.role consumer warps(8) regs(240) {
// CHECK-NOT: fa4.producer
// CHECK: fa4.warpgroup_id
// CHECK: fa4.consumer.wait
// CHECK: scf.for {{.*}} -> (tensor<64xf32, #fa4.rows>, tensor<64xf32, #fa4.rows>, tensor<64x128xf32, #fa4.acc>, !fa4.pipeline_state, !fa4.pipeline_state) {
// CHECK: fa4.mma.async
// CHECK: tile.exp2
// CHECK: fa4.consumer.release
// CHECK: fa4.global_store {{.*}} layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>
// CHECK: fa4.global_store {{.*}} layout(#fa4.rows) : tensor<64xf32, #fa4.rows>
// CHECK-NOT: fa4.producer

// GEMM-LABEL: func.func @gemm
// GEMM: fa4.role producer warps(4) regs(24) {
// GEMM: scf.for {{.*}} -> (!fa4.pipeline_state) {
// GEMM: fa4.role consumer warps(8) regs(240) {
// GEMM: scf.for {{.*}} -> (tensor<64x128xf32, #fa4.acc>, !fa4.pipeline_state) {
// GEMM: fa4.global_store

// A kernel that loads no tile by TMA (it computes and stores) runs on the
// plan's consumer warps alone, with the registers they start with (256
// threads: 248), so that it gets a thread count and its warpgroups an index.
// PLAIN-LABEL: func.func @plain
// PLAIN: fa4.shared_buffer
// PLAIN-NEXT: fa4.warp_specialize {
// PLAIN-NEXT: fa4.role consumer warps(8) regs(248) {
// PLAIN-NOT: fa4.role
// PLAIN: fa4.warpgroup_id
// PLAIN: fa4.tma_store
func.func @plain(%y: !tile.desc<128x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %i = tile.program_id 0
  %cols = tile.iota axis 1 : tensor<128x128xi32>
  %f = arith.sitofp %cols : tensor<128x128xi32> to tensor<128x128xf32>
  %t = arith.truncf %f : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %t, %y[%i, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

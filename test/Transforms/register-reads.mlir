// Loaded tiles that ops other than dots use: fa4-assign-layouts reads the
// warpgroup's rows into registers (fa4.shared_load, #fa4.acc) right after
// the load, and fa4-pipeline-tma makes the read take the stage's buffer:
// loaded once, waited for where it was loaded and never released in a
// one-tile plan; loaded in a loop, waited for just before the read and
// released right after it (the values are in registers). No dot anywhere:
// the pipelines are operand pipelines (no attention shape to match).
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma | FileCheck %s

// D = rowsum(dO ∘ O), the attention backward's preprocess.
// CHECK-LABEL: func.func @rowsum_once
// CHECK-DAG: %[[PO:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<operand, kv = 1, qk = 1, memref<128x128xbf16, 3>>
// CHECK-DAG: %[[PD:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<operand, kv = 1, qk = 1, memref<128x128xbf16, 3>>
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: %[[FIRST:.*]] = arith.muli %[[WG]], %c64
// CHECK: %[[BO:.*]] = fa4.consumer.wait
// CHECK-NEXT: %[[RO:.*]] = fa4.shared_load %[[BO]][%[[FIRST]]] : memref<128x128xbf16, 3> -> tensor<64x128xbf16, #fa4.acc>
// CHECK: %[[BD:.*]] = fa4.consumer.wait
// CHECK-NEXT: %[[RD:.*]] = fa4.shared_load %[[BD]][%[[FIRST]]] : memref<128x128xbf16, 3> -> tensor<64x128xbf16, #fa4.acc>
// CHECK-NOT: fa4.consumer.release
// CHECK: tile.reduce sum %{{.*}} axis 1 : tensor<64x128xf32, #fa4.acc> -> tensor<64xf32, #fa4.rows>
// CHECK: fa4.global_store
func.func @rowsum_once(%o: !tile.desc<1x128x128xbf16>, %do: !tile.desc<1x128x128xbf16>,
                       %d: !tile.ptr<f32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tile.program_id 0
  %ot = tile.load %o[%c0, %m, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %of = arith.extf %ot : tensor<128x128xbf16> to tensor<128x128xf32>
  %dt = tile.load %do[%c0, %m, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %df = arith.extf %dt : tensor<128x128xbf16> to tensor<128x128xf32>
  %p = arith.mulf %of, %df : tensor<128x128xf32>
  %s = tile.reduce sum %p axis 1 : tensor<128x128xf32> -> tensor<128xf32>
  %dd = tile.make_desc %d, [%rows], [%c1] : !tile.ptr<f32> -> !tile.desc<128xf32>
  tile.store %s, %dd[%m] : tensor<128xf32>, !tile.desc<128xf32>
  return
}

// -----

// The sum of squares of each row over its column blocks (RMSNorm's).
// CHECK-LABEL: func.func @squares_loop
// CHECK: %[[P:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<operand, kv = 2, qk = 1, memref<128x64xbf16, 3>>
// CHECK: scf.for
// CHECK: fa4.producer.acquire %[[P]]
// CHECK: fa4.producer.load %[[P]]
// CHECK: %[[B:.*]] = fa4.consumer.wait %[[P]][%[[S:[a-z0-9]+]]]
// CHECK-NEXT: fa4.shared_load %[[B]][%{{.*}}] : memref<128x64xbf16, 3> -> tensor<64x64xbf16, #fa4.acc>
// CHECK-NEXT: fa4.consumer.release %[[P]][%[[S]]]
// CHECK: fa4.pipeline.step %[[P]]
func.func @squares_loop(%x: !tile.desc<128x64xbf16>, %d: !tile.ptr<f32>, %rows: index, %blocks: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %j = %c0 to %blocks step %c1 iter_args(%acc = %zero) -> tensor<128xf32> {
    %xt = tile.load %x[%m, %j] : !tile.desc<128x64xbf16> -> tensor<128x64xbf16>
    %xf = arith.extf %xt : tensor<128x64xbf16> to tensor<128x64xf32>
    %sq = arith.mulf %xf, %xf : tensor<128x64xf32>
    %s = tile.reduce sum %sq axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %s : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %dd = tile.make_desc %d, [%rows], [%c1] : !tile.ptr<f32> -> !tile.desc<128xf32>
  tile.store %sum, %dd[%m] : tensor<128xf32>, !tile.desc<128xf32>
  return
}

// fa4-split-qk: the whole-K pipeline becomes the plan's qk stages of 64
// head-dim columns; the producer acquires and loads each stage at its
// column, the consumer waits for each stage just before the MMA chunk that
// reads it, and releases the stages one by one; --qk-stages=1 keeps K whole
// at head dim 128. (test/DSL/plans.test shows head dims 64, 128 and 256.)
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk | FileCheck %s --check-prefix=D128
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128 qk-stages=1" --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk | FileCheck %s --check-prefix=QK1

// D128: %[[K:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 2, memref<128x64xbf16, 3>>
// D128: scf.for
// D128: fa4.producer.acquire %[[K]][%[[KP:[a-z0-9]+]]] :
// D128-NEXT: fa4.producer.acquire %[[K]][%[[KP]]] qk 1
// D128: fa4.producer.load %[[K]][%[[KP]]], %{{.*}}[%{{.*}}, %{{.*}}, %[[COL0:.*]]] :
// D128: %[[COL1:.*]] = arith.addi %{{.*}}, %c64
// D128-NEXT: fa4.producer.load %[[K]][%[[KP]]] qk 1, %{{.*}}[%{{.*}}, %{{.*}}, %[[COL1]]]
// D128: %[[K0:.*]] = fa4.consumer.wait %[[K]][%[[KC:[a-z0-9]+]]] :
// D128-NEXT: %[[S0:.*]] = fa4.mma.async %{{.*}}, %[[K0]] : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>
// D128: %[[K1:.*]] = fa4.consumer.wait %[[K]][%[[KC]]] qk 1
// D128-NEXT: %[[S1:.*]] = fa4.mma.async %{{.*}}, %[[K1]], %[[S0]]
// D128-NEXT: fa4.mma.wait %[[S1]] pending(0)
// D128-NEXT: fa4.consumer.release %[[K]][%[[KC]]] :
// D128-NEXT: fa4.consumer.release %[[K]][%[[KC]]] qk 1

// QK1: %[[K:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// QK1-NOT: qk 1

// fa4-explicit-pipeline-state carries (stage, phase) through loops: the
// producer starts at phase 1, the consumer at phase 0, and a step wraps the
// stage after the last kv stage and flips the phase when it wraps.
// RUN: fa4-opt %s --fa4-explicit-pipeline-state | FileCheck %s

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>

// CHECK-LABEL: func.func @producer
func.func @producer(%k: !K, %map: !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK-DAG: %[[S0:.*]] = arith.constant 0 : i32
  // CHECK-DAG: %[[P0:.*]] = arith.constant 1 : i32
  %s0 = fa4.pipeline.start %k producer : !K
  // CHECK: %{{.*}}:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[S0]], %[[P:.*]] = %[[P0]]) -> (i32, i32)
  %last = scf.for %j = %c0 to %n step %c1 iter_args(%s = %s0) -> !fa4.pipeline_state {
    // CHECK: fa4.producer.acquire %{{.*}}[%[[S]], %[[P]]] : !fa4.pipeline<k
    fa4.producer.acquire %k[%s] : !K
    // CHECK: fa4.producer.load %{{.*}}[%[[S]], %[[P]]], %{{.*}}[%{{.*}}, %{{.*}}]
    fa4.producer.load %k[%s], %map[%j, %c0] : !K, !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
    // CHECK: fa4.producer.acquire %{{.*}}[%[[S]], %[[P]]] qk 1
    fa4.producer.acquire %k[%s] qk 1 : !K
    // CHECK: %[[NEXT:.*]] = arith.addi %[[S]], %{{.*}} : i32
    // CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %{{.*}} : i32
    // CHECK: %[[STAGE:.*]] = arith.select %[[WRAP]], %{{.*}}, %[[NEXT]] : i32
    // CHECK: %[[FLIP:.*]] = arith.xori %[[P]], %{{.*}} : i32
    // CHECK: %[[PHASE:.*]] = arith.select %[[WRAP]], %[[FLIP]], %[[P]] : i32
    // CHECK: scf.yield %[[STAGE]], %[[PHASE]] : i32, i32
    %next = fa4.pipeline.step %k[%s] : !K
    scf.yield %next : !fa4.pipeline_state
  }
  return
}

// CHECK-LABEL: func.func @consumer
func.func @consumer(%k: !K) {
  // CHECK: %[[S:.*]] = arith.constant 0 : i32
  // CHECK: %[[P:.*]] = arith.constant 0 : i32
  // CHECK: fa4.consumer.wait %{{.*}}[%[[S]], %[[P]]] qk 1
  // CHECK: fa4.consumer.release %{{.*}}[%[[S]], %[[P]]] qk 1
  %s = fa4.pipeline.start %k consumer : !K
  %t = fa4.consumer.wait %k[%s] qk 1 : !K -> memref<128x64xbf16, 3>
  fa4.consumer.release %k[%s] qk 1 : !K
  return
}

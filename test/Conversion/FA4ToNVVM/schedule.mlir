// The dynamic schedule to NVVM: a schedule pipeline's full barriers expect
// the one arrival of a put; the put's elected thread stores both slots and
// then arrives (its release orders the stores); a consumer's wait reads the
// slots after the barrier, each reduced over the warp; the claim is lane 0's
// atomic add on the counter, with the counter set back to 0 by the claim
// that took its last value, and the old value broadcast to the warp plus
// the CTAs.
// RUN: fa4-opt %s --convert-fa4-to-nvvm | FileCheck %s

!S = !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>

// CHECK-LABEL: llvm.func @create
func.func @create() {
  // Slots of 2 x 8 B, then the barriers: full ones of one arrival, empty
  // ones of the 256 consumer threads.
  // CHECK: %[[BASE:.*]] = llvm.getelementptr %{{.*}}[65568] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[READERS:.*]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK: %[[BARRIERS:.*]] = llvm.getelementptr %[[BASE]][16]
  // CHECK: nvvm.mbarrier.init %[[BARRIERS]], %[[ONE]]
  // CHECK: nvvm.mbarrier.init %{{.*}}, %[[READERS]]
  // CHECK: nvvm.mbarrier.init %{{.*}}, %[[ONE]]
  // CHECK: nvvm.mbarrier.init %{{.*}}, %[[READERS]]
  %s = fa4.pipeline.create consumers(256) {offset = 65568 : i64} : !S
  return
}

// CHECK-LABEL: llvm.func @put
func.func @put(%s: !S, %stage: i32, %phase: i32, %x: i32, %yz: i32) {
  // CHECK: %[[ELECTED:.*]] = nvvm.elect.sync -> i1
  // CHECK: llvm.cond_br %[[ELECTED]], ^[[ISSUE:.*]], ^[[AFTER:.*]]
  // CHECK: ^[[ISSUE]]:
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
  // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
  // CHECK-NEXT: llvm.br ^[[AFTER]]
  fa4.producer.put %s[%stage, %phase], %x, %yz : !S
  return
}

// CHECK-LABEL: llvm.func @wait
func.func @wait(%s: !S, %stage: i32, %phase: i32) -> (i32, i32) {
  // Each slot, the same in every thread, is reduced over the warp
  // (redux.sync leaves it in a uniform register).
  // CHECK: nvvm.mbarrier.try_wait.parity
  // CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK: %[[XALL:.*]] = nvvm.redux.sync  umin %[[X]], %{{.*}} : i32 -> i32
  // CHECK: %[[YZ:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK: %[[YZALL:.*]] = nvvm.redux.sync  umin %[[YZ]], %{{.*}} : i32 -> i32
  // CHECK: llvm.insertvalue %[[XALL]], %{{.*}}[0]
  // CHECK: llvm.insertvalue %[[YZALL]], %{{.*}}[1]
  %v:2 = fa4.consumer.wait %s[%stage, %phase] : !S -> i32, i32
  return %v#0, %v#1 : i32, i32
}

// CHECK-LABEL: llvm.func @claim
// CHECK-SAME: (%[[COUNTER:.*]]: !llvm.ptr<1>, %[[CTAS:.*]]: i32, %[[TILES:.*]]: i32)
func.func @claim(%counter: !llvm.ptr<1>, %ctas: i32, %tiles: i32) -> i32 {
  // CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
  // CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
  // CHECK: llvm.cond_br %[[FIRST]], ^[[CLAIM:.*]], ^[[JOIN:.*]](%{{.*}} : i32)
  // CHECK: ^[[CLAIM]]:
  // CHECK: %[[OLD:.*]] = llvm.atomicrmw add %[[COUNTER]], %{{.*}} monotonic : !llvm.ptr<1>, i32
  // CHECK: %[[LAST:.*]] = llvm.sub %[[TILES]], %{{.*}} : i32
  // CHECK: %[[TOOK:.*]] = llvm.icmp "eq" %[[OLD]], %[[LAST]] : i32
  // CHECK: llvm.cond_br %[[TOOK]], ^[[RESET:.*]], ^[[JOIN]](%[[OLD]] : i32)
  // CHECK: ^[[RESET]]:
  // CHECK: llvm.atomicrmw xchg %[[COUNTER]], %{{.*}} monotonic : !llvm.ptr<1>, i32
  // CHECK: llvm.br ^[[JOIN]](%[[OLD]] : i32)
  // CHECK: ^[[JOIN]](%[[TAKEN:.*]]: i32):
  // CHECK: %[[ALL:.*]] = nvvm.shfl.sync  idx %{{.*}}, %[[TAKEN]], %{{.*}}, %{{.*}} : i32 -> i32
  // CHECK: %[[TILE:.*]] = llvm.add %[[CTAS]], %[[ALL]] : i32
  // CHECK: llvm.return %[[TILE]] : i32
  %t = fa4.claim_tile %counter, %ctas, %tiles : !llvm.ptr<1>
  return %t : i32
}

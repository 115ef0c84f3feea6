// fa4-overlap-softmax: the consumer loop of attention is peeled and
// software-pipelined so that P·V of a key block is issued with the next
// block's S and completes after its softmax; the consumer warpgroups take
// turns issuing MMAs, round robin, warpgroup w waiting at named barrier
// 1 + w. The GEMM's loop
// has no P·V and is left alone. With MLIR's remarks on, the pass says what it
// scheduled, and why it left a loop with a P·V (an MMA with A in registers)
// as it was: here the attention loop without the release of V's stage.
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk --fa4-warp-specialize --fa4-overlap-softmax | FileCheck %s
// RUN: fa4-opt %S/Inputs/gemm-tile.mlir --fa4-attach-config="head-dim=64 kv-stages=4" --fa4-assign-layouts --fa4-pipeline-tma --fa4-warp-specialize --fa4-overlap-softmax | FileCheck %s --check-prefix=GEMM
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk --fa4-warp-specialize --fa4-overlap-softmax --remarks-filter=fa4-overlap-softmax --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSED
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk --fa4-warp-specialize | sed '/consumer.release %[0-9]*\[%arg14\] : !fa4.pipeline<v,/d' | fa4-opt --fa4-overlap-softmax --remarks-filter=fa4-overlap-softmax --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: fa4-opt %S/Inputs/gemm-tile.mlir --fa4-attach-config="head-dim=64 kv-stages=4" --fa4-assign-layouts --fa4-pipeline-tma --fa4-warp-specialize --fa4-overlap-softmax --remarks-filter=fa4-overlap-softmax --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEMM-REMARKS --allow-empty

// PASSED: attention-tile.mlir:30:10: remark: [Passed] OverlapSoftmax | Category:fa4-overlap-softmax | Reason="P·V of each key block issued with the next block's S and waited for after its softmax; 2 consumer warpgroup(s) taking turns"
// MISSED: remark: [Missed] OverlapSoftmax | Category:fa4-overlap-softmax | Reason="the loop keeps its order: the stage of P·V's B operand is not released and stepped in the loop, its next state carried"
// GEMM-REMARKS-NOT: remark

// CHECK: fa4.role consumer warps(8) regs(240) {
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// Warpgroup 1, the last, hands warpgroup 0 the first turn.
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[WG]], %c1
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: fa4.named_barrier.arrive id(1) threads(256)
// CHECK-NEXT: }
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %c0{{.*}}, %[[BLOCKS:.*]] : index
// CHECK: scf.if %[[ANY]] -> (tensor<64xf32, #fa4.rows>, tensor<64xf32, #fa4.rows>, tensor<64x128xf32, #fa4.acc>, !fa4.pipeline_state, !fa4.pipeline_state) {
// Block 0: its S between a turn's sync and arrive, its softmax, no P·V.
// CHECK: fa4.named_barrier.sync id(1)
// CHECK: fa4.named_barrier.sync id(2)
// CHECK: fa4.mma.async
// CHECK: fa4.mma.async
// CHECK: fa4.named_barrier.arrive id(2)
// CHECK: fa4.named_barrier.arrive id(1)
// CHECK: fa4.mma.wait %{{.*}} pending(0)
// CHECK-NOT: b_mn_major
// CHECK: tile.exp2
// Blocks 1 .. n-1: S_j and P_(j-1)·V_(j-1) in one turn, S waited for with
// P·V still running, the softmax, then P·V completed and the V stage freed.
// CHECK: %[[LOOP:.*]]:6 = scf.for {{.*}} iter_args({{.*}}, %[[ACC:.*]] = %{{.*}}, %[[KS:.*]] = %{{.*}}, %[[VS:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}) -> ({{.*}}, tensor<64x128xbf16, #fa4.acc>) {
// CHECK: fa4.named_barrier.sync
// CHECK: %[[S0:.*]] = fa4.mma.async
// CHECK: %[[S:.*]] = fa4.mma.async {{.*}}, %[[S0]] :
// CHECK: %[[V:.*]] = fa4.consumer.wait %{{.*}}[%[[VS]]]
// CHECK: %[[PV:.*]] = fa4.mma.async %[[P]], %[[V]], %[[ACC]] b_mn_major
// CHECK: fa4.named_barrier.arrive
// CHECK: fa4.mma.wait %[[S]] pending(1)
// CHECK: tile.exp2
// CHECK: %[[O:.*]] = fa4.mma.wait %[[PV]] pending(0)
// CHECK: fa4.consumer.release %{{.*}}[%[[VS]]]
// CHECK: arith.mulf %[[O]], %{{.*}} : tensor<64x128xf32, #fa4.acc>
// CHECK: scf.yield
// The last P·V.
// CHECK: %[[VL:.*]] = fa4.consumer.wait %{{.*}}[%[[LOOP]]#4]
// CHECK: %[[PVL:.*]] = fa4.mma.async %[[LOOP]]#5, %[[VL]], %[[LOOP]]#2 b_mn_major
// CHECK: fa4.mma.wait %[[PVL]] pending(0)

// GEMM: fa4.role consumer
// GEMM-NOT: named_barrier
// GEMM: scf.for
// GEMM: fa4.mma.wait %{{.*}} pending(0)

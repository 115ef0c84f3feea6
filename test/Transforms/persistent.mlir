// fa4-persistent: with `persistent = true` in the plan each role of the
// warp-specialized kernel loops over the tiles of the logical grid (in
// folded pairs), which the kernel takes as two new trailing arguments. The pipeline states are
// carried from tile to tile; Q, which a tile never steps, is stepped after
// the producer's load and released, then stepped, by the consumers after
// their key loop. Program ids and grid sizes inside come from the tile
// index. Without the plan field nothing changes; a grid z is refused. With
// `interleave_heads` the pairs are numbered with (y, z) first.
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128 persistent=true" --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk --fa4-warp-specialize --fa4-persistent | FileCheck %s
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128" --fa4-assign-layouts --fa4-pipeline-tma --fa4-split-qk --fa4-warp-specialize --fa4-persistent | FileCheck %s --check-prefix=OFF
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128 persistent=true" --fa4-tile-to-fa4 --fa4-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: sed 's/attributes {fa4.kernel}/attributes {fa4.kernel, fa4.grid = "cdiv(q.dim1, 128), q.dim0, 1"}/' %S/Inputs/attention-tile.mlir | fa4-opt --fa4-attach-config="head-dim=128 persistent=true" --fa4-tile-to-fa4 | FileCheck %s --check-prefix=RULES
// RUN: sed 's/attributes {fa4.kernel}/attributes {fa4.kernel, fa4.grid = "1, 1, 2"}/' %S/Inputs/attention-tile.mlir | not fa4-opt --fa4-attach-config="head-dim=128 persistent=true" --fa4-tile-to-fa4 2>&1 | FileCheck %s --check-prefix=GRID-Z
// RUN: fa4-opt %S/Inputs/persistent-3d.mlir --fa4-persistent --allow-unregistered-dialect | FileCheck %s --check-prefix=GRID3
// RUN: sed 's/persistent = true>/persistent = true, interleave_heads = true>/' %S/Inputs/persistent-3d.mlir | fa4-opt --fa4-persistent --allow-unregistered-dialect | FileCheck %s --check-prefix=HEADS
// RUN: sed 's/persistent = true>}/persistent = true, dynamic_schedule = true>, fa4.grid_group = "4"}/' %S/Inputs/persistent-3d.mlir | fa4-opt --fa4-persistent --allow-unregistered-dialect | FileCheck %s --check-prefix=DYNAMIC
// RUN: sed 's/persistent = true>}/persistent = true, dynamic_schedule = true>}/' %S/Inputs/persistent-3d.mlir | fa4-opt --fa4-persistent --allow-unregistered-dialect | FileCheck %s --check-prefix=DYNAMIC-NO-GROUP
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config="head-dim=128 persistent=true dynamic-schedule=true" --fa4-tile-to-fa4 --fa4-to-llvm | FileCheck %s --check-prefix=DYNAMIC-LLVM
// RUN: fa4-opt %s --split-input-file --verify-diagnostics --fa4-persistent

// With a launch description, the tile grid's rules make the two arguments
// and the launch grid is one CTA per SM, at most one per tile.
// RULES-LABEL: func.func @attention(
// RULES-SAME: index {fa4.name = "grid_x", fa4.value = "cdiv(q.dim1, 128)"}, %{{.*}}: index {fa4.name = "grid_y", fa4.value = "q.dim0"})
// RULES-SAME: fa4.grid = "min(num_sms, grid_x * grid_y), 1, 1"
// GRID-Z: error: 'func.func' op is planned persistent but its grid '1, 1, 2' is not of the form 'x, y, 1' of a program that does not use the grid's z dimension

// A program that uses the grid's z dimension takes grid_z too. The
// schedule is folded, in 32 bits: when there are at least as many pairs as
// CTAs (ceil(X / 2) Y Z >= P) pair v is slot k = v mod ceil(X / 2) of
// (y, z) = ((v / slots) mod Y, (v / slots) / Y), and runs the tiles x = k
// and x = X - 1 - k (one when they are the same); otherwise every tile is
// its own pair.
// GRID3-LABEL: func.func @grid_3d(
// GRID3-SAME: %[[GX:arg[0-9]+]]: index {fa4.name = "grid_x", fa4.value = "cdiv(a.dim0, 128)"}, %[[GY:arg[0-9]+]]: index {fa4.name = "grid_y", fa4.value = "a.dim1"}, %[[GZ:arg[0-9]+]]: index {fa4.name = "grid_z", fa4.value = "a.dim2"})
// GRID3-SAME: fa4.grid = "min(num_sms, grid_x * grid_y * grid_z), 1, 1"
// GRID3: fa4.role consumer
// GRID3: %[[CTA:.*]] = arith.index_castui %{{.*}} : index to i32
// GRID3: %[[CTAS:.*]] = arith.index_castui %{{.*}} : index to i32
// GRID3: %[[X:.*]] = arith.index_castui %[[GX]] : index to i32
// GRID3: %[[Y:.*]] = arith.index_castui %[[GY]] : index to i32
// GRID3: %[[Z:.*]] = arith.index_castui %[[GZ]] : index to i32
// GRID3: %[[YZ:.*]] = arith.muli %[[Y]], %[[Z]] : i32
// GRID3: %[[X1:.*]] = arith.addi %[[X]], %[[ONE:.*]] : i32
// GRID3: %[[HALF:.*]] = arith.shrui %[[X1]], %[[ONE]] : i32
// GRID3: %[[HALVES:.*]] = arith.muli %[[HALF]], %[[YZ]] : i32
// GRID3: %[[FOLD:.*]] = arith.cmpi uge, %[[HALVES]], %[[CTAS]] : i32
// GRID3: %[[SLOTS:.*]] = arith.select %[[FOLD]], %[[HALF]], %[[X]] : i32
// GRID3: %[[PAIRS:.*]] = arith.muli %[[SLOTS]], %[[YZ]] : i32
// GRID3: scf.for %[[V:.*]] = %[[CTA]] to %[[PAIRS]] step %[[CTAS]] : i32 {
// GRID3: %[[K:.*]] = arith.remui %[[V]], %[[SLOTS]] : i32
// GRID3: %[[REST:.*]] = arith.divui %[[V]], %[[SLOTS]] : i32
// GRID3: %[[XM1:.*]] = arith.subi %[[X]], %[[ONE]] : i32
// GRID3: %[[MIRROR:.*]] = arith.subi %[[XM1]], %[[K]] : i32
// GRID3: %[[OTHER:.*]] = arith.cmpi ne, %[[MIRROR]], %[[K]] : i32
// GRID3: %[[TWO_TILES:.*]] = arith.andi %[[FOLD]], %[[OTHER]] : i1
// GRID3: %[[COUNT:.*]] = arith.select %[[TWO_TILES]], %{{.*}}, %[[ONE]] : i32
// GRID3: scf.for %[[S:.*]] = %{{.*}} to %[[COUNT]] step %[[ONE]] : i32 {
// GRID3: %[[FIRST:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i32
// GRID3: %[[XI:.*]] = arith.select %[[FIRST]], %[[K]], %[[MIRROR]] : i32
// GRID3: %[[XX:.*]] = arith.index_castui %[[XI]] : i32 to index
// GRID3: %[[Y2:.*]] = arith.index_castui %[[GY]] : index to i32
// GRID3: %[[YI:.*]] = arith.remui %[[REST]], %[[Y2]] : i32
// GRID3: %[[YY:.*]] = arith.index_castui %[[YI]] : i32 to index
// GRID3: %[[ZI:.*]] = arith.divui %[[REST]], %[[Y2]] : i32
// GRID3: %[[ZZ:.*]] = arith.index_castui %[[ZI]] : i32 to index
// GRID3: "use"(%[[XX]], %[[YY]], %[[ZZ]], %[[GZ]])
// GRID3: } {fa4.tile_loop}

// A dynamic schedule: the grid group and the tile counter as two more
// arguments, a schedule pipeline of two stages of (x, pair) that the
// consumers release, each role's body in an scf.while. The producer starts
// at its CTA's tile, numbers tile t in groups of G = clamp(group, 1, Y·Z)
// pairs, the pairs fastest within a group: (x, pair) = (r / size, gG +
// r mod size) for t = g·G·X + r, size = min(G, Y·Z - gG); it puts them,
// runs the tile and claims the next; past the last it puts x = X. The
// consumers wait for each (x, pair) and stop at x = X.
// DYNAMIC-LABEL: func.func @grid_3d(
// DYNAMIC-SAME: %[[GX:arg[0-9]+]]: index {fa4.name = "grid_x", fa4.value = "cdiv(a.dim0, 128)"}, %[[GY:arg[0-9]+]]: index {fa4.name = "grid_y", fa4.value = "a.dim1"}, %[[GZ:arg[0-9]+]]: index {fa4.name = "grid_z", fa4.value = "a.dim2"}, %[[GG:arg[0-9]+]]: index {fa4.name = "grid_group", fa4.value = "4"}, %[[COUNTER:arg[0-9]+]]: !llvm.ptr<1> {fa4.counter, fa4.name = "tile_counter"})
// DYNAMIC-NOT: fa4.grid_group =
// DYNAMIC: %[[S:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
// DYNAMIC: fa4.role producer
// DYNAMIC-NEXT: %[[X:.*]] = arith.index_castui %[[GX]] : index to i32
// DYNAMIC-NEXT: %[[START:.*]] = fa4.pipeline.start %[[S]] producer
// DYNAMIC-NEXT: %[[Y:.*]] = arith.index_castui %[[GY]] : index to i32
// DYNAMIC-NEXT: %[[Z:.*]] = arith.index_castui %[[GZ]] : index to i32
// DYNAMIC-NEXT: %[[YZ:.*]] = arith.muli %[[Y]], %[[Z]] : i32
// DYNAMIC-NEXT: %[[TILES:.*]] = arith.muli %[[X]], %[[YZ]] : i32
// DYNAMIC-NEXT: %[[G0:.*]] = arith.index_castui %[[GG]] : index to i32
// DYNAMIC-NEXT: %[[G1:.*]] = arith.minui %[[G0]], %[[YZ]] : i32
// DYNAMIC-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// DYNAMIC-NEXT: %[[G:.*]] = arith.maxui %[[G1]], %[[ONE]] : i32
// DYNAMIC-NEXT: %[[SPAN:.*]] = arith.muli %[[G]], %[[X]] : i32
// DYNAMIC-NEXT: %[[CTA_ID:.*]] = tile.program_id 0
// DYNAMIC-NEXT: %[[CTA:.*]] = arith.index_castui %[[CTA_ID]] : index to i32
// DYNAMIC-NEXT: %[[LAST:.*]]:2 = scf.while (%[[T:.*]] = %[[CTA]], %[[SS:.*]] = %[[START]]) : (i32, !fa4.pipeline_state) -> (i32, !fa4.pipeline_state) {
// DYNAMIC-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[T]], %[[TILES]] : i32
// DYNAMIC-NEXT: scf.condition(%[[MORE]]) %[[T]], %[[SS]]
// DYNAMIC-NEXT: } do {
// DYNAMIC-NEXT: ^bb0(%[[TT:.*]]: i32, %[[TS:.*]]: !fa4.pipeline_state):
// DYNAMIC-NEXT: %[[GI:.*]] = arith.divui %[[TT]], %[[SPAN]] : i32
// DYNAMIC-NEXT: %[[FIRST:.*]] = arith.muli %[[GI]], %[[G]] : i32
// DYNAMIC-NEXT: %[[GS:.*]] = arith.muli %[[GI]], %[[SPAN]] : i32
// DYNAMIC-NEXT: %[[R:.*]] = arith.subi %[[TT]], %[[GS]] : i32
// DYNAMIC-NEXT: %[[LEFT:.*]] = arith.subi %[[YZ]], %[[FIRST]] : i32
// DYNAMIC-NEXT: %[[SIZE:.*]] = arith.minui %[[G]], %[[LEFT]] : i32
// DYNAMIC-NEXT: %[[XI:.*]] = arith.divui %[[R]], %[[SIZE]] : i32
// DYNAMIC-NEXT: %[[XS:.*]] = arith.muli %[[XI]], %[[SIZE]] : i32
// DYNAMIC-NEXT: %[[IN:.*]] = arith.subi %[[R]], %[[XS]] : i32
// DYNAMIC-NEXT: %[[PAIR:.*]] = arith.addi %[[FIRST]], %[[IN]] : i32
// DYNAMIC-NEXT: fa4.producer.acquire %[[S]][%[[TS]]]
// DYNAMIC-NEXT: fa4.producer.put %[[S]][%[[TS]]], %[[XI]], %[[PAIR]]
// DYNAMIC-NEXT: %[[NS:.*]] = fa4.pipeline.step %[[S]][%[[TS]]]
// DYNAMIC: %[[CTAS_ID:.*]] = tile.num_programs 0
// DYNAMIC-NEXT: %[[CTAS:.*]] = arith.index_castui %[[CTAS_ID]] : index to i32
// DYNAMIC-NEXT: %[[NEXT:.*]] = fa4.claim_tile %[[COUNTER]], %[[CTAS]], %[[TILES]] : !llvm.ptr<1>
// DYNAMIC-NEXT: scf.yield %[[NEXT]], %[[NS]] : i32, !fa4.pipeline_state
// DYNAMIC-NEXT: } attributes {fa4.tile_loop}
// DYNAMIC-NEXT: fa4.producer.acquire %[[S]][%[[LAST]]#1]
// DYNAMIC-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// DYNAMIC-NEXT: fa4.producer.put %[[S]][%[[LAST]]#1], %[[X]], %[[ZERO]]
// DYNAMIC: fa4.role consumer
// DYNAMIC-NEXT: %[[CX:.*]] = arith.index_castui %[[GX]] : index to i32
// DYNAMIC-NEXT: %[[CSTART:.*]] = fa4.pipeline.start %[[S]] consumer
// DYNAMIC-NEXT: scf.while (%[[CS:.*]] = %[[CSTART]]) : (!fa4.pipeline_state) -> (i32, i32, !fa4.pipeline_state) {
// DYNAMIC-NEXT: %[[GOT:.*]]:2 = fa4.consumer.wait %[[S]][%[[CS]]]
// DYNAMIC-NEXT: fa4.consumer.release %[[S]][%[[CS]]]
// DYNAMIC-NEXT: %[[CN:.*]] = fa4.pipeline.step %[[S]][%[[CS]]]
// DYNAMIC-NEXT: %[[GO:.*]] = arith.cmpi ult, %[[GOT]]#0, %[[CX]] : i32
// DYNAMIC-NEXT: scf.condition(%[[GO]]) %[[GOT]]#0, %[[GOT]]#1, %[[CN]]
// DYNAMIC-NEXT: } do {
// DYNAMIC-NEXT: ^bb0(%[[CXI:.*]]: i32, %[[CP:.*]]: i32, %{{.*}}: !fa4.pipeline_state):
// DYNAMIC-NEXT: %[[XX:.*]] = arith.index_castui %[[CXI]] : i32 to index
// DYNAMIC-NEXT: %[[Y2:.*]] = arith.index_castui %[[GY]] : index to i32
// DYNAMIC-NEXT: %[[YI:.*]] = arith.remui %[[CP]], %[[Y2]] : i32
// DYNAMIC-NEXT: %[[YY:.*]] = arith.index_castui %[[YI]] : i32 to index
// DYNAMIC-NEXT: %[[ZI:.*]] = arith.divui %[[CP]], %[[Y2]] : i32
// DYNAMIC-NEXT: %[[ZZ:.*]] = arith.index_castui %[[ZI]] : i32 to index
// DYNAMIC-NEXT: "use"(%[[XX]], %[[YY]], %[[ZZ]], %[[GZ]])
// DYNAMIC: } attributes {fa4.tile_loop}

// Without a grid group rule, G is 1: no argument.
// DYNAMIC-NO-GROUP-NOT: grid_group
// DYNAMIC-NO-GROUP: !llvm.ptr<1> {fa4.counter, fa4.name = "tile_counter"})
// DYNAMIC-NO-GROUP: arith.minui %c1_i32

// The lowered dynamic kernel passes the counter as a global pointer and
// claims with one atomic add.
// DYNAMIC-LLVM: llvm.func @attention({{.*}}, %{{.*}}: !llvm.ptr<1> {fa4.counter, fa4.name = "tile_counter"})
// DYNAMIC-LLVM: llvm.atomicrmw add
// DYNAMIC-LLVM: nvvm.mbarrier.arrive

// HEADS: %[[YZ:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// HEADS: %[[SLOTS:.*]] = arith.select
// HEADS: scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// HEADS-NEXT: %[[REST:.*]] = arith.remui %[[V]], %[[YZ]] : i32
// HEADS-NEXT: %[[K:.*]] = arith.divui %[[V]], %[[YZ]] : i32
// HEADS: arith.subi %{{.*}}, %[[K]] : i32
// HEADS: arith.remui %[[REST]], %{{.*}} : i32

// A persistent plan double-buffers Q: the producer loads the next tile's
// while the consumers read this one's. The states pass through both loops.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[GX:arg[0-9]+]]: index {fa4.name = "grid_x"}, %[[GY:arg[0-9]+]]: index {fa4.name = "grid_y"})
// CHECK-SAME: persistent = true, q_stages = 2
// CHECK: fa4.pipeline.create consumers(256) : !fa4.pipeline<q, kv = 2, qk = 1
// CHECK: fa4.role producer
// CHECK: %[[QP:.*]] = fa4.pipeline.start %{{.*}} producer : !fa4.pipeline<q
// CHECK: %[[CTA:.*]] = tile.program_id 0
// CHECK: %[[CTAS:.*]] = tile.num_programs 0
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[PAIRS:.*]] step %{{.*}} iter_args(%[[QP0:arg[0-9]+]] = %[[QP]], {{.*}}) -> (!fa4.pipeline_state, !fa4.pipeline_state, !fa4.pipeline_state)  : i32 {
// CHECK: %[[PAIR:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[QS:arg[0-9]+]] = %[[QP0]], {{.*}}) -> (!fa4.pipeline_state, !fa4.pipeline_state, !fa4.pipeline_state)  : i32 {
// CHECK-NOT: tile.program_id
// CHECK: fa4.producer.load %{{.*}}[%[[QS]]]
// CHECK: %[[QN:.*]] = fa4.pipeline.step %{{.*}}[%[[QS]]] : !fa4.pipeline<q
// CHECK: %[[KV:.*]]:2 = scf.for
// CHECK: scf.yield %[[QN]], %[[KV]]#0, %[[KV]]#1
// CHECK: scf.yield %[[PAIR]]#0, %[[PAIR]]#1, %[[PAIR]]#2
// CHECK-NEXT: } {fa4.tile_loop}
// CHECK: fa4.role consumer
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CQ:arg[0-9]+]] = %{{.*}}, {{.*}}) -> (!fa4.pipeline_state, !fa4.pipeline_state, !fa4.pipeline_state)  : i32 {
// CHECK: fa4.consumer.wait %{{.*}}[%[[CQ]]] : !fa4.pipeline<q
// CHECK: %[[LOOP:.*]]:5 = scf.for
// CHECK: fa4.consumer.release %{{.*}}[%[[CQ]]] : !fa4.pipeline<q
// CHECK-NEXT: %[[CQN:.*]] = fa4.pipeline.step %{{.*}}[%[[CQ]]] : !fa4.pipeline<q
// CHECK: fa4.global_store
// CHECK: scf.yield %[[CQN]], %[[LOOP]]#3, %[[LOOP]]#4
// CHECK: } {fa4.tile_loop}

// OFF-NOT: grid_x
// OFF-NOT: fa4.tile_loop

// The lowered kernel takes the grid as two i64 parameters; the consumers'
// warpgroup index is read from lane 0 (then ptxas knows that it and the
// states the tile loop carries are warp-uniform); the states themselves
// are not broadcast.
// LLVM: llvm.func @attention({{.*}}, %{{.*}}: i64 {fa4.name = "grid_x"}, %{{.*}}: i64 {fa4.name = "grid_y"})
// LLVM: nvvm.shfl.sync {{ *}}idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// LLVM-NOT: nvvm.shfl.sync {{ *}}idx

// -----

// expected-error @below {{'func.func' op is planned persistent but has no warp roles; fa4-persistent runs after fa4-warp-specialize (docs/Rationale.md, "Warp roles")}}
func.func @no_roles() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true>} {
  return
}

// -----

// A dynamic schedule needs one producer to claim the tiles and other roles
// to hand them to.
// expected-error @below {{'func.func' op is planned with a dynamic schedule but has 1 producer role(s) and 0 threads in other roles; one producer claims the tiles and hands them to the others}}
func.func @dynamic_no_readers() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, dynamic_schedule = true>} {
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
    }
  }
  return
}

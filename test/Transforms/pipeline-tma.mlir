// fa4-pipeline-tma: each descriptor load becomes a pipeline (Q loaded once;
// K, V, A and B in the plan's kv stages), descriptor arguments become tensor
// maps of 64-column boxes, the loop carries a producer and a consumer state
// per pipeline, and each dot an MMA chain over 64-column chunks that waits
// for its tiles, then completes and releases them.
// RUN: fa4-opt %S/Inputs/attention-tile.mlir --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma | FileCheck %s
// RUN: fa4-opt %S/Inputs/gemm-tile.mlir --fa4-attach-config="head-dim=64 kv-stages=4" --fa4-assign-layouts --fa4-pipeline-tma | FileCheck %s --check-prefix=GEMM
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --fa4-pipeline-tma --verify-diagnostics | FileCheck %s --check-prefix=TWICE

// CHECK-LABEL: func.func @attention
// CHECK-SAME: !fa4.tensor_map<bf16, box = [1, 128, 64], swizzle = 128> {fa4.name = "q"}
// CHECK-DAG: %[[V:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// CHECK-DAG: %[[K:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// CHECK-DAG: %[[Q:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<q, kv = 1, qk = 1, memref<128x128xbf16, 3>>
// CHECK: %[[QP:.*]] = fa4.pipeline.start %[[Q]] producer
// CHECK: %[[QC:.*]] = fa4.pipeline.start %[[Q]] consumer
// CHECK: fa4.producer.acquire %[[Q]][%[[QP]]]
// CHECK: fa4.producer.load %[[Q]][%[[QP]]]
// CHECK: %[[QBUF:.*]] = fa4.consumer.wait %[[Q]][%[[QC]]]
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[KP:.*]] = %{{.*}}, %[[KC:.*]] = %{{.*}}, %[[VP:.*]] = %{{.*}}, %[[VC:.*]] = %{{.*}}) -> ({{.*}}, !fa4.pipeline_state, !fa4.pipeline_state, !fa4.pipeline_state, !fa4.pipeline_state)
// CHECK: fa4.producer.acquire %[[K]][%[[KP]]]
// CHECK: fa4.producer.load %[[K]][%[[KP]]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: %[[KBUF:.*]] = fa4.consumer.wait %[[K]][%[[KC]]]
// CHECK: %[[A0:.*]] = fa4.subtile %[[QBUF]][%{{.*}}, %c0{{.*}}] : memref<128x128xbf16, 3> -> memref<64x64xbf16, 3>
// CHECK: %[[B0:.*]] = fa4.subtile %[[KBUF]][%c0{{.*}}, %c0{{.*}}] : memref<128x128xbf16, 3> -> memref<128x64xbf16, 3>
// The dot's accumulator is a constant zero: the first MMA has none (it
// starts from zero, scale-d = 0), the next accumulates onto it.
// CHECK: %[[S0:.*]] = fa4.mma.async %[[A0]], %[[B0]] : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>
// CHECK: %[[A1:.*]] = fa4.subtile %[[QBUF]][%{{.*}}, %c64{{.*}}]
// CHECK: %[[B1:.*]] = fa4.subtile %[[KBUF]][%c0{{.*}}, %c64{{.*}}]
// CHECK: %[[S1:.*]] = fa4.mma.async %[[A1]], %[[B1]], %[[S0]]
// CHECK: fa4.mma.wait %[[S1]] pending(0)
// CHECK: fa4.consumer.release %[[K]][%[[KC]]]
// CHECK: fa4.producer.acquire %[[V]][%[[VP]]]
// CHECK: %[[VBUF:.*]] = fa4.consumer.wait %[[V]][%[[VC]]]
// CHECK: %[[PV:.*]] = fa4.mma.async %{{.*}}, %[[VBUF]], %{{.*}} b_mn_major : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>
// CHECK: fa4.mma.wait %[[PV]] pending(0)
// CHECK: fa4.consumer.release %[[V]][%[[VC]]]
// CHECK-DAG: fa4.pipeline.step %[[K]][%[[KP]]]
// CHECK-DAG: fa4.pipeline.step %[[K]][%[[KC]]]
// CHECK-DAG: fa4.pipeline.step %[[V]][%[[VP]]]
// CHECK-DAG: fa4.pipeline.step %[[V]][%[[VC]]]
// CHECK-NOT: tile.load
// CHECK-NOT: tile.dot

// A and B of the GEMM's dot, both loaded in its loop, share one pipeline:
// one acquire and two loads (tile 0 and tile 1) per stage, one wait for
// both, one release.
// GEMM-LABEL: func.func @gemm
// GEMM: %[[AB:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<operand, kv = 4, qk = 1, memref<128x64xbf16, 3>, memref<128x64xbf16, 3>>
// GEMM-NOT: fa4.pipeline.create
// GEMM: fa4.producer.acquire %[[AB]][%[[P:[a-z0-9]+]]]
// GEMM-NOT: fa4.producer.acquire
// GEMM: fa4.producer.load %[[AB]][%[[P]]], %arg0
// GEMM: fa4.producer.load %[[AB]][%[[P]]] tile 1, %arg1
// GEMM: %[[BUF:.*]]:2 = fa4.consumer.wait %[[AB]][%[[C:[a-z0-9]+]]]
// GEMM: %[[AW:.*]] = fa4.subtile %[[BUF]]#0[%{{.*}}, %c0{{.*}}] : memref<128x64xbf16, 3> -> memref<64x64xbf16, 3>
// GEMM: fa4.mma.async %[[AW]], %[[BUF]]#1, %{{.*}} : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32, #fa4.acc>
// GEMM: fa4.consumer.release %[[AB]][%[[C]]]
// GEMM-NOT: fa4.consumer.release

// A tile two dots read in the loop, transposed and mn-major (K in the
// attention backward's S = Q·Kᵀ and dQ += dS·K): a V pipeline (read whole,
// never staged over the head dim), waited for before the first dot and
// released after the last.
// TWICE-LABEL: func.func @twice
// TWICE: %[[P:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// TWICE: %[[B:.*]] = fa4.consumer.wait %[[P]][%[[S:[a-z0-9]+]]]
// TWICE-NOT: fa4.consumer.release
// TWICE: fa4.subtile %[[B]][%{{.*}}] : memref<128x128xbf16, 3> -> memref<128x64xbf16, 3>
// TWICE-NOT: fa4.consumer.release
// TWICE: fa4.mma.wait
// TWICE-NOT: fa4.consumer.release
// TWICE: fa4.mma.async %{{.*}}, %[[B]], %{{.*}} b_mn_major : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>
// TWICE-NEXT: fa4.mma.wait
// TWICE-NEXT: fa4.consumer.release %[[P]][%[[S]]]
// TWICE-NOT: fa4.consumer.release
func.func @twice(%k: !tile.desc<1x128x128xbf16>, %qd: !tile.desc<1x128x128xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tile.load %qd[%c0, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<128x128xf32> {
    %kt = tile.load %k[%c0, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %q, %ktt, %acc : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %sb = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xbf16>
    %t = tile.dot %sb, %kt, %s : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    scf.yield %t : tensor<128x128xf32>
  }
  return
}

// -----

// Two dots the program writes one after the other: the first one's wait
// moves past the second's MMAs (two groups, left in flight: pending(2)),
// with the release of the stage its MMAs read, up to the second's wait;
// that one, with no MMA after it to pass, stays where it is.
// TWICE-LABEL: func.func @together
// TWICE: %[[S:.*]] = fa4.mma.async %{{.*}}, %{{.*}}, %{{.*}} :
// TWICE: fa4.consumer.wait
// TWICE: %[[T:.*]] = fa4.mma.async %{{.*}}, %{{.*}}, %{{.*}} :
// TWICE-NEXT: %[[SW:.*]] = fa4.mma.wait %[[S]] pending(2)
// TWICE-NEXT: fa4.consumer.release
// TWICE-NEXT: %[[TW:.*]] = fa4.mma.wait %[[T]] pending(0)
// TWICE-NEXT: fa4.consumer.release
// TWICE-NEXT: arith.addf %[[SW]], %[[TW]]
func.func @together(%qd: !tile.desc<1x128x128xbf16>, %k: !tile.desc<1x128x128xbf16>,
                    %v: !tile.desc<1x128x128xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %q = tile.load %qd[%c0, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<128x128xf32> {
    %kt = tile.load %k[%c0, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %q, %ktt, %zero : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %vt = tile.load %v[%c0, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %vtt = tile.trans %vt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %t = tile.dot %q, %vtt, %zero : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %sum = arith.addf %s, %t : tensor<128x128xf32>
    scf.yield %sum : tensor<128x128xf32>
  }
  return
}

// -----

// One descriptor loaded by two loops (a row read once for its sum of
// squares, again to scale it, as an RMSNorm of long rows does): each load a
// pipeline of its own, both filled through the one tensor map the argument
// becomes.
// TWICE-LABEL: func.func @reread(
// TWICE-SAME: %arg0: !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
// TWICE-DAG: %[[P0:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<operand, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// TWICE-DAG: %[[P1:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<operand, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// TWICE: scf.for
// TWICE: fa4.producer.load %[[P1]][%{{.*}}], %arg0[
// TWICE: fa4.consumer.wait %[[P1]]
// TWICE: scf.for
// TWICE: fa4.producer.load %[[P0]][%{{.*}}], %arg0[
// TWICE: fa4.consumer.wait %[[P0]]
func.func @reread(%x: !tile.desc<128x128xbf16>, %n: index, %out: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %sq = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<128xf32> {
    %t = tile.load %x[%c0, %j] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
    %f = arith.extf %t : tensor<128x128xbf16> to tensor<128x128xf32>
    %s = tile.reduce sum %f axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %s : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %mx = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<128xf32> {
    %t = tile.load %x[%c0, %j] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
    %f = arith.extf %t : tensor<128x128xbf16> to tensor<128x128xf32>
    %m = tile.reduce max %f axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    %next = arith.maximumf %acc, %m : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %both = arith.addf %sq, %mx : tensor<128xf32>
  %od = tile.make_desc %out, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<128xf32>
  tile.store %both, %od[%c0] : tensor<128xf32>, !tile.desc<128xf32>
  return
}

// -----

// A GEMM's bias added by a dot with a block loaded once: the block is not
// the plan's Q tile, which the message says in the author's terms.
func.func @once_for_a_dot(%a: !tile.desc<128x128xbf16>, %bias: !tile.desc<16x128xbf16>, %n: index, %out: !tile.ptr<bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_j = %zero) -> tensor<128x128xf32> {
    %t = tile.load %a[%c0, %j] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
    %r = tile.dot %t, %t, %acc_j : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    scf.yield %r : tensor<128x128xf32>
  }
  // expected-error @below {{'tile.load' op loads a 16x128xbf16 block once, outside a loop, for a dot: fa4 keeps such a block in shared memory for the whole program, in a stage of the plan's 128 CTA rows by the 128 columns of bf16 it was derived for; derive the plan for this width or load the block in a loop}}
  %b = tile.load %bias[%c0, %c0] : !tile.desc<16x128xbf16> -> tensor<16x128xbf16>
  %ones = arith.constant dense<1.0> : tensor<128x16xbf16>
  %with = tile.dot %ones, %b, %acc : tensor<128x16xbf16>, tensor<16x128xbf16>, tensor<128x128xf32>
  %o = arith.truncf %with : tensor<128x128xf32> to tensor<128x128xbf16>
  %od = tile.make_desc %out, [%n, %n], [%n, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  tile.store %o, %od[%c0, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

// A load in a loop in a loop (the attention backward's heads of a group,
// each over its query blocks): the states start before the outer loop,
// which carries them and yields what the inner loop leaves, so they go on
// from one run of the inner loop to the next.
// TWICE-LABEL: func.func @nested
// TWICE: %[[P:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// TWICE: %[[PS:.*]] = fa4.pipeline.start %[[P]] producer
// TWICE-NEXT: %[[CS:.*]] = fa4.pipeline.start %[[P]] consumer
// TWICE-NEXT: %[[OUT:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[OP:.*]] = %[[PS]], %[[OC:.*]] = %[[CS]])
// TWICE-NOT: fa4.pipeline.start
// TWICE: %[[IN:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ACC]], %[[IP:.*]] = %[[OP]], %[[IC:.*]] = %[[OC]])
// TWICE: fa4.producer.acquire %[[P]][%[[IP]]]
// TWICE: fa4.consumer.wait %[[P]][%[[IC]]]
// TWICE: fa4.pipeline.step %[[P]][%[[IP]]]
// TWICE: fa4.pipeline.step %[[P]][%[[IC]]]
// TWICE: scf.yield
// TWICE: scf.yield %[[IN]]#0, %[[IN]]#1, %[[IN]]#2
func.func @nested(%k: !tile.desc<1x128x128xbf16>, %qd: !tile.desc<1x128x128xbf16>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tile.load %qd[%c0, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %h = %c0 to %m step %c1 iter_args(%acc = %zero) -> tensor<128x128xf32> {
    %inner = scf.for %j = %c0 to %n step %c1 iter_args(%a = %acc) -> tensor<128x128xf32> {
      %kt = tile.load %k[%h, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
      %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
      %s = tile.dot %q, %ktt, %a : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    scf.yield %inner : tensor<128x128xf32>
  }
  return
}

// -----

// Loads at two depths: the inner loop's states are threaded first, then
// the outer loop's own, so that each keeps the states it was given.
// TWICE-LABEL: func.func @two_depths
// TWICE: %[[KP:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// TWICE: %[[VP:.*]] = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 1, memref<128x128xbf16, 3>>
// TWICE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[KOP:.*]] = %{{.*}}, %[[KOC:.*]] = %{{.*}}, %[[VOP:.*]] = %{{.*}}, %[[VOC:.*]] = %{{.*}})
// TWICE: fa4.producer.acquire %[[VP]][%[[VOP]]]
// TWICE: fa4.consumer.wait %[[VP]][%[[VOC]]]
// TWICE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[KIP:.*]] = %[[KOP]], %[[KIC:.*]] = %[[KOC]])
// TWICE: fa4.producer.acquire %[[KP]][%[[KIP]]]
// TWICE: fa4.consumer.wait %[[KP]][%[[KIC]]]
func.func @two_depths(%k: !tile.desc<1x128x128xbf16>, %v: !tile.desc<1x128x128xbf16>, %qd: !tile.desc<1x128x128xbf16>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tile.load %qd[%c0, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %h = %c0 to %m step %c1 iter_args(%acc = %zero) -> tensor<128x128xf32> {
    %vt = tile.load %v[%h, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %vtt = tile.trans %vt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s0 = tile.dot %q, %vtt, %acc : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %inner = scf.for %j = %c0 to %n step %c1 iter_args(%a = %s0) -> tensor<128x128xf32> {
      %kt = tile.load %k[%h, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
      %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
      %s = tile.dot %q, %ktt, %a : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    scf.yield %inner : tensor<128x128xf32>
  }
  return
}

// -----

// Three levels, two sibling loops with loads in the middle one, which has
// a load of its own: each inner loop takes the states the middle loop
// carries for it, and the middle loop yields each one's final states and
// its own stepped ones; the outermost passes them all through.
// TWICE-LABEL: func.func @siblings
// TWICE: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[A1:[a-z0-9]+]] = %{{.*}}, %[[A2:[a-z0-9]+]] = %{{.*}}, %[[B1:[a-z0-9]+]] = %{{.*}}, %[[B2:[a-z0-9]+]] = %{{.*}}, %[[C1:[a-z0-9]+]] = %{{.*}}, %[[C2:[a-z0-9]+]] = %{{.*}})
// TWICE-NEXT: %[[MID:.*]]:7 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[MA1:[a-z0-9]+]] = %[[A1]], %[[MA2:[a-z0-9]+]] = %[[A2]], %[[MB1:[a-z0-9]+]] = %[[B1]], %[[MB2:[a-z0-9]+]] = %[[B2]], %{{.*}} = %[[C1]], %{{.*}} = %[[C2]])
// TWICE-NEXT: %[[FIRST:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[MA1]], %{{.*}} = %[[MA2]])
// TWICE: %[[SECOND:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[MB1]], %{{.*}} = %[[MB2]])
// TWICE: scf.yield %[[SECOND]]#0, %[[FIRST]]#1, %[[FIRST]]#2, %[[SECOND]]#1, %[[SECOND]]#2, %{{.*}}, %{{.*}} :
// TWICE: scf.yield %[[MID]]#0, %[[MID]]#1, %[[MID]]#2, %[[MID]]#3, %[[MID]]#4, %[[MID]]#5, %[[MID]]#6 :
func.func @siblings(%k: !tile.desc<1x128x128xbf16>, %v: !tile.desc<1x128x128xbf16>, %w: !tile.desc<1x128x128xbf16>, %qd: !tile.desc<1x128x128xbf16>, %l: index, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tile.load %qd[%c0, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %top = scf.for %g = %c0 to %l step %c1 iter_args(%acc0 = %zero) -> tensor<128x128xf32> {
    %r = scf.for %h = %c0 to %m step %c1 iter_args(%acc = %acc0) -> tensor<128x128xf32> {
    %i1 = scf.for %j = %c0 to %n step %c1 iter_args(%a = %acc) -> tensor<128x128xf32> {
      %kt = tile.load %k[%h, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
      %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
      %s = tile.dot %q, %ktt, %a : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    %vt = tile.load %v[%h, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %vtt = tile.trans %vt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s0 = tile.dot %q, %vtt, %i1 : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %i2 = scf.for %j = %c0 to %n step %c1 iter_args(%a = %s0) -> tensor<128x128xf32> {
      %wt = tile.load %w[%h, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
      %wtt = tile.trans %wt : tensor<128x128xbf16> -> tensor<128x128xbf16>
      %s = tile.dot %q, %wtt, %a : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    scf.yield %i2 : tensor<128x128xf32>
  }
  scf.yield %r : tensor<128x128xf32>
  }
  return
}

// -----

func.func @loop_in_if(%k: !tile.desc<1x128x128xbf16>, %qd: !tile.desc<1x128x128xbf16>, %n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tile.load %qd[%c0, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.if %c {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<128x128xf32> {
      // expected-error @below {{'tile.load' op loads in a loop inside 'scf.if': fa4 pipelines the loads of loops nested in loops only}}
      %kt = tile.load %k[%c0, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
      %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
      %s = tile.dot %q, %ktt, %a : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
  }
  return
}

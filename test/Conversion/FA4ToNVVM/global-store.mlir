// Global stores: each thread writes its (row, 2 columns) pairs of the #fa4.acc
// fragment; rows at or past the limit are masked.
// RUN: fa4-opt %s --convert-fa4-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @store
func.func @store(%o: vector<64xbf16>, %out: !llvm.ptr<1>, %row: index, %col: index, %limit: index, %ld: index) {
  // CHECK: nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[INSIDE:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
  // CHECK: %[[PAIR:.*]] = llvm.shufflevector %{{.*}}, %{{.*}} [0, 1] : vector<64xbf16>
  // CHECK: llvm.intr.masked.store %[[PAIR]], %{{.*}}, %{{.*}} {alignment = 4 : i32} : vector<2xbf16>, vector<2xi1> into !llvm.ptr<1>
  // CHECK-COUNT-15: llvm.intr.masked.store
  // Second row half: values 2, 3 of each block, 8 rows down.
  // CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [2, 3] : vector<64xbf16>
  // CHECK-COUNT-16: llvm.intr.masked.store
  fa4.global_store %o, %out[%row, %col] rows(%limit) stride(%ld) : vector<64xbf16>, !llvm.ptr<1>
  return
}

// With `add`: each row half's values added under one test of its row, one
// relaxed atomic add a value (no masked stores).
// CHECK-LABEL: llvm.func @add
func.func @add(%o: vector<16xf32>, %out: !llvm.ptr<1>, %row: index, %col: index, %limit: index, %ld: index) {
  // CHECK: %[[IN0:.*]] = llvm.icmp "ult"
  // CHECK: llvm.cond_br %[[IN0]], ^[[ADD0:.*]], ^[[NEXT0:.*]]
  // CHECK: ^[[ADD0]]:
  // CHECK-COUNT-8: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
  // CHECK-NEXT: llvm.br ^[[NEXT0]]
  // CHECK: ^[[NEXT0]]:
  // CHECK: %[[IN1:.*]] = llvm.icmp "ult"
  // CHECK: llvm.cond_br %[[IN1]], ^[[ADD1:.*]], ^[[NEXT1:.*]]
  // CHECK: ^[[ADD1]]:
  // CHECK-COUNT-8: llvm.atomicrmw fadd
  // CHECK-NEXT: llvm.br ^[[NEXT1]]
  // CHECK: ^[[NEXT1]]:
  // CHECK-NOT: llvm.atomicrmw
  // CHECK-NOT: llvm.intr.masked.store
  fa4.global_store %o, %out[%row, %col] rows(%limit) stride(%ld) add : vector<16xf32>, !llvm.ptr<1>
  return
}

// CHECK-LABEL: llvm.func @program_ids
func.func @program_ids() -> (index, index) {
  // CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
  %id = tile.program_id 1
  %n = tile.num_programs 0
  return %id, %n : index, index
}

// A run of a 1-d tile (`blocked`): thread l of the warpgroup writes elements
// row + 4l to row + 4l + 3, those at or past the limit masked.
// CHECK-LABEL: llvm.func @run
func.func @run(%v: vector<4xf32>, %out: !llvm.ptr<1>, %row: index, %col: index, %limit: index, %ld: index) {
  // CHECK: %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i64
  // CHECK: %[[PIECE:.*]] = llvm.mul %[[LANE]], %{{.*}} : i64
  // CHECK: %[[FIRST:.*]] = llvm.add %arg2, %[[PIECE]] : i64
  // CHECK: %[[R0:.*]] = llvm.add %[[FIRST]], %{{.*}} : i64
  // CHECK-NEXT: llvm.icmp "ult" %[[R0]], %arg4 : i64
  // CHECK-COUNT-4: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : vector<1xf32>, vector<1xi1> into !llvm.ptr<1>
  // CHECK-NOT: llvm.intr.masked.store
  fa4.global_store %v, %out[%row, %col] rows(%limit) stride(%ld) blocked : vector<4xf32>, !llvm.ptr<1>
  return
}

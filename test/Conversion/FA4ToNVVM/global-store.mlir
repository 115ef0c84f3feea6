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
  fa4.global_store %o, %out[%row, %col] rows(%limit) stride(%ld) layout(#fa4.acc) : vector<64xbf16>, !llvm.ptr<1>
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
  fa4.global_store %o, %out[%row, %col] rows(%limit) stride(%ld) add layout(#fa4.acc) : vector<16xf32>, !llvm.ptr<1>
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
  fa4.global_store %v, %out[%row, %col] rows(%limit) stride(%ld) layout(#fa4.blocked) : vector<4xf32>, !llvm.ptr<1>
  return
}

// A constant `columns`, a multiple of 8 (a head dim narrower than its
// tile): the blocks past it are not written, and nothing is tested.
// CHECK-LABEL: llvm.func @narrow
func.func @narrow(%o: vector<64xbf16>, %out: !llvm.ptr<1>, %row: index, %col: index, %limit: index, %ld: index) {
  %c80 = arith.constant 80 : index
  // CHECK-COUNT-10: llvm.intr.masked.store
  // CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [2, 3] : vector<64xbf16>
  // CHECK-COUNT-10: llvm.intr.masked.store
  // CHECK-NOT: llvm.intr.masked.store
  fa4.global_store %o, %out[%row, %col] rows(%limit) columns(%c80) stride(%ld) layout(#fa4.acc) : vector<64xbf16>, !llvm.ptr<1>
  return
}

// Any other count (a matrix's last block of columns): a pair at a time,
// under its row's test and its first value's (what is left of the row from
// the thread's first column, count - 2 (l % 4), beyond 8 j): the pair by one
// vector store where its second value lies inside too and its address is
// even (an odd row stride makes every other row's odd), else value by value.
// CHECK-LABEL: llvm.func @clipped
func.func @clipped(%o: vector<16xbf16>, %out: !llvm.ptr<1>, %row: index, %col: index, %limit: index, %ld: index, %n: index) {
  // CHECK: %[[LEFT:.*]] = llvm.sub %arg6, %{{.*}} : i64
  // CHECK: %[[ROW:.*]] = llvm.icmp "ult" %{{.*}}, %arg4 : i64
  // CHECK: %[[EVEN:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
  // CHECK: %[[C0:.*]] = llvm.icmp "sgt" %[[LEFT]], %{{.*}} : i64
  // CHECK: %[[IN:.*]] = llvm.and %[[ROW]], %[[C0]] : i1
  // CHECK: llvm.cond_br %[[IN]], ^[[FIRST:.*]], ^[[NEXT:bb[0-9]+]]
  // CHECK: ^[[FIRST]]:
  // CHECK: %[[ONE:.*]] = llvm.extractelement %arg0
  // CHECK: %[[WHOLE:.*]] = llvm.icmp "sgt" %[[LEFT]], %{{.*}} : i64
  // CHECK: %[[PAIR:.*]] = llvm.shufflevector %arg0, %arg0 [0, 1]
  // CHECK: %[[VEC:.*]] = llvm.and %[[WHOLE]], %[[EVEN]] : i1
  // CHECK: %[[SCALARS:.*]] = llvm.xor %[[VEC]]
  // CHECK: %[[TWO:.*]] = llvm.extractelement %arg0
  // CHECK: llvm.cond_br %[[VEC]]
  // CHECK: llvm.store %[[PAIR]], %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
  // CHECK: llvm.cond_br %[[SCALARS]]
  // CHECK: llvm.store %[[ONE]], %{{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
  // CHECK: llvm.cond_br %[[WHOLE]]
  // CHECK: llvm.store %[[TWO]], %{{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
  // CHECK: ^[[NEXT]]:
  // CHECK-COUNT-7: llvm.store %{{.*}} : vector<2xbf16>, !llvm.ptr<1>
  // CHECK-NOT: llvm.intr.masked.store
  fa4.global_store %o, %out[%row, %col] rows(%limit) columns(%n) stride(%ld) layout(#fa4.acc) : vector<16xbf16>, !llvm.ptr<1>
  return
}

// An atomic add with a column count: under the pair's first value's test,
// that value added, and the second under its own.
// CHECK-LABEL: llvm.func @add_clipped
func.func @add_clipped(%o: vector<8xf32>, %out: !llvm.ptr<1>, %row: index, %col: index, %limit: index, %ld: index, %n: index) {
  // CHECK: %[[IN:.*]] = llvm.and %{{.*}}, %{{.*}} : i1
  // CHECK: llvm.cond_br %[[IN]], ^[[FIRST:.*]], ^{{.*}}
  // CHECK: ^[[FIRST]]:
  // CHECK: %[[WHOLE:.*]] = llvm.icmp "sgt"
  // CHECK: llvm.atomicrmw fadd
  // CHECK-NEXT: llvm.cond_br %[[WHOLE]]
  // CHECK: llvm.atomicrmw fadd
  // CHECK-COUNT-6: llvm.atomicrmw fadd
  // CHECK-NOT: llvm.atomicrmw
  fa4.global_store %o, %out[%row, %col] rows(%limit) columns(%n) stride(%ld) add layout(#fa4.acc) : vector<8xf32>, !llvm.ptr<1>
  return
}

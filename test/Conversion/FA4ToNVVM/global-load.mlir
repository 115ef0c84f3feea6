// Vector loads: each thread reads its values of a #fa4.rows vector (rows
// 16w + l/4 and +8) or of a #fa4.cols one (columns 2l + e, then + 64), one
// load each, of the element at the base when the value lies at or past
// `count` (a valid address however short the vector) and then replaced by
// 0: no branch.
// RUN: fa4-opt %s --split-input-file --convert-fa4-to-nvvm --verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @rows
func.func @rows(%p: !llvm.ptr<1>, %start: index, %count: index) -> vector<2xf32> {
  // CHECK: nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[ROW:.*]] = llvm.add %{{.*}}, %{{.*}} : i64
  // CHECK: %[[I0:.*]] = llvm.add %[[ROW]], %{{.*}} : i64
  // CHECK-NEXT: %[[IN0:.*]] = llvm.icmp "slt" %[[I0]], %arg2 : i64
  // CHECK-NEXT: %[[AT0:.*]] = llvm.add %arg1, %[[I0]] : i64
  // CHECK: %[[OFF0:.*]] = llvm.select %[[IN0]], %[[AT0]], %{{.*}} : i1, i64
  // CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %arg0[%[[OFF0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK-NEXT: %[[V0:.*]] = llvm.load %[[P0]] : !llvm.ptr<1> -> f32
  // CHECK-NEXT: llvm.select %[[IN0]], %[[V0]], %{{.*}} : i1, f32
  // CHECK-COUNT-1: llvm.load
  // CHECK-NOT: llvm.load
  %v = fa4.global_load %p[%start] count(%count) layout(#fa4.rows) : !llvm.ptr<1> -> vector<2xf32>
  return %v : vector<2xf32>
}

// -----

// CHECK-LABEL: llvm.func @cols
func.func @cols(%p: !llvm.ptr<1>, %start: index, %count: index) -> vector<2xf32> {
  // The thread's index in its warpgroup, then its lane: column 2 l first.
  // CHECK: llvm.urem
  // CHECK: %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i64
  // CHECK: %[[FIRST:.*]] = llvm.mul %[[LANE]], %{{.*}} : i64
  // CHECK: %[[I0:.*]] = llvm.add %[[FIRST]], %{{.*}} : i64
  // CHECK-NEXT: llvm.icmp "slt" %[[I0]], %arg2 : i64
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[I1:.*]] = llvm.add %[[FIRST]], %[[ONE]] : i64
  // CHECK-NEXT: llvm.icmp "slt" %[[I1]], %arg2 : i64
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
  // CHECK-NOT: llvm.load
  %v = fa4.global_load %p[%start] count(%count) layout(#fa4.cols) : !llvm.ptr<1> -> vector<2xf32>
  return %v : vector<2xf32>
}

// -----

// A run of a 1-d tile (`blocked`): thread l of the warpgroup reads elements
// 4l to 4l + 3, each at or past `count` replaced by 0.
// CHECK-LABEL: llvm.func @run
func.func @run(%p: !llvm.ptr<1>, %start: index, %count: index) -> vector<4xf32> {
  // CHECK: %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i64
  // CHECK: %[[FIRST:.*]] = llvm.mul %[[LANE]], %{{.*}} : i64
  // CHECK: %[[I0:.*]] = llvm.add %[[FIRST]], %{{.*}} : i64
  // CHECK-NEXT: llvm.icmp "slt" %[[I0]], %arg2 : i64
  // CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
  // CHECK-NOT: llvm.load
  %v = fa4.global_load %p[%start] count(%count) layout(#fa4.blocked) : !llvm.ptr<1> -> vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// A tile of the #fa4.acc layout (a score bias): value (j, h, e) of the
// thread, at row 16w + l/4 + 8h and column 2(l%4) + 8j + e, read from
// start + row * stride + column where the row lies within `rows` and the
// column within `count`, else 0; each row tested once. A thread whose values all lie inside, its
// first pair at an address aligned to a pair, reads each pair (e = 0, 1)
// with one load; any other one load a value.
// CHECK-LABEL: llvm.func @tile
func.func @tile(%p: !llvm.ptr<1>, %start: index, %count: index, %stride: index, %rows: index) -> vector<8xbf16> {
  // CHECK: %[[ROW0:.*]] = llvm.icmp "slt" %{{.*}}, %arg4 : i64
  // CHECK: %[[ROW1:.*]] = llvm.icmp "slt" %{{.*}}, %arg4 : i64
  // CHECK: %[[FIRST:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
  // CHECK-NEXT: %[[ADDRESS:.*]] = llvm.ptrtoint %[[FIRST]] : !llvm.ptr<1> to i64
  // CHECK: %[[LOW:.*]] = llvm.and %[[ADDRESS]], %{{.*}} : i64
  // CHECK: %[[ALIGNED:.*]] = llvm.icmp "eq" %[[LOW]], %{{.*}} : i64
  // CHECK: %[[COLS:.*]] = llvm.icmp "slt" %{{.*}}, %arg2 : i64
  // CHECK-NEXT: %[[WHOLE:.*]] = llvm.and %[[ROW1]], %[[COLS]] : i1
  // CHECK-NEXT: %[[BY_PAIRS:.*]] = llvm.and %[[WHOLE]], %[[ALIGNED]] : i1
  // CHECK-NEXT: llvm.cond_br %[[BY_PAIRS]], ^[[PAIRS:.*]], ^[[VALUES:.*]]
  // CHECK: ^[[PAIRS]]:
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
  // CHECK-NOT: llvm.load
  // CHECK: llvm.br ^[[AFTER:.*]](%{{.*}} : vector<8xbf16>)
  // CHECK: ^[[VALUES]]:
  // CHECK-NOT: %arg4
  // CHECK: %[[C:.*]] = llvm.add %{{.*}}, %{{.*}} : i64
  // CHECK-NEXT: %[[COLIN:.*]] = llvm.icmp "slt" %[[C]], %arg2 : i64
  // CHECK-NEXT: %[[IN:.*]] = llvm.and %[[ROW0]], %[[COLIN]] : i1
  // CHECK-NEXT: %[[AT:.*]] = llvm.add %{{.*}}, %[[C]] : i64
  // CHECK: %[[OFF:.*]] = llvm.select %[[IN]], %[[AT]], %{{.*}} : i1, i64
  // CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> bf16
  // CHECK-NEXT: %[[S:.*]] = llvm.select %[[IN]], %[[V]], %{{.*}} : i1, bf16
  // CHECK: llvm.insertelement %[[S]], %{{.*}}[%{{.*}} : i32] : vector<8xbf16>
  // CHECK-COUNT-7: llvm.load %{{.*}} : !llvm.ptr<1> -> bf16
  // CHECK-NOT: llvm.load
  // CHECK: llvm.br ^[[AFTER]](%{{.*}} : vector<8xbf16>)
  // CHECK: ^[[AFTER]](%[[RESULT:.*]]: vector<8xbf16>):
  // CHECK-NEXT: llvm.return %[[RESULT]] : vector<8xbf16>
  %v = fa4.global_load %p[%start] count(%count) stride(%stride) rows(%rows) layout(#fa4.acc) : !llvm.ptr<1> -> vector<8xbf16>
  return %v : vector<8xbf16>
}

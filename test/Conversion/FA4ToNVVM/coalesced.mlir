// Loads and stores of #fa4.coalesced tiles and vectors (CoalescedFragment.h:
// lane l of warp w holds row w + l / 32 of a 1024-column tile, columns
// 256 k + 8 l ... + 7 of it). With `pieces` each piece of 8 is one 16-byte
// load (of the element at the base, discarded, when it lies past the rows
// or the count) or one 16-byte store under its test; without, a masked load
// or store a piece, each value under its own test. A row vector's values
// are stored by the row's first lane.
// RUN: fa4-opt %s --split-input-file --convert-fa4-to-nvvm --verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @load_pieces
func.func @load_pieces(%p: !llvm.ptr<1>, %start: index, %count: index, %stride: index, %rows: index) -> vector<32xbf16> {
  // CHECK: %[[ROWIN:.*]] = llvm.icmp "slt" %{{.*}}, %arg4 : i64
  // CHECK: %[[OFF:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
  // CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %arg0[%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
  // CHECK-NEXT: llvm.load %[[AT]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK-COUNT-3: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK-NOT: llvm.load
  %v = fa4.global_load %p[%start] count(%count) stride(%stride) rows(%rows) layout(#fa4.coalesced<cols = 1024>) pieces : !llvm.ptr<1> -> vector<32xbf16>
  return %v : vector<32xbf16>
}

// -----

// CHECK-LABEL: llvm.func @load_values
func.func @load_values(%p: !llvm.ptr<1>, %start: index, %count: index, %stride: index, %rows: index) -> vector<32xbf16> {
  // CHECK-COUNT-4: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 2 : i32} : (!llvm.ptr<1>, vector<8xi1>, vector<8xbf16>) -> vector<8xbf16>
  // CHECK-NOT: llvm.load
  %v = fa4.global_load %p[%start] count(%count) stride(%stride) rows(%rows) layout(#fa4.coalesced<cols = 1024>) : !llvm.ptr<1> -> vector<32xbf16>
  return %v : vector<32xbf16>
}

// -----

// A column vector: the thread's four pieces of 1024 columns, whole rows.
// CHECK-LABEL: llvm.func @load_columns
func.func @load_columns(%p: !llvm.ptr<1>, %start: index, %count: index) -> vector<32xf32> {
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf32>
  // CHECK-NOT: llvm.load
  %v = fa4.global_load %p[%start] count(%count) layout(#fa4.coalesced<cols = 1024, slice = 0>) pieces : !llvm.ptr<1> -> vector<32xf32>
  return %v : vector<32xf32>
}

// -----

// CHECK-LABEL: llvm.func @store_pieces
func.func @store_pieces(%v: vector<32xbf16>, %p: !llvm.ptr<1>, %i: index, %limit: index, %stride: index, %cols: index) {
  // CHECK: llvm.cond_br
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
  // CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
  fa4.global_store %v, %p[%i, %i] rows(%limit) columns(%cols) stride(%stride) layout(#fa4.coalesced<cols = 1024>) pieces : vector<32xbf16>, !llvm.ptr<1>
  return
}

// -----

// CHECK-LABEL: llvm.func @store_values
func.func @store_values(%v: vector<32xbf16>, %p: !llvm.ptr<1>, %i: index, %limit: index, %stride: index, %cols: index) {
  // CHECK-COUNT-4: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 2 : i32} : vector<8xbf16>, vector<8xi1> into !llvm.ptr<1>
  fa4.global_store %v, %p[%i, %i] rows(%limit) columns(%cols) stride(%stride) layout(#fa4.coalesced<cols = 1024>) : vector<32xbf16>, !llvm.ptr<1>
  return
}

// -----

// A row vector of a 64-column tile (8 lanes a row, 16 rows a footprint):
// two values, rows r and r + 16, by lanes 0, 8, 16 and 24.
// CHECK-LABEL: llvm.func @store_rows
func.func @store_rows(%v: vector<2xf32>, %p: !llvm.ptr<1>, %i: index, %limit: index, %stride: index) {
  // CHECK: %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i64
  // CHECK: %[[INROW:.*]] = llvm.urem %[[LANE]], %{{.*}} : i64
  // CHECK: llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
  // CHECK-COUNT-2: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : vector<1xf32>, vector<1xi1> into !llvm.ptr<1>
  fa4.global_store %v, %p[%i, %i] rows(%limit) stride(%stride) layout(#fa4.coalesced<cols = 64, slice = 1>) : vector<2xf32>, !llvm.ptr<1>
  return
}

// -----

// The warps of a row combined: the row's first lane stores its warp's
// result, the warpgroup meets at barrier 7 + its index (128 threads), each
// thread adds its row group's four results, and the warpgroup meets again.
// CHECK-LABEL: llvm.func @combine
func.func @combine(%p: vector<1xf32>, %wg: index) -> vector<1xf32> {
  %s = fa4.shared_buffer {offset = 0 : i64} : memref<8x1xf32, 3>
  // CHECK: llvm.cond_br
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: %[[ID:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
  // CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %{{.*}}
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK: llvm.fadd
  // CHECK: nvvm.barrier id
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 4096, warps = 4> axis 1 : vector<1xf32>, memref<8x1xf32, 3>
  return %r : vector<1xf32>
}

// -----

// The row groups' column sums combined: the first row's lanes of each row
// group store their 32 values (columns 8 l + 256 k ... + 7 of a 1024-column
// tile), four at a time, to the group's row of the scratch; the two
// warpgroups' 256 threads meet at barrier 10; each thread adds the eight
// groups' values of its columns, 16 bytes at a time, and they meet again.
// CHECK-LABEL: llvm.func @combine_columns
func.func @combine_columns(%p: vector<32xf32>, %wg: index) -> vector<32xf32> {
  %s = fa4.shared_buffer {offset = 0 : i64} : memref<8x1024xf32, 3>
  // CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.cond_br
  // CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  // CHECK-DAG: %[[ID:.*]] = llvm.mlir.constant(10 : i32) : i32
  // CHECK-DAG: %[[THREADS:.*]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[THREADS]]
  // CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  // CHECK-COUNT-7: llvm.fadd %{{.*}}, %{{.*}} : vector<4xf32>
  // CHECK: nvvm.barrier id
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 1024> axis 0 : vector<32xf32>, memref<8x1024xf32, 3>
  return %r : vector<32xf32>
}

// -----

// A column vector is stored by the lanes that hold the first row of the
// first warpgroup (rows(1), its first row at the warpgroup's index), its
// pieces tested against the columns left.
// CHECK-LABEL: llvm.func @store_column_vector
func.func @store_column_vector(%v: vector<32xf32>, %p: !llvm.ptr<1>, %wg: index, %col: index, %left: index) {
  %one = arith.constant 1 : index
  %zero = arith.constant 0 : index
  // CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
  // CHECK-COUNT-4: llvm.cond_br
  fa4.global_store %v, %p[%wg, %col] rows(%one) columns(%left) stride(%zero) layout(#fa4.coalesced<cols = 1024, slice = 0>) pieces : vector<32xf32>, !llvm.ptr<1>
  return
}

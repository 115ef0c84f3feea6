// fa4-distribute-register-tiles on #fa4.coalesced tiles (CoalescedFragment.h):
// a 4 x 1024 tile is 32 values a thread (its row, four pieces of 8), a 32 x
// 64 one 16 (two rows of one piece: 8 lanes a row, 4 rows a warp); a row
// reduction is a tree over the thread's values of each of its rows, then
// butterfly shuffles among the row's lanes (1 to 16, or 1 to 4); broadcasts
// pick each value's row or column; iotas add the value's offset to the
// thread's first row or column. Column reductions are a tree over the
// thread's rows, shuffles among the lanes of a column and a combine of the
// row groups through shared memory.
// RUN: fa4-opt %s --split-input-file --fa4-distribute-register-tiles --verify-diagnostics | FileCheck %s

!Tile = tensor<4x1024xf32, #fa4.coalesced<cols = 1024>>
!Row = tensor<4xf32, #fa4.coalesced<cols = 1024, slice = 1>>
!Col = tensor<1024xf32, #fa4.coalesced<cols = 1024, slice = 0>>

// CHECK-LABEL: func.func @norm
// CHECK-SAME: (%[[X:.*]]: vector<32xf32>, %[[W:.*]]: vector<32xf32>)
func.func @norm(%x: !Tile, %w: !Col) -> !Tile {
  // CHECK-COUNT-32: vector.extract %[[X]]
  // CHECK-COUNT-31: arith.addf
  // CHECK-COUNT-5: nvvm.shfl.sync bfly
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: %[[S:.*]] = vector.from_elements %{{.*}} : vector<1xf32>
  %s = tile.reduce sum %x axis 1 : !Tile -> !Row
  // CHECK: vector.shuffle %[[S]], %[[S]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<1xf32>, vector<1xf32>
  %sb = tile.broadcast %s axis 1 : !Row -> !Tile
  // CHECK: vector.shuffle %[[W]], %[[W]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<32xf32>, vector<32xf32>
  %wb = tile.broadcast %w axis 0 : !Col -> !Tile
  %t = arith.mulf %x, %sb : !Tile
  %y = arith.mulf %t, %wb : !Tile
  return %y : !Tile
}

// -----

!Narrow = tensor<32x64xf32, #fa4.coalesced<cols = 64>>
!NarrowRow = tensor<32xf32, #fa4.coalesced<cols = 64, slice = 1>>
!Index = tensor<32x64xi32, #fa4.coalesced<cols = 64>>

// CHECK-LABEL: func.func @narrow
func.func @narrow(%x: !Narrow) -> (!NarrowRow, !Index, !Index) {
  // Two rows, each 8 values and lanes 1, 2, 4.
  // CHECK-COUNT-6: nvvm.shfl.sync bfly
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
  %m = tile.reduce max %x axis 1 : !Narrow -> !NarrowRow
  // Rows: the thread's first (4 w + l / 8) and 16 more for its second.
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 16, 16, 16]> : vector<16xi32>
  %r = tile.iota axis 0 : !Index
  // Columns: the thread's first (8 (l % 8)) and its piece.
  // CHECK: arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]> : vector<16xi32>
  %c = tile.iota axis 1 : !Index
  return %m, %r, %c : !NarrowRow, !Index, !Index
}

// -----

// Column sums: a thread adds its rows' values of each of its columns (a
// 32 x 64 tile: two rows of one piece, 8 values a column), then the lanes
// of its warp that hold the same columns (8 lanes a row: offsets 8 and 16),
// then the row groups, one a warp in each of the two consumer warpgroups,
// combine their sums through a scratch row each (fa4.combine_warps axis 0).
!Narrow = tensor<32x64xf32, #fa4.coalesced<cols = 64>>
!NarrowCol = tensor<64xf32, #fa4.coalesced<cols = 64, slice = 0>>

// CHECK-LABEL: func.func @column_sums
// CHECK: %[[SCRATCH:.*]] = fa4.shared_buffer : memref<8x64xf32, 3>
// CHECK: %[[A0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<16xf32>
// CHECK: %[[A1:.*]] = vector.extract %{{.*}}[8] : f32 from vector<16xf32>
// CHECK: %[[A:.*]] = arith.addf %[[A0]], %[[A1]]
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %[[A]], %[[EIGHT]]
// CHECK: arith.constant 16 : i32
// CHECK: nvvm.shfl.sync bfly
// CHECK-COUNT-14: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[PART:.*]] = vector.from_elements %{{.*}} : vector<8xf32>
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: fa4.combine_warps %[[PART]], %[[SCRATCH]][%[[WG]]] #fa4.coalesced<cols = 64> axis 0 : vector<8xf32>, memref<8x64xf32, 3>
func.func @column_sums(%x: !Narrow) -> !NarrowCol attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 4, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %s = tile.reduce sum %x axis 0 : !Narrow -> !NarrowCol
  return %s : !NarrowCol
}

// -----

// A column maximum over one warpgroup whose four warps share each row: the
// thread's one row holds a column's only value, no lanes share a column,
// and the warpgroup's one row group needs no scratch.
!Long = tensor<1x4096xf32, #fa4.coalesced<cols = 4096, warps = 4>>
!LongCol = tensor<4096xf32, #fa4.coalesced<cols = 4096, warps = 4, slice = 0>>

// CHECK-LABEL: func.func @column_max_alone
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: fa4.combine_warps
// CHECK: vector.from_elements %{{.*}} : vector<32xf32>
func.func @column_max_alone(%x: !Long) -> !LongCol {
  %s = tile.reduce max %x axis 0 : !Long -> !LongCol
  return %s : !LongCol
}

// -----

// A column vector reaches the accumulator's threads by 32-bit shuffles: one
// of 64-bit values is refused.
func.func @wide_columns(%v: tensor<64xi64, #fa4.cols>) -> tensor<64x64xi64, #fa4.acc> {
  // expected-error @below {{'tile.broadcast' op broadcasts a column vector of 'i64' along the rows: fa4 moves a column's value between lanes by 32-bit shuffles (elements of up to 32 bits)}}
  // expected-error @below {{failed to legalize operation 'tile.broadcast'}}
  %b = tile.broadcast %v axis 0 : tensor<64xi64, #fa4.cols> -> tensor<64x64xi64, #fa4.acc>
  return %b : tensor<64x64xi64, #fa4.acc>
}

// -----

// A column sum of a tile that a dot writes is not there yet.
!Acc = tensor<64x64xf32, #fa4.acc>

func.func @acc_column_sums(%x: !Acc) -> tensor<64xf32, #fa4.cols> {
  // expected-error @below {{'tile.reduce' op reduces 'tensor<64x64xf32, #fa4.acc>' along axis 0: fa4 reduces the rows of a tile that a dot writes (axis 1), not yet its columns}}
  // expected-error @below {{failed to legalize operation 'tile.reduce'}}
  %s = tile.reduce sum %x axis 0 : !Acc -> tensor<64xf32, #fa4.cols>
  return %s : tensor<64xf32, #fa4.cols>
}

// -----

// A row over four warps: each warp's lanes reduce their share, then the
// warps combine their results through a scratch of shared memory
// (fa4.combine_warps, lowered with the warpgroup's reduction barrier).
!Long = tensor<1x4096xf32, #fa4.coalesced<cols = 4096, warps = 4>>
!LongRow = tensor<1xf32, #fa4.coalesced<cols = 4096, warps = 4, slice = 1>>

// CHECK-LABEL: func.func @long_row
// CHECK: %[[SCRATCH:.*]] = fa4.shared_buffer : memref<8x1xf32, 3>
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: %[[PART:.*]] = vector.from_elements %{{.*}} : vector<1xf32>
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: fa4.combine_warps %[[PART]], %[[SCRATCH]][%[[WG]]] #fa4.coalesced<cols = 4096, warps = 4> axis 1 : vector<1xf32>, memref<8x1xf32, 3>
func.func @long_row(%x: !Long) -> !LongRow attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 4, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %s = tile.reduce sum %x axis 1 : !Long -> !LongRow
  return %s : !LongRow
}

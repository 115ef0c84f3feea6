// fa4-distribute-register-tiles on #fa4.coalesced tiles (CoalescedFragment.h):
// a 4 x 1024 tile is 32 values a thread (its row, four pieces of 8), a 32 x
// 64 one 16 (two rows of one piece: 8 lanes a row, 4 rows a warp); a row
// reduction is a tree over the thread's values of each of its rows, then
// butterfly shuffles among the row's lanes (1 to 16, or 1 to 4); broadcasts
// pick each value's row or column; iotas add the value's offset to the
// thread's first row or column.
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

!Tile = tensor<4x1024xf32, #fa4.coalesced<cols = 1024>>
!Col = tensor<1024xf32, #fa4.coalesced<cols = 1024, slice = 0>>

func.func @column_sums(%x: !Tile) -> !Col {
  // expected-error @below {{'tile.reduce' op reduces 'tensor<4x1024xf32, #fa4.coalesced<cols = 1024>>' along axis 0: fa4 reduces the rows of register tiles (axis 1), not yet their columns}}
  // expected-error @below {{failed to legalize operation 'tile.reduce'}}
  %s = tile.reduce sum %x axis 0 : !Tile -> !Col
  return %s : !Col
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
// CHECK: fa4.combine_warps %[[PART]], %[[SCRATCH]][%[[WG]]] warps(4) lanes(32) warp_rows(1) : vector<1xf32>, memref<8x1xf32, 3>
func.func @long_row(%x: !Long) -> !LongRow attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 4, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %s = tile.reduce sum %x axis 1 : !Long -> !LongRow
  return %s : !LongRow
}

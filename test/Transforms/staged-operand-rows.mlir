// A dot that reads a transposed register tile whose product has the CTA's
// rows (the attention backward's dQ over 128 queries at head dim 64):
// fa4-assign-layouts stages the tile as for a split by columns
// (staged-operand.mlir) but splits the product by rows, as any: each
// warpgroup's MMA reads its rows of the transpose (its 64 columns of the
// staged tile) and all of B, and its TMA store adds its own rows.
// fa4-pipeline-tma gives the MMA the warpgroup's column block of the
// staged buffer, mn-major.
// RUN: fa4-opt %s --fa4-attach-config=head-dim=64 --fa4-assign-layouts | FileCheck %s
// RUN: fa4-opt %s --fa4-attach-config=head-dim=64 --fa4-tile-to-fa4 | FileCheck %s --check-prefix=FA4

// CHECK-LABEL: func.func @by_rows
// CHECK: %[[BUF:.*]] = fa4.shared_buffer : memref<128x128xbf16, 3>
// CHECK: fa4.shared_store %{{.*}}, %[[BUF]][%{{.*}}] : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>
// CHECK: %[[T:.*]] = fa4.shared_tile %[[BUF]] : memref<128x128xbf16, 3> -> tensor<128x128xbf16>
// CHECK-NEXT: %[[TT:.*]] = tile.trans %[[T]] : tensor<128x128xbf16> -> tensor<128x128xbf16>
// CHECK-NOT: fa4.warpgroup_cols
// CHECK: %[[MINE:.*]] = fa4.warpgroup_rows %[[TT]] : tensor<128x128xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: tile.dot %[[MINE]], %{{.*}}, %{{.*}} : tensor<64x128xbf16>, tensor<128x64xbf16>, tensor<64x64xf32, #fa4.acc>
// CHECK: fa4.tma_store %{{.*}} add : tensor<64x64xf32, #fa4.acc>, memref<128x64xf32, 3>
// FA4-LABEL: func.func @by_rows
// FA4: %[[WG:.*]] = fa4.warpgroup_id
// FA4: %[[FIRST:.*]] = arith.muli %[[WG]], %{{.*}} : index
// FA4: fa4.shared_store
// FA4: %[[AW:.*]] = fa4.subtile %{{.*}}[%{{.*}}, %[[FIRST]]] : memref<128x128xbf16, 3> -> memref<128x64xbf16, 3>
// FA4-NEXT: fa4.mma.async %[[AW]], %{{.*}} b_mn_major a_mn_major : memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x64xf32, #fa4.acc>
func.func @by_rows(%k: !tile.desc<128x64xbf16>, %q: !tile.desc<128x64xbf16>, %dq: !tile.desc<128x64xf32>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x64xbf16> -> tensor<128x64xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<128x64xbf16> -> tensor<128x64xbf16>
  %qtt = tile.trans %qt : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  %sb = arith.truncf %s : tensor<128x128xf32> to tensor<128x128xbf16>
  %st = tile.trans %sb : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<128x64xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  tile.store %p, %dq[%c0, %c0] add : tensor<128x64xf32>, !tile.desc<128x64xf32>
  return
}

// A dot that reads a transposed register tile (the attention backward's
// dQ = dS · K, with dSᵀ held by key rows): fa4-assign-layouts stages the
// tile in a shared-memory buffer of the CTA's rows (each warpgroup writes
// its rows between two named barriers of all the consumer threads), makes
// the dot read it transposed from there (`fa4.shared_tile`) against each
// warpgroup's share of B's columns (`fa4.warpgroup_cols`), and splits the
// product by columns: each warpgroup holds all 64 rows of its 64 columns,
// which its TMA store adds at its first column. fa4-pipeline-tma makes the
// MMA read both buffers mn-major. Uses of such a tile other than
// elementwise math and stores, and tiles of other shapes, are refused (a
// product of the CTA's rows splits by rows: staged-operand-rows.mlir).
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --verify-diagnostics | FileCheck %s
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-tile-to-fa4 --verify-diagnostics | FileCheck %s --check-prefix=FA4

// CHECK-LABEL: func.func @staged
// CHECK: %[[BUF:.*]] = fa4.shared_buffer : memref<128x64xbf16, 3>
// CHECK: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: fa4.shared_store %{{.*}}, %[[BUF]][%{{.*}}] : tensor<64x64xbf16, #fa4.acc>, memref<128x64xbf16, 3>
// CHECK-NEXT: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: %[[T:.*]] = fa4.shared_tile %[[BUF]] : memref<128x64xbf16, 3> -> tensor<128x64xbf16>
// CHECK-NEXT: %[[TT:.*]] = tile.trans %[[T]] : tensor<128x64xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[KC:.*]] = fa4.warpgroup_cols %{{.*}} : tensor<128x128xbf16> -> tensor<128x64xbf16>
// CHECK-NEXT: %[[DQ:.*]] = tile.dot %[[TT]], %[[KC]], %{{.*}} : tensor<64x128xbf16>, tensor<128x64xbf16>, tensor<64x64xf32, #fa4.acc>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[DQ]], %{{.*}} : tensor<64x64xf32, #fa4.acc>
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: %[[COL:.*]] = arith.muli %[[WG]], %c64
// CHECK: %[[C:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK: fa4.tma_store %[[SCALED]], %{{.*}}[%{{.*}}], %arg2[%{{.*}}, %[[C]]] barrier(%{{.*}}) add : tensor<64x64xf32, #fa4.acc>, memref<128x64xf32, 3>, !fa4.tensor_map<f32, box = [64, 32], swizzle = 128>
// FA4-LABEL: func.func @staged
// FA4: fa4.shared_store
// FA4: %[[KC:.*]] = fa4.subtile %{{.*}}[%c0, %{{.*}}] : memref<128x128xbf16, 3> -> memref<128x64xbf16, 3>
// FA4-NEXT: fa4.mma.async %{{.*}}, %[[KC]] b_mn_major a_mn_major : memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x64xf32, #fa4.acc>
func.func @staged(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>, %dq: !tile.desc<64x128xf32>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  %two = arith.constant dense<2.0> : tensor<64x128xf32>
  %p2 = arith.mulf %p, %two : tensor<64x128xf32>
  tile.store %p2, %dq[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  return
}

// -----

func.func @reduced(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  // expected-error @below {{'tile.reduce' op uses a tile split by columns over the consumer warpgroups (the product of a dot that reads a transposed register tile): fa4 feeds such a tile to elementwise math, as the accumulator of its dot, and to stores}}
  %r = tile.reduce sum %p axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  return
}

// -----

func.func @wide(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<96x128xbf16>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<96x128xbf16> -> tensor<96x128xbf16>
  %qtt = tile.trans %qt : tensor<96x128xbf16> -> tensor<128x96xbf16>
  %z = arith.constant dense<0.0> : tensor<128x96xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x96xbf16>, tensor<128x96xf32>
  %sb = arith.truncf %s : tensor<128x96xf32> to tensor<128x96xbf16>
  %st = tile.trans %sb : tensor<128x96xbf16> -> tensor<96x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<96x128xf32>
  // expected-error @below {{'tile.dot' op reads the transpose of the register tile 'tensor<128x96xbf16>': fa4 stages a register tile for a transposed MMA operand through shared memory when it has the plan's 128 CTA rows and 64 columns (one warpgroup's MMA, the product split by columns) or 128 (the product's rows the CTA's, split by rows) of a 16-bit type}}
  %p = tile.dot %st, %kt, %z2 : tensor<96x128xbf16>, tensor<128x128xbf16>, tensor<96x128xf32>
  return
}

// -----

// Two dots that read one register tile transposed share its staging: one
// buffer, one pair of barriers.
// CHECK-LABEL: func.func @two_dots
// CHECK: fa4.shared_buffer : memref<128x64xbf16, 3>
// CHECK-NOT: fa4.shared_buffer : memref<128x64xbf16, 3>
// CHECK: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NEXT: fa4.shared_store
// CHECK-NEXT: fa4.named_barrier.sync id(11) threads(256)
// CHECK-NOT: fa4.named_barrier.sync id(11)
// CHECK: %[[T:.*]] = fa4.shared_tile
// CHECK-NEXT: %[[TT:.*]] = tile.trans %[[T]]
// CHECK: tile.dot %[[TT]]
// CHECK-NOT: fa4.named_barrier.sync id(11)
// CHECK: tile.dot %[[TT]]
func.func @two_dots(%k: !tile.desc<128x128xbf16>, %q: !tile.desc<64x128xbf16>, %dq: !tile.desc<64x128xf32>, %dq2: !tile.desc<64x128xf32>) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %kt = tile.load %k[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  %qtt = tile.trans %qt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %kt, %qtt, %z : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %sb = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %st = tile.trans %sb : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %p = tile.dot %st, %kt, %z2 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  %p2 = tile.dot %st, %kt, %p : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
  tile.store %p, %dq[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  tile.store %p2, %dq2[%c0, %c0] add : tensor<64x128xf32>, !tile.desc<64x128xf32>
  return
}

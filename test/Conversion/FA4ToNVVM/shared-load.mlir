// A warpgroup's rows of a shared-memory tile into registers: four 8 x 8
// matrices at a time with ldmatrix, from the addresses a TMA store's
// stmatrix writes (lane l of warp w: row first + 16 w + 8 ((l / 8) % 2) +
// l % 8, its 16-byte chunk XORed with (l / 16 ^ row) % 8); register i of
// the four lands at values 2i, 2i + 1 of the 8-column block pair, as the
// accumulator layout has them. 128 columns: 8 ldmatrix, the second column
// block of 64 one 128-row block (16384 B) further in. 32-bit elements
// (an f32 accumulator) are read with plain 8-byte loads.
// RUN: fa4-opt %s --split-input-file --convert-fa4-to-nvvm --verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @read
func.func @read(%first: index) -> vector<64xbf16> {
  // CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @fa4_dynamic_smem : !llvm.ptr<3>
  // CHECK: %[[BUF:.*]] = llvm.getelementptr %[[SMEM]][1024]
  %buffer = fa4.shared_buffer {offset = 1024 : i64} : memref<128x128xbf16, 3>
  // CHECK: %[[FIRST:.*]] = llvm.trunc %arg0 : i64 to i32
  // CHECK: %[[ROW:.*]] = llvm.add %[[FIRST]], %{{.*}} : i32
  // CHECK: %[[ODD:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i32
  // CHECK-NEXT: %[[X:.*]] = llvm.xor %[[ODD]], %[[ROW]] : i32
  // CHECK: %[[ROWBYTES:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
  // CHECK-NEXT: %[[ROWBASE:.*]] = llvm.getelementptr %[[BUF]][%[[ROWBYTES]]]
  // CHECK: %[[AT0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[M0:.*]] = nvvm.ldmatrix %[[AT0]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[M0]][0]
  // CHECK-NEXT: %[[P0:.*]] = llvm.bitcast %[[R0]] : i32 to vector<2xbf16>
  // CHECK-COUNT-3: nvvm.ldmatrix
  // CHECK: llvm.getelementptr %[[ROWBASE]][16384]
  // CHECK-COUNT-4: nvvm.ldmatrix
  // CHECK-NOT: nvvm.ldmatrix
  %r = fa4.shared_load %buffer[%first] : memref<128x128xbf16, 3> -> vector<64xbf16>
  return %r : vector<64xbf16>
}

// -----

// 32-bit elements: a thread's pair of each 8-column block and row half with
// one 8-byte load, at chunk 2 (j % 4) + (l % 4) / 2 XORed with the row % 8,
// 8 (l % 2) bytes in; the second 32-column span one 128-row block (16384 B)
// further in. 64 columns: 2 halves x 8 blocks.
// CHECK-LABEL: llvm.func @read_f32
func.func @read_f32(%first: index) -> vector<32xf32> {
  %buffer = fa4.shared_buffer {offset = 0 : i64} : memref<128x64xf32, 3>
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: llvm.mlir.poison : vector<32xf32>
  // CHECK: %[[ROW:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
  // CHECK: %[[ROWBYTES:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
  // CHECK-NEXT: %[[ROWBASE:.*]] = llvm.getelementptr %{{.*}}[%[[ROWBYTES]]]
  // CHECK: %[[SWIZZLE:.*]] = llvm.urem %[[ROW]], %{{.*}} : i32
  // CHECK: llvm.xor %{{.*}}, %[[SWIZZLE]] : i32
  // CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
  // CHECK-COUNT-3: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
  // CHECK: llvm.getelementptr %[[ROWBASE]][16384]
  // CHECK-COUNT-12: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
  // CHECK-NOT: llvm.load
  %r = fa4.shared_load %buffer[%first] : memref<128x64xf32, 3> -> vector<32xf32>
  return %r : vector<32xf32>
}

// -----

func.func @share(%first: index) -> vector<32xbf16> {
  %buffer = fa4.shared_buffer {offset = 0 : i64} : memref<128x128xbf16, 3>
  // expected-error @below {{a thread holds 64 values of 'bf16' of a warpgroup's 64 x 128 share, not 'vector<32xbf16>'}}
  %r = fa4.shared_load %buffer[%first] : memref<128x128xbf16, 3> -> vector<32xbf16>
  return %r : vector<32xbf16>
}

// -----

func.func @narrow(%first: index) -> vector<16xbf16> {
  %buffer = fa4.shared_buffer {offset = 0 : i64} : memref<128x32xbf16, 3>
  // expected-error @below {{reads 2-d tiles of 16- or 32-bit elements, a multiple of 64 rows by whole 128-byte swizzle spans, not 'memref<128x32xbf16, 3>'}}
  %r = fa4.shared_load %buffer[%first] : memref<128x32xbf16, 3> -> vector<16xbf16>
  return %r : vector<16xbf16>
}

// -----

// The mirror: a warpgroup's 16-bit tile into its rows of a shared-memory
// tile with stmatrix (four 8 x 8 matrices each, from the addresses ldmatrix
// reads), then the fence that lets an MMA read it after a barrier.
// CHECK-LABEL: llvm.func @write
func.func @write(%t: vector<32xbf16>, %first: index) {
  %buffer = fa4.shared_buffer {offset = 1024 : i64} : memref<128x64xbf16, 3>
  // CHECK-COUNT-4: nvvm.stmatrix
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: nvvm.fence.proxy
  fa4.shared_store %t, %buffer[%first] : vector<32xbf16>, memref<128x64xbf16, 3>
  return
}

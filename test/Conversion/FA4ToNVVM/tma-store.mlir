// The TMA-store epilogue: the previous store's read is waited for, the
// warpgroup meets at its barrier (128 threads), stmatrix writes the
// accumulator fragment into the swizzled staging tile four 8 x 8 matrices at
// a time, a proxy fence and the barrier again, then the warpgroup's first
// thread copies it out box by box (64 columns each) and commits the group.
// The wait at the end waits for the whole group; a staging buffer is an
// offset into the dynamic shared memory.
// RUN: fa4-opt %s --split-input-file --convert-fa4-to-nvvm --verify-diagnostics | FileCheck %s

!Map = !fa4.tensor_map<bf16, box = [1, 1, 64, 64], swizzle = 128>

// CHECK-LABEL: llvm.func @store
func.func @store(%o: vector<64xbf16>, %map: !Map, %b: index, %h: index, %row: index, %col: index, %first: index, %id: index) {
  // CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @fa4_dynamic_smem : !llvm.ptr<3>
  // CHECK: %[[BUF:.*]] = llvm.getelementptr %[[SMEM]][199680]
  %buffer = fa4.shared_buffer {offset = 199680 : i64} : memref<128x128xbf16, 3>
  // Lane l of warp w: row first + 16 w + 8 ((l / 8) % 2) + l % 8, its
  // 16-byte chunk XORed with (l / 16 ^ row) % 8.
  // CHECK: %[[FIRST:.*]] = llvm.trunc %arg6 : i64 to i32
  // CHECK: %[[ROW:.*]] = llvm.add %[[FIRST]], %{{.*}} : i32
  // CHECK: %[[ODD:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i32
  // CHECK-NEXT: %[[X:.*]] = llvm.xor %[[ODD]], %[[ROW]] : i32
  // CHECK: %[[XBYTES:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
  // CHECK: %[[ROWBYTES:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
  // CHECK-NEXT: %[[ROWBASE:.*]] = llvm.getelementptr %[[BUF]][%[[ROWBYTES]]]
  // CHECK: %[[ID:.*]] = llvm.trunc %arg7 : i64 to i32
  // CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(128 : i32)
  // CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
  // Matrices (j, h) = (0, 0), (0, 1), (1, 0), (1, 1): values 0-1, 2-3, 4-5, 6-7.
  // CHECK: llvm.shufflevector %{{.*}} [0, 1] : vector<64xbf16>
  // CHECK: llvm.shufflevector %{{.*}} [2, 3] : vector<64xbf16>
  // CHECK: llvm.shufflevector %{{.*}} [4, 5] : vector<64xbf16>
  // CHECK: llvm.shufflevector %{{.*}} [6, 7] : vector<64xbf16>
  // CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
  // CHECK-COUNT-6: nvvm.stmatrix
  // The last four: column blocks 14 and 15, in the second 64-column block
  // (128 rows x 128 B on), chunk 6 of its rows.
  // CHECK: %[[C96:.*]] = llvm.mlir.constant(96 : i32)
  // CHECK-NEXT: %[[CHUNK:.*]] = llvm.xor %[[XBYTES]], %[[C96]] : i32
  // CHECK-NEXT: %[[BLOCK:.*]] = llvm.getelementptr %[[ROWBASE]][16384]
  // CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[BLOCK]][%[[CHUNK]]]
  // CHECK-NEXT: nvvm.stmatrix %[[AT]],
  // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(128 : i32)
  // CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[N2]]
  // CHECK: llvm.cond_br %{{.*}}, ^[[ISSUE:.*]], ^[[AFTER:.*]]
  // CHECK: ^[[ISSUE]]:
  // Coordinates innermost first; the second box 64 columns on, 64 rows x
  // 128 B x 2 blocks further in the buffer.
  // CHECK: %[[C:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: %[[R:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: %[[H:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: %[[B:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[C]], %[[R]], %[[H]], %[[B]]]
  // CHECK: %[[C64:.*]] = llvm.add %[[C]], %{{.*}} : i32
  // CHECK: %[[SECOND:.*]] = llvm.getelementptr %{{.*}}[16384]
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %[[SECOND]], box[%[[C64]], %[[R]], %[[H]], %[[B]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
  // CHECK-NEXT: llvm.br ^[[AFTER]]
  fa4.tma_store %o, %buffer[%first], %map[%b, %h, %row, %col] barrier(%id) : vector<64xbf16>, memref<128x128xbf16, 3>, !Map
  // CHECK: ^[[AFTER]]:
  // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
  fa4.tma_store_wait
  // With `read`, until the stores have read their source.
  // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
  fa4.tma_store_wait read
  return
}

// -----

!Map = !fa4.tensor_map<bf16, box = [1, 1, 64, 64], swizzle = 128>

func.func @odd_share(%o: vector<6xbf16>, %map: !Map, %i: index) {
  %buffer = fa4.shared_buffer {offset = 0 : i64} : memref<128x128xbf16, 3>
  // expected-error @below {{stores 'vector<6xbf16>' a thread: not the share of a 64 x N tile with N a multiple of 64}}
  // expected-error @below {{failed to legalize operation 'fa4.tma_store' that was explicitly marked illegal}}
  fa4.tma_store %o, %buffer[%i], %map[%i, %i, %i, %i] barrier(%i) : vector<6xbf16>, memref<128x128xbf16, 3>, !Map
  return
}

// -----

// An f32 tile added into global memory (`add`, the attention backward's
// dQ): each thread writes its pairs with 8-byte shared stores into the
// swizzled staging tile, fences, and the first thread adds each box of 32
// columns (one 128-byte span) with cp.reduce.async.bulk.tensor.
!F = !fa4.tensor_map<f32, box = [1, 1, 64, 32], swizzle = 128>
// CHECK-LABEL: llvm.func @add
func.func @add(%dq: vector<32xf32>, %map: !F, %i: index, %first: index, %id: index) {
  %buffer = fa4.shared_buffer {offset = 0 : i64} : memref<128x64xf32, 3>
  // CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK: nvvm.barrier
  // CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
  // CHECK: nvvm.fence.proxy
  // CHECK: nvvm.barrier
  // CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>}
  // CHECK: nvvm.cp.async.bulk.commit.group
  fa4.tma_store %dq, %buffer[%first], %map[%i, %i, %i, %i] barrier(%id) add : vector<32xf32>, memref<128x64xf32, 3>, !F
  return
}

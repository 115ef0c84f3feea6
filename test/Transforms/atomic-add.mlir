// Atomic adds (`tile.store ... add`, the DSL's atomicAdd): through a
// tile.make_desc of a kernel pointer, fa4-assign-layouts makes each
// warpgroup's share a `fa4.global_store ... add` with the tensor's edge as
// the row limit; the lowering adds each f32 value with a relaxed atomic
// (atom.global.add.f32, its result unused), a row half's adds under its row test. Through
// a descriptor argument (a tensor map) f32 values are added by TMA
// (`fa4.tma_store ... add`, boxes of 32 f32 columns).
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --verify-diagnostics | FileCheck %s
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-tile-to-fa4 --fa4-to-llvm --verify-diagnostics | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @add
// CHECK: fa4.global_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows(%arg2) stride(%c128) add layout(#fa4.acc) : tensor<64x128xf32, #fa4.acc>, !llvm.ptr<1>
// LLVM-LABEL: llvm.func @add
// A thread's 64 values, 64 adds (the blocks: global-store.mlir).
// LLVM-COUNT-64: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// LLVM-NOT: llvm.atomicrmw
func.func @add(%x: !tile.desc<128x128xbf16>, %out: !tile.ptr<f32> {fa4.name = "out"}, %rows: index) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.program_id 0
  %xt = tile.load %x[%m, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %xf = arith.extf %xt : tensor<128x128xbf16> to tensor<128x128xf32>
  %od = tile.make_desc %out, [%rows, %c128], [%c128, %c1] : !tile.ptr<f32> -> !tile.desc<128x128xf32>
  tile.store %xf, %od[%m, %c0] add : tensor<128x128xf32>, !tile.desc<128x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @add_tma
// CHECK: fa4.tma_store %{{.*}} barrier(%{{.*}}) add : tensor<64x128xf32, #fa4.acc>, memref<128x128xf32, 3>, !fa4.tensor_map<f32, box = [64, 32], swizzle = 128>
// LLVM-LABEL: llvm.func @add_tma
// LLVM-COUNT-4: nvvm.cp.async.bulk.tensor.reduce
func.func @add_tma(%x: !tile.desc<128x128xbf16>, %o: !tile.desc<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %xt = tile.load %x[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %xf = arith.extf %xt : tensor<128x128xbf16> to tensor<128x128xf32>
  tile.store %xf, %o[%c0, %c0] add : tensor<128x128xf32>, !tile.desc<128x128xf32>
  return
}

// A kernel planned with `short_pointers` (its #fa4.config) is translated with
// 32-bit shared-memory pointers: the data layout says `p3:32:32` and the
// shared-memory address arithmetic is 32-bit. Without it, 64-bit as LLVM's
// NVPTX backend makes them; the PTX keeps the translation's width.
// RUN: fa4-translate %s --split-input-file --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: fa4-translate %s --split-input-file --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ fa4-translate %s --split-input-file --emit=cubin -o %t.cubin %}

// LLVM: target datalayout = "{{.*}}p3:32:32
// LLVM-LABEL: define ptx_kernel void @short(
// LLVM: getelementptr float, ptr addrspace(3) @tile, i32
// LLVM: target datalayout = "e-p6:32:32
// LLVM-LABEL: define ptx_kernel void @long(
// LLVM: getelementptr float, ptr addrspace(3) @tile, i64

// CHECK-LABEL: .entry short(
// CHECK: mov.b32 {{.*}}, tile;
// CHECK: ld.shared.b32 {{.*}}, [%r{{[0-9]+}}];
// CHECK-LABEL: .entry long(
// CHECK: mov.b64 {{.*}}, tile;
// CHECK: ld.shared.b32 {{.*}}, [%rd{{[0-9]+}}];
#config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
    bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
    swizzle = 128, q_tiles = 1, target = sm_90a,
    roles = [#fa4.role<consumer, warps = 4, regs = 240>],
    short_pointers = true>
llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<128 x f32>
llvm.func @short(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, fa4.config = #config} {
  %base = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %i = llvm.zext %tid : i32 to i64
  %slot = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
  %j = llvm.load %slot : !llvm.ptr<1> -> i64
  %to = llvm.getelementptr %base[0, %j] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x f32>
  %v = llvm.uitofp %tid : i32 to f32
  llvm.store %v, %to : f32, !llvm.ptr<3>
  nvvm.barrier0
  %at = llvm.getelementptr %base[0, %i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x f32>
  %x = llvm.load %at : !llvm.ptr<3> -> f32
  %o = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  llvm.store %x, %o : f32, !llvm.ptr<1>
  llvm.return
}

// -----

llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<128 x f32>
llvm.func @long(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %base = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %i = llvm.zext %tid : i32 to i64
  %slot = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
  %j = llvm.load %slot : !llvm.ptr<1> -> i64
  %to = llvm.getelementptr %base[0, %j] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x f32>
  %v = llvm.uitofp %tid : i32 to f32
  llvm.store %v, %to : f32, !llvm.ptr<3>
  nvvm.barrier0
  %at = llvm.getelementptr %base[0, %i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x f32>
  %x = llvm.load %at : !llvm.ptr<3> -> f32
  %o = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  llvm.store %x, %o : f32, !llvm.ptr<1>
  llvm.return
}

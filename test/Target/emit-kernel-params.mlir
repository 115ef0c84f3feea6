// Every parameter kind a kernel file holds, named by fa4.name or arg<N>: a
// tensor map (its f16 type, its box reversed to innermost first, its swizzle,
// the tensor named like the parameter), global and generic pointers, i64, i32
// and f32; a block of fewer than three dims, no fa4.shared_memory_bytes
// (0 bytes), and the target that --arch names.
// REQUIRES: ptxas
// RUN: fa4-translate %s --emit=kernel -o %t.kernel
// RUN: sed '/^binary = /q' %t.kernel | FileCheck %s --match-full-lines
// RUN: fa4-translate %s --emit=kernel --arch=sm_90 -o %t.sm90.kernel
// RUN: sed '/^binary = /q' %t.sm90.kernel | FileCheck %s --check-prefix=SM90

// CHECK:      fa4-kernel 1
// CHECK-NEXT: entry = all_kinds
// CHECK-NEXT: target = sm_90a
// CHECK-NEXT: format = cubin
// CHECK-NEXT: block = 128 2 1
// CHECK-NEXT: dynamic-shared-bytes = 0
// CHECK-NEXT: param = tensor_map q_map tensor=q_map type=f16 box=64,32,1 swizzle=128
// CHECK-NEXT: param = pointer o
// CHECK-NEXT: param = pointer arg2
// CHECK-NEXT: param = i64 seq_len
// CHECK-NEXT: param = i32 arg4
// CHECK-NEXT: param = f32 scale
// CHECK-NEXT: binary = {{[1-9][0-9]+}}

// SM90: target = sm_90{{$}}

llvm.func @helper() {
  llvm.return
}

llvm.func @all_kinds(
    %map: !llvm.ptr {fa4.name = "q_map",
                     fa4.tensor_map = !fa4.tensor_map<f16, box = [1, 32, 64], swizzle = 128>,
                     llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>,
                     nvvm.grid_constant},
    %out: !llvm.ptr<1> {fa4.name = "o"}, %generic: !llvm.ptr,
    %n: i64 {fa4.name = "seq_len"}, %flag: i32, %scale: f32 {fa4.name = "scale"})
    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 2>} {
  llvm.call @helper() : () -> ()
  llvm.return
}

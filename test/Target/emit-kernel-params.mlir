// Every parameter kind a kernel file holds, named by fa4.name or arg<N>: a
// tensor map (its f16 type, its box reversed to innermost first, its swizzle,
// the tensor named like the parameter), global and generic pointers, i64, i32
// and f32, a dynamic schedule's tile counter; a block of fewer than three dims, no fa4.shared_memory_bytes
// (0 bytes), and the target that --arch names. The launch description: the
// grid and requirement rules in canonical form, the tensors' access and
// shapes, a pointer to a contiguous f32 tensor, a size made by a rule.
// REQUIRES: ptxas
// RUN: fa4-translate %s --emit=kernel -o %t.kernel
// RUN: sed '/^binary = /q' %t.kernel | FileCheck %s --match-full-lines
// RUN: fa4-translate %s --emit=kernel --arch=sm_90 -o %t.sm90.kernel
// RUN: sed '/^binary = /q' %t.sm90.kernel | FileCheck %s --check-prefix=SM90

// CHECK:      fa4-kernel 2
// CHECK-NEXT: entry = all_kinds
// CHECK-NEXT: target = sm_90a
// CHECK-NEXT: format = cubin
// CHECK-NEXT: block = 128 2 1
// CHECK-NEXT: grid = cdiv(q_map.dim1,32), min(num_sms,4), 1
// CHECK-NEXT: dynamic-shared-bytes = 0
// CHECK-NEXT: tensor = q_map input type=f16 rank=3 align=16 shape=*,q_map.dim2,64
// CHECK-NEXT: tensor = o output type=f32 rank=2 align=16 shape=q_map.dim0,seq_len contiguous
// CHECK-NEXT: param = tensor_map q_map tensor=q_map type=f16 box=64,32,1 swizzle=128 dims=2,1,0 fill=zero
// CHECK-NEXT: param = pointer o tensor=o
// CHECK-NEXT: param = pointer arg2
// CHECK-NEXT: param = i64 seq_len value=q_map.dim1
// CHECK-NEXT: param = i32 arg4
// CHECK-NEXT: param = f32 scale
// CHECK-NEXT: param = counter tile_counter
// CHECK-NEXT: require = seq_len%32==0
// CHECK-NEXT: binary = {{[1-9][0-9]+}}

// SM90: target = sm_90{{$}}

llvm.func @helper() {
  llvm.return
}

llvm.func @all_kinds(
    %map: !llvm.ptr {fa4.name = "q_map",
                     fa4.tensor_map = !fa4.tensor_map<f16, box = [1, 32, 64], swizzle = 128>,
                     llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>,
                     nvvm.grid_constant, fa4.shape = "*, q_map.dim2, 64"},
    %out: !llvm.ptr<1> {fa4.name = "o", fa4.shape = "q_map.dim0, seq_len",
                        fa4.element_type = f32},
    %generic: !llvm.ptr,
    %n: i64 {fa4.name = "seq_len", fa4.value = "q_map.dim1"}, %flag: i32,
    %scale: f32 {fa4.name = "scale"},
    %counter: !llvm.ptr<1> {fa4.name = "tile_counter", fa4.counter})
    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 2>,
                fa4.grid = "cdiv(q_map.dim1, 32), min(num_sms, 4), 1",
                fa4.require = ["seq_len % 32 == 0"]} {
  llvm.call @helper() : () -> ()
  llvm.return
}

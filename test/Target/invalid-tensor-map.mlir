// A tensor map passed by value must be a grid constant: without
// nvvm.grid_constant LLVM copies the argument into local memory and TMA reads
// that copy, which fails at launch. A generic pointer into global memory (no
// llvm.byval) is left alone.
// RUN: fa4-translate %s --split-input-file --verify-diagnostics

llvm.mlir.global internal @barrier() {addr_space = 3 : i32, alignment = 8 : i64} : i64
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>

llvm.func @by_value(%tensor_map: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64}) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %barrier = llvm.mlir.addressof @barrier : !llvm.ptr<3>
  %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %dst = llvm.addrspacecast %tile : !llvm.ptr<3> to !llvm.ptr<7>
  // expected-error @below {{'nvvm.cp.async.bulk.tensor.shared.cluster.global' reads kernel argument 0 of 'by_value', passed by value without nvvm.grid_constant; LLVM would copy it to local memory, where TMA cannot read it}}
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tensor_map, %barrier, box[%c0] : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}

// -----

llvm.func @prefetch(%tensor_map: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64}) attributes {nvvm.kernel} {
  // expected-error @below {{'nvvm.prefetch' reads kernel argument 0 of 'prefetch', passed by value without nvvm.grid_constant}}
  nvvm.prefetch tensormap, %tensor_map : !llvm.ptr
  llvm.return
}

// -----

llvm.mlir.global internal @barrier() {addr_space = 3 : i32, alignment = 8 : i64} : i64
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>

llvm.func @in_global_memory(%tensor_map: !llvm.ptr) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %barrier = llvm.mlir.addressof @barrier : !llvm.ptr<3>
  %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %dst = llvm.addrspacecast %tile : !llvm.ptr<3> to !llvm.ptr<7>
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tensor_map, %barrier, box[%c0] : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}

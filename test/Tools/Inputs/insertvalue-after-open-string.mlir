llvm.func @k() {
  %0 = llvm.mlir.undef : !llvm.struct<(i32, i32)>
 "%c = llvm.mlir.constant(1 : i32) : i32
  %1 = llvm.insertvalue %c, %0[4294967296] : !llvm.struct<(i32, i32)>
  llvm.return
}

llvm.func @immediate(%a: i32) -> i32 attributes {nvvm.kernel} {
  %0 = llvm.inline_asm "add.s32 $0, $1, $1;", "=r,n" %a : (i32) -> i32
  llvm.return %0 : i32
}

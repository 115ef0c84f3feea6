llvm.func @tied(%a: i32) attributes {nvvm.kernel} {
  %0 = llvm.inline_asm "add.s32 $0, $0, 1;", "=r," %a : (i32) -> i32
  llvm.return
}

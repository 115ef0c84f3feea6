llvm.func @dollar(%a: i32) -> i32 attributes {nvvm.kernel} {
  %0 = llvm.inline_asm "add.s32 $0,nvvm.reqntid$", "=r,0" %a : (i32) -> i32
  llvm.return %0 : i32
}

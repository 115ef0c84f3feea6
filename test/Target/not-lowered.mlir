// Input must be fully in the LLVM and NVVM dialects: an op of another dialect
// is an error at the op, and fa4-translate fails without output.
// RUN: not fa4-translate %s --emit=llvm -o %t 2>&1 | FileCheck %s
// RUN: not test -e %t

// CHECK: not-lowered.mlir:[[@LINE+3]]:8: error: cannot be converted to LLVM IR: {{.*}} arith.constant
// CHECK: error: cannot translate the module to LLVM IR
llvm.func @kernel() attributes {nvvm.kernel} {
  %0 = arith.constant 0 : i32
  llvm.return
}

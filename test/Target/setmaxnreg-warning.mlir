// ptxas ignores setmaxnreg (warning C7508) in a kernel that declares no
// register count at entry; fa4-translate warns at the op and still
// translates. nvvm.maxnreg, or nvvm.minctasm with nvvm.maxntid or
// nvvm.reqntid, declare one; nvvm.minctasm or nvvm.maxntid alone do not.
// RUN: fa4-translate %s --split-input-file --verify-diagnostics --emit=llvm

llvm.func @no_count() attributes {nvvm.kernel} {
  // expected-warning @below {{ptxas ignores setmaxnreg (warning C7508) in kernel 'no_count', which declares no register count at entry; set nvvm.maxnreg, or nvvm.minctasm with nvvm.maxntid or nvvm.reqntid}}
  nvvm.setmaxregister increase 232
  llvm.return
}

// -----

llvm.func @min_ctas_alone() attributes {nvvm.kernel, nvvm.minctasm = 1 : i32} {
  // expected-warning @below {{ptxas ignores setmaxnreg (warning C7508) in kernel 'min_ctas_alone'}}
  nvvm.setmaxregister decrease 40
  llvm.return
}

// -----

llvm.func @max_threads_alone() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384>} {
  // expected-warning @below {{ptxas ignores setmaxnreg (warning C7508) in kernel 'max_threads_alone'}}
  nvvm.setmaxregister decrease 40
  llvm.return
}

// -----

llvm.func @max_registers() attributes {nvvm.kernel, nvvm.maxnreg = 168 : i32} {
  nvvm.setmaxregister increase 232
  llvm.return
}

// -----

llvm.func @launch_bounds() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384>, nvvm.minctasm = 1 : i32} {
  nvvm.setmaxregister decrease 40
  llvm.return
}

// -----

llvm.func @required_threads() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 384>, nvvm.minctasm = 1 : i32} {
  nvvm.setmaxregister increase 232
  llvm.return
}

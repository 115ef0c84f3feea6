// What the translation or the NVPTX backend would crash or abort on is an
// error at the op before any code generation: inline asm whose constraints
// do not match its operands or whose string names an operand it lacks, a
// tied input to an output that does not exist, NVVM ops outside a function,
// launch bounds out of range.
// RUN: fa4-translate %s --emit=ptx --split-input-file --verify-diagnostics

llvm.func @dollar(%a: i32) -> i32 attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op names operand $5 but has 2 (1 outputs, 1 inputs)}}
  %0 = llvm.inline_asm "mov.b32 $0, $5;", "=r,r" %a : (i32) -> i32
  llvm.return %0 : i32
}

// -----

llvm.func @braced(%a: i32) -> i32 attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op names operand $2 but has 2 (1 outputs, 1 inputs)}}
  %0 = llvm.inline_asm "mov.b32 $0, ${2:x};", "=r,r" %a : (i32) -> i32
  llvm.return %0 : i32
}

// -----

llvm.func @tied(%a: i32) attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op ties an input to output 7 but has 1 outputs ('=r,7')}}
  %0 = llvm.inline_asm "add.s32 $0, $0, 1;", "=r,7" %a : (i32) -> i32
  llvm.return
}

// -----

llvm.func @inputs(%a: i32, %b: i32) attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op has 1 input constraints in 'r' but 2 operands}}
  llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;", "r" %a, %b : (i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @outputs(%a: i32) attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op has 2 output constraints in '=r,=r,r' but 1 result values}}
  %0 = llvm.inline_asm "mov.b32 $0, $2;", "=r,=r,r" %a : (i32) -> i32
  llvm.return
}

// -----

llvm.func @letter(%a: i32) -> i32 attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op has the input constraint 'x', not one of NVPTX's (h, r, l, f, d, q, b, n, C) or a tied output number}}
  %0 = llvm.inline_asm "mov.b32 $0, $1;", "=r,x" %a : (i32) -> i32
  llvm.return %0 : i32
}

// -----

llvm.func @output_letter(%a: i32) -> i32 attributes {nvvm.kernel} {
  // expected-error @below {{'llvm.inline_asm' op has the output constraint '=m', not one of NVPTX's (=h, =r, =l, =f, =d, =q, =b)}}
  %0 = llvm.inline_asm "mov.b32 $0, $1;", "=m,r" %a : (i32) -> i32
  llvm.return %0 : i32
}

// -----

// expected-error @below {{'nvvm.read.ptx.sreg.tid.x' op is outside any function}}
%0 = nvvm.read.ptx.sreg.tid.x : i32

// -----

// expected-error @below {{'llvm.func' op has nvvm.maxntid = array<i32: 0, 1, 1>: a dimension of 0 threads is outside [1, 1024]}}
llvm.func @zero_threads() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 0, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{'llvm.func' op has nvvm.reqntid = array<i32: 512, 4>: 2048 threads; a block has at most 1024}}
llvm.func @too_many() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 512, 4>} {
  llvm.return
}

// -----

// expected-error @below {{'llvm.func' op has nvvm.maxnreg = 300 : i32; a thread has 1 to 255 registers}}
llvm.func @registers() attributes {nvvm.kernel, nvvm.maxnreg = 300 : i32} {
  llvm.return
}

// -----

// The checks pass what is well formed: outputs, inputs, a tied input, $$.
llvm.func @fine(%a: i32) -> i32 attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %0 = llvm.inline_asm "add.s32 $0, $1, 1; // $$", "=r,0" %a : (i32) -> i32
  llvm.return %0 : i32
}

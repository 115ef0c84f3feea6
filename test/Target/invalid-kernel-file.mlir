// What --emit=kernel cannot describe is an error at the module or at the
// kernel, naming the argument, before anything is compiled: no kernel or
// several, no nvvm.maxntid or a bad one, a bad fa4.shared_memory_bytes,
// arguments that are none of the kernel file's kinds or badly named, and
// launch descriptions the runtime would refuse.
// RUN: fa4-translate %s --emit=kernel -o %t --split-input-file --verify-diagnostics

// expected-error @below {{a kernel file needs one llvm.func with nvvm.kernel, the module has none (is it lowered with --fa4-to-llvm?)}}
module {
  llvm.func @helper() {
    llvm.return
  }
}

// -----

// expected-error @below {{a kernel file holds one kernel, the module has 2: 'first' 'second'}}
module {
  llvm.func @first() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    llvm.return
  }
  llvm.func @second() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    llvm.return
  }
}

// -----

// expected-error @below {{kernel 'no_block' needs nvvm.maxntid (array<i32: x, y, z>) to fix its block}}
llvm.func @no_block() attributes {nvvm.kernel} {
  llvm.return
}

// -----

// expected-error @below {{nvvm.maxntid of kernel 'zero_block' is array<i32: 128, 0>; a block needs one to three positive dims}}
llvm.func @zero_block() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 0>} {
  llvm.return
}

// -----

// expected-error @below {{fa4.shared_memory_bytes of kernel 'huge_shared' is 4294967296 : i64; expected an integer in [0, 2^32)}}
llvm.func @huge_shared() attributes {fa4.shared_memory_bytes = 4294967296 : i64, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{argument 1 ('arg1') of kernel 'short_int' has type 'i16', which a kernel file cannot describe; expected a tensor map (!llvm.ptr with fa4.tensor_map), a global or generic !llvm.ptr, i64, i32 or f32}}
llvm.func @short_int(%a: i64, %b: i16) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{argument 0 ('smem') of kernel 'shared_pointer' has type '!llvm.ptr<3>', which a kernel file cannot describe}}
llvm.func @shared_pointer(%p: !llvm.ptr<3> {fa4.name = "smem"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{argument 0 ('arg0') of kernel 'by_value' has type '!llvm.ptr' passed by value, which a kernel file cannot describe}}
llvm.func @by_value(%p: !llvm.ptr {llvm.byval = !llvm.array<16 x i8>}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{argument 0 ('arg0') of kernel 'map_on_int' has fa4.tensor_map but type 'i64', not !llvm.ptr}}
llvm.func @map_on_int(%p: i64 {fa4.tensor_map = !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{'fa4.tensor_map' of argument 0 is 3 : i64; it must be a !fa4.tensor_map type}}
llvm.func @map_not_a_type(%p: !llvm.ptr {fa4.tensor_map = 3}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{tensor map argument 0 ('arg0') of kernel 'byte_map' has element type 'i8'; kernel files take bf16, f16, f32 or i32}}
llvm.func @byte_map(%p: !llvm.ptr {fa4.tensor_map = !fa4.tensor_map<i8, box = [64, 128], swizzle = 128>}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{'fa4.name' of argument 1 is "my output"; it must be a non-empty string without whitespace or '='}}
llvm.func @spaced_name(%a: i64, %b: !llvm.ptr<1> {fa4.name = "my output"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{'fa4.name' of argument 0 is 7 : i64; it must be a non-empty string without whitespace or '='}}
llvm.func @number_name(%a: i64 {fa4.name = 7}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// expected-error @below {{arguments 0 and 2 of kernel 'same_name' are both named 'n'}}
llvm.func @same_name(%a: i64 {fa4.name = "n"}, %b: i64, %c: i32 {fa4.name = "n"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// A name that collides with a generated one is a collision too.
// expected-error @below {{arguments 0 and 1 of kernel 'generated_name' are both named 'arg0'}}
llvm.func @generated_name(%a: i64, %b: i64 {fa4.name = "arg0"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  llvm.return
}

// -----

// The launch description is checked as the runtime will check it on load.
// expected-error @below {{the launch description of kernel 'grid_reads_nothing' is inconsistent: grid x rule (cdiv(q.dim1,128)) reads 'q.dim1' of an undeclared tensor 'q'}}
llvm.func @grid_reads_nothing(%n: i64 {fa4.name = "n"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, fa4.grid = "cdiv(q.dim1, 128), 1, 1"} {
  llvm.return
}

// -----

// expected-error @below {{the launch description of kernel 'beyond_rank' is inconsistent: the value rule of 'n' (q.dim2) reads 'q.dim2' but tensor 'q' has rank 2}}
llvm.func @beyond_rank(%q: !llvm.ptr {fa4.name = "q", fa4.tensor_map = !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, llvm.byval = !llvm.array<128 x i8>}, %n: i64 {fa4.name = "n", fa4.value = "q.dim2"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, fa4.grid = "n, 1, 1"} {
  llvm.return
}

// -----

// expected-error @below {{pointer argument 0 ('o') of kernel 'untyped_tensor' has fa4.shape but no fa4.element_type of bf16, f16, f32 or i32}}
llvm.func @untyped_tensor(%o: !llvm.ptr<1> {fa4.name = "o", fa4.shape = "4, 4"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, fa4.grid = "1, 1, 1"} {
  llvm.return
}

// -----

// expected-error @below {{f32 argument 0 ('s') of kernel 'real_rule' has fa4.value; launch rules make integers}}
llvm.func @real_rule(%s: f32 {fa4.name = "s", fa4.value = "4"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, fa4.grid = "1, 1, 1"} {
  llvm.return
}

// -----

// expected-error @below {{the launch description of kernel 'rule_cycle' is inconsistent: the value rule of parameter 'a' depends on itself}}
llvm.func @rule_cycle(%a: i64 {fa4.name = "a", fa4.value = "b + 1"}, %b: i64 {fa4.name = "b", fa4.value = "a * 2"}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, fa4.grid = "1, 1, 1"} {
  llvm.return
}

// The launch-description attributes a kernel carries to its kernel file: the
// fa4 dialect checks that each is of its kind and that its rules parse, at
// the op, whatever the pass pipeline.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @described
// CHECK-SAME: fa4.shape = "*, 64"
// CHECK-SAME: fa4.value = "cdiv(q.dim0, 2)"
// CHECK-SAME: fa4.grid = "cdiv(q.dim0, 128), 1, 1"
// CHECK-SAME: fa4.require = ["q.dim1 % 8 == 0"]
func.func @described(%q: !llvm.ptr {fa4.name = "q", fa4.access = "output", fa4.element_type = bf16, fa4.shape = "*, 64"},
                     %n: i64 {fa4.name = "n", fa4.value = "cdiv(q.dim0, 2)"})
    attributes {fa4.grid = "cdiv(q.dim0, 128), 1, 1", fa4.require = ["q.dim1 % 8 == 0"]} {
  return
}

// -----

// expected-error @below {{'fa4.grid' has 2 rules; it needs three (x, y, z), separated by commas}}
func.func @two_dims() attributes {fa4.grid = "4, 2"} { return }

// -----

// expected-error @below {{'fa4.grid': bad rule 'cdiv(q.dim1)': 'cdiv' takes two arguments; expected ',' at column 12}}
func.func @bad_grid_rule() attributes {fa4.grid = "1, cdiv(q.dim1), 1"} { return }

// -----

// expected-error @below {{'fa4.grid' must be a string of three launch rules}}
func.func @grid_not_string() attributes {fa4.grid = 3} { return }

// -----

// expected-error @below {{'fa4.require' must be an array of launch-rule strings}}
func.func @require_not_array() attributes {fa4.require = "n > 0"} { return }

// -----

// expected-error @below {{'fa4.value' of argument 0: bad rule 'q.size0': expected 'dim' or 'stride' after 'q.' at column 7}}
func.func @bad_value(%n: i64 {fa4.value = "q.size0"}) { return }

// -----

// expected-error @below {{'fa4.shape' of argument 0: bad rule '64+': expected a number, a name or '(' at column 4}}
func.func @bad_shape(%o: !llvm.ptr {fa4.shape = "*, 64+"}) { return }

// -----

// expected-error @below {{'fa4.access' of argument 0 is "write"; it must be "input", "output" or "inout"}}
func.func @bad_access(%o: !llvm.ptr {fa4.access = "write"}) { return }

// -----

// expected-error @below {{'fa4.element_type' of argument 0 is i8; it must be bf16, f16, f32 or i32}}
func.func @bad_element_type(%o: !llvm.ptr {fa4.element_type = i8}) { return }

// -----

// expected-error @below {{unknown fa4 argument attribute 'fa4.strides' on argument 0}}
func.func @unknown(%o: !llvm.ptr {fa4.strides = "1"}) { return }

// -----

// A dynamic schedule's grid group is a rule; its tile counter a global
// pointer.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: {fa4.counter, fa4.name = "tile_counter"}
// CHECK-SAME: fa4.grid_group = "max(1, 1024 / k.dim1)"
func.func @dynamic(%c: !llvm.ptr<1> {fa4.name = "tile_counter", fa4.counter})
    attributes {fa4.grid_group = "max(1, 1024 / k.dim1)"} {
  return
}

// -----

// expected-error @below {{'fa4.grid_group': bad rule 'max(1)'}}
func.func @bad_group() attributes {fa4.grid_group = "max(1)"} { return }

// -----

// expected-error @below {{'fa4.counter' of argument 0 is unit; it must be a unit attribute on a global !llvm.ptr<1>}}
func.func @counter_not_global(%c: !llvm.ptr<3> {fa4.counter}) { return }

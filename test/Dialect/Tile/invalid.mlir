// Every verifier message of the tile dialect, one case each.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics

func.func @f() {
  // expected-error @below {{grid dimension 3 is outside [0, 2]}}
  %m = tile.program_id 3
  return
}

// -----

func.func @f() {
  // expected-error @below {{grid dimension -1 is outside [0, 2]}}
  %m = tile.num_programs -1
  return
}

// -----

// expected-error @below {{descriptor block dimension 0 is not positive}}
func.func @f(%d: !tile.desc<0x64xbf16>) { return }

// -----

// expected-error @below {{descriptor element type 'index' is not an integer or float type}}
func.func @f(%d: !tile.desc<64x64xindex>) { return }

// -----

func.func @f(%p: !tile.ptr<bf16>, %i: index) {
  // expected-error @below {{a 2-d descriptor takes 2 sizes and 2 strides, got 1 and 2}}
  %d = tile.make_desc %p, [%i], [%i, %i] : !tile.ptr<bf16> -> !tile.desc<64x64xbf16>
  return
}

// -----

func.func @f(%p: !tile.ptr<f16>, %i: index) {
  // expected-error @below {{descriptor of 'bf16' built on a pointer to 'f16'}}
  %d = tile.make_desc %p, [%i, %i], [%i, %i] : !tile.ptr<f16> -> !tile.desc<64x64xbf16>
  return
}

// -----

func.func @f(%d: !tile.desc<64x64xbf16>, %i: index) {
  // expected-error @below {{loading a 2-d descriptor takes 2 tile coordinates (one per dimension), got 1}}
  %t = tile.load %d[%i] : !tile.desc<64x64xbf16> -> tensor<64x64xbf16>
  return
}

// -----

func.func @f(%d: !tile.desc<64x64xbf16>, %i: index) {
  // expected-error @below {{tile type 'tensor<64x32xbf16>' differs from the descriptor's block 'tensor<64x64xbf16>' (leading 1s of the block may be dropped)}}
  %t = tile.load %d[%i, %i] : !tile.desc<64x64xbf16> -> tensor<64x32xbf16>
  return
}

// -----

func.func @f(%d: !tile.desc<1x64x64xbf16>, %i: index) {
  // expected-error @below {{loading 5 coordinates from a 3-d descriptor: a gather of row blocks takes a whole group of 3 per block, of a block of 2-d or more}}
  %t = tile.load %d[%i, %i, %i, %i, %i] : !tile.desc<1x64x64xbf16> -> tensor<128x64xbf16>
  return
}

// -----

func.func @f(%d: !tile.desc<1x64x64xbf16>, %i: index) {
  // expected-error @below {{tile type 'tensor<64x64xbf16>' differs from the stacked blocks' 'tensor<1x128x64xbf16>' (leading 1s of the block may be dropped)}}
  %t = tile.load %d[%i, %i, %i, %i, %i, %i] : !tile.desc<1x64x64xbf16> -> tensor<64x64xbf16>
  return
}

// -----

func.func @f(%d: !tile.desc<64xf32>, %i: index) {
  // expected-error @below {{loading 2 coordinates from a 1-d descriptor: a gather of row blocks takes a whole group of 1 per block, of a block of 2-d or more}}
  %t = tile.load %d[%i, %i] : !tile.desc<64xf32> -> tensor<128xf32>
  return
}

// -----

func.func @f(%d: !tile.desc<64x64xbf16>, %t: tensor<64x64xbf16>, %i: index) {
  // expected-error @below {{storing a 2-d descriptor takes 2 tile coordinates (one per dimension), got 3}}
  tile.store %t, %d[%i, %i, %i] : tensor<64x64xbf16>, !tile.desc<64x64xbf16>
  return
}

// -----

func.func @f(%a: tensor<128x64xbf16>, %b: tensor<32x128xbf16>, %c: tensor<128x128xf32>) {
  // expected-error @below {{dot of 128x64 and 32x128: contraction sizes 64 and 32 differ}}
  %r = tile.dot %a, %b, %c : tensor<128x64xbf16>, tensor<32x128xbf16>, tensor<128x128xf32>
  return
}

// -----

func.func @f(%a: tensor<128xbf16>, %b: tensor<128x64xbf16>, %c: tensor<128x64xf32>) {
  // expected-error @below {{dot takes 2-d tiles, got ranks 1, 2 and 2}}
  %r = tile.dot %a, %b, %c : tensor<128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>, %c: tensor<64x128xf32>) {
  // expected-error @below {{accumulator 64x128 does not hold the 128x128 product}}
  %r = tile.dot %a, %b, %c : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
  return
}

// -----

func.func @f(%a: tensor<128x64xbf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>) {
  // expected-error @below {{dot operands of 'bf16' and 'f16' differ in element type}}
  %r = tile.dot %a, %b, %c : tensor<128x64xbf16>, tensor<64x128xf16>, tensor<128x128xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error @below {{transposes 2-d tiles, got rank 3}}
  %r = tile.trans %a : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @below {{result 'tensor<2x3xf32>' is not the transpose of 'tensor<2x3xf32>'}}
  %r = tile.trans %a : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<128x64xf32>) {
  // expected-error @below {{axis 2 is out of range for a 2-d tile}}
  %r = tile.reduce max %a axis 2 : tensor<128x64xf32> -> tensor<128xf32>
  return
}

// -----

func.func @f(%a: tensor<128x64xf32>) {
  // expected-error @below {{reducing 'tensor<128x64xf32>' along axis 1 gives 'tensor<128xf32>', not 'tensor<64xf32>'}}
  %r = tile.reduce sum %a axis 1 : tensor<128x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%a: tensor<128xf32>) {
  // expected-error @below {{broadcasting 'tensor<128xf32>' along axis 0 cannot give 'tensor<128x64xf32>'}}
  %r = tile.broadcast %a axis 0 : tensor<128xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @f() {
  // expected-error @below {{axis 2 is out of range for a 2-d tile}}
  %r = tile.iota axis 2 : tensor<128x64xi32>
  return
}

// -----

func.func @f(%d: !tile.desc<2x128x64xbf16>, %i: index) {
  // expected-error @below {{tile type 'tensor<128x64xbf16>' differs from the descriptor's block 'tensor<2x128x64xbf16>' (leading 1s of the block may be dropped)}}
  %t = tile.load %d[%i, %i, %i] : !tile.desc<2x128x64xbf16> -> tensor<128x64xbf16>
  return
}

// -----

func.func @f(%p: !tile.ptr<i32>, %i: index) {
  // expected-error @below {{failed to verify that the result is of the pointer's element type}}
  %x = "tile.load_scalar"(%p, %i) : (!tile.ptr<i32>, index) -> i64
  return
}

// -----

func.func @f(%d: !tile.desc<64x64xbf16>, %t: tensor<64x64xbf16>, %i: index) {
  // expected-error @below {{adds 'tensor<64x64xbf16>' atomically: atomic adds take f32 tiles}}
  tile.store %t, %d[%i, %i] add : tensor<64x64xbf16>, !tile.desc<64x64xbf16>
  return
}

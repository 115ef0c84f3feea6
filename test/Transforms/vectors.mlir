// Vectors loaded through a tile.make_desc of a kernel pointer (a row's or a
// column's term kept in global memory, such as the attention backward's LSE
// and D): fa4-assign-layouts makes each a fa4.global_load. A vector that
// `v.row()` repeats along the rows of a 2-d tile, and every vector joined
// to it by elementwise ops, is a column vector (#fa4.cols, N values, all of
// them in each warp, spread over its lanes); the others are row vectors (#fa4.rows), whose
// load starts at the warpgroup's first row. f32, bf16, f16 and i32
// elements. A 2-d tile of the CTA's rows loads likewise, each warpgroup its
// rows in the #fa4.acc layout.
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --verify-diagnostics | FileCheck %s

// dQ's per-row terms: LSE and D of the CTA's 128 rows.
// CHECK-LABEL: func.func @row_terms
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: %[[FIRST:.*]] = arith.muli %[[WG]], %c64{{(_[0-9]+)?}}
// CHECK: %[[M:.*]] = tile.program_id 0
// CHECK: %[[BLOCK:.*]] = arith.muli %[[M]], %c128{{(_[0-9]+)?}}
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %[[BLOCK]]
// CHECK: %[[COUNT:.*]] = arith.subi %arg2, %[[BLOCK]]
// CHECK: %[[MINE:.*]] = arith.addi %[[START]], %[[FIRST]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[COUNT]], %[[FIRST]]
// CHECK: %[[L:.*]] = fa4.global_load %arg1[%[[MINE]]] count(%[[LEFT]]) layout(#fa4.rows) : !llvm.ptr<1> -> tensor<64xf32, #fa4.rows>
// CHECK: arith.mulf %[[L]], %{{.*}} : tensor<64xf32, #fa4.rows>
// CHECK: tile.broadcast %{{.*}} axis 1 : tensor<64xf32, #fa4.rows> -> tensor<64x64xf32, #fa4.acc>
func.func @row_terms(%s: tensor<128x64xf32>, %lse: !tile.ptr<f32>, %rows: index, %out: !tile.ptr<f32>) {
  %c1 = arith.constant 1 : index
  %m = tile.program_id 0
  %b = tile.program_id 1
  %ld = tile.make_desc %lse, [%c1, %rows], [%rows, %c1] : !tile.ptr<f32> -> !tile.desc<1x128xf32>
  %l = tile.load %ld[%b, %m] : !tile.desc<1x128xf32> -> tensor<128xf32>
  %k = arith.constant dense<1.44269502> : tensor<128xf32>
  %l2 = arith.mulf %l, %k : tensor<128xf32>
  %lb = tile.broadcast %l2 axis 1 : tensor<128xf32> -> tensor<128x64xf32>
  %p = arith.subf %s, %lb : tensor<128x64xf32>
  %c64 = arith.constant 64 : index
  %od = tile.make_desc %out, [%c64, %c64], [%c64, %c1] : !tile.ptr<f32> -> !tile.desc<128x64xf32>
  tile.store %p, %od[%c1, %c1] : tensor<128x64xf32>, !tile.desc<128x64xf32>
  return
}

// -----

// dK and dV's per-column terms: the LSE of each of a 64-query block's
// columns, through a where and a multiply, repeated along the rows.
// CHECK-LABEL: func.func @column_terms
// CHECK: %[[J:.*]] = tile.program_id 0
// CHECK: %[[BLOCK:.*]] = arith.muli %[[J]], %c64{{(_[0-9]+)?}}
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %[[BLOCK]]
// CHECK: %[[COUNT:.*]] = arith.subi %arg2, %[[BLOCK]]
// CHECK: %[[L:.*]] = fa4.global_load %arg1[%[[START]]] count(%[[COUNT]]) layout(#fa4.cols) : !llvm.ptr<1> -> tensor<64xf32, #fa4.cols>
// CHECK: arith.cmpf oeq, %[[L]], %{{.*}} : tensor<64xf32, #fa4.cols>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}} : tensor<64xi1, #fa4.cols>, tensor<64xf32, #fa4.cols>
// CHECK: tile.broadcast %[[SEL]] axis 0 : tensor<64xf32, #fa4.cols> -> tensor<64x64xf32, #fa4.acc>
func.func @column_terms(%s: tensor<128x64xf32>, %lse: !tile.ptr<f32>, %cols: index, %out: !tile.ptr<f32>) {
  %c1 = arith.constant 1 : index
  %j = tile.program_id 0
  %ld = tile.make_desc %lse, [%cols], [%c1] : !tile.ptr<f32> -> !tile.desc<64xf32>
  %l = tile.load %ld[%j] : !tile.desc<64xf32> -> tensor<64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32>
  %inf = arith.constant dense<0x7F800000> : tensor<64xf32>
  %none = arith.cmpf oeq, %l, %ninf : tensor<64xf32>
  %safe = arith.select %none, %inf, %l : tensor<64xi1>, tensor<64xf32>
  %lb = tile.broadcast %safe axis 0 : tensor<64xf32> -> tensor<128x64xf32>
  %p = arith.subf %s, %lb : tensor<128x64xf32>
  %c64 = arith.constant 64 : index
  %od = tile.make_desc %out, [%c64, %c64], [%c64, %c1] : !tile.ptr<f32> -> !tile.desc<128x64xf32>
  tile.store %p, %od[%c1, %c1] : tensor<128x64xf32>, !tile.desc<128x64xf32>
  return
}

// -----

// A normalization's bf16 weights, one per column, widened and repeated
// along the rows: a bf16 column vector.
// CHECK-LABEL: func.func @bf16_weights
// CHECK: %[[W:.*]] = fa4.global_load %arg1[%{{.*}}] count(%{{.*}}) layout(#fa4.cols) : !llvm.ptr<1> -> tensor<64xbf16, #fa4.cols>
// CHECK: %[[F:.*]] = arith.extf %[[W]] : tensor<64xbf16, #fa4.cols> to tensor<64xf32, #fa4.cols>
// CHECK: tile.broadcast %[[F]] axis 0 : tensor<64xf32, #fa4.cols> -> tensor<64x64xf32, #fa4.acc>
func.func @bf16_weights(%s: tensor<128x64xf32>, %w: !tile.ptr<bf16>, %n: index, %out: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %wd = tile.make_desc %w, [%n], [%c1] : !tile.ptr<bf16> -> !tile.desc<64xbf16>
  %wv = tile.load %wd[%c0] : !tile.desc<64xbf16> -> tensor<64xbf16>
  %wf = arith.extf %wv : tensor<64xbf16> to tensor<64xf32>
  %wb = tile.broadcast %wf axis 0 : tensor<64xf32> -> tensor<128x64xf32>
  %p = arith.mulf %s, %wb : tensor<128x64xf32>
  %c64 = arith.constant 64 : index
  %od = tile.make_desc %out, [%c64, %c64], [%c64, %c1] : !tile.ptr<f32> -> !tile.desc<128x64xf32>
  tile.store %p, %od[%c1, %c1] : tensor<128x64xf32>, !tile.desc<128x64xf32>
  return
}

// -----

// A 1-d tile that is neither a row nor a column of a 2-d one (a vector
// add's block of 1024): each warpgroup a run of 512 elements (#fa4.blocked),
// loaded and stored from its first element, warpgroup_id * 512.
// CHECK-LABEL: func.func @runs
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: %[[FIRST:.*]] = arith.muli %[[WG]], %c512{{(_[0-9]+)?}}
// CHECK: %[[X:.*]] = fa4.global_load %arg0[%{{.*}}] count(%{{.*}}) layout(#fa4.blocked) : !llvm.ptr<1> -> tensor<512xf32, #fa4.blocked>
// CHECK: %[[Y:.*]] = fa4.global_load %arg1[%{{.*}}] count(%{{.*}}) layout(#fa4.blocked) : !llvm.ptr<1> -> tensor<512xf32, #fa4.blocked>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : tensor<512xf32, #fa4.blocked>
// CHECK: fa4.global_store %[[SUM]], %arg2[%{{.*}}, %{{.*}}] rows(%arg3) stride(%c1{{(_[0-9]+)?}}) layout(#fa4.blocked) : tensor<512xf32, #fa4.blocked>, !llvm.ptr<1>
func.func @runs(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: index) {
  %c1 = arith.constant 1 : index
  %i = tile.program_id 0
  %xd = tile.make_desc %x, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<1024xf32>
  %yd = tile.make_desc %y, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<1024xf32>
  %od = tile.make_desc %out, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<1024xf32>
  %a = tile.load %xd[%i] : !tile.desc<1024xf32> -> tensor<1024xf32>
  %b = tile.load %yd[%i] : !tile.desc<1024xf32> -> tensor<1024xf32>
  %s = arith.addf %a, %b : tensor<1024xf32>
  tile.store %s, %od[%i] : tensor<1024xf32>, !tile.desc<1024xf32>
  return
}

// -----

// A run's iota counts from the warpgroup's first element: a mask of the
// elements before N.
// CHECK-LABEL: func.func @run_mask
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c512{{(_[0-9]+)?}}
// CHECK: %[[IOTA:.*]] = tile.iota axis 0 : tensor<512xi32, #fa4.blocked>
// CHECK: %[[CAST:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK: %[[SPLAT:.*]] = tile.splat %[[CAST]] : tensor<512xi32, #fa4.blocked>
// CHECK: %[[MINE:.*]] = arith.addi %[[IOTA]], %[[SPLAT]] : tensor<512xi32, #fa4.blocked>
// CHECK: arith.cmpi slt, %[[MINE]], %{{.*}} : tensor<512xi32, #fa4.blocked>
func.func @run_mask(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: index, %limit: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xd = tile.make_desc %x, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<1024xf32>
  %od = tile.make_desc %out, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<1024xf32>
  %a = tile.load %xd[%c0] : !tile.desc<1024xf32> -> tensor<1024xf32>
  %i = tile.iota axis 0 : tensor<1024xi32>
  %l = tile.splat %limit : tensor<1024xi32>
  %m = arith.cmpi slt, %i, %l : tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %s = arith.select %m, %a, %zero : tensor<1024xi1>, tensor<1024xf32>
  tile.store %s, %od[%c0] : tensor<1024xf32>, !tile.desc<1024xf32>
  return
}

// -----

func.func @odd_run(%x: !tile.ptr<f32>, %n: index) -> tensor<300xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xd = tile.make_desc %x, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<300xf32>
  // expected-error @below {{a 1-d register tile of 300 elements: fa4 spreads a 1-d tile that is neither a row nor a column of a 2-d one over the 256 consumer threads, a multiple of 256 elements up to 16384}}
  %a = tile.load %xd[%c0] : !tile.desc<300xf32> -> tensor<300xf32>
  return %a : tensor<300xf32>
}

// -----

func.func @both(%s: tensor<128x128xf32>, %v: !tile.ptr<f32>, %n: index) -> tensor<128x128xf32> {
  %c1 = arith.constant 1 : index
  %ld = tile.make_desc %v, [%n], [%c1] : !tile.ptr<f32> -> !tile.desc<128xf32>
  %c0 = arith.constant 0 : index
  %x = tile.load %ld[%c0] : !tile.desc<128xf32> -> tensor<128xf32>
  %r = tile.broadcast %x axis 0 : tensor<128xf32> -> tensor<128x128xf32>
  // expected-error @below {{'tile.broadcast' op takes 'tensor<128xf32>' as a row vector (one value per row), but the vector is also repeated along the rows of a 2-d tile (a column vector, `v.row()`): fa4 gives a vector one layout}}
  %c = tile.broadcast %x axis 1 : tensor<128xf32> -> tensor<128x128xf32>
  %sum = arith.addf %r, %c : tensor<128x128xf32>
  return %sum : tensor<128x128xf32>
}

// -----

// A 2-d tile of the CTA's rows through a pointer (a score bias): the
// warpgroup's rows, from row 128 i + 64 wg, with the rows and columns left.
// CHECK-LABEL: func.func @tile_through_pointer
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: %[[FIRST:.*]] = arith.muli %[[WG]], %c64
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c64
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %[[COL]]
// CHECK: %[[COLS:.*]] = arith.subi %c64{{.*}}, %[[COL]]
// CHECK: %[[BLOCK:.*]] = arith.muli %{{.*}}, %c128
// CHECK: %[[ROW:.*]] = arith.addi %[[BLOCK]], %[[FIRST]]
// CHECK: %[[AT:.*]] = arith.muli %[[ROW]], %c64
// CHECK: %[[MINE:.*]] = arith.addi %[[START]], %[[AT]]
// CHECK: %[[ROWS:.*]] = arith.subi %arg1, %[[ROW]]
// CHECK: fa4.global_load %arg0[%[[MINE]]] count(%[[COLS]]) stride(%c64{{.*}}) rows(%[[ROWS]]) layout(#fa4.acc) : !llvm.ptr<1> -> tensor<64x64xf32, #fa4.acc>
func.func @tile_through_pointer(%x: !tile.ptr<f32>, %n: index, %out: !tile.ptr<f32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %ld = tile.make_desc %x, [%n, %c64], [%c64, %c1] : !tile.ptr<f32> -> !tile.desc<128x64xf32>
  %t = tile.load %ld[%i, %j] : !tile.desc<128x64xf32> -> tensor<128x64xf32>
  %od = tile.make_desc %out, [%n, %c64], [%c64, %c1] : !tile.ptr<f32> -> !tile.desc<128x64xf32>
  tile.store %t, %od[%i, %c1] : tensor<128x64xf32>, !tile.desc<128x64xf32>
  return
}

// -----

func.func @short_tile_through_pointer(%x: !tile.ptr<f32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %ld = tile.make_desc %x, [%n, %c64], [%c64, %c1] : !tile.ptr<f32> -> !tile.desc<64x64xf32>
  // expected-error @below {{'tile.load' op loads 'tensor<64x64xf32>' in blocks of '!tile.desc<64x64xf32>' through a tile.make_desc: fa4 loads f32, bf16, f16 or i32 vectors and 2-d tiles of the plan's 128 CTA rows (of any rows in a kernel without a dot) that way (blocks of leading 1s, then contiguous rows), and other 2-d tiles through descriptor arguments (tensor maps)}}
  %t = tile.load %ld[%c0, %c0] : !tile.desc<64x64xf32> -> tensor<64x64xf32>
  %e = math.exp %t : tensor<64x64xf32>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %b = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  %s = tile.dot %b, %b, %acc : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
  return
}

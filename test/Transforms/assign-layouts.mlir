// fa4-assign-layouts: register tiles of the CTA's 128 rows become one
// consumer warpgroup's 64 rows in #fa4.acc / #fa4.rows, loaded tiles stay
// whole and a dot reads the warpgroup's rows of its shared A operand, row
// iotas gain the warpgroup's first row, stores through a make_desc of a
// kernel pointer become fa4.global_store with the tensor's edge as limit, and
// stores through a descriptor argument TMA stores through a staging tile.
// RUN: fa4-opt %s --split-input-file --fa4-attach-config=head-dim=128 --fa4-assign-layouts --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK-SAME: %[[O:[a-z0-9]+]]: !llvm.ptr<1> {fa4.name = "o"}
func.func @rows(%q: !tile.desc<1x128x128xbf16>, %k: !tile.desc<1x128x128xbf16>,
                %o: !tile.ptr<bf16> {fa4.name = "o"}, %seq: index, %heads: index) {
  // CHECK: %[[WG:.*]] = fa4.warpgroup_id
  // CHECK: %[[FIRST:.*]] = arith.muli %[[WG]], %c64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.program_id 0
  %bh = tile.program_id 1
  // CHECK: tile.load {{.*}} -> tensor<128x128xbf16>
  %qt = tile.load %q[%bh, %m, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %kt = tile.load %k[%bh, %c0, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
  // CHECK: arith.constant dense<0.000000e+00> : tensor<64x128xf32, #fa4.acc>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // CHECK: %[[QW:.*]] = fa4.warpgroup_rows %{{.*}} : tensor<128x128xbf16> -> tensor<64x128xbf16>
  // CHECK: tile.dot %[[QW]], %{{.*}}, %{{.*}} : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32, #fa4.acc>
  %s = tile.dot %qt, %ktt, %zero : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
  // CHECK: %[[IOTA:.*]] = tile.iota axis 0 : tensor<64x128xi32, #fa4.acc>
  // CHECK: %[[FIRST_I32:.*]] = arith.index_cast %[[FIRST]] : index to i32
  // CHECK: %[[SPLAT:.*]] = tile.splat %[[FIRST_I32]] : tensor<64x128xi32, #fa4.acc>
  // CHECK: %[[ROW:.*]] = arith.addi %[[IOTA]], %[[SPLAT]]
  // CHECK: arith.sitofp %[[ROW]]
  %rows = tile.iota axis 0 : tensor<128x128xi32>
  %rowsf = arith.sitofp %rows : tensor<128x128xi32> to tensor<128x128xf32>
  %x = arith.addf %s, %rowsf : tensor<128x128xf32>
  // CHECK: tile.reduce max %{{.*}} axis 1 : tensor<64x128xf32, #fa4.acc> -> tensor<64xf32, #fa4.rows>
  %mx = tile.reduce max %x axis 1 : tensor<128x128xf32> -> tensor<128xf32>
  %mb = tile.broadcast %mx axis 1 : tensor<128xf32> -> tensor<128x128xf32>
  %y = arith.subf %x, %mb : tensor<128x128xf32>
  %yb = arith.truncf %y : tensor<128x128xf32> to tensor<128x128xbf16>
  %sq_d = arith.muli %seq, %c128 : index
  %od = tile.make_desc %o, [%heads, %seq, %c128], [%sq_d, %c128, %c1] : !tile.ptr<bf16> -> !tile.desc<1x128x128xbf16>
  // The slice of head bh at element bh * (seq * 128), joined to the column;
  // row 128 m + 64 wg within it, limit seq.
  // CHECK: %[[SQD:.*]] = arith.muli %[[SEQ:arg[0-9]+]], %c128 : index
  // CHECK: %[[LEAD0:.*]] = arith.muli %{{.*}}, %[[SQD]]
  // CHECK: %[[LEAD:.*]] = arith.addi %{{.*}}, %[[LEAD0]]
  // CHECK: %[[M128:.*]] = arith.muli %{{.*}}, %c128
  // CHECK: %[[R:.*]] = arith.addi %[[M128]], %[[FIRST]]
  // CHECK: %[[C0:.*]] = arith.muli %{{.*}}, %c128
  // CHECK: %[[COL:.*]] = arith.addi %[[C0]], %[[LEAD]]
  // CHECK: fa4.global_store %{{.*}}, %[[O]][%[[R]], %[[COL]]] rows(%[[SEQ]]) stride(%c128{{.*}}) layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
  // CHECK-NOT: tile.make_desc
  tile.store %yb, %od[%bh, %m, %c0] : tensor<128x128xbf16>, !tile.desc<1x128x128xbf16>
  return
}

// -----

// A matrix of any width (a GEMM's C, N columns): the store of column block
// j writes what is left of the row, N - 128 j columns.
// CHECK-LABEL: func.func @any_width
func.func @any_width(%c: !tile.ptr<bf16> {fa4.name = "c"}, %m: index, %n: index) {
  %c1 = arith.constant 1 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<128x128xbf16>
  %cd = tile.make_desc %c, [%m, %n], [%n, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  // CHECK: %[[J:.*]] = tile.program_id 1
  // CHECK: %[[FIRST:.*]] = arith.muli %[[J]], %c128
  // CHECK: %[[LEFT:.*]] = arith.subi %arg2, %[[FIRST]] : index
  // CHECK: fa4.global_store %{{.*}} rows(%arg1) columns(%[[LEFT]]) stride(%arg2)
  tile.store %zero, %cd[%i, %j] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

// A width that the launch requires to be a whole number of blocks (the
// author's `p.require(b.dim0 % 128 == 0)`): nothing to test.
// CHECK-LABEL: func.func @required_width
func.func @required_width(%c: !tile.ptr<bf16> {fa4.name = "c"}, %m: index, %n: index {fa4.value = "b.dim0"}) attributes {fa4.require = ["b.dim0 % 128 == 0"]} {
  %c1 = arith.constant 1 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<128x128xbf16>
  %cd = tile.make_desc %c, [%m, %n], [%n, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  // CHECK: fa4.global_store %{{.*}} rows(%arg1) stride(%arg2)
  tile.store %zero, %cd[%i, %j] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

// In a kernel with a dot, register tiles have the plan's rows (those of a
// kernel without one take #fa4.coalesced: test/Transforms/coalesced.mlir).
func.func @odd_rows(%a: !tile.desc<128x128xbf16>) {
  %c0 = arith.constant 0 : index
  %at = tile.load %a[%c0, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %s = tile.dot %at, %at, %acc : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
  // expected-error @below {{a register tile 'tensor<96x128xf32>' does not have the plan's 128 rows (2 consumer warpgroups of 64 rows): fa4 keeps 2-d tiles and row vectors of the CTA's rows in registers}}
  %zero = arith.constant dense<0.0> : tensor<96x128xf32>
  return
}

// -----

func.func @not_splat(%d: !tile.desc<128x128xbf16>, %i: index) {
  // expected-error @below {{a register tile constant must be a splat to be split among the consumer warpgroups}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0]> : tensor<128xf32>
  return
}

// -----

// A store through a descriptor argument is a TMA store (fa4-attach-config
// sets tma_store for it): the argument becomes a tensor map of one
// warpgroup's 64 rows by one 128-byte span, the staging tile of the CTA's
// 128 rows a buffer of its own, the barrier the warpgroup's epilogue one
// (4 + warpgroup), and the kernel ends with the wait for the stores.
// CHECK-LABEL: func.func @store_through_arg
// CHECK-SAME: %[[D:[a-z0-9]+]]: !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, %[[I:[a-z0-9]+]]: index
// CHECK-SAME: tma_store = true
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c64
// CHECK: %[[BUF:.*]] = fa4.shared_buffer : memref<128x128xbf16, 3>
// CHECK: %[[ROW0:.*]] = arith.muli %[[I]], %c128
// CHECK: %[[ROW:.*]] = arith.addi %[[ROW0]], %[[FIRST]]
// CHECK: %[[COL:.*]] = arith.muli %[[I]], %c128
// CHECK: %[[WG:.*]] = fa4.warpgroup_id
// CHECK: %[[BAR:.*]] = arith.addi %[[WG]], %c4
// CHECK: fa4.tma_store %{{.*}}, %[[BUF]][%[[FIRST]]], %[[D]][%[[ROW]], %[[COL]]] barrier(%[[BAR]]) : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
// CHECK-NEXT: fa4.tma_store_wait
// CHECK-NEXT: return
func.func @store_through_arg(%d: !tile.desc<128x128xbf16>, %i: index) {
  %zero = arith.constant dense<0.0> : tensor<128x128xbf16>
  tile.store %zero, %d[%i, %i] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

// A plan without tma_store cannot store through a tensor map.
func.func @store_without_tma_store(%d: !tile.desc<128x128xbf16>, %i: index) attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128,
    head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
    swizzle = 128, q_tiles = 2, target = sm_90a,
    roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %zero = arith.constant dense<0.0> : tensor<128x128xbf16>
  // expected-error @below {{stores through descriptor argument #0 but the plan has no tma_store (fa4-attach-config sets it for a kernel that does)}}
  tile.store %zero, %d[%i, %i] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// -----

func.func @store_narrow_block(%d: !tile.desc<128x32xbf16>, %i: index) {
  %zero = arith.constant dense<0.0> : tensor<128x32xbf16>
  // expected-error @below {{a TMA store takes 2-d blocks (with leading 1s) of the plan's 128 CTA rows by whole 64-column spans of a 16-bit type}}
  tile.store %zero, %d[%i, %i] : tensor<128x32xbf16>, !tile.desc<128x32xbf16>
  return
}

// -----

// A loaded tile that elementwise math uses is read into registers once,
// right after the load: the warpgroup's rows in #fa4.acc (fa4.shared_load);
// the dot still reads it from shared memory.
// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%k: !tile.desc<128x128xbf16>, %i: index) {
  // CHECK: %[[WG:.*]] = fa4.warpgroup_id
  // CHECK: %[[FIRST:.*]] = arith.muli %[[WG]], %c64
  // CHECK: %[[KT:.*]] = tile.load
  // CHECK-NEXT: %[[R:.*]] = fa4.shared_load %[[KT]][%[[FIRST]]] : tensor<128x128xbf16> -> tensor<64x128xbf16, #fa4.acc>
  // CHECK-NEXT: arith.addf %[[R]], %[[R]] : tensor<64x128xbf16, #fa4.acc>
  // CHECK: fa4.warpgroup_rows %[[KT]]
  %kt = tile.load %k[%i, %i] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %x = arith.addf %kt, %kt : tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %s = tile.dot %kt, %ktt, %zero : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
  %y = arith.extf %x : tensor<128x128xbf16> to tensor<128x128xf32>
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<64x128xf32, #fa4.acc>
  %r = arith.addf %s, %y : tensor<128x128xf32>
  return
}

// -----

func.func @elementwise_rows(%k: !tile.desc<64x64xbf16>, %i: index) {
  %kt = tile.load %k[%i, %i] : !tile.desc<64x64xbf16> -> tensor<64x64xbf16>
  // expected-error @below {{uses a loaded 'tensor<64x64xbf16>' in registers: fa4 reads loaded 2-d tiles of 16- or 32-bit elements and the plan's 128 CTA rows into registers (64 a warpgroup), 1-d tiles through a tile.make_desc of a kernel pointer; other loaded tiles feed dots only}}
  %x = arith.addf %kt, %kt : tensor<64x64xbf16>
  return
}

// -----

func.func @transposed(%k: !tile.desc<128x128xbf16>, %i: index) {
  %kt = tile.load %k[%i, %i] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %t = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
  // expected-error @below {{uses a transposed loaded tile: fa4 feeds transposed loaded tiles to dots only}}
  %x = arith.addf %t, %t : tensor<128x128xbf16>
  return
}

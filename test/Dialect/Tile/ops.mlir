// Every tile op and type prints and parses back, in the pretty and the
// generic form.
// RUN: fa4-opt %s | fa4-opt | FileCheck %s
// RUN: fa4-opt %s --mlir-print-op-generic | fa4-opt | FileCheck %s

// CHECK-LABEL: func.func @attention_step
func.func @attention_step(%qp: !tile.ptr<bf16>, %kp: !tile.ptr<bf16>, %op: !tile.ptr<bf16>,
                          %rows: index, %scale: f32, %accp: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // CHECK: tile.program_id 0
  %m = tile.program_id 0
  // CHECK: tile.num_programs 2
  %n = tile.num_programs 2
  // CHECK: tile.make_desc %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  %qd = tile.make_desc %qp, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  %kd = tile.make_desc %kp, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<64x128xbf16>
  %od = tile.make_desc %op, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %q = tile.load %qd[%m, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
  %k = tile.load %kd[%c1, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
  // CHECK: tile.trans %{{.*}} : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %kt = tile.trans %k : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  %s = tile.dot %q, %kt, %zero : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
  // CHECK: tile.splat %{{.*}} : tensor<128x64xf32>
  %c = tile.splat %scale : tensor<128x64xf32>
  %sc = arith.mulf %s, %c : tensor<128x64xf32>
  // CHECK: tile.reduce max %{{.*}} axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  %rowmax = tile.reduce max %sc axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  // CHECK: tile.broadcast %{{.*}} axis 1 : tensor<128xf32> -> tensor<128x64xf32>
  %mb = tile.broadcast %rowmax axis 1 : tensor<128xf32> -> tensor<128x64xf32>
  %x = arith.subf %sc, %mb : tensor<128x64xf32>
  // CHECK: tile.exp2 %{{.*}} : tensor<128x64xf32>
  %p = tile.exp2 %x : tensor<128x64xf32>
  // CHECK: tile.reduce sum %{{.*}} axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  %l = tile.reduce sum %p axis 1 : tensor<128x64xf32> -> tensor<128xf32>
  // CHECK: tile.iota axis 1 : tensor<128x64xi32>
  %cols = tile.iota axis 1 : tensor<128x64xi32>
  // CHECK: tile.iota axis 0 : tensor<128x64xi32>
  %rws = tile.iota axis 0 : tensor<128x64xi32>
  %mask = arith.cmpi sle, %cols, %rws : tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %masked = arith.select %mask, %p, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  tile.store %q, %od[%m, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] add : tensor<128x64xf32>, !tile.desc<128x64xf32>
  %acc = tile.make_desc %accp, [%m, %c0], [%c0, %c0] : !tile.ptr<f32> -> !tile.desc<128x64xf32>
  tile.store %masked, %acc[%m, %c0] add : tensor<128x64xf32>, !tile.desc<128x64xf32>
  return
}

// CHECK-LABEL: func.func @loop
func.func @loop(%kd: !tile.desc<64x128xbf16>, %n: index) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<0.0> : tensor<64x128xf32>
  // CHECK: scf.for
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x128xf32> {
    %k = tile.load %kd[%j, %c0] : !tile.desc<64x128xbf16> -> tensor<64x128xbf16>
    %kf = arith.extf %k : tensor<64x128xbf16> to tensor<64x128xf32>
    %next = arith.addf %acc, %kf : tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  return %r : tensor<64x128xf32>
}

// A gather: two [1, 64, 64] blocks, each at its own coordinates, stacked
// along the rows into a 128 x 64 tile.
// CHECK-LABEL: func.func @gather_rows
func.func @gather_rows(%d: !tile.desc<1x64x64xbf16>, %p: index, %q: index, %i: index) {
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !tile.desc<1x64x64xbf16> -> tensor<128x64xbf16>
  %t = tile.load %d[%p, %i, %i, %q, %i, %i] : !tile.desc<1x64x64xbf16> -> tensor<128x64xbf16>
  return
}

// A [1, 128, 64] block of a [B·H, S, D] tensor moves a 128 x 64 tile.
// CHECK-LABEL: func.func @unit_leading
func.func @unit_leading(%d: !tile.desc<1x128x64xbf16>, %i: index) {
  // CHECK: tile.load %{{.*}} : !tile.desc<1x128x64xbf16> -> tensor<128x64xbf16>
  %t = tile.load %d[%i, %i, %i] : !tile.desc<1x128x64xbf16> -> tensor<128x64xbf16>
  // CHECK: tile.store %{{.*}} : tensor<1x128x64xbf16>, !tile.desc<1x128x64xbf16>
  %u = tile.load %d[%i, %i, %i] : !tile.desc<1x128x64xbf16> -> tensor<1x128x64xbf16>
  tile.store %u, %d[%i, %i, %i] : tensor<1x128x64xbf16>, !tile.desc<1x128x64xbf16>
  return
}

// Element offsets and scalar reads (packed sequences).
// CHECK-LABEL: func.func @packed
func.func @packed(%qp: !tile.ptr<bf16>, %op: !tile.ptr<bf16>, %cu: !tile.ptr<i32>,
                  %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tile.program_id 1
  // CHECK: tile.load_scalar %{{.*}}[%{{.*}}] : !tile.ptr<i32>
  %start = tile.load_scalar %cu[%b] : !tile.ptr<i32>
  %row = arith.index_cast %start : i32 to index
  %qd = tile.make_desc %qp, [%c1, %rows, %c64], [%c64, %c64, %c1] : !tile.ptr<bf16> -> !tile.desc<1x128x64xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] elements : !tile.desc<1x128x64xbf16> -> tensor<128x64xbf16>
  %q = tile.load %qd[%c0, %row, %c0] elements : !tile.desc<1x128x64xbf16> -> tensor<128x64xbf16>
  %od = tile.make_desc %op, [%c1, %rows, %c64], [%c64, %c64, %c1] : !tile.ptr<bf16> -> !tile.desc<1x128x64xbf16>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] elements : tensor<128x64xbf16>, !tile.desc<1x128x64xbf16>
  tile.store %q, %od[%c0, %row, %c0] elements : tensor<128x64xbf16>, !tile.desc<1x128x64xbf16>
  return
}

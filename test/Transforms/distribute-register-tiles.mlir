// fa4-distribute-register-tiles turns #fa4.acc tiles into vector<N/2>,
// #fa4.rows vectors into vector<2> and #fa4.blocked runs of N into
// vector<N/128> per thread: elementwise ops follow the
// types, row reductions shuffle across the quad, loops carry the vectors.
// RUN: fa4-opt %s --fa4-distribute-register-tiles | FileCheck %s

!Acc = tensor<64x128xf32, #fa4.acc>
!Rows = tensor<64xf32, #fa4.rows>

// CHECK-LABEL: func.func @softmax_step
// CHECK-SAME: (%[[S:.*]]: vector<64xf32>, %[[M:.*]]: vector<2xf32>, %[[SCALE:.*]]: f32)
func.func @softmax_step(%s: !Acc, %m: !Rows, %scale: f32) -> (!Acc, !Rows) {
  // CHECK: %[[SC:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<64xf32>
  %c = tile.splat %scale : !Acc
  // CHECK: %[[X:.*]] = arith.mulf %[[S]], %[[SC]] : vector<64xf32>
  %x = arith.mulf %s, %c : !Acc
  // Row max: 32 values of row half 0 combined in the thread as a tree
  // (16 + 8 + 4 + 2 + 1 maxima, pairs first), then lanes 1, 2.
  // CHECK: %[[E0:.*]] = vector.extract %[[X]][0] : f32 from vector<64xf32>
  // CHECK-NEXT: %[[E1:.*]] = vector.extract %[[X]][1] : f32 from vector<64xf32>
  // CHECK-NEXT: %[[E2:.*]] = vector.extract %[[X]][4] : f32 from vector<64xf32>
  // CHECK-NEXT: %[[E3:.*]] = vector.extract %[[X]][5] : f32 from vector<64xf32>
  // CHECK: %[[P0:.*]] = arith.maxnumf %[[E0]], %[[E1]] : f32
  // CHECK-NEXT: %[[P1:.*]] = arith.maxnumf %[[E2]], %[[E3]] : f32
  // CHECK-COUNT-14: arith.maxnumf
  // CHECK-NEXT: %{{.*}} = arith.maxnumf %[[P0]], %[[P1]] : f32
  // CHECK-COUNT-14: arith.maxnumf
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[ONE:.*]], %{{.*}} : f32 -> f32
  // CHECK: arith.maxnumf
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[TWO:.*]], %{{.*}} : f32 -> f32
  // CHECK: arith.maxnumf
  // CHECK: vector.extract %[[X]][2] : f32 from vector<64xf32>
  // CHECK: %[[RM:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
  %rowmax = tile.reduce max %x axis 1 : !Acc -> !Rows
  // CHECK: %[[MN:.*]] = arith.maximumf %[[M]], %[[RM]] : vector<2xf32>
  %mnew = arith.maximumf %m, %rowmax : !Rows
  // CHECK: %[[B:.*]] = vector.shuffle %[[MN]], %[[MN]] [0, 0, 1, 1, 0, 0, 1, 1,
  // CHECK-SAME: : vector<2xf32>, vector<2xf32>
  %mb = tile.broadcast %mnew axis 1 : !Rows -> !Acc
  // CHECK: %[[D:.*]] = arith.subf %[[X]], %[[B]] : vector<64xf32>
  %d = arith.subf %x, %mb : !Acc
  // CHECK: math.exp2 %[[D]] : vector<64xf32>
  %p = tile.exp2 %d : !Acc
  return %p, %mnew : !Acc, !Rows
}

// CHECK-LABEL: func.func @mask
func.func @mask(%s: !Acc, %limit: i32) -> !Acc {
  // Column of each value: 2 * (lane % 4) + 8 j + e.
  // CHECK: nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %{{.*}} : vector<64xi32>
  %cols = tile.iota axis 1 : tensor<64x128xi32, #fa4.acc>
  %lim = arith.constant dense<100> : tensor<64x128xi32, #fa4.acc>
  // CHECK: %[[IN:.*]] = arith.cmpi slt, %[[COL]], %{{.*}} : vector<64xi32>
  %in = arith.cmpi slt, %cols, %lim : tensor<64x128xi32, #fa4.acc>
  // CHECK: arith.constant dense<0xFF800000> : vector<64xf32>
  %ninf = arith.constant dense<0xFF800000> : !Acc
  // CHECK: arith.select %[[IN]], %{{.*}}, %{{.*}} : vector<64xi1>, vector<64xf32>
  %r = arith.select %in, %s, %ninf : tensor<64x128xi1, #fa4.acc>, !Acc
  return %r : !Acc
}

// CHECK-LABEL: func.func @loop_and_mma
func.func @loop_and_mma(%q: memref<64x64xbf16, 3>, %k: memref<128x64xbf16, 3>,
                        %v: memref<128x128xbf16, 3>, %out: !llvm.ptr<1>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<64xf32>
  %zero = arith.constant dense<0.0> : !Acc
  // CHECK: scf.for {{.*}} iter_args(%[[O:.*]] = %[[Z]]) -> (vector<64xf32>)
  %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> !Acc {
    // CHECK: fa4.mma.async %{{.*}}, %{{.*}}, %[[Z]] : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
    %s = fa4.mma.async %q, %k, %zero : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, !Acc
    // CHECK: fa4.mma.wait %{{.*}} pending(0) : vector<64xf32>
    %s1 = fa4.mma.wait %s pending(0) : !Acc
    // CHECK: arith.truncf %{{.*}} : vector<64xf32> to vector<64xbf16>
    %p = arith.truncf %s1 : !Acc to tensor<64x128xbf16, #fa4.acc>
    // CHECK: fa4.mma.async %{{.*}}, %{{.*}}, %[[O]] b_mn_major : vector<64xbf16>, memref<128x128xbf16, 3>, vector<64xf32>
    %o1 = fa4.mma.async %p, %v, %acc b_mn_major : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>, !Acc
    %o2 = fa4.mma.wait %o1 pending(0) : !Acc
    scf.yield %o2 : !Acc
  }
  // CHECK: fa4.global_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows(%{{.*}}) stride(%{{.*}}) layout(#fa4.acc) : vector<64xf32>, !llvm.ptr<1>
  fa4.global_store %o, %out[%c0, %c0] rows(%n) stride(%n) layout(#fa4.acc) : !Acc, !llvm.ptr<1>
  return
}

// O's rescaling in the loop that carries O, from 128 columns (64 values a
// thread) on: the warps whose row factors are all exactly 1 skip the
// multiplies (vote, branch; an empty asm keeps LLVM from making the branch
// a select); the same scaling outside such a loop (the final normalisation)
// or of a narrower tile multiplies unconditionally.
!Wide = tensor<64x256xf32, #fa4.acc>
// CHECK-LABEL: func.func @rescale
// CHECK-SAME: (%[[O0:.*]]: vector<128xf32>, %[[ALPHA:.*]]: vector<2xf32>, %{{.*}}: index)
func.func @rescale(%o0: !Wide, %alpha: !Rows, %n: index) -> !Wide {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[O:.*]] = %[[O0]]) -> (vector<128xf32>)
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%o = %o0) -> !Wide {
    // CHECK: %[[AB:.*]] = vector.shuffle %[[ALPHA]], %[[ALPHA]]
    %ab = tile.broadcast %alpha axis 1 : !Rows -> !Wide
    // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
    // CHECK: %[[A0:.*]] = vector.extract %[[ALPHA]][0] : f32 from vector<2xf32>
    // CHECK: %[[NE0:.*]] = arith.cmpf une, %[[A0]], %[[ONE]] : f32
    // CHECK: %[[A1:.*]] = vector.extract %[[ALPHA]][1] : f32 from vector<2xf32>
    // CHECK: %[[NE1:.*]] = arith.cmpf une, %[[A1]], %[[ONE]] : f32
    // CHECK: %[[NE:.*]] = arith.ori %[[NE0]], %[[NE1]] : i1
    // CHECK: %[[ANY:.*]] = nvvm.vote.sync any %{{.*}}, %[[NE]] -> i1
    // CHECK: %[[SCALED:.*]] = scf.if %[[ANY]] -> (vector<128xf32>) {
    // CHECK:   llvm.inline_asm has_side_effects asm_dialect = att "", "" : () -> ()
    // CHECK:   %[[M:.*]] = arith.mulf %[[O]], %[[AB]] : vector<128xf32>
    // CHECK:   scf.yield %[[M]] : vector<128xf32>
    // CHECK: } else {
    // CHECK:   scf.yield %[[O]] : vector<128xf32>
    // CHECK: }
    %scaled = arith.mulf %o, %ab : !Wide
    // CHECK: scf.yield %[[SCALED]] : vector<128xf32>
    scf.yield %scaled : !Wide
  }
  // CHECK-NOT: nvvm.vote.sync
  // CHECK: %[[FB:.*]] = vector.shuffle
  // CHECK-NEXT: arith.mulf %[[R]], %[[FB]] : vector<128xf32>
  %fb = tile.broadcast %alpha axis 1 : !Rows -> !Wide
  %final = arith.mulf %r, %fb : !Wide
  return %final : !Wide
}

// CHECK-LABEL: func.func @rescale_128
// CHECK: nvvm.vote.sync any
// CHECK: scf.if
func.func @rescale_128(%o0: !Acc, %alpha: !Rows, %n: index) -> !Acc {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%o = %o0) -> !Acc {
    %ab = tile.broadcast %alpha axis 1 : !Rows -> !Acc
    %scaled = arith.mulf %o, %ab : !Acc
    scf.yield %scaled : !Acc
  }
  return %r : !Acc
}

!Narrow = tensor<64x64xf32, #fa4.acc>
// CHECK-LABEL: func.func @rescale_narrow
// CHECK-NOT: nvvm.vote.sync
// CHECK: return
func.func @rescale_narrow(%o0: !Narrow, %alpha: !Rows, %n: index) -> !Narrow {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%o = %o0) -> !Narrow {
    %ab = tile.broadcast %alpha axis 1 : !Rows -> !Narrow
    %scaled = arith.mulf %o, %ab : !Narrow
    scf.yield %scaled : !Narrow
  }
  return %r : !Narrow
}

// A #fa4.cols vector of 64 columns: its column pairs spread over a warp's
// lanes, lane l holding columns 2l and 2l + 1 (2 values). Repeated along
// the rows of an #fa4.acc tile, a thread takes column e of its column block
// j from lane 4j + l % 4: one shuffle a column, shared by its two row
// halves (value 4j + 2h + e). Its iota counts columns from 2l.
// CHECK-LABEL: func.func @column_terms
// CHECK-SAME: (%[[S:.*]]: vector<32xf32>, %[[L:.*]]: vector<2xf32>)
func.func @column_terms(%s: tensor<64x64xf32, #fa4.acc>, %l: tensor<64xf32, #fa4.cols>) -> (tensor<64x64xf32, #fa4.acc>, tensor<64xi32, #fa4.cols>) {
  // CHECK: %[[QUAD:.*]] = arith.remui %{{.*}}, %c4_i32 : i32
  // CHECK: %[[L0:.*]] = vector.extract %[[L]][0] : f32 from vector<2xf32>
  // CHECK: %[[FROM0:.*]] = arith.addi %[[QUAD]], %c0_i32 : i32
  // CHECK: %[[C0:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[L0]], %[[FROM0]], %c31_i32 : f32 -> f32
  // CHECK: %[[L1:.*]] = vector.extract %[[L]][1] : f32 from vector<2xf32>
  // CHECK: %[[C1:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[L1]], %{{.*}}, %c31_i32 : f32 -> f32
  // CHECK: %[[FROM2:.*]] = arith.addi %[[QUAD]], %c4_i32{{.*}} : i32
  // CHECK: %[[C2:.*]] = nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %[[FROM2]], %c31_i32 : f32 -> f32
  // CHECK-COUNT-13: nvvm.shfl.sync idx
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: %[[B:.*]] = vector.from_elements %[[C0]], %[[C1]], %[[C0]], %[[C1]], %[[C2]], {{.*}} : vector<32xf32>
  %b = tile.broadcast %l axis 0 : tensor<64xf32, #fa4.cols> -> tensor<64x64xf32, #fa4.acc>
  // CHECK: arith.subf %[[S]], %[[B]] : vector<32xf32>
  %d = arith.subf %s, %b : tensor<64x64xf32, #fa4.acc>
  // CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32_i32{{.*}} : i32
  // CHECK: %[[FIRST:.*]] = arith.muli %[[LANE]], %c2_i32{{.*}} : i32
  // CHECK: %[[SPLAT:.*]] = vector.broadcast %[[FIRST]] : i32 to vector<2xi32>
  // CHECK: arith.constant dense<[0, 1]> : vector<2xi32>
  %i = tile.iota axis 0 : tensor<64xi32, #fa4.cols>
  return %d, %i : tensor<64x64xf32, #fa4.acc>, tensor<64xi32, #fa4.cols>
}

// A mask of 128 columns (i1, 4 values a thread: lane l's pairs l and
// l + 32) goes through the shuffles as i32; column blocks 8 and on take
// the second pair.
// CHECK-LABEL: func.func @column_mask
// CHECK-SAME: (%[[S:.*]]: vector<64xf32>, %[[M:.*]]: vector<4xi1>)
func.func @column_mask(%s: tensor<64x128xf32, #fa4.acc>, %m: tensor<128xi1, #fa4.cols>) -> tensor<64x128xf32, #fa4.acc> {
  // CHECK: %[[M0:.*]] = vector.extract %[[M]][0] : i1 from vector<4xi1>
  // CHECK: %[[W0:.*]] = arith.extui %[[M0]] : i1 to i32
  // CHECK: %[[X0:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[W0]], %{{.*}}, %c31_i32 : i32 -> i32
  // CHECK: arith.trunci %[[X0]] : i32 to i1
  // CHECK-COUNT-15: vector.extract %[[M]][{{0|1}}] : i1 from vector<4xi1>
  // CHECK: vector.extract %[[M]][2] : i1 from vector<4xi1>
  // CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<64xi1>
  %b = tile.broadcast %m axis 0 : tensor<128xi1, #fa4.cols> -> tensor<64x128xi1, #fa4.acc>
  %z = arith.constant dense<0.0> : tensor<64x128xf32, #fa4.acc>
  // CHECK: arith.select %[[B]], %[[S]], %{{.*}} : vector<64xi1>, vector<64xf32>
  %r = arith.select %b, %s, %z : tensor<64x128xi1, #fa4.acc>, tensor<64x128xf32, #fa4.acc>
  return %r : tensor<64x128xf32, #fa4.acc>
}

// A run of a 1-d tile (#fa4.blocked): a warpgroup's 512 elements are four a
// thread, vector<4>; an iota gives each thread its four consecutive indices
// from 4 * (tid % 128), converted to f32 once and stepped in f32
// (test/Transforms/positions.mlir).
// CHECK-LABEL: func.func @run
// CHECK-SAME: (%[[X:.*]]: vector<4xf32>) -> vector<4xi1>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c128_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[LANE]], %c4_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[FIRST]] : i32 to vector<4xi32>
// CHECK: %[[STEPS:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK: %[[IDX:.*]] = arith.addi %[[SPLAT]], %[[STEPS]] : vector<4xi32>
// CHECK: %[[F:.*]] = arith.sitofp %[[FIRST]] : i32 to f32
// CHECK: %[[FSPLAT:.*]] = vector.broadcast %[[F]] : f32 to vector<4xf32>
// CHECK: %[[FSTEPS:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : vector<4xf32>
// CHECK: arith.addf %[[FSPLAT]], %[[FSTEPS]] : vector<4xf32>
func.func @run(%x: tensor<512xf32, #fa4.blocked>) -> tensor<512xi1, #fa4.blocked> {
  %i = tile.iota axis 0 : tensor<512xi32, #fa4.blocked>
  %f = arith.sitofp %i : tensor<512xi32, #fa4.blocked> to tensor<512xf32, #fa4.blocked>
  %lt = arith.cmpf olt, %x, %f : tensor<512xf32, #fa4.blocked>
  return %lt : tensor<512xi1, #fa4.blocked>
}

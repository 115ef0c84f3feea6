// fa4-distribute-register-tiles reads a column chosen at run time, the sum
// of a one-hot select along the rows (`sum(where(iota(axis 1) == j, t, 0),
// 1)`), as column j of t: a tree of selects over the thread's values of each
// row half (first by the column in the lane's pair, j % 2, then by the bits
// of the 8-column block, j / 8), one shuffle from the lane of the quad that
// holds column j, +0 added (as the sum adds it) and 0 where no column is
// j. Any other reduction, or a select whose other side is not +0, stays a
// sum.
// RUN: fa4-opt %s --fa4-distribute-register-tiles | FileCheck %s

!Acc = tensor<64x32xf32, #fa4.acc>
!Idx = tensor<64x32xi32, #fa4.acc>
!Rows = tensor<64xf32, #fa4.rows>

// CHECK-LABEL: func.func @pick
// CHECK-SAME: (%[[T:.*]]: vector<16xf32>, %[[J:.*]]: i32)
func.func @pick(%t: !Acc, %j: i32) -> !Rows {
  %zero = arith.constant dense<0.0> : !Acc
  %cols = tile.iota axis 1 : !Idx
  %js = tile.splat %j : !Idx
  %hit = arith.cmpi eq, %cols, %js : !Idx
  %one = arith.select %hit, %t, %zero : tensor<64x32xi1, #fa4.acc>, !Acc
  // Where column j lies (AccFragment.h): the quad's lane (j % 8) / 2, the
  // block j / 8 and the pair's column j % 2; the lane to read from is the
  // thread's quad's first plus that lane.
  // CHECK: %[[INBLOCK:.*]] = arith.remui %[[J]], %{{.*}} : i32
  // CHECK-NEXT: arith.constant 2
  // CHECK-NEXT: %[[QL:.*]] = arith.divui %[[INBLOCK]], %{{.*}} : i32
  // CHECK: %[[BLOCK:.*]] = arith.divui %[[J]], %{{.*}} : i32
  // CHECK: %[[PAIR:.*]] = arith.remui %[[J]], %{{.*}} : i32
  // CHECK: %[[FIRST:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
  // CHECK-NEXT: %[[FROM:.*]] = arith.addi %[[FIRST]], %[[QL]] : i32
  // CHECK: %[[IN:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : i32
  // Row half 0: values 0, 1 (block 0), 4, 5 (block 1), 8, 9, 12, 13.
  // CHECK: %[[V0:.*]] = vector.extract %[[T]][0]
  // CHECK-NEXT: %[[V1:.*]] = vector.extract %[[T]][1]
  // CHECK-NEXT: %[[V2:.*]] = vector.extract %[[T]][4]
  // CHECK-NEXT: %[[V3:.*]] = vector.extract %[[T]][5]
  // CHECK-NEXT: vector.extract %[[T]][8]
  // CHECK-NEXT: vector.extract %[[T]][9]
  // CHECK-NEXT: vector.extract %[[T]][12]
  // CHECK-NEXT: vector.extract %[[T]][13]
  // CHECK: arith.andi %[[PAIR]], %{{.*}} : i32
  // CHECK-NEXT: %[[B0:.*]] = arith.trunci %{{.*}} : i32 to i1
  // CHECK-NEXT: %[[S0:.*]] = arith.select %[[B0]], %[[V1]], %[[V0]] : f32
  // CHECK-NEXT: %[[S1:.*]] = arith.select %[[B0]], %[[V3]], %[[V2]] : f32
  // CHECK-COUNT-2: arith.select %[[B0]]
  // CHECK: arith.andi %[[BLOCK]], %{{.*}} : i32
  // CHECK-NEXT: %[[B3:.*]] = arith.trunci %{{.*}} : i32 to i1
  // CHECK-NEXT: %[[S4:.*]] = arith.select %[[B3]], %[[S1]], %[[S0]] : f32
  // CHECK-NEXT: arith.select %[[B3]]
  // CHECK: arith.shrui %[[BLOCK]], %{{.*}}
  // CHECK: %[[B4:.*]] = arith.trunci %{{.*}} : i32 to i1
  // CHECK-NEXT: %[[S6:.*]] = arith.select %[[B4]], %{{.*}}, %[[S4]] : f32
  // CHECK: %[[W0:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[S6]], %[[FROM]], %{{.*}} : f32 -> f32
  // CHECK-NEXT: %[[K0:.*]] = arith.select %[[IN]], %[[W0]], %[[ZERO:.*]] : f32
  // CHECK-NEXT: %[[R0:.*]] = arith.addf %[[K0]], %[[ZERO]] : f32
  // Row half 1: values 2, 3, 6, 7, ...
  // CHECK: vector.extract %[[T]][2]
  // CHECK-NEXT: vector.extract %[[T]][3]
  // CHECK-NEXT: vector.extract %[[T]][6]
  // CHECK: nvvm.shfl.sync idx
  // CHECK: %[[R1:.*]] = arith.addf %{{.*}}, %[[ZERO]] : f32
  // CHECK: %[[R:.*]] = vector.from_elements %[[R0]], %[[R1]] : vector<2xf32>
  // CHECK-NOT: nvvm.shfl.sync bfly
  // CHECK: return %[[R]]
  %w = tile.reduce sum %one axis 1 : !Acc -> !Rows
  return %w : !Rows
}

// A max, and a select whose other side is -inf, stay reductions (a max
// of one value and -infs is not that value when it is NaN).
// CHECK-LABEL: func.func @not_a_pick
// CHECK-COUNT-2: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync idx
func.func @not_a_pick(%t: !Acc, %j: i32) -> !Rows {
  %ninf = arith.constant dense<0xFF800000> : !Acc
  %cols = tile.iota axis 1 : !Idx
  %js = tile.splat %j : !Idx
  %hit = arith.cmpi eq, %cols, %js : !Idx
  %one = arith.select %hit, %t, %ninf : tensor<64x32xi1, #fa4.acc>, !Acc
  %w = tile.reduce max %one axis 1 : !Acc -> !Rows
  return %w : !Rows
}

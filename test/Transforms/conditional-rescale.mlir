// fa4-conditional-rescale: an #fa4.acc tile times a column-broadcast
// #fa4.rows factor is multiplied only in warps whose rows have a factor other
// than 1 (the vote expected false, so that the branch stays a branch); other
// multiplies stay as they are.
// RUN: fa4-opt %s --fa4-conditional-rescale | FileCheck %s

!Acc = tensor<64x128xf32, #fa4.acc>
!Rows = tensor<64xf32, #fa4.rows>

// CHECK-LABEL: func.func @rescale
// CHECK-SAME: (%[[ACC:.*]]: tensor<64x128xf32, #fa4.acc>, %[[ALPHA:.*]]: tensor<64xf32, #fa4.rows>, %[[C:.*]]: f32)
func.func @rescale(%acc: !Acc, %alpha: !Rows, %c: f32) -> (!Acc, !Acc) {
  // CHECK: %[[B:.*]] = tile.broadcast %[[ALPHA]] axis 1
  // CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64xf32, #fa4.rows>
  // CHECK-NEXT: %[[NE:.*]] = arith.cmpf une, %[[ALPHA]], %[[ONE]] : tensor<64xf32, #fa4.rows>
  // CHECK-NEXT: %[[ANY:.*]] = fa4.warp_any %[[NE]] : tensor<64xi1, #fa4.rows>
  // CHECK-NEXT: %[[FALSE:.*]] = arith.constant false
  // CHECK-NEXT: %[[LIKELY:.*]] = llvm.intr.expect %[[ANY]], %[[FALSE]] : i1
  // CHECK-NEXT: %[[R:.*]] = scf.if %[[LIKELY]] -> (tensor<64x128xf32, #fa4.acc>) {
  // CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[ACC]], %[[B]] fastmath<contract> : tensor<64x128xf32, #fa4.acc>
  // CHECK-NEXT:   scf.yield %[[M]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   scf.yield %[[ACC]]
  // CHECK-NEXT: }
  %b = tile.broadcast %alpha axis 1 : !Rows -> !Acc
  %r = arith.mulf %acc, %b fastmath<contract> : !Acc
  // A factor that is not per row: no branch.
  // CHECK: %[[S:.*]] = tile.splat %[[C]]
  // CHECK-NEXT: %[[T:.*]] = arith.mulf %[[R]], %[[S]] : tensor<64x128xf32, #fa4.acc>
  // CHECK-NEXT: return %[[R]], %[[T]]
  %s = tile.splat %c : !Acc
  %t = arith.mulf %r, %s : !Acc
  return %r, %t : !Acc, !Acc
}

// The factor on the left, as the DSL may write it.
// CHECK-LABEL: func.func @factor_first
func.func @factor_first(%acc: !Acc, %alpha: !Rows) -> !Acc {
  // CHECK: fa4.warp_any
  // CHECK: scf.if
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<64x128xf32, #fa4.acc>
  %b = tile.broadcast %alpha axis 1 : !Rows -> !Acc
  %r = arith.mulf %b, %acc : !Acc
  return %r : !Acc
}

// fa4.warp_any: the thread's predicates or'ed, then vote.sync.any over the
// full warp.
// RUN: fa4-opt %s --convert-fa4-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @vote
// CHECK-SAME: (%[[P:.*]]: vector<2xi1>)
func.func @vote(%p: vector<2xi1>) -> i1 {
  // CHECK: %[[E0:.*]] = llvm.extractelement %[[P]][%{{.*}} : i32] : vector<2xi1>
  // CHECK: %[[E1:.*]] = llvm.extractelement %[[P]][%{{.*}} : i32] : vector<2xi1>
  // CHECK: %[[OR:.*]] = llvm.or %[[E0]], %[[E1]] : i1
  // CHECK: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK: %[[V:.*]] = nvvm.vote.sync any %[[ALL]], %[[OR]] -> i1
  // CHECK: llvm.return %[[V]]
  %a = fa4.warp_any %p : vector<2xi1>
  return %a : i1
}

// Named barriers to bar.sync / bar.arrive with their id and thread count.
// RUN: fa4-opt %s --convert-fa4-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @barriers
func.func @barriers() {
  // CHECK-DAG: %[[ID:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-DAG: %[[N:.*]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
  fa4.named_barrier.sync id(3) threads(256)
  // CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
  fa4.named_barrier.arrive id(4) threads(128)
  return
}

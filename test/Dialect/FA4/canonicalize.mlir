// Canonicalization of fa4 ops: an MMA onto a constant-zero accumulator (of
// either sign) starts from zero instead; any other accumulator stays.
// RUN: fa4-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @zero_accumulator
func.func @zero_accumulator(%q: memref<64x64xbf16, 3>, %k: memref<128x64xbf16, 3>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %minus = arith.constant dense<-0.0> : tensor<64x128xf32>
  // CHECK: fa4.mma.async %{{.*}}, %{{.*}} : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  // CHECK-NEXT: fa4.mma.async %{{.*}}, %{{.*}} : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  %s = fa4.mma.async %q, %k, %zero : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  %t = fa4.mma.async %q, %k, %minus : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  return %s, %t : tensor<64x128xf32>, tensor<64x128xf32>
}

// -----

// CHECK-LABEL: func.func @other_accumulators
func.func @other_accumulators(%q: memref<64x64xbf16, 3>, %k: memref<128x64xbf16, 3>, %acc: vector<64xf32>) -> (vector<64xf32>, vector<64xf32>) {
  %one = arith.constant dense<1.0> : vector<64xf32>
  // CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00>
  // CHECK: fa4.mma.async %{{.*}}, %{{.*}}, %[[ONE]] :
  // CHECK: fa4.mma.async %{{.*}}, %{{.*}}, %{{.*}} :
  %s = fa4.mma.async %q, %k, %one : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
  %t = fa4.mma.async %q, %k, %acc : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<64xf32>
  return %s, %t : vector<64xf32>, vector<64xf32>
}

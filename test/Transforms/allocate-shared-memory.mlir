// fa4-allocate-shared-memory places each pipeline's region (1024-byte aligned
// tiles, then 8-byte mbarriers, the region rounded up to 1024 B) in the
// kernel's dynamic shared memory and records the total, the sum the plan
// verifier checks; a kernel over the target's limit is an error.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics --fa4-allocate-shared-memory | FileCheck %s

// K: 3 x 2 sub-stages of 16 KiB, then 12 barriers = 98400 B. V starts at the
// next 1024-byte boundary (99328) and takes 3 x 32 KiB + 6 barriers, 98352 B,
// rounded up to 99328: 198656 in all.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: fa4.shared_memory_bytes = 198656
func.func @attention() attributes {fa4.kernel} {
  // CHECK: fa4.pipeline.create consumers(256) {offset = 0 : i64}
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
  // CHECK: fa4.pipeline.create consumers(256) {offset = 99328 : i64}
  %v = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 3, qk = 1, memref<128x128xbf16, 3>>
  return
}

// CHECK-LABEL: func.func @empty_kernel
// CHECK-SAME: fa4.shared_memory_bytes = 0
func.func @empty_kernel() attributes {fa4.kernel} {
  return
}

// -----

// expected-error @below {{kernel needs 264192 B of shared memory for its pipelines but sm_90a allows 232448 B}}
func.func @too_big() attributes {fa4.kernel} {
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 4, qk = 2, memref<128x64xbf16, 3>>
  %v = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 4, qk = 1, memref<128x128xbf16, 3>>
  return
}

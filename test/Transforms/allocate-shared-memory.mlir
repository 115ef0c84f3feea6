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

// A schedule pipeline (2 x 8 B of slots and 4 barriers, 48 B) needs no
// 1024-byte alignment: it goes in the padding after the first region with
// room, here K's (98400 B, then 928 B free), and the total stays the same;
// a kernel whose regions leave no room gives it one of its own at the end.
// CHECK-LABEL: func.func @schedule_in_padding
// CHECK-SAME: fa4.shared_memory_bytes = 198656
func.func @schedule_in_padding() attributes {fa4.kernel} {
  // CHECK: fa4.pipeline.create consumers(256) {offset = 0 : i64} : !fa4.pipeline<k
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
  // CHECK: fa4.pipeline.create consumers(256) {offset = 98400 : i64} : !fa4.pipeline<schedule
  %s = fa4.pipeline.create consumers(256) : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
  // CHECK: fa4.pipeline.create consumers(256) {offset = 99328 : i64} : !fa4.pipeline<v
  %v = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 3, qk = 1, memref<128x128xbf16, 3>>
  return
}

// CHECK-LABEL: func.func @schedule_at_end
// CHECK-SAME: fa4.shared_memory_bytes = 33792
func.func @schedule_at_end() attributes {fa4.kernel} {
  // CHECK: fa4.shared_buffer {offset = 0 : i64}
  %o = fa4.shared_buffer : memref<128x128xbf16, 3>
  // CHECK: fa4.pipeline.create consumers(256) {offset = 32768 : i64} : !fa4.pipeline<schedule
  %s = fa4.pipeline.create consumers(256) : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
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

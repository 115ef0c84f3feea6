// The lowering refuses a kernel that an earlier phase has not reached (an
// implicit pipeline state, a shared buffer without its offset, named
// barriers of a kernel built to diagnose hangs without their stand-ins, a
// kernel without a thread count), naming the pass to run first and the
// section of docs/Rationale.md that gives the rule. Laid-out register tiles
// are refused in mma.mlir.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics --convert-fa4-to-nvvm

!V = !fa4.pipeline<v, kv = 2, qk = 1, memref<128x128xbf16, 3>>

func.func @implicit_state() {
  %p = fa4.pipeline.create consumers(256) {offset = 0 : i64} : !V
  // expected-error @below {{'fa4.pipeline.start' op has an implicit pipeline state; run fa4-explicit-pipeline-state first (docs/Rationale.md, "Explicit pipeline state")}}
  %s = fa4.pipeline.start %p consumer : !V
  fa4.consumer.release %p[%s] : !V
  return
}

// -----

func.func @unallocated_pipeline() {
  // expected-error @below {{'fa4.pipeline.create' op has no shared-memory offset; run fa4-allocate-shared-memory first (docs/Rationale.md, "Shared memory allocated")}}
  // expected-error @below {{failed to legalize operation 'fa4.pipeline.create' that was explicitly marked illegal}}
  %p = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 2, qk = 1, memref<128x128xbf16, 3>>
  return
}

// -----

func.func @unallocated_buffer() {
  // expected-error @below {{'fa4.shared_buffer' op has no shared-memory offset; run fa4-allocate-shared-memory first (docs/Rationale.md, "Shared memory allocated")}}
  // expected-error @below {{failed to legalize operation 'fa4.shared_buffer' that was explicitly marked illegal}}
  %b = fa4.shared_buffer : memref<128x128xbf16, 3>
  return
}

// -----

func.func @unallocated_stand_ins() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], debug_hangs = true>} {
  // expected-error @below {{'fa4.named_barrier.sync' op is in a kernel built to diagnose hangs whose named barriers have no stand-in mbarriers ('fa4.named_barrier_offset'); run fa4-allocate-shared-memory first (docs/Rationale.md, "Shared memory allocated")}}
  // expected-error @below {{failed to legalize operation 'fa4.named_barrier.sync' that was explicitly marked illegal}}
  fa4.named_barrier.sync id(1) threads(256)
  return
}

// -----

// expected-error @below {{kernel has no thread count; give it an fa4.warp_specialize and run fa4-lower-warp-roles first (docs/Rationale.md, "Roles lowered")}}
func.func @roles_not_lowered() attributes {fa4.kernel} {
  return
}

// fa4-print-plan reports the tiles, the shared-memory budget and the register
// budget of every plan, and leaves the IR alone.
// RUN: fa4-opt %s --fa4-print-plan 2>&1 | FileCheck %s

// CHECK: fa4 plan for @hd128: bf16, head dim 128/128, sm_90a
// CHECK-NEXT: tiles: 2 Q tile(s) of bm 64, bn 128, bk0 64 (2 qk stages), bk1 128, 3 kv stages, swizzle 128 B
// CHECK-NEXT: schedule: one tile per CTA, 1 Q stage(s)
// CHECK-NEXT: shared memory: Q 32768 B + K 98304 B + V 98304 B + barriers 160 B + alignment 2912 B = 232448 B of 232448 B
// CHECK-NEXT: roles: producer 4 warps x 24 regs; consumer 8 warps x 240 regs; 64512 of 65536 registers
// CHECK: fa4 plan for @hd64: bf16, head dim 64/64, sm_90a
// CHECK: schedule: one tile per CTA, 1 Q stage(s), MMA descriptors rebuilt each step (rebuild_descriptors)
// CHECK: func.func @hd128
func.func @hd128() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128,
    head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2,
    swizzle = 128, q_tiles = 2, target = sm_90a,
    roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} {
  return
}

func.func @hd64() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64,
    head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1,
    swizzle = 128, q_tiles = 2, target = sm_90a,
    roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>],
    rebuild_descriptors = true>} {
  return
}

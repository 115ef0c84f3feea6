// fa4-attach-config derives the FA4Config plan: 1, 2 and 4 qk stages for head
// dims 64, 128 and 256 with 128-byte swizzle, kv stages from shared memory,
// and honours command-line overrides. The MMA descriptors are rebuilt each
// step at head dim 64 and one add a step from 128 on, unless asked.
// RUN: fa4-opt %s --fa4-attach-config="head-dim=64" | FileCheck %s --check-prefix=D64
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128" | FileCheck %s --check-prefix=D128
// RUN: fa4-opt %s --fa4-attach-config="head-dim=256" | FileCheck %s --check-prefix=D256
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 dtype=f16 kv-stages=2 qk-stages=2" | FileCheck %s --check-prefix=OVERRIDE
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 target=sm_100a" | FileCheck %s --check-prefix=SM100
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=128 kv-stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=128 dtype=f32" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=128 target=sm_80" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=192 qk-stages=2" 2>&1 | FileCheck %s --check-prefix=BOX
// A persistent plan has two Q stages where they fit beside the kv stages
// (head dim 128), one where they do not (256); one when asked.
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 persistent=true" | FileCheck %s --check-prefix=PERSISTENT
// RUN: fa4-opt %s --fa4-attach-config="head-dim=256 persistent=true" | FileCheck %s --check-prefix=PERSISTENT-D256
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 persistent=true q-stages=1" | FileCheck %s --check-prefix=PERSISTENT-Q1
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=128 q-stages=2" 2>&1 | FileCheck %s --check-prefix=Q2-ONE-TILE
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 rebuild-descriptors=true" | FileCheck %s --check-prefix=REBUILD
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 persistent=true interleave-heads=true" | FileCheck %s --check-prefix=HEADS
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=128 interleave-heads=true" 2>&1 | FileCheck %s --check-prefix=HEADS-ONE-TILE
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 persistent=true dynamic-schedule=true" | FileCheck %s --check-prefix=DYNAMIC
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=128 dynamic-schedule=true" 2>&1 | FileCheck %s --check-prefix=DYNAMIC-ONE-TILE
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 persistent=true dynamic-schedule=true" --fa4-print-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=DYNAMIC-PLAN
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 short-pointers=true" | FileCheck %s --check-prefix=SHORT
// RUN: fa4-opt %s --fa4-attach-config="head-dim=128 short-pointers=true" --fa4-print-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT-PLAN
// RUN: fa4-opt %s --fa4-attach-config="head-dim=64 rebuild-descriptors=false" | FileCheck %s --check-prefix=ONE-ADD
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=64 rebuild-descriptors=maybe" 2>&1 | FileCheck %s --check-prefix=REBUILD-BAD
// consumer-warpgroups: one consumer warpgroup per 64-row Q tile, sharing
// the registers the producer leaves (240 a thread for up to two, 160 for
// three); at most three.
// RUN: fa4-opt %s --fa4-attach-config="head-dim=64 consumer-warpgroups=3" | FileCheck %s --check-prefix=WG3
// RUN: fa4-opt %s --fa4-attach-config="head-dim=64 consumer-warpgroups=1" | FileCheck %s --check-prefix=WG1
// RUN: not fa4-opt %s --fa4-attach-config="head-dim=64 consumer-warpgroups=4" 2>&1 | FileCheck %s --check-prefix=WG4

// D64: func.func @kernel() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 4, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], rebuild_descriptors = true>}
// D128: func.func @kernel() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128
// D256: func.func @kernel() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 256, head_dim_v = 256, bm = 64, bn = 80, bk0 = 64, bk1 = 80, kv_stages = 2, qk_stages = 4, swizzle = 128
// OVERRIDE: #fa4.config<element_type = f16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
// SM100: #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 128, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_100a, roles = [#fa4.role<producer, warps = 4, regs = 48>, #fa4.role<softmax, warps = 8, regs = 192>, #fa4.role<correction, warps = 4, regs = 80>]>
// SMEM: error: shared memory plan needs 297984 B (Q 32768 B, K 131072 B, V 131072 B, barriers 208 B, alignment 2864 B) but sm_90a allows 232448 B
// DTYPE: error: dtype 'f32' is not bf16 or f16
// TARGET: error: target 'sm_80' is not sm_90a or sm_100a
// PERSISTENT: kv_stages = 2, qk_stages = 2, {{.*}}, persistent = true, q_stages = 2>
// PERSISTENT-D256: head_dim = 256, {{.*}}, persistent = true>
// PERSISTENT-Q1: head_dim = 128, {{.*}}, persistent = true>
// Q2-ONE-TILE: error: q_stages 2 needs a persistent plan: a CTA of one tile loads its Q once
// REBUILD: head_dim = 128, {{.*}}, rebuild_descriptors = true>
// ONE-ADD: head_dim = 64, {{.*}} regs = 240>]>}
// HEADS: persistent = true, q_stages = 2, interleave_heads = true>
// HEADS-ONE-TILE: error: interleave_heads orders the tiles of a persistent plan, but this plan runs one tile per CTA
// DYNAMIC: persistent = true, q_stages = 2, dynamic_schedule = true>
// DYNAMIC-ONE-TILE: error: dynamic_schedule hands out the tiles of a persistent plan, but this plan runs one tile per CTA
// The schedule pipeline's slots and barriers (48 B) come out of the
// padding: the total is the static plan's 199680 B.
// SHORT: short_pointers = true>
// SHORT-PLAN: schedule: one tile per CTA, 1 Q stage(s), 32-bit shared-memory pointers (short_pointers)
// DYNAMIC-PLAN: schedule: persistent (dynamic: tiles claimed from a counter, handed on through a schedule pipeline), 2 Q stage(s)
// DYNAMIC-PLAN-NEXT: shared memory: Q 65536 B + K 65536 B + V 65536 B + schedule slots 16 B + barriers 160 B + alignment 2896 B = 199680 B of 232448 B
// REBUILD-BAD: plan field rebuild-descriptors takes true, false or derived, not 'maybe'
// BOX: error: K band of 192 B (bk0 96 x 2 B) is neither within nor a whole number of 128 B swizzle spans

func.func @kernel() {
  return
}

// A function that already has a plan keeps it.
// D64: func.func @planned() attributes {fa4.config = #fa4.config<element_type = f16, head_dim = 64
func.func @planned() attributes {fa4.config = #fa4.config<element_type = f16, head_dim = 64,
    head_dim_v = 64, bm = 64, bn = 64, bk0 = 64, bk1 = 64, kv_stages = 2, qk_stages = 1,
    swizzle = 128, q_tiles = 1, target = sm_90a,
    roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 4, regs = 240>]>} {
  return
}
// WG3: q_tiles = 3, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 12, regs = 160>]
// WG1: q_tiles = 1, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 4, regs = 240>]
// WG4: error: q_tiles 4 is not in [1, 3] (one consumer warpgroup per Q tile)

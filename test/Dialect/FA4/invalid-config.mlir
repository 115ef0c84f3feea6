// Every verifier message of the fa4 dialect, one case each.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics
// expected-error @below {{element type must be bf16 or f16, got 'f32'}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = f32, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{head_dim 100 is not a multiple of 16 in [16, 256]}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 100, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{head_dim_v 512 is not a multiple of 16 in [16, 256]}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 512, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{swizzle 256 B is not one of 32, 64 or 128}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 256, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{bm 96 is not a positive multiple of 64 (one warpgroup MMA covers 64 rows)}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 96, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{bn 72 is not a positive multiple of 16}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 72, bk0 = 64, bk1 = 72, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{bn 320 exceeds 256, the largest TMA box dimension}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 320, bk0 = 64, bk1 = 320, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{bk0 64 x qk_stages 1 does not split the padded head dim 128 (expected bk0 = padded head dim / qk_stages)}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{K band of 192 B (bk0 96 x 2 B) is neither within nor a whole number of 128 B swizzle spans}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 192, head_dim_v = 192, bm = 64, bn = 128, bk0 = 96, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{bk0 8 is not a multiple of 16, the MMA contraction step}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 16, head_dim_v = 16, bm = 64, bn = 128, bk0 = 8, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 32, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{bk1 64 must equal bn 128: V loads are complete (one qk stage)}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 64, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{kv_stages 0 must be at least 1}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 0, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{q_stages 3 must be 1 or 2}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, q_stages = 3>} { return }

// -----

// expected-error @below {{q_stages 2 needs a persistent plan: a CTA of one tile loads its Q once}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], q_stages = 2>} { return }

// -----

// expected-error @below {{interleave_heads orders the tiles of a persistent plan, but this plan runs one tile per CTA}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], interleave_heads = true>} { return }

// -----

// Two Q stages at head dim 256 leave no room for two kv stages of 80 rows.
// expected-error @below {{shared memory plan needs 297984 B (Q 131072 B, K 81920 B, V 81920 B, barriers 192 B, alignment 2880 B) but sm_90a allows 232448 B}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 256, head_dim_v = 256, bm = 64, bn = 80, bk0 = 64, bk1 = 80, kv_stages = 2, qk_stages = 4, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, q_stages = 2>} { return }

// -----

// expected-error @below {{q_tiles 4 is not in [1, 3] (one consumer warpgroup per Q tile)}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 4, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 16, regs = 112>]>} { return }

// -----

// expected-error @below {{consumer role has 8 warps but q_tiles 3 needs 12 (a warpgroup per Q tile)}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 3, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{roles must be #fa4.role attributes, got 1 : i64}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [1]>} { return }

// -----

// expected-error @below {{a config needs at least one warp role}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = []>} { return }

// -----

// expected-error @below {{roles need 1152 threads (producer: 4 warps x 24, consumer: 32 warps x 32) but a CTA holds at most 1024}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 32, regs = 32>]>} { return }

// -----

// expected-error @below {{roles need 68608 registers (producer: 4 warps x 24, consumer: 8 warps x 256) but the SM has 65536}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 256>]>} { return }

// -----

// Within the SM's registers but not the CTA's: 384 threads start with 168
// each (64512), and setmaxnreg cannot give the consumers 240 while the
// producer keeps 32 (65536 in all).
// expected-error @below {{roles need 65536 registers (producer: 4 warps x 32, consumer: 8 warps x 240) but a CTA of 384 threads is launched with 64512 (168 a thread), which setmaxnreg can only move between warpgroups}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 32>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{shared memory plan needs 297984 B (Q 32768 B, K 131072 B, V 131072 B, barriers 208 B, alignment 2864 B) but sm_90a allows 232448 B}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 4, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>} { return }

// -----

// expected-error @below {{role 'consumer' has 6 warps; a role takes whole warpgroups (a positive multiple of 4 warps) since setmaxnreg applies per warpgroup}}
func.func @f() attributes {r = #fa4.role<consumer, warps = 6, regs = 240>} { return }

// -----

// expected-error @below {{role 'producer' asks for 20 registers per thread; setmaxnreg takes a multiple of 8 in [24, 256]}}
func.func @f() attributes {r = #fa4.role<producer, warps = 4, regs = 20>} { return }

// -----

// expected-error @below {{'fa4.config' must be a #fa4.config attribute}}
func.func @f() attributes {fa4.config = 1 : i64} { return }

// -----

// expected-error @below {{unknown fa4 attribute 'fa4.plan'}}
func.func @f() attributes {fa4.plan = 1 : i64} { return }

// -----

// A one-tile plan whose O is wider than its Q stage stages O in a buffer of
// its own, which counts: four kv stages no longer fit.
// expected-error @below {{O staging 32768 B}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 4, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], tma_store = true>} { return }

// -----

// A persistent plan's O staging tile counts: three kv stages no longer fit.
// expected-error @below {{shared memory plan needs 265216 B (Q 32768 B, K 98304 B, V 98304 B, O staging 32768 B, barriers 160 B, alignment 2912 B) but sm_90a allows 232448 B}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, tma_store = true>} { return }

// -----

// expected-error @below {{dynamic_schedule hands out the tiles of a persistent plan, but this plan runs one tile per CTA}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], dynamic_schedule = true>} { return }

// -----

// expected-error @below {{interleave_heads numbers the pairs of the static schedule; a dynamic_schedule takes its tiles in groups of heads (grid_group) instead}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, interleave_heads = true, dynamic_schedule = true>} { return }

// -----

// The schedule pipeline fits the padding of the Q region; with three kv
// stages the plan is over the limit as it would be without it, and says so
// with the slots and their barriers counted.
// expected-error @below {{shared memory plan needs 265216 B (Q 32768 B, K 98304 B, V 98304 B, O staging 32768 B, schedule slots 16 B, barriers 192 B, alignment 2864 B) but sm_90a allows 232448 B}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, tma_store = true, dynamic_schedule = true>} { return }

// -----

// o_in_q: the TMA store of a persistent plan staged in the tile's Q stage.
// expected-error @below {{o_in_q stages the TMA store of a persistent plan in the tile's Q stage, but this plan is without tma_store}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, o_in_q = true>} { return }

// -----

// expected-error @below {{tma_store in a persistent plan with o_in_q stages O in the Q stage, but head_dim_v 128 (padded 128) is wider than head_dim 64 (padded 64); leave o_in_q out (O gets a buffer of its own)}}
func.func @f() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true, tma_store = true, o_in_q = true>} { return }

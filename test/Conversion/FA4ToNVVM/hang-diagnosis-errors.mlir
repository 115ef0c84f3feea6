// The verifier's rules for the hang-diagnosis attributes, and the lowering's
// refusal of a named barrier used with two thread counts in a kernel built
// to diagnose hangs (one mbarrier per barrier has one arrival count).
// RUN: fa4-opt --split-input-file --verify-diagnostics %s --convert-fa4-to-nvvm

func.func @site_on_arrive() {
  // expected-error @+1 {{'fa4.hang_site' must be a non-negative integer on a producer.acquire, consumer.wait, named_barrier.sync or tma_store}}
  fa4.named_barrier.arrive id(1) threads(256) {fa4.hang_site = 0 : i64}
  return
}

// -----

func.func @negative_site() {
  // expected-error @+1 {{'fa4.hang_site' must be a non-negative integer}}
  fa4.named_barrier.sync id(1) threads(256) {fa4.hang_site = -1 : i64}
  return
}

// -----

// expected-error @+1 {{'fa4.hang_sites' entry 1 is not 'role|first thread|barrier|0 or 1|location'}}
module attributes {fa4.hang_sites = ["consumer|128|named barrier 1|0|a.cpp:1", "consumer|x|named barrier 1|0|a.cpp:1"]} {
}

// -----

// expected-error @+1 {{'fa4.hang_sites' must be an array of strings on a module}}
func.func @sites_on_function() attributes {fa4.hang_sites = []} {
  return
}

// -----

func.func @two_counts() attributes {fa4.config = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], debug_hangs = true>, fa4.kernel, fa4.named_barrier_offset = 0 : i64, fa4.threads = 384 : i64} {
  fa4.named_barrier.arrive id(1) threads(256)
  // expected-error @+1 {{uses named barrier 1 with 128 threads, where another op of the kernel uses it with 256; a barrier has one thread count}}
  fa4.named_barrier.sync id(1) threads(128)
  return
}

// Every verifier message of the fa4 ops, one case each.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
#hd128 = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>

func.func @f() attributes {fa4.config = #hd128} {
  // expected-error @below {{K pipeline tile 128x128xbf16 does not match the config's 128x64xbf16 (bn x head_dim / qk stages)}}
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x128xbf16, 3>>
  return
}

// -----

#hd128 = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>

func.func @f() attributes {fa4.config = #hd128} {
  // expected-error @below {{V pipeline tile 128x64xf16 does not match the config's 128x128xbf16 (bn x head_dim_v)}}
  %v = fa4.pipeline.create consumers(256) : !fa4.pipeline<v, kv = 3, qk = 1, memref<128x64xf16, 3>>
  return
}

// -----

// Q-, K- and V-kind tiles span either head dim (the backward's dO beside
// Q, its V read transposed as K).
#mla = #fa4.config<element_type = bf16, head_dim = 192, head_dim_v = 128, bm = 64, bn = 64, bk0 = 64, bk1 = 64, kv_stages = 2, qk_stages = 3, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>

func.func @f() attributes {fa4.config = #mla} {
  // expected-error @below {{Q pipeline tile 64x64xbf16 does not match the config's 64x192xbf16 or 64x128xbf16 (bm x head_dim, or the other head dim)}}
  %q = fa4.pipeline.create consumers(128) : !fa4.pipeline<q, kv = 1, qk = 1, memref<64x64xbf16, 3>>
  return
}

// -----

#hd128 = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>

func.func @f() attributes {fa4.config = #hd128} {
  // expected-error @below {{Q pipeline tile 96x128xbf16 does not match the config's 64x128xbf16 (bm x head_dim)}}
  %q = fa4.pipeline.create consumers(128) : !fa4.pipeline<q, kv = 1, qk = 1, memref<96x128xbf16, 3>>
  return
}

// -----

#hd128 = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>

func.func @f() attributes {fa4.config = #hd128} {
  // expected-error @below {{K pipeline has 2 kv stages but the config plans 3}}
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 2, qk = 2, memref<128x64xbf16, 3>>
  return
}

// -----

#hd128 = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>]>

func.func @f() attributes {fa4.config = #hd128} {
  // expected-error @below {{K pipeline has 4 qk stages but the config plans 2 of 64 columns (or 1 before the qk split)}}
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 4, memref<128x32xbf16, 3>>
  return
}

// -----

func.func @f() {
  // expected-error @below {{'fa4.pipeline.create' op attribute 'consumer_arrivals' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %k = fa4.pipeline.create consumers(0) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
  return
}

// -----

!V = !fa4.pipeline<v, kv = 3, qk = 1, memref<128x128xbf16, 3>>
func.func @f(%v: !V) {
  %s = fa4.pipeline.start %v producer : !V
  // expected-error @below {{V pipelines are loaded complete and take qk stage 0 only, got 1}}
  fa4.producer.acquire %v[%s] qk 1 : !V
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
func.func @f(%k: !K) {
  %s = fa4.pipeline.start %k consumer : !K
  // expected-error @below {{qk stage 2 is out of range for a pipeline with 2 qk stages}}
  fa4.consumer.release %k[%s] qk 2 : !K
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!M = !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
func.func @f(%k: !K, %m: !M, %i: index) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{tile 1 is out of range for a pipeline with 1 tiles per stage}}
  fa4.producer.load %k[%s] tile 1, %m[%i, %i] : !K, !M
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!M = !fa4.tensor_map<f16, box = [128, 64], swizzle = 128>
func.func @f(%k: !K, %m: !M, %i: index) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{tensor map of 'f16' cannot fill a tile of 'bf16'}}
  fa4.producer.load %k[%s], %m[%i, %i] : !K, !M
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!M = !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
func.func @f(%k: !K, %m: !M, %i: index) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{a tensor map of rank 2 takes 2 coordinates, got 1}}
  fa4.producer.load %k[%s], %m[%i] : !K, !M
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!M = !fa4.tensor_map<bf16, box = [1, 32, 64], swizzle = 128>
func.func @f(%k: !K, %m: !M, %i: index) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{a tensor map of rank 3 takes 3 coordinates, or 12 (one group per row of boxes), got 6}}
  fa4.producer.load %k[%s], %m[%i, %i, %i, %i, %i, %i] : !K, !M
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!M = !fa4.tensor_map<bf16, box = [2, 128, 64], swizzle = 128>
func.func @f(%k: !K, %m: !M, %i: index) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{tensor map box of rank 3 cannot fill a 2-d tile (leading box dimensions past the tile's rank must be 1)}}
  fa4.producer.load %k[%s], %m[%i, %i, %i] : !K, !M
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!M = !fa4.tensor_map<bf16, box = [96, 64], swizzle = 128>
func.func @f(%k: !K, %m: !M, %i: index) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{tile 128x64xbf16 is not a whole number of 96x64xbf16 boxes}}
  fa4.producer.load %k[%s], %m[%i, %i] : !K, !M
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
func.func @f(%k: !K) {
  %s = fa4.pipeline.start %k consumer : !K
  // expected-error @below {{results must be the pipeline's 1 tile buffers, in order}}
  %t = fa4.consumer.wait %k[%s] : !K -> memref<64x64xbf16, 3>
  return
}

// -----

func.func @f() {
  fa4.warp_specialize {
    // expected-error @below {{cannot stand directly in 'fa4.warp_specialize': its body holds only 'fa4.role' ops}}
    %c = arith.constant 0 : index
  }
  return
}

// -----

func.func @f() {
  // expected-error @below {{needs at least one 'fa4.role'}}
  fa4.warp_specialize {
  }
  return
}

// -----

func.func @f() {
  // expected-error @below {{roles need 68608 registers (producer: 4 warps x 40, consumer: 8 warps x 248) but the SM has 65536}}
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(40) {
    }
    fa4.role consumer warps(8) regs(248) {
    }
  }
  return
}

// -----

func.func @f() {
  fa4.warp_specialize {
    // expected-error @below {{role 'producer' has 1 warps; a role takes whole warpgroups (a positive multiple of 4 warps) since setmaxnreg applies per warpgroup}}
    fa4.role producer warps(1) regs(24) {
    }
  }
  return
}

// -----

func.func @f() {
  fa4.warp_specialize {
    // expected-error @below {{role 'consumer' asks for 300 registers per thread; setmaxnreg takes a multiple of 8 in [24, 256]}}
    fa4.role consumer warps(4) regs(300) {
    }
  }
  return
}

// -----

func.func @f() {
  // expected-error @below {{'fa4.role' op expects parent op 'fa4.warp_specialize'}}
  fa4.role consumer warps(4) regs(240) {
  }
  return
}

// -----

func.func @f() {
  // expected-error @below {{must be nested in an 'fa4.role', or in a kernel with an #fa4.config before its roles are formed}}
  %wg = fa4.warpgroup_id
  return
}

// -----

func.func @f(%a: memref<64x64xbf16, 3>, %b: memref<128x64xbf16, 3>, %c: tensor<64xf32>) {
  // expected-error @below {{A and the accumulator must be 2-d, got ranks 2 and 1}}
  %r = fa4.mma.async %a, %b, %c : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64xf32>
  return
}

// -----

func.func @f(%a: memref<64x64xf16, 3>, %b: memref<128x64xbf16, 3>, %c: tensor<64x128xf32>) {
  // expected-error @below {{A of 'f16' and B of 'bf16' must have one element type}}
  %r = fa4.mma.async %a, %b, %c : memref<64x64xf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
  return
}

// -----

func.func @f(%a: memref<64x64xbf16, 3>, %b: memref<128x32xbf16, 3>, %c: tensor<64x128xf32>) {
  // expected-error @below {{contraction sizes differ: A is 64x64, B (k-major, N x K) is 128x32}}
  %r = fa4.mma.async %a, %b, %c : memref<64x64xbf16, 3>, memref<128x32xbf16, 3>, tensor<64x128xf32>
  return
}

// -----

func.func @f(%a: memref<64x64xbf16, 3>, %b: memref<128x64xbf16, 3>, %c: tensor<64x64xf32>) {
  // expected-error @below {{accumulator is 64x64 but A x B is 64x128}}
  %r = fa4.mma.async %a, %b, %c : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x64xf32>
  return
}

// -----

func.func @f(%a: tensor<32x128xbf16>, %b: memref<128x128xbf16, 3>, %c: tensor<32x128xf32>) {
  // expected-error @below {{M 32 is not a multiple of 64 (one warpgroup MMA covers 64 rows)}}
  %r = fa4.mma.async %a, %b, %c b_mn_major : tensor<32x128xbf16>, memref<128x128xbf16, 3>, tensor<32x128xf32>
  return
}

// -----

func.func @f(%a: memref<64x64xbf16, 3>, %b: memref<260x64xbf16, 3>, %c: tensor<64x260xf32>) {
  // expected-error @below {{N 260 is not a multiple of 8 up to 256}}
  %r = fa4.mma.async %a, %b, %c : memref<64x64xbf16, 3>, memref<260x64xbf16, 3>, tensor<64x260xf32>
  return
}

// -----

func.func @f(%a: memref<64x24xbf16, 3>, %b: memref<128x24xbf16, 3>, %c: tensor<64x128xf32>) {
  // expected-error @below {{K 24 is not a multiple of 16}}
  %r = fa4.mma.async %a, %b, %c : memref<64x24xbf16, 3>, memref<128x24xbf16, 3>, tensor<64x128xf32>
  return
}

// -----

func.func @f() {
  // expected-error @below {{named barrier id 0 is the CTA-wide barrier of __syncthreads; use 1 to 15}}
  fa4.named_barrier.sync id(0) threads(256)
  return
}

// -----

func.func @f() {
  // expected-error @below {{named barrier id 16 is outside [1, 15]}}
  fa4.named_barrier.arrive id(16) threads(256)
  return
}

// -----

func.func @f() {
  // expected-error @below {{thread count 100 is not a multiple of the warp size 32 in [32, 1024]}}
  fa4.named_barrier.sync id(1) threads(100)
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
func.func @f(%k: !K, %a: i32) {
  %s = fa4.pipeline.start %k producer : !K
  // expected-error @below {{takes a pipeline state, or a stage index and a phase as two i32 values}}
  "fa4.producer.acquire"(%k, %s, %a) <{qk = 0 : i64}> : (!K, !fa4.pipeline_state, i32) -> ()
  return
}

// -----

!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
func.func @f(%k: !K, %a: i32) {
  // expected-error @below {{expected a pipeline state, or a stage index and a phase, got 3 operands}}
  fa4.producer.acquire %k[%a, %a, %a] : !K
  return
}

// -----

func.func @f(%a: vector<32xf32>, %b: memref<128x64xbf16, 3>, %q: memref<64x64xbf16, 3>) {
  // expected-error @below {{a distributed accumulator holds N/2 = 64 values per thread}}
  %r = fa4.mma.async %q, %b, %a : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, vector<32xf32>
  return
}

// -----

func.func @f(%a: vector<16xbf16>, %b: memref<128x128xbf16, 3>, %c: vector<64xf32>) {
  // expected-error @below {{a distributed register A holds K/2 = 64 values per thread}}
  %r = fa4.mma.async %a, %b, %c b_mn_major : vector<16xbf16>, memref<128x128xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @f(%q: memref<64x128xbf16, 3>, %i: index) {
  // expected-error @below {{a view keeps the element type and memory space of its source}}
  %s = fa4.subtile %q[%i, %i] : memref<64x128xbf16, 3> -> memref<64x64xf16, 3>
  return
}

// -----

func.func @f(%q: memref<64x128xbf16, 3>, %i: index) {
  // expected-error @below {{a 128x64 view does not fit in a 64x128 tile}}
  %s = fa4.subtile %q[%i, %i] : memref<64x128xbf16, 3> -> memref<128x64xbf16, 3>
  return
}

// -----

func.func @f(%o: tensor<64x128xbf16>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{says layout #fa4.acc but stores 'tensor<64x128xbf16>'}}
  fa4.global_store %o, %p[%i, %i] rows(%i) stride(%i) layout(#fa4.acc) : tensor<64x128xbf16>, !llvm.ptr<1>
  return
}

// -----

// expected-error @below {{#fa4.acc lays out 64 x N tiles with N a multiple of 8 up to 256}}
func.func @f(%o: tensor<128x128xf32, #fa4.acc>) { return }

// -----

// expected-error @below {{#fa4.rows lays out 64-element row vectors}}
func.func @f(%o: tensor<64x2xf32, #fa4.rows>) { return }

// -----

// expected-error @below {{'fa4.kernel' must be a unit attribute}}
func.func @f() attributes {fa4.kernel = 1 : i64} { return }

// -----

// expected-error @below {{'fa4.programmatic_launch' must be a unit attribute}}
func.func @f() attributes {fa4.programmatic_launch = true} { return }

// -----

// expected-error @below {{'fa4.shared_memory_bytes' must be a non-negative integer}}
func.func @f() attributes {fa4.shared_memory_bytes = -1 : i64} { return }

// -----

func.func @f(%q: tensor<128x128xbf16>) {
  // expected-error @below {{takes a whole share of the rows of a 2-d tile: 'tensor<48x128xbf16>' is not a share of 'tensor<128x128xbf16>'}}
  %r = fa4.warpgroup_rows %q : tensor<128x128xbf16> -> tensor<48x128xbf16>
  return
}

// -----

// No warps at all: the role says so (found by the IR fuzzer: the budget of
// the roles divided by their 0 threads).
func.func @no_warps() {
  fa4.warp_specialize {
    // expected-error @below {{role 'producer' has 0 warps; a role takes whole warpgroups (a positive multiple of 4 warps) since setmaxnreg applies per warpgroup}}
    fa4.role producer warps(0) regs(24) {
    }
  }
  return
}

// -----

func.func @tma_store_coords(%o: tensor<64x128xbf16, #fa4.acc>, %buf: memref<128x128xbf16, 3>, %map: !fa4.tensor_map<bf16, box = [1, 64, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{has 2 coordinates for a tensor map of rank 3}}
  fa4.tma_store %o, %buf[%i], %map[%i, %i] barrier(%i) : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>, !fa4.tensor_map<bf16, box = [1, 64, 64], swizzle = 128>
  return
}

// -----

func.func @tma_store_box(%o: tensor<64x128xbf16, #fa4.acc>, %buf: memref<128x128xbf16, 3>, %map: !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{stores 16- or 32-bit elements through boxes of 64 rows by one 128-byte swizzle span (64 or 32 columns) with the 128-byte swizzle, got '!fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>'}}
  fa4.tma_store %o, %buf[%i], %map[%i, %i] barrier(%i) : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>, !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
  return
}

// -----

func.func @tma_store_buffer_type(%o: tensor<64x128xbf16, #fa4.acc>, %buf: memref<128x128xf16, 3>, %map: !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{stages 'bf16' elements in a buffer of 'f16'}}
  fa4.tma_store %o, %buf[%i], %map[%i, %i] barrier(%i) : tensor<64x128xbf16, #fa4.acc>, memref<128x128xf16, 3>, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  return
}

// -----

func.func @tma_store_layout(%o: tensor<64x128xbf16>, %buf: memref<128x128xbf16, 3>, %map: !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{stores tiles in the #fa4.acc layout, got 'tensor<64x128xbf16>'}}
  fa4.tma_store %o, %buf[%i], %map[%i, %i] barrier(%i) : tensor<64x128xbf16>, memref<128x128xbf16, 3>, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  return
}

// -----

func.func @tma_store_tile_type(%o: tensor<64x128xf16, #fa4.acc>, %buf: memref<128x128xbf16, 3>, %map: !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{stores a tile of 'f16' through a tensor map of 'bf16'}}
  fa4.tma_store %o, %buf[%i], %map[%i, %i] barrier(%i) : tensor<64x128xf16, #fa4.acc>, memref<128x128xbf16, 3>, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  return
}

// -----

func.func @tma_store_columns(%o: tensor<64x128xbf16, #fa4.acc>, %buf: memref<128x64xbf16, 3>, %map: !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{stores 128 columns: a whole number of 64-column boxes, at most the buffer's 64}}
  fa4.tma_store %o, %buf[%i], %map[%i, %i] barrier(%i) : tensor<64x128xbf16, #fa4.acc>, memref<128x64xbf16, 3>, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  return
}

// -----

func.func @put_into_tiles(%p: !fa4.pipeline<q, kv = 2, qk = 1, memref<128x128xbf16, 3>>, %s: !fa4.pipeline_state, %v: i32) {
  // expected-error @below {{writes the i32 slots of a schedule pipeline, not the tiles of a Q pipeline}}
  fa4.producer.put %p[%s], %v : !fa4.pipeline<q, kv = 2, qk = 1, memref<128x128xbf16, 3>>
  return
}

// -----

func.func @put_count(%p: !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>, %s: !fa4.pipeline_state, %v: i32) {
  // expected-error @below {{writes 1 value(s) into a stage of 2 slot(s)}}
  fa4.producer.put %p[%s], %v : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
  return
}

// -----

func.func @load_schedule(%p: !fa4.pipeline<schedule, kv = 2, qk = 1, i32>, %s: !fa4.pipeline_state, %m: !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>, %i: index) {
  // expected-error @below {{cannot load a schedule pipeline's i32 slot through a tensor map; fa4.producer.put writes it}}
  fa4.producer.load %p[%s], %m[%i, %i] : !fa4.pipeline<schedule, kv = 2, qk = 1, i32>, !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
  return
}

// -----

func.func @wait_schedule_types(%p: !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>, %s: !fa4.pipeline_state) {
  // expected-error @below {{results must be the pipeline's 2 tile buffers, in order}}
  %v = fa4.consumer.wait %p[%s] : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32> -> i32
  return
}

// -----

func.func @claim_shared(%c: !llvm.ptr<3>, %n: i32) {
  // expected-error @below {{operand #0 must be LLVM pointer in address space 1}}
  %t = fa4.claim_tile %c, %n, %n : !llvm.ptr<3>
  return
}

// -----

func.func @add_bf16(%o: vector<64xbf16>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{adds 'bf16' values atomically: atomic adds take f32}}
  fa4.global_store %o, %p[%i, %i] rows(%i) stride(%i) add layout(#fa4.acc) : vector<64xbf16>, !llvm.ptr<1>
  return
}

// -----

func.func @shared_load_vector_of_tensor(%t: tensor<128x128xbf16>, %i: index) -> vector<64xbf16> {
  // expected-error @below {{reads a thread's values ('vector<64xbf16>') from a stage buffer (a memref), not from 'tensor<128x128xbf16>': run fa4-pipeline-tma first}}
  %r = fa4.shared_load %t[%i] : tensor<128x128xbf16> -> vector<64xbf16>
  return %r : vector<64xbf16>
}

// -----

func.func @shared_load_share(%t: tensor<128x128xbf16>, %i: index) -> tensor<64x64xbf16, #fa4.acc> {
  // expected-error @below {{reads a warpgroup's 64 rows of 'tensor<128x128xbf16>' in the #fa4.acc layout as 'tensor<64x128xbf16, #fa4.acc>', not 'tensor<64x64xbf16, #fa4.acc>'}}
  %r = fa4.shared_load %t[%i] : tensor<128x128xbf16> -> tensor<64x64xbf16, #fa4.acc>
  return %r : tensor<64x64xbf16, #fa4.acc>
}

// -----

func.func @global_load_layout(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op loads a tile in #fa4.acc without stride() and rows()}}
  %v = fa4.global_load %p[%i] count(%i) layout(#fa4.acc) : !llvm.ptr<1> -> tensor<64x64xf32, #fa4.acc>
  return
}

// -----

func.func @global_load_unlaid(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op loads 'tensor<64xf32>', which has no fa4 layout}}
  %v = fa4.global_load %p[%i] count(%i) : !llvm.ptr<1> -> tensor<64xf32>
  return
}

// -----

func.func @global_load_tile_rows(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op takes stride() and rows() together (a 2-d tile's) or neither (a vector's)}}
  %v = fa4.global_load %p[%i] count(%i) stride(%i) layout(#fa4.acc) : !llvm.ptr<1> -> tensor<64x64xf32, #fa4.acc>
  return
}

// -----

func.func @global_load_tile_layout(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op takes stride() and rows(), a 2-d tile's, but loads a vector in #fa4.rows}}
  %v = fa4.global_load %p[%i] count(%i) stride(%i) rows(%i) layout(#fa4.rows) : !llvm.ptr<1> -> tensor<64xf32, #fa4.rows>
  return
}

// -----

func.func @global_load_cols(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op does not say the layout of 'tensor<64xf32, #fa4.cols>'}}
  %v = fa4.global_load %p[%i] count(%i) : !llvm.ptr<1> -> tensor<64xf32, #fa4.cols>
  return
}

// -----

func.func @global_load_blocked(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op says layout #fa4.rows but loads 'tensor<512xbf16, #fa4.blocked>'}}
  %v = fa4.global_load %p[%i] count(%i) layout(#fa4.rows) : !llvm.ptr<1> -> tensor<512xbf16, #fa4.blocked>
  return
}

// -----

func.func @global_store_blocked(%v: tensor<512xbf16, #fa4.blocked>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_store' op says layout #fa4.acc but stores 'tensor<512xbf16, #fa4.blocked>'}}
  fa4.global_store %v, %p[%i, %i] rows(%i) stride(%i) layout(#fa4.acc) : tensor<512xbf16, #fa4.blocked>, !llvm.ptr<1>
  return
}

// -----

// expected-error @below {{#fa4.blocked lays out a warpgroup's run of a 1-d tile: a multiple of 128 elements (one piece a thread), at most 8192}}
func.func @blocked_length(%v: tensor<100xf32, #fa4.blocked>) {
  return
}

// -----

// expected-error @below {{#fa4.cols lays out N-element column vectors with N a multiple of 8 up to 256}}
func.func @cols_length(%v: tensor<60xf32, #fa4.cols>) {
  return
}

// -----

func.func @global_store_columns_rows(%v: tensor<64xf32, #fa4.rows>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{takes columns() with #fa4.rows: columns() takes #fa4.acc and #fa4.coalesced tiles and column vectors}}
  fa4.global_store %v, %p[%i, %i] rows(%i) columns(%i) stride(%i) layout(#fa4.rows) : tensor<64xf32, #fa4.rows>, !llvm.ptr<1>
  return
}

// -----

func.func @global_load_vector_unlaid(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op loads 'vector<2xf32>', a thread's values, without its layout}}
  %v = fa4.global_load %p[%i] count(%i) : !llvm.ptr<1> -> vector<2xf32>
  return
}

// -----

// expected-error @below {{#fa4.coalesced lays out tiles whose 1, 2 or 4 warps a row take 8 to 128 columns each by powers of two or a multiple of 256, not 96 columns by 1 warps}}
func.func @coalesced_cols(%v: tensor<16x96xf32, #fa4.coalesced<cols = 96>>) {
  return
}

// -----

// expected-error @below {{#fa4.coalesced with 1024 columns lays out a warpgroup's rows in multiples of 4 (4 groups of 1 warps, 1 rows each), not 2}}
func.func @coalesced_rows(%v: tensor<2x1024xf32, #fa4.coalesced<cols = 1024>>) {
  return
}

// -----

// expected-error @below {{a #fa4.coalesced tile of 512 columns says cols = 1024}}
func.func @coalesced_tile_cols(%v: tensor<4x512xf32, #fa4.coalesced<cols = 1024>>) {
  return
}

// -----

// expected-error @below {{a 8x4096 #fa4.coalesced tile is 256 values a thread, more than 128}}
func.func @coalesced_values(%v: tensor<8x4096xf32, #fa4.coalesced<cols = 4096>>) {
  return
}

// -----

// expected-error @below {{a #fa4.coalesced column vector has the tile's 1024 columns, not 512}}
func.func @coalesced_column_vector(%v: tensor<512xf32, #fa4.coalesced<cols = 1024, slice = 0>>) {
  return
}

// -----

// expected-error @below {{#fa4.coalesced slices dimension 0 or 1, not 2}}
func.func @coalesced_slice(%v: tensor<4xf32, #fa4.coalesced<cols = 1024, slice = 2>>) {
  return
}

// -----

func.func @global_load_coalesced_flag(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op says layout #fa4.coalesced<cols = 512> but loads 'tensor<4x1024xbf16, #fa4.coalesced<cols = 1024>>'}}
  %v = fa4.global_load %p[%i] count(%i) stride(%i) rows(%i) layout(#fa4.coalesced<cols = 512>) : !llvm.ptr<1> -> tensor<4x1024xbf16, #fa4.coalesced<cols = 1024>>
  return
}

// -----

func.func @global_load_coalesced_vector_stride(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op takes stride() and rows(), a 2-d tile's, but loads a vector in #fa4.coalesced<cols = 1024, slice = 1>}}
  %v = fa4.global_load %p[%i] count(%i) stride(%i) rows(%i) layout(#fa4.coalesced<cols = 1024, slice = 1>) : !llvm.ptr<1> -> tensor<4xf32, #fa4.coalesced<cols = 1024, slice = 1>>
  return
}

// -----

func.func @global_load_pieces(%p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_load' op says pieces without a #fa4.coalesced layout}}
  %v = fa4.global_load %p[%i] count(%i) layout(#fa4.rows) pieces : !llvm.ptr<1> -> tensor<64xf32, #fa4.rows>
  return
}

// -----

func.func @global_store_row_vector_columns(%v: tensor<4xf32, #fa4.coalesced<cols = 1024, slice = 1>>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{takes columns() with #fa4.coalesced<cols = 1024, slice = 1>: columns() takes #fa4.acc and #fa4.coalesced tiles and column vectors}}
  fa4.global_store %v, %p[%i, %i] rows(%i) columns(%i) stride(%i) layout(#fa4.coalesced<cols = 1024, slice = 1>) : tensor<4xf32, #fa4.coalesced<cols = 1024, slice = 1>>, !llvm.ptr<1>
  return
}

// -----

func.func @global_store_cols(%v: tensor<64xf32, #fa4.cols>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{'fa4.global_store' op stores tiles in the #fa4.acc, #fa4.rows, #fa4.blocked or #fa4.coalesced layout (a tile or its row or column vector), not #fa4.cols}}
  fa4.global_store %v, %p[%i, %i] rows(%i) stride(%i) layout(#fa4.cols) : tensor<64xf32, #fa4.cols>, !llvm.ptr<1>
  return
}

// -----

func.func @combine_warps_shape(%p: vector<2xf32>, %s: memref<8x1xf32, 3>, %wg: index) -> vector<2xf32> {
  // expected-error @below {{'fa4.combine_warps' op takes a scratch of f32 values, a row of 2 for each warp, not 'memref<8x1xf32, 3>'}}
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 4096, warps = 4> axis 1 : vector<2xf32>, memref<8x1xf32, 3>
  return %r : vector<2xf32>
}

// -----

func.func @combine_warps_alone(%p: vector<1xf32>, %s: memref<8x1xf32, 3>, %wg: index) -> vector<1xf32> {
  // expected-error @below {{'fa4.combine_warps' op combines row reductions across the warps that share a row, and in #fa4.coalesced<cols = 1024> a warp holds its rows alone}}
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 1024> axis 1 : vector<1xf32>, memref<8x1xf32, 3>
  return %r : vector<1xf32>
}

// -----

func.func @combine_warps_vector(%p: vector<1xf32>, %s: memref<8x1xf32, 3>, %wg: index) -> vector<1xf32> {
  // expected-error @below {{'fa4.combine_warps' op combines the reductions of a #fa4.coalesced tile along axis 0 or 1, not #fa4.coalesced<cols = 1024, slice = 1> along axis 1}}
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 1024, slice = 1> axis 1 : vector<1xf32>, memref<8x1xf32, 3>
  return %r : vector<1xf32>
}

// -----

func.func @combine_columns_values(%p: vector<8xf32>, %s: memref<8x1024xf32, 3>, %wg: index) -> vector<8xf32> {
  // expected-error @below {{'fa4.combine_warps' op combines column reductions of #fa4.coalesced<cols = 1024>, whose threads hold 32 columns, not 8}}
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 1024> axis 0 : vector<8xf32>, memref<8x1024xf32, 3>
  return %r : vector<8xf32>
}

// -----

func.func @combine_columns_scratch(%p: vector<32xf32>, %s: memref<8x512xf32, 3>, %wg: index) -> vector<32xf32> {
  // expected-error @below {{'fa4.combine_warps' op takes a scratch of f32 values, a row of 1024 for each row group, not 'memref<8x512xf32, 3>'}}
  %r = fa4.combine_warps %p, %s[%wg] #fa4.coalesced<cols = 1024> axis 0 : vector<32xf32>, memref<8x512xf32, 3>
  return %r : vector<32xf32>
}

// -----

func.func @shared_store_shape(%t: tensor<64x128xbf16, #fa4.acc>, %b: memref<128x64xbf16, 3>, %r: index) {
  // expected-error @below {{'fa4.shared_store' op writes a warpgroup's 64 rows of 'memref<128x64xbf16, 3>' from the #fa4.acc layout, 'tensor<64x64xbf16, #fa4.acc>', not 'tensor<64x128xbf16, #fa4.acc>'}}
  fa4.shared_store %t, %b[%r] : tensor<64x128xbf16, #fa4.acc>, memref<128x64xbf16, 3>
  return
}

// -----

func.func @shared_store_f32(%t: tensor<64x64xf32, #fa4.acc>, %b: memref<128x64xf32, 3>, %r: index) {
  // expected-error @below {{'fa4.shared_store' op writes 2-d tiles of 16-bit elements, a multiple of 64 rows by whole 128-byte swizzle spans, not 'memref<128x64xf32, 3>'}}
  fa4.shared_store %t, %b[%r] : tensor<64x64xf32, #fa4.acc>, memref<128x64xf32, 3>
  return
}

// -----

func.func @shared_tile_shape(%b: memref<128x64xbf16, 3>) -> tensor<64x128xbf16> {
  // expected-error @below {{'fa4.shared_tile' op is the whole tile of 'memref<128x64xbf16, 3>' in shared memory, not 'tensor<64x128xbf16>'}}
  %t = fa4.shared_tile %b : memref<128x64xbf16, 3> -> tensor<64x128xbf16>
  return %t : tensor<64x128xbf16>
}

// -----

func.func @warpgroup_cols_share(%k: tensor<128x128xbf16>) -> tensor<128x48xbf16> {
  // expected-error @below {{'fa4.warpgroup_cols' op takes a whole share of the columns of a 2-d tile: 'tensor<128x48xbf16>' is not a share of 'tensor<128x128xbf16>'}}
  %r = fa4.warpgroup_cols %k : tensor<128x128xbf16> -> tensor<128x48xbf16>
  return %r : tensor<128x48xbf16>
}

// -----

func.func @mma_a_mn_major_registers(%a: tensor<64x64xbf16, #fa4.acc>, %b: memref<64x128xbf16, 3>) -> tensor<64x128xf32, #fa4.acc> {
  // expected-error @below {{'fa4.mma.async' op reads an mn-major A from shared memory, not 'tensor<64x64xbf16, #fa4.acc>'}}
  %r = fa4.mma.async %a, %b b_mn_major a_mn_major : tensor<64x64xbf16, #fa4.acc>, memref<64x128xbf16, 3>, tensor<64x128xf32, #fa4.acc>
  return %r : tensor<64x128xf32, #fa4.acc>
}

// -----

func.func @mma_a_mn_major_contraction(%a: memref<64x64xbf16, 3>, %b: memref<128x64xbf16, 3>) -> tensor<64x64xf32, #fa4.acc> {
  // An mn-major A of 64 x 64 (K x M) against an mn-major B of 128 rows (K).
  // expected-error @below {{'fa4.mma.async' op contraction sizes differ}}
  %r = fa4.mma.async %a, %b b_mn_major a_mn_major : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x64xf32, #fa4.acc>
  return %r : tensor<64x64xf32, #fa4.acc>
}

// -----

func.func @tma_store_add_bf16(%t: tensor<64x64xbf16, #fa4.acc>, %b: memref<128x64xbf16, 3>, %m: !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>, %r: index) {
  // expected-error @below {{'fa4.tma_store' op adds f32 values, not 'bf16'}}
  fa4.tma_store %t, %b[%r], %m[%r, %r] barrier(%r) add : tensor<64x64xbf16, #fa4.acc>, memref<128x64xbf16, 3>, !fa4.tensor_map<bf16, box = [64, 64], swizzle = 128>
  return
}

// -----

// A thread's values (a vector) carry no encoding to verify: the layout
// attribute itself checks its geometry.
func.func @global_store_bad_coalesced(%v: vector<2xf32>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{#fa4.coalesced lays out tiles whose 1, 2 or 4 warps a row take 8 to 128 columns each by powers of two or a multiple of 256, not -5 columns by 1 warps}}
  fa4.global_store %v, %p[%i, %i] rows(%i) stride(%i) layout(#fa4.coalesced<cols = -5, slice = 1>) : vector<2xf32>, !llvm.ptr<1>
  return
}

// -----

func.func @global_store_bad_coalesced_slice(%v: vector<2xf32>, %p: !llvm.ptr<1>, %i: index) {
  // expected-error @below {{#fa4.coalesced slices dimension 0 or 1, not 3}}
  fa4.global_store %v, %p[%i, %i] rows(%i) stride(%i) layout(#fa4.coalesced<cols = 64, slice = 3>) : vector<2xf32>, !llvm.ptr<1>
  return
}

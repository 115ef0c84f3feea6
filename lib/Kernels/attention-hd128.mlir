// Forward attention with head dim 128 written at the fa4 level: K staged in
// two qk stages (the QK^T of the first 64 head-dim columns starts before the
// second half of K has landed), V loaded complete, 3 kv stages, one producer
// warp issuing every TMA load, two consumer warpgroups each owning 64 query
// rows of the CTA's 128, and the online softmax in base 2 on registers in the
// wgmma accumulator layout, with P fed to P·V from registers.
//
// Parameters: Q, K, V as 3-d tensor maps over [B*H, S, 128] bf16; O
// [B*H*Sq, 128] bf16; the sequence lengths; softmax_scale * log2(e); causal
// (query i sees keys j <= i + Sk - Sq). Grid: (ceil(Sq / 128), B*H). Keys past
// Sk are masked to -inf, rows past Sq are not stored, a row with no visible
// key gets zeros.

!Q = !fa4.pipeline<q, kv = 1, qk = 1, memref<64x128xbf16, 3>, memref<64x128xbf16, 3>>
!K = !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
!V = !fa4.pipeline<v, kv = 3, qk = 1, memref<128x128xbf16, 3>>
!QMap = !fa4.tensor_map<bf16, box = [1, 64, 64], swizzle = 128>
!KVMap = !fa4.tensor_map<bf16, box = [1, 128, 64], swizzle = 128>
!Acc = tensor<64x128xf32, #fa4.acc>
!Rows = tensor<64xf32, #fa4.rows>
!Idx = tensor<64x128xi32, #fa4.acc>
!Mask = tensor<64x128xi1, #fa4.acc>

func.func @attention(%qmap: !QMap {fa4.name = "q"}, %kmap: !KVMap {fa4.name = "k"},
                     %vmap: !KVMap {fa4.name = "v"}, %o: !llvm.ptr<1> {fa4.name = "o"},
                     %seq_q: index {fa4.name = "seq_q"}, %seq_k: index {fa4.name = "seq_k"},
                     %scale_log2: f32 {fa4.name = "scale_log2"}, %causal: i32 {fa4.name = "causal"})
    attributes {fa4.kernel, fa4.config = #fa4.config<element_type = bf16, head_dim = 128,
      head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3, qk_stages = 2,
      swizzle = 128, q_tiles = 2, target = sm_90a,
      roles = [#fa4.role<producer, warps = 4, regs = 24>,
               #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %q = fa4.pipeline.create consumers(256) : !Q
  %k = fa4.pipeline.create consumers(256) : !K
  %v = fa4.pipeline.create consumers(256) : !V
  %mblock = tile.program_id 0
  %bh = tile.program_id 1
  %m0 = arith.muli %mblock, %c128 : index

  // Key blocks to visit: all, or with a causal mask those up to the diagonal
  // of the CTA's last row (row i sees keys below i + 1 + Sk - Sq).
  %all = arith.ceildivui %seq_k, %c128 : index
  %is_causal = arith.cmpi ne, %causal, %c0_i32 : i32
  %shift = arith.subi %seq_k, %seq_q : index
  %m_end = arith.addi %m0, %c128 : index
  %visible = arith.addi %m_end, %shift : index
  %visible0 = arith.maxsi %visible, %c0 : index
  %diag = arith.ceildivui %visible0, %c128 : index
  %diag_all = arith.minui %diag, %all : index
  %blocks = arith.select %is_causal, %diag_all, %all : index

  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
      %qs = fa4.pipeline.start %q producer : !Q
      %m1 = arith.addi %m0, %c64 : index
      fa4.producer.acquire %q[%qs] : !Q
      fa4.producer.load %q[%qs], %qmap[%bh, %m0, %c0] : !Q, !QMap
      fa4.producer.load %q[%qs] tile 1, %qmap[%bh, %m1, %c0] : !Q, !QMap
      %ks0 = fa4.pipeline.start %k producer : !K
      %vs0 = fa4.pipeline.start %v producer : !V
      %last:2 = scf.for %j = %c0 to %blocks step %c1 iter_args(%ks = %ks0, %vs = %vs0)
          -> (!fa4.pipeline_state, !fa4.pipeline_state) {
        %row = arith.muli %j, %c128 : index
        fa4.producer.acquire %k[%ks] qk 0 : !K
        fa4.producer.load %k[%ks] qk 0, %kmap[%bh, %row, %c0] : !K, !KVMap
        fa4.producer.acquire %k[%ks] qk 1 : !K
        fa4.producer.load %k[%ks] qk 1, %kmap[%bh, %row, %c64] : !K, !KVMap
        fa4.producer.acquire %v[%vs] : !V
        fa4.producer.load %v[%vs], %vmap[%bh, %row, %c0] : !V, !KVMap
        %ks1 = fa4.pipeline.step %k[%ks] : !K
        %vs1 = fa4.pipeline.step %v[%vs] : !V
        scf.yield %ks1, %vs1 : !fa4.pipeline_state, !fa4.pipeline_state
      }
    }
    fa4.role consumer warps(8) regs(240) {
      %wg = fa4.warpgroup_id
      %qs = fa4.pipeline.start %q consumer : !Q
      %q0, %q1 = fa4.consumer.wait %q[%qs] : !Q -> memref<64x128xbf16, 3>, memref<64x128xbf16, 3>
      %first = arith.cmpi eq, %wg, %c0 : index
      %qt = arith.select %first, %q0, %q1 : memref<64x128xbf16, 3>
      %qa = fa4.subtile %qt[%c0, %c0] : memref<64x128xbf16, 3> -> memref<64x64xbf16, 3>
      %qb = fa4.subtile %qt[%c0, %c64] : memref<64x128xbf16, 3> -> memref<64x64xbf16, 3>

      // Query row of each value, and the last key it may see (causal).
      %wg_rows = arith.muli %wg, %c64 : index
      %row0 = arith.addi %m0, %wg_rows : index
      %row0_i32 = arith.index_cast %row0 : index to i32
      %shift_i32 = arith.index_cast %shift : index to i32
      %row_iota = tile.iota axis 0 : !Idx
      %row_base = arith.addi %row0_i32, %shift_i32 : i32
      %row_base_t = tile.splat %row_base : !Idx
      %key_limit = arith.addi %row_iota, %row_base_t : !Idx
      %seq_k_i32 = arith.index_cast %seq_k : index to i32
      %seq_k_t = tile.splat %seq_k_i32 : !Idx
      %true = arith.constant true
      %not_causal = arith.xori %is_causal, %true : i1
      %not_causal_t = tile.splat %not_causal : !Mask
      %col_iota = tile.iota axis 1 : !Idx

      %scale = tile.splat %scale_log2 : !Acc
      %zero = arith.constant dense<0.0> : !Acc
      %ninf = arith.constant dense<0xFF800000> : !Acc
      %ninf_rows = arith.constant dense<0xFF800000> : !Rows
      %zero_rows = arith.constant dense<0.0> : !Rows
      %ks0 = fa4.pipeline.start %k consumer : !K
      %vs0 = fa4.pipeline.start %v consumer : !V
      %m_f, %l_f, %acc_f, %ks_f, %vs_f = scf.for %j = %c0 to %blocks step %c1
          iter_args(%m_i = %ninf_rows, %l_i = %zero_rows, %acc = %zero, %ks = %ks0, %vs = %vs0)
          -> (!Rows, !Rows, !Acc, !fa4.pipeline_state, !fa4.pipeline_state) {
        // S = Q Kᵀ, one qk stage at a time.
        %k0 = fa4.consumer.wait %k[%ks] qk 0 : !K -> memref<128x64xbf16, 3>
        %s0 = fa4.mma.async %qa, %k0, %zero : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, !Acc
        %k1 = fa4.consumer.wait %k[%ks] qk 1 : !K -> memref<128x64xbf16, 3>
        %s1 = fa4.mma.async %qb, %k1, %s0 : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, !Acc
        %s = fa4.mma.wait %s1 pending(0) : !Acc
        fa4.consumer.release %k[%ks] qk 0 : !K
        fa4.consumer.release %k[%ks] qk 1 : !K
        %ks1 = fa4.pipeline.step %k[%ks] : !K

        // Scores in the log2 domain; keys past Sk (and above the diagonal
        // when causal) are -inf.
        %x = arith.mulf %s, %scale : !Acc
        %key0 = arith.muli %j, %c128 : index
        %key0_i32 = arith.index_cast %key0 : index to i32
        %key0_t = tile.splat %key0_i32 : !Idx
        %key = arith.addi %col_iota, %key0_t : !Idx
        %in_seq = arith.cmpi slt, %key, %seq_k_t : !Idx
        %below = arith.cmpi sle, %key, %key_limit : !Idx
        %causal_ok = arith.ori %below, %not_causal_t : !Mask
        %valid = arith.andi %in_seq, %causal_ok : !Mask
        %xm = arith.select %valid, %x, %ninf : !Mask, !Acc

        // Online softmax: new row max (0 for rows with no visible key yet),
        // P, the rescale factor of the old max, the new row sums.
        %rowmax = tile.reduce max %xm axis 1 : !Acc -> !Rows
        %m_new = arith.maximumf %m_i, %rowmax : !Rows
        %empty = arith.cmpf oeq, %m_new, %ninf_rows : !Rows
        %m_use = arith.select %empty, %zero_rows, %m_new : tensor<64xi1, #fa4.rows>, !Rows
        %m_b = tile.broadcast %m_use axis 1 : !Rows -> !Acc
        %d = arith.subf %xm, %m_b : !Acc
        %p = tile.exp2 %d : !Acc
        %dm = arith.subf %m_i, %m_use : !Rows
        %alpha = tile.exp2 %dm : !Rows
        %rowsum = tile.reduce sum %p axis 1 : !Acc -> !Rows
        %l_scaled = arith.mulf %l_i, %alpha : !Rows
        %l_new = arith.addf %l_scaled, %rowsum : !Rows
        %alpha_b = tile.broadcast %alpha axis 1 : !Rows -> !Acc
        %acc_scaled = arith.mulf %acc, %alpha_b : !Acc

        // O += P V with P from registers.
        %pb = arith.truncf %p : !Acc to tensor<64x128xbf16, #fa4.acc>
        %vt = fa4.consumer.wait %v[%vs] : !V -> memref<128x128xbf16, 3>
        %o1 = fa4.mma.async %pb, %vt, %acc_scaled b_mn_major : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>, !Acc
        %o2 = fa4.mma.wait %o1 pending(0) : !Acc
        fa4.consumer.release %v[%vs] : !V
        %vs1 = fa4.pipeline.step %v[%vs] : !V
        scf.yield %m_new, %l_new, %o2, %ks1, %vs1 : !Rows, !Rows, !Acc, !fa4.pipeline_state, !fa4.pipeline_state
      }

      // O / l, zeros for rows that saw no key; rows past Sq are not stored.
      %l_zero = arith.cmpf oeq, %l_f, %zero_rows : !Rows
      %one_rows = arith.constant dense<1.0> : !Rows
      %l_safe = arith.select %l_zero, %one_rows, %l_f : tensor<64xi1, #fa4.rows>, !Rows
      %l_b = tile.broadcast %l_safe axis 1 : !Rows -> !Acc
      %out = arith.divf %acc_f, %l_b : !Acc
      %out_b = arith.truncf %out : !Acc to tensor<64x128xbf16, #fa4.acc>
      %head_row = arith.muli %bh, %seq_q : index
      %grow = arith.addi %head_row, %row0 : index
      %glimit = arith.addi %head_row, %seq_q : index
      fa4.global_store %out_b, %o[%grow, %c0] rows(%glimit) stride(%c128) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
    }
  }
  return
}

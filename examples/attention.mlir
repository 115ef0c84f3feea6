// Forward attention (not causal) as a tile program: one program instance
// computes a 128-row block of O for one (batch, head) from Q, K and V in
// (B*H*S, D) layout, with the online softmax in base 2. This is the level the
// C++ DSL builds; fa4's passes plan and pipeline it with a #fa4.config.
//
//   fa4-opt --fa4-attach-config="head-dim=128" --fa4-print-plan attention.mlir

func.func @attention(%q: !tile.ptr<bf16>, %k: !tile.ptr<bf16>, %v: !tile.ptr<bf16>,
                     %o: !tile.ptr<bf16>, %seq: index, %rows: index, %scale_log2: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m_block = tile.program_id 0
  %bh = tile.program_id 1
  %qd = tile.make_desc %q, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  %kd = tile.make_desc %k, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  %vd = tile.make_desc %v, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  %od = tile.make_desc %o, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>

  // Blocks of one (batch, head) start at row bh * seq.
  %blocks = arith.ceildivui %seq, %c128 : index
  %base = arith.muli %bh, %blocks : index
  %q_row = arith.addi %base, %m_block : index
  %qt = tile.load %qd[%q_row, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>

  %scale = tile.splat %scale_log2 : tensor<128x128xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %m, %l, %acc = scf.for %j = %c0 to %blocks step %c1
      iter_args(%m_i = %m0, %l_i = %l0, %acc_i = %acc0)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
    %kv_row = arith.addi %base, %j : index
    %kt = tile.load %kd[%kv_row, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
    %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %qt, %ktt, %zero : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %s2 = arith.mulf %s, %scale : tensor<128x128xf32>
    %rowmax = tile.reduce max %s2 axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    %mb = tile.broadcast %m_new axis 1 : tensor<128xf32> -> tensor<128x128xf32>
    %x = arith.subf %s2, %mb : tensor<128x128xf32>
    %p = tile.exp2 %x : tensor<128x128xf32>
    %dm = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = tile.exp2 %dm : tensor<128xf32>
    %rowsum = tile.reduce sum %p axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %rowsum : tensor<128xf32>
    %ab = tile.broadcast %alpha axis 1 : tensor<128xf32> -> tensor<128x128xf32>
    %acc_scaled = arith.mulf %acc_i, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
    %vt = tile.load %vd[%kv_row, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_scaled : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %lb = tile.broadcast %l axis 1 : tensor<128xf32> -> tensor<128x128xf32>
  %out = arith.divf %acc, %lb : tensor<128x128xf32>
  %outb = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %outb, %od[%q_row, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

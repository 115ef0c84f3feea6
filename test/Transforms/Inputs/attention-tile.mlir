// Forward attention as a tile program (head dim 128), the form the DSL
// builds: one program owns 128 query rows of one (batch, head); the key loop
// carries the row max, the row sum and the output accumulator.
func.func @attention(%q: !tile.desc<1x128x128xbf16> {fa4.name = "q"},
                     %k: !tile.desc<1x128x128xbf16> {fa4.name = "k"},
                     %v: !tile.desc<1x128x128xbf16> {fa4.name = "v"},
                     %o: !tile.ptr<bf16> {fa4.name = "o"},
                     %lse: !tile.ptr<f32> {fa4.name = "lse"},
                     %seq_q: index {fa4.name = "seq_q"},
                     %seq_k: index {fa4.name = "seq_k"},
                     %scale_log2: f32 {fa4.name = "scale_log2"},
                     %causal: i32 {fa4.name = "causal"}) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.program_id 0
  %bh = tile.program_id 1
  %heads = tile.num_programs 1
  %qt = tile.load %q[%bh, %m, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
  %blocks = arith.ceildivui %seq_k, %c128 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %zero_rows = arith.constant dense<0.0> : tensor<128xf32>
  %zero_o = arith.constant dense<0.0> : tensor<128x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x128xf32>
  %ninf_s = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %scale = tile.splat %scale_log2 : tensor<128x128xf32>
  %scale_rows = tile.splat %scale_log2 : tensor<128xf32>
  %seq_k_i32 = arith.index_cast %seq_k : index to i32
  %seq_k_t = tile.splat %seq_k_i32 : tensor<128x128xi32>
  %r:3 = scf.for %j = %c0 to %blocks step %c1 iter_args(%mi = %ninf, %li = %zero_rows, %acc = %zero_o)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
    %kt = tile.load %k[%bh, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %qt, %ktt, %zero_s : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    %key0 = arith.muli %j, %c128 : index
    %key0_i32 = arith.index_cast %key0 : index to i32
    %key0_t = tile.splat %key0_i32 : tensor<128x128xi32>
    %cols = tile.iota axis 1 : tensor<128x128xi32>
    %key = arith.addi %cols, %key0_t : tensor<128x128xi32>
    %in = arith.cmpi slt, %key, %seq_k_t : tensor<128x128xi32>
    %sm = arith.select %in, %s, %ninf_s : tensor<128x128xi1>, tensor<128x128xf32>
    %rowmax = tile.reduce max %sm axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    %rowmax_s = arith.mulf %rowmax, %scale_rows : tensor<128xf32>
    %mn = arith.maximumf %mi, %rowmax_s : tensor<128xf32>
    %mb = tile.broadcast %mn axis 1 : tensor<128xf32> -> tensor<128x128xf32>
    %x = arith.mulf %sm, %scale : tensor<128x128xf32>
    %d = arith.subf %x, %mb : tensor<128x128xf32>
    %p = tile.exp2 %d : tensor<128x128xf32>
    %dm = arith.subf %mi, %mn : tensor<128xf32>
    %alpha = tile.exp2 %dm : tensor<128xf32>
    %rs = tile.reduce sum %p axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    %ls = arith.mulf %li, %alpha : tensor<128xf32>
    %ln = arith.addf %ls, %rs : tensor<128xf32>
    %ab = tile.broadcast %alpha axis 1 : tensor<128xf32> -> tensor<128x128xf32>
    %accs = arith.mulf %acc, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
    %vt = tile.load %v[%bh, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %accn = tile.dot %pb, %vt, %accs : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    scf.yield %mn, %ln, %accn : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %lb = tile.broadcast %r#1 axis 1 : tensor<128xf32> -> tensor<128x128xf32>
  %out = arith.divf %r#2, %lb : tensor<128x128xf32>
  %outb = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  %c128d = arith.constant 128 : index
  %sq_d = arith.muli %seq_q, %c128d : index
  %od = tile.make_desc %o, [%heads, %seq_q, %c128d], [%sq_d, %c128d, %c1] : !tile.ptr<bf16> -> !tile.desc<1x128x128xbf16>
  tile.store %outb, %od[%bh, %m, %c0] : tensor<128x128xbf16>, !tile.desc<1x128x128xbf16>
  %ld = tile.make_desc %lse, [%heads, %seq_q], [%seq_q, %c1] : !tile.ptr<f32> -> !tile.desc<1x128xf32>
  tile.store %r#0, %ld[%bh, %m] : tensor<128xf32>, !tile.desc<1x128xf32>
  return
}

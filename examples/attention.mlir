// Forward attention (not causal) as a tile program, the level fa4's C++ DSL
// builds: program (m, bh) computes 128 query rows of O for one (batch, head)
// from Q, K and V viewed as [B*H, S, 128], with the online softmax in base 2.
// The argument and kernel attributes are its launch description: the
// tensors' shapes, the sizes as rules over them, the grid. fa4's passes plan,
// pipeline and warp-specialize it; it lowers to a kernel file that fa4-run
// launches by name:
//
//   fa4-opt --fa4-attach-config="head-dim=128" --fa4-print-plan attention.mlir
//   fa4-opt --fa4-attach-config="head-dim=128" --fa4-tile-to-fa4 --fa4-to-llvm \
//     attention.mlir | fa4-translate --emit=kernel -o attention.kernel
//   fa4-run --kernel attention.kernel --describe

func.func @attention(
    %q: !tile.desc<1x128x128xbf16> {fa4.name = "q", fa4.access = "input", fa4.shape = "*, *, 128"},
    %k: !tile.desc<1x128x128xbf16> {fa4.name = "k", fa4.access = "input", fa4.shape = "q.dim0, *, 128"},
    %v: !tile.desc<1x128x128xbf16> {fa4.name = "v", fa4.access = "input", fa4.shape = "q.dim0, k.dim1, 128"},
    %o: !tile.ptr<bf16> {fa4.name = "o", fa4.access = "output", fa4.element_type = bf16,
                         fa4.shape = "q.dim0, q.dim1, 128"},
    %seq_q: index {fa4.name = "seq_q", fa4.value = "q.dim1"},
    %seq_k: index {fa4.name = "seq_k", fa4.value = "k.dim1"},
    %scale_log2: f32 {fa4.name = "scale_log2"})
    attributes {fa4.kernel, fa4.grid = "cdiv(q.dim1, 128), q.dim0, 1"} {
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

  // Over the key blocks: the running row max (log2 units), the row sum and
  // the unnormalized output.
  %r:3 = scf.for %j = %c0 to %blocks step %c1 iter_args(%mi = %ninf, %li = %zero_rows, %acc = %zero_o)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
    %kt = tile.load %k[%bh, %j, %c0] : !tile.desc<1x128x128xbf16> -> tensor<128x128xbf16>
    %ktt = tile.trans %kt : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %qt, %ktt, %zero_s : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
    // Keys past seq_k (the last block) do not count.
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

  // O = acc / l, stored through a descriptor over the output pointer.
  %lb = tile.broadcast %r#1 axis 1 : tensor<128xf32> -> tensor<128x128xf32>
  %out = arith.divf %r#2, %lb : tensor<128x128xf32>
  %outb = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  %row_stride = arith.muli %seq_q, %c128 : index
  %od = tile.make_desc %o, [%heads, %seq_q, %c128], [%row_stride, %c128, %c1] : !tile.ptr<bf16> -> !tile.desc<1x128x128xbf16>
  tile.store %outb, %od[%bh, %m, %c0] : tensor<128x128xbf16>, !tile.desc<1x128x128xbf16>
  return
}

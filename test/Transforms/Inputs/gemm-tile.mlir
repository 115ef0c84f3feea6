// C = A·Bᵀ as a tile program, the form the DSL builds: one program owns a
// 128 x 128 block of C and loops over 64-column blocks of A and B.
func.func @gemm(%a: !tile.desc<128x64xbf16> {fa4.name = "a"},
                %b: !tile.desc<128x64xbf16> {fa4.name = "b"},
                %c: !tile.ptr<bf16> {fa4.name = "c"}, %m: index {fa4.name = "m"},
                %n: index {fa4.name = "n"}, %k: index {fa4.name = "k"}) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bm = tile.program_id 0
  %bn = tile.program_id 1
  %steps = arith.ceildivui %k, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %zero) -> tensor<128x128xf32> {
    %at = tile.load %a[%bm, %i] : !tile.desc<128x64xbf16> -> tensor<128x64xbf16>
    %bt = tile.load %b[%bn, %i] : !tile.desc<128x64xbf16> -> tensor<128x64xbf16>
    %btt = tile.trans %bt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %r = tile.dot %at, %btt, %acc_i : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
    scf.yield %r : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  %cd = tile.make_desc %c, [%m, %n], [%n, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
  tile.store %out, %cd[%bm, %bn] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
  return
}

// A TMA-pipelined, warp-specialized GEMM written at the fa4 level:
// C[M, N] = A[M, K] · B[N, K]ᵀ in bf16 with f32 accumulation. One CTA
// computes a 128 x 128 block of C: a producer warp streams 128 x 64 tiles of
// A and B through a 4-stage pipeline (one mbarrier pair per stage, two TMA
// loads each), two consumer warpgroups each multiply their 64 rows with
// wgmma and store their rows of C (rows past M are not written; N must be a
// multiple of 128).

!AB = !fa4.pipeline<operand, kv = 4, qk = 1, memref<128x64xbf16, 3>, memref<128x64xbf16, 3>>
!Map = !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
!Acc = tensor<64x128xf32, #fa4.acc>

func.func @gemm(%amap: !Map {fa4.name = "a"}, %bmap: !Map {fa4.name = "b"},
                %c: !llvm.ptr<1> {fa4.name = "c"}, %m: index {fa4.name = "m"},
                %n: index {fa4.name = "n"}, %k: index {fa4.name = "k"}) attributes {fa4.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %ab = fa4.pipeline.create consumers(256) : !AB
  %bm = tile.program_id 0
  %bn = tile.program_id 1
  %row0 = arith.muli %bm, %c128 : index
  %col0 = arith.muli %bn, %c128 : index
  %steps = arith.ceildivui %k, %c64 : index
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
      %s0 = fa4.pipeline.start %ab producer : !AB
      %last = scf.for %i = %c0 to %steps step %c1 iter_args(%s = %s0) -> (!fa4.pipeline_state) {
        %kc = arith.muli %i, %c64 : index
        fa4.producer.acquire %ab[%s] : !AB
        fa4.producer.load %ab[%s], %amap[%row0, %kc] : !AB, !Map
        fa4.producer.load %ab[%s] tile 1, %bmap[%col0, %kc] : !AB, !Map
        %next = fa4.pipeline.step %ab[%s] : !AB
        scf.yield %next : !fa4.pipeline_state
      }
    }
    fa4.role consumer warps(8) regs(240) {
      %wg = fa4.warpgroup_id
      %rows = arith.muli %wg, %c64 : index
      %s0 = fa4.pipeline.start %ab consumer : !AB
      %zero = arith.constant dense<0.0> : !Acc
      %acc, %sl = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %zero, %s = %s0)
          -> (!Acc, !fa4.pipeline_state) {
        %a, %b = fa4.consumer.wait %ab[%s] : !AB -> memref<128x64xbf16, 3>, memref<128x64xbf16, 3>
        %a_wg = fa4.subtile %a[%rows, %c0] : memref<128x64xbf16, 3> -> memref<64x64xbf16, 3>
        %r = fa4.mma.async %a_wg, %b, %acc_i : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, !Acc
        %r1 = fa4.mma.wait %r pending(0) : !Acc
        fa4.consumer.release %ab[%s] : !AB
        %next = fa4.pipeline.step %ab[%s] : !AB
        scf.yield %r1, %next : !Acc, !fa4.pipeline_state
      }
      %out = arith.truncf %acc : !Acc to tensor<64x128xbf16, #fa4.acc>
      %r0 = arith.addi %row0, %rows : index
      fa4.global_store %out, %c[%r0, %col0] rows(%m) stride(%n) layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
    }
  }
  return
}

// A persistent kernel over a 3-d logical grid (test/Transforms/persistent.mlir).
func.func @grid_3d(%a: index {fa4.name = "a"}) attributes {fa4.grid = "cdiv(a.dim0, 128), a.dim1, a.dim2", fa4.config = #fa4.config<element_type = bf16, head_dim = 64, head_dim_v = 64, bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 1, swizzle = 128, q_tiles = 2, target = sm_90a, roles = [#fa4.role<producer, warps = 4, regs = 24>, #fa4.role<consumer, warps = 8, regs = 240>], persistent = true>} {
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
    }
    fa4.role consumer warps(8) regs(240) {
      %x = tile.program_id 0
      %y = tile.program_id 1
      %z = tile.program_id 2
      %nz = tile.num_programs 2
      "use"(%x, %y, %z, %nz) : (index, index, index, index) -> ()
    }
  }
  return
}

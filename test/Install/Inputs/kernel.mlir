func.func @attention() attributes {fa4.config = #fa4.config<element_type = bf16,
    head_dim = 128, head_dim_v = 128, bm = 64, bn = 128, bk0 = 64, bk1 = 128,
    kv_stages = 3, qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a,
    roles = [#fa4.role<producer, warps = 4, regs = 24>,
             #fa4.role<consumer, warps = 8, regs = 240>]>} {
  %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
  return
}

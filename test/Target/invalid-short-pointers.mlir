// A module is translated with one shared-memory pointer width: kernels whose
// plans ask for different ones (#fa4.config's short_pointers; a kernel
// without a config has 64-bit ones) are an error naming both, before any
// code is generated.
// RUN: fa4-translate %s --emit=ptx --split-input-file --verify-diagnostics

#short = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
    bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
    swizzle = 128, q_tiles = 1, target = sm_90a,
    roles = [#fa4.role<consumer, warps = 4, regs = 240>],
    short_pointers = true>
// expected-note @below {{kernel 'first' is here}}
llvm.func @first() attributes {nvvm.kernel, fa4.config = #short} {
  llvm.return
}
// expected-error @below {{kernel 'second' plans 64-bit shared-memory pointers and kernel 'first' 32-bit ones (#fa4.config's short_pointers); a module is translated with one width: compile them apart}}
llvm.func @second() attributes {nvvm.kernel} {
  llvm.return
}

// -----

#long = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
    bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
    swizzle = 128, q_tiles = 1, target = sm_90a,
    roles = [#fa4.role<consumer, warps = 4, regs = 240>]>
#short = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
    bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
    swizzle = 128, q_tiles = 1, target = sm_90a,
    roles = [#fa4.role<consumer, warps = 4, regs = 240>],
    short_pointers = true>
// expected-note @below {{kernel 'long' is here}}
llvm.func @long() attributes {nvvm.kernel, fa4.config = #long} {
  llvm.return
}
// A function that is not a kernel takes the module's width.
llvm.func @helper() {
  llvm.return
}
// expected-error @below {{kernel 'short' plans 32-bit shared-memory pointers and kernel 'long' 64-bit ones}}
llvm.func @short() attributes {nvvm.kernel, fa4.config = #short} {
  llvm.return
}

// -----

#short = #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
    bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 2, qk_stages = 2,
    swizzle = 128, q_tiles = 1, target = sm_90a,
    roles = [#fa4.role<consumer, warps = 4, regs = 240>],
    short_pointers = true>
// Two kernels that agree translate.
llvm.func @one() attributes {nvvm.kernel, fa4.config = #short} {
  llvm.return
}
llvm.func @two() attributes {nvvm.kernel, fa4.config = #short} {
  llvm.return
}

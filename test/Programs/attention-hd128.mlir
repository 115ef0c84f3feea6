// The attention-hd128 kernel of test/Programs/Kernels lowers to the LLVM dialect, translates to PTX
// for sm_90a and assembles with ptxas without spills.
// RUN: fa4-opt %fa4_src_root/test/Programs/Kernels/attention-hd128.mlir --fa4-to-llvm | FileCheck %s
// RUN: fa4-opt %fa4_src_root/test/Programs/Kernels/attention-hd128.mlir --fa4-to-llvm | fa4-translate --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ fa4-opt %fa4_src_root/test/Programs/Kernels/attention-hd128.mlir --fa4-to-llvm | fa4-translate --emit=cubin -o %t.cubin --ptxas-report=%t.report %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=REPORT < %t.report %}
// CHECK-LABEL: llvm.func @attention
// CHECK-SAME: fa4.shared_memory_bytes = 232448 : i64, fa4.threads = 384 : i64, nvvm.kernel
// PTX: .target sm_90a
// PTX: .maxntid 384, 1, 1
// PTX: setmaxnreg.dec.sync.aligned.u32 24
// PTX: mbarrier.try_wait.parity
// PTX: mbarrier.arrive.expect_tx
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 240
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: ex2.approx.ftz.f32
// PTX: shfl.sync.bfly
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// The log-sum-exp: ln 2 · (m + lg2 l), stored by one thread of each quad.
// PTX: lg2.approx.f32
// PTX: mul.rn.ftz.f32 {{.*}}, 0f3F317218;
// PTX: st.global.b32
// REPORT: Compiling entry function 'attention' for 'sm_90a'
// REPORT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

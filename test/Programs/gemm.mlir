// The gemm kernel of test/Programs/Kernels lowers to the LLVM dialect, translates to PTX
// for sm_90a and assembles with ptxas without spills.
// RUN: fa4-opt %fa4_src_root/test/Programs/Kernels/gemm.mlir --fa4-to-llvm | FileCheck %s
// RUN: fa4-opt %fa4_src_root/test/Programs/Kernels/gemm.mlir --fa4-to-llvm | fa4-translate --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ fa4-opt %fa4_src_root/test/Programs/Kernels/gemm.mlir --fa4-to-llvm | fa4-translate --emit=cubin -o %t.cubin --ptxas-report=%t.report %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=REPORT < %t.report %}
// PTX: .target sm_90a
// PTX: .maxntid 384, 1, 1
// PTX: .maxnreg 168
// PTX: mbarrier.init.shared.b64
// PTX: setmaxnreg.dec.sync.aligned.u32 24
// PTX: mbarrier.try_wait.parity
// PTX: mbarrier.arrive.expect_tx
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 240
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned 0
// No spills: the consumer's 64 accumulator registers fit its 240.
// REPORT: Compiling entry function 'gemm' for 'sm_90a'
// REPORT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-LABEL: llvm.func @gemm
// CHECK-SAME: fa4.tensor_map = !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>, llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant
// CHECK-SAME: nvvm.kernel, nvvm.maxnreg = 168 : i32, nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.elect.sync
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 240
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.intr.masked.store

// A Hopper kernel in the LLVM and NVVM dialects that uses what fa4's lowering
// emits: a thread id, an mbarrier in shared memory with expect_tx, a TMA load
// whose tensor map is a by-value grid-constant kernel argument, a parity wait,
// setmaxnreg (with the register count at entry ptxas needs to honour it) and
// the wgmma fence, commit and wait. Shared by the emit-*.test files. It is
// for compiling only: every thread issues the TMA, and a lone warpgroup's
// setmaxnreg.inc waits forever for registers no other warpgroup released.

llvm.mlir.global internal @barriers() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>

llvm.func @tma_kernel(%tensor_map: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
                      %out: !llvm.ptr<1>)
    attributes {nvvm.kernel, nvvm.maxnreg = 168 : i32} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %bytes = llvm.mlir.constant(8192 : i32) : i32
  %ticks = llvm.mlir.constant(10000000 : i32) : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %barrier = llvm.mlir.addressof @barriers : !llvm.ptr<3>
  %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
  nvvm.mbarrier.init %barrier, %c1 : !llvm.ptr<3>, i32
  nvvm.fence.mbarrier.init
  nvvm.barrier0
  %tile_cluster = llvm.addrspacecast %tile : !llvm.ptr<3> to !llvm.ptr<7>
  nvvm.mbarrier.arrive.expect_tx %barrier, %bytes : !llvm.ptr<3>, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global %tile_cluster, %tensor_map, %barrier, box[%c0, %c1] : !llvm.ptr<7>, !llvm.ptr
  nvvm.mbarrier.try_wait.parity %barrier, %c0, %ticks : !llvm.ptr<3>, i32, i32
  nvvm.setmaxregister increase 240
  nvvm.wgmma.fence.aligned
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  %value = llvm.load %tile : !llvm.ptr<3> -> i32
  %slot = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %value, %slot : i32, !llvm.ptr<1>
  llvm.return
}

// A cubin whose MMAs ptxas runs otherwise than the PTX says is a warning at
// the kernel: here the accumulator is read before the wait for its MMA, so
// ptxas waits for the MMA first (C7517); the overlap the schedule counted on
// is gone, the cubin still right. A kernel that reads after its wait gets
// no warning.
// REQUIRES: ptxas
// RUN: fa4-translate %s --arch=sm_90a --emit=cubin -o /dev/null --split-input-file --verify-diagnostics

// expected-warning @below {{ptxas changed the MMA schedule: (C7517) warpgroup.wait is injected}}
llvm.func @early_read(%a: i64, %b: i64, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
  %a0 = llvm.insertvalue %zero, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
  %a1 = llvm.insertvalue %zero, %a0[1] : !llvm.struct<(f32, f32, f32, f32)>
  %a2 = llvm.insertvalue %zero, %a1[2] : !llvm.struct<(f32, f32, f32, f32)>
  %acc = llvm.insertvalue %zero, %a2[3] : !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %a, %b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  %x = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
  llvm.store %x, %out : f32, !llvm.ptr<1>
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return
}

// -----

llvm.func @read_after_wait(%a: i64, %b: i64, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
  %a0 = llvm.insertvalue %zero, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
  %a1 = llvm.insertvalue %zero, %a0[1] : !llvm.struct<(f32, f32, f32, f32)>
  %a2 = llvm.insertvalue %zero, %a1[2] : !llvm.struct<(f32, f32, f32, f32)>
  %acc = llvm.insertvalue %zero, %a2[3] : !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %a, %b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  %x = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
  llvm.store %x, %out : f32, !llvm.ptr<1>
  llvm.return
}

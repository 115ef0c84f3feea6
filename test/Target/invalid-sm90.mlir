// Plain sm_90 has neither wgmma nor setmaxnreg: each use is an error at the op
// before any code generation, never a backend abort or a ptxas failure.
// RUN: fa4-translate %s --arch=sm_90 --split-input-file --verify-diagnostics

llvm.func @mma(%a: i64, %b: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) attributes {nvvm.kernel} {
  // expected-error @below {{'nvvm.wgmma.mma_async' needs sm_90a; plain sm_90 has no wgmma (pass --arch=sm_90a)}}
  %d = nvvm.wgmma.mma_async %a, %b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @fence() attributes {nvvm.kernel} {
  // expected-error @below {{'nvvm.wgmma.fence.aligned' needs sm_90a; plain sm_90 has no wgmma (pass --arch=sm_90a)}}
  nvvm.wgmma.fence.aligned
  // expected-error @below {{'nvvm.wgmma.commit.group.sync.aligned' needs sm_90a; plain sm_90 has no wgmma (pass --arch=sm_90a)}}
  nvvm.wgmma.commit.group.sync.aligned
  // expected-error @below {{'nvvm.wgmma.wait.group.sync.aligned' needs sm_90a; plain sm_90 has no wgmma (pass --arch=sm_90a)}}
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return
}

// -----

llvm.func @registers() attributes {nvvm.kernel, nvvm.maxnreg = 168 : i32} {
  // expected-error @below {{'nvvm.setmaxregister' needs sm_90a or sm_100a; plain sm_90 has no setmaxnreg (pass --arch=sm_90a)}}
  nvvm.setmaxregister decrease 40
  llvm.return
}

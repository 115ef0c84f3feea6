// Blackwell has no wgmma: a Hopper MMA compiled for sm_100a is an error at
// the op.
// RUN: fa4-translate %s --arch=sm_100a --verify-diagnostics

llvm.func @fence() attributes {nvvm.kernel} {
  // expected-error @below {{'nvvm.wgmma.fence.aligned' needs sm_90a; sm_100a has no wgmma (pass --arch=sm_90a)}}
  nvvm.wgmma.fence.aligned
  llvm.return
}

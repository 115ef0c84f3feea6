// sm_90a has no tcgen05 and no cluster launch control: each use is an error
// at the op. A tcgen05 op has its own rule; the other op is checked through
// the NVVM dialect's RequiresSM trait.
// RUN: fa4-translate %s --arch=sm_90a --split-input-file --verify-diagnostics

llvm.func @tensor_memory(%slot: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %columns = llvm.mlir.constant(128 : i32) : i32
  // expected-error @below {{'nvvm.tcgen05.alloc' needs sm_100a; sm_90a has no tcgen05 (pass --arch=sm_100a)}}
  nvvm.tcgen05.alloc %slot, %columns : !llvm.ptr<3>, i32
  llvm.return
}

// -----

llvm.func @cancel(%response: !llvm.ptr<3>, %barrier: !llvm.ptr<3>) attributes {nvvm.kernel} {
  // expected-error @below {{'nvvm.clusterlaunchcontrol.try.cancel' needs sm_100 or newer; sm_90a does not have it}}
  nvvm.clusterlaunchcontrol.try.cancel %response, %barrier
  llvm.return
}

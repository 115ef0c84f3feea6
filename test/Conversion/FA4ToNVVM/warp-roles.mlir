// fa4-lower-warp-roles: one scf.if per role on the warp id, setmaxnreg from
// the register count at entry (384 threads: 168), the producer on its first
// warp only, warpgroup ids relative to the role, the thread count recorded.
// RUN: fa4-opt %s --split-input-file --verify-diagnostics --fa4-lower-warp-roles | FileCheck %s

// CHECK-LABEL: func.func @roles
// CHECK-SAME: fa4.threads = 384 : i64
func.func @roles(%x: index) -> index attributes {fa4.kernel} {
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %{{.*}} : i32
  // CHECK: %[[GE:.*]] = arith.cmpi uge, %[[WARP]], %[[C0:.*]] : i32
  // CHECK: %[[LT:.*]] = arith.cmpi ult, %[[WARP]], %[[C4:.*]] : i32
  // CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
  // CHECK: scf.if %[[IN]] {
  // CHECK-NEXT: nvvm.setmaxregister decrease 24
  // CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[WARP]], %{{.*}} : i32
  // CHECK-NEXT: scf.if %[[FIRST]] {
  // CHECK-NEXT: fa4.named_barrier.arrive id(1) threads(384)
  // CHECK: arith.cmpi uge, %[[WARP]], %{{.*}} : i32
  // CHECK: arith.cmpi ult, %[[WARP]], %{{.*}} : i32
  // CHECK: scf.if
  // CHECK-NEXT: nvvm.setmaxregister increase 240
  // Warpgroup id: tid / 128 - 1 (the consumers start at warpgroup 1).
  // CHECK: %[[G:.*]] = arith.divui %[[TID]], %{{.*}} : i32
  // CHECK: %[[L:.*]] = arith.subi %[[G]], %{{.*}} : i32
  // CHECK: arith.index_castui %[[L]] : i32 to index
  // CHECK: fa4.named_barrier.sync id(1) threads(384)
  // CHECK-NOT: fa4.warp_specialize
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
      fa4.named_barrier.arrive id(1) threads(384)
    }
    fa4.role consumer warps(8) regs(240) {
      %wg = fa4.warpgroup_id
      fa4.named_barrier.sync id(1) threads(384)
    }
  }
  return %x : index
}

// -----

func.func @two_sets() attributes {fa4.kernel} {
  fa4.warp_specialize {
    fa4.role consumer warps(4) regs(128) {
    }
  }
  // expected-error @below {{is the second in its kernel; a kernel has one set of warp roles}}
  fa4.warp_specialize {
    fa4.role consumer warps(4) regs(128) {
    }
  }
  return
}

// -----

// A programmatic launch: every thread of every role lets the next kernel
// launch and waits for the previous one's memory first thing (after
// setmaxnreg, before the producer's first-warp branch and the roles'
// bodies), then an empty asm that clobbers memory, so that LLVM moves no
// load or store above the wait; a kernel without roles does so at its
// entry.
// CHECK-LABEL: func.func @programmatic
func.func @programmatic(%p: !llvm.ptr<1>) attributes {fa4.kernel, fa4.programmatic_launch} {
  // CHECK: scf.if
  // CHECK-NEXT: nvvm.setmaxregister decrease 24
  // CHECK-NEXT: nvvm.griddepcontrol launch_dependents
  // CHECK-NEXT: nvvm.griddepcontrol wait
  // CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}}"", "~{memory}"
  // CHECK: scf.if
  // CHECK-NEXT: llvm.load
  // CHECK: scf.if
  // CHECK-NEXT: nvvm.setmaxregister increase 240
  // CHECK-NEXT: nvvm.griddepcontrol launch_dependents
  // CHECK-NEXT: nvvm.griddepcontrol wait
  // CHECK-NEXT: llvm.inline_asm
  // CHECK: llvm.store
  // CHECK-NOT: griddepcontrol
  fa4.warp_specialize {
    fa4.role producer warps(4) regs(24) {
      %x = llvm.load %p : !llvm.ptr<1> -> i32
    }
    fa4.role consumer warps(8) regs(240) {
      %c = llvm.mlir.constant(1 : i32) : i32
      llvm.store %c, %p : i32, !llvm.ptr<1>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @programmatic_plain
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: llvm.inline_asm has_side_effects
// CHECK-NEXT: llvm.load
func.func @programmatic_plain(%p: !llvm.ptr<1>) -> i32 attributes {fa4.kernel, fa4.programmatic_launch} {
  %x = llvm.load %p : !llvm.ptr<1> -> i32
  return %x : i32
}

// -----

// Without the attribute, no grid dependency control.
// CHECK-LABEL: func.func @stream_ordered
// CHECK-NOT: griddepcontrol
func.func @stream_ordered(%p: !llvm.ptr<1>) -> i32 attributes {fa4.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> i32
  return %x : i32
}

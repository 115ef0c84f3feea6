// Where cheap loop invariants live (--loop-invariants): hoisted out of the
// loop, as LLVM leaves them, or recomputed where the loop uses them: a
// tree of cheap instructions (the lane's shl and or) moves in, one over
// twelve (the chain of adds and multiplies) stays out. At -O0, so that the
// input's loop is the one printed.
// RUN: fa4-translate %s --emit=llvm -O0 --loop-invariants=hoist | FileCheck %s --check-prefix=HOIST
// RUN: fa4-translate %s --emit=llvm -O0 --loop-invariants=recompute | FileCheck %s --check-prefix=RECOMPUTE
// Without ptxas's report auto has nothing to go by: it hoists.
// RUN: fa4-translate %s --emit=llvm -O0 | FileCheck %s --check-prefix=HOIST
// RUN: not fa4-translate %s --emit=llvm --loop-invariants=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// HOIST: %[[TID:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// HOIST-NEXT: %[[SHL:.*]] = shl i32 %[[TID]], 1
// HOIST-NEXT: %[[LANE:.*]] = or i32 %[[SHL]], 5
// HOIST: phi i32
// HOIST-NEXT: add i32 %[[LANE]],
// HOIST-NOT: shl
// HOIST: ret void

// RECOMPUTE: %[[TID:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// RECOMPUTE-NOT: shl
// RECOMPUTE: phi i32
// RECOMPUTE-NEXT: %[[SHL:.*]] = shl i32 %[[TID]], 1
// RECOMPUTE-NEXT: %[[LANE:.*]] = or i32 %[[SHL]], 5
// RECOMPUTE-NEXT: add i32 %[[LANE]],
// RECOMPUTE-NOT: add i32 %{{[0-9]+}}, %1
// RECOMPUTE: ret void

// BAD: Cannot find option named 'sometimes'

llvm.func @kernel(%out: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c5 = llvm.mlir.constant(5 : i32) : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %base = llvm.shl %tid, %c1 : i32
  %lane = llvm.or %base, %c5 : i32
  %x1 = llvm.add %tid, %n : i32
  %x2 = llvm.mul %x1, %tid : i32
  %x3 = llvm.add %x2, %n : i32
  %x4 = llvm.mul %x3, %tid : i32
  %x5 = llvm.add %x4, %n : i32
  %x6 = llvm.mul %x5, %tid : i32
  %x7 = llvm.add %x6, %n : i32
  %x8 = llvm.mul %x7, %tid : i32
  %x9 = llvm.add %x8, %n : i32
  %x10 = llvm.mul %x9, %tid : i32
  %x11 = llvm.add %x10, %n : i32
  %x12 = llvm.mul %x11, %tid : i32
  %x13 = llvm.add %x12, %n : i32
  llvm.br ^loop(%c0 : i32)
^loop(%i: i32):
  %v = llvm.add %lane, %i : i32
  %w = llvm.mul %x13, %i : i32
  %p = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %v, %p : i32, !llvm.ptr<1>
  %q = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  llvm.store %w, %q : i32, !llvm.ptr<1>
  %next = llvm.add %i, %c1 : i32
  %cond = llvm.icmp "slt" %next, %n : i32
  llvm.cond_br %cond, ^loop(%next : i32), ^exit
^exit:
  llvm.return
}

//===- LoopInvariants.h - cheap loop invariants recomputed in loops -*- C++
//-*-===//
//
// The IR side of `LoopInvariants::Recompute` (fa4/Target/Target.h), for the
// translation and for `assemble`'s second attempt.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_TARGET_LOOPINVARIANTS_H
#define FA4_LIB_TARGET_LOOPINVARIANTS_H

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::fa4 {

/// Recomputes, before their first use in each block of a loop, the values
/// defined outside that loop by a tree of a few cheap integer instructions
/// (arithmetic, shifts, casts, address arithmetic) over values the loop
/// reads anyway, instead of holding each in a register across the loop.
void recomputeLoopInvariants(llvm::Module &module);

} // namespace mlir::fa4

#endif // FA4_LIB_TARGET_LOOPINVARIANTS_H

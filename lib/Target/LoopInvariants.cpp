//===- LoopInvariants.cpp - cheap loop invariants recomputed in loops -----===//
//
// LLVM's loop-invariant code motion hoists every invariant value out of a
// loop, however cheap to recompute: the mask's column indices (a thread's
// base or'd with each column), shuffle lanes, the wgmma descriptors of
// tiles that stay in shared memory. Each then holds a register across the
// whole loop, and in a kernel whose tiles already fill the register file
// (the attention backward's five products at head dim 64: about 100 such
// values, 368 bytes of spills a thread) ptxas spills them. This recomputes
// them where the loop uses them, from the values they derive from.
//
//===----------------------------------------------------------------------===//

#include "LoopInvariants.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

/// The largest tree of cheap instructions recomputed for one value. The
/// wgmma descriptors are trees of about ten (an address, its offset, the
/// shift, mask and mode bits of the descriptor); over the attention
/// backward's kernels 12 left the fewest spills (the five products at head
/// dim 64: 164 bytes against 368 hoisted, 228 with at most 4, 144 with 30
/// at the cost of long trees in the loop).
constexpr unsigned kMaxRecomputedOps = 12;

/// Whether `inst` is integer arithmetic or a cast that recomputing costs one
/// instruction and nothing else: no memory, no division, no call.
static bool isCheap(const Instruction *inst) {
  switch (inst->getOpcode()) {
  case Instruction::Add:
  case Instruction::Sub:
  case Instruction::Mul:
  case Instruction::Shl:
  case Instruction::LShr:
  case Instruction::AShr:
  case Instruction::And:
  case Instruction::Or:
  case Instruction::Xor:
  case Instruction::ZExt:
  case Instruction::SExt:
  case Instruction::Trunc:
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::BitCast:
  case Instruction::GetElementPtr:
    return true;
  default:
    return false;
  }
}

namespace {
/// Recomputes the cheap values defined outside a loop that the loop uses,
/// once a block: a copy serves the later uses of its block.
class Recomputer {
public:
  /// The value of `value` at `before`, an instruction of `loop`: `value`
  /// itself when it is not an instruction, is defined in the loop or is not
  /// cheap; else a copy of its cheap tree, or null when that tree is larger
  /// than kMaxRecomputedOps.
  Value *at(Value *value, Loop *loop, Instruction *before) {
    auto *inst = dyn_cast<Instruction>(value);
    if (!inst || loop->contains(inst) || !isCheap(inst))
      return value;
    auto key = std::make_pair(before->getParent(), inst);
    if (auto it = copies.find(key); it != copies.end())
      return it->second;
    unsigned ops = 0;
    if (!fits(inst, loop, ops))
      return nullptr;
    Instruction *copy = inst->clone();
    copy->insertBefore(before->getIterator());
    copy->setName(inst->getName());
    for (Use &operand : copy->operands())
      operand.set(at(operand.get(), loop, copy));
    copies[key] = copy;
    return copy;
  }

private:
  /// Whether the cheap tree of `inst` outside `loop` has at most
  /// kMaxRecomputedOps instructions, counting into `ops`.
  static bool fits(Instruction *inst, Loop *loop, unsigned &ops) {
    if (++ops > kMaxRecomputedOps)
      return false;
    for (Value *operand : inst->operands())
      if (auto *def = dyn_cast<Instruction>(operand))
        if (!loop->contains(def) && isCheap(def) && !fits(def, loop, ops))
          return false;
    return true;
  }

  DenseMap<std::pair<BasicBlock *, Instruction *>, Instruction *> copies;
};
} // namespace

void mlir::fa4::recomputeLoopInvariants(llvm::Module &module) {
  for (Function &function : module) {
    if (function.isDeclaration())
      continue;
    DominatorTree dominators(function);
    LoopInfo loops(dominators);
    if (loops.empty())
      continue;
    Recomputer recomputer;
    SmallVector<WeakTrackingVH> replaced;
    for (BasicBlock &block : function) {
      Loop *loop = loops.getLoopFor(&block);
      if (!loop)
        continue;
      for (Instruction &inst : block) {
        // A phi's operand is read on the edge into its block, not where
        // the phi stands.
        if (isa<PHINode>(inst))
          continue;
        for (Use &operand : inst.operands()) {
          auto *def = dyn_cast<Instruction>(operand.get());
          if (!def || loop->contains(def) || !isCheap(def))
            continue;
          if (Value *copy = recomputer.at(def, loop, &inst)) {
            operand.set(copy);
            replaced.push_back(def);
          }
        }
      }
    }
    RecursivelyDeleteTriviallyDeadInstructionsPermissive(replaced);
  }
}

//===- PrintPlan.cpp - report the budgets of kernel plans -----------------===//
//
// The `fa4-print-plan` pass: for every op that carries `fa4.config`, prints
// the tiles, the shared-memory budget and the register budget of the plan.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/FA4Dialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4PRINTPLAN
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

static void printPlan(llvm::raw_ostream &os, Operation *op, ConfigAttr config) {
  os << "fa4 plan";
  if (auto name =
          op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    os << " for @" << name.getValue();
  os << ": " << config.getElementType() << ", head dim " << config.getHeadDim()
     << "/" << config.getHeadDimV() << ", "
     << stringifyTarget(config.getTarget()) << "\n";
  os << "  tiles: " << config.getQTiles() << " Q tile(s) of bm "
     << config.getBm() << ", bn " << config.getBn() << ", bk0 "
     << config.getBk0() << " (" << config.getQkStages() << " qk stages), bk1 "
     << config.getBk1() << ", " << config.getKvStages()
     << " kv stages, swizzle " << config.getSwizzle() << " B\n";
  os << "  schedule: "
     << (!config.getPersistent()       ? "one tile per CTA"
         : config.getDynamicSchedule() ? "persistent (dynamic: tiles claimed "
                                         "from a counter, handed on through "
                                         "a schedule pipeline)"
         : config.getInterleaveHeads()
             ? "persistent (folded static order, heads interleaved)"
             : "persistent (folded static order)")
     << ", " << config.getQStages() << " Q stage(s)"
     << (!config.getTmaStore() ? ""
         : config.getPersistent() && !config.getOInQ()
             ? ", TMA-store epilogue (O staged in a buffer "
               "of its own)"
         : config.getPersistent()
             ? ", TMA-store epilogue (O staged in the tile's Q stage, "
               "released once the store has read it: o_in_q)"
             : ", TMA-store epilogue (O staged in the Q "
               "stage)")
     << (config.getDebugHangs() ? ", bounded waits (debug_hangs)" : "")
     << (config.getRebuildDescriptors()
             ? ", MMA descriptors rebuilt each step (rebuild_descriptors)"
             : "")
     << (config.getPinDescriptors()
             ? ", MMA descriptor bases made in the loop (pin_descriptors)"
             : "")
     << (config.getShortPointers()
             ? ", 32-bit shared-memory pointers (short_pointers)"
             : "")
     << "\n";
  SharedMemoryPlan smem = config.getSharedMemoryPlan();
  os << "  shared memory: Q " << smem.q << " B + K " << smem.k << " B + V "
     << smem.v << " B";
  if (smem.o)
    os << " + O staging " << smem.o << " B";
  if (smem.schedule)
    os << " + schedule slots " << smem.schedule << " B";
  os << " + barriers " << smem.barriers << " B + alignment "
     << smem.padding << " B = " << smem.total()
     << " B of " << smem.limit << " B\n";
  int64_t registers = 0;
  os << "  roles:";
  for (RoleAttr role : config.getRoleList()) {
    os << " " << stringifyRoleKind(role.getKind()) << " " << role.getWarps()
       << " warps x " << role.getRegs() << " regs;";
    registers += role.getWarps() * 32 * role.getRegs();
  }
  os << " " << registers << " of "
     << getTargetLimits(config.getTarget()).registersPerSM << " registers\n";
}

namespace {
struct PrintPlanPass : public mlir::fa4::impl::FA4PrintPlanBase<PrintPlanPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto config =
              op->getAttrOfType<ConfigAttr>(FA4Dialect::getConfigAttrName()))
        printPlan(llvm::errs(), op, config);
    });
    markAllAnalysesPreserved();
  }
};
} // namespace

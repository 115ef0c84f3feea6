//===- WarpRoles.cpp - the fa4-lower-warp-roles pass ----------------------===//
//
// Lowers `fa4.warp_specialize` to one `scf.if` per role on the warp id, with
// the role's setmaxnreg, and `fa4.warpgroup_id` to arithmetic on the thread
// id; records each kernel's thread count. A kernel with a programmatic
// launch (`fa4.programmatic_launch`) lets the next kernel launch and waits
// for the previous one's memory at the start of every role (or of the
// kernel, without roles): after the barriers' initialization, which
// touches shared memory only, and before any global access.
//
// In a persistent kernel the warpgroup index is read from lane 0
// (shfl.sync.idx): ptxas then knows it, and the branches on it (the
// ping-pong's barrier ids), are warp-uniform, and keeps the pipeline states
// that the tile loop carries, and the stage addresses and MMA descriptors
// made from them, in uniform registers (the main loop at head dim 128: 700
// instructions, no R2UR, against 738 and 26 without; bench/RESULTS.md,
// 2026-12-02). In a kernel of one tile it costs: 741 against 711.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "FA4/FA4Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4LOWERWARPROLES
#include "fa4/Conversion/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

namespace {

Value i32(ImplicitLocOpBuilder &b, int64_t value) {
  return arith::ConstantIntOp::create(b, value, 32);
}

/// The start of a kernel launched programmatically: the next kernel may
/// begin launching (its CTAs wait in turn), and this thread waits for the
/// previous kernel's completion and memory. LLVM takes the wait for an
/// intrinsic that touches no memory: an empty asm that clobbers memory
/// keeps every load and store after it.
void overlapLaunches(ImplicitLocOpBuilder &b) {
  NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::launch_dependents);
  NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::wait);
  LLVM::InlineAsmOp::create(
      b, Type(), ValueRange(), "", "~{memory}", /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

/// Replace `op` by one scf.if per role; returns the block's thread count.
/// The kernel's plan `config` (if any) gives the registers it starts with;
/// a persistent one reads each warpgroup index from lane 0. `programmatic`:
/// each role starts with overlapLaunches.
int64_t lowerWarpSpecialize(WarpSpecializeOp op, ConfigAttr config,
                            bool programmatic) {
  bool broadcastGroup = config && config.getPersistent();
  SmallVector<RoleOp> roles =
      llvm::to_vector(op.getBody().front().getOps<RoleOp>());
  int64_t warps = 0;
  for (RoleOp role : roles)
    warps += role.getWarps();
  int64_t entryRegs = getEntryRegisters(warps * 32, config);

  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value tid = NVVM::ThreadIdXOp::create(b, b.getI32Type());
  Value warp = arith::DivUIOp::create(b, tid, i32(b, 32));
  int64_t start = 0;
  for (RoleOp role : roles) {
    int64_t end = start + role.getWarps();
    b.setLoc(role.getLoc());
    Value inRole = arith::AndIOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, warp,
                              i32(b, start)),
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, warp, i32(b, end)));
    auto ifRole = scf::IfOp::create(b, inRole, /*withElseRegion=*/false);
    b.setInsertionPoint(ifRole.thenBlock()->getTerminator());
    int64_t regs = role.getRegs();
    if (regs != entryRegs)
      NVVM::SetMaxRegisterOp::create(
          b, regs,
          regs > entryRegs ? NVVM::SetMaxRegisterAction::increase
                           : NVVM::SetMaxRegisterAction::decrease);
    if (programmatic)
      overlapLaunches(b);
    Block *target = ifRole.thenBlock();
    if (role.getKind() == RoleKind::producer) {
      Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warp,
                                          i32(b, start));
      auto ifFirst = scf::IfOp::create(b, first, /*withElseRegion=*/false);
      target = ifFirst.thenBlock();
    }

    // The role's warpgroup index, then its body.
    role.walk([&](WarpgroupIdOp id) {
      ImplicitLocOpBuilder ib(id.getLoc(), id);
      Value group = arith::DivUIOp::create(ib, tid, i32(ib, 128));
      if (broadcastGroup)
        group = NVVM::ShflOp::create(ib, ib.getI32Type(), i32(ib, -1), group,
                                     i32(ib, 0), i32(ib, 31),
                                     NVVM::ShflKind::idx, UnitAttr());
      Value local = arith::SubIOp::create(ib, group, i32(ib, start / 4));
      Value index = arith::IndexCastUIOp::create(ib, ib.getIndexType(), local);
      id.getResult().replaceAllUsesWith(index);
      id.erase();
    });
    Block &body = role.getBody().front();
    target->getOperations().splice(target->getTerminator()->getIterator(),
                                   body.getOperations());
    b.setInsertionPointAfter(ifRole);
    start = end;
  }
  op.erase();
  return warps * 32;
}

struct LowerWarpRolesPass
    : public mlir::fa4::impl::FA4LowerWarpRolesBase<LowerWarpRolesPass> {
  void runOnOperation() override {
    Builder builder(&getContext());
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      SmallVector<WarpSpecializeOp> ops;
      function->walk([&](WarpSpecializeOp op) { ops.push_back(op); });
      if (ops.size() > 1) {
        ops[1].emitOpError() << "is the second in its kernel; a kernel has "
                                "one set of warp roles";
        return signalPassFailure();
      }
      bool programmatic = function->hasAttr(kProgrammaticLaunchAttrName);
      if (ops.empty()) {
        if (programmatic && !function.isExternal()) {
          Block &entry = function.getFunctionBody().front();
          ImplicitLocOpBuilder b(function.getLoc(), &entry, entry.begin());
          overlapLaunches(b);
        }
        continue;
      }
      ConfigAttr config = lookupConfig(function);
      int64_t threads = lowerWarpSpecialize(ops.front(), config, programmatic);
      function->setAttr(kThreadsAttrName, builder.getI64IntegerAttr(threads));
    }
  }
};
} // namespace

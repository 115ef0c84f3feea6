//===- ConditionalRescale.cpp - skip rescalings by factors of one ---------===//
//
// The `fa4-conditional-rescale` pass: a register tile in the accumulator
// layout multiplied by a per-row factor (a `#fa4.rows` vector broadcast along
// the columns) is multiplied only in the warps that hold a row whose factor
// is not exactly 1; the others keep the tile as it is, which is the same
// value. With FA4's lazy rescaling (the running max of a row moves only when
// it grows past a threshold) the rescaling of O is nearly always by 1, and
// the branch saves the warp one multiply per accumulator value and key block.
//
//===----------------------------------------------------------------------===//

#include "fa4/Transforms/Passes.h"

#include "FA4/FA4Dialect.h"
#include "Tile/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fa4-conditional-rescale"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4CONDITIONALRESCALE
#include "fa4/Transforms/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;

/// The column broadcast of a `#fa4.rows` factor that `mul` scales an
/// `#fa4.acc` tile by, and the tile's operand number; or nothing.
static std::optional<std::pair<tile::BroadcastOp, unsigned>>
matchRowRescale(arith::MulFOp mul) {
  auto type = dyn_cast<RankedTensorType>(mul.getType());
  if (!type || !isa_and_nonnull<AccLayoutAttr>(type.getEncoding()))
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    auto broadcast = mul->getOperand(i).getDefiningOp<tile::BroadcastOp>();
    if (!broadcast || broadcast.getAxis() != 1)
      continue;
    auto factor = cast<RankedTensorType>(broadcast.getSrc().getType());
    if (isa_and_nonnull<RowsLayoutAttr>(factor.getEncoding()))
      return std::make_pair(broadcast, 1 - i);
  }
  return std::nullopt;
}

/// `x * broadcast(f)` becomes `warp_any(f != 1) ? x * broadcast(f) : x`,
/// the vote expected false.
static void makeConditional(arith::MulFOp mul, tile::BroadcastOp broadcast,
                            unsigned tileOperand) {
  OpBuilder b(mul);
  Location loc = mul.getLoc();
  Value factor = broadcast.getSrc();
  auto factorType = cast<RankedTensorType>(factor.getType());
  Value one = arith::ConstantOp::create(
      b, loc, factorType,
      DenseElementsAttr::get(factorType,
                             b.getFloatAttr(factorType.getElementType(), 1.0)));
  Value notOne =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, factor, one);
  // Expected false: the branch must stay a branch, or LLVM's if-conversion
  // speculates the multiply and selects, which costs more than it saves.
  Value any = LLVM::ExpectOp::create(
      b, loc, WarpAnyOp::create(b, loc, notOne),
      arith::ConstantIntOp::create(b, loc, 0, 1));
  Value tile = mul->getOperand(tileOperand);
  auto branch = scf::IfOp::create(b, loc, mul.getType(), any,
                                  /*withElseRegion=*/true);
  mul->replaceAllUsesWith(branch.getResults());
  OpBuilder then = branch.getThenBodyBuilder();
  scf::YieldOp::create(then, loc, mul.getResult());
  mul->moveBefore(branch.thenYield());
  OpBuilder otherwise = branch.getElseBodyBuilder();
  scf::YieldOp::create(otherwise, loc, tile);
}

namespace {
struct ConditionalRescalePass
    : public fa4::impl::FA4ConditionalRescaleBase<ConditionalRescalePass> {
  void runOnOperation() override {
    SmallVector<std::pair<arith::MulFOp, std::pair<tile::BroadcastOp, unsigned>>>
        rescales;
    getOperation().walk([&](arith::MulFOp mul) {
      if (auto match = matchRowRescale(mul))
        rescales.emplace_back(mul, *match);
    });
    LLVM_DEBUG(llvm::dbgs() << "fa4-conditional-rescale: " << rescales.size()
                            << " row rescalings made conditional\n");
    for (auto &[mul, match] : rescales)
      makeConditional(mul, match.first, match.second);
  }
};
} // namespace

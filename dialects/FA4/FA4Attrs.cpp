//===- FA4Attrs.cpp - #fa4.config and #fa4.role ---------------------------===//
//
// The one verifier of a kernel plan (shared memory, TMA boxes, the qk split,
// warp roles and registers), the shared-memory budget it computes, and the
// FA4Config-style derivation of a default plan from a problem.
//
//===----------------------------------------------------------------------===//

#include "FA4/FA4Dialect.h"

#include "FA4/CoalescedFragment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fa4;

/// Most kv stages a derived plan asks for, by padded head dim: the best
/// measured on the H200 (bench/RESULTS.md, 2026-12-01, bf16, H = 16,
/// B * S = 16384, S 1024 ... 16384, causal and not; TFLOP/s):
///
///   head dim 64:  kv 4 (default) vs 2: 0.98-1.04 of it, no clear winner;
///                 vs 3: the same within 1 %. Four kept.
///   head dim 128: kv 2 vs 3: faster at all 10 shapes, by 0.4-3 %
///                 (e.g. S = 4096: 619 vs 599). Two.
static int64_t maxDerivedKvStages(int64_t paddedHeadDim) {
  return paddedHeadDim >= 128 ? 2 : 4;
}

TargetLimits mlir::fa4::getTargetLimits(Target target) {
  switch (target) {
  case Target::sm_90a:
  case Target::sm_100a:
    return {227 * 1024, 65536, 1024};
  }
  llvm_unreachable("unknown target");
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

/// A budget setmaxnreg takes: a multiple of 8 in [24, 256].
static bool isSetmaxnregBudget(int64_t regs) {
  return regs >= 24 && regs <= 256 && regs % 8 == 0;
}

LogicalResult
mlir::fa4::verifyRole(function_ref<InFlightDiagnostic()> emitError,
                      RoleKind kind, int64_t warps, int64_t regs) {
  if (warps <= 0 || warps % 4 != 0)
    return emitError() << "role '" << stringifyRoleKind(kind) << "' has "
                       << warps
                       << " warps; a role takes whole warpgroups (a positive "
                          "multiple of 4 warps) since setmaxnreg applies per "
                          "warpgroup";
  if (!isSetmaxnregBudget(regs))
    return emitError() << "role '" << stringifyRoleKind(kind) << "' asks for "
                       << regs
                       << " registers per thread; setmaxnreg takes a multiple "
                          "of 8 in [24, 256]";
  return success();
}

LogicalResult mlir::fa4::verifyRoleBudget(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<std::tuple<RoleKind, int64_t, int64_t>> roles, Target target) {
  TargetLimits limits = getTargetLimits(target);
  // A role whose warps or registers are out of range reports that itself;
  // the sums below would be meaningless (or overflow) with it.
  if (!llvm::all_of(roles, [](auto role) {
        int64_t warps = std::get<1>(role), regs = std::get<2>(role);
        return warps > 0 && warps % 4 == 0 && warps <= 1024 && regs > 0 &&
               regs <= 1024;
      }))
    return success();
  int64_t threads = 0, registers = 0;
  for (auto [kind, warps, regs] : roles) {
    threads += warps * 32;
    registers += warps * 32 * regs;
  }
  auto describe = [&](InFlightDiagnostic &diag) {
    diag << " (";
    llvm::interleave(
        roles, diag,
        [&](auto role) {
          diag << stringifyRoleKind(std::get<0>(role)) << ": "
               << std::get<1>(role) << " warps x " << std::get<2>(role);
        },
        ", ");
    diag << ")";
  };
  if (threads > limits.threadsPerBlock) {
    InFlightDiagnostic diag = emitError();
    diag << "roles need " << threads << " threads";
    describe(diag);
    return diag << " but a CTA holds at most " << limits.threadsPerBlock;
  }
  if (registers > limits.registersPerSM) {
    InFlightDiagnostic diag = emitError();
    diag << "roles need " << registers << " registers";
    describe(diag);
    return diag << " but the SM has " << limits.registersPerSM;
  }
  // setmaxnreg only moves registers between the warpgroups of a CTA: the
  // roles share what the CTA is launched with, every thread's entry budget.
  // A role that asks for more waits in setmaxnreg forever.
  // (A role's own budget out of range is reported by the role.)
  int64_t entry = getEntryRegisters(threads);
  bool rolesValid = llvm::all_of(
      roles, [](auto role) { return isSetmaxnregBudget(std::get<2>(role)); });
  if (rolesValid && registers > threads * entry) {
    InFlightDiagnostic diag = emitError();
    diag << "roles need " << registers << " registers";
    describe(diag);
    return diag << " but a CTA of " << threads << " threads is launched with "
                << threads * entry << " (" << entry
                << " a thread), which setmaxnreg can only move between "
                   "warpgroups";
  }
  return success();
}

LogicalResult RoleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               RoleKind kind, int64_t warps, int64_t regs) {
  return verifyRole(emitError, kind, warps, regs);
}

//===----------------------------------------------------------------------===//
// Config
//===----------------------------------------------------------------------===//

/// `dim` rounded up to whole swizzle atoms (`swizzle` bytes of elements).
static int64_t padToSwizzle(int64_t dim, int64_t swizzle, int64_t elemBytes) {
  int64_t atom = std::max<int64_t>(swizzle / elemBytes, 1);
  return llvm::alignTo(dim, atom);
}

int64_t SharedMemoryLayout::addRegion(int64_t bytes) {
  int64_t at = end;
  int64_t used = llvm::alignTo(bytes, 8);
  end += getAlignedRegionBytes(bytes);
  gaps.push_back({at + used, end - (at + used)});
  return at;
}

int64_t SharedMemoryLayout::addSmall(int64_t bytes) {
  bytes = llvm::alignTo(bytes, 8);
  for (auto &[start, room] : gaps) {
    if (room < bytes)
      continue;
    int64_t at = start;
    start += bytes;
    room -= bytes;
    return at;
  }
  int64_t at = end;
  end += getAlignedRegionBytes(bytes);
  return at;
}

/// Whether O's staging tile for the TMA store is a buffer of its own: in a
/// persistent plan unless it says o_in_q, and in a one-tile plan whose O
/// is wider than the Q stage it would otherwise take.
static bool stagesOApart(bool tmaStore, bool persistent, bool oInQ,
                         int64_t paddedD, int64_t paddedDv) {
  return tmaStore && (persistent ? !oInQ : paddedDv > paddedD);
}

static SharedMemoryPlan computePlan(int64_t elemBytes, int64_t paddedD,
                                    int64_t paddedDv, int64_t bm, int64_t bn,
                                    int64_t kvStages, int64_t qkStages,
                                    int64_t qTiles, int64_t qStages,
                                    bool stagedO, bool dynamicSchedule,
                                    bool debugHangs, Target target) {
  // The pipelines fa4-pipeline-tma and fa4-split-qk make for the plan: Q,
  // q stages of all Q tiles; K, kv x qk sub-stages of bn x (padded head dim
  // / qk) tiles; V, kv stages of bn x padded head dim tiles. Laid out as
  // fa4-allocate-shared-memory lays them out, by the same routine.
  SharedMemoryPlan plan;
  SharedMemoryLayout layout;
  int64_t bk0 = qkStages > 0 ? paddedD / qkStages : paddedD;
  struct Region {
    int64_t *buffers;
    int64_t kv, qk, tile;
  } regions[] = {
      {&plan.q, qStages, 1, qTiles * bm * paddedD * elemBytes},
      {&plan.k, kvStages, qkStages, bn * bk0 * elemBytes},
      {&plan.v, kvStages, 1, bn * paddedDv * elemBytes},
  };
  for (const Region &region : regions) {
    *region.buffers = getPipelineBufferBytes(region.kv, region.qk, region.tile);
    int64_t barriers = getPipelineBarrierBytes(region.kv, region.qk);
    plan.barriers += barriers;
    layout.addRegion(*region.buffers + barriers);
  }
  // O's staging tile for the TMA store, when it is a buffer of its own: the
  // CTA's rows of the padded V head dim, a region without barriers.
  if (stagedO) {
    plan.o = qTiles * bm * paddedDv * elemBytes;
    layout.addRegion(plan.o);
  }
  // The schedule pipeline's slots and barriers, and the mbarriers that
  // stand in for named barriers in a plan built to diagnose hangs: small
  // items, in a gap when one has room.
  if (dynamicSchedule) {
    plan.schedule =
        kSchedulePipelineStages *
        llvm::alignTo(4 * kScheduleSlots, PipelineType::kBarrierBytes);
    int64_t barriers = getPipelineBarrierBytes(kSchedulePipelineStages, 1);
    plan.barriers += barriers;
    layout.addSmall(plan.schedule + barriers);
  }
  if (debugHangs) {
    plan.barriers += kNamedBarrierStandInBytes;
    layout.addSmall(kNamedBarrierStandInBytes);
  }
  plan.padding = layout.total() - (plan.q + plan.k + plan.v + plan.o +
                                   plan.schedule + plan.barriers);
  plan.limit = getTargetLimits(target).sharedMemoryPerBlock;
  return plan;
}

static int64_t elementBytes(Type type) {
  return type.getIntOrFloatBitWidth() / 8;
}

LogicalResult ConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Type elementType,
    int64_t headDim, int64_t headDimV, int64_t bm, int64_t bn, int64_t bk0,
    int64_t bk1, int64_t kvStages, int64_t qkStages, int64_t swizzle,
    int64_t qTiles, Target target, ArrayAttr roles, bool persistent,
    int64_t qStages, bool tmaStore, bool debugHangs, bool rebuildDescriptors,
    bool interleaveHeads, bool dynamicSchedule, bool oInQ, int64_t ctasPerSm,
    bool pinDescriptors, bool shortPointers) {
  if (!elementType.isBF16() && !elementType.isF16())
    return emitError() << "element type must be bf16 or f16, got "
                       << elementType;
  for (auto [name, dim] :
       {std::pair{"head_dim", headDim}, std::pair{"head_dim_v", headDimV}})
    if (dim < 16 || dim > 256 || dim % 16 != 0)
      return emitError() << name << " " << dim
                         << " is not a multiple of 16 in [16, 256]";
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle " << swizzle
                       << " B is not one of 32, 64 or 128";
  if (bm < 64 || bm % 64 != 0)
    return emitError() << "bm " << bm
                       << " is not a positive multiple of 64 (one warpgroup "
                          "MMA covers 64 rows)";
  if (bn < 16 || bn % 16 != 0)
    return emitError() << "bn " << bn << " is not a positive multiple of 16";
  for (auto [name, dim] : {std::pair{"bm", bm}, std::pair{"bn", bn}})
    if (dim > 256)
      return emitError() << name << " " << dim
                         << " exceeds 256, the largest TMA box dimension";
  int64_t eb = elementBytes(elementType);
  int64_t paddedD = padToSwizzle(headDim, swizzle, eb);
  int64_t paddedDv = padToSwizzle(headDimV, swizzle, eb);
  if (qkStages < 1 || paddedD % qkStages != 0 || bk0 * qkStages != paddedD)
    return emitError() << "bk0 " << bk0 << " x qk_stages " << qkStages
                       << " does not split the padded head dim " << paddedD
                       << " (expected bk0 = padded head dim / qk_stages)";
  // A qk stage wider than the swizzle span is loaded as several TMA boxes
  // of one span each, as a V tile is.
  if (bk0 * eb > swizzle && (bk0 * eb) % swizzle != 0)
    return emitError() << "K band of " << bk0 * eb << " B (bk0 " << bk0
                       << " x " << eb << " B) is neither within nor a whole "
                       << "number of " << swizzle << " B swizzle spans";
  if (bk0 % 16 != 0)
    return emitError() << "bk0 " << bk0
                       << " is not a multiple of 16, the MMA contraction step";
  if (bk1 != bn)
    return emitError() << "bk1 " << bk1 << " must equal bn " << bn
                       << ": V loads are complete (one qk stage)";
  if (kvStages < 1)
    return emitError() << "kv_stages " << kvStages << " must be at least 1";
  if (qTiles < 1 || qTiles > kMaxConsumerWarpgroups)
    return emitError() << "q_tiles " << qTiles << " is not in [1, "
                       << kMaxConsumerWarpgroups
                       << "] (one consumer warpgroup per Q tile)";
  if (qStages != 1 && qStages != 2)
    return emitError() << "q_stages " << qStages << " must be 1 or 2";
  if (qStages == 2 && !persistent)
    return emitError() << "q_stages 2 needs a persistent plan: a CTA of one "
                          "tile loads its Q once";
  if (interleaveHeads && !persistent)
    return emitError() << "interleave_heads orders the tiles of a persistent "
                          "plan, but this plan runs one tile per CTA";
  if (dynamicSchedule && !persistent)
    return emitError() << "dynamic_schedule hands out the tiles of a "
                          "persistent plan, but this plan runs one tile per "
                          "CTA";
  if (dynamicSchedule && interleaveHeads)
    return emitError() << "interleave_heads numbers the pairs of the static "
                          "schedule; a dynamic_schedule takes its tiles in "
                          "groups of heads (grid_group) instead";

  if (ctasPerSm < 1 || ctasPerSm > 32)
    return emitError() << "ctas_per_sm is " << ctasPerSm
                       << ": an SM runs 1 to 32 CTAs at once";
  if (oInQ && !(persistent && tmaStore))
    return emitError() << "o_in_q stages the TMA store of a persistent plan "
                          "in the tile's Q stage, but this plan is "
                       << (persistent ? "without tma_store"
                                      : "not persistent (a one-tile plan "
                                        "stages O in the Q stage anyway)");
  // A persistent plan with o_in_q stages O in the tile's Q stage, the
  // CTA's rows by the padded head dim: O's rows must fit in it. (A one-tile
  // plan stages a stored tile in a stage it fits in, else in a buffer of its
  // own: fa4-pipeline-tma, fa4-allocate-shared-memory.)
  if (tmaStore && persistent && oInQ && paddedDv > paddedD)
    return emitError() << "tma_store in a persistent plan with o_in_q stages "
                          "O in the Q stage, but head_dim_v "
                       << headDimV << " (padded " << paddedDv
                       << ") is wider than head_dim " << headDim << " (padded "
                       << paddedD
                       << "); leave o_in_q out (O gets a buffer "
                          "of its own)";

  SmallVector<std::tuple<RoleKind, int64_t, int64_t>> roleList;
  for (Attribute attr : roles) {
    auto role = dyn_cast<RoleAttr>(attr);
    if (!role)
      return emitError() << "roles must be #fa4.role attributes, got " << attr;
    roleList.emplace_back(role.getKind(), role.getWarps(), role.getRegs());
  }
  if (roleList.empty())
    return emitError() << "a config needs at least one warp role";
  if (failed(verifyRoleBudget(emitError, roleList, target)))
    return failure();
  // On sm_90a each Q tile has its consumer warpgroup: the passes split the
  // CTA's rows among them and number their turns and epilogue barriers.
  if (target == Target::sm_90a)
    for (auto [kind, warps, regs] : roleList)
      if (kind == RoleKind::consumer && warps != 4 * qTiles)
        return emitError() << "consumer role has " << warps
                           << " warps but q_tiles " << qTiles << " needs "
                           << 4 * qTiles << " (a warpgroup per Q tile)";

  SharedMemoryPlan plan = computePlan(
      eb, paddedD, paddedDv, bm, bn, kvStages, qkStages, qTiles, qStages,
      stagesOApart(tmaStore, persistent, oInQ, paddedD, paddedDv),
      dynamicSchedule && persistent, debugHangs, target);
  if (plan.total() > plan.limit)
    return emitError() << "shared memory plan needs " << plan.total()
                       << " B (Q " << plan.q << " B, K " << plan.k << " B, V "
                       << plan.v << " B, "
                       << (plan.o
                               ? "O staging " + std::to_string(plan.o) + " B, "
                               : std::string())
                       << (plan.schedule
                               ? "schedule slots " +
                                     std::to_string(plan.schedule) + " B, "
                               : std::string())
                       << "barriers " << plan.barriers << " B, alignment "
                       << plan.padding << " B) but " << stringifyTarget(target)
                       << " allows " << plan.limit << " B";
  return success();
}

int64_t ConfigAttr::getPaddedHeadDim() const {
  return padToSwizzle(getHeadDim(), getSwizzle(),
                      elementBytes(getElementType()));
}

int64_t ConfigAttr::getPaddedHeadDimV() const {
  return padToSwizzle(getHeadDimV(), getSwizzle(),
                      elementBytes(getElementType()));
}

SharedMemoryPlan ConfigAttr::getSharedMemoryPlan() const {
  return computePlan(
      elementBytes(getElementType()), getPaddedHeadDim(), getPaddedHeadDimV(),
      getBm(), getBn(), getKvStages(), getQkStages(), getQTiles(), getQStages(),
      stagesOApart(getTmaStore(), getPersistent(), getOInQ(),
                   getPaddedHeadDim(), getPaddedHeadDimV()),
      getDynamicSchedule() && getPersistent(), getDebugHangs(), getTarget());
}

SmallVector<RoleAttr> ConfigAttr::getRoleList() const {
  return llvm::map_to_vector(getRoles(),
                             [](Attribute a) { return cast<RoleAttr>(a); });
}

FailureOr<ConfigAttr>
ConfigAttr::derive(function_ref<InFlightDiagnostic()> emitError,
                   MLIRContext *context, const ConfigRequest &request) {
  Type elementType = request.elementType;
  if (!elementType || (!elementType.isBF16() && !elementType.isF16())) {
    emitError() << "element type must be bf16 or f16";
    return failure();
  }
  const int64_t swizzle = 128;
  int64_t eb = elementBytes(elementType);
  int64_t headDim = request.headDim;
  int64_t headDimV = request.headDimV ? request.headDimV : headDim;
  int64_t paddedD = padToSwizzle(headDim, swizzle, eb);
  int64_t paddedDv = padToSwizzle(headDimV, swizzle, eb);
  const ::fa4::Plan &choices = request.plan;
  bool persistent = choices.persistent.value_or(false);
  bool dynamicSchedule = choices.dynamicSchedule.value_or(false);
  int64_t qkStages = choices.qkStages.value_or(paddedD / (swizzle / eb));
  int64_t bk0 = qkStages > 0 ? paddedD / qkStages : 0;

  // Hopper: one consumer warpgroup per 64-row Q tile, two (or as many as
  // asked for) taking turns; the producer keeps 24 registers a thread and
  // the consumers share the rest, at most 240 each.
  // Blackwell: two 128-row Q tiles, softmax and correction warpgroups.
  int64_t bm = 64, qTiles = choices.consumerWarpgroups.value_or(2);
  SmallVector<Attribute> roles;
  if (request.target == Target::sm_90a) {
    const int64_t producerRegs = 24;
    int64_t threads = 128 * (qTiles + 1);
    int64_t consumerRegs =
        qTiles < 1 ? 0
                   : std::min<int64_t>(
                         240, (threads * getEntryRegisters(threads) -
                               128 * producerRegs) /
                                  (128 * qTiles) / 8 * 8);
    roles = {RoleAttr::get(context, RoleKind::producer, 4, producerRegs),
             RoleAttr::get(context, RoleKind::consumer, 4 * qTiles,
                           consumerRegs)};
  } else {
    bm = 128;
    roles = {RoleAttr::get(context, RoleKind::producer, 4, 48),
             RoleAttr::get(context, RoleKind::softmax, 8, 192),
             RoleAttr::get(context, RoleKind::correction, 4, 80)};
  }

  // The widest K/V tile that still leaves room for two kv stages, then as
  // many stages as shared memory holds.
  int64_t limit = getTargetLimits(request.target).sharedMemoryPerBlock;
  // Counted, not divided: the regions' rounding to 1024 B makes the bytes
  // per stage uneven.
  // A persistent plan stages O in a buffer of its own (the next tile's Q
  // never waits for this tile's store) unless that buffer costs K/V rows:
  // the widest block with two stages (or the rows asked for) fits only with
  // O in the tile's Q stage (head dim 256: 80 rows against 48).
  bool oInQ = false;
  auto fitsWith = [&](bool inQ, int64_t bn, int64_t kvStages, int64_t qStages) {
    return computePlan(eb, paddedD, paddedDv, bm, bn, kvStages,
                       std::max<int64_t>(qkStages, 1), qTiles, qStages,
                       stagesOApart(request.tmaStore, persistent, inQ, paddedD,
                                    paddedDv),
                       dynamicSchedule && persistent,
                       choices.debugHangs.value_or(false), request.target)
               .total() <= limit;
  };
  auto widest = [&](bool inQ) {
    int64_t rows = 128;
    while (rows > 16 && !fitsWith(inQ, rows, 2, 1))
      rows -= 16;
    return rows;
  };
  if (choices.oInQ)
    oInQ = *choices.oInQ;
  else if (request.tmaStore && persistent && paddedDv <= paddedD)
    oInQ = choices.blockN ? !fitsWith(false, *choices.blockN, 2, 1) &&
                                fitsWith(true, *choices.blockN, 2, 1)
                          : widest(true) > widest(false);
  auto fits = [&](int64_t bn, int64_t kvStages, int64_t qStages) {
    return fitsWith(oInQ, bn, kvStages, qStages);
  };
  auto stagesThatFit = [&](int64_t bn) {
    int64_t stages = 0;
    while (stages < 16 && fits(bn, stages + 1, 1))
      ++stages;
    return stages;
  };
  // Unset, the most rows (a multiple of 16 up to 128) that leave two kv
  // stages: 128 up to padded head dim 128, 80 at 256 (both the best
  // measured on the H200, bench/RESULTS.md 2026-12-01: at 256, 80 rows are
  // 2-8 % ahead of 64 and 96 do not fit).
  int64_t bn = choices.blockN.value_or(0);
  if (!bn) {
    bn = 128;
    while (bn > 16 && stagesThatFit(bn) < 2)
      bn -= 16;
  }
  int64_t kvStages = choices.kvStages.value_or(std::clamp<int64_t>(
      stagesThatFit(bn), 1, maxDerivedKvStages(paddedD)));
  // A persistent kernel double-buffers Q when the kv stages leave room:
  // the next tile's Q loads while this tile's last blocks run.
  int64_t qStages = choices.qStages.value_or(
      persistent && fits(bn, kvStages, 2) ? 2 : 1);
  // Descriptors rebuilt per MMA step space the MMAs' issue, which pays at
  // head dim 64, where the softmax is the bottleneck (bench/RESULTS.md).
  bool rebuildDescriptors = choices.rebuildDescriptors.value_or(paddedD <= 64);

  ConfigAttr config = getChecked(
      emitError, context, elementType, headDim, headDimV, bm, bn, bk0, bn,
      kvStages, qkStages, swizzle, qTiles, request.target,
      ArrayAttr::get(context, roles), persistent, qStages, request.tmaStore,
      choices.debugHangs.value_or(false), rebuildDescriptors,
      choices.interleaveHeads.value_or(false), dynamicSchedule, oInQ,
      choices.ctasPerSm.value_or(1), choices.pinDescriptors.value_or(false),
      choices.shortPointers.value_or(false));
  if (!config)
    return failure();
  return config;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

LogicalResult AccLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 2 || shape[0] != 64 || shape[1] % 8 != 0 ||
      shape[1] < 8 || shape[1] > 256)
    return emitError() << "#fa4.acc lays out 64 x N tiles with N a multiple "
                          "of 8 up to 256";
  return success();
}

LogicalResult RowsLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 1 || shape[0] != 64)
    return emitError() << "#fa4.rows lays out 64-element row vectors";
  return success();
}

LogicalResult ColsLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 1 || shape[0] % 8 != 0 || shape[0] < 8 ||
      shape[0] > 256)
    return emitError() << "#fa4.cols lays out N-element column vectors with "
                          "N a multiple of 8 up to 256";
  return success();
}

LogicalResult BlockedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 1 || shape[0] % 128 != 0 || shape[0] < 128 ||
      shape[0] > kMaxBlockedValues * 128)
    return emitError() << "#fa4.blocked lays out a warpgroup's run of a 1-d "
                          "tile: a multiple of 128 elements (one piece a "
                          "thread), at most "
                       << kMaxBlockedValues * 128;
  return success();
}

LogicalResult
CoalescedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            int64_t cols, int64_t warps, int64_t slice) {
  if (!CoalescedGeometry{cols, warps}.valid())
    return emitError() << "#fa4.coalesced lays out tiles whose 1, 2 or 4 "
                          "warps a row take 8 to 128 columns each by powers "
                          "of two or a multiple of 256, not "
                       << cols << " columns by " << warps << " warps";
  if (slice < -1 || slice > 1)
    return emitError() << "#fa4.coalesced slices dimension 0 or 1, not "
                       << slice;
  return success();
}

LogicalResult CoalescedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verify(emitError, getCols(), getWarps(), getSlice())))
    return failure();
  CoalescedGeometry layout = getGeometry();
  if (static_cast<int64_t>(shape.size()) != (isTile() ? 2 : 1))
    return emitError() << "#fa4.coalesced" << (isTile() ? "" : " with a slice")
                       << " lays out " << (isTile() ? "2-d tiles" : "vectors");
  if (isColumnVector())
    return shape[0] == getCols()
               ? success()
               : (emitError() << "a #fa4.coalesced column vector has the "
                                 "tile's "
                              << getCols() << " columns, not " << shape[0]);
  if (isTile() && shape[1] != getCols())
    return emitError() << "a #fa4.coalesced tile of " << shape[1]
                       << " columns says cols = " << getCols();
  int64_t footprint = layout.footprintRows();
  if (shape[0] % footprint != 0 || shape[0] == 0)
    return emitError() << "#fa4.coalesced with " << getCols()
                       << " columns lays out a warpgroup's rows in multiples "
                          "of "
                       << footprint << " (" << 4 / layout.warps << " groups of "
                       << layout.warps << " warps, " << layout.warpRows()
                       << " rows each), not " << shape[0];
  if (isTile() && layout.tileValues(shape[0]) > kMaxCoalescedValues)
    return emitError() << "a " << shape[0] << "x" << getCols()
                       << " #fa4.coalesced tile is "
                       << layout.tileValues(shape[0])
                       << " values a thread, more than " << kMaxCoalescedValues;
  return success();
}

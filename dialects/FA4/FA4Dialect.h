//===- FA4Dialect.h - the fa4 dialect -----------------------------*- C++
//-*-===//
//
// Public header of the fa4 dialect: the dialect, its enums, the plan structs
// behind `#fa4.config`, and the generated attribute, type and op classes.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_FA4DIALECT_H
#define FA4_FA4DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "FA4/CoalescedFragment.h"
#include "fa4/KernelFormat/Plan.h"

#include "FA4/FA4Dialect.h.inc"
#include "FA4/FA4Enums.h.inc"

#include <optional>

namespace mlir::fa4 {

/// The shared-memory budget of a `#fa4.config`, in bytes.
struct SharedMemoryPlan {
  int64_t q = 0;        ///< Q tiles, one per consumer group.
  int64_t k = 0;        ///< K stages (all qk sub-stages).
  int64_t v = 0;        ///< V stages.
  int64_t o = 0;        ///< O's staging tile (persistent TMA-store plans).
  int64_t schedule = 0; ///< The schedule pipeline's slots (dynamic plans).
  /// The mbarriers: of the pipelines, and the stand-ins for named barriers
  /// of a plan built to diagnose hangs.
  int64_t barriers = 0;
  int64_t padding = 0;  ///< Rounding each pipeline's region up to 1024 B.
  int64_t limit = 0;    ///< What the target allows one CTA.

  int64_t total() const {
    return q + k + v + o + schedule + barriers + padding;
  }
};

/// Bytes of the buffers of a pipeline of `kvStages` x `qkStages` sub-stages
/// of tiles of `tileBytes` each, every tile padded to 1024 B (the span of a
/// 128-byte swizzle pattern).
int64_t getPipelineBufferBytes(int64_t kvStages, int64_t qkStages,
                               ArrayRef<int64_t> tileBytes);
/// Bytes of a pipeline's mbarriers: a full and an empty one per sub-stage.
int64_t getPipelineBarrierBytes(int64_t kvStages, int64_t qkStages);
/// What a pipeline region of `bytes` takes in a kernel's shared memory:
/// rounded up to 1024 B, so that the next region starts aligned. The plan
/// verifier's budget (#fa4.config) and fa4-allocate-shared-memory both add
/// up these, so a plan that passes one passes the other.
int64_t getAlignedRegionBytes(int64_t bytes);

/// How a kernel's dynamic shared memory is laid out, the one routine the
/// plan verifier (for the regions a plan will have) and
/// fa4-allocate-shared-memory (for a kernel's buffers) both use, so that a
/// plan that passes one passes the other: regions in order, each rounded up
/// to 1024 B (getAlignedRegionBytes); then small items (a schedule
/// pipeline's slots, the hang diagnosis's barrier stand-ins), 8-byte
/// aligned, in the first gap a region left that has room, else in a region
/// of their own.
class SharedMemoryLayout {
public:
  /// Places a region of `bytes`; returns its offset.
  int64_t addRegion(int64_t bytes);
  /// Places a small item of `bytes`; returns its offset.
  int64_t addSmall(int64_t bytes);
  /// The bytes the kernel needs.
  int64_t total() const { return end; }

private:
  int64_t end = 0;
  /// The room after each region: (start, bytes).
  SmallVector<std::pair<int64_t, int64_t>> gaps;
};

/// What a caller knows of a problem when it asks for a default plan: the
/// problem's sizes and the plan type's choices (fa4/KernelFormat/Plan.h),
/// every unset one derived. ConfigAttr::derive is the one conversion from
/// the plan type to `#fa4.config`.
struct ConfigRequest {
  Type elementType;
  int64_t headDim = 0;
  int64_t headDimV = 0; ///< 0: same as headDim.
  Target target = Target::sm_90a;
  ::fa4::Plan plan;
  /// O through shared memory and a TMA store (a kernel that stores through
  /// a tensor-map argument needs it).
  bool tmaStore = false;
};

/// Hardware limits of a target that plans are checked against.
struct TargetLimits {
  int64_t sharedMemoryPerBlock; ///< Opt-in dynamic shared memory, bytes.
  int64_t registersPerSM;
  int64_t threadsPerBlock;
};
TargetLimits getTargetLimits(Target target);

/// Check one warp role: whole warpgroups and a `setmaxnreg` budget.
LogicalResult verifyRole(function_ref<InFlightDiagnostic()> emitError,
                         RoleKind kind, int64_t warps, int64_t regs);

/// Check that a set of roles fits one SM: threads and registers.
LogicalResult
verifyRoleBudget(function_ref<InFlightDiagnostic()> emitError,
                 ArrayRef<std::tuple<RoleKind, int64_t, int64_t>> roles,
                 Target target);

} // namespace mlir::fa4

#define GET_ATTRDEF_CLASSES
#include "FA4/FA4Attrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "FA4/FA4Types.h.inc"

#define GET_OP_CLASSES
#include "FA4/FA4Ops.h.inc"

namespace mlir::fa4 {
/// The unit attribute that marks a function as a GPU kernel.
constexpr StringLiteral kKernelAttrName = "fa4.kernel";
/// The dynamic shared memory a kernel needs, set by
/// fa4-allocate-shared-memory.
constexpr StringLiteral kSharedMemoryBytesAttrName = "fa4.shared_memory_bytes";

/// On a lowered kernel's by-value tensor-map parameter: its !fa4.tensor_map
/// type, for whoever builds the map at launch.
constexpr StringLiteral kTensorMapArgAttrName = "fa4.tensor_map";

/// The unit attribute that marks a persistent kernel's loop over its tiles
/// (an scf.for of a static schedule, an scf.while of a dynamic one), set by
/// fa4-persistent.
constexpr StringLiteral kTileLoopAttrName = "fa4.tile_loop";

/// The launch description (fa4/KernelFormat/KernelFile.h) a kernel carries to
/// its kernel file, written by the DSL's `Program`. On the kernel: its grid,
/// three launch rules separated by commas ("cdiv(q.dim1,128), q.dim0, 1"),
/// and an array of rules a launch requires to be nonzero.
constexpr StringLiteral kGridAttrName = "fa4.grid";
constexpr StringLiteral kRequireAttrName = "fa4.require";
/// On an argument: its name in the kernel file; for an integer argument the
/// rule that makes its value; for a tensor argument (a descriptor, or a
/// pointer to a contiguous tensor) its shape, one rule or `*` per dimension
/// separated by commas, and whether the kernel reads it (`input`), writes it
/// (`output`) or both (`inout`); for a pointer to a tensor its element type.
constexpr StringLiteral kNameArgAttrName = "fa4.name";
constexpr StringLiteral kValueArgAttrName = "fa4.value";
constexpr StringLiteral kShapeArgAttrName = "fa4.shape";
constexpr StringLiteral kAccessArgAttrName = "fa4.access";
constexpr StringLiteral kElementTypeArgAttrName = "fa4.element_type";

/// On a kernel with a dynamic schedule: the rule (over its tensors, as
/// `fa4.grid`'s) of how many (y, z) pairs of its logical grid the schedule
/// takes together, the pairs varying fastest within a group (fa4-persistent;
/// 1 without it). And the unit attribute on the argument that holds the
/// schedule's tile counter (`fa4.claim_tile`), whose kernel-file parameter
/// is a `counter`: an i32 the runtime provides, zero at each launch.
constexpr StringLiteral kGridGroupAttrName = "fa4.grid_group";
constexpr StringLiteral kCounterArgAttrName = "fa4.counter";

/// On a kernel: its launch may overlap the end of the kernel before it in
/// its stream (programmatic dependent launch). fa4-lower-warp-roles makes
/// every thread wait for that kernel's completion and memory
/// (`griddepcontrol.wait`) before it touches global memory, and lets the
/// kernel after it start launching once every CTA has begun
/// (`griddepcontrol.launch_dependents`); the kernel file says `launch =
/// programmatic`, and the runtime launches it so.
constexpr StringLiteral kProgrammaticLaunchAttrName = "fa4.programmatic_launch";

/// The threads of a kernel's block, set by fa4-lower-warp-roles.
constexpr StringLiteral kThreadsAttrName = "fa4.threads";

/// The number fa4-instrument-hangs gives a barrier wait of a kernel planned
/// with `debug_hangs`, and the module's table of what each number is
/// (fa4/KernelFormat/HangReport.h's site format).
constexpr StringLiteral kHangSiteAttrName = "fa4.hang_site";
constexpr StringLiteral kHangSitesAttrName = "fa4.hang_sites";
/// Where fa4-allocate-shared-memory put the mbarriers that stand in for the
/// named barriers of a kernel built to diagnose hangs: a byte offset into
/// the dynamic shared memory, `kNamedBarrierStandInBytes` long (one
/// mbarrier per barrier id). It uses the padding after a pipeline's region
/// when one has room.
constexpr StringLiteral kNamedBarrierOffsetAttrName =
    "fa4.named_barrier_offset";
constexpr int64_t kNamedBarrierStandInBytes = 16 * 8;

/// The most consumer warpgroups (Q tiles) a plan has on sm_90a: three of 64
/// rows share the register file at 160 registers a thread.
constexpr int64_t kMaxConsumerWarpgroups = 3;
/// The stages of a dynamic plan's schedule pipeline: the producer hands
/// out the next tile while the consumers run this one, as Q's two stages
/// let it load the next tile's Q.
constexpr int64_t kSchedulePipelineStages = 2;
/// The i32 slots of one stage: the tile's x and its (y, z) pair.
constexpr int64_t kScheduleSlots = 2;
/// The named barriers of a kernel: 0 is the CTA-wide one of __syncthreads,
/// kTurnBarrierId + w the turn of consumer warpgroup w in the ping-pong of
/// its MMAs (fa4-overlap-softmax), kEpilogueBarrierId + w the epilogue
/// of consumer warpgroup w (its TMA store, fa4-assign-layouts),
/// kReduceBarrierId + w its row reductions across warps,
/// kColumnReduceBarrierId the column reductions across all the consumer
/// warpgroups (fa4.combine_warps) and kStagingBarrierId their meetings
/// around a register tile staged in shared memory for an MMA
/// (fa4.shared_store, fa4-assign-layouts).
constexpr int64_t kTurnBarrierId = 1;
constexpr int64_t kEpilogueBarrierId = kTurnBarrierId + kMaxConsumerWarpgroups;
constexpr int64_t kReduceBarrierId =
    kEpilogueBarrierId + kMaxConsumerWarpgroups;
constexpr int64_t kColumnReduceBarrierId =
    kReduceBarrierId + kMaxConsumerWarpgroups;
constexpr int64_t kStagingBarrierId = kColumnReduceBarrierId + 1;

/// The registers per thread a kernel of `threads` threads starts with: the
/// register file shared evenly, in the multiples of 8 that setmaxnreg uses,
/// at most 248 (the launch bound `.maxnreg` declares it, and takes 255 at
/// most: a kernel of 256 threads or fewer starts with 248).
inline int64_t getEntryRegisters(int64_t threads) {
  if (threads <= 0)
    return 0;
  return std::min<int64_t>(65536 / threads / 8 * 8, 248);
}

/// The most values one thread holds of an `#fa4.blocked` run (a warpgroup's
/// run of at most 64 * 128 elements).
constexpr int64_t kMaxBlockedValues = 64;

/// The per-thread vector type of a register tile with an fa4 layout, or null
/// when `type` has none.
VectorType getDistributedType(RankedTensorType type);

/// The plan of the nearest op at or above `op` that carries `fa4.config`, or
/// null when there is none.
ConfigAttr lookupConfig(Operation *op);

/// The registers per thread a kernel of `threads` threads starts with under
/// its plan: those of `threads` times the plan's CTAs per SM (one without a
/// plan).
inline int64_t getEntryRegisters(int64_t threads, ConfigAttr config) {
  return getEntryRegisters(threads * (config ? config.getCtasPerSm() : 1));
}
} // namespace mlir::fa4

#endif // FA4_FA4DIALECT_H

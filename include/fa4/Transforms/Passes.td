//===- Passes.td - fa4 passes ------------------------------*- tablegen -*-===//
//
// The passes of fa4 that work on the plan of a kernel: attaching a derived
// `#fa4.config` and reporting its budgets.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TRANSFORMS_PASSES_TD
#define FA4_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FA4AttachConfig : Pass<"fa4-attach-config", "ModuleOp"> {
  let summary = "attach a derived #fa4.config to every kernel function";
  let description = [{
    Derives the plan of an attention kernel from the problem (head dim,
    element type, target), FA4Config-style, and attaches it as `fa4.config` to
    every function of the module that has none. Besides the options below,
    every field of the plan type (fa4/KernelFormat/Plan.h, whose table
    `fa4-run --help` prints under --plan) is an option by its name,
    overriding the derived choice: `kv-stages=2`, `persistent=true`, each
    also `derived`. An impossible plan is an error
    that prints the numbers (for instance the shared memory it would need).
    A function that stores through a descriptor argument gets `tma_store`.

    ```
    fa4-opt --fa4-attach-config="head-dim=128 dtype=bf16 target=sm_90a kv-stages=2"
    ```
  }];
  let dependentDialects = ["::mlir::fa4::FA4Dialect"];
  let options = [
    Option<"headDim", "head-dim", "int64_t", /*default=*/"128",
           "head dim of Q and K">,
    Option<"headDimV", "head-dim-v", "int64_t", /*default=*/"0",
           "head dim of V (0: the same as head-dim)">,
    Option<"dtype", "dtype", "std::string", /*default=*/"\"bf16\"",
           "element type of Q, K and V: bf16 or f16">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target GPU: sm_90a or sm_100a">,
  ];
}

def FA4PrintPlan : Pass<"fa4-print-plan", "ModuleOp"> {
  let summary = "print the budgets of every #fa4.config in the module";
  let description = [{
    For each op that carries `fa4.config`, prints its tiles, its shared-memory
    budget (Q, K, V and barrier bytes against the target's limit) and its warp
    roles' registers against the SM's register file, to the error stream.
    The IR is left unchanged.
  }];
}

def FA4ExplicitPipelineState : Pass<"fa4-explicit-pipeline-state", "ModuleOp"> {
  let summary = "carry pipeline states as a stage index and a phase";
  let description = [{
    Replaces every `!fa4.pipeline_state` by two i32 values, the stage index
    and the phase bit, through loops (`scf.for`, `scf.while`, `scf.if`
    results) like any other loop-carried value. `fa4.pipeline.start` becomes
    stage 0 with phase 0 for the consumer and phase 1 for the producer (so
    that its first acquires pass at once); `fa4.pipeline.step` becomes the
    increment that wraps to 0 after the last kv stage and flips the phase
    when it wraps; the sub-stage ops take `[%stage, %phase]`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FA4AllocateSharedMemory : Pass<"fa4-allocate-shared-memory", "ModuleOp"> {
  let summary = "place every pipeline in the kernel's dynamic shared memory";
  let description = [{
    Gives each `fa4.pipeline.create` of a kernel the offset of its region in
    the kernel's dynamic shared memory (its stage buffers, each aligned to
    1024 bytes as 128-byte-swizzled tiles require, then its mbarriers), and
    records the total on the kernel as `fa4.shared_memory_bytes`. A kernel
    that needs more than its target allows (227 KB on sm_90a) is an error that
    names both numbers.
  }];
}

def FA4DistributeRegisterTiles
    : Pass<"fa4-distribute-register-tiles", "ModuleOp"> {
  let summary = "turn laid-out register tiles into each thread's values";
  let description = [{
    Rewrites every tensor with an fa4 layout into the 1-d vector of values
    one thread of the warpgroup holds: a `64 x N` `#fa4.acc` tile becomes
    `vector<N/2>` in the order of the wgmma accumulator fragment, a
    `#fa4.rows` vector becomes `vector<2>` (the thread's two rows).
    Elementwise arith and math follow the types; `tile.reduce` along the
    columns is a reduction inside the thread plus two butterfly shuffles
    across the quad, except a one-hot sum of an f32 tile,
    `sum(where(iota(axis 1) == j, t, 0), 1)`, which reads column j of t: a
    tree of selects on j's bits and one `shfl.idx` a row half;
    `tile.broadcast` along the columns, `tile.iota` (from
    the thread's position in the warpgroup), `tile.splat` and `tile.exp2`
    become vector code; loops carry the vectors; fa4 ops take them as their
    distributed operands. An accumulator's rescaling in the loop that
    carries it (`acc * broadcast(alpha)`, 256 columns or more) is skipped by
    the warps whose factors are all exactly 1 (`vote.sync.any` and a
    branch): the same result, without a multiply per value in the blocks
    that keep the max. `#fa4.coalesced` tiles become their
    `CoalescedFragment.h` values; a row reduction is a tree in the thread
    and butterfly shuffles among the row's lanes and, when several warps
    share a row, `fa4.combine_warps` through a scratch `fa4.shared_buffer`
    that the pass adds (run before fa4-allocate-shared-memory).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def FA4AssignLayouts : Pass<"fa4-assign-layouts", "ModuleOp"> {
  let summary = "give a tile program's register tiles the layouts of one consumer warpgroup";
  let description = [{
    The first step from a tile program to the fa4 level, on every function
    with an `#fa4.config`. The plan's consumer warpgroups split the CTA's
    rows (`bm * q_tiles`): a 2-d register tile of those rows becomes one
    warpgroup's `bm x N` tile in the wgmma accumulator layout `#fa4.acc`, a
    row vector its `bm` rows in `#fa4.rows` (loop-carried values, constants,
    masks and all). Loaded blocks stay whole, in shared memory; a dot whose A
    operand is one reads `fa4.warpgroup_rows` of it, and the other ops that
    use one (elementwise math, a row reduction, a store: a kernel without
    MMA) take the warpgroup's rows read into registers right after the
    load (`fa4.shared_load`, in `#fa4.acc`; 2-d loaded tiles of 16- or
    32-bit elements and the CTA's rows). Row indices
    (`tile.iota` along axis 0) gain the warpgroup's first row, and stores
    through a `tile.make_desc` of a kernel pointer become `fa4.global_store`
    with the tensor's edge as the row limit (the pointer becomes
    `!llvm.ptr<1>`). A store through a descriptor argument, in a plan with
    `tma_store`, becomes `fa4.tma_store` through a staging tile of the CTA's
    rows (`fa4.shared_buffer`), the argument a tensor map of one warpgroup's
    rows by 64-column boxes, and the kernel ends with `fa4.tma_store_wait`.
    In a kernel without a dot, a 2-d register tile of other rows than the
    CTA's (a softmax's or a norm's few rows of a program) becomes each
    warpgroup's share of its rows in `#fa4.coalesced` (a row a warp or a
    few, a row's lanes side by side in pieces of 8 elements), and the
    vectors that its reductions give and its broadcasts take the layout's
    slices; its loads and stores through pointers are each done twice
    under one test (`scf.if`), a piece at once (`pieces`) where the row
    stride, the first column and the count are multiples of 8 elements.
    Any other register tile of other rows is an error that names its shape
    and the plan's rows.

    ```
    fa4-opt --fa4-attach-config=head-dim=128 --fa4-assign-layouts
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def FA4PipelineTMA : Pass<"fa4-pipeline-tma", "ModuleOp"> {
  let summary = "turn descriptor loads into TMA pipelines and dots into asynchronous MMAs";
  let description = [{
    Each `tile.load` of a kernel's descriptor argument becomes a pipeline of
    shared-memory stages filled by TMA: a load outside loops (Q) a pipeline of
    one stage, loaded once; a load inside the loop a pipeline of the plan's
    kv stages (`k` when the dot reads it transposed, `v` when it reads it as
    it is, `operand` for an A operand), with the producer's acquire and load
    where the program loaded it, the consumer's wait just before the dot that
    reads it and its release after that dot's MMA completes (a tile read
    into registers, `fa4.shared_load`, reads the stage's buffer and, in the
    loop, releases it right after the read; an `operand` pipeline); pipeline states
    ride the loop as iteration arguments, and the loops around it when it
    is nested in loops (started before the outermost, each outer loop
    yielding what the one inside leaves). The A and B operands of one dot,
    both loaded in its loop (a GEMM's k-step), share one pipeline whose
    stage holds both tiles: one acquire, one wait and one release for the
    two. A descriptor loaded more than once (two loops reading one row)
    gives each load a pipeline of its own. Descriptor arguments become
    `!fa4.tensor_map`s with 128-byte-swizzled boxes of 64 columns. A dot
    becomes `fa4.mma.async` over 64-column chunks of the contraction (an A
    operand in registers in one), then `fa4.mma.wait`. K stays complete
    here; `fa4-split-qk` stages it over the head dimension. In a one-tile
    plan, or a persistent one with `o_in_q`, a TMA store's staging tile
    becomes the Q stage (dead after the last QK), so the epilogue needs no
    shared memory of its own.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FA4SplitQk : Pass<"fa4-split-qk", "ModuleOp"> {
  let summary = "stage K over the head dimension in the plan's qk stages";
  let description = [{
    Splits every `k` pipeline of a kernel whose plan has `qk_stages > 1` into
    that many stages of head-dim columns: the producer acquires and loads each
    stage on its own barrier, and the consumer waits for each stage just
    before the MMA chunk that reads it, so that the first chunk of Q·Kᵀ waits
    only for its own columns; each stage is released on its own.
  }];
}

def FA4WarpSpecialize : Pass<"fa4-warp-specialize", "ModuleOp"> {
  let summary = "split a pipelined kernel into a TMA producer role and consumer roles";
  let description = [{
    Moves the body of a kernel with pipelines into an `fa4.warp_specialize`
    with the roles of its plan: the producer role keeps the producer side of
    every pipeline (acquires, TMA loads, its states) and what they need (loop
    bounds, coordinates); the consumer role keeps everything else (waits,
    MMAs, the softmax, releases, stores). Pipelines are created before the
    roles. A planned kernel with no TMA load (it computes, or reads through
    pointers, and stores) runs on the plan's consumer warps alone: one
    consumer role with the registers its threads start with.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def FA4Persistent : Pass<"fa4-persistent", "ModuleOp"> {
  let summary = "make a warp-specialized kernel persistent: each CTA loops over tiles";
  let description = [{
    For a kernel whose `#fa4.config` says `persistent = true`: each role's
    body runs in a loop over the tiles of the logical grid (gx x gy, or
    gx x gy x gz for a program that uses z), a static, folded schedule: the
    tiles of one (y, z) pair up as x = k and x = gx - 1 - k, pair v is slot
    v mod ceil(gx / 2) of (y, z) from v / ceil(gx / 2), and CTA c takes
    pairs c, c + P, c + 2P, ... (P CTAs launched in x), running x = k
    first. A program whose tiles shrink or grow with x (causal attention's
    query blocks, the longest first) gives every pair the same work. With
    fewer pairs than CTAs every tile is its own pair (x = v mod gx), so no
    CTA idles. The schedule's arithmetic is in 32 bits. The logical grid
    comes as new trailing arguments, `grid_x`, `grid_y` (and `grid_z`)
    (index, named for the kernel file); `tile.program_id` and
    `tile.num_programs` in the roles read it. Pipeline states are carried
    from tile to tile; a pipeline the body never steps (Q, loaded once per
    tile) is stepped after its loads by the producer and released and
    stepped by the consumer after its last use, so the producer loads the
    next tile's Q (into the other stage with `q_stages = 2`), K and V while
    the consumers finish the current tile.

    With `dynamic_schedule = true` the CTAs take the tiles one at a time as
    they come free instead: the kernel also takes `grid_group` (only when
    the program gives its rule in `fa4.grid_group`; without it the group is
    1) and the tile counter `tile_counter` (`fa4.counter`, a global
    pointer); one producer role and at least one other are needed; tile t is
    numbered in groups of G (y, z) pairs, the pairs fastest within a group.
    Each role's body runs in an `scf.while`: the producer starts with its
    CTA's tile, puts each tile's (x, pair) into a schedule pipeline of two
    stages (`fa4.producer.put`) before loading it and claims the next after
    it (`fa4.claim_tile`); past the last tile it puts x = gx. The other roles
    wait for each (x, pair), hand the slot back at once and stop at x = gx.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::fa4::tile::TileDialect"];
}

def FA4OverlapSoftmax : Pass<"fa4-overlap-softmax", "ModuleOp"> {
  let summary = "overlap the softmax with the MMAs: deferred P·V and ping-pong warpgroups";
  let description = [{
    FA3/FA4's consumer schedule on sm_90a, for a consumer loop that computes
    S = Q·Kᵀ, a softmax, and acc = acc·α + P·V with P in registers: the P·V
    of a key block is deferred by one iteration, so that iteration j issues
    S_j and P_(j-1)·V_(j-1) back to back, runs the softmax of S_j while they
    run, then waits for P·V and rescales; the first iteration is peeled and
    the last P·V follows the loop. Two or three consumer warpgroups take
    turns issuing their MMAs, round robin: warpgroup w waits at named barrier
    1 + w and hands the turn on to 1 + (w + 1) mod N (the last one hands
    warpgroup 0 the first turn, once, before the first of them), so one
    warpgroup's softmax overlaps the others' MMAs. Attention loops are found
    at any depth (in a persistent kernel's tile loop too); loops of another
    shape (a GEMM) are left as they are. With MLIR's remarks on
    (`--remarks-filter=fa4-overlap-softmax`), each scheduled loop gets a
    passed remark, and a loop with one MMA whose A is in registers (a P·V)
    that the schedule cannot take a missed one saying which part of the
    shape it lacks.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // FA4_TRANSFORMS_PASSES_TD

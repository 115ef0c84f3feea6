//===- FA4Attrs.td - fa4 enums and attributes --------------*- tablegen -*-===//
//
// The enums of the fa4 dialect (targets, warp-role kinds, pipeline kinds and
// sides) and its attributes: `#fa4.role`, one warp role with its register
// budget, and `#fa4.config`, the whole plan of a kernel, verified in one place.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_ATTRS_TD
#define FA4_ATTRS_TD

include "FA4/FA4Dialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def FA4_Target : I32Enum<"Target", "the GPU a kernel is planned for", [
    I32EnumCase<"sm_90a", 0>,
    I32EnumCase<"sm_100a", 1>]> {
  let cppNamespace = "::mlir::fa4";
}

def FA4_RoleKind : I32Enum<"RoleKind", "what a warp role does", [
    I32EnumCase<"producer", 0>,
    I32EnumCase<"consumer", 1>,
    I32EnumCase<"mma", 2>,
    I32EnumCase<"softmax", 3>,
    I32EnumCase<"correction", 4>,
    I32EnumCase<"epilogue", 5>]> {
  let cppNamespace = "::mlir::fa4";
  let description = [{
    `producer` issues the TMA loads; `consumer` runs MMA and softmax (the
    Hopper recipe). `mma`, `softmax`, `correction` and `epilogue` are the
    finer roles of the Blackwell recipe.
  }];
}

def FA4_PipelineKind : I32Enum<"PipelineKind", "what a pipeline carries", [
    I32EnumCase<"q", 0>,
    I32EnumCase<"k", 1>,
    I32EnumCase<"v", 2>,
    I32EnumCase<"operand", 3>,
    I32EnumCase<"schedule", 4>]> {
  let cppNamespace = "::mlir::fa4";
  let description = [{
    `q`: query tiles, loaded once. `k`: key tiles, k-major, staged over the
    head dimension in qk stages. `v`: value tiles, mn-major, always complete
    (one qk stage). `operand`: a generic k-major GEMM operand. `schedule`:
    the tiles a persistent kernel's producer claims and hands to its
    consumers, as i32 slots a thread writes rather than TMA.
  }];
}

def FA4_PipelineSide : I32Enum<"PipelineSide", "which end of a pipeline", [
    I32EnumCase<"producer", 0>,
    I32EnumCase<"consumer", 1>]> {
  let cppNamespace = "::mlir::fa4";
}

//===----------------------------------------------------------------------===//
// #fa4.role
//===----------------------------------------------------------------------===//

def FA4_RoleAttr : FA4_Attr<"Role", "role"> {
  let summary = "a warp role and its register budget";
  let description = [{
    A role is a set of whole warpgroups (a multiple of 4 warps) that run one
    part of the kernel, with the per-thread register budget that `setmaxnreg`
    gives them (a multiple of 8 in [24, 256]).

    ```mlir
    #fa4.role<producer, warps = 4, regs = 24>
    ```
  }];
  let parameters = (ins EnumParameter<FA4_RoleKind>:$kind, "int64_t":$warps,
                        "int64_t":$regs);
  let assemblyFormat = "`<` $kind `,` `warps` `=` $warps `,` `regs` `=` $regs `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// #fa4.config
//===----------------------------------------------------------------------===//

def FA4_ConfigAttr : FA4_Attr<"Config", "config"> {
  let summary = "the plan of a FlashAttention-4-class kernel";
  let description = [{
    The plan of one attention kernel, as FA4Config derives it from the
    problem: element type (`bf16` or `f16`), QK and V head dims, the tile
    sizes `bm` (rows of one Q tile), `bn` (rows of one K/V tile), `bk0` (the
    head-dim columns of one K qk stage: padded head dim / `qk_stages`) and
    `bk1` (the contraction of P·V, equal to `bn`: V loads are complete), the
    pipeline depth `kv_stages`, the head-dim split `qk_stages`, the TMA
    swizzle in bytes, the number of Q tiles per CTA (1 or 2, one per consumer
    group), the target, the warp roles with their register budgets, and
    whether the kernel is `persistent` (false when left out): its CTAs loop
    over the tiles of the logical grid, which the kernel then takes as two
    trailing arguments, `grid_x` and `grid_y` (fa4-persistent), its Q
    stages, `q_stages` (1 when left out; 2 lets a persistent kernel's
    producer load the next tile's Q while the consumers still read this
    one's), whether O leaves through a TMA store, `tma_store` (false when
    left out; fa4-attach-config sets it for a kernel that stores through a
    tensor-map argument): each consumer warpgroup writes its rows into a
    swizzled shared-memory tile and one of its threads stores them with
    `cp.async.bulk.tensor`, which clips the rows past the tensor's edge, so
    the epilogue neither branches per row nor waits for the stores; the tile
    is the CTA's Q stage in a one-tile plan (dead after the last QK; a
    buffer of its own where it does not fit there) and a
    buffer of its own in a persistent plan (the next tile's Q may be
    loading while this tile's O leaves), unless it says `o_in_q` (false
    when left out): then the tile's own Q stage, released to the producer
    only once the store has read it (the next tile's Q waits for that, or
    loads into the other Q stage), which frees a Q tile of shared memory
    for K/V rows (derived where it buys them: head dim 256), and whether
    it is built to diagnose hangs, `debug_hangs` (false when left out): every
    mbarrier and named-barrier wait gives up after 2^30 cycles and reports
    where it waited (fa4-instrument-hangs). Release plans leave it out, so
    their kernels are the same with or without the field. Last,
    `rebuild_descriptors` (false when left out): each k16 step of a `wgmma`
    builds its shared-memory matrix descriptor from the step's address (5-7
    uniform instructions between two MMAs) instead of one 32-bit add off the
    tile's. Fewer instructions pay where the tensor cores are the bottleneck
    (head dim 128 and 256); where the exponentials are (head dim 64, whose
    `MUFU` work shares the issue queue with the MMAs), MMAs issued back to
    back delay the other warpgroup's softmax, and the spaced issue is faster.
    `pin_descriptors` (false when left out): each MMA makes its descriptor
    base where it runs, through an opaque move, so that the steps' words
    (one add each) are not hoisted out of a loop into one register a step;
    a loop whose tiles do not move (a kernel that keeps K and V, such as the
    backward's dK/dV) then holds one register an operand tile, fewer
    spills for a few adds an iteration.
    And `interleave_heads` (false when left out; persistent plans only):
    the tile pairs of the logical grid are numbered with (y, z), the heads
    and batches of attention, varying fastest instead of x, so the pairs a
    CTA takes spread over the query blocks. That balances the CTAs when the
    work does not fall evenly on the x pairs (a sliding window's short first
    blocks: the CTAs that took only full blocks finish last), at the cost of
    L2 locality: the tiles that run at once span all the heads. No program
    derives it (measured: +6.5 % for a window of 4096 keys at S = 16384, -8 %
    for one as wide as S = 4096, bench/RESULTS.md).
    Last, `dynamic_schedule` (false when left out; persistent plans only):
    the CTAs take the tiles one at a time as they come free instead of in a
    fixed order, so uneven work (causal blocks, windows, packed sequences of
    mixed lengths) ends evenly. The producer claims each next tile from a
    counter in global memory (`fa4.claim_tile`; the kernel takes it as the
    argument `tile_counter`, which the runtime keeps zero between
    launches) and hands its coordinates to the consumers through a
    schedule pipeline of two stages of two i32 slots, placed in the padding
    of another region (or a region of its own when none has room). The
    tiles are numbered in groups of `grid_group` (y, z) pairs, the pairs
    varying fastest within a group and x (the query blocks, longest first)
    slowest, a kernel argument (1 when the program gives no rule): the
    attention programs
    group as many heads as keep their K and V within L2 together, so the
    longest query blocks of several heads run first and the short ones end
    the kernel.

    `ctas_per_sm` (1 when left out) is how many CTAs of the kernel an SM
    runs at once: each thread starts with the SM's 65536 registers shared
    among them (`.maxnreg`, at most 248). A memory-bound kernel without a
    producer warp (a softmax or a norm through pointers) takes more than
    one for the loads they keep in flight; a kernel that loads by TMA runs
    one, since its roles share the SM's registers through `setmaxnreg`
    (fa4-warp-specialize refuses more).

    `short_pointers` (false when left out): the kernel's shared-memory
    pointers are 32 bits wide (the NVPTX data layout's `p3:32:32`, as nvcc
    and Triton emit them) instead of 64, so address arithmetic takes one
    register and 32-bit instructions. The target reads it when it
    translates the kernel to LLVM IR; the rest of the pipeline is the same.

    One verifier computes the budgets and rejects impossible plans with the
    numbers: shared memory (Q, K and V stage buffers and the mbarriers, the
    O staging tile of a persistent `tma_store` plan without `o_in_q`,
    each pipeline's region rounded up to 1024 B as fa4-allocate-shared-memory
    places it) against the target's limit (227 KB on sm_90a), TMA box rules (inner
    extent within the swizzle span, each box dimension at most 256), the qk
    split, and the roles' registers against the SM's register file.

    `ConfigAttr::derive` builds the default plan from (head dim, element
    type, target): 128-byte swizzle, 1/2/4 qk stages for head dim 64/128/256,
    and as many kv stages as shared memory holds, at most the best measured
    number for the head dim (4 at head dim 64, 2 from 128 on), and rebuilt
    descriptors at padded head dim 64 (the best measured choice).

    ```mlir
    #fa4.config<element_type = bf16, head_dim = 128, head_dim_v = 128,
                bm = 64, bn = 128, bk0 = 64, bk1 = 128, kv_stages = 3,
                qk_stages = 2, swizzle = 128, q_tiles = 2, target = sm_90a,
                roles = [#fa4.role<producer, warps = 4, regs = 24>,
                         #fa4.role<consumer, warps = 8, regs = 240>]>
    ```
  }];
  let parameters = (ins "Type":$element_type, "int64_t":$head_dim,
                        "int64_t":$head_dim_v, "int64_t":$bm, "int64_t":$bn,
                        "int64_t":$bk0, "int64_t":$bk1, "int64_t":$kv_stages,
                        "int64_t":$qk_stages, "int64_t":$swizzle,
                        "int64_t":$q_tiles, EnumParameter<FA4_Target>:$target,
                        "ArrayAttr":$roles,
                        DefaultValuedParameter<"bool", "false">:$persistent,
                        DefaultValuedParameter<"int64_t", "1">:$q_stages,
                        DefaultValuedParameter<"bool", "false">:$tma_store,
                        DefaultValuedParameter<"bool", "false">:$debug_hangs,
                        DefaultValuedParameter<"bool", "false">:$rebuild_descriptors,
                        DefaultValuedParameter<"bool", "false">:$interleave_heads,
                        DefaultValuedParameter<"bool", "false">:$dynamic_schedule,
                        DefaultValuedParameter<"bool", "false">:$o_in_q,
                        DefaultValuedParameter<"int64_t", "1">:$ctas_per_sm,
                        DefaultValuedParameter<"bool", "false">:$pin_descriptors,
                        DefaultValuedParameter<"bool", "false">:$short_pointers);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shared-memory budget of this plan, byte by byte.
    SharedMemoryPlan getSharedMemoryPlan() const;
    /// The head dims rounded up to whole swizzle atoms.
    int64_t getPaddedHeadDim() const;
    int64_t getPaddedHeadDimV() const;
    /// The roles as typed attributes.
    SmallVector<RoleAttr> getRoleList() const;

    /// Derive the default plan for a problem, FA4Config-style. Requests that
    /// cannot be met are reported through `emitError`.
    static FailureOr<ConfigAttr>
    derive(function_ref<InFlightDiagnostic()> emitError, MLIRContext *context,
           const ConfigRequest &request);
  }];
}

//===----------------------------------------------------------------------===//
// Register-tile layouts
//===----------------------------------------------------------------------===//

def FA4_AccLayoutAttr : FA4_Attr<"AccLayout", "acc", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "the accumulator layout of a warpgroup MMA";
  let description = [{
    The layout of a `64 x N` register tile spread over the 128 threads of one
    warpgroup as the accumulator of `wgmma.mma_async` (PTX ISA "Matrix
    fragments for wgmma .m64nNk16"): warp `w` holds rows `16w ... 16w + 15`;
    lane `l` holds rows `16w + l/4` and `16w + l/4 + 8` and, in each 8-column
    block `j`, columns `8j + 2(l%4)` and `+1`. A thread's `N/2` values are in
    the order (block `j`, row half `h`, column parity `e`) at `4j + 2h + e`.
    For 16-bit element types the same layout is the register-A operand of
    the next MMA, so `P` feeds `P·V` without a trip through shared memory.

    ```mlir
    tensor<64x128xf32, #fa4.acc>
    ```
  }];
}

def FA4_RowsLayoutAttr : FA4_Attr<"RowsLayout", "rows", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "one value per row of an accumulator-layout tile";
  let description = [{
    The layout of a 64-element row vector that matches the rows of an
    `#fa4.acc` tile: each thread holds the values of its two rows
    (`16w + l/4` and that plus 8), replicated across the four lanes of its
    quad. Row reductions of an `#fa4.acc` tile produce it; broadcasts along
    the columns consume it.

    ```mlir
    tensor<64xf32, #fa4.rows>
    ```
  }];
}

def FA4_ColsLayoutAttr : FA4_Attr<"ColsLayout", "cols", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "one value per column of an accumulator-layout tile";
  let description = [{
    The layout of an `N`-element column vector for the columns of a
    `64 x N` `#fa4.acc` tile: its column pairs spread over the lanes of
    each warp, lane `l` holding columns `2l` and `2l + 1`, then `2l + 64`
    and `2l + 65`, ... (`2 ceil(N/64)` values), the same in every warp, so
    every consumer warpgroup holds the whole vector in few registers.
    Broadcasts along the rows consume it, each thread taking its columns'
    values from the lanes that hold them by shuffles (a per-key or
    per-query term of a transposed score tile, such as the backward's LSE
    of each query column).

    ```mlir
    tensor<64xf32, #fa4.cols>
    ```
  }];
}

def FA4_BlockedLayoutAttr : FA4_Attr<"BlockedLayout", "blocked", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "a warpgroup's run of a 1-d tile, in consecutive pieces";
  let description = [{
    The layout of a warpgroup's share of a 1-d tile that is neither a row
    nor a column of a 2-d one (a vector add's blocks): `N` consecutive
    elements, `N` a multiple of 128, thread `l` of the warpgroup holding
    elements `l * N/128` to `l * N/128 + N/128 - 1`, so that neighbouring
    threads read and write neighbouring memory. A tile of `W` warpgroups'
    shares is split in `W` runs, warpgroup `w` holding the `w`-th.

    ```mlir
    tensor<512xf32, #fa4.blocked>
    ```
  }];
}

def FA4_CoalescedLayoutAttr : FA4_Attr<"CoalescedLayout", "coalesced", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "a warpgroup's rows of a 2-d tile, a row's lanes side by side";
  let description = [{
    The layout of a warpgroup's `R x C` share of a 2-d tile that no MMA
    reads or writes (a norm's or a softmax's rows): the lanes of a warp
    spread along a row in pieces of 8 consecutive elements, `L = min(32,
    C / 8)` lanes a row, so that neighbouring lanes read and write
    neighbouring 16-byte pieces of memory; a warp covers `32 / L` rows, the
    warpgroup `4 (32 / L)`, repeated down the `R` rows and along the `C`
    columns (`CoalescedFragment.h` says which value is where). With
    `warps = W` (2 or 4) W warps share a row, each `C / W` of its columns at
    a time (`L = min(32, C / (8 W))`), so that a long row is spread over
    more threads; a row reduction then combines the warps' partial results
    through shared memory. `C / W` is 8 to 128 by powers of two or a
    multiple of 256, `R` a multiple of the footprint's rows.

    `slice` names the dimension a vector drops from such a tile: `slice = 1`
    is a row vector (one value per row, the same in the `L` lanes of the
    row; row reductions produce it), `slice = 0` a column vector (one value
    per column, the same in every warp; `v.row()` repeats it down the rows).
    `cols` is the tile's `C` either way.

    ```mlir
    tensor<4x1024xf32, #fa4.coalesced<cols = 1024>>
    tensor<4xf32, #fa4.coalesced<cols = 1024, slice = 1>>
    tensor<1024xbf16, #fa4.coalesced<cols = 1024, slice = 0>>
    ```
  }];
  let parameters = (ins "int64_t":$cols,
                        DefaultValuedParameter<"int64_t", "1">:$warps,
                        DefaultValuedParameter<"int64_t", "-1">:$slice);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the layout is a 2-d tile's, a row vector's, a column vector's.
    bool isTile() const { return getSlice() < 0; }
    bool isRowVector() const { return getSlice() == 1; }
    bool isColumnVector() const { return getSlice() == 0; }
    /// Where each of a thread's values lies (CoalescedFragment.h).
    CoalescedGeometry getGeometry() const {
      return {getCols(), getWarps()};
    }
  }];
}

/// Any register layout of fa4: what a `fa4.global_load` or
/// `fa4.global_store` keeps of its tile's type once the values are
/// distributed.
def FA4_LayoutAttr : AnyAttrOf<[FA4_AccLayoutAttr, FA4_RowsLayoutAttr,
                                FA4_ColsLayoutAttr, FA4_BlockedLayoutAttr,
                                FA4_CoalescedLayoutAttr]>;

#endif // FA4_ATTRS_TD

//===- FA4Ops.td - fa4 operations --------------------------*- tablegen -*-===//
//
// The operations of the fa4 dialect: pipelines (create, start, step), their
// producer side (acquire, TMA load with expect-tx) and consumer side (wait,
// release), warp roles, asynchronous MMA and its wait, and named barriers.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_OPS_TD
#define FA4_OPS_TD

include "FA4/FA4Types.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"

def FA4_SharedTile : MemRefRankOf<[BF16, F16, F32], [2]>;
/// A register tile: a ranked tensor (with an fa4 layout once one is
/// assigned), or after distribution the 1-d vector of one thread's values.
def FA4_RegisterTile : AnyTypeOf<[RankedTensorOf<[BF16, F16, F32]>,
                                  VectorOfRankAndType<[1], [BF16, F16, F32]>]>;
def FA4_AccTile : AnyTypeOf<[RankedTensorOf<[F32, F16]>,
                             VectorOfRankAndType<[1], [F32, F16]>]>;
/// Where a side stands in a pipeline: a `!fa4.pipeline_state`, or after
/// fa4-explicit-pipeline-state the stage index and phase as two i32 values.
def FA4_StateOperand : Variadic<AnyTypeOf<[FA4_PipelineStateType, I32]>>;

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

def FA4_PipelineCreateOp : FA4_Op<"pipeline.create"> {
  let summary = "create a pipeline: its stage buffers and its mbarrier array";
  let description = [{
    Allocates the stage buffers of a pipeline in shared memory (one buffer per
    tile type for each of the `kv * qk` sub-stages) and its mbarrier array,
    and initialises the barriers: each full barrier expects one arrival per
    tile of a sub-stage (the elected `arrive.expect_tx` of each load; one
    for a schedule pipeline's stage, its `fa4.producer.put`), each
    empty barrier `consumers` arrivals (one per releasing thread or warp, as
    the consumer role releases). The lowering follows the initialisation
    with the fence that makes it visible to the async proxy (PTX ISA,
    "Parallel Synchronization and Communication Instructions: mbarrier").

    `offset`, set by fa4-allocate-shared-memory, is where the pipeline's
    region (stage buffers, then barriers) starts in the kernel's dynamic
    shared memory.

    When the enclosing kernel carries `fa4.config`, the verifier checks the
    pipeline against it: K tiles are `bn x bk0` with the config's kv
    stages and as many qk stages as the head dim (or V's) holds, or one
    whole tile before fa4-split-qk; V tiles `bn x head_dim_v` with its kv
    stages, Q tiles `bm x head_dim`, each kind also of the other head dim
    (the backward loads dO beside Q and reads V transposed as the forward
    reads K), all of the config's element type.

    Example:

    ```mlir
    %k = fa4.pipeline.create consumers(256) : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$consumer_arrivals,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$offset);
  let results = (outs FA4_PipelineType:$pipeline);
  let assemblyFormat = [{
    `consumers` `(` $consumer_arrivals `)` attr-dict `:` qualified(type($pipeline))
  }];
  let hasVerifier = 1;
}

def FA4_PipelineStartOp : FA4_Op<"pipeline.start", [Pure]> {
  let summary = "the first state of a producer or a consumer";
  let description = [{
    The state at which one side of a pipeline begins: stage 0, phase 0 for
    the consumer and phase 1 for the producer, so that the producer's first
    acquires pass at once (every stage starts empty).

    Example:

    ```mlir
    %s = fa4.pipeline.start %k producer : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, EnumProp<FA4_PipelineSide>:$side);
  let results = (outs FA4_PipelineStateType:$state);
  let assemblyFormat = [{
    $pipeline $side attr-dict `:` qualified(type($pipeline))
  }];
}

def FA4_PipelineStepOp : FA4_Op<"pipeline.step", [Pure]> {
  let summary = "advance a state to the next stage";
  let description = [{
    The state one stage further: the stage index plus one, wrapping to 0 after
    the last kv stage and flipping the phase when it wraps. The qk sub-stages
    of a stage share its index, so a side steps once per kv stage, after its
    last qk sub-stage. On the producer side the TMA's `complete_tx` is the
    commit: stepping only moves the state.

    Example:

    ```mlir
    %s1 = fa4.pipeline.step %k[%s] : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, FA4_PipelineStateType:$state);
  let results = (outs FA4_PipelineStateType:$next);
  let assemblyFormat = [{
    $pipeline `[` $state `]` attr-dict `:` qualified(type($pipeline))
  }];
}

class FA4_SubStageOp<string mnemonic, list<Trait> traits = []>
    : FA4_Op<mnemonic, traits> {
  code subStageDecl = [{
    /// Check the state operands and that the qk sub-stage is in range.
    LogicalResult verifyQkStage();
  }];
  let extraClassDeclaration = subStageDecl;
  let hasVerifier = 1;
}

def FA4_ProducerAcquireOp : FA4_SubStageOp<"producer.acquire"> {
  let summary = "wait until a stage (or one of its qk sub-stages) is empty";
  let description = [{
    The producer waits on the empty barrier of (stage, `qk`) at the state's
    phase (`mbarrier.try_wait.parity`), so that it may overwrite the buffers
    of that sub-stage. V pipelines take qk stage 0 only.

    Like every op that addresses a sub-stage, it takes the state either as a
    `!fa4.pipeline_state` or, after `fa4-explicit-pipeline-state`, as the
    stage index and the phase (two i32 values): `%k[%stage, %phase]`.

    Example:

    ```mlir
    fa4.producer.acquire %k[%s] qk 1 : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, FA4_StateOperand:$state,
                       DefaultValuedAttr<I64Attr, "0">:$qk);
  let assemblyFormat = [{
    $pipeline `[` custom<State>($state, type($state)) `]` (`qk` $qk^)? attr-dict
    `:` qualified(type($pipeline))
  }];
}

def FA4_ProducerLoadOp : FA4_SubStageOp<"producer.load", [AttrSizedOperandSegments]> {
  let summary = "TMA load of one tile into a sub-stage, with the elected expect-tx";
  let description = [{
    One elected thread announces the tile's bytes on the full barrier of
    (stage, `qk`) with `mbarrier.arrive.expect_tx` (the byte count is the
    size of the tile type), then issues the TMA copies
    (`cp.async.bulk.tensor`, PTX ISA "Data Movement and Conversion
    Instructions: cp.async.bulk.tensor") that fill buffer `tile` of that
    sub-stage from the tensor map at the given element coordinates (outermost
    first). When the tile is wider or taller than the tensor map's box, the
    copies walk the tile box by box. With one coordinate group per row of
    boxes (the map's rank times the tile's rows over the box's), row of boxes
    i is copied from group i instead of from the rows after the first: a
    gather of row blocks, such as a key block from the pages of a paged KV
    cache. The copies' `complete_tx` completes the barrier phase: there is
    no separate commit.

    Example:

    ```mlir
    fa4.producer.load %k[%s] qk 1, %kmap[%row, %c64] : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>, !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
    fa4.producer.load %k[%s], %pages[%p0, %h, %c0, %c0, %p1, %h, %c0, %c0] : !fa4.pipeline<k, kv = 3, qk = 1, memref<128x128xbf16, 3>>, !fa4.tensor_map<bf16, box = [1, 1, 64, 64], swizzle = 128>
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, FA4_StateOperand:$state,
                       DefaultValuedAttr<I64Attr, "0">:$qk,
                       DefaultValuedAttr<I64Attr, "0">:$tile,
                       FA4_TensorMapType:$map, Variadic<Index>:$coords);
  let assemblyFormat = [{
    $pipeline `[` custom<State>($state, type($state)) `]` (`qk` $qk^)?
    (`tile` $tile^)? `,` $map `[` $coords `]`
    attr-dict `:` qualified(type($pipeline)) `,` qualified(type($map))
  }];
}

def FA4_ConsumerWaitOp : FA4_SubStageOp<"consumer.wait"> {
  let summary = "wait until a sub-stage is full; yields its buffers";
  let description = [{
    The consumer waits on the full barrier of (stage, `qk`) at the state's
    phase (`mbarrier.try_wait.parity`); when it returns, the TMA copies into
    that sub-stage have landed. The results are the sub-stage's buffers, one
    per tile type of the pipeline; on a schedule pipeline, the values of its
    i32 slots (read after the wait, which acquires what the producer's
    `fa4.producer.put` released).

    Example:

    ```mlir
    %kt = fa4.consumer.wait %k[%s] qk 0 : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>> -> memref<128x64xbf16, 3>
    %x, %yz = fa4.consumer.wait %sched[%t] : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32> -> i32, i32
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, FA4_StateOperand:$state,
                       DefaultValuedAttr<I64Attr, "0">:$qk);
  let results = (outs Variadic<AnyTypeOf<[FA4_SharedTile, I32]>>:$buffers);
  let assemblyFormat = [{
    $pipeline `[` custom<State>($state, type($state)) `]` (`qk` $qk^)? attr-dict
    `:` qualified(type($pipeline)) `->` type($buffers)
  }];
}

def FA4_ConsumerReleaseOp : FA4_SubStageOp<"consumer.release"> {
  let summary = "hand a sub-stage back to the producer";
  let description = [{
    The consumer arrives on the empty barrier of (stage, `qk`): the buffers
    of that sub-stage may be overwritten once every consumer arrival is in.
    A release must follow the `fa4.mma.wait` that covers every asynchronous
    MMA reading those buffers.

    Example:

    ```mlir
    fa4.consumer.release %k[%s] qk 1 : !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, FA4_StateOperand:$state,
                       DefaultValuedAttr<I64Attr, "0">:$qk);
  let assemblyFormat = [{
    $pipeline `[` custom<State>($state, type($state)) `]` (`qk` $qk^)? attr-dict
    `:` qualified(type($pipeline))
  }];
}

def FA4_ProducerPutOp : FA4_SubStageOp<"producer.put", [AttrSizedOperandSegments]> {
  let summary = "write a schedule pipeline's slots and mark their stage full";
  let description = [{
    One elected thread of the calling warp stores the values into the i32
    slots of the stage, one each, and arrives on its full barrier (`mbarrier.arrive`, which
    releases at CTA scope; PTX ISA "Parallel Synchronization and
    Communication Instructions: mbarrier.arrive"): a consumer whose
    `fa4.consumer.wait` on the stage returns reads the values. It follows the
    `fa4.producer.acquire` of the stage, as a TMA load does. Only schedule
    pipelines take it; their stages are filled by no copy.

    Example:

    ```mlir
    fa4.producer.put %sched[%s], %x, %yz : !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
    ```
  }];
  let arguments = (ins FA4_PipelineType:$pipeline, FA4_StateOperand:$state,
                       Variadic<I32>:$values);
  let assemblyFormat = [{
    $pipeline `[` custom<State>($state, type($state)) `]` `,` $values attr-dict
    `:` qualified(type($pipeline))
  }];
}

def FA4_ClaimTileOp : FA4_Op<"claim_tile"> {
  let summary = "claim the next tile of a dynamic persistent schedule";
  let description = [{
    The tiles of a persistent kernel's logical grid, numbered 0 to
    `tiles - 1`, are shared out among its `programs` CTAs as they come free:
    CTA c starts with tile c, and each further tile comes from the i32
    `counter` in global memory, 0 when the kernel starts. Lane 0 of the
    calling warp adds 1 to it (`atom.global.add`, PTX ISA "Parallel
    Synchronization and Communication Instructions: atom") and every lane
    gets `programs` plus the old value: the next tile, or an index past the
    last when none is left.

    A CTA claims once per tile it runs and stops at the first index past the
    last, so a launch makes exactly `tiles` claims, and the one that takes
    the counter's last value, `tiles - 1`, stores 0 back: the counter is
    ready for the next launch on the same stream without a reset from the
    host. Two launches that may run at once need two counters. One warp of
    the CTA claims (the producer's); the others learn the tile through a
    schedule pipeline.

    Example:

    ```mlir
    %next = fa4.claim_tile %counter, %ctas, %tiles : !llvm.ptr<1>
    ```
  }];
  let arguments = (ins LLVM_PointerInAddressSpace<1>:$counter, I32:$programs,
                       I32:$tiles);
  let results = (outs I32:$tile);
  let assemblyFormat = [{
    $counter `,` $programs `,` $tiles attr-dict `:` qualified(type($counter))
  }];
}

//===----------------------------------------------------------------------===//
// Warp roles
//===----------------------------------------------------------------------===//

def FA4_WarpSpecializeOp : FA4_Op<"warp_specialize", [SingleBlock, NoTerminator]> {
  let summary = "split the CTA into warp roles";
  let description = [{
    Holds one `fa4.role` per role of the kernel; the CTA's warps are dealt to
    the roles in order, each role taking whole warpgroups. The verifier checks
    that the roles fit the SM: at most 1024 threads and, with every role at
    its register budget, at most 65536 registers.

    Example:

    ```mlir
    fa4.warp_specialize {
      fa4.role producer warps(4) regs(24) {
      }
      fa4.role consumer warps(8) regs(240) {
      }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def FA4_RoleOp : FA4_Op<"role", [HasParent<"WarpSpecializeOp">, SingleBlock,
                                 NoTerminator]> {
  let summary = "the code of one warp role, with its warps and register budget";
  let description = [{
    The region runs on `warps` warps (whole warpgroups) after they set their
    register budget to `regs` per thread (`setmaxnreg`, PTX ISA
    "Miscellaneous Instructions: setmaxnreg"; a multiple of 8 in [24, 256]).

    Example:

    ```mlir
    fa4.role producer warps(4) regs(24) {
      %wg = fa4.warpgroup_id
    }
    ```
  }];
  let arguments = (ins EnumProp<FA4_RoleKind>:$kind, I64Attr:$warps, I64Attr:$regs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `warps` `(` $warps `)` `regs` `(` $regs `)` attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def FA4_WarpgroupIdOp : FA4_Op<"warpgroup_id", [Pure]> {
  let summary = "the index of the calling warpgroup within its role";
  let description = [{
    0 for the role's first warpgroup, 1 for its second, and so on: a consumer
    role of two warpgroups uses it to pick its Q tile. In a kernel with an
    `#fa4.config` whose roles are not formed yet (a tile program on its way
    to the fa4 level) it names the consumer warpgroup that will run it.

    Example:

    ```mlir
    %wg = fa4.warpgroup_id
    ```
  }];
  let results = (outs Index:$id);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def FA4_WarpgroupRowsOp : FA4_Op<"warpgroup_rows", [Pure]> {
  let summary = "the rows of a CTA tile that this consumer warpgroup owns";
  let description = [{
    The consumer warpgroups of a kernel split the rows of its CTA tiles:
    warpgroup `w` owns rows `[w * R, (w + 1) * R)` of each, where `R` is the
    result's row count. Layout assignment inserts it where a shared-memory
    operand of the whole CTA (a loaded Q or A tile) feeds one warpgroup's
    MMA; TMA pipelining turns it into a view of the loaded buffer.

    ```mlir
    %q_wg = fa4.warpgroup_rows %q : tensor<128x128xbf16> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$tile attr-dict `:` type($tile) `->` type($result)";
  let hasVerifier = 1;
}

def FA4_WarpgroupColsOp : FA4_Op<"warpgroup_cols", [Pure]> {
  let summary = "the columns of a shared B tile that this consumer warpgroup's MMA reads";
  let description = [{
    Where the consumer warpgroups split a product by its columns rather than
    its rows (a dot whose M is one warpgroup's MMA, not the CTA's rows, such
    as dQ = dS · K of an attention backward, whose rows are a block of
    queries), warpgroup `w` computes columns `[w * C, (w + 1) * C)` of it
    from the same columns of B, where `C` is the result's column count.
    Layout assignment inserts it on such a dot's B operand (a loaded tile);
    fa4-pipeline-tma turns it into a view of the loaded buffer.

    ```mlir
    %k_wg = fa4.warpgroup_cols %k : tensor<128x128xbf16> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$tile attr-dict `:` type($tile) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous MMA
//===----------------------------------------------------------------------===//

def FA4_MmaAsyncOp : FA4_Op<"mma.async", [
    OptionalTypesMatchWith<"the accumulator has the result's type", "result",
                           "acc", "$_self">]> {
  let summary = "asynchronous matrix multiply-accumulate of a warpgroup";
  let description = [{
    `result = acc + A · B`, issued asynchronously by the warpgroup: A is an
    `M x K` tile in shared memory or in registers, B a tile in shared memory,
    either k-major (`N x K`, e.g. a K tile for Q·Kᵀ) or, with `b_mn_major`,
    mn-major (`K x N`, e.g. a V tile for P·V), and the accumulator an `M x N`
    register tile. With `a_mn_major` a shared-memory A is mn-major too: a
    `K x M` tile read as its transpose (wgmma's transpose bit, 16-bit types),
    such as a dS tile of key rows read as dSᵀ. Without an accumulator the product starts from zero
    (`result = A · B`): the first `wgmma` then runs with scale-d = 0, so no
    registers are zero-filled. The result may be read only after an
    `fa4.mma.wait` that covers it. On sm_90a this is `wgmma.mma_async` (PTX
    ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
    Instructions"): M a multiple of 64, N a multiple of 8 up to 256, K a
    multiple of 16. Register tiles carry the `#fa4.acc` layout; after
    fa4-distribute-register-tiles they are each thread's values as a 1-d
    vector. Canonicalization drops an accumulator that is a constant zero.

    Example:

    ```mlir
    %s = fa4.mma.async %q, %kt : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
    %s2 = fa4.mma.async %q2, %kt2, %s : memref<64x64xbf16, 3>, memref<128x64xbf16, 3>, tensor<64x128xf32>
    %o = fa4.mma.async %p, %vt, %acc b_mn_major : tensor<64x128xbf16>, memref<128x128xbf16, 3>, tensor<64x128xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[FA4_SharedTile, RankedTensorOf<[BF16, F16]>,
                                  VectorOfRankAndType<[1], [BF16, F16]>]>:$a,
                       FA4_SharedTile:$b, Optional<FA4_AccTile>:$acc,
                       UnitAttr:$b_mn_major, UnitAttr:$a_mn_major);
  let results = (outs FA4_AccTile:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $acc^)? (`b_mn_major` $b_mn_major^)?
    (`a_mn_major` $a_mn_major^)? attr-dict `:`
    type($a) `,` type($b) `,` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def FA4_MmaWaitOp : FA4_Op<"mma.wait", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait for asynchronous MMAs; their accumulators become readable";
  let description = [{
    Waits until at most `pending` groups of asynchronous MMAs are still in
    flight (`wgmma.wait_group`), and returns the accumulators it covers, now
    safe to read. Shared-memory stages read by the finished MMAs may be
    released after it.

    Example:

    ```mlir
    %s2, %o2 = fa4.mma.wait %s, %o pending(0) : tensor<64x128xf32>, tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Variadic<FA4_RegisterTile>:$accs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let results = (outs Variadic<FA4_RegisterTile>:$results);
  let assemblyFormat = [{
    ($accs^)? `pending` `(` $pending `)` attr-dict (`:` type($accs)^)?
  }];
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

class FA4_NamedBarrierOp<string mnemonic, string what>
    : FA4_Op<"named_barrier." # mnemonic> {
  let summary = what;
  let arguments = (ins I64Attr:$id, I64Attr:$threads);
  let assemblyFormat = "`id` `(` $id `)` `threads` `(` $threads `)` attr-dict";
  let hasVerifier = 1;
}

def FA4_NamedBarrierSyncOp
    : FA4_NamedBarrierOp<"sync", "wait at a named barrier until all its threads arrive"> {
  let description = [{
    The calling warp arrives at named barrier `id` and waits until `threads`
    threads have arrived (`bar.sync id, threads`, PTX ISA "Parallel
    Synchronization and Communication Instructions: bar, barrier"). Roles use
    named barriers to order their work, e.g. the ping-pong of two consumer
    warpgroups. Id 0 is the CTA-wide barrier of `__syncthreads` and is not
    available; `threads` is a multiple of the warp size.

    Example:

    ```mlir
    fa4.named_barrier.sync id(2) threads(256)
    ```
  }];
}

def FA4_NamedBarrierArriveOp
    : FA4_NamedBarrierOp<"arrive", "arrive at a named barrier without waiting"> {
  let description = [{
    The calling warp arrives at named barrier `id` and goes on (`bar.arrive
    id, threads`): it signals the threads that `fa4.named_barrier.sync` on the
    same barrier. The same id and thread-count rules apply.

    Example:

    ```mlir
    fa4.named_barrier.arrive id(2) threads(256)
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Shared-memory views and global stores
//===----------------------------------------------------------------------===//

def FA4_SubtileOp : FA4_Op<"subtile", [Pure]> {
  let summary = "a view of part of a swizzled shared-memory tile";
  let description = [{
    The part of `source` that starts at (`row`, `col`) and has the result's
    shape, in the same swizzled layout. fa4 keeps a shared-memory tile of R x C
    16-bit elements as C/64 column blocks of R rows x 128 bytes (one TMA box
    each, 128-byte swizzle), so a view must start on a whole swizzle atom:
    `row` a multiple of 8, `col` a multiple of 64. Used to feed one qk stage's
    slice of Q to the MMA, or a consumer warpgroup's rows of a shared tile.

    ```mlir
    %q1 = fa4.subtile %q[%c0, %c64] : memref<64x128xbf16, 3> -> memref<64x64xbf16, 3>
    ```
  }];
  let arguments = (ins FA4_SharedTile:$source, Index:$row, Index:$col);
  let results = (outs FA4_SharedTile:$result);
  let assemblyFormat = [{
    $source `[` $row `,` $col `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FA4_GlobalStoreOp : FA4_Op<"global_store"> {
  let summary = "store a warpgroup's register tile to global memory";
  let description = [{
    Each thread of the warpgroup writes its values of the `64 x N` tile (in
    the `#fa4.acc` layout) to global memory: element (i, j) goes to
    `base + ((row + i) * stride + col + j) * sizeof(element)` when
    `row + i < row_limit`; rows past the limit are not written (the tail of a
    sequence). With `add` each f32 value is added to the one in memory by a
    relaxed atomic add (`atom.global.add.f32`, its result unused) instead,
    under the same conditions. With `columns(%c)` only the tile's first `c`
    columns are written (`j < c`; none when `c` is 0 or negative): a tensor
    narrower than the tile. A constant multiple of 8 (a head dim narrower than
    its tile) skips the column blocks past it without a test; any other count
    (a matrix's last block of columns) is tested a pair of values at a
    time, under the test of the first: both stored where the second lies
    inside too, else the first alone. A 64-element
    `#fa4.rows` tile (one value per row, such as a row's log-sum-exp) is
    stored the same way with `j = 0`, by the first thread of each quad; an
    `#fa4.blocked` one (a run of a 1-d tile) too, each thread its own
    elements.

    A `#fa4.coalesced` tile is stored the same way, by rows and under
    `columns`, each thread's pieces of 8 consecutive elements of a row value
    by value under their tests; with `pieces` (the row starts, the column
    and the column count all multiples of 8 elements) a piece is written by
    one vector store under one test, rows past the limit or pieces past the
    count not written. Its row vector (`slice = 1`) is stored as a
    `#fa4.rows` one is, by the first lane of each row; its column vector
    (`slice = 0`) as the tile's first row, under `columns`.

    `layout` is the tile's layout, which the distributed values (a vector of
    a thread's values) no longer say. The verifier checks that it is the
    tile's, and that `columns` comes with `#fa4.acc` and `#fa4.coalesced`
    tiles and column vectors only.

    ```mlir
    fa4.global_store %o, %out[%row, %c0] rows(%seq) stride(%c128) layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
    fa4.global_store %o, %out[%row, %c0] rows(%seq) columns(%c80) stride(%c80) layout(#fa4.acc) : tensor<64x128xbf16, #fa4.acc>, !llvm.ptr<1>
    fa4.global_store %lse, %l[%row, %c0] rows(%seq) stride(%c1) layout(#fa4.rows) : vector<2xf32>, !llvm.ptr<1>
    ```
  }];
  let arguments = (ins FA4_RegisterTile:$tile, LLVM_AnyPointer:$base,
                       Index:$row, Index:$col, Index:$row_limit,
                       Index:$stride, Optional<Index>:$columns,
                       UnitAttr:$add, FA4_LayoutAttr:$layout,
                       UnitAttr:$pieces);
  let assemblyFormat = [{
    $tile `,` $base `[` $row `,` $col `]` `rows` `(` $row_limit `)`
    (`columns` `(` $columns^ `)`)? `stride` `(` $stride `)` (`add` $add^)?
    `layout` `(` qualified($layout) `)` (`pieces` $pieces^)?
    attr-dict `:` type($tile) `,` qualified(type($base))
  }];
  let hasVerifier = 1;
}

def FA4_GlobalLoadOp : FA4_Op<"global_load", [MemoryEffects<[MemRead]>,
                                              AttrSizedOperandSegments]> {
  let summary = "load a vector or a warpgroup's tile from global memory into registers";
  let description = [{
    Each thread of the warpgroup reads its values of a vector of `N`
    elements: in the `#fa4.rows` layout the values of its two rows `i` of
    the warpgroup's 64, in the `#fa4.cols` layout those of its column
    pairs (`2l`, `2l + 1`, `2l + 64`, ...), in the `#fa4.blocked` layout
    its `N/128` consecutive elements `i`. Value `i` is the element at `base + (start + i) *
    sizeof(element)` when `i < count`, and 0 past it (the tail of a
    sequence); no address past `count` is read (`count` may be 0 or
    negative, when the element at `base` is read and discarded). How a
    program's per-row or per-column terms kept in global memory, such as
    the backward's log-sum-exp and D or a normalization's weights (f32,
    bf16 or f16), or each token's document (i32), reach registers; in the
    `#fa4.blocked` layout a run of a 1-d tile (a vector add's operands).

    A `64 x N` tile in the `#fa4.acc` layout (a score bias kept in global
    memory) takes `stride` and `rows`, which no vector takes: its element
    (i, j) is the one at `base + (start + i * stride + j) * sizeof(element)`
    when `i < rows` and `j < count`, 0 otherwise (a sequence's last block
    of rows or columns). A thread whose values all lie inside, at an
    address aligned to two elements, reads each of its pairs (two adjacent
    columns) with one load; any other thread reads value by value.

    A `#fa4.coalesced` tile takes `stride` and `rows` likewise, and its
    vectors (`slice = 1`, a value per row of the warpgroup's; `slice = 0`, a
    value per column) take neither. Each thread reads its pieces of 8
    consecutive elements value by value, or, with `pieces` (the start, the
    stride and the count all multiples of 8 elements), each piece with one
    vector load, zeros for a piece past the rows or the count.

    `layout` is the result's layout, which the distributed values (a vector
    of a thread's values) no longer say; fa4-assign-layouts creates the op
    before it knows the layout and sets it with the result's type. The
    verifier checks that it is the result's, that a distributed result has
    one, and that `stride` and `rows` come together and with an `#fa4.acc`
    or `#fa4.coalesced` tile.

    ```mlir
    %lse = fa4.global_load %l[%start] count(%n) layout(#fa4.rows) : !llvm.ptr<1> -> tensor<64xf32, #fa4.rows>
    %d = fa4.global_load %dl[%start] count(%n) layout(#fa4.cols) : !llvm.ptr<1> -> tensor<64xf32, #fa4.cols>
    %x = fa4.global_load %xp[%start] count(%n) layout(#fa4.blocked) : !llvm.ptr<1> -> vector<4xbf16>
    %b = fa4.global_load %bias[%start] count(%n) stride(%s) rows(%r) layout(#fa4.acc) : !llvm.ptr<1> -> tensor<64x128xbf16, #fa4.acc>
    %x = fa4.global_load %xp[%start] count(%n) stride(%s) rows(%r) layout(#fa4.coalesced<cols = 1024>) pieces : !llvm.ptr<1> -> tensor<4x1024xbf16, #fa4.coalesced<cols = 1024>>
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$base, Index:$start, Index:$count,
                       Optional<Index>:$stride, Optional<Index>:$rows,
                       OptionalAttr<FA4_LayoutAttr>:$layout,
                       UnitAttr:$pieces);
  let results = (outs AnyTypeOf<[RankedTensorOf<[F32, BF16, F16, I32]>,
                                 VectorOfRankAndType<[1], [F32, BF16, F16, I32]>]>:$result);
  let assemblyFormat = [{
    $base `[` $start `]` `count` `(` $count `)`
    (`stride` `(` $stride^ `)`)? (`rows` `(` $rows^ `)`)?
    (`layout` `(` qualified($layout)^ `)`)? (`pieces` $pieces^)?
    attr-dict `:`
    qualified(type($base)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FA4_CombineWarpsOp : FA4_Op<"combine_warps",
    [AllTypesMatch<["partial", "result"]>]> {
  let summary = "combine the partial reductions of the warps that share a row or a column";
  let description = [{
    The last step of a reduction of a `#fa4.coalesced` tile (`layout`)
    across warps, after the thread's values and the shuffles among a warp's
    lanes (fa4-distribute-register-tiles builds it). Each thread holds its
    warp's partial results (`partial`), the first lane that holds each of
    them stores it to `scratch`, the warps meet at a named barrier, every
    thread combines the partial results of its rows or columns (their sum,
    or with `max` their maximum) and the warps meet again so that the
    scratch may be written anew.

    - `axis 1`, a row reduction whose rows W > 1 warps share: a value per
      row repeat; the warpgroup meets (barrier 7 + warpgroup, 128
      threads). The scratch holds `(warpgroups * 4) x (warp rows * A)`
      values, `A` the partial results a thread holds.
    - `axis 0`, a column reduction: a value for each of the thread's
      columns; the row groups of all the consumer warpgroups meet (barrier
      10, 128 threads a warpgroup). The scratch holds a row of `C` values
      for each row group, `(warpgroups * 4 / W) x C`.

    `warpgroup` is the thread's consumer warpgroup, which picks its slots.

    ```mlir
    %r = fa4.combine_warps %p, %scratch[%wg] #fa4.coalesced<cols = 4096, warps = 4> axis 1 : vector<1xf32>, memref<8x1xf32, 3>
    %c = fa4.combine_warps %q, %columns[%wg] #fa4.coalesced<cols = 1024> axis 0 : vector<32xf32>, memref<8x1024xf32, 3>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$partial,
                       FA4_SharedTile:$scratch, Index:$warpgroup,
                       I64Attr:$axis, FA4_CoalescedLayoutAttr:$layout,
                       UnitAttr:$max);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    (`max` $max^)? $partial `,` $scratch `[` $warpgroup `]`
    qualified($layout) `axis` $axis
    attr-dict `:` type($partial) `,` qualified(type($scratch))
  }];
  let hasVerifier = 1;
}

def FA4_SharedBufferOp : FA4_Op<"shared_buffer"> {
  let summary = "a shared-memory tile of its own, outside every pipeline";
  let description = [{
    A tile of the kernel's dynamic shared memory that no pipeline owns, such
    as the staging tile of a TMA-store epilogue. It uses the layout of a
    pipeline's tiles (column blocks of one 128-byte swizzle span, each
    holding every row), so a TMA box copies to or from it as from a stage
    buffer. fa4-allocate-shared-memory gives it its `offset`, in a region of
    its own rounded up to 1024 B.

    ```mlir
    %o = fa4.shared_buffer : memref<128x128xbf16, 3>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs FA4_SharedTile:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
}

def FA4_SharedLoadOp : FA4_Op<"shared_load"> {
  let summary = "read a warpgroup's rows of a shared-memory tile into registers";
  let description = [{
    Rows `row ... row + 63` of a tile in shared memory, read into the
    warpgroup's registers in the `#fa4.acc` layout, where elementwise math,
    row reductions and stores take them as they take an MMA's result: how a
    loaded tile reaches anything but a dot. Layout assignment inserts it on
    the loaded tile itself (a tensor) for the warpgroup's first row;
    fa4-pipeline-tma makes the source the stage's buffer, waited for before
    and released after the read. The buffer has the layout of a TMA box
    with the 128-byte swizzle (column blocks of one span, each holding every
    row; 16-byte chunk c of row r at c ^ (r % 8)). Of 16-bit elements each
    warp reads four 8 x 8 matrices at a time with `ldmatrix` (PTX ISA
    "Warp-level matrix load instruction: ldmatrix"), the mirror of a TMA
    store's `stmatrix`; of 32-bit ones (an f32 accumulator written by
    another kernel) each thread reads its two values of a row of a block
    with one 8-byte shared load.

    ```mlir
    %o = fa4.shared_load %stage[%row] : memref<128x128xbf16, 3> -> tensor<64x128xbf16, #fa4.acc>
    ```
  }];
  let arguments = (ins AnyTypeOf<[RankedTensorOf<[BF16, F16, F32]>,
                                  FA4_SharedTile]>:$source,
                       Index:$row);
  let results = (outs FA4_RegisterTile:$result);
  let assemblyFormat = [{
    $source `[` $row `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FA4_SharedStoreOp : FA4_Op<"shared_store"> {
  let summary = "write a warpgroup's register tile into rows of a shared-memory tile";
  let description = [{
    The mirror of `fa4.shared_load`: the warpgroup's `64 x N` tile of 16-bit
    elements (in the `#fa4.acc` layout) goes into rows `row ... row + 63` of
    `buffer`, in the layout of a TMA box with the 128-byte swizzle (column
    blocks of one span, each holding every row), each warp four 8 x 8
    matrices at a time with `stmatrix`. Each thread then fences its writes
    against the async proxy (`fence.proxy.async.shared::cta`): an MMA issued
    after a barrier that every writer has reached reads them. This is how a
    register tile becomes an MMA's shared-memory operand, such as the
    transposed dS of an attention backward's dQ = dS · K.

    ```mlir
    fa4.shared_store %ds, %buffer[%row] : tensor<64x64xbf16, #fa4.acc>, memref<128x64xbf16, 3>
    ```
  }];
  let arguments = (ins FA4_RegisterTile:$tile, FA4_SharedTile:$buffer,
                       Index:$row);
  let assemblyFormat = [{
    $tile `,` $buffer `[` $row `]` attr-dict `:` type($tile) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def FA4_SharedTileOp : FA4_Op<"shared_tile", [MemoryEffects<[MemRead]>]> {
  let summary = "the tile a shared-memory buffer holds, as a dot's operand";
  let description = [{
    At the tile level, the CTA's tile in `buffer` (written there by the
    consumer warpgroups' `fa4.shared_store`s) as the tensor that a
    `tile.dot`, directly or through a `tile.trans`, takes as its A operand.
    Layout assignment creates it where a dot reads a transposed register
    tile; fa4-pipeline-tma makes the MMA read the buffer itself and erases
    it.

    ```mlir
    %ds = fa4.shared_tile %buffer : memref<128x64xbf16, 3> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins FA4_SharedTile:$buffer);
  let results = (outs RankedTensorOf<[BF16, F16]>:$tile);
  let assemblyFormat = [{
    $buffer attr-dict `:` type($buffer) `->` type($tile)
  }];
  let hasVerifier = 1;
}

def FA4_TmaStoreOp : FA4_Op<"tma_store"> {
  let summary = "store a warpgroup's register tile through shared memory and TMA";
  let description = [{
    The warpgroup's `64 x N` tile (in the `#fa4.acc` layout) goes to the
    tensor map at the given element coordinates (outermost first, those of
    the warpgroup's first row) in four steps: the thread that issued the
    warpgroup's previous TMA store waits until it has read its source
    (`cp.async.bulk.wait_group.read`); the warpgroup meets at named barrier
    `barrier` (128 threads) and each thread writes its values into rows
    `row ... row + 63` of `buffer`, swizzled as a TMA box expects them; a
    proxy fence and the barrier again; then the warpgroup's first thread
    copies the rows out box by box (`cp.async.bulk.tensor`, PTX ISA "Data
    Movement and Conversion Instructions: cp.async.bulk.tensor") and commits
    them as one bulk group. TMA drops the rows and columns past the tensor's
    edge; nobody waits for the copy here (`fa4.tma_store_wait` does, before
    the kernel ends). 16-bit tiles go through boxes of 64 columns, 32-bit
    ones (f32, written a pair of values at a time) of 32. With `add` the
    copy adds each f32 value to the tensor's element
    (`cp.reduce.async.bulk.tensor ... .add`): the CTAs that add into one
    block, such as the parts of an attention backward's dQ, sum there in no
    fixed order.

    ```mlir
    fa4.tma_store %o, %stage[%row], %omap[%b, %h, %r, %c0] barrier(%id) : tensor<64x128xbf16, #fa4.acc>, memref<128x128xbf16, 3>, !fa4.tensor_map<bf16, box = [1, 1, 64, 64], swizzle = 128>
    ```
  }];
  let arguments = (ins FA4_RegisterTile:$tile, FA4_SharedTile:$buffer,
                       Index:$row, FA4_TensorMapType:$map,
                       Variadic<Index>:$coords, Index:$barrier,
                       UnitAttr:$add);
  let assemblyFormat = [{
    $tile `,` $buffer `[` $row `]` `,` $map `[` $coords `]`
    `barrier` `(` $barrier `)` (`add` $add^)? attr-dict `:` type($tile) `,`
    type($buffer) `,` qualified(type($map))
  }];
  let hasVerifier = 1;
}

def FA4_TmaStoreWaitOp : FA4_Op<"tma_store_wait"> {
  let summary = "wait until this warpgroup's TMA stores have completed";
  let description = [{
    The thread that issues a consumer warpgroup's TMA stores waits for them
    to complete (`cp.async.bulk.wait_group 0`), so that their shared-memory
    source outlives them: the last op of a role that stores through TMA.
    With `read`, only until they have read their source
    (`cp.async.bulk.wait_group.read 0`): the buffer may then be written
    again, e.g. a Q stage that staged O, released to the producer.

    ```mlir
    fa4.tma_store_wait
    fa4.tma_store_wait read
    ```
  }];
  let arguments = (ins UnitAttr:$read);
  let assemblyFormat = "(`read` $read^)? attr-dict";
}

#endif // FA4_OPS_TD

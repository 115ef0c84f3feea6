//===- Passes.td - fa4 conversions -------------------------*- tablegen -*-===//
//
// The conversions of fa4: from the fa4 dialect to NVVM and LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_CONVERSION_PASSES_TD
#define FA4_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFA4ToNVVM : Pass<"convert-fa4-to-nvvm", "ModuleOp"> {
  let summary = "lower fa4 kernels to the NVVM and LLVM dialects";
  let description = [{
    Lowers kernels whose pipeline states are explicit, whose shared memory is
    allocated, whose register tiles are distributed and whose warp roles are
    lowered (see the `fa4-to-llvm` pipeline) to the LLVM dialect with NVVM ops for sm_90a:

    - `fa4.pipeline.create`: its region in the dynamic shared memory, mbarrier
      init by thread 0 (full barriers expect one arrival per tile, empty
      barriers the consumer count), the init fence and a CTA barrier;
    - acquire and wait: `mbarrier.try_wait.parity` loops on the empty and full
      barriers; release: `mbarrier.arrive`; loads: one elected thread's
      `mbarrier.arrive.expect_tx` with the tile's bytes and the
      `cp.async.bulk.tensor` copies of its boxes, the tensor map passed by
      value as a `__grid_constant__` kernel parameter;
    - `fa4.mma.async`: `wgmma.fence`, one `wgmma.mma_async` per k16 step with
      shared-memory descriptors (128-byte swizzle), the register-A form
      through inline PTX, `wgmma.commit_group`; `fa4.mma.wait`:
      `wgmma.wait_group` that re-defines the accumulators it covers;
    - named barriers: `bar.sync` / `bar.arrive`, or, in a module that
      fa4-instrument-hangs marked, an mbarrier per barrier id (static shared
      memory, initialised at kernel entry) that every thread arrives on,
      with a bounded wait for `sync`;
    - waits marked `fa4.hang_site`: the try-wait in a loop that reads
      `clock64` and, after 2^30 cycles, calls `fa4_report_hang`: the first
      thread to time out (`fa4_hang_claim`) writes the site, stage, phase,
      block, thread and cycles to the host buffer whose address the runtime
      put in `fa4_hang_report`, fences and traps; the site table is the
      NUL-separated string `fa4_hang_sites`;
    - global stores: each
      thread's pairs, rows past the limit masked;
    - kernels (`fa4.kernel`): `llvm.func` with `nvvm.kernel`, `nvvm.maxntid`
      from `fa4.threads` and the register count at entry as `nvvm.maxnreg`
      (so that ptxas honours setmaxnreg), f32 denormals flushed to zero (as
      CUDA's fast math: `ex2.approx.ftz`), and arith, math, vector, cf and
      func converted alongside; `math.rsqrt` with `afn` as rsqrt.approx, and
      `math.erf`, which NVPTX has no instruction for, first expanded into
      MLIR's polynomial approximation (arith, math and vector ops).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def FA4InstrumentHangs : Pass<"fa4-instrument-hangs", "ModuleOp"> {
  let summary = "mark the barrier waits of kernels planned with debug_hangs";
  let description = [{
    For each kernel whose `#fa4.config` says `debug_hangs = true`, numbers
    every wait that can hang (`fa4.producer.acquire` and `fa4.consumer.wait`
    on a pipeline's empty and full barriers, `fa4.named_barrier.sync`) with
    `fa4.hang_site = N`, and records on the module, in `fa4.hang_sites`, what
    site N is: `role|first thread|barrier|stage|location`, e.g.
    `consumer|128|the k pipeline's full barrier|1|Attention.cpp:118` (stage
    1: the wait has a stage and phase). `fa4.named_barrier.arrive` ops are
    marked too, since the lowering then builds every named barrier of the
    kernel from an mbarrier, whose wait can be bounded. convert-fa4-to-nvvm
    lowers the marked ops to waits that give up after 2^30 cycles and report
    the site. Runs on warp-specialized kernels with explicit pipeline states,
    before fa4-lower-warp-roles; kernels planned without the flag are left
    as they are.
  }];
}

def FA4LowerWarpRoles : Pass<"fa4-lower-warp-roles", "ModuleOp"> {
  let summary = "dispatch warp roles on the warp id, with setmaxnreg per role";
  let description = [{
    Replaces each `fa4.warp_specialize` by one `scf.if` per role on the
    calling warp's id: role i runs on warps [start_i, start_i + warps_i) and
    first moves its register budget from the kernel's count at entry (the
    register file shared evenly by the block's threads, a multiple of 8)
    with `setmaxnreg`; a producer role then continues on its first warp
    only. `fa4.warpgroup_id` becomes the warpgroup index within the role.
    The kernel records its thread count as `fa4.threads` for the launch
    bounds that convert-fa4-to-nvvm declares. A kernel marked
    `fa4.programmatic_launch` starts every role (or itself, without roles)
    with `griddepcontrol.launch_dependents` and `griddepcontrol.wait`,
    before any global access, and a compiler barrier after them.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // FA4_CONVERSION_PASSES_TD

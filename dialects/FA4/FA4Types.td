//===- FA4Types.td - fa4 types -----------------------------*- tablegen -*-===//
//
// The types of the fa4 dialect: a producer/consumer pipeline that knows its kv
// and qk stage counts and the tiles of one stage, the state that walks it, and
// the TMA tensor map a kernel receives as a parameter.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TYPES_TD
#define FA4_TYPES_TD

include "FA4/FA4Attrs.td"

def FA4_PipelineType : FA4_Type<"Pipeline", "pipeline"> {
  let summary = "a TMA producer/consumer pipeline over staged mbarriers";
  let description = [{
    A ring of `kv` stages, each split into `qk` sub-stages, each sub-stage
    holding one buffer per listed tile type (shared-memory memrefs, address
    space 3). Its mbarriers form one flat array: `kv * qk` producer ("full")
    barriers, then as many consumer ("empty") barriers; the full barrier of
    (stage, qk) is `qk_stages * stage + qk`, its empty barrier that plus
    `kv * qk`.

    The kind says what the pipeline carries: K pipelines may be staged over
    the head dimension (`qk > 1`); V pipelines are always complete (`qk = 1`).
    A schedule pipeline's stage holds `i32` slots instead of tiles (the
    coordinates of a persistent kernel's next tile, which a producer thread
    writes with `fa4.producer.put`).

    ```mlir
    !fa4.pipeline<k, kv = 3, qk = 2, memref<128x64xbf16, 3>>
    !fa4.pipeline<operand, kv = 4, qk = 1, memref<128x64xbf16, 3>, memref<128x64xbf16, 3>>
    !fa4.pipeline<schedule, kv = 2, qk = 1, i32, i32>
    ```
  }];
  let parameters = (ins EnumParameter<FA4_PipelineKind>:$kind,
                        "int64_t":$kv_stages, "int64_t":$qk_stages,
                        ArrayRefParameter<"Type">:$tiles);
  let assemblyFormat = [{
    `<` $kind `,` `kv` `=` $kv_stages `,` `qk` `=` $qk_stages `,` $tiles `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tile buffers as memref types (not of a schedule pipeline, whose
    /// stage is an i32 slot).
    MemRefType getTile(unsigned index) const {
      return ::llvm::cast<MemRefType>(getTiles()[index]);
    }
    /// Bytes of every tile of one (stage, qk) sub-stage: what the producer's
    /// expect-tx announces when it loads them all.
    int64_t getSubStageBytes() const;
    /// Arrivals that fill a sub-stage: the elected expect-tx of each tile's
    /// load, or a schedule stage's one put.
    int64_t getFullArrivals() const {
      return getKind() == PipelineKind::schedule ? 1 : getTiles().size();
    }
    /// Total number of mbarriers (full and empty).
    int64_t getNumBarriers() const { return 2 * getKvStages() * getQkStages(); }

    /// Layout of the pipeline's region of shared memory: the buffers of
    /// sub-stage (stage, qk) follow each other in the order
    /// `stage * qk_stages + qk`, each tile aligned to the 1024 bytes of a
    /// 128-byte swizzle pattern (a schedule pipeline's slots packed, each
    /// stage rounded up to the 8 bytes of an mbarrier); the mbarriers
    /// follow the buffers.
    static constexpr int64_t kTileAlignment = 1024;
    static constexpr int64_t kBarrierBytes = 8;
    /// Whether the region needs no 1024-byte alignment: a schedule
    /// pipeline's, which fa4-allocate-shared-memory places in the padding
    /// of another region.
    bool isSlotPipeline() const {
      return getKind() == PipelineKind::schedule;
    }
    int64_t getTileOffset(unsigned tile) const;
    int64_t getSubStageStride() const;
    int64_t getBarrierOffset() const;
    int64_t getRegionBytes() const;
  }];
}

def FA4_PipelineStateType : FA4_Type<"PipelineState", "pipeline_state"> {
  let summary = "the position of one side in a pipeline: stage index and phase";
  let description = [{
    A value of this type is where a producer or a consumer stands in its
    pipeline: the stage index and the phase bit of the barriers it waits on.
    `fa4.pipeline.start` makes the first one and `fa4.pipeline.step` the
    next, so that loops carry the state as an ordinary `iter_args` value.

    ```mlir
    !fa4.pipeline_state
    ```
  }];
}

def FA4_TensorMapType : FA4_Type<"TensorMap", "tensor_map"> {
  let summary = "a TMA tensor map: element type, box and swizzle";
  let description = [{
    The handle of a TMA tensor map (`CUtensorMap`), passed to the kernel by
    value. The type fixes what the compiler must know: the element type, the
    box that one copy moves (outermost dimension first, like a memref shape)
    and the swizzle in bytes (0 for none, 32, 64 or 128). The global shape and
    strides are run-time values of the tensor map itself.

    The verifier checks the TMA box rules: every box dimension in [1, 256],
    the inner extent a multiple of 16 bytes and, when swizzled, at most the
    swizzle span.

    ```mlir
    !fa4.tensor_map<bf16, box = [128, 64], swizzle = 128>
    ```
  }];
  let parameters = (ins "Type":$element_type,
                        ArrayRefParameter<"int64_t">:$box, "int64_t":$swizzle);
  let assemblyFormat = [{
    `<` $element_type `,` `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `>`
  }];
  let genVerifyDecl = 1;
}

#endif // FA4_TYPES_TD

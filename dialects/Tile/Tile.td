//===- Tile.td - the tile dialect --------------------------*- tablegen -*-===//
//
// The tile dialect: the Triton-style level of fa4. A kernel is a block-level
// program on ranked tensors: program ids, tensor descriptors over global
// memory, tile loads and stores at tile coordinates, dot, reductions along an
// axis, broadcasts, exp2, iota and splat. Elementwise math comes from upstream
// arith and math on ranked tensors, loops from scf.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TD
#define TILE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::fa4::tile";
  let summary = "Triton-style block-level tile programs";
  let description = [{
    A tile program says what one program instance (one CTA) computes, in
    tiles: it reads blocks of global tensors through descriptors, combines
    them with `tile.dot`, reductions, broadcasts and elementwise math, and
    writes blocks back. How the tiles are spread over threads, staged through
    shared memory and pipelined is the job of fa4's passes, driven by a
    `#fa4.config`.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Tile_PointerType : Tile_Type<"Pointer", "ptr"> {
  let summary = "a pointer to global memory holding elements of one type";
  let description = [{
    The base address of a global tensor, as a kernel receives it.

    ```mlir
    !tile.ptr<bf16>
    ```
  }];
  let parameters = (ins "Type":$element_type);
  let assemblyFormat = "`<` $element_type `>`";
}

def Tile_DescriptorType : Tile_Type<"Descriptor", "desc"> {
  let summary = "a tensor descriptor: a global tensor read and written in blocks";
  let description = [{
    A global tensor (base, shape and strides, known at run time) seen as a
    grid of blocks of a fixed shape. Loads and stores name a block by its
    tile coordinates: block (i, j) starts at element (i * rows, j * cols).

    ```mlir
    !tile.desc<128x64xbf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$block_shape,
                        "Type":$element_type);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tensor type of one block.
    RankedTensorType getBlockType() const {
      return RankedTensorType::get(getBlockShape(), getElementType());
    }
  }];
}

def Tile_ReduceKind : I32Enum<"ReduceKind", "how a reduction combines", [
    I32EnumCase<"max", 0>,
    I32EnumCase<"sum", 1>]> {
  let cppNamespace = "::mlir::fa4::tile";
}

def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_FloatTensor : RankedTensorOf<[AnyFloat]>;

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "the index of this program instance along a grid dimension";
  let description = [{
    The position of this program instance in the launch grid along dimension
    `dim` (0, 1 or 2), like Triton's `tl.program_id`.

    ```mlir
    %m = tile.program_id 0
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$id);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "the number of program instances along a grid dimension";
  let description = [{
    The size of the launch grid along dimension `dim` (0, 1 or 2).

    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$count);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Descriptors, loads and stores
//===----------------------------------------------------------------------===//

def Tile_MakeDescOp : Tile_Op<"make_desc", [Pure, AttrSizedOperandSegments]> {
  let summary = "describe a global tensor for block loads and stores";
  let description = [{
    A descriptor over the global tensor at `base` with the given shape and
    strides (in elements, outermost first); its type fixes the block shape.
    The innermost stride must be 1 at run time (checked by the runtime).

    ```mlir
    %d = tile.make_desc %q, [%rows, %c128], [%c128, %c1] : !tile.ptr<bf16> -> !tile.desc<128x128xbf16>
    ```
  }];
  let arguments = (ins Tile_PointerType:$base, Variadic<Index>:$shape,
                       Variadic<Index>:$strides);
  let results = (outs Tile_DescriptorType:$desc);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` qualified(type($base))
    `->` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "load one block of a descriptor at tile coordinates";
  let description = [{
    Reads block (`coords`) of the descriptor's tensor, one coordinate per
    dimension in units of the block shape. With `elements` the coordinates
    are element offsets instead, so that a block may start at any row (a
    packed sequence's first token). Elements past the tensor's edge read as
    zero. The tile has the block's shape, or that shape without its leading
    1s (a `1x128x64` block of a `[B·H, S, D]` tensor loads a `128x64` tile).

    With N coordinate groups (N times the descriptor's rank), the load
    gathers N blocks, each at its own coordinates, stacked along the
    block's rows (its second-to-last dimension): the tile has N times the
    block's rows, block i's rows after block i - 1's. A key block of a paged
    KV cache is read so, a page's run of keys at a time.

    ```mlir
    %k = tile.load %kd[%j, %c0] : !tile.desc<128x128xbf16> -> tensor<128x128xbf16>
    %q = tile.load %qd[%h, %row, %c0] elements : !tile.desc<1x128x64xbf16> -> tensor<128x64xbf16>
    %kp = tile.load %pages[%p0, %h, %c0, %c0, %p1, %h, %c0, %c0] : !tile.desc<1x1x64x128xbf16> -> tensor<128x128xbf16>
    ```
  }];
  let arguments = (ins Tile_DescriptorType:$desc, Variadic<Index>:$coords,
                       UnitAttr:$elements);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $coords `]` (`elements` $elements^)? attr-dict `:`
    qualified(type($desc)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store one block of a descriptor at tile coordinates";
  let description = [{
    Writes `value` to block (`coords`) of the descriptor's tensor; with
    `elements` the coordinates are element offsets, as for loads. Elements
    past the tensor's edge are not written. As for loads, the tile may drop
    the block's leading 1s. With `add` each element is added to the one in
    memory atomically (f32 only): many programs may add into one block, as
    the CTAs of an attention backward add their parts of dQ (Triton's
    `tl.atomic_add`); the order of the adds is not fixed.

    ```mlir
    tile.store %o, %od[%m, %c0] : tensor<128x128xbf16>, !tile.desc<128x128xbf16>
    tile.store %dq, %acc[%m, %c0] add : tensor<128x128xf32>, !tile.desc<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_DescriptorType:$desc,
                       Variadic<Index>:$coords, UnitAttr:$elements,
                       UnitAttr:$add);
  let assemblyFormat = [{
    $value `,` $desc `[` $coords `]` (`elements` $elements^)? (`add` $add^)?
    attr-dict `:` type($value) `,` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def Tile_LoadScalarOp : Tile_Op<"load_scalar", [MemoryEffects<[MemRead]>,
    TypesMatchWith<"the result is of the pointer's element type", "base",
                   "result",
                   "::llvm::cast<PointerType>($_self).getElementType()">]> {
  let summary = "read one element of a global tensor";
  let description = [{
    Element `index` of the global tensor at `base`: a value that decides the
    program's extents at run time, such as the first token of a packed
    sequence (`cu_seqlens[b]`). Integer and float elements only.

    ```mlir
    %start = tile.load_scalar %cu_seqlens[%b] : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PointerType:$base, Index:$index);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $base `[` $index `]` attr-dict `:` qualified(type($base))
  }];
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product accumulated into a tile";
  let description = [{
    `result = acc + a · b` for `a` of shape M x K, `b` of shape K x N and an
    M x N accumulator, with the accumulation in the accumulator's type.

    ```mlir
    %s = tile.dot %q, %kt, %zero : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyFloat]>:$a,
                       RankedTensorOf<[AnyFloat]>:$b,
                       RankedTensorOf<[AnyFloat]>:$acc);
  let results = (outs RankedTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "transpose a 2-d tile";
  let description = [{
    Swaps the two dimensions of a tile, as `tl.trans` does; used to write
    Q·Kᵀ as `tile.dot` of Q and the transposed K tile.

    ```mlir
    %kt = tile.trans %k : tensor<64x128xbf16> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis (max or sum)";
  let description = [{
    Combines the elements of `src` along `axis` with `max` or `sum`; the
    result has that dimension removed (a row maximum of an M x N tile along
    axis 1 is an M-element tile).

    ```mlir
    %m = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins EnumProp<Tile_ReduceKind>:$kind, Tile_FloatTensor:$src,
                       I64Attr:$axis);
  let results = (outs Tile_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $src `axis` $axis attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat a tile along a new axis";
  let description = [{
    The inverse shape of a reduction: inserts dimension `axis` into the
    result, every slice along it a copy of `src` (a row vector of M elements
    broadcast along axis 1 to M x N).

    ```mlir
    %mb = tile.broadcast %m axis 1 : tensor<128xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I64Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src `axis` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_Exp2Op : Tile_Op<"exp2", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise 2^x";
  let description = [{
    Elementwise base-2 exponential, the exponential of the online softmax.
    It lowers to the hardware unit (`ex2.approx.ftz.f32`), within bf16
    rounding of the exact value. (FA4's polynomial on the FMA units was
    measured slower on sm_90a at head dim 64: bench/RESULTS.md.)

    ```mlir
    %p = tile.exp2 %x : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatTensor:$src);
  let results = (outs Tile_FloatTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "a tile holding each element's index along one axis";
  let description = [{
    Element (i0, i1, ...) holds `i_axis`: the building block of masks
    (compare key indices with query indices, or with the sequence length).

    ```mlir
    %cols = tile.iota axis 1 : tensor<128x64xi32>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs RankedTensorOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "`axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"the scalar is of the tile's element type", "result",
                   "value", "::llvm::cast<ShapedType>($_self).getElementType()">]> {
  let summary = "a tile with every element equal to one scalar";
  let description = [{
    A tile of the result's shape and layout whose every element is `value`,
    a scalar of the tile's element type: a kernel argument (the softmax
    scale) or an index (a block's first key) used elementwise.

    ```mlir
    %scale = tile.splat %sm_scale : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyType:$value);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

#endif // TILE_TD

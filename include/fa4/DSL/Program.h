//===- Program.h - a kernel being written in the DSL ------------*- C++ -*-===//
//
// `Program` owns the module of one tile-level kernel while the DSL builds
// it: the kernel's arguments, the ops that need no operand (program ids,
// constant tiles, iotas, descriptors), counted loops with loop-carried tiles
// and conditionals with tile results. It records whether any call failed and
// gives the verified module, or nothing, at the end.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DSL_PROGRAM_H
#define FA4_DSL_PROGRAM_H

#include "fa4/DSL/Values.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace fa4::dsl {

/// The tiles a loop carries or a conditional gives, for structured bindings:
/// `auto [m, l, acc] = p.forLoop(...)`.
template <size_t N> using Tiles = std::array<Tile, N>;

namespace detail {
/// How many tiles a loop body or a branch returns: a `Tile` or `Tiles<N>`.
template <typename T> struct TileCount { static constexpr size_t value = 0; };
template <> struct TileCount<Tile> { static constexpr size_t value = 1; };
template <size_t N> struct TileCount<std::array<Tile, N>> {
  static constexpr size_t value = N;
};

inline void assignTiles(llvm::MutableArrayRef<Tile> out, const Tile &tile) {
  out[0] = tile;
}
template <size_t N>
void assignTiles(llvm::MutableArrayRef<Tile> out, const Tiles<N> &tiles) {
  std::copy(tiles.begin(), tiles.end(), out.begin());
}
} // namespace detail

/// One kernel being written: a `func.func` with the `fa4.kernel` attribute
/// in a module of its own. Declare the arguments in order, compute with the
/// handles they give (Ops.h), then `finish`.
///
/// Every op carries the author's file and line as a `FileLineColLoc` and is
/// verified when built: a mistake the tile dialect's verifiers catch (a dot
/// of mismatched shapes, a load with the wrong number of coordinates) is
/// reported at the author's line through the context's diagnostic engine, as
/// are the DSL's own checks (shapes of elementwise operands, broadcasts);
/// with a `SourceMgrDiagnosticHandler` on the context they print as
/// `FILE:LINE:COL: error: ...` followed by the author's line. Nothing a
/// program does makes the DSL crash: a failed call gives an invalid handle,
/// later calls on it give invalid handles without more errors, and `finish`
/// gives no module.
class Program {
public:
  /// Start the kernel `name` in a module of its own; loads the dialects the
  /// DSL builds (tile, arith, math, scf, func) into `context`.
  Program(mlir::MLIRContext *context, llvm::StringRef name,
          SourceLoc loc = SourceLoc::current());
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program();

  //===--------------------------------------------------------------------===//
  // Kernel arguments, in order; each gets `fa4.name = "<name>"`.
  //
  // With the grid (`grid`), they are the kernel's launch description: the
  // kernel file says which tensor each argument is made from, so that a
  // runtime launches the kernel from the caller's tensors by name
  // (fa4/Runtime/Binding.h). A descriptor views a tensor named like the
  // argument (an input, an output when the kernel stores through it), of
  // the rank of its block; a pointer with a shape points to a contiguous
  // output tensor; an index with a value is a size of them.
  //===--------------------------------------------------------------------===//

  /// A `!tile.desc<BLOCKxT>` argument over the tensor `name` (an input, or
  /// an output when the program stores through it: a TMA store), whose
  /// dimensions, when `shape` is given, must be those extents (`Extent::any()`
  /// for one that is free).
  Desc desc(llvm::StringRef name, llvm::ArrayRef<int64_t> blockShape,
            DType type, llvm::ArrayRef<Extent> shape = {},
            SourceLoc loc = SourceLoc::current());
  /// A `!tile.ptr<T>` argument. With `shape`, it points to the contiguous
  /// tensor `name` of that shape, an output, or an input when the kernel
  /// only reads scalars through it (`load(ptr, i)`); without, the caller
  /// gives the address.
  Ptr ptr(llvm::StringRef name, DType type, llvm::ArrayRef<Extent> shape = {},
          SourceLoc loc = SourceLoc::current());
  /// An `index` argument, which the caller gives, or which the launch
  /// computes as `value` (e.g. `q.dim(1)`).
  Index index(llvm::StringRef name, SourceLoc loc = SourceLoc::current());
  Index index(llvm::StringRef name, const Extent &value,
              SourceLoc loc = SourceLoc::current());
  /// An `f32` argument.
  Scalar f32(llvm::StringRef name, SourceLoc loc = SourceLoc::current());
  /// An `i32` argument.
  Scalar i32(llvm::StringRef name, SourceLoc loc = SourceLoc::current());

  /// The grid the kernel is launched on, one to three extents (the rest are
  /// 1), e.g. `{cdiv(q.dim(1), 128), q.dim(0)}`.
  void grid(llvm::ArrayRef<Extent> dims, SourceLoc loc = SourceLoc::current());
  /// How many (y, z) programs of the grid a persistent kernel with a
  /// dynamic schedule runs together, the pairs varying fastest within a
  /// group and x slowest, e.g. the heads whose K and V fit in L2 (without
  /// it: 1, all of one (y, z) before the next).
  void gridGroup(const Extent &size, SourceLoc loc = SourceLoc::current());
  /// A condition a launch must meet, e.g. `n % 128 == 0`; a launch where it
  /// is 0 is refused with the condition and its values.
  void require(const Extent &condition, SourceLoc loc = SourceLoc::current());
  /// Launch the kernel programmatically (CUDA's programmatic dependent
  /// launch): it may start while the kernel before it in its stream
  /// finishes, waiting for that kernel's memory before it touches global
  /// memory, and lets the kernel after it start the same way. Kernels that
  /// follow one another closely gain their launch and setup, such as a
  /// split computation's parts and their combine.
  void programmaticLaunch(SourceLoc loc = SourceLoc::current());

  //===--------------------------------------------------------------------===//
  // Values without operands
  //===--------------------------------------------------------------------===//

  /// This program instance's position along grid dimension `dim`
  /// (`tile.program_id`), and the grid's size (`tile.num_programs`).
  Index programId(int64_t dim, SourceLoc loc = SourceLoc::current());
  Index numPrograms(int64_t dim, SourceLoc loc = SourceLoc::current());

  /// A tile of `shape` and `type` holding `value` everywhere (an
  /// `arith.constant` dense splat), and one holding zeros.
  Tile full(llvm::ArrayRef<int64_t> shape, double value, DType type,
            SourceLoc loc = SourceLoc::current());
  Tile zeros(llvm::ArrayRef<int64_t> shape, DType type,
             SourceLoc loc = SourceLoc::current());
  /// An i32 tile of `shape` whose elements hold their index along `axis`
  /// (`tile.iota`).
  Tile iota(llvm::ArrayRef<int64_t> shape, int64_t axis,
            SourceLoc loc = SourceLoc::current());

  /// A descriptor over the global tensor at `base` with the given sizes and
  /// strides in elements, read and written in blocks of `blockShape`
  /// (`tile.make_desc`).
  Desc makeDesc(const Ptr &base, llvm::ArrayRef<IndexArg> shape,
                llvm::ArrayRef<IndexArg> strides,
                llvm::ArrayRef<int64_t> blockShape,
                SourceLoc loc = SourceLoc::current());

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// A counted loop `for j in [lo, hi) step step` carrying tiles (`scf.for`
  /// with `iter_args`). `body` is called once, with the induction variable
  /// and one `Tile` parameter per carried tile, and returns their next
  /// values (a `Tile`, or `Tiles<N>`); the loop gives their final values:
  ///
  ///   auto [m, l] = p.forLoop(0, n, 1, {m0, l0},
  ///                           [&](Index j, Tile m, Tile l) -> Tiles<2> {
  ///                             ...
  ///                             return {mNext, lNext};
  ///                           });
  template <size_t N, typename Body>
  Tiles<N> forLoop(IndexArg lo, IndexArg hi, IndexArg step,
                   const Tile (&init)[N], Body &&body,
                   SourceLoc loc = SourceLoc::current()) {
    Tiles<N> results;
    buildFor(
        lo, hi, step, init, results,
        [&](const Index &iv, llvm::ArrayRef<Tile> carried,
            llvm::MutableArrayRef<Tile> next) {
          Tiles<N> args;
          std::copy(carried.begin(), carried.end(), args.begin());
          auto yielded = std::apply(
              [&](const auto &...tiles) { return body(iv, tiles...); }, args);
          static_assert(detail::TileCount<decltype(yielded)>::value == N,
                        "the loop body returns one tile per carried tile");
          detail::assignTiles(next, yielded);
        },
        loc);
    return results;
  }

  /// A counted loop carrying as many tiles as `init` holds, a number the
  /// program decides as it builds (say, the accumulators it needs):
  /// `body` takes the induction variable and the carried tiles and returns
  /// their next values, one per carried tile; the loop gives their final
  /// values.
  ///
  ///   SmallVector<Tile> accs = p.forLoop(0, n, 1, inits,
  ///       [&](const Index &j, ArrayRef<Tile> accs) { ... return next; });
  llvm::SmallVector<Tile>
  forLoop(IndexArg lo, IndexArg hi, IndexArg step, llvm::ArrayRef<Tile> init,
          llvm::function_ref<llvm::SmallVector<Tile>(const Index &,
                                                     llvm::ArrayRef<Tile>)>
              body,
          SourceLoc loc = SourceLoc::current());

  /// A counted loop that carries no tile, for what its body stores:
  /// `body` takes the induction variable and returns nothing.
  ///
  ///   p.forLoop(0, ceilDiv(n, 128), 1, [&](Index c) {
  ///     store(y, {i, c}, load(x, {i, c}) * 2.0);
  ///   });
  template <typename Body>
  void forLoop(IndexArg lo, IndexArg hi, IndexArg step, Body &&body,
               SourceLoc loc = SourceLoc::current()) {
    static_assert(std::is_void_v<decltype(body(std::declval<Index>()))>,
                  "a loop without carried tiles returns nothing");
    buildFor(
        lo, hi, step, {}, {},
        [&](const Index &iv, llvm::ArrayRef<Tile>,
            llvm::MutableArrayRef<Tile>) { body(iv); },
        loc);
  }

  /// A conditional with tile results (`scf.if`): `thenBody` and `elseBody`
  /// take nothing and return tiles of the same types, a `Tile` or a
  /// `Tiles<N>`, which `ifElse` returns:
  ///
  ///   Tile s = p.ifElse(needsMask, [&] { return where(...); },
  ///                     [&] { return s; });
  template <typename Then, typename Else>
  auto ifElse(const Bool &cond, Then &&thenBody, Else &&elseBody,
              SourceLoc loc = SourceLoc::current()) {
    using Result = std::decay_t<decltype(thenBody())>;
    constexpr size_t n = detail::TileCount<Result>::value;
    static_assert(n > 0, "a branch returns a Tile or Tiles<N>");
    static_assert(std::is_same_v<Result, std::decay_t<decltype(elseBody())>>,
                  "both branches return the same number of tiles");
    Tiles<n> results;
    buildIf(
        cond,
        [&](llvm::MutableArrayRef<Tile> out) {
          detail::assignTiles(out, thenBody());
        },
        [&](llvm::MutableArrayRef<Tile> out) {
          detail::assignTiles(out, elseBody());
        },
        results, loc);
    if constexpr (std::is_same_v<Result, Tile>)
      return results[0];
    else
      return results;
  }

  //===--------------------------------------------------------------------===//
  // The result
  //===--------------------------------------------------------------------===//

  /// End the kernel with `func.return` and verify the module: the module, or
  /// null when a call failed or the module does not verify (the errors were
  /// reported). The program builds nothing more after this.
  mlir::OwningOpRef<mlir::ModuleOp>
  finish(SourceLoc loc = SourceLoc::current());

  /// Whether a call failed.
  bool hasFailed() const { return hadError; }

  //===--------------------------------------------------------------------===//
  // The building blocks of the DSL's functions
  //===--------------------------------------------------------------------===//

  mlir::MLIRContext *getContext() const { return builder.getContext(); }
  mlir::OpBuilder &getBuilder() { return builder; }
  /// The `FileLineColLoc` of `loc`.
  mlir::Location getLocation(SourceLoc loc);
  /// The MLIR type of `type`.
  mlir::Type getType(DType type);
  /// Report an error of the DSL at the author's line; the program fails.
  mlir::InFlightDiagnostic emitError(SourceLoc loc);
  /// Verify `op` (not its regions' ops, verified when built); on failure,
  /// the verifier has reported at the op's location and the program fails.
  bool verify(mlir::Operation *op);

  /// Build `OpT` at the author's line and verify it.
  template <typename OpT, typename... Args>
  OpT create(SourceLoc loc, Args &&...args) {
    auto op =
        OpT::create(builder, getLocation(loc), std::forward<Args>(args)...);
    verify(op.getOperation());
    return op;
  }

  /// An `arith.constant` of `value`: one per value, at the start of the
  /// kernel, located where the author first used it.
  mlir::Value getConstant(mlir::TypedAttr value, SourceLoc loc);
  /// The value of an index operand; null for an invalid handle.
  mlir::Value getIndex(const IndexArg &arg);

private:
  using LoopBody =
      llvm::function_ref<void(const Index &iv, llvm::ArrayRef<Tile> carried,
                              llvm::MutableArrayRef<Tile> next)>;
  using Branch = llvm::function_ref<void(llvm::MutableArrayRef<Tile> out)>;

  /// Add a kernel argument of `type` named `name`, with further argument
  /// attributes `attrs`.
  mlir::Value addArgument(llvm::StringRef name, mlir::Type type, SourceLoc loc,
                          llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// The `fa4.shape` attribute of `shape`; fails (reported) when an extent
  /// is not a launch rule.
  std::optional<mlir::NamedAttribute> shapeAttr(llvm::ArrayRef<Extent> shape,
                                                SourceLoc loc);
  /// Whether `rule` is a launch rule that reads only this kernel's arguments
  /// so far; reports at `loc` when not.
  bool checkRule(const Extent &rule, llvm::StringRef what, SourceLoc loc);
  void buildFor(const IndexArg &lo, const IndexArg &hi, const IndexArg &step,
                llvm::ArrayRef<Tile> init, llvm::MutableArrayRef<Tile> results,
                LoopBody body, SourceLoc loc);
  void buildIf(const Bool &cond, Branch thenBody, Branch elseBody,
               llvm::MutableArrayRef<Tile> results, SourceLoc loc);

  mlir::OpBuilder builder;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp kernel;
  /// The constants of the kernel, by value, and the last of them.
  llvm::DenseMap<mlir::Attribute, mlir::Value> constants;
  mlir::Operation *lastConstant = nullptr;
  /// The launch rules given by `require`.
  llvm::SmallVector<mlir::Attribute> requirements;
  bool hadError = false;
};

} // namespace fa4::dsl

#endif // FA4_DSL_PROGRAM_H

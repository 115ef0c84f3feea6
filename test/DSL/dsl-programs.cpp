//===- dsl-programs.cpp - the DSL's programs and its errors ---------------===//
//
// The driver behind the DSL lit tests. `attention-hd64`, `attention-hd128`,
// `attention-hd256` (and their `-f16` variants), the backward's preprocess
// `attention-bwd-preprocess-hd<D>[-f16]`, its postprocess
// `attention-bwd-postprocess-hd<D>[-f16]`, its main kernels
// `attention-bwd-(dq|dkdv|dk|dv|main)-hd<D>[...]`, `gemm`, `split-sum` (atomic
// adds across programs), `attention-chunked` (attention with an author's
// mask mod and key ranges), `attention-bias[-softcap]` (with an additive
// bias), `softmax-n<N>[-f16]`, `elementwise-math` (the
// DSL's exp, log, sqrt, rsqrt, erf and abs), `fill` (a kernel that loads
// no tile) and `pair-mask` (i32 vectors combined as a column and a row)
// print the module
// of a reference program with its locations. `errors` builds small broken
// programs and lets their diagnostics print, then says for each that it gave
// no module; errors.test runs FileCheck on this file, whose ERR lines sit
// next to the statements they expect at, so that each diagnostic must name
// this file and the exact line.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/DSL.h"
#include "fa4/DSL/Programs.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <tuple>
#include <utility>

using namespace fa4::dsl;

//===----------------------------------------------------------------------===//
// Broken programs
//===----------------------------------------------------------------------===//

/// Finish `program` and say whether it gave a module: a broken one must not.
static bool refused(Program &program, const char *name) {
  bool built = static_cast<bool>(program.finish());
  llvm::errs() << name << ": " << (built ? "module" : "no module") << "\n";
  return !built;
}

// The ERR lines stay whole, each above the line it expects.
// clang-format off
static int runErrors(mlir::MLIRContext *context) {
  bool ok = true;
  {
    Program p(context, "dot_shapes");
    Tile a = load(p.desc("a", {128, 64}, bf16), {0, 0});
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: 'tile.dot' op dot of 128x64 and 128x64: contraction sizes 64 and 128 differ
    Tile s = dot(a, a, p.zeros({128, 64}, f32));
    // Later uses of the invalid product report nothing more.
    store(p.desc("s", {128, 64}, f32), {0, 0}, exp2(s));
    // ERR: dot-shapes: no module
    ok &= refused(p, "dot-shapes");
  }
  {
    Program p(context, "load_rank");
    Desc q = p.desc("q", {1, 128, 64}, bf16);
    Index m = p.programId(0);
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: 'tile.load' op loading a 3-d descriptor takes 3 tile coordinates (one per dimension), got 2
    load(q, {m, 0});
    // ERR: load-rank: no module
    ok &= refused(p, "load-rank");
  }
  {
    Program p(context, "elementwise_shapes");
    Tile a = p.zeros({128, 64}, f32), b = p.zeros({64, 64}, f32);
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: '+' of 'tensor<128x64xf32>' and 'tensor<64x64xf32>' tiles: the shapes differ
    Tile c = a + b;
    store(p.desc("c", {128, 64}, f32), {0, 0}, exp2(c * 2.0));
    // ERR: elementwise-shapes: no module
    ok &= refused(p, "elementwise-shapes");
  }
  {
    Program p(context, "broadcast_rank");
    Tile s = p.zeros({128, 64}, f32);
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: col() of 'tensor<128x64xf32>': only 1-d tiles broadcast as a column or a row
    s - s.col();
    // ERR: broadcast-rank: no module
    ok &= refused(p, "broadcast-rank");
  }
  {
    Program p(context, "column_length");
    Tile s = p.zeros({128, 64}, f32), m = p.zeros({64}, f32);
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: '-' of 'tensor<128x64xf32>' and a column of 64 elements: the tile has 128 rows
    s - m.col();
    // ERR: column-length: no module
    ok &= refused(p, "column-length");
  }
  {
    Program p(context, "outer_axes");
    Tile a = p.zeros({128}, f32), b = p.zeros({64}, f32);
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: '==' of two columns ('tensor<128xf32>' and 'tensor<64xf32>'): a column (`a.col()`) and a row (`b.row()`) of 1-d tiles span a 2-d tile
    (void)(a.col() == b.col());
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: '+' of 'tensor<128x64xf32>' and a row of 'tensor<64xi32>': the element types differ
    a.col() + p.iota({64}, 0).row();
    // ERR: outer-axes: no module
    ok &= refused(p, "outer-axes");
  }
  {
    Program p(context, "scalar_type");
    Scalar flag = p.i32("flag");
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: '*' of 'tensor<128xf32>' and a scalar of 'i32': the element types differ
    p.zeros({128}, f32) * flag;
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: the number 0.5 is not a value of 'i32'
    p.iota({128}, 0) + 0.5;
    // ERR: scalar-type: no module
    ok &= refused(p, "scalar-type");
  }
  {
    Program p(context, "reduce_axis");
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: 'tile.reduce' op axis 2 is out of range for a 2-d tile
    sum(p.zeros({128, 64}, f32), 2);
    // ERR: reduce-axis: no module
    ok &= refused(p, "reduce-axis");
  }
  {
    Program p(context, "branch_types");
    Bool flag = p.index("n") > 0;
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: the branches give 'tensor<128xf32>' and 'tensor<64xf32>' for result #0
    p.ifElse(flag, [&] { return p.zeros({128}, f32); },
             [&] { return p.zeros({64}, f32); });
    // ERR: branch-types: no module
    ok &= refused(p, "branch-types");
  }
  {
    Program p(context, "loop_types");
    Index n = p.index("n");
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: the loop body gives 'tensor<128xbf16>' for carried tile #0 of type 'tensor<128xf32>'
    p.forLoop(0, n, 1, {p.zeros({128}, f32)},
              [&](Index, Tile acc) { return acc.to(bf16); });
    // ERR: loop-types: no module
    ok &= refused(p, "loop-types");
  }
  {
    Program p(context, "loop_count");
    Index n = p.index("n");
    llvm::SmallVector<Tile> accs = {p.zeros({128}, f32), p.zeros({64}, f32)};
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: the loop body gives 1 tile for 2 carried tiles
    p.forLoop(0, n, 1, accs, [&](const Index &, llvm::ArrayRef<Tile> carried) {
      return llvm::SmallVector<Tile>{carried.front()};
    });
    // ERR: loop-count: no module
    ok &= refused(p, "loop-count");
  }
  {
    Program p(context, "math_type");
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: rsqrt takes a float tile, got 'tensor<128x64xi32>'; convert it first (`t.to(f32)`)
    Tile r = rsqrt(p.iota({128, 64}, 1));
    store(p.desc("y", {128, 64}, f32), {0, 0}, exp(r));
    // ERR: math-type: no module
    ok &= refused(p, "math-type");
  }
  {
    Program p(context, "index_type");
    Ptr scale = p.ptr("scale", f32, {1});
    // ERR: dsl-programs.cpp:[[@LINE+1]]:{{[0-9]+}}: error: reading an index through a pointer to 'f32': index reads take i32 tensors (loadScalar reads a value of any float type)
    Index k = load(scale, 0);
    store(p.desc("y", {128, 64}, bf16), {k, 0}, p.zeros({128, 64}, bf16));
    // ERR: index-type: no module
    ok &= refused(p, "index-type");
  }
  return ok ? 0 : 1;
}
// clang-format on

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// Atomic adds across programs: out [R, 128] f32 += the sum over p of
/// x[p] ([P, R, 128] bf16); program (i, p) adds block i of part p, so P
/// programs add into each block (as an attention backward's CTAs add into
/// dQ).
static mlir::OwningOpRef<mlir::ModuleOp>
buildSplitSum(mlir::MLIRContext *context) {
  Program p(context, "split_sum");
  Desc x = p.desc("x", {1, 128, 128}, bf16, {Extent::any(), Extent::any(), 128});
  Ptr out = p.ptr("out", f32, {x.dim(1), 128});
  Index rows = p.index("rows", x.dim(1));
  p.grid({cdiv(x.dim(1), 128), x.dim(0)});
  Index i = p.programId(0), part = p.programId(1);
  Desc od = p.makeDesc(out, {rows, 128}, {128, 1}, {128, 128});
  atomicAdd(od, {i, 0}, load(x, {part, i, 0}).to(f32));
  return p.finish();
}

/// The DSL's elementwise math on a loaded tile: Y = erf(X) + exp(X) +
/// log(|X| + 1) + sqrt(|X|) * rsqrt(X^2 + 1) + sign(X) (a `where` of two
/// numbers) in f32, X and Y [R, 128] bf16.
static mlir::OwningOpRef<mlir::ModuleOp>
buildElementwiseMath(mlir::MLIRContext *context) {
  Program p(context, "elementwise_math");
  Desc x = p.desc("x", {128, 128}, bf16);
  Desc y = p.desc("y", {128, 128}, bf16, {x.dim(0), x.dim(1)});
  p.grid({cdiv(x.dim(0), 128)});
  Index i = p.programId(0);
  Tile v = load(x, {i, 0}).to(f32);
  Tile a = abs(v);
  Tile out = erf(v) + exp(v) + log(a + 1.0) + sqrt(a) * rsqrt(v * v + 1.0) +
             where(v < 0.0, -1.0, 1.0);
  store(y, {i, 0}, out.to(bf16));
  return p.finish();
}

/// A kernel that loads no tile: Y [R, 128] = the column index times
/// scale[0], a bf16 value read as an f32 scalar; it runs on the plan's
/// consumer warps alone.
static mlir::OwningOpRef<mlir::ModuleOp> buildFill(mlir::MLIRContext *context) {
  Program p(context, "fill");
  Desc y = p.desc("y", {128, 128}, bf16);
  Ptr scale = p.ptr("scale", bf16, {1});
  p.grid({cdiv(y.dim(0), 128)});
  Scalar s = loadScalar(scale, 0);
  store(y, {p.programId(0), 0}, (p.iota({128, 128}, 1).to(f32) * s).to(bf16));
  return p.finish();
}

/// Each token's group compared pairwise (a document mask's shape): Y [R, R]
/// (bf16) = 1 where group[i] == group[j], else 0, for i32 `group` [R], the
/// rows' groups and the columns' each a vector loaded from their block's
/// first token and combined as a column and a row.
static mlir::OwningOpRef<mlir::ModuleOp>
buildPairMask(mlir::MLIRContext *context) {
  Program p(context, "pair_mask");
  Desc y = p.desc("y", {128, 128}, bf16);
  Ptr group = p.ptr("group", i32, {y.dim(0)});
  Index n = p.index("n", y.dim(0));
  p.grid({cdiv(y.dim(0), 128), cdiv(y.dim(1), 128)});
  Index i = p.programId(0), j = p.programId(1);
  Desc run = p.makeDesc(group, {n}, {1}, {128});
  Tile same = loadAt(run, {i * 128}).col() == loadAt(run, {j * 128}).row();
  store(y, {i, j}, where(same, 1.0, 0.0).to(bf16));
  return p.finish();
}

/// Chunked attention as an author writes it with mods: the mask mod, the
/// keys a block of queries may see, and those all its queries see (the
/// mask skipped in the blocks wholly among them).
static mlir::OwningOpRef<mlir::ModuleOp>
buildChunkedAttention(mlir::MLIRContext *context) {
  const int64_t chunk = 512;
  AttentionOptions options;
  options.mods.mask = [](const AttentionScoreIndices &at) {
    return at.query / chunk == at.key / chunk;
  };
  options.mods.keys = [](const Index &, const Index &, const Index &first,
                         const Index &end) {
    return std::pair{first / chunk * chunk, ((end - 1) / chunk + 1) * chunk};
  };
  options.mods.fullKeys = [](const Index &, const Index &, const Index &first,
                             const Index &end) {
    Index start = first / chunk * chunk;
    Bool one = start == (end - 1) / chunk * chunk;
    return std::pair{start, select(one, start + chunk, start)};
  };
  return buildAttention(context, options);
}

/// Attention with an additive bias (ALiBi's slope of 1/4 times the
/// distance), with a softcap when `softcap`.
static mlir::OwningOpRef<mlir::ModuleOp>
buildBiasedAttention(mlir::MLIRContext *context, bool softcap) {
  AttentionOptions options;
  options.softcap = softcap;
  options.mods.bias = [](const AttentionScoreIndices &at) {
    return (at.key - at.query).to(f32) * 0.25;
  };
  return buildAttention(context, options);
}

/// The options of the attention program `name`
/// (`attention-hd<D>[-f16][-window][-softcap]`), or nothing for another name.
static std::optional<AttentionOptions> parseAttention(llvm::StringRef name) {
  AttentionOptions options;
  options.softcap = name.consume_back("-softcap");
  options.window = name.consume_back("-window");
  if (name.consume_back("-f16"))
    options.elementType = f16;
  if (!name.consume_front("attention-hd") ||
      name.getAsInteger(10, options.headDim))
    return std::nullopt;
  // The key block ConfigAttr::derive gives attention's plan at head dim 256
  // (the compiler passes the plan's; this driver builds the program alone).
  if (options.headDim == 256)
    options.blockN = 80;
  return options;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs()
        << "usage: fa4-dsl-programs attention-hd<D>[-f16][-window][-softcap] | "
           "attention-bwd-(preprocess|postprocess|dq|dkdv|dk|dv|main)-hd<D>[-"
           "f16] | "
           "attention-decode[-combine]-hd<D>[-f16][-window][-softcap][-paged<R>"
           "] | attention-chunked | attention-bias[-softcap] | gemm | "
           "split-sum | "
           "softmax-n<N>[-f16] | elementwise-math | fill | pair-mask | "
           "errors\n";
    return 2;
  }
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  llvm::StringRef name = argv[1];
  if (name == "errors")
    return runErrors(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (name == "fill") {
    module = buildFill(&context);
  } else if (name == "pair-mask") {
    module = buildPairMask(&context);
  } else if (name == "elementwise-math") {
    module = buildElementwiseMath(&context);
  } else if (name == "gemm") {
    module = buildGemm(&context, GemmOptions());
  } else if (name == "split-sum") {
    module = buildSplitSum(&context);
  } else if (name == "attention-chunked") {
    module = buildChunkedAttention(&context);
  } else if (name == "attention-bias" || name == "attention-bias-softcap") {
    module = buildBiasedAttention(&context, name.ends_with("-softcap"));
  } else if (name.consume_front("softmax-n")) {
    SoftmaxOptions options;
    if (name.consume_back("-f16"))
      options.elementType = f16;
    if (name.getAsInteger(10, options.columns)) {
      llvm::errs() << "fa4-dsl-programs: no program '" << argv[1] << "'\n";
      return 2;
    }
    module = buildSoftmax(&context, options);
  } else if (name.starts_with("attention-decode-")) {
    // attention-decode[-combine]-hd<D>[-f16][-window][-softcap][-paged<R>]
    // (pages of a multiple of R keys).
    bool combine = name.consume_front("attention-decode-combine-");
    if (!combine)
      name.consume_front("attention-decode-");
    int64_t pageRows = 0;
    if (size_t at = name.rfind("-paged"); at != llvm::StringRef::npos) {
      if (name.drop_front(at + 6).getAsInteger(10, pageRows) || pageRows < 1) {
        llvm::errs() << "fa4-dsl-programs: no program '" << argv[1] << "'\n";
        return 2;
      }
      name = name.take_front(at);
    }
    std::optional<AttentionOptions> options =
        parseAttention(("attention-" + name).str());
    if (!options) {
      llvm::errs() << "fa4-dsl-programs: no program '" << argv[1] << "'\n";
      return 2;
    }
    options->blockN = 128;
    options->pageRows = pageRows;
    module = combine ? buildAttentionDecodeCombine(&context, *options)
                     : buildAttentionDecode(&context, *options);
  } else if (name.starts_with("attention-bwd-")) {
    // attention-bwd-(pre|post)process-hd<D>[-f16]: the attention options.
    enum { Pre, Post, Main, None } which = None;
    BackwardProgram program = BackwardProgram::Dq;
    for (auto [prefix, kind, main] :
         {std::tuple{"attention-bwd-preprocess-", Pre, BackwardProgram::Dq},
          std::tuple{"attention-bwd-postprocess-", Post, BackwardProgram::Dq},
          std::tuple{"attention-bwd-dq-", Main, BackwardProgram::Dq},
          std::tuple{"attention-bwd-dkdv-", Main, BackwardProgram::DkDv},
          std::tuple{"attention-bwd-dk-", Main, BackwardProgram::Dk},
          std::tuple{"attention-bwd-dv-", Main, BackwardProgram::Dv},
          std::tuple{"attention-bwd-main-", Main, BackwardProgram::Fused}})
      if (which == None && name.consume_front(prefix)) {
        which = kind;
        program = main;
      }
    std::optional<AttentionOptions> options;
    if (which != None)
      options = parseAttention(("attention-" + name).str());
    if (!options) {
      llvm::errs() << "fa4-dsl-programs: no program '" << argv[1] << "'\n";
      return 2;
    }
    // The backward's main programs over blocks of 64 rows in their loops:
    // the tests' fixed plan (block-n=64 in their configs), not the derived
    // one (attentionBackwardBlockN, which fa4-run --backward takes).
    if (which == Main)
      options->blockN = 64;
    module = which == Pre ? buildAttentionBackwardPreprocess(&context, *options)
             : which == Post
                 ? buildAttentionBackwardPostprocess(&context, *options)
                 : buildAttentionBackwardProgram(&context, *options, program);
  } else if (std::optional<AttentionOptions> options = parseAttention(name)) {
    module = buildAttention(&context, *options);
  } else {
    llvm::errs() << "fa4-dsl-programs: no program '" << name << "'\n";
    return 2;
  }
  if (!module)
    return 1;
  module->print(llvm::outs(), mlir::OpPrintingFlags().enableDebugInfo());
  llvm::outs() << "\n";
  return 0;
}

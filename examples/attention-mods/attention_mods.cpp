//===- attention_mods.cpp - attention with score and mask mods ------------===//
//
// Attention variants as an author writes them with FlexAttention: fa4's
// forward attention program (its pipelined, warp-specialized schedule
// unchanged) with a score mod or a mask mod, a C++ callable over a block of
// scores and each score's query and key position, compiled in-process into
// kernel files:
//
// - alibi.kernel: ALiBi (Press et al.), each head's scores biased by its
//   slope times the key's distance, slope_h = 2^(-8 (h + 1) / H) for H
//   heads (here H = --heads, 16 by default): an additive bias, from which
//   the score MMA starts;
// - chunked.kernel: chunked attention (Llama 4's local layers), a query
//   attending only the keys of its own chunk of --chunk tokens (1024): a
//   mask mod, and the chunks' key range, so that the blocks of keys no
//   query of a block sees are skipped, and the keys all of them see (their
//   chunk, when they lie in one), in whose blocks the mask is skipped.
//
// - document.kernel: document masking of packed samples, a query
//   attending only the keys of its own document: a mask mod that reads
//   each token's document from a tensor, `document` [B, S] i32 (0 ... D - 1,
//   ascending along each row), and the documents' key range from a second
//   one, `document_offsets` [B, D + 1] i32 (row b: where each document of
//   batch b starts, then S), so that the key blocks of other documents are
//   skipped and those of a block's one document are not masked.
//   Self-attention: Sq = Sk = S.
//
// - bias.kernel: a bias from a tensor, score + bias[b, h, query, key] for
//   `bias` [B, H, Sq, Sk] bf16, read a block of scores at a time.
//
// Each takes the arguments of fa4's attention kernel (q, k, v, o, lse and
// the softmax scale, causal), document.kernel and bias.kernel their
// tensors too; head dim 128, bf16.
//
//   attention-mods [--out-dir DIR] [--heads H] [--chunk C] [--dump-dir DIR]
//
// --dump-dir writes each kernel's stages there, named as `fa4-run
// --dump-dir` names them: NAME.tile.mlir (the program with its mods),
// NAME.fa4.mlir, NAME.llvm.mlir, NAME.ll, NAME.ptx and NAME.ptxas.txt, to
// see what a mod costs.
//
//===----------------------------------------------------------------------===//

#include "fa4/Compiler/Compiler.h"
#include "fa4/DSL/DSL.h"
#include "fa4/KernelFormat/KernelFile.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

using namespace fa4::dsl;

/// ALiBi: score + slope_h * (key - query), as a bias (the score MMA starts
/// from it).
static AttentionScoreBias alibi(int64_t heads) {
  return [heads](const AttentionScoreIndices &at) {
    llvm::ArrayRef<int64_t> shape = at.key.getShape();
    Tile h = splat(at.head + 1, shape).to(f32);
    Tile slope = exp2(h * (-8.0 / double(heads)));
    return slope * (at.key - at.query).to(f32);
  };
}

/// Chunked attention: a query sees the keys of its own chunk; the query
/// rows [first, end) see at most the keys of their chunks.
static AttentionMods chunked(int64_t chunk) {
  AttentionMods mods;
  mods.mask = [chunk](const AttentionScoreIndices &at) {
    return at.query / chunk == at.key / chunk;
  };
  mods.keys = [chunk](const Index &, const Index &, const Index &first,
                      const Index &end) {
    return std::pair{first / chunk * chunk, ((end - 1) / chunk + 1) * chunk};
  };
  // Every query of the rows sees its whole chunk when they lie in one.
  mods.fullKeys = [chunk](const Index &, const Index &, const Index &first,
                          const Index &end) {
    Index start = first / chunk * chunk;
    Bool one = start == (end - 1) / chunk * chunk;
    return std::pair{start, select(one, start + chunk, start)};
  };
  return mods;
}

/// Document masking: a query sees the keys of its own document. The mods
/// read two tensors, which `arguments` declares on the attention program.
static AttentionMods documents() {
  struct Tensors {
    Ptr document, offsets;
    Index batches, tokens, starts;
  };
  auto t = std::make_shared<Tensors>();
  AttentionMods mods;
  mods.arguments = [t](Program &p) {
    // A document for each token of Q's (and K's) sequences.
    Extent batches = Extent::named("q.dim0"), tokens = Extent::named("q.dim2");
    p.require(Extent::named("k.dim2") == tokens);
    t->document = p.ptr("document", i32, {batches, tokens});
    t->offsets = p.ptr("document_offsets", i32, {batches, Extent::any()});
    t->batches = p.index("document_batches", t->document.dim(0));
    t->tokens = p.index("document_tokens", t->document.dim(1));
    t->starts = p.index("document_starts", t->offsets.dim(1));
  };
  // Each query row's document beside each key column's: vectors from the
  // block's first query and key.
  mods.mask = [t](const AttentionScoreIndices &at) {
    Program &p = *t->document.getProgram();
    llvm::ArrayRef<int64_t> block = at.query.getShape();
    auto documents = [&](int64_t length, const Index &start) {
      Desc run = p.makeDesc(t->document, {t->batches, t->tokens},
                            {t->tokens, 1}, {1, length});
      return loadAt(run, {at.batch, start});
    };
    return documents(block[0], at.queryStart).col() ==
           documents(block[1], at.keyStart).row();
  };
  // The keys of the documents of the block's first and last query.
  mods.keys = [t](const Index &batch, const Index &, const Index &first,
                  const Index &end) {
    Index tokens = batch * t->tokens, starts = batch * t->starts;
    Index firstDocument = load(t->document, tokens + first);
    Index lastDocument = load(t->document, tokens + end - 1);
    // Within the row of offsets whatever the ids (the mask decides).
    Index last = min(lastDocument + 1, t->starts - 1);
    return std::pair{load(t->offsets, starts + min(firstDocument, last)),
                     load(t->offsets, starts + last)};
  };
  // Every query of the rows sees its whole document when they lie in one.
  mods.fullKeys = [t](const Index &batch, const Index &, const Index &first,
                      const Index &end) {
    Index tokens = batch * t->tokens, starts = batch * t->starts;
    Index document = load(t->document, tokens + first);
    Index next = min(document + 1, t->starts - 1);
    Index start = load(t->offsets, starts + min(document, next));
    Bool one = load(t->document, tokens + end - 1) == document;
    return std::pair{start,
                     select(one, load(t->offsets, starts + next), start)};
  };
  return mods;
}

/// A bias from a tensor: score + bias[b, h, query, key], `bias` [B, H, Sq,
/// Sk] bf16 (contiguous), read through a pointer a block of scores at a
/// time.
static AttentionMods tensorBias() {
  struct Tensors {
    Ptr bias;
    Index planes, heads, seqQ, seqK;
  };
  auto t = std::make_shared<Tensors>();
  AttentionMods mods;
  mods.arguments = [t](Program &p) {
    t->bias = p.ptr("bias", bf16,
                    {Extent::named("q.dim0"), Extent::named("q.dim1"),
                     Extent::named("q.dim2"), Extent::named("k.dim2")});
    t->planes = p.index("bias_planes", t->bias.dim(0) * t->bias.dim(1));
    t->heads = p.index("bias_heads", t->bias.dim(1));
    t->seqQ = p.index("bias_seq_q", t->bias.dim(2));
    t->seqK = p.index("bias_seq_k", t->bias.dim(3));
  };
  // The bias as [B H, Sq, Sk]: plane b H + h, from the block's first query
  // and key (zeros past the sequences' ends, which the masks remove).
  mods.score = [t](const Tile &score, const AttentionScoreIndices &at) {
    Program &p = *t->bias.getProgram();
    llvm::ArrayRef<int64_t> block = score.getShape();
    Desc planes =
        p.makeDesc(t->bias, {t->planes, t->seqQ, t->seqK},
                   {t->seqQ * t->seqK, t->seqK, 1}, {1, block[0], block[1]});
    Tile bias = loadAt(
        planes, {at.batch * t->heads + at.head, at.queryStart, at.keyStart});
    return score + bias.to(f32);
  };
  return mods;
}

static int fail(int status, const std::string &message) {
  std::fprintf(stderr, "attention-mods: %s\n", message.c_str());
  return status;
}

int main(int argc, char **argv) {
  std::string outDir = ".", dumpDir;
  int64_t heads = 16, chunk = 1024;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 < argc && arg == "--out-dir")
      outDir = argv[++i];
    else if (i + 1 < argc && arg == "--heads")
      heads = std::atoll(argv[++i]);
    else if (i + 1 < argc && arg == "--chunk")
      chunk = std::atoll(argv[++i]);
    else if (i + 1 < argc && arg == "--dump-dir")
      dumpDir = argv[++i];
    else
      return fail(1, "usage: attention-mods [--out-dir DIR] [--heads H] "
                     "[--chunk C] [--dump-dir DIR]");
  }
  if (heads < 1 || chunk < 1)
    return fail(1, "--heads and --chunk take positive numbers");

  std::unique_ptr<mlir::MLIRContext> context =
      mlir::fa4::createCompilerContext();
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, context.get());
  // Forward attention at head dim 128 in bf16; the plan fa4 derives.
  fa4::KernelKey key;
  key.headDim = 128;
  AttentionMods alibiMods;
  alibiMods.bias = alibi(heads);
  for (auto [name, mods] :
       {std::pair{"alibi", alibiMods}, std::pair{"chunked", chunked(chunk)},
        std::pair{"document", documents()}, std::pair{"bias", tensorBias()}}) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::fa4::buildAttentionWithMods(*context, key, mods);
    if (!module)
      return fail(2, std::string(name) + " does not build");
    mlir::fa4::TargetOptions target;
    mlir::fa4::CompileArtifacts artifacts;
    artifacts.keepStages = !dumpDir.empty();
    mlir::FailureOr<fa4::runtime::KernelFile> file =
        mlir::fa4::compileModule(*module, target, artifacts);
    if (mlir::failed(file))
      return fail(2, std::string(name) +
                         " does not compile (see the errors above)");
    if (!dumpDir.empty())
      if (fa4::runtime::Status s =
              mlir::fa4::writeCompileStages(artifacts.stages, dumpDir, name);
          !s.ok())
        return fail(2, s.message());
    std::string path = outDir + "/" + name + ".kernel";
    if (fa4::runtime::Status s = fa4::runtime::writeKernelFile(*file, path);
        !s.ok())
      return fail(2, s.message());
    // ptxas's spill line: a mod's cost in registers.
    std::printf("compiled %s for %s (%s): wrote %s\n", name,
                target.arch.c_str(), artifacts.spills().c_str(), path.c_str());
  }
  return 0;
}

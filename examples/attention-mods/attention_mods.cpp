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
//   heads (here H = --heads, 16 by default);
// - chunked.kernel: chunked attention (Llama 4's local layers), a query
//   attending only the keys of its own chunk of --chunk tokens (1024): a
//   mask mod, and the chunks' key range, so that the blocks of keys no
//   query of a block sees are skipped.
//
// Both take the arguments of fa4's attention kernel (q, k, v, o, lse and
// the softmax scale, causal), head dim 128, bf16.
//
//   attention-mods [--out-dir DIR] [--heads H] [--chunk C]
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
#include <string>

using namespace fa4::dsl;

/// ALiBi: score + slope_h * (key - query).
static AttentionScoreMod alibi(int64_t heads) {
  return [heads](const Tile &score, const AttentionScoreIndices &at) {
    llvm::ArrayRef<int64_t> shape = score.getShape();
    Tile h = splat(at.head + 1, shape).to(f32);
    Tile slope = exp2(h * (-8.0 / double(heads)));
    return score + slope * (at.key - at.query).to(f32);
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
  return mods;
}

static int fail(int status, const std::string &message) {
  std::fprintf(stderr, "attention-mods: %s\n", message.c_str());
  return status;
}

int main(int argc, char **argv) {
  std::string outDir = ".";
  int64_t heads = 16, chunk = 1024;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 < argc && arg == "--out-dir")
      outDir = argv[++i];
    else if (i + 1 < argc && arg == "--heads")
      heads = std::atoll(argv[++i]);
    else if (i + 1 < argc && arg == "--chunk")
      chunk = std::atoll(argv[++i]);
    else
      return fail(1, "usage: attention-mods [--out-dir DIR] [--heads H] "
                     "[--chunk C]");
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
  alibiMods.score = alibi(heads);
  for (auto [name, mods] :
       {std::pair{"alibi", alibiMods}, std::pair{"chunked", chunked(chunk)}}) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::fa4::buildAttentionWithMods(*context, key, mods);
    if (!module)
      return fail(2, std::string(name) + " does not build");
    mlir::fa4::TargetOptions target;
    mlir::fa4::CompileArtifacts artifacts;
    artifacts.keepStages = false;
    mlir::FailureOr<fa4::runtime::KernelFile> file =
        mlir::fa4::compileModule(*module, target, artifacts);
    if (mlir::failed(file))
      return fail(2, std::string(name) +
                         " does not compile (see the errors above)");
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

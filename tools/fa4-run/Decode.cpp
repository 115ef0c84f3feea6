//===- Decode.cpp - fa4-run --decode --------------------------------------===//
//
// Decode's kernels run like any described kernel (FA4Runner's prepareInputs
// and runKernel, from .npy files), one after the other, as libfa4's
// fa4_attention_with_kvcache launches them: the main kernel writes each
// part's O and LSE to a workspace, the combine merges them (with one part
// the main kernel writes O and the LSE, and no combine runs). The reference
// is float64 attention of each query row over the keys its sequence holds.
//
//===----------------------------------------------------------------------===//

#include "Decode.h"
#include "Outputs.h"

#include "../../lib/Runner/Parallel.h"
#include "fa4/KernelFormat/KernelKey.h"
#include "fa4/Runner/AnyKernel.h"
#include "fa4/Runner/Element.h"
#include "fa4/Runner/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

using namespace fa4;
using namespace fa4::run;
using runtime::ElementType;
using runtime::Expected;
using runtime::Status;

namespace {
/// The sizes of one decode problem.
struct Sizes {
  int64_t b, h, hkv, sq, smax, d, dv;
  int64_t group() const { return h / hkv; }
};

/// Float64 attention of query token s of row (b, h) over the first
/// `lengths[b]` keys of its KV head, token s at key position s + length -
/// SQ: O (B, H, SQ, Dv) and the natural LSE (-inf, and O 0, where a row sees
/// no key).
void reference(const Sizes &n, const std::vector<int64_t> &lengths,
               const std::vector<double> &q, const std::vector<double> &k,
               const std::vector<double> &v, double scale,
               const runner::AttentionProblem &a, std::vector<double> &o,
               std::vector<double> &lse) {
  o.assign(size_t(n.b * n.h * n.sq * n.dv), 0);
  lse.assign(size_t(n.b * n.h * n.sq),
             -std::numeric_limits<double>::infinity());
  bool hasRight = a.causal || a.windowRight >= 0;
  int64_t right = a.causal ? 0 : a.windowRight;
  runner::parallelFor(uint64_t(n.b * n.h), 1, [&](uint64_t from, uint64_t to) {
    std::vector<double> p(size_t(n.smax));
    for (uint64_t bh = from; bh < to; ++bh) {
      int64_t b = int64_t(bh) / n.h, hk = int64_t(bh) % n.h / n.group();
      int64_t length = lengths[size_t(b)], shift = length - n.sq;
      const double *kh = &k[size_t((b * n.hkv + hk) * n.smax * n.d)];
      const double *vh = &v[size_t((b * n.hkv + hk) * n.smax * n.dv)];
      for (int64_t s = 0; s < n.sq; ++s) {
        size_t row = size_t(int64_t(bh) * n.sq + s);
        int64_t end =
            hasRight
                ? std::min(length, std::max<int64_t>(0, s + shift + right + 1))
                : length;
        int64_t first = a.windowLeft >= 0
                            ? std::max<int64_t>(0, s + shift - a.windowLeft)
                            : 0;
        if (first >= end)
          continue;
        const double *qs = &q[row * size_t(n.d)];
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t j = first; j < end; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < n.d; ++c)
            dot += qs[c] * kh[j * n.d + c];
          p[size_t(j)] = dot * scale;
          if (a.softcap > 0)
            p[size_t(j)] = a.softcap * std::tanh(p[size_t(j)] / a.softcap);
          max = std::max(max, p[size_t(j)]);
        }
        double sum = 0;
        for (int64_t j = first; j < end; ++j)
          sum += p[size_t(j)] = std::exp(p[size_t(j)] - max);
        lse[row] = max + std::log(sum);
        double *os = &o[row * size_t(n.dv)];
        for (int64_t j = first; j < end; ++j)
          for (int64_t c = 0; c < n.dv; ++c)
            os[c] += p[size_t(j)] / sum * vh[j * n.dv + c];
      }
    }
  });
}

/// A tensor's f32 elements read back.
std::vector<float> floats(const runner::HostTensor &tensor) {
  std::vector<float> out(tensor.elements());
  std::memcpy(out.data(), tensor.bytes.data(), out.size() * sizeof(float));
  return out;
}

std::vector<uint64_t> shapeOf(std::initializer_list<int64_t> dims) {
  return std::vector<uint64_t>(dims.begin(), dims.end());
}
} // namespace

Expected<RunOutcome>
fa4::run::runDecode(const Arguments &args, runtime::Driver &driver,
                    const std::array<runtime::KernelFile, 2> &files,
                    const std::string &work) {
  const runner::AttentionProblem &a = args.attention;
  Sizes n{int64_t(a.batch),         int64_t(a.heads), int64_t(a.keyHeads()),
          int64_t(a.seqQ),          int64_t(a.seqK),  int64_t(a.headDim),
          int64_t(a.valueHeadDim())};
  ElementType type = a.elementType;
  double scale = a.scale ? a.scale : 1.0 / std::sqrt(double(n.d));
  std::vector<int64_t> lengths = args.cacheSeqlens;
  if (lengths.empty())
    lengths.assign(size_t(n.b), n.smax);
  int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  int64_t splits = args.splits
                       ? args.splits
                       : KernelKey::decodeSplits(n.b, n.h, n.hkv, n.sq, longest,
                                                 driver.device().smCount);
  int64_t rows = n.group() * n.sq, width = KernelKey::paddedHeadDim(n.dv);
  int64_t flat = n.b * n.h * n.sq;

  // Q and the logical caches (B, HKV, SMAX, D), uniform in [-1, 1) and
  // rounded to the element type.
  std::mt19937_64 rng(args.options.seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto draw = [&](int64_t count, std::vector<uint16_t> &words,
                  std::vector<double> &exact) {
    words.resize(size_t(count));
    exact.resize(words.size());
    for (size_t i = 0; i < words.size(); ++i) {
      words[i] = runner::toWord(type, uniform(rng));
      exact[i] = runner::fromWord(type, words[i]);
    }
  };
  std::vector<uint16_t> qw, kw, vw;
  std::vector<double> q, k, v;
  draw(flat * n.d, qw, q);
  draw(n.b * n.hkv * n.smax * n.d, kw, k);
  draw(n.b * n.hkv * n.smax * n.dv, vw, v);

  // A paged cache: each sequence's pages in a shuffled order, the cache
  // [PAGES, HKV, PAGE_SIZE, D] (rows past SMAX in a last page random).
  int64_t page = args.pageSize;
  int64_t perSequence =
      page ? std::max<int64_t>(1, (n.smax + page - 1) / page) : 0;
  std::vector<int32_t> table;
  std::vector<uint16_t> kCache = kw, vCache = vw;
  if (page) {
    int64_t pages = n.b * perSequence;
    table.resize(size_t(pages));
    std::iota(table.begin(), table.end(), 0);
    std::shuffle(table.begin(), table.end(), rng);
    auto scatter = [&](const std::vector<uint16_t> &logical, int64_t dim,
                       std::vector<uint16_t> &paged) {
      paged.resize(size_t(pages * n.hkv * page * dim));
      for (uint16_t &word : paged)
        word = runner::toWord(type, uniform(rng));
      for (int64_t b = 0; b < n.b; ++b)
        for (int64_t hk = 0; hk < n.hkv; ++hk)
          for (int64_t j = 0; j < n.smax; ++j) {
            int64_t at = table[size_t(b * perSequence + j / page)];
            std::memcpy(
                &paged[size_t(((at * n.hkv + hk) * page + j % page) * dim)],
                &logical[size_t(((b * n.hkv + hk) * n.smax + j) * dim)],
                size_t(dim) * sizeof(uint16_t));
          }
    };
    scatter(kw, n.d, kCache);
    scatter(vw, n.dv, vCache);
  }

  auto path = [&](const char *name) { return work + "/" + name + ".npy"; };
  int64_t cacheRows = page ? n.b * perSequence : n.b;
  int64_t cacheLength = page ? page : n.smax;
  // Q (B, H, SQ, D) as [B, HKV, G * SQ, D]: the query heads of a KV head
  // and their tokens as one run of rows, the same memory.
  for (auto [name, shape, words] :
       {std::tuple{"q", shapeOf({n.b, n.hkv, rows, n.d}), &qw},
        {"k", shapeOf({cacheRows, n.hkv, cacheLength, n.d}), &kCache},
        {"v", shapeOf({cacheRows, n.hkv, cacheLength, n.dv}), &vCache}})
    if (Status s = runner::writeNpy(path(name), type, shape, *words); !s.ok())
      return s;
  std::vector<int32_t> used(lengths.begin(), lengths.end());
  if (Status s = runner::writeNpy(path("cache_seqlens"), shapeOf({n.b}), used);
      !s.ok())
    return s;
  if (page)
    if (Status s = runner::writeNpy(path("block_table"),
                                    shapeOf({n.b, perSequence}), table);
        !s.ok())
      return s;

  std::vector<double> refO, refLse;
  reference(n, lengths, q, k, v, scale, a, refO, refLse);

  RunOutcome outcome;
  char line[256];
  std::snprintf(line, sizeof line,
                "decode of b=%lld h=%lld/%lld sq=%lld d=%lld dv=%lld: a cache "
                "of %lld keys%s, %lld to %lld in use, %lld split%s",
                (long long)n.b, (long long)n.h, (long long)n.hkv,
                (long long)n.sq, (long long)n.d, (long long)n.dv,
                (long long)n.smax,
                page ? (" in pages of " + std::to_string(page)).c_str() : "",
                (long long)*std::min_element(lengths.begin(), lengths.end()),
                (long long)longest, (long long)splits, splits > 1 ? "s" : "");
  outcome.lines.push_back(line);

  std::vector<double> o, lse;
  // The main kernel, then the combine of its parts unless it has one.
  const char *kernels[2] = {"main", "combine"};
  for (int which = 0; which < (splits > 1 ? 2 : 1); ++which) {
    const runtime::KernelFile &file = files[which];
    std::vector<runner::ArgumentSpec> specs;
    auto tensor = [&](const char *name, runner::ArgumentSpec::Kind kind,
                      std::vector<int64_t> shape = {}) {
      runner::ArgumentSpec spec;
      spec.name = name;
      spec.kind = kind;
      spec.path = path(name);
      spec.shape = std::move(shape);
      specs.push_back(spec);
    };
    if (which == 0) {
      for (const char *name : {"q", "k", "v", "cache_seqlens"})
        tensor(name, runner::ArgumentSpec::Kind::File);
      if (page)
        tensor("block_table", runner::ArgumentSpec::Kind::File);
      // The workspace, random before the launch: the parts' O
      // [P * B, HKV, G * SQ, Dv'] and their LSEs, a row's side by side.
      tensor("o_partial", runner::ArgumentSpec::Kind::Random,
             {splits * n.b, n.hkv, rows, width});
      tensor("lse_partial", runner::ArgumentSpec::Kind::Random,
             {flat, KernelKey::kDecodeMaxSplits});
      // O and the LSE, which it writes itself with one part: random
      // before the launch, as the rows a launch must write.
      tensor("o", runner::ArgumentSpec::Kind::Random, {n.b, n.hkv, rows, n.dv});
      tensor("lse", runner::ArgumentSpec::Kind::Random, {n.b, n.hkv, rows});
      addScalars(file,
                 {{"seq_q", double(n.sq)},
                  {"scale_log2", double(float(scale * M_LOG2E))},
                  {"causal", a.causal ? 1.0 : 0.0},
                  {"window_left", double(a.windowLeft)},
                  {"window_right", double(a.windowRight)},
                  {"softcap", a.softcap}},
                 specs);
    } else {
      tensor("o_partial", runner::ArgumentSpec::Kind::File);
      tensor("lse_partial", runner::ArgumentSpec::Kind::File);
    }
    Expected<runner::KernelRunResult> result =
        runStage(driver, file, specs, args.options, kernels[which], outcome);
    if (!result.ok())
      return result.status();
    if (which == 0 && splits > 1) {
      // The parts as the combine reads them: O [P, N, Dv'] and the LSEs
      // [N, 64], flat over every head and token.
      const runner::HostTensor *oPart = find(*result, "o_partial");
      const runner::HostTensor *lsePart = find(*result, "lse_partial");
      if (!oPart || !lsePart)
        return Status::error("kernel '" + file.entry +
                             "' has no o_partial or lse_partial");
      if (Status s =
              runner::writeNpy(path("o_partial"),
                               shapeOf({splits, flat, width}), floats(*oPart));
          !s.ok())
        return s;
      if (Status s = runner::writeNpy(
              path("lse_partial"), shapeOf({flat, KernelKey::kDecodeMaxSplits}),
              floats(*lsePart));
          !s.ok())
        return s;
      continue;
    }
    const runner::HostTensor *out = find(*result, "o");
    const runner::HostTensor *outLse = find(*result, "lse");
    if (!out || !outLse)
      return Status::error("kernel '" + file.entry + "' has no o or lse");
    o = values(*out);
    lse = values(*outLse);
  }

  // O and the LSE where a row sees keys; exactly 0 and -inf where not.
  std::vector<double> seenLse, seenRef;
  uint64_t unseen = 0, stray = 0, nans = 0;
  for (size_t row = 0; row < refLse.size(); ++row) {
    if (std::isinf(refLse[row])) {
      ++unseen;
      stray += !(std::isinf(lse[row]) && lse[row] < 0);
      for (int64_t c = 0; c < n.dv; ++c)
        stray += o[row * size_t(n.dv) + size_t(c)] != 0;
      continue;
    }
    nans += std::isnan(lse[row]);
    seenLse.push_back(lse[row]);
    seenRef.push_back(refLse[row]);
  }
  auto [oError, oNans] = relativeError(o, refO);
  double lseError = relativeError(seenLse, seenRef).first;
  nans += oNans;
  if (!(oError <= runner::kMaxRelativeError) ||
      !(lseError <= runner::kMaxRelativeError) || nans || stray)
    outcome.passed = false;
  std::snprintf(line, sizeof line,
                "o rel_err=%.2e lse rel_err=%.2e nan=%llu; rows without a key "
                "%llu, not 0 and -inf %llu: %s",
                oError, lseError, (unsigned long long)nans,
                (unsigned long long)unseen, (unsigned long long)stray,
                outcome.passed ? "PASS" : "FAIL");
  outcome.lines.push_back(line);
  if (outcome.totalMs > 0) {
    // Decode reads each used key of K and V once.
    double bytes = 0;
    for (int64_t length : lengths)
      bytes += double(length) * double(n.hkv) * double(n.d + n.dv) *
               double(runtime::elementSize(type));
    std::snprintf(line, sizeof line,
                  "decode time=%.4f ms, K and V %.1f MiB at %.2f TB/s",
                  outcome.totalMs, bytes / double(1 << 20),
                  bytes / (outcome.totalMs * 1e-3) / 1e12);
    outcome.lines.push_back(line);
  }
  return outcome;
}

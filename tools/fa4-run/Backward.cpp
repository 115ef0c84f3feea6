//===- Backward.cpp - fa4-run --backward ----------------------------------===//
//
// The backward's kernels run like any described kernel (FA4Runner's
// prepareInputs and runKernel, from .npy files), one after the other: D =
// rowsum(dO ∘ O), then dQ, then dK and dV (by one kernel, or over 128
// columns of head dim dV's and dK's); or, in five products, D, then dK, dV
// and dQ's parts summed into a zeroed f32 dQaccum, then dQ scaled from it.
// O and the LSE come from fa4's forward kernel, as a trainer's backward
// gets them. The reference, unless --no-check, is float64 attention,
// forward and backward (V of its own head dim), a query row at a time.
// Packed sequences (--seqlens) run the kernels over [H, T, D] tensors
// (the forward over [T, H, D]), D's over them as one sequence, and the
// reference a sequence at a time.
//
//===----------------------------------------------------------------------===//

#include "Backward.h"
#include "Outputs.h"

#include "../../lib/Runner/Parallel.h"
#include "fa4/KernelFormat/KernelKey.h"
#include "fa4/Runner/AnyKernel.h"
#include "fa4/Runner/Element.h"
#include "fa4/Runner/Npy.h"
#include "fa4/Runner/Problem.h"
#include "fa4/Runner/Run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using namespace fa4;
using namespace fa4::run;
using runtime::ElementType;
using runtime::Expected;
using runtime::Status;

namespace {
/// The sizes of one problem: head dims d of Q and K, dv of V.
struct Sizes {
  int64_t b, h, hkv, sq, sk, d, dv;
};

/// Float64 attention of [B, H, S, D] inputs (V, O, dO and dV of D = dv; H
/// a multiple of HKV):
/// forward (O, the natural LSE, -inf for a row that sees no key) and
/// backward (dQ; dK and dV summed over each KV head's query heads).
struct Reference {
  std::vector<double> o, lse, dq, dk, dv;
};

Reference reference(const Sizes &n, const std::vector<double> &q,
                    const std::vector<double> &k, const std::vector<double> &v,
                    const std::vector<double> &dout, double scale,
                    const runner::AttentionProblem &a) {
  Reference r;
  r.o.assign(n.b * n.h * n.sq * n.dv, 0);
  r.lse.assign(n.b * n.h * n.sq, -std::numeric_limits<double>::infinity());
  r.dq.assign(n.b * n.h * n.sq * n.d, 0);
  r.dk.assign(n.b * n.hkv * n.sk * n.d, 0);
  r.dv.assign(n.b * n.hkv * n.sk * n.dv, 0);
  int64_t group = n.h / n.hkv;
  // A KV head at a time: its query heads add into its dK and dV.
  runner::parallelFor(uint64_t(n.b * n.hkv), 1, [&](uint64_t from,
                                                    uint64_t to) {
    std::vector<double> p(n.sk), t(n.sk);
    // Query i sees keys [i + shift - left, i + shift + right] (FlashAttention's
    // window_size, right 0 when causal), each bound only when given.
    int64_t shift = n.sk - n.sq;
    bool hasRight = a.causal || a.windowRight >= 0;
    int64_t right = a.causal ? 0 : a.windowRight;
    for (uint64_t bk = from; bk < to; ++bk) {
      int64_t b = int64_t(bk) / n.hkv, hk = int64_t(bk) % n.hkv;
      const double *kh = &k[(b * n.hkv + hk) * n.sk * n.d];
      const double *vh = &v[(b * n.hkv + hk) * n.sk * n.dv];
      double *dkh = &r.dk[(b * n.hkv + hk) * n.sk * n.d];
      double *dvh = &r.dv[(b * n.hkv + hk) * n.sk * n.dv];
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h)
        for (int64_t i = 0; i < n.sq; ++i) {
          size_t row = size_t((b * n.h + h) * n.sq + i);
          const double *qi = &q[row * n.d];
          const double *doi = &dout[row * n.dv];
          int64_t keys = hasRight ? std::min(n.sk, std::max<int64_t>(
                                                       0, i + shift + right + 1))
                                  : n.sk;
          int64_t from = a.windowLeft >= 0
                             ? std::max<int64_t>(0, i + shift - a.windowLeft)
                             : 0;
          if (from >= keys)
            continue;
          double max = -std::numeric_limits<double>::infinity();
          for (int64_t j = from; j < keys; ++j) {
            double s = 0;
            for (int64_t c = 0; c < n.d; ++c)
              s += qi[c] * kh[j * n.d + c];
            p[j] = s * scale;
            // The softcap: cap · tanh(x / cap), whose derivative 1 - t²
            // scales dS.
            t[j] = 0;
            if (a.softcap > 0) {
              t[j] = std::tanh(p[j] / a.softcap);
              p[j] = a.softcap * t[j];
            }
            max = std::max(max, p[j]);
          }
          double sum = 0;
          for (int64_t j = from; j < keys; ++j)
            sum += p[j] = std::exp(p[j] - max);
          r.lse[row] = max + std::log(sum);
          double *oi = &r.o[row * n.dv];
          for (int64_t j = from; j < keys; ++j) {
            p[j] /= sum;
            for (int64_t c = 0; c < n.dv; ++c)
              oi[c] += p[j] * vh[j * n.dv + c];
          }
          double delta = 0;
          for (int64_t c = 0; c < n.dv; ++c)
            delta += doi[c] * oi[c];
          double *dqi = &r.dq[row * n.d];
          for (int64_t j = from; j < keys; ++j) {
            double dpj = 0;
            for (int64_t c = 0; c < n.dv; ++c) {
              dpj += doi[c] * vh[j * n.dv + c];
              dvh[j * n.dv + c] += p[j] * doi[c];
            }
            double ds = p[j] * (dpj - delta) * (1 - t[j] * t[j]) * scale;
            for (int64_t c = 0; c < n.d; ++c) {
              dqi[c] += ds * kh[j * n.d + c];
              dkh[j * n.d + c] += ds * qi[c];
            }
          }
        }
    }
  });
  return r;
}

/// The float64 reference of packed sequences: each sequence's rows of the
/// [H, Tq, D] and [Hkv, Tk, D] inputs as a problem of batch 1, its results
/// put back in the packed rows.
Reference packedReference(const Sizes &n, const std::vector<double> &q,
                          const std::vector<double> &k,
                          const std::vector<double> &v,
                          const std::vector<double> &dout, double scale,
                          const runner::AttentionProblem &a) {
  Reference r;
  r.o.assign(dout.size(), 0);
  r.lse.assign(n.h * n.sq, -std::numeric_limits<double>::infinity());
  r.dq.assign(q.size(), 0);
  r.dk.assign(k.size(), 0);
  r.dv.assign(v.size(), 0);
  std::vector<uint64_t> startsQ = a.offsetsQ(), startsK = a.offsetsK();
  // Rows [start, start + rows) of each of `heads` heads of the packed
  // `total` rows, to (from, with `back`) a dense [1, heads, rows, D].
  auto move = [&](const std::vector<double> &from, std::vector<double> &to,
                  int64_t heads, int64_t total, int64_t start, int64_t rows,
                  int64_t columns, bool back) {
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < rows * columns; ++i) {
        size_t packed = size_t((h * total + start) * columns + i);
        size_t dense = size_t(h * rows * columns + i);
        if (back)
          to[packed] = from[dense];
        else
          to[dense] = from[packed];
      }
  };
  for (size_t b = 0; b < a.seqlensQ.size(); ++b) {
    int64_t sq = int64_t(a.seqlensQ[b]), sk = int64_t(a.seqlensK[b]);
    int64_t q0 = int64_t(startsQ[b]), k0 = int64_t(startsK[b]);
    Sizes one{1, n.h, n.hkv, sq, sk, n.d, n.dv};
    std::vector<double> qs(n.h * sq * n.d), dos(n.h * sq * n.dv),
        ks(n.hkv * sk * n.d), vs(n.hkv * sk * n.dv);
    move(q, qs, n.h, n.sq, q0, sq, n.d, false);
    move(dout, dos, n.h, n.sq, q0, sq, n.dv, false);
    move(k, ks, n.hkv, n.sk, k0, sk, n.d, false);
    move(v, vs, n.hkv, n.sk, k0, sk, n.dv, false);
    Reference part = reference(one, qs, ks, vs, dos, scale, a);
    move(part.o, r.o, n.h, n.sq, q0, sq, n.dv, true);
    move(part.lse, r.lse, n.h, n.sq, q0, sq, 1, true);
    move(part.dq, r.dq, n.h, n.sq, q0, sq, n.d, true);
    move(part.dk, r.dk, n.hkv, n.sk, k0, sk, n.d, true);
    move(part.dv, r.dv, n.hkv, n.sk, k0, sk, n.dv, true);
  }
  return r;
}

/// `outcome` with the backward's time and rate last, when timed: the
/// forward's FLOPs (runner::flops: per sequence, halved when causal with SQ
/// == SK, a window's pairs) times 2.5 for the backward's five products.
RunOutcome withTime(RunOutcome outcome, const runner::AttentionProblem &a) {
  if (outcome.totalMs > 0) {
    double flops = 2.5 * runner::flops(a);
    char text[128];
    std::snprintf(text, sizeof text, "backward time=%.3f ms, %.1f TFLOP/s",
                  outcome.totalMs, flops / (outcome.totalMs * 1e-3) / 1e12);
    outcome.lines.push_back(text);
  }
  return outcome;
}

} // namespace

Expected<RunOutcome>
fa4::run::runBackward(const Arguments &args, runtime::Driver &driver,
                      const runtime::KernelFile &forward,
                      const std::vector<runtime::KernelFile> &files,
                      const std::string &work) {
  const runner::AttentionProblem &a = args.attention;
  // Packed sequences are one batch of all their tokens, [H, T, D].
  const bool packed = a.isVarlen();
  Sizes n{packed ? 1 : int64_t(a.batch),
          int64_t(a.heads),
          int64_t(a.keyHeads()),
          int64_t(packed ? a.totalQ() : a.seqQ),
          int64_t(packed ? a.totalK() : a.seqK),
          int64_t(a.headDim),
          int64_t(a.valueHeadDim())};
  ElementType type = a.elementType;
  double scale = a.scale ? a.scale : 1.0 / std::sqrt(double(n.d));
  // Inputs uniform in [-1, 1), rounded to the element type.
  std::mt19937_64 rng(args.options.seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto draw = [&](int64_t heads, int64_t rows, int64_t columns) {
    std::vector<uint16_t> words(n.b * heads * rows * columns);
    for (uint16_t &word : words)
      word = runner::toWord(type, uniform(rng));
    return words;
  };
  std::vector<uint16_t> qw = draw(n.h, n.sq, n.d), kw = draw(n.hkv, n.sk, n.d),
                        vw = draw(n.hkv, n.sk, n.dv),
                        dow = draw(n.h, n.sq, n.dv);
  // O and the LSE as a trainer's backward gets them: from fa4's forward
  // (O in the element type, the natural LSE in f32). Its host tensors are
  // (B, H, S, D), or (T, H, D) for packed sequences, whose O comes back
  // so and their LSE as [H, T].
  runner::AttentionInputs given;
  given.q = packed ? runner::swapHeadsAndRows(qw, 1, n.h, n.sq, n.d) : qw;
  given.k = packed ? runner::swapHeadsAndRows(kw, 1, n.hkv, n.sk, n.d) : kw;
  given.v = packed ? runner::swapHeadsAndRows(vw, 1, n.hkv, n.sk, n.dv) : vw;
  if (Status s = runner::checkKernel(forward, a); !s.ok())
    return Status::error("forward kernel '" + forward.entry +
                         "': " + s.message());
  Expected<runtime::Kernel> forwardKernel =
      runtime::Kernel::load(driver, forward);
  if (!forwardKernel.ok())
    return forwardKernel.status();
  runner::RunOptions forwardOptions;
  forwardOptions.check = false;
  forwardOptions.keepOutput = true;
  Expected<runner::RunResult> forwardRun =
      runner::run(*forwardKernel, forward, a, forwardOptions, &given);
  if (!forwardRun.ok())
    return forwardRun.status();
  std::vector<uint16_t> ow =
      packed ? runner::swapHeadsAndRows(forwardRun->output, 1, n.sq, n.h, n.dv)
             : std::move(forwardRun->output);
  std::vector<float> lse = std::move(forwardRun->lse);
  if (ow.size() != size_t(n.b * n.h * n.sq * n.dv) ||
      lse.size() != size_t(n.b * n.h * n.sq))
    return Status::error("forward kernel '" + forward.entry + "' gave " +
                         std::to_string(ow.size()) + " values of O and " +
                         std::to_string(lse.size()) + " of the LSE, not " +
                         std::to_string(n.b * n.h * n.sq * n.dv) + " and " +
                         std::to_string(n.b * n.h * n.sq));

  // [B, heads, rows(, columns)], or packed [heads, rows(, columns)].
  auto shape = [&](int64_t heads, int64_t rows, int64_t columns) {
    std::vector<uint64_t> s;
    if (!packed)
      s.push_back(uint64_t(n.b));
    s.push_back(uint64_t(heads));
    s.push_back(uint64_t(rows));
    if (columns)
      s.push_back(uint64_t(columns));
    return s;
  };
  auto path = [&](const std::string &name) {
    return work + "/" + name + ".npy";
  };
  for (auto [name, heads, rows, columns, words] :
       {std::tuple{"q", n.h, n.sq, n.d, &qw},
        {"k", n.hkv, n.sk, n.d, &kw},
        {"v", n.hkv, n.sk, n.dv, &vw},
        {"do", n.h, n.sq, n.dv, &dow},
        {"o", n.h, n.sq, n.dv, &ow}})
    if (Status s = runner::writeNpy(path(name), type,
                                    shape(heads, rows, columns), *words);
        !s.ok())
      return s;
  if (Status s = runner::writeNpy(path("lse"), shape(n.h, n.sq, 0), lse);
      !s.ok())
    return s;
  // Packed: D's kernel reads O and dO as one sequence, [1, H, T, D]; the
  // others read the offsets.
  if (packed) {
    for (auto [name, words] : {std::pair{"o", &ow}, std::pair{"do", &dow}})
      if (Status s = runner::writeNpy(
              path(std::string(name) + "-rows"), type,
              {1, uint64_t(n.h), uint64_t(n.sq), uint64_t(n.dv)}, *words);
          !s.ok())
        return s;
    for (auto [name, starts] : {std::pair{"cu_seqlens_q", a.offsetsQ()},
                                std::pair{"cu_seqlens_k", a.offsetsK()}})
      if (Status s = runner::writeNpy(
              path(name), {uint64_t(starts.size())},
              std::vector<int32_t>(starts.begin(), starts.end()));
          !s.ok())
        return s;
  }

  RunOutcome outcome;
  std::vector<double> dq, dk, dv;
  // In five products the main kernel adds dQ's parts into an f32 dQaccum
  // (the head dim padded to 64 columns) that starts at zero, and the
  // postprocess scales it into dQ.
  bool fused = std::any_of(files.begin(), files.end(),
                           [](const runtime::KernelFile &file) {
                             return file.findTensor("dq_accum") != nullptr;
                           });
  const int64_t padded = KernelKey::paddedHeadDim(n.d);
  auto writeAccum = [&](const std::vector<float> &accum) {
    return runner::writeNpy(
        path("dq_accum"),
        {uint64_t(n.b), uint64_t(n.h), uint64_t(n.sq), uint64_t(padded)},
        accum);
  };
  if (fused)
    if (Status s = writeAccum(std::vector<float>(n.b * n.h * n.sq * padded));
        !s.ok())
      return s;
  // A kernel's name in the lines, by the gradients it writes.
  auto stage = [](const runtime::KernelFile &file) -> const char * {
    bool dk = file.findTensor("dk"), dv = file.findTensor("dv");
    if (dk && file.findTensor("dq_accum"))
      return "dK/dV and dQ's parts";
    if (file.findTensor("dq"))
      return "dQ";
    return dk && dv ? "dK/dV" : dk ? "dK" : dv ? "dV" : "D";
  };
  for (size_t which = 0; which < files.size(); ++which) {
    const runtime::KernelFile &file = files[which];
    std::vector<runner::ArgumentSpec> specs;
    for (const runtime::KernelTensor &tensor : file.tensors) {
      bool input = tensor.name == "q" || tensor.name == "k" ||
                   tensor.name == "v" || tensor.name == "do" ||
                   tensor.name == "o" || tensor.name == "lse" ||
                   tensor.name == "dq_accum" || tensor.name == "cu_seqlens_q" ||
                   tensor.name == "cu_seqlens_k" ||
                   (tensor.name == "delta" && which > 0);
      if (!input)
        continue;
      runner::ArgumentSpec spec;
      spec.name = tensor.name;
      spec.kind = runner::ArgumentSpec::Kind::File;
      spec.path =
          path(packed && which == 0 ? tensor.name + "-rows" : tensor.name);
      specs.push_back(spec);
    }
    addScalars(file,
               {{"softmax_scale", scale},
                {"causal", a.causal ? 1.0 : 0.0},
                {"window_left", double(a.windowLeft)},
                {"window_right", double(a.windowRight)},
                {"softcap", a.softcap},
                {"max_seqlen_q", double(a.seqQ)},
                {"max_seqlen_k", double(a.seqK)}},
               specs);
    Expected<runner::KernelRunResult> result =
        runStage(driver, file, specs, args.options, stage(file), outcome);
    if (!result.ok())
      return result.status();
    if (which == 0) {
      const runner::HostTensor *delta = find(*result, "delta");
      if (!delta)
        return Status::error("kernel '" + file.entry + "' has no delta");
      std::vector<double> d = values(*delta);
      std::vector<float> words(d.begin(), d.end());
      if (Status s =
              runner::writeNpy(path("delta"), shape(n.h, n.sq, 0), words);
          !s.ok())
        return s;
      continue;
    }
    for (auto [name, out] :
         {std::pair{"dq", &dq}, std::pair{"dk", &dk}, std::pair{"dv", &dv}})
      if (const runner::HostTensor *tensor = find(*result, name))
        *out = values(*tensor);
    if (const runner::HostTensor *accum = find(*result, "dq_accum")) {
      std::vector<double> sums = values(*accum);
      if (Status s = writeAccum(std::vector<float>(sums.begin(), sums.end()));
          !s.ok())
        return s;
    }
  }
  if (!args.options.check) {
    outcome.lines.push_back("gradients: not checked (--no-check)");
    return withTime(outcome, a);
  }
  // The float64 gradients of the inputs as the kernels read them, forward
  // and backward a query row at a time.
  auto exact = [&](const std::vector<uint16_t> &words) {
    std::vector<double> values(words.size());
    for (size_t i = 0; i < words.size(); ++i)
      values[i] = runner::fromWord(type, words[i]);
    return values;
  };
  std::vector<double> q = exact(qw), k = exact(kw), v = exact(vw),
                      dout = exact(dow);
  Reference ref = packed ? packedReference(n, q, k, v, dout, scale, a)
                         : reference(n, q, k, v, dout, scale, a);
  std::string line = "gradients:";
  for (auto [name, got, want] :
       {std::tuple{"dq", &dq, &ref.dq}, {"dk", &dk, &ref.dk},
        {"dv", &dv, &ref.dv}}) {
    if (got->size() != want->size()) {
      line += std::string(" ") + name + " not written";
      outcome.passed = false;
      continue;
    }
    auto [error, nans] = relativeError(*got, *want);
    char text[96];
    std::snprintf(text, sizeof text, " %s rel_err=%.2e nan=%llu", name, error,
                  (unsigned long long)nans);
    line += text;
    if (!(error < 1e-2) || nans)
      outcome.passed = false;
  }
  // A row that sees no key has a zero gradient, exactly.
  uint64_t unseen = 0, stray = 0;
  for (size_t row = 0; row < ref.lse.size(); ++row)
    if (std::isinf(ref.lse[row])) {
      ++unseen;
      for (int64_t c = 0; c < n.d; ++c)
        stray += dq[row * n.d + c] != 0;
    }
  line += "; rows without a key " + std::to_string(unseen) + ", nonzero dQ " +
          std::to_string(stray);
  if (stray)
    outcome.passed = false;
  outcome.lines.push_back(line + (outcome.passed ? ": PASS" : ": FAIL"));
  return withTime(outcome, a);
}

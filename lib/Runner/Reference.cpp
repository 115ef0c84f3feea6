//===- Reference.cpp - float64 references on the CPU ----------------------===//
//
// The GEMM and attention references for sampled rows. Products of two bf16
// (or f16) values are exact in float; every sum is accumulated in double, the
// GEMM's over four partial sums so that the loop is not bound by the latency of
// one addition chain.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Reference.h"
#include "fa4/Runner/Element.h"

#include "Parallel.h"

#include <algorithm>
#include <cmath>

using namespace fa4::runner;

/// `words` of `type` as floats (exact), converted on all cores.
static std::vector<float> toFloat(fa4::runtime::ElementType type,
                                  const std::vector<uint16_t> &words) {
  std::vector<float> values(words.size());
  parallelFor(words.size(), 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i)
      values[i] = fromWord(type, words[i]);
  });
  return values;
}

/// Σ x[i]·y[i] for i < n, in double.
static double dot(const float *x, const float *y, uint64_t n) {
  double sum[4] = {0, 0, 0, 0};
  uint64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (unsigned lane = 0; lane < 4; ++lane)
      sum[lane] += double(x[i + lane] * y[i + lane]);
  for (; i < n; ++i)
    sum[0] += double(x[i] * y[i]);
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

std::vector<double> fa4::runner::referenceGemm(
    const GemmProblem &problem, const std::vector<uint16_t> &a,
    const std::vector<uint16_t> &b, const std::vector<uint64_t> &rows) {
  uint64_t n = problem.n, k = problem.k;
  std::vector<float> bf = toFloat(problem.elementType, b);
  std::vector<double> result(rows.size() * n);
  parallelFor(rows.size(), 1, [&](uint64_t begin, uint64_t end) {
    std::vector<float> arow(k);
    for (uint64_t r = begin; r < end; ++r) {
      for (uint64_t i = 0; i < k; ++i)
        arow[i] = fromWord(problem.elementType, a[rows[r] * k + i]);
      for (uint64_t col = 0; col < n; ++col)
        result[r * n + col] = dot(arow.data(), &bf[col * k], k);
    }
  });
  return result;
}

KeyRange fa4::runner::visibleRange(const AttentionProblem &problem,
                                   uint64_t i) {
  int64_t sk = int64_t(problem.seqK);
  // Query i's diagonal key is i + SK - SQ.
  int64_t diagonal = int64_t(i) + sk - int64_t(problem.seqQ);
  int64_t first = 0, end = sk;
  if (problem.windowLeft >= 0)
    first = diagonal - problem.windowLeft;
  int64_t right = problem.causal ? 0 : problem.windowRight;
  if (problem.causal || problem.windowRight >= 0)
    end = diagonal + right + 1;
  first = std::clamp<int64_t>(first, 0, sk);
  end = std::clamp<int64_t>(end, 0, sk);
  return {uint64_t(first), uint64_t(std::max(first, end))};
}

uint64_t fa4::runner::visibleKeys(const AttentionProblem &problem, uint64_t i) {
  return visibleRange(problem, i).size();
}

std::vector<double> fa4::runner::referenceAttention(
    const AttentionProblem &problem, const std::vector<uint16_t> &q,
    const std::vector<uint16_t> &k, const std::vector<uint16_t> &v,
    const std::vector<uint64_t> &rows, std::vector<double> *lse) {
  uint64_t d = problem.headDim, dv = problem.valueHeadDim(), sq = problem.seqQ,
           sk = problem.seqK;
  uint64_t heads = problem.heads, kvHeads = problem.keyHeads();
  // Query head h reads KV head h / (H / HKV).
  uint64_t group = heads / kvHeads;
  bool varlen = problem.isVarlen();
  std::vector<uint64_t> startsQ, startsK;
  if (varlen) {
    startsQ = problem.offsetsQ();
    startsK = problem.offsetsK();
  }
  if (lse)
    lse->assign(rows.size(), -INFINITY);
  std::vector<float> kf = toFloat(problem.elementType, k),
                     vf = toFloat(problem.elementType, v);
  std::vector<double> result(rows.size() * dv, 0.0);
  parallelFor(rows.size(), 1, [&](uint64_t begin, uint64_t end) {
    std::vector<float> qrow(d);
    std::vector<double> p(std::max(sk, uint64_t(1))), out(dv);
    for (uint64_t r = begin; r < end; ++r) {
      // Where the row's keys are: the first K and V row of its head and
      // sequence, in rows of their head dims, the distance between key rows
      // (in rows), and the keys it sees.
      uint64_t keyRow, rowStride = 1;
      KeyRange range;
      if (varlen) {
        uint64_t token = rows[r] / heads, h = rows[r] % heads;
        uint64_t b = uint64_t(std::upper_bound(startsQ.begin() + 1,
                                               startsQ.end(), token) -
                              startsQ.begin() - 1);
        range = visibleRange(problem.sequence(b), token - startsQ[b]);
        keyRow = startsK[b] * kvHeads + h / group;
        rowStride = kvHeads;
      } else {
        uint64_t head = rows[r] / sq, i = rows[r] % sq;
        range = visibleRange(problem, i);
        uint64_t kvHead = head / heads * kvHeads + head % heads / group;
        keyRow = kvHead * sk;
      }
      if (range.size() == 0)
        continue;
      for (uint64_t c = 0; c < d; ++c)
        qrow[c] = fromWord(problem.elementType, q[rows[r] * d + c]);
      const float *kh = &kf[keyRow * d], *vh = &vf[keyRow * dv];
      uint64_t keyStride = rowStride * d, valueStride = rowStride * dv;
      double max = -INFINITY;
      for (uint64_t j = range.first; j < range.end; ++j) {
        p[j] = problem.scale * dot(qrow.data(), kh + j * keyStride, d);
        if (problem.softcap > 0)
          p[j] = problem.softcap * std::tanh(p[j] / problem.softcap);
        max = std::max(max, p[j]);
      }
      double sum = 0;
      for (uint64_t j = range.first; j < range.end; ++j) {
        p[j] = std::exp(p[j] - max);
        sum += p[j];
      }
      std::fill(out.begin(), out.end(), 0.0);
      for (uint64_t j = range.first; j < range.end; ++j)
        for (uint64_t c = 0; c < dv; ++c)
          out[c] += p[j] * double(vh[j * valueStride + c]);
      for (uint64_t c = 0; c < dv; ++c)
        result[r * dv + c] = out[c] / sum;
      if (lse)
        (*lse)[r] = max + std::log(sum);
    }
  });
  return result;
}

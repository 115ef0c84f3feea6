//===- runner-checks.cpp - Checks of the fa4 runner -----------------------===//
//
// The driver behind the runner lit tests: the parts of fa4-run that decide
// whether a kernel passes, run on the CPU with inputs whose answers are known.
// Each subcommand prints lines for FileCheck: bf16 rounding, the random
// inputs, the row sample, the float64 references on hand-computed cases (V
// with a head dim of its own too), and the output check on outputs broken on
// purpose (a NaN left, a guard write, a wrong column block, a wrong tile
// row).
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/BF16.h"
#include "fa4/Runner/Check.h"
#include "fa4/Runner/Element.h"
#include "fa4/Runner/Npy.h"
#include "fa4/Runner/Random.h"
#include "fa4/Runner/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace fa4::runner;

//===----------------------------------------------------------------------===//
// bf16 and random inputs
//===----------------------------------------------------------------------===//

static int runBF16() {
  struct {
    const char *name;
    float value;
  } cases[] = {{"one", 1.0f},
               {"minus-two", -2.0f},
               // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
               {"tie-to-even-down", 1.00390625f},
               // 1 + 3·2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6.
               {"tie-to-even-up", 1.01171875f},
               {"nan", NAN},
               {"infinity", INFINITY}};
  for (const auto &c : cases) {
    uint16_t word = toBF16(c.value);
    std::printf("%s: 0x%04x -> %g nan=%d\n", c.name, word, fromBF16(word),
                int(isNaNBF16(word)));
  }
  std::printf("poison 0xffff nan=%d\n", int(isNaNBF16(0xffff)));
  return 0;
}

static int runF16() {
  struct {
    const char *name;
    float value;
  } cases[] = {{"one", 1.0f},
               {"minus-two", -2.0f},
               {"minus-zero", -0.0f},
               // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even.
               {"tie-to-even-down", 1.00048828125f},
               // 1 + 3·2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9.
               {"tie-to-even-up", 1.00146484375f},
               {"largest", 65504.0f},
               {"below-overflow", 65519.0f},
               // 65520 is halfway between 65504 and 2^16: to even, infinity.
               {"overflow", 65520.0f},
               {"smallest-normal", 0x1p-14f},
               // Halfway between the largest subnormal and 2^-14: to even.
               {"tie-to-normal", 0x1p-14f - 0x1p-25f},
               {"smallest-subnormal", 0x1p-24f},
               // 2^-25 is halfway between 0 and 2^-24: to even, 0.
               {"tie-to-zero", 0x1p-25f},
               {"above-tie-to-zero", 0x1.8p-25f},
               // 3·2^-25 is halfway between 2^-24 and 2^-23: to even.
               {"subnormal-tie-up", 0x1.8p-24f},
               {"nan", NAN},
               {"infinity", INFINITY}};
  for (const auto &c : cases) {
    uint16_t word = toF16(c.value);
    std::printf("%s: 0x%04x -> %g nan=%d\n", c.name, word, fromF16(word),
                int(isNaNF16(word)));
  }
  std::printf("poison 0xffff nan=%d\n", int(isNaNF16(0xffff)));
  // The same float through the element-type dispatch.
  std::printf("1.00048828125 as bf16 0x%04x, as f16 0x%04x\n",
              toWord(fa4::runtime::ElementType::BF16, 1.00048828125f),
              toWord(fa4::runtime::ElementType::F16, 1.00048828125f));
  // Random f16 inputs are f16 words in [-1, 1], never 0.
  std::vector<uint16_t> words(1 << 16);
  fillUniform(words, fa4::runtime::ElementType::F16, 7, 0);
  bool inRange = true, zero = false;
  for (uint16_t word : words) {
    float x = fromF16(word);
    inRange &= x >= -1 && x <= 1;
    zero |= x == 0;
  }
  std::printf("random f16: in [-1, 1]: %s, zeros: %s\n", inRange ? "yes" : "no",
              zero ? "yes" : "no");
  return 0;
}

static int runNpy() {
  using fa4::runtime::ElementType;
  std::vector<uint16_t> words = {0x3c00, 0xc000, 0x7bff};
  std::string bytes = serializeNpy(ElementType::F16, {1, 1, 1, 3}, words);
  std::printf("written: %zu bytes, data at %zu\n", bytes.size(),
              bytes.size() - 6);
  fa4::runtime::Expected<NpyArray> array = parseNpy(bytes, "o.npy");
  if (!array.ok()) {
    std::printf("%s\n", array.status().message().c_str());
    return 1;
  }
  std::vector<uint16_t> back = toWords(*array, ElementType::F16);
  std::printf("read back: %s %s same words: %s\n", npyDescr(array->type),
              array->shapeText().c_str(), back == words ? "yes" : "no");
  // f32 1 + 2^-8 + 2^-11, converted with round-to-nearest-even.
  NpyArray f32;
  f32.shape = {1};
  float value = 1.00439453125f;
  f32.data.assign(reinterpret_cast<const char *>(&value), sizeof(value));
  std::printf("f32 %.11g as bf16 0x%04x, as f16 0x%04x\n", value,
              toWords(f32, ElementType::BF16)[0],
              toWords(f32, ElementType::F16)[0]);
  // bf16 bits read for an f16 kernel: bf16 1 + 2^-7 is exact in f16.
  NpyArray bits;
  bits.type = NpyType::BF16Bits;
  bits.shape = {1};
  bits.data = std::string("\x81\x3f", 2);
  std::printf("bf16 0x3f81 as f16 0x%04x\n",
              toWords(bits, ElementType::F16)[0]);
  // The log-sum-exp file: f32 values, -inf included, read back bit-exact.
  std::vector<float> lse = {1.5f, -INFINITY, 0.25f};
  std::string lseBytes = serializeNpy({1, 1, 3}, lse);
  fa4::runtime::Expected<NpyArray> lseArray = parseNpy(lseBytes, "lse.npy");
  if (!lseArray.ok()) {
    std::printf("%s\n", lseArray.status().message().c_str());
    return 1;
  }
  std::vector<float> lseBack(lseArray->elements());
  std::memcpy(lseBack.data(), lseArray->data.data(), lseArray->data.size());
  std::printf("lse: %zu bytes, %s %s, values %g %g %g\n", lseBytes.size(),
              npyDescr(lseArray->type), lseArray->shapeText().c_str(),
              lseBack[0], lseBack[1], lseBack[2]);
  return 0;
}

static int runRandom() {
  std::vector<uint16_t> a(1 << 20), b(1 << 20), c(1 << 20);
  fillUniform(a, fa4::runtime::ElementType::BF16, 7, 0);
  fillUniform(b, fa4::runtime::ElementType::BF16, 7, 0);
  fillUniform(c, fa4::runtime::ElementType::BF16, 7, 1);
  double sum = 0, sumSquares = 0, min = 2, max = -2;
  uint64_t zeros = 0;
  for (uint16_t word : a) {
    double x = fromBF16(word);
    zeros += x == 0;
    sum += x;
    sumSquares += x * x;
    min = std::min(min, x);
    max = std::max(max, x);
  }
  double n = double(a.size());
  std::printf("same seed and stream: %s\n", a == b ? "identical" : "differ");
  std::printf("other stream: %s\n", a == c ? "identical" : "differ");
  std::printf("zeros: %llu\n", (unsigned long long)zeros);
  std::printf("in [-1, 1]: %s\n", min >= -1 && max <= 1 ? "yes" : "no");
  std::printf("mean within 0.01 of 0: %s\n",
              std::fabs(sum / n) < 0.01 ? "yes" : "no");
  // The variance of U(-1, 1) is 1/3.
  std::printf("variance within 0.01 of 1/3: %s\n",
              std::fabs(sumSquares / n - 1.0 / 3) < 0.01 ? "yes" : "no");
  return 0;
}

//===----------------------------------------------------------------------===//
// sample: the rows checked
//===----------------------------------------------------------------------===//

static int runSample() {
  struct {
    uint64_t count, limit;
  } cases[] = {{5, 8}, {20, 4}, {4096, 256}};
  for (const auto &c : cases) {
    std::vector<uint64_t> rows = sampleRows(c.count, c.limit);
    std::printf("sample %llu of %llu:", (unsigned long long)rows.size(),
                (unsigned long long)c.count);
    bool sorted = true;
    std::vector<bool> positions(16);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows.size() <= 8)
        std::printf(" %llu", (unsigned long long)rows[i]);
      sorted &= i == 0 || rows[i] > rows[i - 1];
      positions[rows[i] % 16] = true;
    }
    unsigned covered = 0;
    for (bool p : positions)
      covered += p;
    std::printf("; first %llu last %llu sorted %s; %u of 16 residues mod 16\n",
                (unsigned long long)rows.front(),
                (unsigned long long)rows.back(), sorted ? "yes" : "no",
                covered);
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// reference: hand-computed GEMM and attention results
//===----------------------------------------------------------------------===//

static std::vector<uint16_t> words(const std::vector<float> &values) {
  std::vector<uint16_t> result;
  for (float value : values)
    result.push_back(toBF16(value));
  return result;
}

static void printRows(const char *name, const std::vector<double> &values,
                      uint64_t cols) {
  for (uint64_t r = 0; r * cols < values.size(); ++r) {
    std::printf("%s row %llu:", name, (unsigned long long)r);
    for (uint64_t c = 0; c < cols; ++c)
      std::printf(" %.6g", values[r * cols + c]);
    std::printf("\n");
  }
}

static int runReference() {
  // A = [[1, 2], [3, 4], [-1, 0.5]] (3 x 2), B = [[1, 0], [0, 1], [1, 1]]:
  // C = A·Bᵀ = [[1, 2, 3], [3, 4, 7], [-1, 0.5, -0.5]]; rows 2 and 0 only.
  GemmProblem gemm{3, 3, 2};
  printRows("gemm",
            referenceGemm(gemm, words({1, 2, 3, 4, -1, 0.5}),
                          words({1, 0, 0, 1, 1, 1}), {2, 0}),
            3);

  // One head, D = 2, SQ = 2, SK = 3. Q rows [0, 0] and [1, 0]; K rows
  // [0, 0], [1, 0], [2, 0]; V rows [1, 0], [0, 1], [1, 1]; scale 1.
  AttentionProblem attention{1, 1, 2, 3, 2, false, 1.0};
  std::vector<uint16_t> q = words({0, 0, 1, 0}), k = words({0, 0, 1, 0, 2, 0}),
                        v = words({1, 0, 0, 1, 1, 1});
  // Query 0 scores 0, 0, 0: the mean of V, [2/3, 2/3].
  // Query 1 scores 0, 1, 2: weights e^0, e^1, e^2 over their sum.
  std::vector<double> lse;
  printRows("attention",
            referenceAttention(attention, q, k, v, {0, 1}, &lse), 2);
  double e1 = std::exp(1.0), e2 = std::exp(2.0), sum = 1 + e1 + e2;
  std::printf("expected row 1: %.6g %.6g\n", (1 + e2) / sum, (e1 + e2) / sum);
  // The log-sum-exp: ln 3 for query 0, ln(1 + e + e^2) for query 1.
  std::printf("lse: %.6g %.6g expected %.6g %.6g\n", lse[0], lse[1],
              std::log(3.0), std::log(sum));

  // Causal with SK - SQ = 1: query 0 sees keys 0 and 1, query 1 all three.
  attention.causal = true;
  printRows("causal", referenceAttention(attention, q, k, v, {0, 1}), 2);
  std::printf("visible keys: %llu %llu\n",
              (unsigned long long)visibleKeys(attention, 0),
              (unsigned long long)visibleKeys(attention, 1));

  // Causal with SQ = 3 > SK = 1: queries 0 and 1 see no key and are 0.
  AttentionProblem wide{1, 1, 3, 1, 2, true, 1.0};
  printRows("no-keys",
            referenceAttention(wide, words({1, 0, 1, 0, 1, 0}), words({1, 0}),
                               words({5, 7}), {0, 1, 2}, &lse),
            2);
  std::printf("no-keys lse: %g %g %g\n", lse[0], lse[1], lse[2]);
  return 0;
}

//===----------------------------------------------------------------------===//
// varlen: packed sequences against each sequence alone
//===----------------------------------------------------------------------===//

/// Rows of sequences of lengths 3, 0 and 2 (keys 2, 4 and 0), two query heads
/// on one KV head, causal: each packed row equals the same row of its
/// sequence computed alone, the empty key sequence gives zeros and -inf, and
/// offsets that decrease, do not start at 0 or do not end at the tokens are
/// refused.
static int runVarlen() {
  AttentionProblem packed{0, 2, 0, 0, 2, true, 0.5};
  packed.kvHeads = 1;
  if (!setSequenceLengths(packed, {3, 0, 2}, {2, 4, 0}).ok())
    return 1;
  std::printf("packed: %s, %.0f flops\n", describe(packed).c_str(),
              flops(packed));
  // Q (5 tokens, 2 heads, D = 2), K and V (6 tokens, 1 head, D = 2).
  std::vector<float> qv, kv, vv;
  for (int i = 0; i < 5 * 2 * 2; ++i)
    qv.push_back(float((i * 7) % 5 - 2) / 2);
  for (int i = 0; i < 6 * 2; ++i) {
    kv.push_back(float((i * 3) % 7 - 3) / 2);
    vv.push_back(float(i % 4));
  }
  std::vector<uint16_t> q = words(qv), k = words(kv), v = words(vv);
  std::vector<uint64_t> rows;
  for (uint64_t r = 0; r < 10; ++r)
    rows.push_back(r);
  std::vector<double> lse;
  std::vector<double> out = referenceAttention(packed, q, k, v, rows, &lse);
  // Sequence 0 alone: tokens 0-2, keys 0-1, as (B, H, S, D) = (1, 2, 3, 2).
  AttentionProblem first = packed.sequence(0);
  std::vector<uint16_t> q0, k0(k.begin(), k.begin() + 4),
      v0(v.begin(), v.begin() + 4);
  for (uint64_t h = 0; h < 2; ++h)
    for (uint64_t t = 0; t < 3; ++t)
      for (uint64_t c = 0; c < 2; ++c)
        q0.push_back(q[(t * 2 + h) * 2 + c]);
  std::vector<double> lse0;
  std::vector<double> alone =
      referenceAttention(first, q0, k0, v0, {0, 1, 2, 3, 4, 5}, &lse0);
  bool same = true;
  for (uint64_t t = 0; t < 3; ++t)
    for (uint64_t h = 0; h < 2; ++h) {
      uint64_t r = t * 2 + h, a = h * 3 + t;
      same &= out[2 * r] == alone[2 * a] && out[2 * r + 1] == alone[2 * a + 1] &&
              lse[r] == lse0[a];
    }
  std::printf("sequence 0 packed as alone: %s\n", same ? "yes" : "no");
  printRows("packed", out, 2);
  std::printf("packed lse:");
  for (double value : lse)
    std::printf(" %.6g", value);
  std::printf("\n");
  // The blocks in the order the kernel starts them: the most keys first,
  // each sequence's last block first.
  AttentionProblem mixed = packed;
  mixed.causal = false;
  if (!setSequenceLengths(mixed, {200, 300, 129, 0}, {200, 300, 129, 0}).ok())
    return 1;
  std::printf("tiles:");
  std::vector<int32_t> tiles = varlenTiles(mixed);
  for (size_t i = 0; i < tiles.size(); i += 2)
    std::printf(" %d,%d", tiles[i], tiles[i + 1]);
  std::printf("\n");
  for (const std::vector<int64_t> &cu :
       {std::vector<int64_t>{0, 3, 3, 5}, {0, 3, 2, 5}, {1, 3}, {0}, {0, 3, 4}})
    std::printf("%s\n", [&] {
      fa4::runtime::Expected<std::vector<uint64_t>> lengths =
          lengthsFromOffsets(cu, "cu", 5);
      if (!lengths.ok())
        return lengths.status().message();
      std::string text = "lengths";
      for (uint64_t length : *lengths)
        text += " " + std::to_string(length);
      return text;
    }().c_str());
  return 0;
}

//===----------------------------------------------------------------------===//
// value-head-dim: V and O with a head dim of their own
//===----------------------------------------------------------------------===//

/// Attention with D = 192 and Dv = 128 (DeepSeek's MLA prefill): the
/// reference on a case computed by hand, whose scores come from the last
/// column of Q and K (past Dv) and whose V rows are 128 wide; packed
/// sequences against each sequence alone; the description, the flops and the
/// refusal of a Dv that is not a multiple of 8.
static int runValueHeadDim() {
  // One head, SQ = 2, SK = 3, scale 1. Q row 0 is 0, Q row 1 has a 1 in
  // column 191; K row j has j there: scores 0, 0, 0 and 0, 1, 2. V row j
  // has 1 in the columns c with c % 3 == j.
  AttentionProblem mla{1, 1, 2, 3, 192, false, 1.0};
  mla.headDimV = 128;
  std::vector<float> qv(2 * 192), kv(3 * 192), vv(3 * 128);
  qv[192 + 191] = 1;
  for (int j = 0; j < 3; ++j) {
    kv[j * 192 + 191] = float(j);
    for (int c = 0; c < 128; ++c)
      vv[j * 128 + c] = c % 3 == j ? 1 : 0;
  }
  std::vector<double> lse;
  std::vector<double> out =
      referenceAttention(mla, words(qv), words(kv), words(vv), {0, 1}, &lse);
  std::printf("reference: %zu values, %zu per row\n", out.size(),
              out.size() / 2);
  for (uint64_t r = 0; r < 2; ++r)
    std::printf("row %llu cols 0 1 2 127: %.6g %.6g %.6g %.6g\n",
                (unsigned long long)r, out[r * 128], out[r * 128 + 1],
                out[r * 128 + 2], out[r * 128 + 127]);
  // By hand: row 0 is the mean of V, 1/3 everywhere; row 1 weighs V row j
  // by e^j / (1 + e + e^2), so column c holds the weight of j = c % 3.
  double sum = 1 + std::exp(1.0) + std::exp(2.0);
  bool same = true;
  for (int c = 0; c < 128; ++c)
    same &= std::fabs(out[c] - 1.0 / 3) < 1e-12 &&
            std::fabs(out[128 + c] - std::exp(double(c % 3)) / sum) < 1e-12;
  std::printf("by hand in all 128 columns: %s\n", same ? "yes" : "no");
  std::printf("lse: %.6g %.6g expected %.6g %.6g\n", lse[0], lse[1],
              std::log(3.0), std::log(sum));

  // Packed sequences of lengths 2 and 1 (keys 3 and 2), two query heads on
  // one KV head: each packed row is the same row of its sequence alone.
  AttentionProblem packed{0, 2, 0, 0, 192, true, 0.25};
  packed.headDimV = 128;
  packed.kvHeads = 1;
  if (!setSequenceLengths(packed, {2, 1}, {3, 2}).ok())
    return 1;
  auto pattern = [](uint64_t count, int salt) {
    std::vector<float> values;
    for (uint64_t i = 0; i < count; ++i)
      values.push_back(float(int((i * 7 + uint64_t(salt)) % 9) - 4) / 4);
    return values;
  };
  std::vector<uint16_t> pq = words(pattern(3 * 2 * 192, 1)),
                        pk = words(pattern(5 * 192, 2)),
                        pv = words(pattern(5 * 128, 3));
  std::vector<double> packedOut =
      referenceAttention(packed, pq, pk, pv, {0, 1, 2, 3, 4, 5});
  bool asAlone = packedOut.size() == 6 * 128;
  for (uint64_t b = 0; b < 2; ++b) {
    AttentionProblem one = packed.sequence(b);
    uint64_t firstQ = b == 0 ? 0 : 2, firstK = b == 0 ? 0 : 3;
    // The sequence as (B, H, S, D): its tokens' rows, head by head.
    std::vector<uint16_t> q1;
    for (uint64_t h = 0; h < 2; ++h)
      for (uint64_t t = 0; t < one.seqQ; ++t)
        q1.insert(q1.end(), pq.begin() + ((firstQ + t) * 2 + h) * 192,
                  pq.begin() + ((firstQ + t) * 2 + h + 1) * 192);
    std::vector<uint16_t> k1(pk.begin() + firstK * 192,
                             pk.begin() + (firstK + one.seqK) * 192),
        v1(pv.begin() + firstK * 128, pv.begin() + (firstK + one.seqK) * 128);
    std::vector<uint64_t> rows;
    for (uint64_t r = 0; r < 2 * one.seqQ; ++r)
      rows.push_back(r);
    std::vector<double> alone = referenceAttention(one, q1, k1, v1, rows);
    for (uint64_t h = 0; h < 2; ++h)
      for (uint64_t t = 0; t < one.seqQ; ++t)
        for (uint64_t c = 0; c < 128; ++c)
          asAlone &= packedOut[((firstQ + t) * 2 + h) * 128 + c] ==
                     alone[(h * one.seqQ + t) * 128 + c];
  }
  std::printf("packed as alone: %s\n", asAlone ? "yes" : "no");

  // The description, and the flops: 2·B·H·SQ·SK·(D + Dv), halved when
  // causal; D = Dv counts 4·B·H·SQ·SK·D as before.
  AttentionProblem big{2, 16, 4096, 4096, 192, true, 1 / std::sqrt(192.0)};
  big.headDimV = 128;
  std::printf("describe: %s\n", describe(big).c_str());
  AttentionProblem same192 = big;
  same192.headDimV = 192;
  std::printf("describe dv = d: %s\n", describe(same192).c_str());
  AttentionProblem square{1, 1, 128, 128, 192, false, 1.0};
  square.headDimV = 128;
  std::printf("flops: %.0f\n", flops(square));
  square.causal = true;
  std::printf("causal flops: %.0f\n", flops(square));
  square.headDimV = 0;
  square.headDim = 128;
  square.causal = false;
  std::printf("d = dv = 128 flops: %.0f\n", flops(square));
  square.windowLeft = 3;
  square.windowRight = 0;
  square.headDim = 192;
  square.headDimV = 128;
  std::printf("window flops: %.0f\n", flops(square));

  // The checks: Dv a multiple of 8 like D.
  for (uint64_t dv : {uint64_t(128), uint64_t(100)}) {
    big.headDimV = dv;
    fa4::runtime::Status status = checkProblem(big);
    std::printf("check dv=%llu: %s\n", (unsigned long long)dv,
                status.ok() ? "ok" : status.message().c_str());
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// check: outputs broken on purpose
//===----------------------------------------------------------------------===//

namespace {
/// A rows x cols output with its exact values, to be broken by each case.
struct Output {
  uint64_t rows = 256, cols = 64;
  std::vector<double> exact;
  std::vector<uint16_t> words;
  std::vector<uint16_t> guard = std::vector<uint16_t>(64, 0xffff);

  Output() {
    for (uint64_t i = 0; i < rows * cols; ++i) {
      // Values exact in bf16, so that the unbroken output has no error.
      exact.push_back(double(int(i % 61) - 30) / 8);
      words.push_back(toBF16(float(exact.back())));
    }
  }
};
} // namespace

static void reportCheck(const char *name, const Output &out,
                        const std::vector<uint64_t> &rows) {
  std::vector<double> reference;
  for (uint64_t row : rows)
    for (uint64_t c = 0; c < out.cols; ++c)
      reference.push_back(out.exact[row * out.cols + c]);
  CheckReport report = checkOutput(fa4::runtime::ElementType::BF16, out.words,
                                   out.cols, out.guard, rows, reference);
  std::printf("%s: rel_err=%.1e max_abs=%.1e %s\n", name, report.relativeError,
              report.maxAbsError, report.passed() ? "PASS" : "FAIL");
  RowNaming naming{[](uint64_t row) { return "row " + std::to_string(row); },
                   [](uint64_t row) { return row % 128; }};
  for (const std::string &line : describeFailure(report, naming))
    std::printf("  %s\n", line.c_str());
}

static int runCheck() {
  std::vector<uint64_t> all = sampleRows(256, 256);
  std::vector<uint64_t> some = sampleRows(256, 16);
  {
    Output out;
    reportCheck("exact", out, all);
  }
  {
    // Within bf16 rounding: one ulp off everywhere passes.
    Output out;
    for (uint16_t &word : out.words)
      word ^= 1;
    reportCheck("one-ulp", out, all);
  }
  {
    // An unwritten element in a row the sample skips still fails.
    Output out;
    out.words[5 * out.cols + 9] = 0xffff;
    std::printf("row 5 sampled: %s\n",
                std::find(some.begin(), some.end(), 5) != some.end() ? "yes"
                                                                     : "no");
    reportCheck("poison-left", out, some);
  }
  {
    Output out;
    out.guard[3] = toBF16(1.0f);
    reportCheck("guard-written", out, all);
  }
  {
    // Columns 16-31 of every row doubled.
    Output out;
    for (uint64_t r = 0; r < out.rows; ++r)
      for (uint64_t c = 16; c < 32; ++c)
        out.words[r * out.cols + c] =
            toBF16(float(2 * out.exact[r * out.cols + c]) + 1);
    reportCheck("wrong-columns", out, all);
  }
  {
    // Row 8 of each 128-row tile negated.
    Output out;
    for (uint64_t r = 8; r < out.rows; r += 128)
      for (uint64_t c = 0; c < out.cols; ++c)
        out.words[r * out.cols + c] ^= 0x8000;
    reportCheck("wrong-tile-row", out, all);
  }
  return 0;
}

/// Checks a per-row output of 300 values (row r holds r / 100 - 1, rows 0
/// and 1 -inf) broken by `breakIt`, all rows checked.
template <typename F> static void reportRowValues(const char *name, F breakIt) {
  std::vector<double> reference;
  std::vector<uint64_t> rows;
  for (uint64_t r = 0; r < 300; ++r) {
    rows.push_back(r);
    reference.push_back(r < 2 ? -INFINITY : double(r) / 100 - 1);
  }
  std::vector<float> values(reference.begin(), reference.end());
  std::vector<float> guard(8);
  std::memset(guard.data(), 0xff, guard.size() * sizeof(float));
  breakIt(values, guard);
  RowValueReport report = checkRowValues(values, guard, rows, reference);
  std::printf("%s: lse_err=%.1e %s\n", name, report.maxError,
              report.passed() ? "PASS" : "FAIL");
  RowNaming naming{[](uint64_t row) { return "row " + std::to_string(row); },
                   [](uint64_t row) { return row % 128; }};
  for (const std::string &line : describeFailure(report, naming, "lse"))
    std::printf("  %s\n", line.c_str());
}

static int runRowValues() {
  using Values = std::vector<float>;
  reportRowValues("exact", [](Values &, Values &) {});
  // 5e-4 relative passes; 2e-3 relative does not.
  reportRowValues("small", [](Values &v, Values &) { v[250] *= 1.0005f; });
  reportRowValues("large", [](Values &v, Values &) { v[250] *= 1.002f; });
  reportRowValues("finite-for-inf", [](Values &v, Values &) { v[1] = -30; });
  reportRowValues("inf-for-finite",
                  [](Values &v, Values &) { v[7] = -INFINITY; });
  reportRowValues("poison-left", [](Values &v, Values &) {
    std::memset(&v[42], 0xff, sizeof(float));
  });
  reportRowValues("guard-written", [](Values &, Values &g) { g[2] = 0; });
  return 0;
}

int main(int argc, char **argv) {
  struct {
    const char *name;
    int (*run)();
  } commands[] = {{"bf16", runBF16},     {"f16", runF16},
                  {"npy", runNpy},       {"random", runRandom},
                  {"sample", runSample}, {"reference", runReference},
                  {"check", runCheck},   {"row-values", runRowValues},
                  {"varlen", runVarlen}, {"value-head-dim", runValueHeadDim}};
  for (const auto &command : commands)
    if (argc == 2 && std::strcmp(argv[1], command.name) == 0)
      return command.run();
  std::fprintf(stderr, "usage: fa4-runner-checks "
                       "bf16|f16|npy|random|sample|reference|check|"
                       "row-values|varlen|value-head-dim\n");
  return 2;
}

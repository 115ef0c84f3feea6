//===- KernelKey.cpp - what to compile, as one typed value ----------------===//
//
// A kernel key's checks, its name and its canonical text.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/KernelKey.h"

#include <algorithm>
#include <utility>

using namespace fa4;
using runtime::Status;

KernelKey KernelKey::gemm() {
  KernelKey key;
  key.family = Family::Gemm;
  key.headDim = 0;
  return key;
}

std::vector<KernelKey> KernelKey::backwardKernels(const KernelKey &main,
                                                  bool fused) {
  std::vector<Family> families;
  int64_t columns = paddedHeadDim(std::max(main.headDim, main.valueHeadDim()));
  if (fused)
    families = {Family::AttentionBackwardPreprocess,
                Family::AttentionBackwardFused,
                Family::AttentionBackwardPostprocess};
  else if (columns <= kMaxJointDkDvColumns)
    families = {Family::AttentionBackwardPreprocess,
                Family::AttentionBackwardDq, Family::AttentionBackwardDkDv};
  else
    families = {Family::AttentionBackwardPreprocess,
                Family::AttentionBackwardDq, Family::AttentionBackwardDv,
                Family::AttentionBackwardDk};
  std::vector<KernelKey> keys;
  for (Family family : families) {
    KernelKey key = main;
    key.family = family;
    if (family == Family::AttentionBackwardPreprocess ||
        family == Family::AttentionBackwardPostprocess) {
      key.plan = Plan();
      key.window = key.softcap = false;
      // Rows alone: packed sequences are one sequence of all their tokens.
      key.varlen = false;
    }
    keys.push_back(key);
  }
  return keys;
}

bool KernelKey::backward() const {
  return family == Family::AttentionBackwardPreprocess ||
         family == Family::AttentionBackwardDq ||
         family == Family::AttentionBackwardDkDv ||
         family == Family::AttentionBackwardDk ||
         family == Family::AttentionBackwardDv ||
         family == Family::AttentionBackwardFused ||
         family == Family::AttentionBackwardPostprocess;
}

int64_t KernelKey::decodePageRows(int64_t pageSize) {
  if (pageSize < kHeadDimStep || pageSize % kHeadDimStep)
    return 0;
  int64_t rows = 128;
  while (pageSize % rows)
    rows /= 2;
  return rows;
}

int64_t KernelKey::decodeSplits(int64_t batch, int64_t heads, int64_t kvHeads,
                                int64_t seqQ, int64_t maxSeqK, int64_t numSms) {
  // The main kernel's tiles of 128 rows (two consumer warpgroups) and key
  // blocks of 128.
  constexpr int64_t kRows = 128, kKeyBlock = 128;
  int64_t rows = heads / kvHeads * seqQ;
  int64_t tiles = batch * kvHeads * ((rows + kRows - 1) / kRows);
  int64_t blocks = (maxSeqK + kKeyBlock - 1) / kKeyBlock;
  int64_t most = std::max<int64_t>(1, std::min(blocks, kDecodeMaxSplits));
  // Wave efficiency: CTAs over whole waves of numSms.
  auto efficiency = [&](int64_t n) {
    int64_t ctas = tiles * n, waves = (ctas + numSms - 1) / numSms;
    return double(ctas) / double(waves * numSms);
  };
  if (tiles * 5 >= numSms * 4)
    return 1;
  double best = 0;
  for (int64_t n = 1; n <= most; ++n)
    best = std::max(best, efficiency(n));
  int64_t chosen = 1;
  while (chosen < most && efficiency(chosen) < 0.95 * best)
    ++chosen;
  return chosen;
}

bool KernelKey::decode() const {
  return family == Family::AttentionDecode ||
         family == Family::AttentionDecodeCombine;
}

/// The stem of a family's kernel names and its word in key text.
static const char *familyName(Family family) {
  switch (family) {
  case Family::Attention:
    return "attention";
  case Family::Gemm:
    return "gemm";
  case Family::AttentionBackwardPreprocess:
    return "attention-bwd-pre";
  case Family::AttentionBackwardDq:
    return "attention-bwd-dq";
  case Family::AttentionBackwardDkDv:
    return "attention-bwd-dkdv";
  case Family::AttentionBackwardDk:
    return "attention-bwd-dk";
  case Family::AttentionBackwardDv:
    return "attention-bwd-dv";
  case Family::AttentionBackwardFused:
    return "attention-bwd-fused";
  case Family::AttentionBackwardPostprocess:
    return "attention-bwd-post";
  case Family::AttentionDecode:
    return "attention-decode";
  case Family::AttentionDecodeCombine:
    return "attention-decode-combine";
  }
  return "unknown";
}

Status KernelKey::verify() const {
  if (family == Family::Gemm) {
    if (dtype != DType::BF16)
      return Status::error("the gemm program is bf16, not f16");
    if (window || softcap || varlen || paged() || headDimV)
      return Status::error("the gemm program has no window, softcap, packed "
                           "sequences or head dim of V");
    return Status::success();
  }
  for (auto [what, dim] : {std::pair{"head dim", headDim},
                           std::pair{"head dim of V", valueHeadDim()}})
    if (!isHeadDim(dim))
      return Status::error(std::string(what) + " " + std::to_string(dim) +
                           " is not a multiple of " +
                           std::to_string(kHeadDimStep) + " in [" +
                           std::to_string(kMinHeadDim) + ", " +
                           std::to_string(kMaxHeadDim) + "]");
  if (backward()) {
    if (varlen && family == Family::AttentionBackwardFused)
      return Status::error(
          "the five-product attention backward has no packed sequences yet; "
          "they take dQ's own kernel");
    if (varlen && (family == Family::AttentionBackwardPreprocess ||
                   family == Family::AttentionBackwardPostprocess))
      return Status::error("the attention backward's preprocess and "
                           "postprocess read packed sequences as one "
                           "sequence; they have no varlen kernel");
    // dQ's program stages dO (V's width) beside Q and its plan counts Q's:
    // V no wider than Q and K (DeepSeek's MLA: 192 and 128).
    if (valueHeadDim() > headDim)
      return Status::error("the attention backward takes a head dim of V up "
                           "to Q's and K's, not " +
                           std::to_string(valueHeadDim()) + " for V with " +
                           std::to_string(headDim) + " for Q and K");
    // Over 128 columns the five products' tiles (K, V, Q and dO stages, dS
    // and dQ staged) do not fit in shared memory.
    if (family == Family::AttentionBackwardFused &&
        headDim > kMaxFusedBackwardHeadDim)
      return Status::error(
          "the fused attention backward (five products) takes head dims up "
          "to " +
          std::to_string(kMaxFusedBackwardHeadDim) +
          " (wider tiles do not fit in shared memory yet), not " +
          std::to_string(headDim));
  }
  if (paged() && family != Family::AttentionDecode)
    return Status::error("only decode's main kernel reads a paged KV cache");
  if (pageRows != 0 && (pageRows < kHeadDimStep || pageRows > 128 ||
                        (pageRows & (pageRows - 1))))
    return Status::error("page rows " + std::to_string(pageRows) +
                         " is not a power of two in [16, 128] "
                         "(KernelKey::decodePageRows)");
  if (decode() && varlen)
    return Status::error("attention decode reads a KV cache with "
                         "cache_seqlens, not packed sequences");
  if (family == Family::AttentionDecodeCombine && (window || softcap))
    return Status::error("decode's combine has no window or softcap (its "
                         "parts have)");
  return Status::success();
}

std::string KernelKey::name() const {
  std::string name;
  if (family == Family::Gemm) {
    name = "gemm";
  } else {
    name = std::string(familyName(family)) + "-hd" + std::to_string(headDim);
    if (valueHeadDim() != headDim)
      name += "-v" + std::to_string(valueHeadDim());
    if (dtype == DType::F16)
      name += "-f16";
    if (varlen)
      name += "-varlen";
    if (paged())
      name += "-paged" + std::to_string(pageRows);
    if (window)
      name += "-window";
    if (softcap)
      name += "-softcap";
  }
  for (const Plan::Field &field : Plan::fields())
    if (std::optional<int64_t> value = plan.get(field))
      name += "-" + std::string(field.token) + std::to_string(*value);
  return name;
}

std::string KernelKey::str() const {
  std::string text = familyName(family);
  text += " head_dim=" + std::to_string(headDim) +
          " head_dim_v=" + std::to_string(valueHeadDim()) +
          " dtype=" + (dtype == DType::F16 ? "f16" : "bf16") +
          " window=" + (window ? "1" : "0") +
          " softcap=" + (softcap ? "1" : "0") +
          " varlen=" + (varlen ? "1" : "0") +
          " paged=" + std::to_string(pageRows) + " plan={" + plan.str() + "}";
  return text;
}

//===- Problem.cpp - The problems fa4-run knows ---------------------------===//
//
// Names, operation counts and the checks that refuse a problem size or a
// kernel file before anything runs: the sizes TMA and the CTA tiling need,
// and the parameter list of each kernel ABI.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Problem.h"

#include "Execution.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace fa4::runner;
namespace runtime = fa4::runtime;
using fa4::runtime::KernelFile;
using fa4::runtime::KernelParam;
using fa4::runtime::ParamKind;
using fa4::runtime::Status;

/// The largest tensor the runner allocates, in bytes. With it, every grid x
/// (rows / 128) stays far below CUDA's limit of 2^31 - 1.
static constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 40;
/// CUDA's limit on the grid's y dimension.
static constexpr uint64_t kMaxGridY = 65535;

/// " f16" for an f16 problem; nothing for bf16, the default.
static std::string typeSuffix(runtime::ElementType type) {
  return type == runtime::ElementType::BF16
             ? ""
             : " " + std::string(runtime::elementTypeName(type));
}

std::string fa4::runner::describe(const GemmProblem &problem) {
  return "gemm m=" + std::to_string(problem.m) +
         " n=" + std::to_string(problem.n) + " k=" + std::to_string(problem.k) +
         typeSuffix(problem.elementType);
}

std::string fa4::runner::describe(const AttentionProblem &problem) {
  return "attention b=" + std::to_string(problem.batch) +
         " h=" + std::to_string(problem.heads) +
         " sq=" + std::to_string(problem.seqQ) +
         " sk=" + std::to_string(problem.seqK) +
         " d=" + std::to_string(problem.headDim) +
         (problem.causal ? " causal" : "") + typeSuffix(problem.elementType);
}

double fa4::runner::flops(const GemmProblem &problem) {
  return 2.0 * double(problem.m) * double(problem.n) * double(problem.k);
}

double fa4::runner::flops(const AttentionProblem &problem) {
  double total = 4.0 * double(problem.batch) * double(problem.heads) *
                 double(problem.seqQ) * double(problem.seqK) *
                 double(problem.headDim);
  if (problem.causal && problem.seqQ == problem.seqK)
    total /= 2;
  return total;
}

namespace {
/// A named size of a problem, for the checks and their messages.
struct Extent {
  const char *name;
  uint64_t value;
};
} // namespace

/// Fails unless every extent is positive.
static Status checkPositive(const std::vector<Extent> &extents) {
  for (const Extent &extent : extents)
    if (extent.value == 0)
      return Status::error(std::string(extent.name) + " is 0");
  return Status::success();
}

/// Fails when a bf16 tensor of the given dims has more than kMaxTensorBytes.
static Status checkTensorSize(const char *tensor,
                              const std::vector<uint64_t> &dims) {
  double bytes = 2;
  for (uint64_t dim : dims)
    bytes *= double(dim);
  if (bytes <= double(kMaxTensorBytes))
    return Status::success();
  char gib[32];
  std::snprintf(gib, sizeof(gib), "%.1f", bytes / double(1ull << 30));
  return Status::error(std::string(tensor) + " would take " + gib +
                       " GiB; the runner allocates at most 1024 GiB a tensor");
}

Status fa4::runner::checkProblem(const GemmProblem &p) {
  if (Status s = checkPositive({{"m", p.m}, {"n", p.n}, {"k", p.k}}); !s.ok())
    return s;
  if (p.n % kGemmTileN != 0)
    return Status::error("n = " + std::to_string(p.n) +
                         " is not a multiple of " + std::to_string(kGemmTileN) +
                         ", the columns of C one CTA computes");
  if (p.k % 8 != 0)
    return Status::error("k = " + std::to_string(p.k) +
                         " is not a multiple of 8: rows of A and B would be " +
                         std::to_string(2 * p.k) +
                         " B, not a multiple of the 16 B TMA needs");
  if (p.n / kGemmTileN > kMaxGridY)
    return Status::error("n = " + std::to_string(p.n) + " needs " +
                         std::to_string(p.n / kGemmTileN) +
                         " CTAs in grid y; CUDA allows " +
                         std::to_string(kMaxGridY));
  for (auto [name, dims] : {std::pair{"A", std::vector<uint64_t>{p.m, p.k}},
                            {"B", std::vector<uint64_t>{p.n, p.k}},
                            {"C", std::vector<uint64_t>{p.m, p.n}}})
    if (Status s = checkTensorSize(name, dims); !s.ok())
      return s;
  return Status::success();
}

Status fa4::runner::checkProblem(const AttentionProblem &p) {
  if (Status s = checkPositive({{"batch", p.batch},
                                {"heads", p.heads},
                                {"seq-q", p.seqQ},
                                {"seq-k", p.seqK},
                                {"head-dim", p.headDim}});
      !s.ok())
    return s;
  if (p.headDim % 8 != 0)
    return Status::error("head-dim = " + std::to_string(p.headDim) +
                         " is not a multiple of 8: rows would be " +
                         std::to_string(2 * p.headDim) +
                         " B, not a multiple of the 16 B TMA needs");
  if (!(p.scale > 0) || !std::isfinite(p.scale))
    return Status::error("the softmax scale " + std::to_string(p.scale) +
                         " is not a positive finite number");
  if (p.batch * p.heads > kMaxGridY)
    return Status::error(
        "batch * heads = " + std::to_string(p.batch * p.heads) +
        " CTAs in grid y; CUDA allows " + std::to_string(kMaxGridY));
  for (auto [name, seq] : {std::pair{"Q", p.seqQ}, {"K", p.seqK}})
    if (Status s = checkTensorSize(name, {p.batch, p.heads, seq, p.headDim});
        !s.ok())
      return s;
  return Status::success();
}

namespace {
/// One parameter of a kernel ABI: its role and kind, and the box rank of a
/// tensor map.
struct AbiParam {
  const char *role;
  ParamKind kind;
  size_t boxRank = 0;
};
} // namespace

/// Checks the parameters of `file` against `abi`, the ABI of `problem`. A
/// persistent kernel takes the logical grid after them.
static Status checkAbi(const KernelFile &file, const char *problem,
                       runtime::ElementType type,
                       const std::vector<AbiParam> &abi) {
  std::string signature;
  for (const AbiParam &param : abi)
    signature += std::string(signature.empty() ? "" : ", ") + param.role + ":" +
                 runtime::paramKindName(param.kind);
  std::string prefix = "kernel '" + file.entry + "' does not have the " +
                       problem + " ABI (" + signature +
                       "; then grid_x:i64, grid_y:i64 when persistent): ";
  std::vector<AbiParam> expected = abi;
  if (file.params.size() == abi.size() + 2 && isPersistent(file)) {
    expected.push_back({"grid_x", ParamKind::I64});
    expected.push_back({"grid_y", ParamKind::I64});
  }
  if (file.params.size() != expected.size())
    return Status::error(prefix + "it has " +
                         std::to_string(file.params.size()) + " parameters");
  for (size_t i = 0; i < expected.size(); ++i) {
    const KernelParam &param = file.params[i];
    std::string which = "parameter " + std::to_string(i) + " ('" + param.name +
                        "', the " + expected[i].role + ")";
    if (param.kind != expected[i].kind)
      return Status::error(prefix + which + " is " +
                           runtime::paramKindName(param.kind) + ", not " +
                           runtime::paramKindName(expected[i].kind));
    if (param.kind != ParamKind::TensorMap)
      continue;
    if (param.elementType != type)
      return Status::error(prefix + which + " is a tensor map of " +
                           runtime::elementTypeName(param.elementType) +
                           ", not " + runtime::elementTypeName(type));
    if (param.boxDims.size() != expected[i].boxRank)
      return Status::error(prefix + which + " has a box of rank " +
                           std::to_string(param.boxDims.size()) + ", not " +
                           std::to_string(expected[i].boxRank));
  }
  if (file.grid)
    return Status::error("kernel '" + file.entry + "' fixes its grid to " +
                         file.grid->str() + "; the " + problem +
                         " ABI computes the grid from the problem");
  return Status::success();
}

runtime::Expected<runtime::ElementType>
fa4::runner::kernelElementType(const KernelFile &file) {
  for (const KernelParam &param : file.params) {
    if (param.kind != ParamKind::TensorMap)
      continue;
    if (param.elementType != runtime::ElementType::BF16 &&
        param.elementType != runtime::ElementType::F16)
      return Status::error("kernel '" + file.entry + "' has tensor maps of " +
                           runtime::elementTypeName(param.elementType) +
                           "; fa4-run runs bf16 and f16 kernels");
    return param.elementType;
  }
  // Without tensor maps the ABI check refuses the file.
  return runtime::ElementType::BF16;
}

Status fa4::runner::checkKernel(const KernelFile &file,
                                const GemmProblem &problem) {
  return checkAbi(file, "gemm", problem.elementType,
                  {{"a_map", ParamKind::TensorMap, 2},
                   {"b_map", ParamKind::TensorMap, 2},
                   {"c", ParamKind::Pointer},
                   {"m", ParamKind::I64},
                   {"n", ParamKind::I64},
                   {"k", ParamKind::I64}});
}

Status fa4::runner::checkKernel(const KernelFile &file,
                                const AttentionProblem &problem) {
  if (Status s = checkAbi(file, "attention", problem.elementType,
                          {{"q_map", ParamKind::TensorMap, 3},
                           {"k_map", ParamKind::TensorMap, 3},
                           {"v_map", ParamKind::TensorMap, 3},
                           {"o", ParamKind::Pointer},
                           {"lse", ParamKind::Pointer},
                           {"seq_q", ParamKind::I64},
                           {"seq_k", ParamKind::I64},
                           {"scale_log2", ParamKind::F32},
                           {"causal", ParamKind::I32}});
      !s.ok())
    return s;
  auto headDim = file.metadata.find("head_dim");
  if (headDim != file.metadata.end() &&
      headDim->second != std::to_string(problem.headDim))
    return Status::error("kernel '" + file.entry +
                         "' was compiled for head_dim " + headDim->second +
                         ", the problem has head-dim " +
                         std::to_string(problem.headDim));
  return Status::success();
}

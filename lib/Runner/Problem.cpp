//===- Problem.cpp - The problems fa4-run knows ---------------------------===//
//
// Names, operation counts and the checks that refuse a problem size or a
// kernel file before anything runs: the sizes TMA and the CTA tiling need,
// and the parameter list of each kernel ABI.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Problem.h"
#include "fa4/Runner/Reference.h"

#include "Execution.h"

#include <algorithm>
#include <cmath>
#include <numeric>
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

/// `value` in the shortest form that reads back the same, e.g. "30".
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

uint64_t AttentionProblem::totalQ() const {
  return isVarlen() ? std::accumulate(seqlensQ.begin(), seqlensQ.end(),
                                      uint64_t(0))
                    : batch * seqQ;
}

uint64_t AttentionProblem::totalK() const {
  return isVarlen() ? std::accumulate(seqlensK.begin(), seqlensK.end(),
                                      uint64_t(0))
                    : batch * seqK;
}

/// 0 and the running sums of `lengths`.
static std::vector<uint64_t> offsets(const std::vector<uint64_t> &lengths) {
  std::vector<uint64_t> result = {0};
  for (uint64_t length : lengths)
    result.push_back(result.back() + length);
  return result;
}

std::vector<uint64_t> AttentionProblem::offsetsQ() const {
  return offsets(seqlensQ);
}

std::vector<uint64_t> AttentionProblem::offsetsK() const {
  return offsets(seqlensK);
}

AttentionProblem AttentionProblem::sequence(uint64_t b) const {
  AttentionProblem one = *this;
  one.seqlensQ.clear();
  one.seqlensK.clear();
  one.batch = 1;
  one.seqQ = seqlensQ[b];
  one.seqK = seqlensK[b];
  return one;
}

Status fa4::runner::setSequenceLengths(AttentionProblem &problem,
                                       std::vector<uint64_t> seqlensQ,
                                       std::vector<uint64_t> seqlensK) {
  if (seqlensQ.empty())
    return Status::error("packed sequences need at least one sequence");
  if (seqlensQ.size() != seqlensK.size())
    return Status::error(std::to_string(seqlensQ.size()) +
                         " query lengths and " +
                         std::to_string(seqlensK.size()) +
                         " key lengths: give one of each per sequence");
  problem.batch = seqlensQ.size();
  problem.seqQ = *std::max_element(seqlensQ.begin(), seqlensQ.end());
  problem.seqK = *std::max_element(seqlensK.begin(), seqlensK.end());
  problem.seqlensQ = std::move(seqlensQ);
  problem.seqlensK = std::move(seqlensK);
  return Status::success();
}

std::vector<int32_t> fa4::runner::varlenTiles(const AttentionProblem &p) {
  std::vector<uint64_t> order(p.batch);
  for (uint64_t b = 0; b < p.batch; ++b)
    order[b] = b;
  // Work per block: the keys, and with a causal mask the queries' count
  // too (the last block of a long sequence sees the most keys).
  auto work = [&](uint64_t b) {
    return p.causal ? std::min(p.seqlensQ[b], p.seqlensK[b]) + p.seqlensK[b]
                    : p.seqlensK[b];
  };
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    return work(a) > work(b);
  });
  std::vector<int32_t> tiles;
  for (uint64_t b : order)
    for (uint64_t m = (p.seqlensQ[b] + kAttentionTileQ - 1) / kAttentionTileQ;
         m-- > 0;) {
      tiles.push_back(int32_t(b));
      tiles.push_back(int32_t(m));
    }
  return tiles;
}

uint64_t fa4::runner::varlenTileCount(const AttentionProblem &p) {
  uint64_t count = 0;
  for (uint64_t length : p.seqlensQ)
    count += (length + kAttentionTileQ - 1) / kAttentionTileQ;
  return count;
}

runtime::Expected<std::vector<uint64_t>>
fa4::runner::lengthsFromOffsets(const std::vector<int64_t> &cu,
                                const std::string &what,
                                std::optional<uint64_t> total) {
  if (cu.size() < 2)
    return Status::error(what + " has " + std::to_string(cu.size()) +
                         " entries; cumulative lengths of B sequences have "
                         "B + 1, from 0");
  if (cu[0] != 0)
    return Status::error(what + " starts at " + std::to_string(cu[0]) +
                         ", not 0");
  std::vector<uint64_t> lengths;
  for (size_t i = 1; i < cu.size(); ++i) {
    if (cu[i] < cu[i - 1])
      return Status::error(what + " decreases at entry " + std::to_string(i) +
                           ": " + std::to_string(cu[i - 1]) + " then " +
                           std::to_string(cu[i]) +
                           " (the offsets of packed sequences never "
                           "decrease)");
    lengths.push_back(uint64_t(cu[i] - cu[i - 1]));
  }
  if (total && uint64_t(cu.back()) != *total)
    return Status::error(what + " ends at " + std::to_string(cu.back()) +
                         ", but the packed tensor has " +
                         std::to_string(*total) + " tokens");
  return lengths;
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
         (problem.valueHeadDim() != problem.headDim
              ? " dv=" + std::to_string(problem.valueHeadDim())
              : "") +
         (problem.kvHeads && problem.kvHeads != problem.heads
              ? " hkv=" + std::to_string(problem.kvHeads)
              : "") +
         (problem.layout == AttentionLayout::BSHD ? " bshd" : "") +
         (problem.hasWindow() ? " window=" + std::to_string(problem.windowLeft) +
                                    "," + std::to_string(problem.windowRight)
                              : "") +
         (problem.softcap > 0 ? " softcap=" + formatNumber(problem.softcap)
                              : "") +
         (problem.isVarlen() ? " varlen tq=" + std::to_string(problem.totalQ()) +
                                   " tk=" + std::to_string(problem.totalK())
                             : "") +
         (problem.causal ? " causal" : "") + typeSuffix(problem.elementType);
}

double fa4::runner::flops(const GemmProblem &problem) {
  return 2.0 * double(problem.m) * double(problem.n) * double(problem.k);
}

double fa4::runner::flops(const AttentionProblem &problem) {
  if (problem.isVarlen()) {
    double total = 0;
    for (uint64_t b = 0; b < problem.batch; ++b)
      total += flops(problem.sequence(b));
    return total;
  }
  // Per (query, key) pair: 2·D for Q·Kᵀ and 2·Dv for P·V.
  double perPair = 2.0 * double(problem.batch) * double(problem.heads) *
                   double(problem.headDim + problem.valueHeadDim());
  if (problem.hasWindow()) {
    double pairs = 0;
    for (uint64_t i = 0; i < problem.seqQ; ++i)
      pairs += double(visibleKeys(problem, i));
    return perPair * pairs;
  }
  double total = perPair * double(problem.seqQ) * double(problem.seqK);
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
  if (p.isVarlen()) {
    if (p.seqlensK.size() != p.seqlensQ.size() || p.batch != p.seqlensQ.size())
      return Status::error(std::to_string(p.seqlensQ.size()) +
                           " query lengths and " +
                           std::to_string(p.seqlensK.size()) +
                           " key lengths for a batch of " +
                           std::to_string(p.batch));
    // Sequences may be empty; the packed tensors may not.
    for (auto [tokens, what] :
         {std::pair{p.totalQ(), "query"}, {p.totalK(), "key"}})
      if (tokens == 0)
        return Status::error(std::to_string(p.batch) +
                             " packed sequences without a " + what +
                             " token: TMA cannot describe an empty tensor");
    AttentionProblem dense = p;
    dense.seqlensQ.clear();
    dense.seqlensK.clear();
    dense.batch = 1;
    dense.seqQ = p.totalQ();
    dense.seqK = p.totalK();
    return checkProblem(dense);
  }
  if (Status s = checkPositive({{"batch", p.batch},
                                {"heads", p.heads},
                                {"seq-q", p.seqQ},
                                {"seq-k", p.seqK},
                                {"head-dim", p.headDim}});
      !s.ok())
    return s;
  if (p.kvHeads && p.heads % p.kvHeads != 0)
    return Status::error("heads = " + std::to_string(p.heads) +
                         " is not a multiple of kv-heads = " +
                         std::to_string(p.kvHeads) +
                         ": each KV head serves a whole group of query heads");
  for (auto [name, dim] :
       {std::pair{"head-dim", p.headDim}, {"head-dim-v", p.headDimV}})
    if (dim % 8 != 0)
      return Status::error(std::string(name) + " = " + std::to_string(dim) +
                           " is not a multiple of 8: rows would be " +
                           std::to_string(2 * dim) +
                           " B, not a multiple of the 16 B TMA needs");
  if (p.softcap < 0 || !std::isfinite(p.softcap))
    return Status::error("the softcap " + std::to_string(p.softcap) +
                         " is not a finite number >= 0 (0: none)");
  if (!(p.scale > 0) || !std::isfinite(p.scale))
    return Status::error("the softmax scale " + std::to_string(p.scale) +
                         " is not a positive finite number");
  if (p.batch * p.heads > kMaxGridY)
    return Status::error(
        "batch * heads = " + std::to_string(p.batch * p.heads) +
        " CTAs in grid y; CUDA allows " + std::to_string(kMaxGridY));
  uint64_t dv = p.valueHeadDim();
  for (auto [name, heads, seq, dim] :
       {std::tuple{"Q", p.heads, p.seqQ, p.headDim},
        {"K", p.keyHeads(), p.seqK, p.headDim},
        {"V", p.keyHeads(), p.seqK, dv},
        {"O", p.heads, p.seqQ, dv}})
    if (Status s = checkTensorSize(name, {p.batch, heads, seq, dim}); !s.ok())
      return s;
  return Status::success();
}


/// A contiguous tensor of `shape` at `address`.
static runtime::TensorArg tensorArg(CUdeviceptr address,
                                    runtime::ElementType type,
                                    std::vector<uint64_t> shape) {
  runtime::TensorArg tensor;
  tensor.address = address;
  tensor.elementType = type;
  for (uint64_t extent : shape)
    tensor.shape.push_back(int64_t(extent));
  return tensor;
}

/// A [B, H, S, D] tensor at `address` in `layout`.
static runtime::TensorArg headsTensor(CUdeviceptr address,
                                      runtime::ElementType type,
                                      AttentionLayout layout, uint64_t b,
                                      uint64_t h, uint64_t s, uint64_t d) {
  runtime::TensorArg tensor = tensorArg(address, type, {b, h, s, d});
  if (layout == AttentionLayout::BSHD)
    tensor.strides = {int64_t(s * h * d), int64_t(d), int64_t(h * d), 1};
  return tensor;
}

/// The name fa4-run gives its own attention kernel for `p` with `option`,
/// e.g. "attention-hd192-v128-window", for the refusals that point to it.
static std::string ownKernel(const AttentionProblem &p, const char *option) {
  std::string name = "attention-hd" + std::to_string(p.headDim);
  if (p.valueHeadDim() != p.headDim)
    name += "-v" + std::to_string(p.valueHeadDim());
  return name + "-" + option;
}

/// Binds each of `tensors` (name and tensor) and `scalars`, prefixing a
/// refusal with what the problem is.
static Status
bindAll(runtime::Binding &binding, const char *problem,
        const std::vector<std::pair<const char *, runtime::TensorArg>> &tensors,
        const std::vector<std::pair<const char *, double>> &scalars) {
  std::string prefix = "kernel '" + binding.file().entry + "' cannot run the " +
                       problem + " problem: ";
  for (const auto &[name, tensor] : tensors)
    if (Status s = binding.setTensor(name, tensor); !s.ok())
      return Status::error(prefix + s.message());
  for (const auto &[name, value] : scalars)
    if (Status s = binding.setScalar(name, value); !s.ok())
      return Status::error(prefix + s.message());
  return Status::success();
}

Status fa4::runner::bindProblem(runtime::Binding &binding, const GemmProblem &p,
                                const GemmAddresses &at) {
  runtime::ElementType type = p.elementType;
  return bindAll(binding, "gemm",
                 {{"a", tensorArg(at.a, type, {p.m, p.k})},
                  {"b", tensorArg(at.b, type, {p.n, p.k})},
                  {"c", tensorArg(at.c, type, {p.m, p.n})}},
                 {});
}

Status fa4::runner::bindProblem(runtime::Binding &binding,
                                const AttentionProblem &p,
                                const AttentionAddresses &at) {
  runtime::ElementType type = p.elementType;
  uint64_t b = p.batch, h = p.heads, hkv = p.keyHeads(), d = p.headDim,
           dv = p.valueHeadDim();
  // A sliding window needs a kernel compiled with one; a kernel with one
  // runs without a window at -1, -1.
  bool windowKernel = binding.file().findParam("window_left") &&
                      binding.file().findParam("window_right");
  if (p.hasWindow() && !windowKernel)
    return Status::error("kernel '" + binding.file().entry +
                         "' cannot run the attention problem: it has no "
                         "sliding window (no window_left and window_right "
                         "parameters); compile the attention program with "
                         "its window option (fa4-run's " +
                         ownKernel(p, "window") + ")");
  std::vector<std::pair<const char *, double>> scalars = {
      {"scale_log2", double(float(p.scale * M_LOG2E))},
      {"causal", p.causal ? 1 : 0}};
  if (windowKernel) {
    scalars.push_back({"window_left", double(p.windowLeft)});
    scalars.push_back({"window_right", double(p.windowRight)});
  }
  // A softcap needs a kernel compiled with one, and such a kernel a cap.
  bool softcapKernel = binding.file().findParam("softcap") != nullptr;
  if (softcapKernel != (p.softcap > 0))
    return Status::error(
        "kernel '" + binding.file().entry +
        "' cannot run the attention problem: " +
        (softcapKernel
             ? std::string("it applies a logit softcap; give --softcap X")
             : "it has no logit softcap (no softcap parameter); compile the "
               "attention program with its softcap option (fa4-run's " +
                   ownKernel(p, "softcap") + ")"));
  if (softcapKernel)
    scalars.push_back({"softcap", p.softcap});
  // Packed sequences need a kernel compiled for them, and such a kernel
  // packed sequences.
  bool varlenKernel = binding.file().findTensor("cu_seqlens_q") != nullptr;
  if (varlenKernel != p.isVarlen())
    return Status::error(
        "kernel '" + binding.file().entry +
        "' cannot run the attention problem: " +
        (varlenKernel
             ? std::string("it runs packed sequences of variable lengths; "
                           "give --seqlens or --cu-seqlens-q")
             : "it has no packed sequences (no cu_seqlens_q tensor); "
               "compile the attention program with its varlen option "
               "(fa4-run's " +
                   ownKernel(p, "varlen") + ")"));
  if (varlenKernel) {
    // The (T, H, D) tensors as [H, T, D] views.
    uint64_t tq = p.totalQ(), tk = p.totalK();
    auto packed = [&](CUdeviceptr address, uint64_t heads, uint64_t tokens,
                      uint64_t dim) {
      runtime::TensorArg tensor =
          tensorArg(address, type, {heads, tokens, dim});
      tensor.strides = {int64_t(dim), int64_t(heads * dim), 1};
      return tensor;
    };
    return bindAll(
        binding, "attention",
        {{"q", packed(at.q, h, tq, d)},
         {"k", packed(at.k, hkv, tk, d)},
         {"v", packed(at.v, hkv, tk, dv)},
         {"o", packed(at.o, h, tq, dv)},
         {"lse", tensorArg(at.lse, runtime::ElementType::F32, {h, tq})},
         {"cu_seqlens_q",
          tensorArg(at.cuSeqlensQ, runtime::ElementType::I32, {b + 1})},
         {"cu_seqlens_k",
          tensorArg(at.cuSeqlensK, runtime::ElementType::I32, {b + 1})},
         {"tiles", tensorArg(at.tiles, runtime::ElementType::I32,
                             {varlenTileCount(p), 2})}},
        scalars);
  }
  return bindAll(
      binding, "attention",
      {{"q", headsTensor(at.q, type, p.layout, b, h, p.seqQ, d)},
       {"k", headsTensor(at.k, type, p.layout, b, hkv, p.seqK, d)},
       {"v", headsTensor(at.v, type, p.layout, b, hkv, p.seqK, dv)},
       {"o", headsTensor(at.o, type, p.layout, b, h, p.seqQ, dv)},
       {"lse", tensorArg(at.lse, runtime::ElementType::F32, {b, h, p.seqQ})}},
      scalars);
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
  // Without tensor maps the binding refuses the file.
  return runtime::ElementType::BF16;
}

/// Binds `problem` at placeholder addresses and resolves the launch.
template <typename Problem, typename Addresses>
static Status checkBinding(const KernelFile &file, const Problem &problem,
                           const char *name, Addresses addresses) {
  runtime::Expected<runtime::Binding> binding = runtime::Binding::create(file);
  if (!binding.ok())
    return binding.status();
  if (Status s = bindProblem(*binding, problem, addresses); !s.ok())
    return s;
  runtime::Expected<runtime::ResolvedLaunch> launch =
      binding->resolve(placeholderDevice());
  if (!launch.ok())
    return Status::error("kernel '" + file.entry + "' cannot run the " + name +
                         " problem: " + launch.status().message());
  return Status::success();
}

Status fa4::runner::checkKernel(const KernelFile &file,
                                const GemmProblem &problem) {
  return checkBinding(
      file, problem, "gemm",
      GemmAddresses{placeholderAddress(0), placeholderAddress(1), placeholderAddress(2)});
}

Status fa4::runner::checkKernel(const KernelFile &file,
                                const AttentionProblem &problem) {
  return checkBinding(
      file, problem, "attention",
      AttentionAddresses{placeholderAddress(0), placeholderAddress(1),
                         placeholderAddress(2), placeholderAddress(3),
                         placeholderAddress(4), placeholderAddress(5),
                         placeholderAddress(6), placeholderAddress(7)});
}

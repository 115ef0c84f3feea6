//===- Problem.h - The problems fa4-run knows -------------------*- C++ -*-===//
//
// The two problems the runner launches, checks and times, a GEMM and
// attention, with the kernel ABI each expects: the order and kinds of the
// parameters, the tensor maps built for them and the grid. The checks here
// need no GPU, so a kernel file or a problem size that cannot work is refused
// before anything is allocated or launched.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_PROBLEM_H
#define FA4_RUNNER_PROBLEM_H

#include "fa4/KernelFormat/KernelFile.h"
#include "fa4/KernelFormat/Status.h"
#include "fa4/KernelFormat/Types.h"
#include "fa4/Runtime/Binding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fa4::runner {

/// Rows of C (and of A) one CTA of a GEMM kernel computes.
inline constexpr uint64_t kGemmTileM = 128;
/// Columns of C (rows of B) one CTA of a GEMM kernel computes.
inline constexpr uint64_t kGemmTileN = 128;
/// Query rows one CTA of an attention kernel computes.
inline constexpr uint64_t kAttentionTileQ = 128;

/// C[M, N] = A[M, K] · B[N, K]ᵀ, all bf16 (or all f16) and row-major.
///
/// The kernel is launched from its description (fa4/KernelFormat/KernelFile.h):
/// the problem binds tensors `a`, `b` and `c` (`bindProblem`), and the kernel
/// file says the rest (tensor maps, sizes, grid). fa4's GEMM needs N a
/// multiple of 128 and K of 8 (rows of 16-byte multiples, as TMA needs).
struct GemmProblem {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
  /// The element type of A, B and C: the kernel's, bf16 or f16.
  runtime::ElementType elementType = runtime::ElementType::BF16;
};

/// How attention's Q, K, V and O lie in memory: (B, H, S, D) or, as the
/// projections leave them, (B, S, H, D); either is bound as a [B, H, S, D]
/// tensor with the layout's strides (D: the tensor's head dim).
enum class AttentionLayout { BHSD, BSHD };

/// O = softmax(scale · Q·Kᵀ [masked]) · V per (batch, head), all bf16 (or
/// all f16). Q and K have the head dim D, V and O the head dim Dv, D unless
/// set (DeepSeek's MLA prefill: D = 192, Dv = 128).
///
/// The problem binds the tensors `q` [B, H, SQ, D], `k` [B, HKV, SK, D],
/// `v` [B, HKV, SK, Dv] (grouped-query attention when HKV < H: query head h
/// reads KV head h / (H / HKV)), `o` [B, H, SQ, Dv], all in the problem's
/// layout, and `lse` (the f32 log-sum-exp [B, H, SQ] of each query row,
/// ln Σ_j exp(scale · q·k_j), contiguous) and the scalars `scale_log2`
/// (scale · log2(e)) and `causal` (`bindProblem`); the kernel file says the
/// rest. With causal, query row i sees key rows j <= i + (SK - SQ); a row
/// that sees no key has the output 0 and the log-sum-exp −inf. D and Dv must
/// be multiples of 8.
struct AttentionProblem {
  uint64_t batch = 0;
  uint64_t heads = 0;
  uint64_t seqQ = 0;
  uint64_t seqK = 0;
  /// The head dim of Q and K, D.
  uint64_t headDim = 0;
  bool causal = false;
  /// The softmax scale; 1/sqrt(D) unless given.
  double scale = 0;
  /// The element type of Q, K, V and O: the kernel's, bf16 or f16.
  runtime::ElementType elementType = runtime::ElementType::BF16;
  /// Heads of K and V; 0: as many as Q has. H must be a multiple of it.
  uint64_t kvHeads = 0;
  AttentionLayout layout = AttentionLayout::BHSD;
  /// The sliding window, FlashAttention's window_size: query i sees keys
  /// from i + SK - SQ - windowLeft to i + SK - SQ + windowRight; -1 for no
  /// bound on that side. Causal makes the right bound 0.
  int64_t windowLeft = -1;
  int64_t windowRight = -1;

  /// The logit softcap: scores become softcap · tanh(score / softcap)
  /// before the softmax (score = scale · q·k); 0 for none.
  double softcap = 0;

  /// The head dim of V and O, Dv; 0: the same as headDim. (Here, not next
  /// to headDim, so that initializers by position keep their meaning.)
  uint64_t headDimV = 0;

  /// Packed sequences of variable lengths (fa4's varlen kernels): the query
  /// and the key length of each sequence, empty ones included; empty for
  /// one length per batch. `setSequenceLengths` keeps batch, seqQ and seqK
  /// (the longest) in step. Q lies as (TQ, H, D), O as (TQ, H, Dv), K as
  /// (TK, HKV, D) and V as (TK, HKV, Dv), the tokens of one sequence after
  /// the other (FlashAttention's varlen layout), and the log-sum-exp as
  /// [H, TQ].
  std::vector<uint64_t> seqlensQ, seqlensK;

  bool hasWindow() const { return windowLeft >= 0 || windowRight >= 0; }
  /// The heads of K and V.
  uint64_t keyHeads() const { return kvHeads ? kvHeads : heads; }
  /// The head dim of V and O, Dv.
  uint64_t valueHeadDim() const { return headDimV ? headDimV : headDim; }
  bool isVarlen() const { return !seqlensQ.empty(); }
  /// The query and key tokens: TQ and TK of packed sequences, else B·SQ
  /// and B·SK.
  uint64_t totalQ() const;
  uint64_t totalK() const;
  /// The first token of each sequence and the end of the last (B + 1
  /// entries, cu_seqlens): of the queries, or of the keys.
  std::vector<uint64_t> offsetsQ() const;
  std::vector<uint64_t> offsetsK() const;
  /// Sequence `b` alone, as a problem of one batch.
  AttentionProblem sequence(uint64_t b) const;
};

/// Makes `problem` one of packed sequences with these query and key
/// lengths (the same count, at least one; empty sequences allowed): sets
/// batch to their count and seqQ and seqK to the longest.
runtime::Status setSequenceLengths(AttentionProblem &problem,
                                   std::vector<uint64_t> seqlensQ,
                                   std::vector<uint64_t> seqlensK);

/// The query blocks of packed sequences in the order fa4's varlen kernels
/// start them, as the i32 pairs (sequence, block) of their `tiles` tensor:
/// the sequences with the most key blocks to visit first (ties in order),
/// and of each its last block first, which with a causal mask has the most
/// keys. Empty sequences have none.
std::vector<int32_t> varlenTiles(const AttentionProblem &problem);
/// The number of those blocks: Σ cdiv(SQ_b, 128).
uint64_t varlenTileCount(const AttentionProblem &problem);

/// The lengths of cumulative offsets `cu` (cu_seqlens: B + 1 entries, from
/// 0, never decreasing), named `what` in a refusal; with `total`, the last
/// entry must be it (the tokens of the packed tensor).
runtime::Expected<std::vector<uint64_t>>
lengthsFromOffsets(const std::vector<int64_t> &cu, const std::string &what,
                   std::optional<uint64_t> total = std::nullopt);

/// "gemm m=1024 n=1024 k=1024", as the summary line starts (" f16" added
/// for an f16 problem).
std::string describe(const GemmProblem &problem);
/// "attention b=2 h=16 sq=4096 sk=4096 d=128 causal", as the summary starts
/// (" dv=N" after d when V's head dim differs, " hkv=N" for grouped-query
/// attention, " bshd" for that layout,
/// " window=L,R" for a sliding window, " softcap=X", " varlen tq=N tk=N"
/// for packed sequences, whose sq and sk are the longest).
std::string describe(const AttentionProblem &problem);

/// The floating-point operations of the problem: 2·M·N·K for the GEMM;
/// 2·B·H·SQ·SK·(D + Dv) for attention (Q·Kᵀ and P·V), halved when causal
/// with SQ == SK; with a sliding window 2·B·H·(D + Dv) times the (query,
/// key) pairs it lets through; for packed sequences the sum over the
/// sequences.
double flops(const GemmProblem &problem);
double flops(const AttentionProblem &problem);

/// Checks the sizes: every dim positive, N % 128 == 0, K % 8 == 0, and no
/// tensor over 2^40 bytes.
runtime::Status checkProblem(const GemmProblem &problem);
/// Checks the sizes: every dim positive, D % 8 == 0 and Dv % 8 == 0, H a
/// multiple of the KV heads, a positive finite scale, and no tensor over
/// 2^40 bytes; packed
/// sequences need as many key lengths as query lengths and at least one
/// query and one key token.
runtime::Status checkProblem(const AttentionProblem &problem);

/// The device addresses of a GEMM's tensors.
struct GemmAddresses {
  CUdeviceptr a = 0, b = 0, c = 0;
};
/// The device addresses of an attention's tensors.
struct AttentionAddresses {
  CUdeviceptr q = 0, k = 0, v = 0, o = 0, lse = 0;
  /// Packed sequences: the i32 offsets, B + 1 each, and the query blocks
  /// to compute (`varlenTiles`).
  CUdeviceptr cuSeqlensQ = 0, cuSeqlensK = 0, tiles = 0;
};

/// Binds the problem to a kernel's launch description: the GEMM's tensors
/// `a` [M, K], `b` [N, K] and `c` [M, N]; attention's `q` [B, H, SQ, D],
/// `k` [B, HKV, SK, D], `v` [B, HKV, SK, Dv], `o` [B, H, SQ, Dv] in the
/// problem's layout and `lse` [B, H, SQ] (f32), and its scalars
/// `scale_log2` (scale · log2(e)) and `causal`; packed sequences bind `q`
/// [H, TQ, D], `k` [HKV, TK, D], `v` [HKV, TK, Dv] and `o` [H, TQ, Dv] as
/// views of their (T, H, D) tensors, `lse` [H, TQ], `cu_seqlens_q` and
/// `cu_seqlens_k` (i32 [B + 1]) and `tiles` (i32 [N, 2], `varlenTiles`).
/// A refusal names the kernel, the problem and what does not fit.
runtime::Status bindProblem(runtime::Binding &binding,
                            const GemmProblem &problem,
                            const GemmAddresses &addresses);
runtime::Status bindProblem(runtime::Binding &binding,
                            const AttentionProblem &problem,
                            const AttentionAddresses &addresses);

/// The element type of the tensor maps of `file`: that of its first tensor
/// map, which must be bf16 or f16; bf16 for a file without tensor maps (which
/// `checkKernel` refuses).
runtime::Expected<runtime::ElementType>
kernelElementType(const runtime::KernelFile &file);

/// Checks that `file` can run `problem` before anything is allocated: it has
/// a launch description, the problem binds to it (`bindProblem`, at
/// placeholder addresses) and the launch resolves (shapes, requirements,
/// tensor maps and grid).
runtime::Status checkKernel(const runtime::KernelFile &file,
                            const GemmProblem &problem);
runtime::Status checkKernel(const runtime::KernelFile &file,
                            const AttentionProblem &problem);

} // namespace fa4::runner

#endif // FA4_RUNNER_PROBLEM_H

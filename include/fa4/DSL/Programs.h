//===- Programs.h - kernels written in the DSL ------------------*- C++ -*-===//
//
// The reference programs of the fa4 DSL, each a function that writes one
// kernel at the tile level: forward attention (the algorithm of
// test/Programs/Kernels/generate-attention.py's hand-scheduled kernels, without
// the schedule), the attention backward's kernels, decode's two (over a KV
// cache, split over its keys, and the combine of the parts), Triton's row
// softmax and a GEMM.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_DSL_PROGRAMS_H
#define FA4_DSL_PROGRAMS_H

#include "fa4/DSL/Values.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <optional>
#include <utility>

namespace fa4::dsl {

/// What attention's score and mask mods see of a block of scores: the
/// program's batch (the sequence, for packed sequences) and query head,
/// each score's query and key position within its sequence (i32 tiles of
/// the block's shape), and the block's first query and key position (where
/// a row's or a column's terms kept in a tensor start: `loadAt` of a vector
/// from there gives one per query or key).
struct AttentionScoreIndices {
  Index batch, head;
  Tile query, key;
  Index queryStart, keyStart;
};

/// A score mod (FlexAttention's `score_mod`): a block of scores, in the
/// softmax's units (q · k times the softmax scale, after a softcap), and
/// their indices to the block's new scores, e.g. ALiBi's
/// `s + slope * (key - query)`.
using AttentionScoreMod =
    std::function<Tile(const Tile &score, const AttentionScoreIndices &)>;
/// An additive score mod: the indices to a bias tile (f32, the block's
/// shape) added to the scores in the softmax's units, e.g. ALiBi's
/// `slope * (key - query)`. What a score mod `s + bias` computes, at less
/// cost: the score MMA starts from the bias (divided by the softmax scale)
/// instead of zeros, so no add a score is left (after a softcap, which
/// needs the scores first, it is an add).
using AttentionScoreBias = std::function<Tile(const AttentionScoreIndices &)>;
/// A mask mod (`mask_mod`): the indices to an i1 tile, true where the query
/// attends the key, on top of the causal mask, the window and the
/// sequences' ends; e.g. a document mask `doc(query) == doc(key)`.
using AttentionMaskMod = std::function<Tile(const AttentionScoreIndices &)>;
/// The keys a block of query rows may see at most, a promise that lets the
/// program skip whole key blocks (FlexAttention's block mask, as a range):
/// the batch, the query head and the block's first and end query
/// positions to the first and end key positions. The key blocks wholly
/// outside are not visited; those it cuts are, whole: the mask mod (or the
/// causal mask or window) must remove the keys outside the range. E.g.
/// chunked attention's `{qFirst / C * C, ((qEnd - 1) / C + 1) * C}` beside
/// its mask `query / C == key / C`.
using AttentionKeyRange = std::function<std::pair<Index, Index>(
    const Index &batch, const Index &head, const Index &queryFirst,
    const Index &queryEnd)>;
/// The same arguments to the keys that every query of the block attends
/// by the mask mod (FlexAttention's full blocks, as a range): the key blocks
/// wholly inside skip the mask mod, and its loads. An empty range where no
/// key is seen by all; e.g. chunked attention's chunk when the block's
/// queries lie in one, else `{0, 0}`.
using AttentionFullKeys = AttentionKeyRange;

/// The kernel arguments an author's mods read (the tensors a FlexAttention
/// mod captures: a bias, each token's document): declared on the attention
/// program (`p.ptr`, `p.index`) after its own arguments and before the mods
/// run, which capture them.
using AttentionModArguments = std::function<void(Program &)>;

/// An author's mods of the attention program (FlexAttention's), each
/// optional.
struct AttentionMods {
  /// Added to the scores first, then the score mod, then the mask mod.
  AttentionScoreBias bias;
  AttentionScoreMod score;
  AttentionMaskMod mask;
  AttentionKeyRange keys;
  AttentionFullKeys fullKeys;
  AttentionModArguments arguments;

  explicit operator bool() const { return bias || score || mask || keys; }
};

/// What varies between attention kernels; the softmax scale and causality
/// are kernel arguments.
struct AttentionOptions {
  /// The head dim of Q and K, and of V (0: the same): multiples of 16 in
  /// [32, 256]. The program's tiles are as wide as whole 128-byte rows (64
  /// columns of 16-bit elements) that hold them; the columns past the head
  /// dim read as zeros and are not written.
  int64_t headDim = 128;
  int64_t headDimV = 0;
  /// The element type of Q, K, V and O: bf16 or f16.
  DType elementType = bf16;
  /// Rows of one K/V block: 16 ... 256, a multiple of 16 (the plan's bn).
  int64_t blockN = 128;
  /// Query rows of one program (a CTA): 64 per consumer warpgroup, 128 or
  /// 192. Packed sequences take 128, the rows of the runner's tile list.
  int64_t blockM = 128;
  /// FA4's conditional rescaling: the running max moves only when a block
  /// raises it by more than 8 (log2 units), so O's rescaling is mostly
  /// skipped; unset: attentionConditionalRescale's measured choice.
  std::optional<bool> conditionalRescale;
  /// A sliding window (the window_left and window_right arguments): a kernel
  /// of its own, so that attention without one pays nothing for it.
  bool window = false;
  /// A logit softcap (the softcap argument, Gemma 2's): scores become
  /// cap · tanh(score / cap) before the softmax; a kernel of its own.
  bool softcap = false;
  /// Packed sequences of variable lengths (cu_seqlens_q and cu_seqlens_k):
  /// a kernel of its own, with Q, K, V and O of rank 3.
  bool varlen = false;
  /// Mods the forward program applies (FlexAttention's): the score and
  /// mask mods to every key block it visits, after the softcap and before
  /// the masks, over the key blocks the key range leaves; an author's
  /// kernel, not a kernel key's (Compiler.h's buildAttentionWithMods).
  AttentionMods mods;
  /// Decode: the K and V caches in pages ([pages, Hkv, page_size, D]) that
  /// a block table ([B, max_pages] i32) lists per sequence, page_size a
  /// multiple of this many keys (a power of two up to 128; 0: a contiguous
  /// cache).
  int64_t pageRows = 0;
};

/// Whether attention for `options` rescales O only when the running max
/// grows by more than 8 (the measured choice: at head dim 256).
bool attentionConditionalRescale(const AttentionOptions &options);

/// The consumer warpgroups attention uses for `options` (the measured
/// choice; blockM is 64 times as many).
int64_t attentionConsumerWarpgroups(const AttentionOptions &options);

/// Whether attention for `options` runs best as a persistent kernel (the
/// measured choice; the plan can say otherwise).
bool attentionPersistent(const AttentionOptions &options);

/// Whether a persistent attention kernel for `options` takes its tiles as
/// its CTAs come free (the measured choice; the plan can say otherwise).
bool attentionDynamicSchedule(const AttentionOptions &options);

/// Whether attention for `options` pins its MMA descriptor bases (the plan's
/// pin_descriptors) with key blocks of `blockN` rows (0: derived, 80 at
/// head dim 256): at head dim 256 over derived blocks, whose Q descriptors
/// were moved into uniform registers before every wgmma (bench/RESULTS.md,
/// 2026-12-06, on an H100, not causal: 7 % faster at S = 1024, 5-10 % at
/// 2048, level at 4096); not over blocks of 64 (1-2 % slower causal).
bool attentionPinDescriptors(const AttentionOptions &options, int64_t blockN);

/// Forward attention as a tile program, `@attention(q, k, v, o, lse, seq_q,
/// seq_k, batch, heads, group, o_stride_b, o_stride_h, o_stride_s,
/// scale_log2, causal[, window_left, window_right][, softcap])`: Q is a
/// descriptor with blocks of 1x1xMxD' (M = blockM, D' the head dim D padded
/// to 64 columns) over [B, H, Sq, D], K with blocks of 1x1xNxD' (N =
/// blockN) over [B, Hkv, Sk, D] and V with blocks of 1x1xNxDv' over
/// [B, Hkv, Sk, Dv] (H a multiple of Hkv: query head h reads KV head
/// h / group, group = H / Hkv); O [B, H, Sq, Dv] is a descriptor (a tensor
/// map: any layout with contiguous rows)
/// and LSE [B, H, Sq] (f32, contiguous, the
/// natural log-sum-exp of each row's scaled scores) a pointer. The sizes,
/// the group and O's strides are made by launch rules from the tensors.
/// Program (x, h, b) of a grid (X, H, B) computes query rows [128 m, 128 m +
/// 128), m = X - 1 - x (the longest causal rows first), of head h of batch
/// b, with the online softmax in base 2, visiting the key blocks
/// up to the diagonal when `causal` is nonzero (query i sees keys
/// j <= i + seq_k - seq_q) and, with `window` and a sliding window
/// (window_left or window_right >= 0, FlashAttention's window_size), only
/// those from
/// i + seq_k - seq_q - left to i + seq_k - seq_q + right (right 0 when
/// causal), skipping the blocks outside; a row with no visible key gets
/// zeros and an LSE of -inf. With `varlen`, packed sequences: Q and O are
/// [H, TQ, D], K and V [HKV, TK, D] views of (T, H, D) tensors, LSE
/// [H, TQ], the sequences' offsets `cu_seqlens_q` and `cu_seqlens_k` (i32
/// [B + 1]) and the query blocks to compute `tiles` (i32 [N, 2] of
/// (sequence, block)) inputs; program (x, h) computes block x of that list
/// for head h with its sequence's lengths. Null, with an error, for options
/// it does not support.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttention(mlir::MLIRContext *context, const AttentionOptions &options);

/// The attention backward's preprocess as a tile program,
/// `@attention_bwd_preprocess(o, do, delta, seq_q, batch, heads)`: O and dO
/// are descriptors with blocks of 1x1xMxDv' (M = blockM, Dv' the head dim
/// of V padded to 64 columns) over [B, H, Sq, Dv], D [B, H, Sq] an f32
/// pointer; program (x, h, b) of a grid (cdiv(Sq, M), H, B) writes
/// D = rowsum(dO ∘ O) of query rows [M x, M x + M) of head h of batch b.
/// Uses the options' head dims, element type and blockM. Null, with an
/// error, for options it does not support.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttentionBackwardPreprocess(mlir::MLIRContext *context,
                                 const AttentionOptions &options);
/// The attention backward's postprocess as a tile program,
/// `@attention_bwd_postprocess(dq_accum, dq, softmax_scale)`: dQaccum is a
/// descriptor with blocks of 1x1xMxD' f32 (D' the head dim padded to 64
/// columns) over [B, H, Sq, D'], dQ one with blocks of 1x1xMxD' of the
/// element type over [B, H, Sq, D]; program (x, h, b) of a grid
/// (cdiv(Sq, M), H, B) writes dQ = softmax_scale · dQaccum of query rows
/// [M x, M x + M) of head h of batch b. Uses the options' head dim, element
/// type and blockM.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttentionBackwardPostprocess(mlir::MLIRContext *context,
                                  const AttentionOptions &options);
/// The attention backward's programs over query blocks (dQ) and over key
/// blocks (dK and dV together, in five products, or one of them alone).
enum class BackwardProgram { Dq, DkDv, Fused, Dk, Dv };
/// The rows of the blocks the backward's loops visit: the key blocks of
/// the dQ program, or the query blocks of the programs over key blocks.
/// dQ: 128 keys up to 128 columns of head dim (its accumulator leaves room
/// for S and dP of 128 columns), 64 up to 192 (of 128 its accumulator of
/// 192 columns and S and dP would spill 796 B a thread; of 64, none), 32
/// wider, where its two warpgroups' Q and dO and two K/V stages of 64 keys
/// overflow shared memory. dK and dV together: 64 queries (128 would give
/// Sᵀ and dPᵀ twice the registers: 432 B of spills at head dim 128), 128
/// at head dims up to 64, whose dK and dV take half (bench/RESULTS.md,
/// 2026-12-05: dQ 15 % and dK/dV 18 % faster at head dim 64, dQ 5 % at
/// 128). dK or dV alone (over KernelKey::kMaxJointDkDvColumns): 64.
int64_t attentionBackwardBlockN(const AttentionOptions &options,
                                BackwardProgram program);
/// The consumer warpgroups (of 64 rows each) of a backward program: two,
/// but one for dK and dV together over 128 columns (their two
/// accumulators would spill 2 KiB a thread) and for dK over 192, where
/// two warpgroups' K and V of 128 rows leave no room for two Q and dO
/// stages (bench/RESULTS.md, 2026-12-06: dV's two warpgroups 18 % faster
/// at head dim 256, dQ's over 32 keys 8 %, dK's and dV's 13 % over the
/// whole backward at 192).
int64_t attentionBackwardConsumerWarpgroups(const AttentionOptions &options,
                                            BackwardProgram program);
/// The stages of the loop's Q and dO loads of a backward program, 0 where
/// the config derives them from shared memory: two for the five products,
/// whose staging tiles of dS and dQ (32 KiB each at head dim 64, where
/// the config would take four stages) the config does not count.
int64_t attentionBackwardKvStages(BackwardProgram program);
/// Whether the key-block programs (dK/dV, the five products) pin their MMA
/// descriptor bases (the plan's pin_descriptors): from head dim 96 on,
/// where K's and V's per-step descriptor words spill (bench/RESULTS.md,
/// 2026-12-05: the dK/dV kernel 6 % faster at head dim 128; the dQ
/// program, which has registers to spare, 12 % slower, so not there).
bool attentionBackwardPinDescriptors(const AttentionOptions &options);
/// Whether a backward program addresses shared memory with 32-bit pointers
/// (the plan's short_pointers): the dQ and the dK/dV programs up to head
/// dim 64, whose address arithmetic the 64-bit form doubles (bench/
/// RESULTS.md, 2026-12-07: 3-8 % faster there; the five products and
/// head dim 128 level, so left as LLVM makes them).
bool attentionBackwardShortPointers(const AttentionOptions &options,
                                    BackwardProgram program);

/// The attention backward's dQ as a tile program, `@attention_bwd_dq(q, k,
/// v, do, lse, delta, dq, seq_q, seq_k, batch, heads, group,
/// softmax_scale, causal[, window_left, window_right][, softcap])`: Q, dO
/// and dQ descriptors with blocks of
/// 1x1xMxD' over [B, H, Sq, D] (dO's D the head dim of V), K and V with
/// blocks of 1x1xNxD' over [B, Hkv, Sk, D], LSE (the forward's, natural
/// log) and D (the preprocess's) [B, H, Sq] f32 pointers. Program (x, h, b)
/// of a grid (cdiv(Sq, M), H, B) writes dQ of query rows [M m, M m + M),
/// m = X - 1 - x, over the key blocks the forward visits for them: no sum
/// across programs. With `window` and `softcap`, the forward's sliding
/// window and softcap (dS scaled by tanh's derivative). With `varlen`,
/// packed sequences (the forward's [H, T, D] layouts, cu_seqlens_q and
/// cu_seqlens_k, dQ through a pointer): a grid (cdiv(max_seqlen_q, M), H,
/// B) whose programs past their sequence's end compute nothing. Null, with
/// an error, for options it does not support.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttentionBackwardDq(mlir::MLIRContext *context,
                         const AttentionOptions &options);
/// The attention backward's main `program` as a tile program: dQ's (the
/// builder above), or one over key blocks:
/// - DkDv, `@attention_bwd_dkdv(q, k, v, do, lse, delta, dk, dv, seq_q,
///   seq_k, batch, heads, group, softmax_scale, causal[, window_left,
///   window_right][, softcap])`: the dQ program's tensors with blocks of
///   1x1xNxD' for Q and dO and 1x1xMxD' for K, V, dK and dV ([B, Hkv, Sk,
///   D]). Program (x, hk, b) of a grid (cdiv(Sk, M), Hkv, B) writes dK and
///   dV of key rows [M x, M x + M) of KV head hk, summed over the query
///   heads of its group and the query blocks that see them (all, those up
///   to the diagonal when causal, those whose window holds them) in one
///   loop. With `varlen`, packed sequences as the dQ program's, on a grid
///   (cdiv(max_seqlen_k, M), Hkv, B).
/// - Dk, `@attention_bwd_dk(q, k, v, do, lse, delta, dk, ...)`, and Dv,
///   `@attention_bwd_dv(q, k, do, lse, dv, ...)` (it reads neither V nor
///   D): the DkDv program's dK or dV alone, for over 128 columns of head
///   dim, where the two together overflow a warpgroup's registers (2 KiB
///   of spills a thread at 256); Sᵀ computed by both. Same grid, scalars
///   and options.
/// - Fused, FlashAttention's five products, `@attention_bwd(q, k, v, do,
///   lse, delta, dk, dv, dq_accum, seq_q, ...)`: the DkDv program, which
///   also adds its key block's part of dQ, dS · K, into dQaccum, an f32
///   descriptor with blocks of 1x1xNxD' over [B, H, Sq, D'] (D' the head
///   dim padded to 64 columns, zeroed before the launch; the postprocess
///   scales it into dQ), by TMA reduce-add. S and dP are computed once, not
///   twice as by the dQ and DkDv programs. dQ's product splits over the
///   consumer warpgroups by columns over 64-row query blocks, by rows over
///   blocks of 128 (head dim 64).
/// Null, with an error, for options the program does not support.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttentionBackwardProgram(mlir::MLIRContext *context,
                              const AttentionOptions &options,
                              BackwardProgram program);
/// Decode's main program, `@attention_decode(q, k, v, cache_seqlens,
/// o_partial, lse_partial, seq_q, batch, kv_heads, rows, row_blocks,
/// parts, scale_log2, causal[, window_left, window_right][, softcap])`: Q a
/// descriptor with blocks of 1x1xMxD' over [B, Hkv, R, D] (row r of KV head
/// hk: query token r % Sq of query head hk · G + r / Sq, R = G · Sq), the K
/// and V caches with blocks of 1x1xNxD' over [B, Hkv, Smax, D],
/// cache_seqlens i32 [B] (the keys in use), the parts O f32
/// [P · B, Hkv, R, Dv'] (Dv' padded to 64 columns) and LSE f32 [B · Hkv ·
/// R, 64] (log2 units, a row's parts side by side, P ≤ 64) as pointers. Program (x, hk, b) of a grid
/// (cdiv(R, M) · P, Hkv, B) writes part x / cdiv(R, M) (an even share of
/// the key blocks its rows see) of rows [M m, M m + M), m = x % cdiv(R, M).
/// Null, with an error, for options it does not support.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttentionDecode(mlir::MLIRContext *context,
                     const AttentionOptions &options);
/// Decode's combine program, `@attention_decode_combine(o_partial,
/// lse_partial, o, lse, rows, parts)`: the parts read flat (O a descriptor
/// with blocks of 1xMx64 f32 over [P, N, Dv'], N = B · H · Sq, the LSEs a
/// descriptor with blocks of Mx64 over [N, 64]), O a descriptor with blocks
/// of Mx64 of the element type over [N, Dv], LSE f32 [N] (natural log).
/// Program (m, c) of a grid (cdiv(N, M), Dv' / 64) merges columns
/// [64 c, 64 c + 64) of rows [M m, M m + M) over the parts.
mlir::OwningOpRef<mlir::ModuleOp>
buildAttentionDecodeCombine(mlir::MLIRContext *context,
                            const AttentionOptions &options);
/// The K/V stages of decode's main kernel over key blocks of `blockN` rows
/// (the plan's derived count where 0): as many bytes in flight as two
/// stages of 128 rows, up to 8 stages, for the smaller blocks of small
/// pages. Measured on the H200 (bench/RESULTS.md, 2026-12-04, pages of 64
/// keys, 64-row blocks): four stages 5-9 % ahead of two.
int64_t attentionDecodeKvStages(int64_t blockN);
/// What varies between softmax kernels.
struct SoftmaxOptions {
  /// The row length N: a multiple of 8 in [16, 256].
  int64_t columns = 128;
  /// The element type of X and Y: bf16 or f16.
  DType elementType = bf16;
};
/// Triton's fused row softmax, `@softmax(x, y)`: X and Y [R, N] descriptors
/// with blocks of 128 x N' (N padded to 64 columns; any row stride);
/// program i of a grid (cdiv(R, 128)) writes Y = softmax(X) along each of
/// rows [128 i, 128 i + 128), in f32. Null, with an error, for a row length
/// it does not support.
mlir::OwningOpRef<mlir::ModuleOp> buildSoftmax(mlir::MLIRContext *context,
                                               const SoftmaxOptions &options);
/// What varies between GEMM kernels.
struct GemmOptions {
  int64_t blockM = 128;
  int64_t blockN = 128;
  int64_t blockK = 64;
};

/// `@gemm(a, b, c, m, n, k)`: C[M, N] = A[M, K] · B[N, K]ᵀ with bf16 inputs
/// and output and f32 accumulation. A and B are descriptors with blocks of
/// blockM x blockK and blockN x blockK; C is a pointer. Program (i, j)
/// computes block (i, j) of C.
mlir::OwningOpRef<mlir::ModuleOp> buildGemm(mlir::MLIRContext *context,
                                            const GemmOptions &options);

} // namespace fa4::dsl

#endif // FA4_DSL_PROGRAMS_H

/*===- fa4.h - fa4's C API --------------------------------------*- C -*-===*\
|*                                                                            *|
|* The stable C interface of libfa4: fa4's attention kernels on device       *|
|* pointers, with shapes, strides, scalars and a CUDA stream. A kernel is    *|
|* compiled on first use (or read from the compile cache, $FA4_CACHE_DIR),   *|
|* loaded once per process and launched asynchronously; nothing waits for   *|
|* the device, so a launch can be captured into a CUDA graph. The window     *|
|* and packed-sequence kernels take their tiles from a counter: libfa4       *|
|* keeps one per kernel and stream (a 256 B allocation for every 64 streams  *|
|* a kernel meets, each counter zeroed on its stream at the stream's first   *|
|* launch), and in a stream capture each launch gets one of the graph's own  *|
|* (allocated and zeroed by the graph). Every refusal returns non-zero       *|
|* before anything launches and leaves a message, naming the argument and    *|
|* the numbers, in fa4_last_error().                                         *|
|*                                                                            *|
|* The structs only grow at their end; callers set `struct_size` to the      *|
|* sizeof they were built with.                                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FA4_FA4_H
#define FA4_FA4_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface. */
#define FA4_API_VERSION 1

typedef enum fa4_dtype { FA4_BF16 = 0, FA4_F16 = 1 } fa4_dtype;

/* A tensor in device memory: its address, and its extents and strides (in
 * elements, outermost first) for its first `rank` dimensions. */
typedef struct fa4_tensor {
  uint64_t data;
  int32_t rank;
  int64_t shape[4];
  int64_t strides[4];
} fa4_tensor;

/* One attention forward: O = softmax(scale * Q K^T [masked]) V and the
 * log-sum-exp of each row (natural log, of the scaled scores).
 *
 * Dense: q and o [B, H, SQ, D], k and v [B, HKV, SK, D] with H a multiple
 * of HKV, any strides whose last is 1 (both (B, H, S, D) and (B, S, H, D)
 * memory); lse f32 [B, H, SQ], contiguous.
 * Packed sequences (cu_seqlens_q not 0): q and o [H, TQ, D], k and v
 * [HKV, TK, D] (views of FlashAttention's (T, H, D)), lse f32 [H, TQ];
 * cu_seqlens_q and cu_seqlens_k i32 [batch + 1] on the device, tiles i32
 * [num_tiles, 2] on the device: the (sequence, query block of 128 rows)
 * pairs to compute, as fa4_varlen_tiles orders them. */
typedef struct fa4_attention_args {
  uint32_t struct_size;
  fa4_dtype dtype;
  fa4_tensor q, k, v, o, lse;
  /* 0 or 1: the bottom-right aligned causal mask. */
  int32_t causal;
  /* FlashAttention's window_size: keys j with i + SK - SQ - left <= j <=
   * i + SK - SQ + right; -1 is unbounded. */
  int32_t window_left, window_right;
  /* Scores cap * tanh(s / cap) before the softmax; 0: none. */
  float softcap;
  /* The scale of Q K^T; 0: 1 / sqrt(D). */
  float softmax_scale;
  /* Packed sequences; 0 for a dense problem. */
  uint64_t cu_seqlens_q, cu_seqlens_k, tiles;
  int64_t batch, num_tiles;
  /* Plan choices: key/value pipeline stages and key-block rows; 0: the
   * derived plan. */
  int32_t kv_stages, block_n;
  /* Any plan field by its name, as fa4-run --plan takes them
   * ("kv-stages=3,block-n=64"; fa4/KernelFormat/Plan.h lists the fields);
   * NULL or "": none. A field set here wins over kv_stages and block_n; the
   * fields left unset are derived from the key. */
  const char *plan;
} fa4_attention_args;

/* Where fa4_prepare_attention got its kernel. */
typedef enum fa4_source {
  FA4_SOURCE_COMPILED = 0,
  FA4_SOURCE_CACHE = 1,
  FA4_SOURCE_PROCESS = 2,
  FA4_SOURCE_KERNEL_DIR = 3
} fa4_source;

/* fa4's version and build: "fa4 0.1.0 (compiler build <hash>)", or
 * "(runtime only)" for a library built without the compiler. */
const char *fa4_version(void);

/* The message of the last failure on this thread; "" when none. */
const char *fa4_last_error(void);

/* The name of the kernel `args` needs (e.g. "attention-hd128-varlen", or
 * "attention-hd256-bn64" with block_n 64: derived from its key, plan
 * choices included), written to `name` (at most `capacity` bytes with the
 * terminating 0).
 * Returns 0, or non-zero for options no shipped kernel has. */
int fa4_attention_kernel_name(const fa4_attention_args *args, char *name,
                              int64_t capacity);

/* Gets the kernel `args` needs, compiled or from the cache, without a GPU and
 * without launching; `source` and `seconds` (may be null) say how and how
 * long it took. A library built without the compiler reads
 * $FA4_KERNEL_DIR/<name>.kernel. Returns 0 or non-zero. */
int fa4_prepare_attention(const fa4_attention_args *args, fa4_source *source,
                          double *seconds);

/* Checks `args` against the kernel's description (types, ranks, shapes,
 * strides, alignment, the TMA rules, the grid) and launches it on `stream`
 * (a CUstream; 0 is the legacy default stream) of the current CUDA device's
 * primary context. Returns 0, or non-zero before anything launched. */
int fa4_attention(const fa4_attention_args *args, void *stream);

/* A plan: the kernel of `args` loaded and its arguments checked once, for
 * calls that differ only in their tensors' addresses (same shapes, strides
 * and options), as a training or serving loop makes. */
typedef struct fa4_attention_plan fa4_attention_plan;

/* Makes a plan of `args` (their addresses as in a first call): gets and
 * loads the kernel and binds the arguments, refusing like fa4_attention.
 * Returns 0 and the plan in `plan`, or non-zero. */
int fa4_attention_plan_create(const fa4_attention_args *args,
                              fa4_attention_plan **plan);

/* fa4_attention with the plan's arguments and these addresses. */
int fa4_attention_plan_launch(fa4_attention_plan *plan, uint64_t q, uint64_t k,
                              uint64_t v, uint64_t o, uint64_t lse,
                              void *stream);

void fa4_attention_plan_destroy(fa4_attention_plan *plan);

/* One attention backward: dQ, dK and dV of a dense fa4_attention, given
 * dO and the forward's O and LSE. q, o, dout and dq are [B, H, SQ, D] (o
 * and dout of V's head dim DV), k, v, dk and dv [B, HKV, SK, D] (v and dv
 * of DV, at most D: DeepSeek's MLA has 192 and 128) with H a
 * multiple of HKV (dk and dv summed over each KV head's query heads), any
 * strides whose last is 1; lse f32 [B, H, SQ] (the forward's) and delta f32
 * [B, H, SQ] (a workspace the call writes: D = rowsum(dO * O)), both
 * contiguous. Three or four kernels on `stream`: D, then either dQ (a CTA
 * per query block) and dK and dV (a CTA per key block; over 128 columns of
 * head dim a dV and a dK kernel), no sum across CTAs, the same
 * bits on every run; or, where that is faster (head dims 80 to 128, long key
 * sequences: fa4_attention_backward_dq_accum says) and deterministic is 0,
 * dK, dV and each key block's part of dQ by one kernel (S and dP once),
 * the parts added into dq_accum in f32 in no fixed order, and dQ from
 * dq_accum. Packed sequences
 * (cu_seqlens_q not 0, below) take the first way. */
typedef struct fa4_attention_backward_args {
  uint32_t struct_size;
  fa4_dtype dtype;
  fa4_tensor q, k, v, o, lse, dout, dq, dk, dv, delta;
  /* 0 or 1: the bottom-right aligned causal mask of the forward. */
  int32_t causal;
  /* The forward's window_size (-1 unbounded) and softcap (0: none). */
  int32_t window_left, window_right;
  float softcap;
  /* The forward's scale of Q K^T; 0: 1 / sqrt(D). */
  float softmax_scale;
  /* 1: delta holds D already, and the call skips the kernel that writes
   * it (a caller with a gradient for the LSE too passes D - dLSE). */
  int32_t delta_ready;
  /* Plan fields of the main kernels (dQ and dK/dV, or the five products;
   * "block-n=64"); NULL or "": derived. */
  const char *plan;
  /* 1: the same bits on every run (see above). */
  int32_t deterministic;
  /* f32 [B, H, SQ, DP], contiguous, DP = D rounded up to a multiple of 64:
   * a workspace the call zeroes and the CTAs add dQ's parts into; may be
   * left empty when fa4_attention_backward_dq_accum says it is unused. */
  fa4_tensor dq_accum;
  /* Packed sequences of variable lengths (the backward of fa4_attention
   * with cu_seqlens_q) when cu_seqlens_q is not 0: q, o, dout and dq [H, TQ,
   * D], k, v, dk and dv [HKV, TK, D] (views of (T, H, D) memory), lse and delta
   * f32 [H, TQ], contiguous; cu_seqlens_q and cu_seqlens_k i32 [batch + 1] on
   * the device, the sequences' offsets; max_seqlen_q and max_seqlen_k at
   * least their longest query and key lengths (the CTAs cover that many
   * rows of every sequence: a shorter one leaves gradients unwritten). */
  uint64_t cu_seqlens_q, cu_seqlens_k;
  int64_t batch;
  int64_t max_seqlen_q, max_seqlen_k;
} fa4_attention_backward_args;

/* Gets the backward's kernels without a GPU (fa4_prepare_attention's way),
 * those of both ways unless deterministic, for the dtype, options and head
 * dims of `args` (q, k and v of rank 4; no address or other extent is
 * read); `seconds` (may be null) is the time it took. Returns 0 or
 * non-zero. */
int fa4_prepare_attention_backward(const fa4_attention_backward_args *args,
                                   double *seconds);

/* Checks `args` against each kernel's description and launches them on
 * `stream`. Returns 0, or non-zero (nothing launched when a check
 * fails before the first launch). */
int fa4_attention_backward(const fa4_attention_backward_args *args,
                           void *stream);

/* Sets *columns to dq_accum's last extent DP (the head dim rounded up to a
 * multiple of 64) when fa4_attention_backward of `args` adds dQ's parts
 * into dq_accum (which the caller must then give, f32 [B, H, SQ, DP]), else
 * 0; tensors' addresses are not read. Returns 0 or non-zero. */
int fa4_attention_backward_dq_accum(const fa4_attention_backward_args *args,
                                    int32_t *columns);

/* Attention over a KV cache (decode): a few query tokens per sequence
 * against the keys a cache holds. q and o [B, H, SQ, D] (o of V's head
 * dim) whose heads and tokens form one run of rows (SQ == 1, or the H
 * stride SQ times the S stride: (B, H, SQ, D) memory); the caches k_cache
 * and v_cache [B, HKV, SMAX, D] with H a multiple of HKV, any strides whose
 * last is 1 ((B, SMAX, HKV, D) memory is such a view); cache_seqlens i32
 * [B] on the device, the keys in use of each sequence (0 ... SMAX; for a
 * paged cache, below, up to max_pages * PAGE_SIZE); lse f32
 * [B, H, SQ], contiguous. Query token s sits at key position
 * s + cache_seqlens[b] - SQ (bottom-right). The query heads of a KV head
 * are the rows of one tile (one read of K and V for the group), and each
 * sequence's keys are split over num_splits CTAs (FlashDecoding) whose
 * parts a second kernel merges; `workspace` (device memory of at least
 * fa4_attention_kvcache_workspace bytes, 16-byte aligned) holds the parts.
 * With one split the first kernel writes o and lse itself and no second
 * runs. On `stream`, launched programmatically: a kernel's launch and
 * setup overlap the end of the one before it, whose memory it waits for,
 * and each lets the next kernel launch at its start: a caller's kernel
 * launched programmatically after them must wait (griddepcontrol.wait)
 * before it reads o or lse. */
typedef struct fa4_attention_kvcache_args {
  uint32_t struct_size;
  fa4_dtype dtype;
  fa4_tensor q, k_cache, v_cache, o, lse;
  uint64_t cache_seqlens;
  /* 0 or 1: the bottom-right aligned causal mask (for SQ > 1). */
  int32_t causal;
  /* FlashAttention's window_size (-1 unbounded) and softcap (0: none). */
  int32_t window_left, window_right;
  float softcap;
  /* The scale of Q K^T; 0: 1 / sqrt(D). */
  float softmax_scale;
  /* CTAs per sequence and KV head, 1 to 64 (fa4_attention_kvcache_splits
   * gives fa4's choice). */
  int32_t num_splits;
  uint64_t workspace;
  int64_t workspace_bytes;
  /* Plan fields of the main kernel ("block-n=64"); NULL or "": derived. */
  const char *plan;
  /* A paged cache (block_table not 0): k_cache and v_cache are
   * [PAGES, HKV, PAGE_SIZE, D] (views of (PAGES, PAGE_SIZE, HKV, D)
   * memory), PAGE_SIZE a multiple of 16, and block_table i32 [B, max_pages]
   * on the device, contiguous, lists each sequence's pages in order: key j
   * of sequence b is row j % PAGE_SIZE of page block_table[b][j /
   * PAGE_SIZE]. Every entry a sequence's length reaches must be a page
   * (0 ... PAGES - 1). */
  uint64_t block_table;
  int64_t max_pages;
} fa4_attention_kvcache_args;

/* fa4's number of splits for a decode launch: enough CTAs to fill
 * `num_sms` SMs in whole waves (within 95 % of the best wave efficiency,
 * the fewest splits), never more than the key blocks of `max_seq_k` keys
 * or 64; 1 when the batch and heads fill the GPU already. Returns 0 and the
 * count in `splits`, or non-zero for sizes that are not positive. */
int fa4_attention_kvcache_splits(int64_t batch, int64_t heads,
                                 int64_t kv_heads, int64_t seq_q,
                                 int64_t max_seq_k, int64_t num_sms,
                                 int32_t *splits);

/* The workspace bytes of a decode launch: the parts' O (f32, V's head dim
 * padded to 64 columns) of each split and their LSEs (f32, 64 a row); -1
 * for sizes that are not positive and splits past 64. */
int64_t fa4_attention_kvcache_workspace(int64_t batch, int64_t heads,
                                        int64_t seq_q, int64_t head_dim_v,
                                        int32_t num_splits);

/* Gets decode's kernels (the combine only with splits) without a GPU
 * (fa4_prepare_attention's way); `seconds` (may be null) is the time it took.
 * Returns 0 or non-zero. */
int fa4_prepare_attention_kvcache(const fa4_attention_kvcache_args *args,
                                  double *seconds);

/* Checks `args` against the kernels' descriptions and launches them on
 * `stream`. Returns 0, or non-zero before anything launched. */
int fa4_attention_with_kvcache(const fa4_attention_kvcache_args *args,
                               void *stream);

/* A GEMM: c [M, N] = a [M, K] . b [N, K]^T, bf16, N a multiple of 128, c
 * contiguous (fa4's shipped `gemm` program). */
typedef struct fa4_gemm_args {
  uint32_t struct_size;
  fa4_tensor a, b, c;
} fa4_gemm_args;

/* Checks `args` against the gemm kernel and launches it on `stream`. */
int fa4_gemm(const fa4_gemm_args *args, void *stream);

/* Gets the gemm kernel, compiled or from the cache, without a GPU. */
int fa4_prepare_gemm(fa4_source *source, double *seconds);

/* The tile list of packed sequences from host copies of the offsets: the
 * (sequence, block) pairs of the sequences with the most work first, each
 * one's last query block first. Writes at most `capacity` pairs to `tiles`
 * (2 * capacity int32) and their number to `count`; returns non-zero for
 * offsets that are not cumulative lengths, or when capacity is too small
 * (count says how many are needed). */
int fa4_varlen_tiles(const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
                     int64_t batch, int32_t causal, int32_t *tiles,
                     int64_t capacity, int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* FA4_FA4_H */

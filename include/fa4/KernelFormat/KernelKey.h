//===- KernelKey.h - what to compile, as one typed value --------*- C++ -*-===//
//
// A kernel key says everything that decides one of fa4's own kernels: the
// program family, its head dims, element type and options, and the plan.
// fa4-run, the C API and the Python package make one; the compile cache
// hashes its text; the compiler builds the DSL program from it; a kernel
// file's name under $FA4_KERNEL_DIR is derived from it (and never parsed
// back). Every combination of the options compiles: there is no list. No
// MLIR and no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_KERNELKEY_H
#define FA4_KERNELFORMAT_KERNELKEY_H

#include "fa4/KernelFormat/Plan.h"
#include "fa4/KernelFormat/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fa4 {

/// The families of programs fa4 compiles.
enum class Family {
  /// Forward attention (lib/DSL/Programs/Attention.cpp).
  Attention,
  /// C = A · Bᵀ (lib/DSL/Programs/Gemm.cpp).
  Gemm,
  /// The attention backward (lib/DSL/Programs/AttentionBackward.cpp): its
  /// preprocess D = rowsum(dO ∘ O), its dQ kernel and its dK/dV kernel
  /// (or, over 128 columns of head dim, a dK and a dV kernel); or, in five
  /// products, the dK/dV kernel that also sums dQ across its CTAs in f32
  /// (fused) and the postprocess that scales that sum into dQ.
  AttentionBackwardPreprocess,
  AttentionBackwardDq,
  AttentionBackwardDkDv,
  AttentionBackwardDk,
  AttentionBackwardDv,
  AttentionBackwardFused,
  AttentionBackwardPostprocess,
  /// Attention over a KV cache (lib/DSL/Programs/AttentionDecode.cpp): the
  /// main kernel, split over the keys, and the combine of its parts.
  AttentionDecode,
  AttentionDecodeCombine,
};

/// The 16-bit element types of fa4's kernels.
enum class DType { BF16, F16 };

/// Everything that decides one kernel.
struct KernelKey {
  Family family = Family::Attention;
  /// Attention: the head dim of Q and K, and of V (0: the same).
  int64_t headDim = 128;
  int64_t headDimV = 0;
  DType dtype = DType::BF16;
  /// Attention: a sliding window (window_left, window_right arguments).
  bool window = false;
  /// Attention: a logit softcap (the softcap argument).
  bool softcap = false;
  /// Attention: packed sequences of variable lengths.
  bool varlen = false;
  /// Decode over a paged KV cache read through a block table (0: a
  /// contiguous cache): its pages hold a multiple of this many keys, the
  /// largest power of two up to 128 that divides their size
  /// (decodePageRows). A key block is gathered from the pages it spans,
  /// in runs of this many keys or of the block's rows, the fewer.
  int64_t pageRows = 0;
  Plan plan;

  /// The smallest and largest head dim, and their step.
  static constexpr int64_t kMinHeadDim = 32, kMaxHeadDim = 256,
                           kHeadDimStep = 16;
  /// Whether `dim` is a head dim attention's programs take.
  static bool isHeadDim(int64_t dim) {
    return dim >= kMinHeadDim && dim <= kMaxHeadDim && dim % kHeadDimStep == 0;
  }
  /// The columns of a head dim's tiles: whole 128-byte rows of 16-bit
  /// elements (64 columns) that hold it. Loads read zeros past the head
  /// dim; decode's parts of O are this wide.
  static int64_t paddedHeadDim(int64_t dim) { return (dim + 63) / 64 * 64; }

  /// The key of the GEMM program.
  static KernelKey gemm();
  /// The keys of the attention backward's kernels in launch order for the
  /// options and plan of `main`: D, dQ and dK/dV (dV and dK apart over
  /// kMaxJointDkDvColumns), or with `fused` D, the fused dK/dV/dQ kernel
  /// and the postprocess. The plan, the window and the softcap are the
  /// main kernels'; D and the postprocess know no mask.
  static std::vector<KernelKey> backwardKernels(const KernelKey &main,
                                                bool fused);
  /// Whether the family is one of the attention backward's.
  bool backward() const;
  /// Whether the family is one of decode's.
  bool decode() const;
  /// The largest head dim of the five-product backward's kernel (its tiles
  /// over 128 columns do not fit in shared memory yet); the others take
  /// every head dim.
  static constexpr int64_t kMaxFusedBackwardHeadDim = 128;
  /// The widest head dim (padded to 64 columns) whose dK and dV one
  /// program holds together; wider, a dV and a dK program of one
  /// accumulator each (both f32 accumulators of 64 rows and 256 columns
  /// are 256 registers a thread, more than a warpgroup's threads have).
  static constexpr int64_t kMaxJointDkDvColumns = 128;
  /// Whether decode reads a paged KV cache.
  bool paged() const { return pageRows != 0; }
  /// The page rows (`pageRows`) of pages of `pageSize` keys: the largest
  /// power of two up to 128 that divides it; 0 for a page size that is not
  /// a multiple of 16.
  static int64_t decodePageRows(int64_t pageSize);
  /// The most parts decode splits a sequence's keys into: the combine reads
  /// a row's LSEs of every part as one row of a tile this wide.
  static constexpr int64_t kDecodeMaxSplits = 64;
  /// fa4's number of splits for decode of `batch` sequences of `seqQ`
  /// tokens of `heads` query heads over `kvHeads` (a divisor) and at most
  /// `maxSeqK` keys on `numSms` SMs (all positive, `maxSeqK` 0 or more):
  /// the fewest that fill the SMs in whole waves of the main kernel's CTAs
  /// (tiles of 128 rows, split over key blocks of 128) within 95 % of the
  /// best wave efficiency, never more than the key blocks or 64; 1 when the
  /// tiles fill four fifths of the SMs already.
  static int64_t decodeSplits(int64_t batch, int64_t heads, int64_t kvHeads,
                              int64_t seqQ, int64_t maxSeqK, int64_t numSms);
  /// V's head dim.
  int64_t valueHeadDim() const { return headDimV ? headDimV : headDim; }
  /// Refuses what no program of the family can be built for: head dims off
  /// the multiples of 16 in [32, 256], options the family does not have.
  runtime::Status verify() const;
  /// The kernel's name, the stem of its file: `attention-hd128`,
  /// `attention-hd192-v128-varlen-window-softcap`, `attention-hd256-bn64`;
  /// options in a fixed order, then each plan field that is set.
  std::string name() const;
  /// The canonical text of every field: what the compile cache hashes
  /// (with the compiler's build, LLVM, ptxas and the target) and this
  /// process's tables of kernels are keyed by.
  std::string str() const;
};

} // namespace fa4

#endif // FA4_KERNELFORMAT_KERNELKEY_H

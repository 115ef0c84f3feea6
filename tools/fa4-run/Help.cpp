//===- Help.cpp - fa4-run --help ------------------------------------------===//
//
// The text of `fa4-run --help`: usage, the two problems with their kernel
// ABIs, every option, the .npy files it reads and writes, what a run does and
// checks, and the exit statuses. It
// is the user's documentation of fa4-run; keep it in step with Arguments.cpp
// and the runner.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

const char *fa4::run::helpText() {
  return R"(fa4-run: runs a compiled fa4 kernel on the GPU, checks its output against a
float64 CPU reference, and times it.

USAGE
  fa4-run
  fa4-run [--kernel FILE] --problem gemm --m M --n N --k K [options]
  fa4-run [--kernel FILE] --problem attention --batch B --heads H --seq-q SQ
          --seq-k SK --head-dim D [--causal] [--scale X] [options]
  fa4-run [--kernel FILE] --problem attention --q Q.npy --k K.npy --v V.npy
          [--out O.npy] [--causal] [--scale X] [options]
  fa4-run --problem ... --emit=tile|fa4|llvm|llvm-ir|ptx|ptxas-report
          [--dtype T]

  With no arguments, fa4-run runs the default problem: attention with batch
  4, 16 heads, sequence 4096 (queries and keys), head dim 128, bf16, not
  causal, checked and timed (--bench), on fa4's own kernel compiled here.

  FILE is a kernel file, as `fa4-translate --emit=kernel` writes it. Without
  --kernel, fa4-run compiles fa4's own kernel for the problem (gemm, or
  attention-hd<D>, or attention-hd<D>-f16 with --dtype f16, for head dim 64,
  128 or 256): the program written in fa4's C++ DSL (lib/DSL/Programs), through
  the tile-to-fa4 passes and the fa4-to-llvm lowering, when it was built
  with the compiler; an
  fa4-run built without it (-DFA4_ENABLE_COMPILER=OFF) needs --kernel. Options
  take their value as `--name value` or `--name=value`; each may appear once.

  --emit=STAGE     print one stage of fa4's own kernel to stdout and exit 0
                   without running: tile (the DSL program at the tile
                   level), fa4 (the warp-specialized, pipelined fa4 kernel),
                   llvm (the LLVM dialect), llvm-ir, ptx or ptxas-report.
                   Not with --kernel.
  --dump-dir DIR   write the compiled kernel file and each compilation stage
                   (kernel.tile.mlir, kernel.fa4.mlir, kernel.llvm.mlir,
                   kernel.ll, kernel.ptx, kernel.ptxas.txt) to DIR. Without
                   a GPU a compiled kernel and its stages go to
                   fa4-artifacts/ unless DIR is given.
  A compile reports its time: the DSL program built, to the cubin.

PROBLEMS AND THE KERNEL ABIS
  gemm       C[M,N] = A[M,K] * B[N,K]^T; A, B, C bf16 (or f16) row-major.
             kernel(a_map, b_map, c, m:i64, n:i64, k:i64): a_map and b_map are
             2-d tensor maps over A and B with the kernel file's box and
             swizzle and zero out-of-bounds fill; c points to C.
             Grid (ceil(M/128), N/128, 1). Needs N % 128 == 0 and K % 8 == 0.
  attention  O = softmax(scale * Q*K^T) * V for each batch and head; Q and O
             are [B,H,SQ,D], K and V [B,H,SK,D], all bf16 (or f16) and
             contiguous.
             kernel(q_map, k_map, v_map, o, seq_q:i64, seq_k:i64,
             scale_log2:f32, causal:i32): each map is a 3-d tensor map
             over its tensor viewed as [B*H, S, D] (innermost first D, S, B*H)
             with the kernel file's box and swizzle and zero fill; o points to
             O; scale_log2 = scale * log2(e). Grid (ceil(SQ/128), B*H, 1).
             With --causal, query row i sees key rows j <= i + SK - SQ (a row
             that sees none must be 0). Needs D % 8 == 0, and D == N when the
             kernel file has `meta = head_dim N`.
  A persistent kernel (fa4-run --persistent, or a kernel file whose last two
  parameters are grid_x:i64 and grid_y:i64) takes the grid above as those
  two parameters and runs on --ctas CTAs in x (default: the SM count, and
  for causal attention one per tile).
  The element type is the kernel's: its tensor maps (`type=` in the kernel
  file) must all be bf16 or all f16, and inputs, output and the reference's
  rounding follow it. A kernel file whose parameters differ in number, order
  or kind, or whose tensor maps are not of one such type and that rank, is
  refused.

OPTIONS
  --kernel FILE          the kernel file to run (default: fa4's own kernel)
  --problem NAME         gemm or attention (required)
  --m M, --n N, --k K    gemm sizes (required for gemm)
  --batch B, --heads H, --seq-q SQ, --seq-k SK, --head-dim D
                         attention sizes (required for attention, unless
                         --q/--k/--v fix them)
  --q FILE, --k FILE, --v FILE
                         attention: read Q, K and V from .npy files instead
                         of drawing them (all three or none; see below)
  --out FILE             attention: write O to a .npy file after the run
  --lse FILE             attention: write the log-sum-exp of each query row
                         to a .npy file after the run
  --dtype bf16|f16       the element type of fa4's own kernel (default
                         bf16); with --kernel, must be the kernel file's
  --emit=STAGE           print a stage of fa4's own kernel (above)
  --kv-stages N          the plan of fa4's own kernel: N K/V stages in shared
                         memory instead of the derived number (as many as
                         fit, at most 4 at head dim 64 and 2 from 128 on);
                         refused when they do not fit
  --qk-stages N          the plan of fa4's own kernel: K loaded in N stages
                         over the head dimension (derived: head dim / 64)
  --block-n N            attention: fa4's own kernel visits keys in blocks
                         of N rows (a multiple of 16 up to 256; default 128,
                         80 at head dim 256)
  --persistent           fa4's own kernel is persistent: its CTAs
                         loop over the tiles (static order), and it takes the
                         tile grid as two more parameters, grid_x and grid_y
  --ctas N               a persistent kernel runs on N CTAs, at most one per
                         tile (default: one per SM; for causal attention one
                         per tile, which balances the unequal causal tiles
                         better than a static order)
  --causal               attention: the causal mask above
  --scale X              attention: the softmax scale (default 1/sqrt(D))
  --check                check the output (the default)
  --no-check             do not check the output
  --bench                time the kernel: --warmup untimed launches, then
                         --iters launches queued back to back, each timed by
                         its own pair of CUDA events; prints
                         the median in ms and TFLOP/s (gemm 2*M*N*K flops;
                         attention 4*B*H*SQ*SK*D, halved when causal with
                         SQ == SK)
  --warmup W             untimed launches before timing (default 10)
  --iters I              timed launches (default 100)
  --seed S               seed of the random inputs (default 1)
  --driver-library PATH  the CUDA driver library to open (default libcuda.so.1)
  --dump-dir DIR         where a compiled kernel and its stages go (above)
  --help                 print this help and exit

NPY FILES
  --q, --k and --v take NumPy .npy files, format version 1.0 or 2.0, of shape
  (B, H, S, D) in C order (fortran_order False) and dtype '<u2' (bf16 as its
  uint16 bits), '<f2' (f16) or '<f4' (f32). Each is converted to the kernel's
  element type with round-to-nearest-even (exact when it is already of that
  type). The files fix B, H, SQ (from Q), SK (from K) and D; a size option
  given as well must agree. The check runs on these inputs. --out writes O,
  shape (B, H, SQ, D), as '<u2' bf16 bits (or '<f2' for an f16 kernel),
  version 1.0, after the run. --lse writes the log-sum-exp
  ln sum_j exp(scale * q.k_j) of each query row (natural log, -inf for a row
  that sees no key), shape (B, H, SQ), as '<f4', version 1.0.
  Refused with status 2, before anything launches: a file that cannot be
  read, a bad magic, a version other than 1.0 and 2.0, another dtype, Fortran
  order, a malformed header, a rank other than 4, data shorter or longer
  than the shape needs, K and V of different shapes, Q and K of different
  B, H or D, a size option that disagrees with the files, and one or two of
  --q, --k and --v without the rest.

WHAT A RUN DOES
  Inputs, unless given as files, are values of the kernel's element type
  uniform in [-1, 1], never 0, from a counter-based SplitMix64 generator
  seeded with --seed. The output and a guard region of
  128 rows after it are poisoned with 0xff bytes (NaN); the kernel runs once
  and the output is read back. The check fails when
    - any element of the whole output is NaN (unwritten, or computed as NaN),
    - any element of the guard region was written (a write past the end),
    - rel_err = ||out - ref|| / ||ref|| over the checked rows exceeds 1e-2,
    - attention: a log-sum-exp value is NaN, written past the end, or off
      by more than 1e-3 * max(1, |ref|) in a checked row (lse_err is the
      largest of those relative errors; a row that sees no key must be -inf),
  where ref is computed in float64 on the CPU for the checked rows: every row
  when M <= 256 (gemm) or SQ <= 64 (attention); otherwise a deterministic
  sample of 256 rows of C, or of 64 query rows of every batch and head: one
  row from each of that many equal strata of the rows at a fixed hashed
  offset, with the first and the last row always in. max_abs is the largest
  |out - ref| there. A failed check is followed by lines that say where: the
  worst element, the rows, the rows' positions in the 128-row CTA tile and
  the columns of the elements off by more than (|ref| + rms(ref))/64.
  With --bench and the check, the output left by the timed launches must equal
  the checked one; a difference is a race and fails the run.

OUTPUT
  A line about the device and the loaded kernel, then one summary line:
    gemm m=1024 n=1024 k=1024: rel_err=3.1e-03 max_abs=1.6e-02 PASS  time=0.123 ms  17.4 TFLOP/s

EXIT STATUS
  0  the run passed (or ran, with --no-check), or --emit printed its stage
  1  the check failed
  2  bad arguments, or a kernel file, an input file or a problem refused
     before anything ran, or --out or --lse could not be written
  3  no GPU or no CUDA driver: nothing ran
  4  a CUDA error while loading, launching, copying or timing
)";
}

//===- Help.cpp - fa4-run --help ------------------------------------------===//
//
// The text of `fa4-run --help`: usage, launch descriptions, running any
// kernel with --arg, the two preset problems, every option, the .npy files it
// reads and writes, what a run does and checks, and the exit statuses. It
// is the user's documentation of fa4-run; keep it in step with Arguments.cpp
// and the runner.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "fa4/KernelFormat/Plan.h"
#include "fa4/KernelFormat/PlanTable.h"

#include <algorithm>
#include <string>

/// The fixed text; @PLAN_FIELDS@ stands for the plan fields' lines and
/// @FUSED_DQ@ for --fused-dq's, which name the plan table's rule.
static const char *const kHelp =
    R"(fa4-run: runs a compiled fa4 kernel on the GPU, checks its output against a
float64 CPU reference, and times it; or runs any fa4 kernel file on the
tensors you give it.

USAGE
  fa4-run
  fa4-run [--kernel FILE] --problem gemm --m M --n N --k K [options]
  fa4-run [--kernel FILE] --problem attention --batch B --heads H --seq-q SQ
          --seq-k SK --head-dim D [--head-dim-v DV] [--causal] [--scale X]
          [options]
  fa4-run [--kernel FILE] --problem attention --q Q.npy --k K.npy --v V.npy
          [--out O.npy] [--lse L.npy] [--causal] [--scale X] [options]
  fa4-run --kernel FILE --arg NAME=VALUE... [--save NAME=OUT.npy...] [--bench]
  fa4-run --kernel FILE --describe
  fa4-run --problem gemm|attention [--head-dim D] [--head-dim-v DV]
          [--dtype T] --emit=tile|fa4|llvm|llvm-ir|ptx|ptxas-report

  With no arguments, fa4-run runs the default problem: attention with batch
  4, 16 heads, sequence 4096 (queries and keys), head dim 128, bf16, not
  causal, checked and timed (--bench), on fa4's own kernel compiled here.
  Without --problem (and --kernel) the options given apply to that problem:
  `fa4-run --emit=ptx` prints its PTX, `fa4-run --head-dim 64` runs it at
  head dim 64.

  FILE is a kernel file, as `fa4-translate --emit=kernel` writes it. Without
  --kernel, fa4-run compiles fa4's own kernel for the problem (gemm, or
  attention-hd<D>, or attention-hd<D>-f16 with --dtype f16, for any head
  dim D (and DV) that is a multiple of 16 from 32 to 256, with -v<DV> after
  hd<D> when --head-dim-v differs from D, -varlen added for packed
  sequences, -window for --window and -softcap for --softcap, every
  combination; then one short token for each plan choice, e.g. -kv3 for
  --kv-stages 3): the name derived from the kernel's key, which the compile
  cache hashes; the program written in fa4's C++ DSL (lib/DSL/Programs), through
  the tile-to-fa4 passes and the fa4-to-llvm lowering, when it was built
  with the compiler; an
  fa4-run built without it (-DFA4_ENABLE_COMPILER=OFF) needs --kernel. Options
  take their value as `--name value` or `--name=value`; each may appear once,
  except --arg and --save.

  --emit=STAGE     print one stage of fa4's own kernel to stdout and exit 0
                   without running: tile (the DSL program at the tile
                   level), fa4 (the warp-specialized, pipelined fa4 kernel),
                   llvm (the LLVM dialect), llvm-ir, ptx or ptxas-report.
                   It needs --problem, and for attention the head dim
                   (--head-dim, default 128) and --dtype pick the kernel;
                   so does --head-dim-v; the other sizes are not needed.
                   Not with --kernel.
  --dump-dir DIR   write the compiled kernel file and each compilation stage
                   (kernel.tile.mlir, kernel.fa4.mlir, kernel.llvm.mlir,
                   kernel.ll, kernel.ptx, kernel.ptxas.txt) to DIR. Without
                   a GPU a compiled kernel and its stages go to
                   fa4-artifacts/<kernel name>/ unless DIR is given.
  --no-cache       compile fa4's own kernel without the compile cache.
  A compile reports its time: the DSL program built, to the cubin, and where
  it went (dsl, tile-to-fa4, fa4-to-llvm, llvm-ir: translated and optimized,
  nvptx: the backend, ptxas).

COMPILE CACHE
  fa4's own kernels are kept in a compile cache, so that the next run gets
  the kernel without compiling it ("... from cache PATH in 0.004 s"): the
  directory $FA4_CACHE_DIR, else $XDG_CACHE_HOME/fa4, else ~/.cache/fa4;
  FA4_CACHE_DIR set and empty turns it off, as --no-cache does for one run.
  An entry is keyed by a hash of the tile program with its plan, the
  compiler's build (a hash of its libraries), LLVM's version, the ptxas
  binary (path, size, time) and the target; it is written to a temporary
  file and renamed, so runs that compile one kernel at once all succeed. An
  entry that is truncated, damaged or not a kernel file is reported,
  removed and compiled again. --dump-dir and --emit always compile (they
  print the stages) and refresh the entry; without a GPU the kernel file in
  fa4-artifacts/ comes from the cache when it has it.

LAUNCH DESCRIPTIONS
  A kernel file describes its launch: the tensors the kernel reads and
  writes (element type, rank, the shape it needs as rules over the other
  tensors, alignment), how each parameter is made (a TMA tensor map over a
  tensor, a pointer to one, a size of one such as q.dim1, or a value the
  caller gives) and the grid, e.g. cdiv(q.dim1,128), q.dim0, 1. The rules
  read a tensor's dimensions (NAME.dimN, 0 outermost) and strides
  (NAME.strideN), integer parameters and num_sms; `require` lines state what
  the shapes alone cannot (n%128==0). --describe prints a file's description.
  The presets and --arg launch from it: fa4-run checks every tensor and
  scalar against it (type, rank, shape, alignment, the TMA rules, the grid
  limits), each refusal naming the argument and the numbers, before anything
  is allocated. Files of version 1 (without a description) are refused.

ANY KERNEL (--kernel FILE without --problem)
  --arg NAME=FILE.npy     tensor NAME from a .npy file (its dtype converted
                          to the tensor's element type; f32 tensors take
                          '<f4'), any shape the description allows
  --arg NAME=random:SHAPE tensor NAME drawn like the presets' inputs (uniform
                          in [-1, 1], never 0, from --seed), SHAPE like
                          512x256 (outermost first)
  --arg NAME=zeros:SHAPE  tensor NAME of zeros (an output whose shape the
                          rules leave open, or an inout tensor)
  --arg NAME=NUMBER       a scalar parameter the caller gives
  --save NAME=FILE.npy    write tensor NAME after the run ('<u2' bf16 bits,
                          '<f2' or '<f4')
  --describe              print the launch description and exit
  Every input tensor and caller-given scalar must be given; an output whose
  shape the rules fix is allocated from them. Outputs and 64 KiB after each
  are poisoned with 0xff bytes; the run fails (status 1) when the kernel
  wrote past an output's end. There is no reference check: compare the saved
  outputs yourself. --bench times the launches like the presets.

PROBLEMS
  gemm       C[M,N] = A[M,K] * B[N,K]^T; A, B, C bf16 (or f16) row-major,
             bound as the kernel's tensors a [M,K], b [N,K] and c [M,N].
             fa4's GEMM needs N % 128 == 0 and K % 8 == 0.
  attention  O = softmax(scale * Q*K^T) * V for each batch and head; Q is
             [B,H,SQ,D], K [B,HKV,SK,D], V [B,HKV,SK,DV] and O [B,H,SQ,DV]
             (DV: V's head dim, --head-dim-v, default D; --kv-heads: query
             head h reads KV head h / (H/HKV)), all bf16 (or f16), laid out
             (B,H,S,D) or (B,S,H,D) (--layout), bound as the kernel's
             tensors q, k, v, o with those shapes and the layout's strides
             and lse [B,H,SQ] (f32, the log-sum-exp of each query row,
             contiguous), and its scalars scale_log2 = scale * log2(e) and
             causal (0 or 1). With --causal, query row i sees key rows
             j <= i + SK - SQ (a row that sees none must be 0, its
             log-sum-exp -inf). Needs D % 8 == 0 and DV % 8 == 0, and the
             head dims the kernel was compiled for (its q and v shape
             rules).
             Packed sequences of variable lengths (--seqlens or
             --cu-seqlens-q): Q lies as (TQ,H,D), O as (TQ,H,DV), K as
             (TK,HKV,D) and V as (TK,HKV,DV), one sequence's tokens after
             the other (FlashAttention's varlen layout), each sequence with
             its own causal and window arithmetic; the varlen kernels
             (attention-hd<D>[-f16]-varlen[-window]) bind them as q, k, v, o
             of shape [H,T,D] ([H,T,DV] for v and o) through strides, lse
             [H,TQ], cu_seqlens_q and cu_seqlens_k (i32 [B+1]) and tiles
             (i32 [N,2]: the query blocks (sequence, block) to compute, one
             program each, the sequences with the most keys first). Empty
             sequences are allowed; the flops are the sequences' sum.
  A persistent kernel (fa4's attention at head dims 64 and 128, or any of
  fa4's kernels with --persistent) takes the tile grid as more parameters,
  grid_x, grid_y (and grid_z), made by rules, and runs on
  min(num_sms, tiles) CTAs; --ctas sets num_sms (default: the SM count).
  The element type is the kernel's: its tensor maps (`type=` in the kernel
  file) must all be bf16 or all f16, and inputs, output and the reference's
  rounding follow it.

OPTIONS
  --kernel FILE          the kernel file to run (default: fa4's own kernel)
  --problem NAME         gemm or attention (required unless --kernel runs
                         a kernel by its description)
  --m M, --n N, --k K    gemm sizes (required for gemm)
  --batch B, --heads H, --seq-q SQ, --seq-k SK, --head-dim D
                         attention sizes (required for attention, unless
                         --q/--k/--v fix them); D is the head dim of Q and K
  --head-dim-v DV        attention: the head dim of V and O (default: D, or
                         V's with --v), a multiple of 8; the scale stays
                         1/sqrt(D). DeepSeek's MLA prefill is --head-dim 192
                         --head-dim-v 128, on fa4's attention-hd192-v128
  --q FILE, --k FILE, --v FILE
                         attention: read Q, K and V from .npy files instead
                         of drawing them (all three or none; see below)
  --out FILE             attention: write O to a .npy file after the run
  --lse FILE             attention: write the log-sum-exp of each query row
                         to a .npy file after the run
  --backward             attention: the backward instead: fa4's backward
                         kernels (D = rowsum(dO * O), then dQ and dK/dV
                         (dV and dK apart over 128 columns of head dim),
                         or the five products below where libfa4
                         takes them, each written under
                         --dump-dir/<kernel> when given) run on random Q,
                         K, V and dO, O and the LSE from fa4's forward
                         kernel for the options (compiled too, its plan
                         derived, untimed); dQ, dK and dV checked
                         against float64 gradients (relative error < 1e-2,
                         zeros for rows that see no key), or with
                         --no-check not (no float64 reference: seconds at
                         a benchmark's sizes); --bench times
                         each kernel and their sum. (B, H, S, D), or
                         packed sequences with --seqlens (and --seqlens-k;
                         dQ and dK/dV by kernels of their own), with
                         --window, --softcap and --head-dim-v (V up to
                         Q's head dim)
@FUSED_DQ@  --deterministic        with --backward: dQ by a kernel of its own (no sum
                         across CTAs, the same bits every run), as
                         fa4.attention(deterministic=True)
  --decode               attention: decode's two kernels instead (attention
                         over a KV cache, split over its keys, and the
                         combine of the parts, which a single split
                         leaves out; each written under
                         --dump-dir/<kernel> when given) for --head-dim,
                         --head-dim-v, --dtype, --window, --softcap and
                         --page-size, run as libfa4's
                         fa4_attention_with_kvcache runs them: --seq-q query
                         tokens of --heads heads per sequence against a
                         random cache of --seq-k keys of --kv-heads heads,
                         query token s at key position s + length - SQ;
                         O and the LSE checked against float64, timed with
                         --bench (K and V bytes read per second)
  --cache-seqlens L,...  --decode: the keys in use in each sequence's cache
                         (one per --batch, each 0 to --seq-k; default all)
  --splits N             --decode: the CTAs each sequence's keys are split
                         over, 1 to 64 (default: fa4's choice, the fewest
                         that fill the SMs in whole waves)
  --page-size N          --decode: a paged KV cache of pages of N keys (a
                         multiple of 16) in a shuffled order, listed by a
                         block table; each key block is gathered from the
                         pages it spans in runs of the largest power of two
                         up to 128 that divides N
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
                         of N rows (a multiple of 16 up to 256; derived: the
                         most, up to 128, that leave two K/V stages in shared
                         memory: 128 up to head dim 128, 80 at 256); with
                         --backward the blocks its loops visit: for dQ 128
                         keys up to head dim 128, 64 up to 192, 32 wider;
                         for dK and dV 128 queries up to 64, 64 wider
  --consumer-warpgroups N
                         attention: fa4's own kernel has N consumer
                         warpgroups (1 to 3, default 2), each computing 64
                         query rows, taking turns at the tensor cores: a CTA
                         computes 64 N rows. Not with --seqlens (the tile
                         list has 128-row blocks). The backward derives 1
                         for dK over 192 columns of head dim
  --persistent           fa4's own kernel is persistent (the default for
                         attention up to 128 columns of head dim, the
                         fastest at 64 and 128 on the H200): its CTAs loop over the tiles,
                         and it takes the tile grid as more parameters,
                         grid_x, grid_y (and grid_z). The order is static
                         and folded: query blocks k and X - 1 - k of a head
                         run one after the other on one CTA (a causal pair's
                         work is the same for every pair), when there are at
                         least as many pairs as CTAs; two Q stages by
                         default (--q-stages)
  --no-persistent        fa4's own kernel runs one tile per CTA (the default
                         at head dim 256 and for the GEMM)
  --q-stages N           a persistent kernel's Q stages, 1 or 2: with 2 the
                         next tile's Q loads while this tile's is read
                         (default 2 where shared memory holds them beside
                         the kv stages, not at head dim 256)
  --debug-hangs          fa4's own kernel is built to diagnose hangs: every
                         mbarrier and named-barrier wait gives up after 2^30
                         cycles (about half a second), and the first thread
                         that does writes where it waited to host memory and
                         traps; fa4-run then names the role, its warpgroup,
                         the barrier (a pipeline's full or empty barrier with
                         its stage and phase, or a named barrier) and the
                         program line, e.g. "consumer warpgroup 1 waited
                         1073741903 cycles on the k pipeline's full barrier,
                         stage 1, phase 0, at Attention.cpp:118". Slower;
                         release kernels are not changed by it
  --rebuild-descriptors  fa4's own kernel builds each MMA step's shared-
                         memory descriptor from the step's address (a few
                         uniform instructions between two MMAs) instead of
                         one add off the tile's: the MMAs issue spaced,
                         which leaves the exponentials room where they are
                         the bottleneck (the default at head dim 64, the
                         fastest there on the H200)
  --no-rebuild-descriptors
                         one add a step (the default from head dim 128 on)
  --pin-descriptors      fa4's own kernel makes each MMA's descriptor base
                         where the MMA runs, so that a loop over fixed tiles
                         holds one register a tile, not one a step: fewer
                         spills where registers are short (the backward's
                         dK/dV kernel: 6 % faster on an H100), more
                         instructions where they are not (its dQ kernel:
                         12 % slower); the default of the backward's
                         dK/dV and five-product kernels from head dim 96
                         and of the forward at head dim 256 over key
                         blocks other than 64 rows
  --no-pin-descriptors   the steps' descriptors may be hoisted out of loops
                         (the default elsewhere)
  --interleave-heads     a persistent kernel numbers its tiles with the
                         heads varying fastest, so each CTA's tiles spread
                         over the query blocks: better balanced where the
                         blocks' work is uneven (a window of 4096 keys at
                         S = 16384: +6 % on the H200), but the tiles that
                         run at once span all heads, and L2 holds less of
                         their K and V (a window as wide as S = 4096: -8 %)
  --no-interleave-heads  query blocks first, a head's tiles run together
                         (the default)
  --dynamic-schedule     a persistent kernel's CTAs take their tiles one at
                         a time as they come free, from a counter the
                         runtime keeps (the kernel's tile_counter), so
                         that uneven work (causal blocks, windows, packed
                         sequences) ends evenly; attention runs the query
                         blocks of as many heads as keep their K and V
                         within 32 MiB of L2 together, longest first
  --static-schedule      the fixed, folded order of tiles per CTA
  --plan NAME=VALUE,...  any plan field of fa4's own kernel by its name
                         (the options above are shorthands), each also
                         `derived`; e.g. --plan kv-stages=3,block-n=64:
@PLAN_FIELDS@  --ctas N               a persistent kernel runs on N CTAs, at most one per
                         tile (default: one per SM)
  --causal               attention: the causal mask above
  --kv-heads N           attention: K and V have N heads (grouped-query
                         attention; the heads a multiple of N; default:
                         as many as Q); with --k/--v files, their heads
  --window L,R           attention: a sliding window: query row i sees the
                         keys from i + SK - SQ - L to i + SK - SQ + R, -1
                         for no bound (FlashAttention's window_size; with
                         --causal R is 0); the blocks outside it are
                         skipped. It runs on fa4's window kernel
                         (attention-hd<D>-window), or with --kernel on one
                         compiled with the window option. TFLOP/s count the
                         pairs it lets through
  --softcap X            attention: a logit softcap (Gemma 2's): scores
                         become X * tanh(score / X) before the softmax, on
                         fa4's softcap kernel (attention-hd<D>-softcap)
  --layout bhsd|bshd     attention: Q, K, V and O lie in memory as
                         (B, H, S, D) (default) or (B, S, H, D), as the
                         projections leave them; bound through strides.
                         .npy files are (B, H, S, D) either way, and
                         (T, H, D) for packed sequences
  --seqlens L1,L2,...    attention: packed sequences of these lengths
                         (queries and keys; 0 for an empty one); they fix
                         the batch and the sequence lengths, which are not
                         given then. Runs on fa4's varlen kernel
  --seqlens-k L1,L2,...  with --seqlens: the key lengths, one per sequence
  --cu-seqlens-q FILE    attention: packed sequences from a .npy file of
                         cumulative offsets (cu_seqlens: B+1 integers from
                         0, never decreasing, '<i4' or '<i8'), ending at the
                         tokens of --q when given; refused otherwise
  --cu-seqlens-k FILE    the key offsets likewise (default: those of the
                         queries); with --k, ending at its tokens
  --scale X              attention: the softmax scale (default 1/sqrt(D))
  --check                check the output (the default)
  --no-check             do not check the output
  --bench                time the kernel: --warmup untimed launches, then
                         twice --iters launches queued back to back, each
                         timed by its own pair of CUDA events; prints the
                         better of the two medians in ms and TFLOP/s (timed
                         before the check, as bench/attention.py times
                         torch; gemm 2*M*N*K flops;
                         attention 2*B*H*SQ*SK*(D+DV), halved when causal
                         with SQ == SK)
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
  type). The files fix B, H, SQ (from Q), SK (from K), D (from Q) and DV
  (from V); a size option given as well must agree. The check runs on these
  inputs. --out writes O, shape (B, H, SQ, DV), as '<u2' bf16 bits (or
  '<f2' for an f16 kernel), version 1.0, after the run. --lse writes the
  log-sum-exp ln sum_j exp(scale * q.k_j) of each query row (natural log,
  -inf for a row that sees no key), shape (B, H, SQ), as '<f4', version 1.0.
  Refused with status 2, before anything launches: a file that cannot be
  read, a bad magic, a version other than 1.0 and 2.0, another dtype, Fortran
  order, a malformed header, a rank other than 4, data shorter or longer
  than the shape needs, K and V of different B, H or S (their head dims may
  differ), Q and K of different B, H or D, a size option that disagrees with
  the files, and one or two of --q, --k and --v without the rest.

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
  0  the run passed (or ran, with --no-check or --arg), or --emit or
     --describe printed what was asked
  1  the check failed, or a kernel run by --arg wrote past an output
  2  bad arguments, or a kernel file, an input file or a problem refused
     before anything ran, or --out, --lse or --save could not be written
  3  no GPU or no CUDA driver: nothing ran
  4  a CUDA error while loading, launching, copying or timing
)";

/// An option's lines: `line` (the option as written), then `help` wrapped
/// to the option column, starting on the option's line if it fits.
static std::string optionLines(std::string line, std::string_view help) {
  constexpr size_t kColumn = 25, kWidth = 79;
  std::string lines;
  if (line.size() + 1 > kColumn) {
    lines += line + "\n";
    line.clear();
  }
  while (!help.empty()) {
    line.resize(kColumn, ' ');
    size_t room = kWidth - kColumn;
    size_t cut =
        help.size() <= room ? help.size() : help.substr(0, room + 1).rfind(' ');
    line += help.substr(0, cut);
    help.remove_prefix(std::min(help.size(), cut + 1));
    lines += line + "\n";
    line.clear();
  }
  return lines;
}

/// The lines of the plan fields, from the plan type's table: each name and
/// its value, then its help.
static std::string planFieldLines() {
  std::string lines;
  for (const fa4::Plan::Field &field : fa4::Plan::fields())
    lines += optionLines(std::string("      ") + field.name +
                             (field.integer ? " N" : " true|false"),
                         field.help);
  return lines;
}

/// --fused-dq's lines, with the rule libfa4's plan table applies.
static std::string fusedDqLines() {
  return optionLines(
      "  --fused-dq",
      "with --backward: the backward in FlashAttention's five products: D, "
      "then one kernel for dK, dV and dQ (S and dP computed once; dQ's "
      "parts summed across its CTAs into an f32 buffer by TMA reduce-add, "
      "in no fixed order), then a postprocess that scales that sum into "
      "dQ. Head dims up to 128. Without it or --deterministic, --backward "
      "takes the way libfa4 takes for the launch (its table in "
      "fa4/KernelFormat/PlanTable.h): " +
          fa4::backwardLaunchRule());
}

std::string fa4::run::helpText() {
  std::string text = kHelp;
  auto substitute = [&](const std::string &marker, const std::string &lines) {
    text.replace(text.find(marker), marker.size(), lines);
  };
  substitute("@PLAN_FIELDS@", planFieldLines());
  substitute("@FUSED_DQ@", fusedDqLines());
  return text;
}

#!/usr/bin/env bash
#===- run-h200.sh - on a GPU machine: test matrix, then the benchmark ----===#
#
# For the GPU machine: builds fa4-run there (run-on-device.sh), runs the GPU
# test matrix (test/GPU/matrix-cases.txt: correctness of every case, and
# compute-sanitizer on small ones), cross-checks O and the log-sum-exp read
# back from .npy files against torch (bench/crosscheck.py), then benchmarks
# fa4 against cuDNN (bench/attention.py). KERNEL_DIR holds gemm.kernel and
# attention-hd{64,128,256}[-f16].kernel, compiled on a machine with the compiler
# (fa4's DSL programs through its passes):
#
#   scripts/compile-kernels.sh KERNEL_DIR
#
#   bench/run-h200.sh KERNEL_DIR [LABEL=DIR ...]
#
# When KERNEL_DIR also holds examples/triton-tutorials' kernels
# (`triton-tutorials --out-dir KERNEL_DIR`), test/GPU/check-any-kernel.py
# checks them against float64 and bench/tutorials.py times the softmax and
# the norms beside torch's and Triton's (tutorials.log); when it holds examples/attention-mods' kernels
# (`attention-mods --out-dir KERNEL_DIR --heads 16 --chunk 100`), it checks
# ALiBi, chunked attention, document masking and a bias from a tensor
# against float64 and times them beside the plain kernel (bench/mods.py;
# mods.log, mods.md).
#
# Further kernel sets (LABEL=DIR, e.g. kernels of an earlier commit) are
# benchmarked beside KERNEL_DIR's in the same run; the matrix and the
# crosscheck run on KERNEL_DIR alone. With NCU=1, ncu then profiles one
# launch of each set and of cuDNN at head dim 64 and 128 (S = 4096, B = 4,
# not causal): instructions, cycles, tensor-pipe share (ncu.txt).
# Logs and tables go under $OUT when it is set, else build-device/.
# FA4_RUN=/path/to/fa4-run uses that fa4-run instead of building one.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernels=${1:?usage: run-h200.sh KERNEL_DIR [LABEL=DIR ...]}
shift
out=${OUT:-$root/build-device}
sets=(--kernel-dir "fa4=$kernels")
for set in "$@"; do sets+=(--kernel-dir "$set"); done
mkdir -p "$out"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit \
  --format=csv,noheader | tee "$out/gpu.txt"
CASE_TIMEOUT=${CASE_TIMEOUT:-120} bash "$root/test/GPU/run-on-device.sh" \
  "$kernels" "$root/test/GPU/matrix-cases.txt" > "$out/matrix.log" 2>&1
matrix=$?
fa4run=${FA4_RUN:-$root/build-device/bin/fa4-run}
python3 "$root/bench/attention.py" --fa4-run "$fa4run" "${sets[@]}" \
  --out "$out/bench.md" --csv "$out/bench.csv" > "$out/bench.log" 2>&1
bench=$?
if [ -n "${NCU:-}" ]; then
  metrics=smsp__inst_executed.sum,sm__cycles_elapsed.max,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum
  : > "$out/ncu.txt"
  for d in 64 128; do
    shape="--problem attention --batch 4 --heads 16 --seq-q 4096 --seq-k 4096 --head-dim $d --no-check"
    for set in "fa4=$kernels" "$@"; do
      echo "== ${set%%=*} d$d" >> "$out/ncu.txt"
      ncu --clock-control none -k regex:attention --launch-count 1 --metrics "$metrics" \
        --section ComputeWorkloadAnalysis \
        "$fa4run" --kernel "${set#*=}/attention-hd$d.kernel" $shape 2>&1 |
        grep -E 'smsp__|sm__|highest-utilized' >> "$out/ncu.txt"
    done
    echo "== cuDNN d$d" >> "$out/ncu.txt"
    ncu --clock-control none -k regex:cudnn --launch-count 1 --metrics "$metrics" \
      --section ComputeWorkloadAnalysis python3 -c "import torch; from torch.nn.attention import SDPBackend, sdpa_kernel
q = torch.randn(4, 16, 4096, $d, device='cuda', dtype=torch.bfloat16)
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    torch.nn.functional.scaled_dot_product_attention(q, q, q); torch.cuda.synchronize()" 2>&1 |
      grep -E 'smsp__|sm__|highest-utilized' >> "$out/ncu.txt"
  done
fi
python3 "$root/bench/crosscheck.py" --fa4-run "$fa4run" \
  --kernel-dir "$kernels" --work "$out/crosscheck" > "$out/crosscheck.log" 2>&1
cross=$?
tutorials=0
if [ -f "$kernels/vector-add.kernel" ]; then
  # The kernels that take a row in one block, and the most columns each takes.
  whole_rows=()
  for kind in softmax layer_norm rms_norm; do
    for cols in 4096 8192; do
      whole_rows+=(--whole-row "$kind,$cols=$kernels/${kind//_/-}-row$cols.kernel")
    done
  done
  python3 "$root/test/GPU/check-any-kernel.py" --fa4-run "$fa4run" \
    --work "$out/tutorials-check" --vector-add "$kernels/vector-add.kernel" \
    --row-softmax "$kernels/softmax.kernel" \
    --layer-norm "$kernels/layer-norm.kernel" \
    --rms-norm "$kernels/rms-norm.kernel" \
    --matmul-gelu "$kernels/matmul-gelu.kernel" > "$out/tutorials.log" 2>&1
  tutorials=$?
  python3 "$root/test/GPU/check-any-kernel.py" --fa4-run "$fa4run" \
    --work "$out/tutorials-check" \
    --row-softmax "$kernels/softmax-128.kernel" \
    --layer-norm "$kernels/layer-norm-128.kernel" \
    --rms-norm "$kernels/rms-norm-128.kernel" \
    "${whole_rows[@]}" \
    --column-sums "$kernels/layer-norm-dwdb.kernel" >> "$out/tutorials.log" 2>&1 ||
    tutorials=1
  python3 "$root/bench/tutorials.py" --fa4-run "$fa4run" \
    --softmax "$kernels/softmax.kernel" \
    --layer-norm "$kernels/layer-norm.kernel" \
    --rms-norm "$kernels/rms-norm.kernel" \
    "${whole_rows[@]}" \
    --column-sums "$kernels/layer-norm-dwdb.kernel" --work "$out/tutorials-bench" \
    --out "$out/tutorials.md" >> "$out/tutorials.log" 2>&1 || tutorials=1
fi
mods=0
if [ -f "$kernels/document.kernel" ]; then
  python3 "$root/test/GPU/check-any-kernel.py" --fa4-run "$fa4run" \
    --work "$out/mods-check" --alibi "$kernels/alibi.kernel:16" \
    --chunked "$kernels/chunked.kernel:100" \
    --document "$kernels/document.kernel" \
    --bias "$kernels/bias.kernel" > "$out/mods.log" 2>&1
  mods=$?
  python3 "$root/bench/mods.py" --fa4-run "$fa4run" --kernel-dir "$kernels" \
    --chunk 100 --work "$out/mods-bench" --out "$out/mods.md" \
    >> "$out/mods.log" 2>&1 || mods=1
fi
grep -cE ' PASS' "$out/matrix.log" | sed 's/^/matrix cases passed: /'
grep -E 'FAIL|TIMEOUT|ERROR' "$out/matrix.log" | head -20
tail -n 30 "$out/matrix.log"
cat "$out/crosscheck.log"
cat "$out/ncu.txt" 2>/dev/null
cat "$out/bench.md" 2>/dev/null || tail -n 20 "$out/bench.log"
cat "$out/tutorials.log" 2>/dev/null
cat "$out/mods.log" 2>/dev/null
exit $((matrix || bench || cross || tutorials || mods))

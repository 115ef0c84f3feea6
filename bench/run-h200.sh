#!/usr/bin/env bash
#===- run-h200.sh - on a GPU machine: test matrix, then the benchmark ----===#
#
# For the GPU machine: builds fa4-run there (run-on-device.sh), runs the GPU
# test matrix (test/GPU/matrix-cases.txt: correctness of every case, and
# compute-sanitizer on small ones), cross-checks O and the log-sum-exp read
# back from .npy files against torch (bench/crosscheck.py), then benchmarks
# fa4 against cuDNN (bench/attention.py). KERNEL_DIR holds gemm.kernel and
# attention-hd{64,128}[-f16].kernel, compiled on a machine with the compiler
# (fa4's DSL programs through its passes):
#
#   scripts/compile-kernels.sh KERNEL_DIR
#
#   bench/run-h200.sh KERNEL_DIR
#
# Logs and tables go under $OUT when it is set, else build-device/.
# FA4_RUN=/path/to/fa4-run uses that fa4-run instead of building one.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernels=${1:?usage: run-h200.sh KERNEL_DIR}
out=${OUT:-$root/build-device}
mkdir -p "$out"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit \
  --format=csv,noheader | tee "$out/gpu.txt"
CASE_TIMEOUT=${CASE_TIMEOUT:-120} bash "$root/test/GPU/run-on-device.sh" \
  "$kernels" "$root/test/GPU/matrix-cases.txt" > "$out/matrix.log" 2>&1
matrix=$?
python3 "$root/bench/attention.py" --fa4-run "${FA4_RUN:-$root/build-device/bin/fa4-run}" \
  --kernel-dir "$kernels" --out "$out/bench.md" > "$out/bench.log" 2>&1
bench=$?
python3 "$root/bench/crosscheck.py" --fa4-run "${FA4_RUN:-$root/build-device/bin/fa4-run}" \
  --kernel-dir "$kernels" --work "$out/crosscheck" > "$out/crosscheck.log" 2>&1
cross=$?
grep -cE ' PASS' "$out/matrix.log" | sed 's/^/matrix cases passed: /'
grep -E 'FAIL|TIMEOUT|ERROR' "$out/matrix.log" | head -20
tail -n 30 "$out/matrix.log"
cat "$out/crosscheck.log"
cat "$out/bench.md" 2>/dev/null || tail -n 20 "$out/bench.log"
exit $((matrix || bench || cross))

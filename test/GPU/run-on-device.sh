#!/usr/bin/env bash
#===- run-on-device.sh - build fa4-run and run kernel files on a GPU -----===#
#
# For the GPU machine, which has CUDA but no LLVM or MLIR: builds the runtime
# and fa4-run alone (-DFA4_ENABLE_COMPILER=OFF), then runs every case of a
# manifest on kernel files compiled elsewhere, and prints a short table.
#
#   test/GPU/run-on-device.sh [--build-dir DIR] KERNEL_DIR [MANIFEST]
#
# MANIFEST (default KERNEL_DIR/manifest.txt) has one case per line, '#' starts
# a comment:
#
#   NAME  TOOL  KERNEL  FA4-RUN-ARGUMENTS...
#   gemm-1k     -         gemm.kernel  --problem gemm --m 1024 --n 1024 --k 1024
#   gemm-race   racecheck gemm.kernel  --problem gemm --m 256 --n 256 --k 128
#
# TOOL is '-' to run fa4-run as it is, or a compute-sanitizer tool (memcheck,
# racecheck, synccheck, initcheck) to run it under; KERNEL is relative to
# KERNEL_DIR, or '-' for fa4-run to take fa4's own kernels of the case from
# KERNEL_DIR by their names (the backward's). TOOL 'python' runs
# `python3 -m KERNEL ARGUMENTS` instead, a check of the Python package (e.g.
# fa4.check_ring, the one-process ring; fa4.check_decode), with fa4's
# kernels from KERNEL_DIR and the libfa4 of the build (or $FA4_LIBRARY);
# 'python+TOOL' runs it under a compute-sanitizer tool. Each case's output goes to LOGS/NAME.log and the table to
# LOGS/summary.txt, where LOGS is $OUT/fa4-run-logs when OUT is set, else
# DIR/logs. The build goes to DIR (default build-device in the source tree,
# which git ignores); FA4_RUN=/path/to/fa4-run skips the build;
# CASE_TIMEOUT=SECONDS stops a case that runs longer (status TIMEOUT). Exits 0
# when every case passed, 1 otherwise, 2 on bad usage or a failed build.
#
#===----------------------------------------------------------------------===#
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build="$root/build-device"

usage() {
  echo "usage: run-on-device.sh [--build-dir DIR] KERNEL_DIR [MANIFEST]" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
  --build-dir) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
  --help | -h) sed -n '3,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "run-on-device.sh: unknown option '$1'" >&2; usage ;;
  *) break ;;
  esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
kernels=$(cd "$1" && pwd) || exit 2
manifest=${2:-$kernels/manifest.txt}
[ -f "$manifest" ] || { echo "run-on-device.sh: no manifest '$manifest'" >&2; exit 2; }

logs=${OUT:+$OUT/fa4-run-logs}
logs=${logs:-$build/logs}
mkdir -p "$logs" || exit 2

if [ -n "${FA4_RUN:-}" ]; then
  run=$FA4_RUN
else
  echo "building fa4-run in $build (log: $logs/build.log)"
  { cmake -S "$root" -B "$build" -G Ninja -DFA4_ENABLE_COMPILER=OFF \
      -DCMAKE_BUILD_TYPE=Release \
      -DFA4_CUDA_INCLUDE_DIR="${CUDA_PATH:-/usr/local/cuda}/include" &&
    cmake --build "$build" --target fa4-run fa4; } \
    >"$logs/build.log" 2>&1 || {
    tail -n 30 "$logs/build.log"
    echo "run-on-device.sh: the build failed" >&2
    exit 2
  }
  run=$build/bin/fa4-run
fi

# The status column for fa4-run's exit codes (see fa4-run --help) and the
# sanitizer's.
status_name() {
  case $1 in
  0) echo PASS ;; 1) echo FAIL ;; 2) echo REFUSED ;; 3) echo NO-GPU ;;
  4) echo CUDA-ERROR ;; 86) echo SANITIZER ;; 124) echo TIMEOUT ;;
  *) echo "EXIT-$1" ;;
  esac
}

table="$logs/summary.txt"
printf '%-16s %-10s %-10s %s\n' case tool status result >"$table"
failed=0
while read -r name tool kernel args; do
  case "$name" in '' | \#*) continue ;; esac
  log="$logs/$name.log"
  command=("$run" --kernel "$kernels/$kernel")
  # No kernel file: fa4-run takes fa4's own kernels from the directory.
  [ "$kernel" != - ] || command=(env FA4_KERNEL_DIR="$kernels" "$run")
  [ "${tool%%+*}" != python ] ||
    command=(env PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
      FA4_KERNEL_DIR="$kernels"
      FA4_LIBRARY="${FA4_LIBRARY:-$build/lib/libfa4.so}" python3 -m "$kernel")
  # The arguments are words without quoting, as written in the manifest.
  read -r -a extra <<<"$args"
  command+=("${extra[@]}")
  if [ "$tool" != - ] && [ "$tool" != python ]; then
    command=(compute-sanitizer --tool "${tool#python+}" --error-exitcode 86
      --print-limit 20 "${command[@]}")
  fi
  [ -z "${CASE_TIMEOUT:-}" ] || command=(timeout "$CASE_TIMEOUT" "${command[@]}")
  echo "\$ ${command[*]}" >"$log"
  "${command[@]}" >>"$log" 2>&1 </dev/null
  code=$?
  status=$(status_name "$code")
  [ "$code" -eq 0 ] || failed=1
  # The result: fa4-run's summary line, else its error, plus the sanitizer's
  # error summary.
  result=$(grep -E 'rel_err=|check=off' "$log" | tail -n 1)
  [ -n "$result" ] || result=$(grep -m 1 'fa4-run: error:' "$log")
  [ "$tool" = - ] || [ "$tool" = python ] ||
    result="$result $(grep -m 1 -oE '(ERROR|RACECHECK) SUMMARY: .*' "$log")"
  printf '%-16s %-10s %-10s %s\n' "$name" "$tool" "$status" "$result" >>"$table"
done <"$manifest"

echo "logs: $logs"
cat "$table"
exit "$failed"

#!/usr/bin/env bash
# Fuzzes fa4's readers and compiler stages with libFuzzer: builds fa4 with
# -DFA4_ENABLE_FUZZERS=ON (ASan, UBSan and coverage) in $FA4_FUZZ_BUILD_DIR
# (default build-fuzz/), seeds each target from the test suite (kernel
# files, .npy files, command lines, every IR test split at its `// -----`
# markers), and runs each target for SECONDS (default 30), or until
# $FA4_FUZZ_RUNS executions when that is set and comes first. Prints one line
# per target (executions, crashes) and keeps each crash's input under
# <build>/fuzz/crashes/<target>/. With --tests it also runs the lit suite on
# that build: the CPU suite under ASan and UBSan. With --runtime-only it
# builds without the compiler ($FA4_FUZZ_BUILD_DIR default build-fuzz-rt/,
# a few minutes) and runs the three targets that need no MLIR, as CI does.
# Exits 1 on any crash or failed test.
#
#   scripts/fuzz.sh [--runtime-only | --tests] [SECONDS] [TARGET...]
#
# Targets: fuzz-kernel-file fuzz-npy fuzz-run-arguments, and with the
# compiler fuzz-ir fuzz-pipeline fuzz-translate (all by default).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
llvm=/usr/lib/llvm-22
tests=0
compiler=ON
if [ "${1:-}" = --tests ]; then tests=1; shift; fi
if [ "${1:-}" = --runtime-only ]; then compiler=OFF; shift; fi
suffix=""
[ $compiler = ON ] || suffix=-rt
build=${FA4_FUZZ_BUILD_DIR:-$root/build-fuzz$suffix}
seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz-kernel-file fuzz-npy fuzz-run-arguments)
  [ $compiler = OFF ] || targets+=(fuzz-ir fuzz-pipeline fuzz-translate)
fi

# scripts/setup.sh installs what this needs (clang, compiler-rt's sanitizer
# runtimes and libFuzzer).
if [ ! -d /usr/lib/llvm-22/lib/clang/22/lib ]; then
  echo "fuzz.sh: compiler-rt for clang 22 is missing; run scripts/setup.sh" >&2
  exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld -DMLIR_DIR=$llvm/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$llvm/bin/lit -DFA4_ENABLE_FUZZERS=ON \
    -DFA4_ENABLE_COMPILER=$compiler > /dev/null
fi
cmake --build "$build" > "$build/fuzz-build.log" 2>&1 ||
  { tail -30 "$build/fuzz-build.log"; exit 1; }

work="$build/fuzz"
seeds="$work/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
# Kernel files: the test inputs and, with ptxas, a real cubin one.
mkdir -p "$seeds/fuzz-kernel-file"
cp "$root"/test/Tools/Inputs/*.kernel "$seeds/fuzz-kernel-file/"
if [ -x "$build/bin/fa4-translate" ]; then
  "$build/bin/fa4-opt" "$root/test/Programs/Kernels/gemm.mlir" --fa4-to-llvm 2>/dev/null |
    "$build/bin/fa4-translate" --emit=kernel -o "$seeds/fuzz-kernel-file/gemm-cubin.kernel" \
    2>/dev/null || true
fi
# .npy files of each dtype and both versions.
mkdir -p "$seeds/fuzz-npy"
python3 - "$seeds/fuzz-npy" <<'PY'
import struct, sys
for i, (descr, size, shape, version) in enumerate([
        ("<u2", 2, (1, 2, 3, 64), 1), ("<f2", 2, (2, 5, 64), 2),
        ("<f4", 4, (3, 64), 1), ("<i4", 4, (5,), 1), ("<i8", 8, (2, 2), 2)]):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape))
    h += " " * (-(len(h) + (12 if version == 2 else 10) + 1) % 64) + "\n"
    n = size
    for d in shape:
        n *= d
    pre = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    open("%s/%d.npy" % (sys.argv[1], i), "wb").write(
        b"\x93NUMPY" + bytes([version, 0]) + pre + h.encode() + bytes(range(256)) * (n // 256) + bytes(n % 256))
PY
cp -r "$root/fuzz/seeds/run-arguments" "$seeds/fuzz-run-arguments"
# IR: every .mlir test, one seed per split.
mkdir -p "$seeds/ir"
python3 - "$root/test" "$seeds/ir" <<'PY'
import os, re, sys
n = 0
for base, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".mlir"):
            text = open(os.path.join(base, f), errors="replace").read()
            for part in re.split(r"^// -----.*$", text, flags=re.M):
                open(os.path.join(sys.argv[2], "%04d.mlir" % n), "w").write(part)
                n += 1
PY
for t in fuzz-ir fuzz-pipeline fuzz-translate; do ln -sfn "$seeds/ir" "$seeds/$t"; done

status=0
total=0
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t"
  crashes="$work/crashes/$t"
  # This run's crashes only (the corpus carries over from run to run).
  rm -rf "$crashes"
  mkdir -p "$corpus" "$crashes"
  log="$work/$t.log"
  set +e
  # As in the suite (test/lit.cfg.py): no leak checks, no user poisoning
  # (instrumented LLVM headers beside uninstrumented MLIR libraries).
  ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:detect_container_overflow=0 \
    "$build/fuzz/$t" "$corpus" "$seeds/$t" \
    -dict="$root/fuzz/fa4.dict" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$crashes/" \
    ${FA4_FUZZ_RUNS:+-runs=$FA4_FUZZ_RUNS} \
    > "$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=$(find "$crashes" -type f | wc -l)
  note=""
  [ "$rc" -eq 0 ] || note=" (exit $rc, see $log)"
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  echo "$t: ${runs:-0} executions in ${took:-$seconds} s, $found crashes$note"
  total=$((total + ${runs:-0}))
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then status=1; fi
done
echo "fuzz: ${#targets[@]} targets, $total executions, status $status"

if [ "$tests" -eq 1 ]; then
  set +e
  "$llvm/bin/lit" -sv --show-unsupported "$build/test" > "$work/lit.log" 2>&1
  rc=$?
  set -e
  grep -E "^(FAIL|UNRESOLVED|TIMEOUT):" "$work/lit.log" || true
  passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$work/lit.log" | tail -1)
  failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$work/lit.log" | tail -1)
  skipped=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$work/lit.log" | tail -1)
  echo "the suite under ASan and UBSan: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
  [ "$rc" -eq 0 ] || status=1
fi
exit "$status"

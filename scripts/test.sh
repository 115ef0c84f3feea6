#!/usr/bin/env bash
# Sets fa4 up (scripts/setup.sh) and runs the whole test suite with lit. GPU
# tests report UNSUPPORTED on machines without a GPU. Then fa4 built with
# ASan, UBSan and libFuzzer (scripts/fuzz.sh --tests, in build-fuzz/, about
# 20 minutes on two cores the first time): every fuzz target for
# $FA4_FUZZ_SECONDS each (default 30; 0 skips this part) and the suite again
# on that build. FA4_FUZZ_COMPILER=0 fuzzes only the three targets that need
# no MLIR instead (scripts/fuzz.sh --runtime-only, a build of minutes). A
# crash or a failure under the sanitizers counts as one failed test. Ends
# with one line, "N passed, N failed, N skipped", the suite's counts.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FA4_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -sv --show-unsupported "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

count() { # count LABEL: the number lit gives for LABEL in its summary
  sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1 | grep . || echo 0
}
passed=$(($(count Passed) + $(count 'Expectedly Failed')))
failed=$(($(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out')))
skipped=$(count Unsupported)
fuzz_seconds=${FA4_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" -gt 0 ]; then
  mode=--tests
  [ "${FA4_FUZZ_COMPILER:-1}" != 0 ] || mode=--runtime-only
  if ! "$root/scripts/fuzz.sh" "$mode" "$fuzz_seconds"; then
    failed=$((failed + 1))
    status=1
  fi
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # lit failed before it could count (a broken configuration)
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"

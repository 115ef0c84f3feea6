#!/usr/bin/env bash
# Sets fa4 up (scripts/setup.sh) and runs the whole test suite with lit. GPU
# tests report UNSUPPORTED on machines without a GPU. Ends with one line,
# "N passed, N failed, N skipped", summing every test lit ran.
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
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # lit failed before it could count (a broken configuration)
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"

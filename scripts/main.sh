#!/usr/bin/env bash
# Sets fa4 up (scripts/setup.sh) and runs the main job on the built-in default
# problem: the plan of a forward attention with head dim 128 in bf16 for the
# H200 (sm_90a), derived and checked by fa4-opt on the shipped tile program.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FA4_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" > /dev/null

"$build/bin/fa4-opt" --fa4-attach-config="head-dim=128 dtype=bf16 target=sm_90a" \
  --fa4-print-plan "$root/examples/attention.mlir" -o /dev/null

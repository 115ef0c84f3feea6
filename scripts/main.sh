#!/usr/bin/env bash
# Sets fa4 up (scripts/setup.sh) and runs the main job: fa4-run on its
# built-in default problem. fa4-run compiles fa4's forward attention kernel
# (head dim 128, bf16, sm_90a), runs it on the GPU, checks it against a
# float64 reference and times it. On a machine without a GPU it writes the
# compiled kernel and its stages to fa4-artifacts/attention-hd128/, says that
# nothing ran and exits with status 3 (fa4-run --help lists the exit
# statuses).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FA4_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" > /dev/null

exec "$build/bin/fa4-run" "$@"

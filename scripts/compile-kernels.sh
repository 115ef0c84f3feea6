#!/usr/bin/env bash
#===- compile-kernels.sh - fa4's kernel files for a GPU machine ----------===#
#
# Compiles kernels of fa4's DSL programs (the attention for head dims 64,
# 128 and 256 in bf16 and f16, with a sliding window, a logit softcap or
# both, for packed sequences of variable lengths, at head dims 80, 96, 160
# and (192, 128), the GEMM, the attention backward's kernels at head
# dims 64 to 256, for packed sequences and in five products too, and
# decode's) with fa4-run's compiler into kernel files,
# DIR/<name>.kernel (the name its key derives), for a machine that runs them
# without the compiler
# (bench/run-h200.sh, test/GPU/run-on-device.sh):
#
#   scripts/compile-kernels.sh [--fa4-run PATH] DIR [FA4-RUN-OPTIONS...]
#
# Further options go to every compile, e.g. a plan: --kv-stages 2.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fa4run="$root/build/bin/fa4-run"
if [ "${1:-}" = --fa4-run ]; then fa4run=$2; shift 2; fi
out=${1:?usage: compile-kernels.sh [--fa4-run PATH] DIR [FA4-RUN-OPTIONS...]}
shift
extra=("$@")
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
small="--batch 1 --heads 1 --seq-q 128 --seq-k 128"
# At head dim 256 the plan block-n=64 (attention-hd256-bn64, descriptors
# not pinned) is no default (the pinned 80-row kernel leads it with a
# causal mask too, bench/RESULTS.md) and is compiled for the GPU matrix.
# The persistent d256 plan (O staged in the Q stage, o_in_q) is no default
# (slower, bench/RESULTS.md) and is compiled for the GPU matrix alone.
long="--batch 1 --heads 1 --seq-q 4096 --seq-k 4096"
while read -r name args; do
  # Without a GPU fa4-run exits 3 after writing the kernel; with one it also
  # runs the small problem. Either way the kernel file is what counts.
  "$fa4run" $args "${extra[@]}" --no-check --dump-dir "$scratch/$name" > "$scratch/$name.log" 2>&1 || true
  # The file is named by the kernel's key: $name, or with plan options
  # $name and the plan's fields (attention-hd128-kv3).
  file=$(ls "$scratch/$name"/*.kernel 2>/dev/null | head -n 1)
  if [ -z "$file" ] || [ ! -s "$file" ]; then
    cat "$scratch/$name.log" >&2
    echo "compile-kernels.sh: no kernel file for $name" >&2
    exit 1
  fi
  cp "$file" "$out/"
  echo "$out/$(basename "$file")"
done <<LIST
attention-hd64 --problem attention $small --head-dim 64
attention-hd128 --problem attention $small --head-dim 128
attention-hd64-f16 --problem attention $small --head-dim 64 --dtype f16
attention-hd128-f16 --problem attention $small --head-dim 128 --dtype f16
attention-hd256 --problem attention $long --head-dim 256
attention-hd256-f16 --problem attention $long --head-dim 256 --dtype f16
attention-hd256-bn64 --problem attention $small --head-dim 256 --causal --block-n 64
attention-hd256-f16-bn64 --problem attention $small --head-dim 256 --dtype f16 --causal --block-n 64
attention-hd64-window --problem attention $small --head-dim 64 --window 64,0
attention-hd128-window --problem attention $small --head-dim 128 --window 64,0
attention-hd256-window --problem attention $small --head-dim 256 --window 64,0
attention-hd64-softcap --problem attention $small --head-dim 64 --softcap 30
attention-hd128-softcap --problem attention $small --head-dim 128 --softcap 30
attention-hd256-softcap --problem attention $small --head-dim 256 --softcap 30
attention-hd128-window-softcap --problem attention $small --head-dim 128 --window 64,0 --softcap 30
attention-hd256-window-softcap --problem attention $small --head-dim 256 --window 64,0 --softcap 30
attention-hd64-window-softcap --problem attention $small --head-dim 64 --window 64,0 --softcap 30
attention-hd128-f16-softcap --problem attention $small --head-dim 128 --dtype f16 --softcap 30
attention-hd32 --problem attention $small --head-dim 32
attention-hd80 --problem attention $small --head-dim 80
attention-hd128-v64 --problem attention $small --head-dim 128 --head-dim-v 64
attention-hd96 --problem attention $small --head-dim 96
attention-hd160 --problem attention $small --head-dim 160
attention-hd192-v128 --problem attention $small --head-dim 192 --head-dim-v 128
attention-hd128-v256 --problem attention $small --head-dim 128 --head-dim-v 256
attention-hd96-window-softcap --problem attention $small --head-dim 96 --window 64,0 --softcap 30
attention-hd64-varlen --problem attention --heads 1 --seqlens 128 --head-dim 64
attention-hd128-varlen --problem attention --heads 1 --seqlens 128 --head-dim 128
attention-hd256-varlen --problem attention --heads 1 --seqlens 128 --head-dim 256
attention-hd128-f16-varlen --problem attention --heads 1 --seqlens 128 --head-dim 128 --dtype f16
attention-hd128-varlen-window --problem attention --heads 1 --seqlens 128 --head-dim 128 --window 64,0
attention-hd128-varlen-softcap --problem attention --heads 1 --seqlens 128 --head-dim 128 --softcap 30
attention-hd80-varlen --problem attention --heads 1 --seqlens 128 --head-dim 80
attention-hd192-v128-varlen --problem attention --heads 1 --seqlens 128 --head-dim 192 --head-dim-v 128
attention-hd256-persistent1 --problem attention $long --head-dim 256 --plan persistent=true
attention-hd160-f16 --problem attention $small --head-dim 160 --dtype f16
attention-hd192 --problem attention $small --head-dim 192
attention-hd128-varlen-window-softcap --problem attention --heads 1 --seqlens 128 --head-dim 128 --window 64,0 --softcap 30
attention-hd96-varlen-window --problem attention --heads 1 --seqlens 128 --head-dim 96 --window 64,0
gemm --problem gemm --m 128 --n 128 --k 64
LIST
# A family of kernels fa4-run compiles together: `compile_family MODE
# COUNT SPEC...` runs fa4-run --MODE for each SPEC (head dim and options),
# at the small sizes or those SIZES gives (libfa4's table picks some
# kernels by length), each in a directory of its own, and copies the COUNT
# kernel files each writes.
compile_family() {
  local mode=$1 count=$2 spec name files file sizes
  shift 2
  for spec in "$@"; do
    name="$mode-hd${spec//[ ,]/}${SIZES:+-long}"
    # Packed sequences take their lengths instead of the small sizes.
    sizes=${SIZES:-$small}
    case "$spec" in *--seqlens*) sizes="--heads 1" ;; esac
    "$fa4run" --problem attention --"$mode" $sizes --head-dim $spec "${extra[@]}" \
      --dump-dir "$scratch/$name" > "$scratch/$name.log" 2>&1 || true
    # --backward also compiles the forward whose O and LSE it takes: that
    # file comes from the forward's own entry.
    files=$(ls "$scratch/$name"/*/*.kernel 2>/dev/null | grep -v "/attention-hd" || true)
    if [ "$(echo "$files" | grep -c .)" != "$count" ]; then
      cat "$scratch/$name.log" >&2
      echo "compile-kernels.sh: not $count $mode kernel files for $name" >&2
      exit 1
    fi
    for file in $files; do
      cp "$file" "$out/"
      echo "$out/$(basename "$file")"
    done
  done
}

# The attention backward's kernels (D, dQ, dK/dV) at the head dims it
# takes, with a window and a softcap. --deterministic, because without it
# libfa4 takes the five products below where its table says (up to 128
# columns on most launches), and at head dim 64 in bf16 on short sequences
# these two persistent: at the small sizes, and apart at long ones.
compile_family backward 3 "64 --deterministic" "64 --dtype f16 --deterministic" \
  "96 --deterministic" "128 --deterministic" "128 --dtype f16 --deterministic" \
  "64 --window 64,0 --deterministic" "64 --softcap 30 --deterministic" \
  "64 --window 64,0 --softcap 30 --deterministic" \
  "128 --window 64,0 --deterministic" "128 --softcap 30 --deterministic" \
  "128 --window 64,0 --softcap 30 --deterministic"
SIZES=$long compile_family backward 3 "64 --deterministic"
# Over 128 columns of head dim, four: D, dQ, dV and dK (one consumer
# warpgroup over key blocks).
compile_family backward 4 "160 --dtype f16" "192" "256" \
  "256 --window 64,0 --softcap 30"
# The backward of packed sequences (D's kernel is the dense one).
compile_family backward 3 "64 --seqlens 128" "128 --seqlens 128" \
  "96 --seqlens 128 --window 64,0" "128 --seqlens 128 --window 64,0 --softcap 30"
compile_family backward 4 "256 --seqlens 128" "192 --head-dim-v 128 --seqlens 128"
# A head dim of V of its own: 128 and 64 (dK and dV in one program), and
# DeepSeek's MLA, 192 and 128 (apart).
compile_family backward 3 "128 --head-dim-v 64 --deterministic"
compile_family backward 4 "192 --head-dim-v 128"
# The backward in five products (--fused-dq: D, the main kernel, dQ's
# postprocess), libfa4's way where its table says.
compile_family backward 3 "96 --fused-dq" "128 --fused-dq" \
  "128 --dtype f16 --fused-dq" "128 --window 64,0 --fused-dq" \
  "128 --softcap 30 --fused-dq" "128 --window 64,0 --softcap 30 --fused-dq" \
  "128 --head-dim-v 64 --fused-dq"
# At head dim 64, dQ's product split by rows; libfa4's way there (in bf16
# without a window or softcap from 2048 keys, 4096 with a causal mask).
compile_family backward 3 "64 --fused-dq" "64 --dtype f16 --fused-dq" \
  "64 --window 64,0 --fused-dq" "64 --softcap 30 --fused-dq" \
  "64 --window 64,0 --softcap 30 --fused-dq"

# Decode's two kernels (over a KV cache, and the combine of its parts) at
# the head dims and options the GPU tests and the benchmark run: the main
# kernel with tiles of 128 rows, and of 64 (libfa4's choice when a KV head's
# query rows fit in 64).
decode_specs=("64" "96 --dtype f16" "128" "192 --head-dim-v 128"
  "128 --window 64,0" "128 --window 64,0 --softcap 30" "128 --page-size 16"
  "128 --page-size 64" "128 --page-size 256" "256 --window 64,0 --softcap 30")
compile_family decode 2 "${decode_specs[@]}"
compile_family decode 2 "${decode_specs[@]/%/ --plan consumer-warpgroups=1}"

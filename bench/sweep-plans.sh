#!/usr/bin/env bash
#===- sweep-plans.sh - time the plans fa4's attention allows -------------===#
#
# A plan sweep in two halves, for a compiler machine and a GPU machine:
#
#   bench/sweep-plans.sh compile DIR [HEAD_DIM ...]
#       (with the compiler) for each head dim (default 64 128 256), every
#       key-block height in BLOCKS (default 48 64 80 96 112 128 144 160)
#       and kv stage count in STAGES (default 2 3 4) that the plan verifier
#       accepts, writes DIR/d<D>-bn<N>-kv<K>/attention-hd<D>.kernel and
#       DIR/d<D>-bn<N>-kv<K>/spills (ptxas's spill stores, bytes). A plan
#       that does not fit is skipped with the verifier's reason.
#   bench/sweep-plans.sh run DIR [FA4_RUN]
#       (on the GPU) times each plan with fa4-run --bench at the sequence
#       lengths in SEQS (default 1024 4096 16384; B * S = 16384, H = 16),
#       causal and not, and prints one markdown row per plan (TFLOP/s; "-"
#       where fa4-run failed or took longer than 60 s).
#
# ConfigAttr::derive and attentionBlockN keep the winners, with the table
# beside them (bench/RESULTS.md has the runs).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() {
  sed -n '3,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 2 ] || usage
mode=$1 dir=$2
shift 2

case "$mode" in
compile)
  fa4run=${FA4_RUN:-$root/build/bin/fa4-run}
  dims=("$@")
  [ ${#dims[@]} -gt 0 ] || dims=(64 128 256)
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  for d in "${dims[@]}"; do
    for bn in ${BLOCKS:-48 64 80 96 112 128 144 160}; do
      for kv in ${STAGES:-2 3 4}; do
        name=d$d-bn$bn-kv$kv
        rm -rf "$scratch/k"
        # Without a GPU fa4-run exits 3 after writing the kernel file.
        "$fa4run" --problem attention --batch 1 --heads 1 --seq-q 128 \
          --seq-k 128 --head-dim "$d" --block-n "$bn" --kv-stages "$kv" \
          --no-check --dump-dir "$scratch/k" > "$scratch/log" 2>&1
        if [ ! -s "$scratch/k/attention-hd$d.kernel" ]; then
          echo "$name: skipped: $(grep -m1 -o 'shared memory plan needs.*\|error:.*' "$scratch/log")"
          continue
        fi
        mkdir -p "$dir/$name"
        cp "$scratch/k/attention-hd$d.kernel" "$dir/$name/"
        grep -o '[0-9]* bytes spill stores' "$scratch/k/kernel.ptxas.txt" |
          cut -d' ' -f1 > "$dir/$name/spills"
        echo "$name: $(cat "$dir/$name/spills") B spilled"
      done
    done
  done
  ;;
run)
  fa4run=${1:-$root/build-device/bin/fa4-run}
  seqs=${SEQS:-1024 4096 16384}
  header="| plan | spills" rule="|---|---:"
  for s in $seqs; do
    header="$header | S=$s | S=$s causal"
    rule="$rule|---:|---:"
  done
  echo "$header |"
  echo "$rule|"
  for plan in "$dir"/d*-bn*-kv*; do
    [ -d "$plan" ] || continue
    name=$(basename "$plan")
    d=${name%%-*}
    d=${d#d}
    row="| $name | $(cat "$plan/spills" 2>/dev/null || echo '?') B"
    for s in $seqs; do
      for causal in "" --causal; do
        # A plan that deadlocks or fails leaves a '-' and the sweep goes on.
        tf=$(timeout 60 "$fa4run" --kernel "$plan/attention-hd$d.kernel" \
          --problem attention --batch $((16384 / s)) --heads 16 --seq-q "$s" \
          --seq-k "$s" --head-dim "$d" $causal --no-check --bench --iters 50 \
          2>&1 | grep -o '[0-9.]* TFLOP/s' | cut -d' ' -f1)
        row="$row | ${tf:--}"
      done
    done
    echo "$row |"
  done
  ;;
*) usage ;;
esac

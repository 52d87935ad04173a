#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The local step (Eq. 5) per L-G iteration on Table 3's Neo-Hookean bodies at the paper's sizes:
# the squeezing ball's, the gingerbread man's and the wooper's tetrahedra and cloth_on_knives'
# triangles, beside the paper's local step (its CPU).
# --device cuda (the default): the CUDA backend, for each bound on the registers of its
# projections' kernel (SIMCTL_CUDA_LOCAL_BLOCKS: the blocks of 256 threads a multiprocessor
# must hold at once; 1, the default, leaves the registers unbounded: 232 a thread for the
# co-rotational and Neo-Hookean singular-value solve, so 8 warps a multiprocessor). (A model
# whose elements are all ARAP has a kernel of its own, 80 registers a thread, which the switch
# does not bound: bench_gpu.sh's rows time it.) And `split`: the projections in two kernels
# (SIMCTL_CUDA_LOCAL_SPLIT=on: the SVD at 80 registers a thread, then the singular-value solve
# at 168 in blocks of 128, three a multiprocessor), the same bits.
# --device cpu: the CPU backend (OpenMP over the elements), one run a scene; the blocks column
# is "-". Give --simctl once for each build to compare (e.g. before and after a change to
# core/solve/material.h): each build's rows in turn, the ratio against the first's.
# Averages frames 6 to N of each run (the first five warm up); the local step does not depend
# on contact, so frames with contact count as well (the gingerbread man lands at frame 16).
# With --repeat R each scene's runs go R times in turn (build after build, so that a slow spell
# of a shared machine falls on all of them) and a row gives the least of a build's R averages,
# and their spread (the most over the least).
# usage: scripts/bench_local.sh [--simctl PATH]... [--device cuda|cpu] [--frames N]
#                               [--blocks LIST] [--repeat R] [--threads N] [--out DIR]
#   --frames: frames per run (default 15)
#   --repeat: runs of each build and scene (default 1)
#   --threads: the CPU backend's threads (solver.threads; default 0, all cores)
#   --blocks: a comma-separated list of SIMCTL_CUDA_LOCAL_BLOCKS values, 1 to 4, and `split`
#             (default 1,2,3,split; cuda only)
set -euo pipefail
FRAMES=15 BLOCKS=1,2,3,split OUT=out/bench_local DEVICE=cuda REPEAT=1 THREADS=0
SIMCTLS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTLS+=("${2:?--simctl needs a value}"); shift 2 ;;
    --device) DEVICE=${2:?--device needs a value}; shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --blocks) BLOCKS=${2:?--blocks needs a value}; shift 2 ;;
    --repeat) REPEAT=${2:?--repeat needs a value}; shift 2 ;;
    --threads) THREADS=${2:?--threads needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_local.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
if ! [[ "$FRAMES" =~ ^[0-9]+$ ]] || [ "$FRAMES" -lt 6 ]; then
  echo "bench_local.sh: --frames $FRAMES: expected a whole number of at least 6" >&2
  exit 2
fi
if ! [[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || ! [[ "$THREADS" =~ ^[0-9]+$ ]]; then
  echo "bench_local.sh: --repeat $REPEAT --threads $THREADS: expected whole numbers (repeat >= 1)" >&2
  exit 2
fi
[ ${#SIMCTLS[@]} -gt 0 ] || SIMCTLS=("$(cd "$(dirname "$0")/.." && pwd)/build/simctl")
case "$DEVICE" in
  cuda) ;;
  cpu) BLOCKS=- ;;
  *) echo "bench_local.sh: --device $DEVICE: expected cuda or cpu" >&2; exit 2 ;;
esac
for s in "${SIMCTLS[@]}"; do
  if [ ! -x "$s" ]; then echo "bench_local.sh: --simctl $s: no such program" >&2; exit 2; fi
done
if [ "$DEVICE" = cuda ] && ! [[ "$BLOCKS" =~ ^([1-4]|split)(,([1-4]|split))*$ ]]; then
  echo "bench_local.sh: --blocks $BLOCKS: expected a comma-separated list of 1 to 4 and split" >&2
  exit 2
fi
HERE="$(cd "$(dirname "$0")" && pwd)"
SC="$HERE/../scenes"
PAPER="$HERE/paper/table3_timings.csv"
mkdir -p "$OUT"
# scene|paper example|paper vertices
ROWS="squeezing_ball|squeezing_ball|7100
gingerbread_man|gingerbread_man|11100
pulling_wooper|pulling_wooper|5300
cloth_on_knives|cloth_on_knives|5100"
echo "| scene | elements | build | blocks | local ms | against the first | spread | paper local ms |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
while IFS='|' read -r scene ex nv; do
  base=
  paper=$(awk -F, -v ex="$ex" -v nv="$nv" '$1 == ex && $2 == nv { print $11; exit }' "$PAPER")
  declare -A best=() worst=()
  for ((r = 0; r < REPEAT; r++)); do
    for k in "${!SIMCTLS[@]}"; do
      for b in ${BLOCKS//,/ }; do
        dir="$OUT/${scene}_s${k}_b$b"
        unset SIMCTL_CUDA_LOCAL_BLOCKS SIMCTL_CUDA_LOCAL_SPLIT
        if [ "$b" = split ]; then
          export SIMCTL_CUDA_LOCAL_SPLIT=on
        elif [ "$DEVICE" = cuda ]; then
          export SIMCTL_CUDA_LOCAL_BLOCKS=$b
        fi
        "${SIMCTLS[$k]}" run "$SC/$scene.json" -q --device "$DEVICE" --threads "$THREADS" \
          --frames "$FRAMES" --out "$dir" --set 'output.formats=["csv"]' \
          --set "output.every=$FRAMES" >&2
        ms=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
          $1 > 5 && $c["lg_iterations"] > 0 { t += $c["local"] / $c["lg_iterations"]; n++ }
          END { if (n) printf "%.4f", t / n }' "$dir/timing.csv")
        key="$k|$b"
        best[$key]=$(awk -v a="$ms" -v b="${best[$key]:-}" 'BEGIN { print (b == "" || a < b) ? a : b }')
        worst[$key]=$(awk -v a="$ms" -v b="${worst[$key]:-}" 'BEGIN { print (b == "" || a > b) ? a : b }')
      done
    done
  done
  elems=$(awk -F'[:,]' '/"tets"|"cloth_triangles"/ { gsub(/[^0-9]/, "", $2); s += $2 }
    END { print s }' "$OUT/${scene}_s0_b${BLOCKS%%,*}/summary.json")
  for k in "${!SIMCTLS[@]}"; do
    for b in ${BLOCKS//,/ }; do
      ms=${best["$k|$b"]}
      base=${base:-$ms}
      rel=$(awk -v a="$ms" -v b="$base" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
      spread=$(awk -v a="${worst["$k|$b"]}" -v b="$ms" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
      echo "| $scene | $elems | ${SIMCTLS[$k]} | $b | $ms | $rel | $spread | ${paper:-} |"
    done
  done
  unset best worst
done <<<"$ROWS"

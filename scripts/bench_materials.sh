#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Per-iteration local-step and global-step milliseconds per material (ARAP, corotational,
# Neo-Hookean) on the paper's cloth extension (20.2k and 10.2k vertices) and the twisting bar
# at 11.3k, and the area / volume change at the end of a run of each cloth material (Fig. 10).
# usage: scripts/bench_materials.sh [SIMCTL] [FRAMES] [GLOBAL]   (make bench-materials)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
case ${1:-} in -h | --help) sed -n '3,/^# usage/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -le 3 ] || { echo "usage: scripts/bench_materials.sh [SIMCTL] [FRAMES] [GLOBAL]" >&2; exit 2; }
SIMCTL=${1:-$ROOT/build/simctl}
FRAMES=${2:-40}
GLOBAL=${3:-cholesky}
case $FRAMES in ''|*[!0-9]*) echo "bench_materials.sh: FRAMES must be a whole number, got '$FRAMES'" >&2; exit 2 ;; esac
[ "$FRAMES" -ge 6 ] || { echo "bench_materials.sh: FRAMES must be at least 6 (the first 5 frames are skipped as warm-up)" >&2; exit 2; }
[ -x "$SIMCTL" ] || { echo "bench_materials.sh: $SIMCTL is not an executable (make build)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "global solver: $GLOBAL, $FRAMES frames per run, first 5 frames skipped"
echo
echo "| scene | vertices | material | local ms/iter | global ms/iter | frame ms |"
echo "| --- | --- | --- | --- | --- | --- |"
for scene in cloth_extension_10k cloth_extension twisting_bar_nh; do
  for mat in arap corotational neo_hookean; do
    d="$OUT/$scene-$mat"
    "$SIMCTL" run "$ROOT/scenes/$scene.json" --quiet --device cpu --frames "$FRAMES" --out "$d" \
      --set solver.global="$GLOBAL" --set bodies.0.material.model="$mat" \
      --set 'output.formats=["csv"]' --set output.every=1000000
    nv=$(awk -F, '$1 == "vertices" { print $2 }' "$d/memory.csv")
    # columns: local=5 global=6 frame_ms=11 lg_iterations=15
    awk -F, -v s="$scene" -v m="$mat" -v nv="$nv" 'NR > 6 { l += $5; gl += $6; f += $11; it += $15; n++ }
      END { printf "| %s | %s | %s | %.3f | %.3f | %.2f |\n", s, nv, m, l / it, gl / it, f / n }' \
      "$d/timing.csv"
  done
done

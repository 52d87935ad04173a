#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Per-iteration local-step and global-step milliseconds on the twisting bar for each global
# solver (and S in float), plus `simctl info` for the paper's three bars.
# usage: scripts/bench_global.sh [SIMCTL] [FRAMES]      (make bench runs it)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
case ${1:-} in -h | --help) sed -n '3,/^# usage/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -le 2 ] || { echo "usage: scripts/bench_global.sh [SIMCTL] [FRAMES]" >&2; exit 2; }
SIMCTL=${1:-$ROOT/build/simctl}
FRAMES=${2:-40}
case $FRAMES in ''|*[!0-9]*) echo "bench_global.sh: FRAMES must be a whole number, got '$FRAMES'" >&2; exit 2 ;; esac
[ "$FRAMES" -ge 6 ] || { echo "bench_global.sh: FRAMES must be at least 6 (the first 5 frames are skipped as warm-up)" >&2; exit 2; }
[ -x "$SIMCTL" ] || { echo "bench_global.sh: $SIMCTL is not an executable (make build)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| scene | global solver | precision | local ms/iter | global ms/iter | frame ms |"
echo "| --- | --- | --- | --- | --- | --- |"
for scene in twisting_bar twisting_bar_11k; do
  cfgs="cholesky:double sparse_inverse:double sparse_inverse:float"
  [ "$scene" = twisting_bar ] && cfgs="$cfgs jacobi:double dense_inverse:double"
  for cfg in $cfgs; do
    g=${cfg%%:*}; p=${cfg##*:}
    "$SIMCTL" run "$ROOT/scenes/$scene.json" --quiet --device cpu --frames "$FRAMES" --out "$OUT/$scene-$g-$p" \
      --set solver.global="$g" --set solver.precision="$p" --set 'output.formats=["csv"]' \
      --set output.every=1000000
    # skip the first 5 frames (warm-up); columns: local=5 global=6 frame_ms=11 lg_iterations=15
    awk -F, -v s="$scene" -v g="$g" -v p="$p" 'NR > 6 { l += $5; gl += $6; f += $11; it += $15; n++ }
      END { printf "| %s | %s | %s | %.3f | %.3f | %.2f |\n", s, g, p, l / it, gl / it, f / n }' \
      "$OUT/$scene-$g-$p/timing.csv"
  done
done
echo
for scene in twisting_bar twisting_bar_11k twisting_bar_20k; do
  echo "== simctl info scenes/$scene.json"
  "$SIMCTL" info "$ROOT/scenes/$scene.json" | sed -n '/all vertices/,$p'
done

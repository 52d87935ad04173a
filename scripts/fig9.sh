#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reproduces the paper's Fig. 9 on the 5.3k twisting bar: for E = 1e5, 1e7, 1e9, runs to
# frame 800 and compares the global solvers over K iterations; writes CSVs and PNG plots.
# usage: scripts/fig9.sh [SIMCTL] [OUT] [K]
set -euo pipefail
SIMCTL=${1:-build/simctl}
OUT=${2:-out/fig9}
K=${3:-1000}
for E in 1e5 1e7 1e9; do
  echo "== E = $E"
  "$SIMCTL" converge scenes/twisting_bar.json --frame 800 --iterations "$K" --out "$OUT/E$E" \
    --set bodies.0.material.youngs_modulus="$E"
done
bash "$(dirname "$0")/install_deps.sh" gnuplot-nox
gnuplot -e "dirs='$OUT/E1e5 $OUT/E1e7 $OUT/E1e9'; out='$OUT'" "$(dirname "$0")/plot_converge.gp"
echo "plots: $OUT/fig9_iterations.png $OUT/fig9_ms.png"

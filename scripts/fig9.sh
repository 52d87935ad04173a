#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reproduces the paper's Fig. 9 on the 5.3k twisting bar: for E = 1e5, 1e7, 1e9, runs to
# frame 800 and compares the global solvers over K iterations (sparse_inverse, cholesky,
# jacobi, jacobi_chebyshev, cholesky_chebyshev); writes CSVs, one summary table
# (OUT/fig9_summary.csv: iterations and ms to 1e-3 and the final error per E and solver) and
# PNG plots. Extra arguments go to every `simctl converge` (for example --start previous,
# --chebyshev 0.5, --solvers cholesky,jacobi, --device cuda: the iterations timed on the GPU).
# usage: scripts/fig9.sh [SIMCTL] [OUT] [K] [CONVERGE OPTIONS...]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
case ${1:-} in -h | --help) sed -n '3,/^# usage/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
SIMCTL=${1:-$ROOT/build/simctl}
OUT=${2:-out/fig9}
K=${3:-1000}
shift $(($# < 3 ? $# : 3))
[ -x "$SIMCTL" ] || { echo "fig9.sh: $SIMCTL is not an executable (make build)" >&2; exit 2; }
for E in 1e5 1e7 1e9; do
  echo "== E = $E"
  "$SIMCTL" converge "$ROOT/scenes/twisting_bar.json" --frame 800 --iterations "$K" --out "$OUT/E$E" \
    --set bodies.0.material.youngs_modulus="$E" "$@"
done
{
  echo "E,solver,iterations_to_1e-3,ms_to_1e-3,final_error,rho,ms_per_iteration,backend"
  for E in 1e5 1e7 1e9; do tail -n +2 "$OUT/E$E/converge_summary.csv" | sed "s/^/$E,/"; done
} >"$OUT/fig9_summary.csv"
column -s, -t "$OUT/fig9_summary.csv" 2>/dev/null || cat "$OUT/fig9_summary.csv"
bash "$(dirname "$0")/install_deps.sh" gnuplot-nox
# from inside OUT, so that a path with spaces or quotes never reaches gnuplot's word lists
(cd "$OUT" && gnuplot -e "dirs='E1e5 E1e7 E1e9'; out='.'" "$ROOT/scripts/plot_converge.gp")
echo "plots: $OUT/fig9_iterations.png $OUT/fig9_ms.png; table: $OUT/fig9_summary.csv"

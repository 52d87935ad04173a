#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How exactly each global solver solves A_s x = b on the scenes: every scene run with
# `cholesky`, `sparse_inverse` with S in double and in float, and `jacobi` (one sweep per L-G
# iteration; refused with contact, which needs an exact solver), and a table row per run from its summary.json system.solve_check: the global
# step solved again at the run's end on the last local step's right-hand side b, and the
# largest relative residual |A_s x - b| / |b| of x, y and z, computed on the host in double
# (core/app/solve_check.c). The backend is the scene's (auto: the GPU where there is one); give
# --set solver.device=cuda or cpu to choose it.
# usage: scripts/solve_check.sh [--simctl BIN] [--frames N] [--out DIR] [--set PATH=VALUE]...
#        [SCENE.json...]
#        (defaults: build/simctl, 3 frames, out/solve_check, twisting_bar, twisting_bar_nh,
#        cloth_extension and squeezing_ball)
set -euo pipefail
# shellcheck source=scene_args.sh
. "$(dirname "$0")/scene_args.sh"
scene_args solve_check.sh out/solve_check "$@"
default_scenes twisting_bar twisting_bar_nh cloth_extension squeezing_ball
mkdir -p "$OUT"
echo "| scene | free vertices | backend | solver | S held in | relative residual | check (ms) |"
echo "|---|---|---|---|---|---|---|"
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  for variant in cholesky sparse_inverse:double sparse_inverse:float jacobi; do
    solver=${variant%%:*} prec=double
    [ "$variant" != "${variant#*:}" ] && prec=${variant#*:}
    dir="$OUT/$name-$solver-$prec"
    rc=0
    "$SIMCTL" run "$scene" --out "$dir" --quiet --frames "${FRAMES:-3}" \
      --set 'output.formats=["csv"]' --set "solver.global=$solver" \
      --set "solver.precision=$prec" "${SETS[@]}" 2>"$OUT/err" || rc=$?
    if [ "$rc" != 0 ]; then # jacobi where contact needs an exact solver: a row saying so
      if [ "$solver" = jacobi ] && grep -q "need an exact global solver" "$OUT/err"; then
        echo "| $name | - | - | jacobi | - | refused: contact needs an exact solver | - |"
        continue
      fi
      cat "$OUT/err" >&2
      exit "$rc"
    fi
    python3 - "$dir/summary.json" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
c = s["system"].get("solve_check") or {}
r = c.get("relative_residual")
print("| %s | %d | %s | %s | %s | %s | %.1f |" % (
    sys.argv[2], s["model"]["free_vertices"], s["backend"], s["global_solver"], s["precision"],
    "-" if r is None else "%.2e" % r, c.get("ms", 0)))
PY
  done
done

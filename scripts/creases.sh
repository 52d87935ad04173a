#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a vertex's second contact in a fold of a body's surface (contact.creases,
# core/contact/detect_crease.h) changes: each scene run with creases on, then off, on the CPU
# with one thread, and one table row per run: the smallest gap at a step's start (mm) and its
# frame, the most contacts in a step and the most of them on a fold's far face (summary.json's
# contacts_max_by_kind.crease), the L-G iterations, and the mean detection and frame times
# (ms a frame, timing.csv's cd and frame_ms; one run each: compare them with
# scripts/bench_cd.sh for a figure that holds).
# usage: scripts/creases.sh [--simctl BIN] [--frames N] [--out DIR] [--set PATH=VALUE]...
#        [SCENE.json...]
#        (defaults: build/simctl, each scene's frames, out/creases, the scenes whose bodies meet)
set -euo pipefail
# shellcheck source=scene_args.sh
. "$(dirname "$0")/scene_args.sh"
scene_args creases.sh out/creases "$@"
default_scenes box_on_trampoline pushing_wall soft_box_on_slab crossed_ribbons folding_towel \
  cloth_pile
echo "| scene | creases | min gap (mm) | its frame | contacts max | on folds max | L-G iterations | cd (ms) | frame (ms) |"
echo "|---|---|---|---|---|---|---|---|---|"
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  for on in true false; do
    dir="$OUT/$name-$on"
    args=(run "$scene" --out "$dir" --quiet --threads 1 --device cpu --set "contact.creases=$on"
      --set 'output.formats=["csv"]')
    [ -n "$FRAMES" ] && args+=(--frames "$FRAMES")
    "$SIMCTL" "${args[@]}" "${SETS[@]}"
    python3 - "$ROOT/scripts" "$dir" "$name" "$on" <<'PY'
import sys
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, sys.argv[1])
import run_figures as rf  # noqa: E402
d, name, on = sys.argv[2:5]
rows, s, gap, at = rf.read(d)
print(f"| {name} | {'on' if on == 'true' else 'off'} | {1e3 * gap:+.3f} | {at} | "
      f"{s['contacts_max']:,} | {s['contacts_max_by_kind']['crease']:,} | "
      f"{sum(int(r['lg_iterations']) for r in rows):,} | {rf.mean(rows, 'cd'):.3f} | "
      f"{rf.mean(rows, 'frame_ms'):.2f} |")
PY
  done
done

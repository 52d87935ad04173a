#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the contact solve's end pass (contact.end_tolerance, contact.end_newton_steps;
# core/contact/stage.h sim_contact_stage_finish) changes: each scene run three ways on the CPU
# with one thread: "on" (the scene's settings: the defaults, 20 steps to 1e-4 m), "measure"
# (end_newton_steps=0: the pass measures the NCP values a step ends with and takes no step, as
# the budget of newton_steps per L-G iteration leaves them) and "off" (end_tolerance=0: no pass,
# the paper's fixed budget). One table row per run: the smallest gap at a step's start (mm)
# and its frame, the Newton steps in all and those of the end pass, the steps that ended above
# the tolerance, the largest NCP value a step ended with (mm; "-" with no pass), and the mean
# frame time (ms, timing.csv's frame_ms; one run each: rerun it for a figure that holds).
# usage: scripts/end_pass.sh [--simctl BIN] [--frames N] [--out DIR] [--set PATH=VALUE]...
#        [SCENE.json...]
#        (defaults: build/simctl, each scene's frames, out/end_pass, the shipped contact scenes
#        but the three longest: squeezing_ball, pulling_wooper, gingerbread_man)
set -euo pipefail
# shellcheck source=scene_args.sh
. "$(dirname "$0")/scene_args.sh"
scene_args end_pass.sh out/end_pass "$@"
default_scenes stick_slip pushing_wall box_on_trampoline soft_box_on_slab folding_towel \
  cloth_pile crossed_ribbons sharp_corner cloth_on_knives grabbing_raptor
echo "| scene | end pass | min gap (mm) | its frame | Newton steps | of them at the end | steps above | max NCP value at an end (mm) | frame (ms) |"
echo "|---|---|---|---|---|---|---|---|---|"
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  for mode in on measure off; do
    dir="$OUT/$name-$mode"
    args=(run "$scene" --out "$dir" --quiet --threads 1 --device cpu --set 'output.formats=["csv"]')
    [ "$mode" = measure ] && args+=(--set contact.end_newton_steps=0)
    [ "$mode" = off ] && args+=(--set contact.end_tolerance=0)
    [ -n "$FRAMES" ] && args+=(--frames "$FRAMES")
    "$SIMCTL" "${args[@]}" "${SETS[@]}"
    python3 - "$ROOT/scripts" "$dir" "$name" "$mode" <<'PY'
import sys
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, sys.argv[1])
import run_figures as rf  # noqa: E402
d, name, mode = sys.argv[2:5]
rows, s, gap, at = rf.read(d)
e = s.get("end", {"newton_steps": 0, "unmet_steps": 0, "phi_max": 0})
phi = "-" if mode == "off" else f"{1e3 * e['phi_max']:.4g}"
print(f"| {name} | {mode} | {1e3 * gap:+.3f} | {at} | "
      f"{sum(int(r['newton_steps']) for r in rows):,} | {e['newton_steps']:,} | "
      f"{e['unmet_steps']:,} | {phi} | {rf.mean(rows, 'frame_ms'):.2f} |")
PY
  done
done

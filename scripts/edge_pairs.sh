#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How far bodies go into each other between their vertices, with edge-edge contact
# (contact.edge_edge, core/contact/detect_edge.h) off and on: each scene run both ways on the
# CPU with one thread, its OBJ frames written (about 100 a run) and checked with
# scripts/self_intersections.py --between --deep, one table row per run: the most edges
# crossing the other bodies' surfaces in a frame (grazing ones too: bodies held at
# min_separation 0 cross wherever they touch), how deep the deepest reaches into a closed
# surface (a solid's; a cloth has no inside) and its frame, the smallest gap at a step's start,
# the most contacts in a step and the most of them edge pairs (summary.json's
# contacts_max_by_kind.edge), and the mean detection and frame times (ms a frame, timing.csv's
# cd and frame_ms; one run each: compare them with scripts/bench_cd.sh for a figure that holds).
# usage: scripts/edge_pairs.sh [--simctl BIN] [--frames N] [--out DIR] [--set PATH=VALUE]...
#        [SCENE.json...]
#        (defaults: build/simctl, each scene's frames, out/edge_pairs, the scenes whose solids
#        meet: box_on_trampoline, pushing_wall, soft_box_on_slab, grabbing_raptor)
set -euo pipefail
# shellcheck source=scene_args.sh
. "$(dirname "$0")/scene_args.sh"
scene_args edge_pairs.sh out/edge_pairs "$@"
default_scenes box_on_trampoline pushing_wall soft_box_on_slab grabbing_raptor
echo "| scene | edge pairs | crossing edges max | deepest (mm) | its frame | min gap (mm) | contacts max | edge pairs max | cd (ms) | frame (ms) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# DIR NAME ON: the run's row
row() {
  python3 "$ROOT/scripts/self_intersections.py" "$1" --between --deep > "$1/crossings.txt"
  python3 - "$ROOT/scripts" "$1" "$2" "$3" <<'PY'
import re
import sys
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, sys.argv[1])
import run_figures as rf  # noqa: E402
d, name, on = sys.argv[2:5]
rows, s, gap, at = rf.read(d)
text = open(d + "/crossings.txt").read()
most = re.search(r"^most crossing edges in a frame: (\d+)$", text, re.M).group(1)
deep = re.search(r"^deepest: ([0-9.]+) mm \(frame (\d+),", text, re.M)
deepest, frame = (deep.group(1), str(int(deep.group(2)))) if deep else ("-", "-")
print(f"| {name} | {'on' if on == 'true' else 'off'} | {int(most):,} | {deepest} | {frame} | "
      f"{'-' if gap != gap else format(1e3 * gap, '+.3f')} | {s.get('contacts_max', 0):,} | "
      f"{s.get('contacts_max_by_kind', {}).get('edge', 0):,} | "
      f"{rf.mean(rows, 'cd'):.3f} | {rf.mean(rows, 'frame_ms'):.2f} |")
PY
}
both_ways edge_edge row

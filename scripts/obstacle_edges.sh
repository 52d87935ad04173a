#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How deep the bodies' edges go into the analytic obstacles between their vertices, with the
# edges' contacts (contact.obstacle_edges, core/contact/detect_obstacle_edge.h) off and on: each
# scene run both ways on the CPU with one thread, its OBJ frames written (about 100 a run) and
# checked with scripts/obstacle_depths.py, one table row per run: the deepest vertex and the
# deepest edge point in an obstacle that does not move (mm) and that point's frame, the
# smallest gap at a step's start, the most contacts in a step and the most of them the edges'
# (summary.json's contacts_max_by_kind.obstacle_edge), the contacts re-detection added, the
# L-G iterations a step, and the mean detection and frame times (ms a frame, timing.csv's cd
# and frame_ms; one run each: compare them with scripts/bench_cd.sh for a figure that holds).
# usage: scripts/obstacle_edges.sh [--simctl BIN] [--frames N] [--out DIR] [--set PATH=VALUE]...
#        [SCENE.json...]
#        (defaults: build/simctl, each scene's frames, out/obstacle_edges, the scenes that
#        press bodies on cylinders: squeezing_ball, pulling_wooper, gingerbread_man)
set -euo pipefail
# shellcheck source=scene_args.sh
. "$(dirname "$0")/scene_args.sh"
scene_args obstacle_edges.sh out/obstacle_edges "$@"
default_scenes squeezing_ball pulling_wooper gingerbread_man
echo "| scene | edge contacts | deepest vertex (mm) | deepest edge point (mm) | its frame | min gap (mm) | contacts max | edge contacts max | re-detected | L-G iterations | cd (ms) | frame (ms) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
# DIR NAME ON: the run's row
row() {
  python3 "$ROOT/scripts/obstacle_depths.py" "$1" > "$1/depths.txt"
  python3 - "$ROOT/scripts" "$1" "$2" "$3" <<'PY'
import re
import sys
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, sys.argv[1])
import run_figures as rf  # noqa: E402
d, name, on = sys.argv[2:5]
rows, s, gap, at = rf.read(d)
text = open(d + "/depths.txt").read()


def deepest(what):
    """(depth in mm, frame) of depths.txt's line for `what`, "-" where none is inside."""
    m = re.search(r"^deepest %s: ([0-9.]+) mm \(frame (\d+)," % what, text, re.M)
    return (m.group(1), str(int(m.group(2)))) if m else ("-", "-")


vertex, edge = deepest("vertex"), deepest("edge point")
print(f"| {name} | {'on' if on == 'true' else 'off'} | {vertex[0]} | {edge[0]} | {edge[1]} | "
      f"{'-' if gap != gap else format(1e3 * gap, '+.3f')} | {s.get('contacts_max', 0):,} | "
      f"{s.get('contacts_max_by_kind', {}).get('obstacle_edge', 0):,} | "
      f"{s.get('redetected', 0):,} | {rf.mean(rows, 'lg_iterations'):.2f} | "
      f"{rf.mean(rows, 'cd'):.3f} | {rf.mean(rows, 'frame_ms'):.2f} |")
PY
}
both_ways obstacle_edges row

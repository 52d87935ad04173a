#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What writing frames costs the frame loop, with the frame files written by the loop itself
# (output.async off) and by the background writer thread (on): one scene run both ways with
# every format, printing the wall time, the mean frame time (solver only) and the output
# column of timing.csv (the loop's time spent on output: taking a frame's snapshot, then writing
# its files or handing them over; per output frame: the column's total over the frames written,
# frame 0's files being written after frame 1), and checking that both runs wrote the same frame
# files.
# usage: scripts/bench_output.sh [--simctl PATH] [--scene FILE] [--frames N] [--every N]
#                                [--device cpu|cuda] [--out DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SIMCTL=$ROOT/build/simctl SCENE=$ROOT/scenes/cloth_on_knives.json FRAMES=60 EVERY=2 DEVICE=cpu
OUT=out/bench_output
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
    --scene) SCENE=${2:?--scene needs a value}; shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --every) EVERY=${2:?--every needs a value}; shift 2 ;;
    --device) DEVICE=${2:?--device needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_output.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
# only the two runs' folders are this script's: anything else in OUT stays
rm -rf "${OUT:?}/off" "$OUT/on"
mkdir -p "$OUT"
printf '| output.async | wall s | mean frame ms | output ms per output frame | output ms total |\n'
printf '|---|---|---|---|---|\n'
for a in off on; do
  "$SIMCTL" run "$SCENE" --quiet --device "$DEVICE" --frames "$FRAMES" --out "$OUT/$a" \
    --set output.every="$EVERY" --set 'output.formats=["vtk","obj","png","csv"]' \
    --set output.async=$a
  python3 - "$OUT/$a" "$a" <<'PY'
import csv, json, sys
d, a = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/summary.json"))
rows = list(csv.DictReader(open(d + "/timing.csv")))
outs = [float(r["output"]) for r in rows]
print("| %s | %.2f | %.2f | %.2f | %.1f |" % (a, s["wall_ms"] / 1e3, s["mean_frame_ms"],
      sum(outs) / max(s["frames_written"], 1), sum(outs)))
PY
done
if diff -r "$OUT/off/frames" "$OUT/on/frames" >/dev/null; then
  echo "frame files: the same both ways"
else
  # on stdout too: gpu_report.sh keeps the table and this line (output.md)
  echo "frame files differ between output.async off and on"
  echo "bench_output.sh: frame files differ between output.async off and on ($OUT/off, $OUT/on)" >&2
  exit 1
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Edge-edge contact under fast sliding: the upper ribbon of scenes/crossed_ribbons.json thrown
# along -x at SPEED m/s from 60 cm up (margin 5 mm), from N starting points 2 cm apart, so that
# it comes down across the lower one near its end, where an edge slides past the other's end
# within a step (core/contact/detect_edge.h, sim_detect_edges_crossed). Each start runs 60
# frames, every frame written as OBJ, and scripts/self_intersections.py --between counts the
# edges of either ribbon through the other's triangles: one line per start (its x, the most
# crossing edges in a frame, the first frame with any), then how many starts went through.
# Counts, not times: the same on every machine for a given build.
# usage: scripts/thrown_ribbons.sh [--simctl BIN] [--speed V] [--starts N] [--out DIR]
#        (defaults: build/simctl, 8, 21, out/thrown_ribbons)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SIMCTL="$ROOT/build/simctl" SPEED=8 STARTS=21 OUT=out/thrown_ribbons
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
    --speed) SPEED=${2:?--speed needs a value}; shift 2 ;;
    --starts) STARTS=${2:?--starts needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "thrown_ribbons.sh: unknown argument '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
if ! [[ "$STARTS" =~ ^[1-9][0-9]*$ ]]; then
  echo "thrown_ribbons.sh: --starts: expected a positive whole number, got '$STARTS'" >&2
  exit 2
fi
if ! [[ "$SPEED" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
  echo "thrown_ribbons.sh: --speed: expected a speed in m/s (e.g. 8), got '$SPEED'" >&2
  exit 2
fi
if [ ! -x "$SIMCTL" ]; then
  echo "thrown_ribbons.sh: $SIMCTL: no such program (make build first, or give --simctl)" >&2
  exit 2
fi
echo "| start x (m) | most crossing edges in a frame | first frame |"
echo "|---|---|---|"
through=0
for i in $(seq 0 $((STARTS - 1))); do
  # over the lower ribbon's end (x = 0.5) after the 0.35 s fall, plus 2 cm a start
  x0=$(python3 -c "print(round($SPEED * 0.35 + 0.2 + 0.02 * $i, 3))")
  dir="$OUT/start_$i"
  "$SIMCTL" run "$ROOT/scenes/crossed_ribbons.json" --out "$dir" --frames 60 --quiet \
    --set contact.margin=0.005 --set "bodies.1.transform.translate=[$x0,0.6,0]" \
    --set "bodies.1.velocity=[-$SPEED,0,0]" --set 'output.formats=["obj"]' --set output.every=1
  lines=$(python3 "$ROOT/scripts/self_intersections.py" "$dir" --between --every 1)
  most=$(tail -1 <<<"$lines" | awk '{print $NF}')
  first=$(awk '$1 ~ /^[0-9]+$/ && $3 != 0 {print $1; exit}' <<<"$lines")
  echo "| $x0 | $most | ${first:--} |"
  [ "$most" = 0 ] || through=$((through + 1))
done
echo
echo "speed $SPEED m/s: $through of $STARTS starts went through"

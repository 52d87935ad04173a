#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Collision detection's work per vertex, counted: builds simctl with SIMCTL_DETECT_TALLY (a
# CPU-only benchmark build in BUILD, made once; core/contact/detect_tally.h), runs each scene
# for N frames and prints, over the run's vertex passes (the q_t, prediction and re-detection
# passes; not the mesh obstacles' points), the tree boxes a vertex's queries test and the
# distances to triangles they compute (the nearest triangle's search, pseudo-normals, the
# sweeps' steps): the mean per vertex (the CPU's work) and the busiest vertex's boxes +
# distances, the mean over the passes and the largest. On a GPU a pass is a thread per vertex whose loads
# follow one another, so a pass lasts about as long as its busiest vertex: these counts are
# what the device's detection time follows, where no GPU is at hand to time it. Counts, not
# times: the same on every machine for a given commit. To compare two commits, give --src a
# worktree of the other (`git worktree add /tmp/before HEAD~1`) and another --build.
# usage: scripts/detect_tally.sh [--src DIR] [--build DIR] [--frames N] [--set KEY=VALUE]...
#                                SCENE.json...      (--src: this repository unless given)
# e.g.   scripts/detect_tally.sh --frames 140 scenes/grabbing_raptor.json scenes/sharp_corner.json
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)" BUILD=build-tally FRAMES=
SETS=() SCENES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --src) SRC=${2:?--src needs a value}; shift 2 ;;
    --build) BUILD=${2:?--build needs a value}; shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --set) SETS+=(--set "${2:?--set needs a value}"); shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "detect_tally.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
    *) SCENES+=("$1"); shift ;;
  esac
done
if [ ${#SCENES[@]} -eq 0 ]; then
  echo "detect_tally.sh: no scene given (see the usage at the top of the script)" >&2
  exit 2
fi
if [ -n "$FRAMES" ] && ! [[ "$FRAMES" =~ ^[1-9][0-9]*$ ]]; then
  echo "detect_tally.sh: --frames: expected a positive whole number, got '$FRAMES'" >&2
  exit 2
fi
if [ ! -x "$BUILD/simctl" ]; then
  cmake -S "$SRC" -B "$BUILD" -DSIMCTL_CUDA=OFF -DSIMCTL_DETECT_TALLY=ON \
    -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build "$BUILD" --target simctl -j "$(nproc)" > /dev/null
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "| scene | frames | vertex passes | contacts a pass | boxes / vertex | triangle distances / vertex | busiest vertex, mean over passes | busiest vertex, largest |"
echo "|---|---|---|---|---|---|---|---|"
for scene in "${SCENES[@]}"; do
  args=(run "$scene" --quiet --out "$TMP/out" "${SETS[@]}")
  [ -n "$FRAMES" ] && args+=(--frames "$FRAMES")
  if ! "$BUILD/simctl" "${args[@]}" 2> "$TMP/log"; then
    echo "detect_tally.sh: $scene: the run failed:" >&2
    grep -v "^detect tally:" "$TMP/log" >&2 || true
    exit 1
  fi
  frames=$(($(wc -l < "$TMP/out/timing.csv") - 1))
  # "detect tally: vertices V contacts C boxes mean M max X triangles mean M max X busiest B ..."
  awk -v s="$(basename "$scene" .json)" -v f="$frames" '/^detect tally:/ {
      n++; nv += $4; c += $6; b += $9 * $4; t += $14 * $4; bs += $18; if ($18 > bm) bm = $18 }
    END { if (n == 0) { printf "| %s | %d | 0 | | | | | |\n", s, f; exit }
          printf "| %s | %d | %d | %.1f | %.2f | %.3f | %.1f | %d |\n", s, f, n, c / n, b / nv,
                 t / nv, bs / n, bm }' "$TMP/log"
done

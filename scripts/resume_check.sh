#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How exactly `simctl run --resume` goes on: each scene run for N frames without a break, then
# for N/2 frames and resumed to N, once with the state file the run writes beside each VTK
# frame of a scene with contact (frames/NNNNN.state: the positions before, the contacts, their
# multipliers and the world's memory, core/app/state_file.h) and once with it removed (the
# contact solve starting cold, as before simctl wrote them). A row per scene: its contacts at
# frame N/2, whether the resumed run's frame N is the unbroken run's byte for byte, and the
# largest coordinate difference of its points from the unbroken run's, with and without the
# state file. The backend is the scene's (auto: the GPU where there is one); give --set
# solver.device=cuda or cpu to choose it.
# usage: scripts/resume_check.sh [--simctl BIN] [--frames N] [--out DIR] [--set PATH=VALUE]...
#        [SCENE.json...]
#        (defaults: build/simctl, 60 frames, out/resume_check, and the scenes with contact by
#        frame 30: stick_slip, pushing_wall, box_on_trampoline, cable_finger,
#        hanging_bar_compliant_pin, cloth_pile, folding_towel, grabbing_raptor and
#        soft_box_on_slab; cloth_on_knives, squeezing_ball and sharp_corner touch after frame 57:
#        --frames 160 with them)
set -euo pipefail
# shellcheck source=scene_args.sh
. "$(dirname "$0")/scene_args.sh"
scene_args resume_check.sh out/resume_check "$@"
default_scenes stick_slip pushing_wall box_on_trampoline cable_finger hanging_bar_compliant_pin \
  cloth_pile folding_towel grabbing_raptor soft_box_on_slab
N=${FRAMES:-60}
if [ "$N" -lt 2 ]; then
  echo "resume_check.sh: --frames: at least 2, to resume from half of them" >&2
  exit 2
fi
H=$((N / 2))
LAST=$(printf '%05d.vtk' "$N")
mkdir -p "$OUT"
# DIR FRAMES [more simctl run options]: the scene's frames as VTK into DIR, quiet
run() {
  local dir=$1 frames=$2
  shift 2
  "$SIMCTL" run "$scene" --out "$dir" --quiet --frames "$frames" \
    --set 'output.formats=["vtk","csv"]' --set output.every=1 "${SETS[@]}" "$@"
}
# A B: the largest coordinate difference of two VTK frames' points (m)
points() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
def pts(p):
    b = open(p, "rb").read()
    i = b.index(b"POINTS "); j = b.index(b"\n", i); n = int(b[i:j].split()[1])
    return struct.unpack(">%dd" % (3 * n), b[j + 1:j + 1 + 24 * n])
print("%.1e" % max(abs(x - y) for x, y in zip(pts(sys.argv[1]), pts(sys.argv[2]))))
PY
}
echo "| scene | backend | frames | contacts at frame $H | with the state file: frame $N the same | largest difference (m) | without it: the same | largest difference (m) |"
echo "|---|---|---|---|---|---|---|---|"
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  base="$OUT/$name"
  rm -rf "$base-whole" "$base-state" "$base-cold"
  run "$base-whole" "$N"
  run "$base-state" "$H"
  cp -r "$base-state" "$base-cold"
  rm -f "$base-cold/frames/"*.state
  contacts=$(awk -F, -v f="$H" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "contacts") c = i }
    NR > 1 && $1 == f { print $c }' "$base-state/timing.csv")
  run "$base-state" "$N" --resume
  run "$base-cold" "$N" --resume 2>/dev/null
  row="| $name | $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["backend"])' \
    "$base-whole/summary.json") | $H + $((N - H)) | ${contacts:--}"
  for kind in state cold; do
    same=no
    cmp -s "$base-whole/frames/$LAST" "$base-$kind/frames/$LAST" && same=yes
    row="$row | $same | $(points "$base-whole/frames/$LAST" "$base-$kind/frames/$LAST")"
  done
  echo "$row |"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Delassus operator's two forms against each other on the CPU backend: each scene run with
# contact.delassus "dense" (W formed once a step, products with it), "operator" (matrix-free:
# through the contacts' columns of S) and "auto" (the default, which chooses per step), in
# turn, --repeat times. Per scene and form: the most constraint rows of the run, the contact
# stage's milliseconds (timing.csv's `schur`, W's formation, plus `cst_global`, the Newton
# solves and the correction), and the frames' (`frame_ms`, detection and output left out),
# each summed over the run's frames, from the repeat whose frames took least.
# Where a form is refused (a dense W over solver.dense_max_mib), its row says so.
# usage: scripts/bench_delassus.sh [--simctl PATH] [--frames N] [--repeat R] [--forms LIST]
#                                  [--out DIR] [SCENE.json...]
#   default scenes: stick_slip, box_on_trampoline, pushing_wall, soft_box_on_slab,
#   grabbing_raptor, cloth_on_knives (from a few contact rows to about 1,500 within 60 frames)
#   --frames: frames per run (default 60; pulling_wooper reaches contact after it, its busiest
#             frames near 250, Table 3's)
#   --forms: a comma-separated subset of dense,operator,auto (default all three; the last
#            column then compares with auto's frames where auto ran)
set -euo pipefail
SIMCTL=build/simctl FRAMES=60 REPEAT=2 OUT=out/bench_delassus FORMS=dense,operator,auto
SCENES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTL=$2; shift 2 ;;
    --frames) FRAMES=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --forms) FORMS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -*) echo "bench_delassus.sh: unknown option '$1' (see the usage at the top)" >&2; exit 2 ;;
    *) SCENES+=("$1"); shift ;;
  esac
done
for v in "$FRAMES" "$REPEAT"; do
  if ! [[ "$v" =~ ^[1-9][0-9]*$ ]]; then
    echo "bench_delassus.sh: --frames and --repeat: expected whole numbers above 0, got '$v'" >&2
    exit 2
  fi
done
if ! [[ "$FORMS" =~ ^(dense|operator|auto)(,(dense|operator|auto))*$ ]]; then
  echo "bench_delassus.sh: --forms $FORMS: expected a comma-separated list of dense, operator, auto" >&2
  exit 2
fi
if [ ! -x "$SIMCTL" ]; then
  echo "bench_delassus.sh: --simctl $SIMCTL: no such program (make build builds it)" >&2
  exit 2
fi
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ ${#SCENES[@]} -eq 0 ]; then
  for s in stick_slip box_on_trampoline pushing_wall soft_box_on_slab grabbing_raptor \
    cloth_on_knives; do SCENES+=("$HERE/../scenes/$s.json"); done
fi
mkdir -p "$OUT"
echo "| scene | frames | form | rows max | contact stage ms | frames ms | frame / auto's |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  for form in ${FORMS//,/ }; do
    for r in $(seq 1 "$REPEAT"); do
      dir="$OUT/$name/$form/$r"
      rm -rf "$dir" "$dir.refused"
      if ! "$SIMCTL" run "$scene" --device cpu --frames "$FRAMES" --quiet --out "$dir" \
        --set contact.delassus="$form" > "$OUT/$name.$form.$r.log" 2>&1; then
        echo "refused: $(tail -1 "$OUT/$name.$form.$r.log")" > "$dir.refused"
      fi
    done
  done
  python3 - "$OUT/$name" "$REPEAT" "$name" "$FRAMES" "$FORMS" <<'EOF'
import csv, os, sys
base, repeat, name, frames = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
forms = sys.argv[5].split(",")
res = {}
for form in forms:
    best = None
    for r in range(1, repeat + 1):
        path = os.path.join(base, form, str(r), "timing.csv")
        if not os.path.exists(path):
            continue
        rows = list(csv.DictReader(open(path)))
        cst = sum(float(x["schur"]) + float(x["cst_global"]) for x in rows)
        tot = sum(float(x["frame_ms"]) for x in rows)
        rmax = max([int(x["rows"]) for x in rows] + [0])
        if best is None or tot < best[2]:
            best = (rmax, cst, tot)
    res[form] = best
auto = res["auto"][2] if res.get("auto") else None
for form in forms:
    b = res[form]
    if b is None:
        print(f"| {name} | {frames} | {form} | refused (see the run's log) | | | |")
        continue
    ratio = f"{b[2] / auto:.2f}" if auto else ""
    print(f"| {name} | {frames} | {form} | {b[0]} | {b[1]:.1f} | {b[2]:.1f} | {ratio} |")
EOF
done

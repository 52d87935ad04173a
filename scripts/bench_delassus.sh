#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Delassus operator's forms against each other on the CPU backend: each scene run with
# contact.delassus "dense" (W formed once a step, products with it), "blocks" (W's block form:
# G and the contacts' frames, a ninth of W's entries), "operator" (matrix-free: through the
# contacts' columns of S) and "auto" (the default, which chooses per step), in
# turn, --repeat times. Per scene, form and build: the most constraint rows of the run, the
# contact stage's milliseconds (timing.csv's `schur`, W's formation, plus `cst_global`, the
# Newton solves and the correction), and the frames' (`frame_ms`, detection and output left
# out), each summed over the run's frames, from the repeat whose frames took least; and the
# contact stage's mean over the repeats.
# Give --simctl once for each build to compare (e.g. before and after a change): each repeat
# runs the builds in turn, in reverse order every other repeat (A B, B A, ...), so that a
# machine whose speed drifts over minutes slows them alike and the means compare (use an even
# --repeat); the last column is then the mean contact stage against the first build's.
# Where a form is refused (a dense W over solver.dense_max_mib), its row says so.
# usage: scripts/bench_delassus.sh [--simctl PATH]... [--frames N] [--repeat R] [--forms LIST]
#                                  [--out DIR] [SCENE.json...]
#   default scenes: stick_slip, box_on_trampoline, pushing_wall, soft_box_on_slab,
#   grabbing_raptor, cloth_on_knives (from a few contact rows to about 1,500 within 60 frames)
#   --frames: frames per run (default 60; pulling_wooper reaches contact after it, its busiest
#             frames near 250, Table 3's)
#   --forms: a comma-separated subset of dense,blocks,operator,auto (default all four; with one
#            build the last column compares with auto's frames where auto ran)
set -euo pipefail
FRAMES=60 REPEAT=2 OUT=out/bench_delassus FORMS=dense,blocks,operator,auto
SIMCTLS=()
SCENES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTLS+=("${2:?--simctl needs a value}"); shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --repeat) REPEAT=${2:?--repeat needs a value}; shift 2 ;;
    --forms) FORMS=${2:?--forms needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
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
if ! [[ "$FORMS" =~ ^(dense|blocks|operator|auto)(,(dense|blocks|operator|auto))*$ ]]; then
  echo "bench_delassus.sh: --forms $FORMS: expected a comma-separated list of dense, blocks, operator, auto" >&2
  exit 2
fi
[ ${#SIMCTLS[@]} -gt 0 ] || SIMCTLS=("$(cd "$(dirname "$0")/.." && pwd)/build/simctl")
for b in "${SIMCTLS[@]}"; do
  if [ ! -x "$b" ]; then
    echo "bench_delassus.sh: --simctl $b: no such program (make build builds it)" >&2
    exit 2
  fi
done
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ ${#SCENES[@]} -eq 0 ]; then
  for s in stick_slip box_on_trampoline pushing_wall soft_box_on_slab grabbing_raptor \
    cloth_on_knives; do SCENES+=("$HERE/../scenes/$s.json"); done
fi
# each scene's results go under its file name: two of one name would share them
dup=$(for s in "${SCENES[@]}"; do basename "$s" .json; done | sort | uniq -d | head -n 1)
[ -z "$dup" ] || { echo "bench_delassus.sh: two scenes named $dup.json: give each scene once, with its own name" >&2; exit 2; }
mkdir -p "$OUT"
NB=${#SIMCTLS[@]}
if [ "$NB" -gt 1 ]; then
  echo "| scene | frames | form | build | rows max | contact stage ms | frames ms | contact stage ms, mean | mean / the first build's |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
else
  echo "| scene | frames | form | rows max | contact stage ms | frames ms | contact stage ms, mean | frame / auto's |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
fi
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  for form in ${FORMS//,/ }; do
    for r in $(seq 1 "$REPEAT"); do
      order=$(seq 0 $((NB - 1)))
      if [ $((r % 2)) -eq 0 ]; then order=$(seq $((NB - 1)) -1 0); fi
      for k in $order; do
        dir="$OUT/$name/$form/b$k/$r"
        log="$OUT/$name.$form.b$k.$r.log"
        rm -rf "$dir" "$dir.refused"
        mkdir -p "$(dirname "$dir")"
        rc=0
        "${SIMCTLS[$k]}" run "$scene" --device cpu --frames "$FRAMES" --quiet --out "$dir" \
          --set contact.delassus="$form" > "$log" 2>&1 || rc=$?
        if [ "$rc" -eq 8 ]; then # a dense W past solver.dense_max_mib: a row of its own
          echo "refused: $(tail -1 "$log")" > "$dir.refused"
        elif [ "$rc" -ne 0 ]; then
          echo "bench_delassus.sh: ${SIMCTLS[$k]} run $scene (contact.delassus=$form) failed," \
            "exit $rc: $(tail -1 "$log")" >&2
          exit 1
        fi
      done
    done
  done
  python3 - "$OUT/$name" "$REPEAT" "$name" "$FRAMES" "$FORMS" "${SIMCTLS[@]}" <<'EOF'
import csv, os, sys
base, repeat, name, frames = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
forms, builds = sys.argv[5].split(","), sys.argv[6:]
res = {}
for form in forms:
    for k in range(len(builds)):
        best, csts = None, []
        for r in range(1, repeat + 1):
            path = os.path.join(base, form, f"b{k}", str(r), "timing.csv")
            if not os.path.exists(path):
                continue
            rows = list(csv.DictReader(open(path)))
            cst = sum(float(x["schur"]) + float(x["cst_global"]) for x in rows)
            tot = sum(float(x["frame_ms"]) for x in rows)
            rmax = max([int(x["rows"]) for x in rows] + [0])
            csts.append(cst)
            if best is None or tot < best[2]:
                best = (rmax, cst, tot)
        res[form, k] = best + (sum(csts) / len(csts),) if best else None
for form in forms:
    for k, build in enumerate(builds):
        b = res[form, k]
        cols = f"| {name} | {frames} | {form} | " + (f"{build} | " if len(builds) > 1 else "")
        if b is None:
            print(cols + "refused (see the run's log) | | | | |")
            continue
        if len(builds) > 1:
            first = res[form, 0]
            ratio = f"{b[3] / first[3]:.2f}" if first and first[3] > 0 else ""
        else:
            auto = res.get(("auto", 0))
            ratio = f"{b[2] / auto[2]:.2f}" if auto else ""
        print(cols + f"{b[0]} | {b[1]:.1f} | {b[2]:.1f} | {b[3]:.1f} | {ratio} |")
EOF
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Collision detection's cost, two simctl builds side by side: runs each scene with build A, then
# with build B, RUNS times over (interleaved, so that a shared machine's drift touches both
# alike), on the CPU with one thread, and prints per build the median over the runs of the mean
# `cd` (ms a frame: every detection pass, timing.csv) and of the mean frame time, and each pair's
# cd difference (B - A). For a change to detection: build the commit before it into another
# folder (for example `git worktree add /tmp/before HEAD~1`, then `cmake -S /tmp/before -B
# /tmp/before/build -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/before/build --target
# simctl`) and compare.
# --set PATH=VALUE (repeatable) is passed to every run, as to simctl run: for example
# --set contact.obstacle_edges=true.
# usage: scripts/bench_cd.sh --a PATH --b PATH [--runs N] [--frames N] [--out DIR]
#        [--set PATH=VALUE]... SCENE.json...
set -euo pipefail
A= B= RUNS=5 FRAMES= OUT=out/bench_cd
SCENES=() SETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --a) A=${2:?--a needs a value}; shift 2 ;;
    --b) B=${2:?--b needs a value}; shift 2 ;;
    --runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --set) SETS+=(--set "${2:?--set needs a value}"); shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench_cd.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
    *) SCENES+=("$1"); shift ;;
  esac
done
if [ -z "$A" ] || [ -z "$B" ] || [ ${#SCENES[@]} -eq 0 ]; then
  echo "bench_cd.sh: give --a, --b and at least one scene (see the usage at the top of the script)" >&2
  exit 2
fi
case $RUNS in ''|*[!0-9]*|0) echo "bench_cd.sh: --runs: expected a whole number >= 1, got '$RUNS'" >&2; exit 2 ;; esac
for bin in "$A" "$B"; do
  [ -x "$bin" ] || { echo "bench_cd.sh: $bin is not an executable" >&2; exit 2; }
done
# each scene's results go under its file name: two of one name would share them
dup=$(for s in "${SCENES[@]}"; do basename "$s" .json; done | sort | uniq -d | head -n 1)
[ -z "$dup" ] || { echo "bench_cd.sh: two scenes named $dup.json: give each scene once, with its own name" >&2; exit 2; }
mkdir -p "$OUT"
# mean cd and frame_ms of one run's timing.csv
means() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { cd += $c["cd"]; f += $c["frame_ms"]; k++ } END { printf "%.4f %.3f\n", cd / k, f / k }' "$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "scene | build | median cd (ms/frame) | median frame (ms) | cd B - A per pair (ms)"
for scene in "${SCENES[@]}"; do
  name=$(basename "$scene" .json)
  : >"$OUT/$name.a" && : >"$OUT/$name.b"
  for r in $(seq 1 "$RUNS"); do
    for which in a b; do
      bin=$A && [ $which = b ] && bin=$B
      "$bin" run "$scene" -q --threads 1 --device cpu --out "$OUT/$name-$which" \
        ${FRAMES:+--frames "$FRAMES"} --set 'output.formats=["csv"]' --set output.every=1000000 \
        ${SETS[@]+"${SETS[@]}"} >/dev/null
      means "$OUT/$name-$which/timing.csv" >>"$OUT/$name.$which"
    done
  done
  diffs=$(paste "$OUT/$name.a" "$OUT/$name.b" | awk '{ printf "%s%+.3f", (NR > 1 ? " " : ""), $3 - $1 }')
  for which in a b; do
    cd=$(cut -d' ' -f1 "$OUT/$name.$which" | median)
    fr=$(cut -d' ' -f2 "$OUT/$name.$which" | median)
    printf "%s | %s | %.3f | %.1f | %s\n" "$name" "$(echo $which | tr ab AB)" "$cd" "$fr" \
      "$([ $which = b ] && echo "$diffs" || echo)"
  done
done

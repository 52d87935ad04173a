# SPDX-License-Identifier: MIT
# Sourced by the scripts that run a list of scenes with a simctl and print a table per run
# (creases.sh, end_pass.sh, edge_pairs.sh, obstacle_edges.sh): their options, checked, into
# SIMCTL, FRAMES, OUT, SCENES and SETS (each --set PATH=VALUE, repeatable: a scene override that
# both_ways passes to every run, for example --set contact.newton_jacobian=exact).
# usage (from the script): scene_args NAME DEFAULT_OUT "$@"; SCENES stays empty where no scene
# was given, and default_scenes SCENE_NAME... then fills in the script's own (scenes/NAME.json).
# -h/--help prints the script's usage comment.
scene_args() {
  local name=$1
  ROOT="$(cd "$(dirname "$0")/.." && pwd)"
  SIMCTL="$ROOT/build/simctl" FRAMES= OUT=$2
  SCENES=() SETS=()
  shift 2
  while [ $# -gt 0 ]; do
    case "$1" in
      --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
      --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
      --out) OUT=${2:?--out needs a value}; shift 2 ;;
      --set)
        if [[ "${2:-}" != *=* ]]; then
          echo "$name: --set: expected PATH=VALUE, got '${2:-}'" >&2
          exit 2
        fi
        SETS+=(--set "$2"); shift 2 ;;
      -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
      -*) echo "$name: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
      *) SCENES+=("$1"); shift ;;
    esac
  done
  if [ -n "$FRAMES" ] && ! [[ "$FRAMES" =~ ^[1-9][0-9]*$ ]]; then
    echo "$name: --frames: expected a positive whole number, got '$FRAMES'" >&2
    exit 2
  fi
  if [ ! -x "$SIMCTL" ]; then
    echo "$name: $SIMCTL: no such program (make build first, or give --simctl)" >&2
    exit 2
  fi
}
# SCENE_NAME...: the shipped scenes/NAME.json each, into SCENES where no scene was given
default_scenes() {
  [ ${#SCENES[@]} -eq 0 ] || return 0
  local s
  for s in "$@"; do SCENES+=("$ROOT/scenes/$s.json"); done
}
# SCENE: its frames into RUN_FRAMES (--frames, else the scene's, else 100 as a run) and into
# RUN_EVERY the output interval that writes about 100 frames of them
run_frames() {
  RUN_FRAMES=${FRAMES:-$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("solver", {}).get("frames", 100))' "$1")}
  RUN_EVERY=$(((RUN_FRAMES + 99) / 100))
}
# KEY ROW: each scene run with contact.KEY false, then true (and SETS), on the CPU with one
# thread, its frames (run_frames) written as OBJ and CSV into OUT/NAME-ON, then
# `ROW DIR NAME ON` (the script's table row for it)
both_ways() {
  local key=$1 row=$2 scene name on dir
  for scene in "${SCENES[@]}"; do
    name=$(basename "$scene" .json)
    run_frames "$scene"
    for on in false true; do
      dir="$OUT/$name-$on"
      rm -rf "$dir"
      "$SIMCTL" run "$scene" --out "$dir" --quiet --threads 1 --device cpu \
        --frames "$RUN_FRAMES" --set "contact.$key=$on" --set "output.every=$RUN_EVERY" \
        --set 'output.formats=["obj","csv"]' "${SETS[@]}"
      "$row" "$dir" "$name" "$on"
    done
  done
}

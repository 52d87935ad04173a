#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Table 3 of the paper on this machine: runs each scene at the paper's sizes for as many
# frames as it takes to reach its busiest contact phase, then reports, at the frame with the
# most contacts, the paper's buckets per L-G iteration (local, global, assemble, cst_solve,
# corr, cst_global), schur per frame, the frame without collision detection, cd, and the
# number of constraint rows, beside the paper's figures (scripts/paper/table3_timings.csv:
# an i9-13900KF + RTX 4090, local step on the CPU, the rest on the GPU).
# Also reports Newton steps per L-G iteration at that frame and the deepest contact gap of
# the whole run (min_gap: negative is penetration; the scenes' margin is 1-3 cm), and the
# contacts re-detection added at the reported frame (its step was then solved again).
# usage: scripts/table3.sh [--simctl PATH] [--out DIR] [--rows all|small|large] [--frames-scale F]
#                          [--only EXAMPLE[,EXAMPLE...]] [--set PATH=VALUE]...
#   --rows small: the smallest size of each scene (what CI could afford); large: the other
#          sizes (where the small ones ran already, e.g. on a GPU machine lent for minutes);
#          all: every size
#   --only: these examples only (the paper's names: cloth_on_knives, grabbing_raptor, ...)
#   --frames-scale: multiply every row's frame count (1 = the counts below)
#   --set: passed to every run, e.g. --set contact.newton_steps=1 (the paper's one Newton step
#          per L-G iteration)
set -euo pipefail
SIMCTL="$(cd "$(dirname "$0")/.." && pwd)"/build/simctl OUT=out/table3 ROWS=all SCALE=1 ONLY=
SETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --set) SETS+=(--set "${2:?--set needs a value}"); shift 2 ;;
    --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --rows) ROWS=${2:?--rows needs a value}; shift 2 ;;
    --frames-scale) SCALE=${2:?--frames-scale needs a value}; shift 2 ;;
    --only) ONLY=${2:?--only needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "table3.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
case "$ROWS" in
  all | small | large) ;;
  *) echo "table3.sh: --rows $ROWS: expected all, small or large" >&2; exit 2 ;;
esac
if ! awk -v s="$SCALE" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && s + 0 > 0) }'; then
  echo "table3.sh: --frames-scale: expected a number > 0, got '$SCALE'" >&2
  exit 2
fi
[ -x "$SIMCTL" ] || { echo "table3.sh: $SIMCTL is not an executable (make build)" >&2; exit 2; }
HERE="$(cd "$(dirname "$0")" && pwd)"
SC="$HERE/../scenes"
PAPER="$HERE/paper/table3_timings.csv"
# example|paper vertices|material|scene|frames|small (1: in --rows small)
TABLE="twisting_bar|5300|arap|twisting_bar|20|1
twisting_bar|11300|arap|twisting_bar_11k|20|0
twisting_bar|20800|arap|twisting_bar_20k|20|0
cloth_extension|10200|neo_hookean|cloth_extension_10k|20|1
cloth_extension|20200|neo_hookean|cloth_extension|20|0
cloth_on_knives|5100|neo_hookean|cloth_on_knives|100|1
cloth_on_knives|10200|neo_hookean|cloth_on_knives_10k|100|0
cloth_on_knives|15300|neo_hookean|cloth_on_knives_15k|100|0
sharp_corner|5100|neo_hookean|sharp_corner|90|1
sharp_corner|10200|neo_hookean|sharp_corner_10k|90|0
squeezing_ball|7100|neo_hookean|squeezing_ball|200|1
squeezing_ball|14700|neo_hookean|squeezing_ball_14k|200|0
pulling_wooper|5300|neo_hookean|pulling_wooper|250|1
pulling_wooper|11800|neo_hookean|pulling_wooper_11k|250|0
gingerbread_man|11100|neo_hookean|gingerbread_man|200|1
gingerbread_man|19500|neo_hookean|gingerbread_man_19k|200|0
grabbing_raptor|10300|neo_hookean|grabbing_raptor|250|1
grabbing_raptor|15300|neo_hookean|grabbing_raptor_15k|250|0
grabbing_raptor|20400|neo_hookean|grabbing_raptor_20k|250|0"
for ex in ${ONLY//,/ }; do
  if ! cut -d'|' -f1 <<<"$TABLE" | grep -qx "$ex"; then
    echo "table3.sh: --only: unknown example '$ex' (examples: $(cut -d'|' -f1 <<<"$TABLE" | sort -u | tr '\n' ' '))" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
CSV="$OUT/table3.csv"
echo "example,vertices,our_vertices,frames,rows,newton_per_iteration,cr_per_iteration,min_gap,schur_ms,local_ms,global_ms,assemble_ms,cst_solve_ms,corr_ms,cst_global_ms,frame_ms,cd_ms,redetected,paper_rows,paper_schur_ms,paper_local_ms,paper_global_ms,paper_cst_global_ms,paper_frame_ms" >"$CSV"
matched=0
while IFS='|' read -r ex nv mat scene frames small; do
  [ "$ROWS" = small ] && [ "$small" = 0 ] && continue
  [ "$ROWS" = large ] && [ "$small" = 1 ] && continue
  [ -n "$ONLY" ] && case ",$ONLY," in *",$ex,"*) ;; *) continue ;; esac
  matched=1
  f=$(awk -v f="$frames" -v s="$SCALE" 'BEGIN { n = int(f * s + 0.5); print n < 1 ? 1 : n }')
  dir="$OUT/$scene"
  echo "== $scene ($f frames)" >&2
  "$SIMCTL" run "$SC/$scene.json" -q --frames "$f" --out "$dir" --set 'output.formats=["csv"]' \
    --set "output.every=$f" ${SETS[@]+"${SETS[@]}"} >&2
  ourv=$(awk -F'[:,]' '/"vertices"/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$dir/summary.json")
  # the frame with the most contacts (the last frame without contact), per L-G iteration
  row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { if (NR == 2 || $c["contacts"] + 0 >= best) { best = $c["contacts"] + 0; line = $0 }
      if ($c["contacts"] + 0 > 0 && (!seen || $c["min_gap"] + 0 < gap)) { gap = $c["min_gap"] + 0; seen = 1 } }
    END { n = split(line, v, ","); k = v[c["lg_iterations"]];
      printf "%d,%.2f,%.2f,%.4f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d", v[c["rows"]],
        (k > 0 ? v[c["newton_steps"]] / k : 0), (k > 0 ? v[c["cr_iterations"]] / k : 0),
        (seen ? gap : 0), v[c["schur"]], v[c["local"]] / k,
        v[c["global"]] / k, v[c["assemble"]] / k, v[c["cst_solve"]] / k, v[c["corr"]] / k,
        v[c["cst_global"]] / k, v[c["frame_ms"]], v[c["cd"]], v[c["redetected"]] }' "$dir/timing.csv")
  paper=$(awk -F, -v ex="$ex" -v nv="$nv" -v mat="$mat" '$1 == ex && $2 == nv && $4 == mat {
      printf "%s,%s,%s,%s,%s,%s", $9, $10, $11, $12, $16, $17; exit }' "$PAPER")
  echo "$ex,$nv,$ourv,$f,$row,${paper:-,,,,,}" >>"$CSV"
done <<<"$TABLE"
if [ "$matched" = 0 ]; then
  echo "table3.sh: no row matches --only '$ONLY' (examples: $(cut -d'|' -f1 <<<"$TABLE" | sort -u | tr '\n' ' '))" >&2
  exit 2
fi
column -s, -t "$CSV" 2>/dev/null || cat "$CSV"
echo "table: $CSV" >&2

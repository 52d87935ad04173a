#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The paper's stick-slip test (Fig. 7): a stiff box on a slope of ANGLE degrees sticks when
# mu > tan(ANGLE) and slides otherwise. The slope is the plane y = 0 of scenes/stick_slip.json
# with gravity tilted by ANGLE (the same physics as a tilted plane, seen from the slope).
# For each preconditioner, bisects mu until the bracket is narrower than TOL: a run of 1 s
# "slides" when the box moves more than SLIDE_MM along the slope (default 3 mm: implicit
# Euler slides 4.8 mm in 1 s at mu = tan - 0.001; a sticking box creeps about 1.4 mm).
# Prints the threshold beside tan(ANGLE) and the error, and with --scan the displacement for
# mu = tan(ANGLE) + k * 0.001, k = -5..5.
# usage: scripts/stick_slip.sh [--simctl PATH] [--angle DEG] [--preconditioner delassus|mass|both]
#                              [--tol T] [--slide-mm D] [--frames N] [--scan] [--out DIR]
#                              [--set PATH=VALUE]...
#   --set: passed to every run, e.g. --set contact.newton_jacobian=exact (the friction rows'
#          exact Jacobian: the box then sticks without creeping)
set -euo pipefail
SIMCTL="$(cd "$(dirname "$0")/.." && pwd)/build/simctl" ANGLE=10 PRE=both TOL=0.0005 SLIDE_MM=3 FRAMES=100 SCAN=0 OUT=out/stick_slip
SETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
    --angle) ANGLE=${2:?--angle needs a value}; shift 2 ;;
    --preconditioner) PRE=${2:?--preconditioner needs a value}; shift 2 ;;
    --tol) TOL=${2:?--tol needs a value}; shift 2 ;;
    --slide-mm) SLIDE_MM=${2:?--slide-mm needs a value}; shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --scan) SCAN=1; shift ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --set) SETS+=(--set "${2:?--set needs a value}"); shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "stick_slip.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
[ "$PRE" = both ] && PRE="delassus mass"
for p in $PRE; do
  case $p in delassus | mass) ;; *) echo "stick_slip.sh: --preconditioner: expected delassus, mass or both, got '$p'" >&2; exit 2 ;; esac
done
[ -x "$SIMCTL" ] || { echo "stick_slip.sh: $SIMCTL is not an executable (make build)" >&2; exit 2; }
SCENE="$(dirname "$0")/../scenes/stick_slip.json"
read -r GX GY TAN < <(awk -v a="$ANGLE" 'BEGIN { r = a * atan2(0, -1) / 180;
  printf "%.10g %.10g %.10g\n", 9.81 * sin(r), -9.81 * cos(r), sin(r) / cos(r) }')
mkdir -p "$OUT"

# displacement (mm) of the box's centre over the run at friction mu, preconditioner p
slide_mm() {
  local mu=$1 p=$2 dir="$OUT/run"
  rm -f "$dir/summary.json" # a refused run must not leave the last run's figures to be read
  "$SIMCTL" run "$SCENE" -q --out "$dir" --frames "$FRAMES" --set "gravity=[$GX,$GY,0]" \
    --set "obstacles.0.mu=$mu" --set "contact.preconditioner=$p" --set 'output.formats=[]' \
    ${SETS[@]+"${SETS[@]}"} >/dev/null || {
    echo "stick_slip.sh: simctl failed at mu = $mu, preconditioner $p (its error is above)" >&2
    return 1
  }
  awk '/"displacement"/ { sub(/.*\[/, ""); sub(/\].*/, ""); split($0, d, ",");
    printf "%.4f\n", 1000 * sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]); exit }' \
    "$dir/summary.json"
}

echo "angle $ANGLE deg, tan = $TAN, slide when the box moves > $SLIDE_MM mm in $FRAMES steps"
echo "preconditioner,threshold_mu,bracket_lo,bracket_hi,tan,error"
for p in $PRE; do
  lo=$(awk -v t="$TAN" 'BEGIN { print t - 0.05 }') hi=$(awk -v t="$TAN" 'BEGIN { print t + 0.05 }')
  slid=0 stuck=0
  while awk -v a="$lo" -v b="$hi" -v t="$TOL" 'BEGIN { exit !(b - a > t) }'; do
    mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.8f", (a + b) / 2 }')
    d=$(slide_mm "$mid" "$p")
    if awk -v d="$d" -v s="$SLIDE_MM" 'BEGIN { exit !(d > s) }'; then
      lo=$mid slid=1
    else
      hi=$mid stuck=1
    fi
  done
  # a bracket that kept an end of the start never saw that side: no threshold inside it
  if [ "$slid" = 0 ] || [ "$stuck" = 0 ]; then
    echo "stick_slip.sh: $p: the box $([ "$slid" = 1 ] && echo slid || echo stuck) at every mu tried in" \
      "[tan - 0.05, tan + 0.05]: no threshold there (try more --frames or another --slide-mm)" >&2
    exit 1
  fi
  awk -v p="$p" -v a="$lo" -v b="$hi" -v t="$TAN" \
    'BEGIN { m = (a + b) / 2; printf "%s,%.6f,%.6f,%.6f,%.8f,%+.6f\n", p, m, a, b, t, m - t }'
done | tee "$OUT/threshold.csv"

if [ "$SCAN" = 1 ]; then
  echo "preconditioner,mu,displacement_mm" | tee "$OUT/scan.csv"
  for p in $PRE; do
    for k in -5 -4 -3 -2 -1 0 1 2 3 4 5; do
      mu=$(awk -v t="$TAN" -v k="$k" 'BEGIN { printf "%.6f", t + k * 0.001 }')
      d=$(slide_mm "$mu" "$p")
      echo "$p,$mu,$d"
    done
  done | tee -a "$OUT/scan.csv"
fi

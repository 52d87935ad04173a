#!/usr/bin/env bash
# The checks' eval strings are single-quoted on purpose.
# shellcheck disable=SC2016
# SPDX-License-Identifier: MIT
# The simctl program on a CUDA device (a GPU, or the host emulation's simctl-emu): summary.json's
# system.solve_check, the device's global step solved again on its last right-hand side and
# measured on the host against A_s (core/app/solve_check.c), under 1e-12 with S in double (the
# default layouts and SIMCTL_CUDA_TUNE=on's) and under 1e-5 but over 1e-12 with S in float; and
# run --resume on the device, whose frames are those of one run, byte for byte, without contact
# and with it (the bar on a box, from frame 6's state file; the Newton solve on the device and on
# the host). SKIPPED (exit 77) where no CUDA device can run simctl. scripts/gpu_report.sh runs it in its tests part.
# usage: test_gpu_program.sh PATH/TO/simctl   (fixture tests/data/cli/tiny_bar.json)
set -u
. "$(dirname "$0")/check_lib.sh"
DATA=$(cd "$(dirname "$0")/data/cli" && pwd)
SIMCTL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export SIMCTL_CACHE_DIR=$TMP/cache
# [ENV=VALUE...] run NAME FRAMES [simctl options]: tiny_bar on the device into $TMP/NAME, its
# exit code into NAME.rc (an assignment before a function call reaches the commands in it)
run() {
  local name=$1 frames=$2
  shift 2
  "$SIMCTL" run "$DATA/tiny_bar.json" --device cuda --out "$TMP/$name" --frames "$frames" \
    --quiet "$@" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
run double 4
if [ "$(cat "$TMP/double.rc")" = 7 ]; then # no device: exit 7 and one line saying why
  echo "test_gpu_program: SKIPPED: $(cat "$TMP/double.err")"
  exit 77
fi
ok() { [ "$(cat "$TMP/$1.rc")" = 0 ]; }
# below NAME BOUND: its summary.json's relative residual is a number under BOUND
below() { awk -v b="$2" '/"relative_residual":/ { v = $2; sub(/,$/, "", v); f = 1 }
  END { exit !(f && v ~ /^[0-9.e+-]+$/ && v + 0 < b + 0) }' "$TMP/$1/summary.json"; }
residual() { grep -m1 '"relative_residual"' "$TMP/$1/summary.json" | tr -d ' \t,' | sed 's/.*://'; }
SIMCTL_CUDA_TUNE=on run tuned 4
run float 4 --set solver.precision=float
echo "residuals: double $(residual double), tuned $(residual tuned), float $(residual float)"
check "solve_check: S in double on the device, under 1e-12 (default and tuned layouts)" \
  eval 'ok double && ok tuned && below double 1e-12 && below tuned 1e-12 &&
    grep -q "\"tuned\":[[:space:]]*true" "$TMP/tuned/summary.json"'
check "solve_check: S in float on the device, under 1e-5 and over 1e-12" \
  eval 'ok float && below float 1e-5 && ! below float 1e-12'
run whole 6
run part 3
run part 6 --resume
check "run --resume on the device: exit 0, frames 4-6 as the whole run's, byte for byte" \
  eval 'ok part && cmp -s "$TMP/whole/frames/00004.vtk" "$TMP/part/frames/00004.vtk" &&
    cmp -s "$TMP/whole/frames/00006.vtk" "$TMP/part/frames/00006.vtk"'
# with contact (the bar on a box): the state file beside frame 6 (the previous positions from the
# detector's device copy, the multipliers from the device solve) and back into them on resume
BOX='obstacles=[{"type": "box", "center": [0, -1.3, 0], "half_extents": [2, 0.3, 2]}]'
run cwhole 12 --set "$BOX"
run cpart 6 --set "$BOX"
run cpart 12 --set "$BOX" --resume
check "run --resume with contact on the device: frames 7-12 as the whole run's, byte for byte" \
  eval 'ok cwhole && ok cpart && cmp -s "$TMP/cwhole/frames/00007.vtk" "$TMP/cpart/frames/00007.vtk" &&
    cmp -s "$TMP/cwhole/frames/00012.vtk" "$TMP/cpart/frames/00012.vtk" &&
    grep -q "\"resumed_exactly\":[[:space:]]*true," "$TMP/cpart/summary.json"'
SIMCTL_CUDA_NSN=host run hwhole 12 --set "$BOX"
SIMCTL_CUDA_NSN=host run hpart 6 --set "$BOX"
SIMCTL_CUDA_NSN=host run hpart 12 --set "$BOX" --resume
check "... and with the Newton solve on the host (SIMCTL_CUDA_NSN=host): frame 12 byte for byte" \
  eval 'ok hwhole && ok hpart && cmp -s "$TMP/hwhole/frames/00012.vtk" "$TMP/hpart/frames/00012.vtk"'
if [ "$fails" = 0 ]; then echo "test_gpu_program: all checks passed"; else echo "test_gpu_program: $fails check failed"; fi
finish test_gpu_program

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How far one CPU step of a scene moves from a small difference of its start: the scale behind
# test_gpu_contact's tolerance for sharp_corner (tests/test_gpu_contact.c, sharp_corner_steps).
# Runs simctl-bench-sensitivity (cli/bench_sensitivity.c) three times: the CPU's sparse inverse
# against itself with the state perturbed by one ulp (2.2e-16 relative) and by 1e-14 before
# every step, and against its Cholesky solve. Each prints the median and largest step difference
# over the steps with contact, relative to the scene's size.
# usage: scripts/sensitivity.sh [--build DIR] [--scene FILE] [--steps N] [--set PATH=VALUE]...
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD="$HERE/../build" SCENE="$HERE/../scenes/sharp_corner.json" STEPS=95 SETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=${2:?--build needs a value}; shift 2 ;;
    --scene) SCENE=${2:?--scene needs a value}; shift 2 ;;
    --steps) STEPS=${2:?--steps needs a value}; shift 2 ;;
    --set) SETS+=(--set "${2:?--set needs a value}"); shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sensitivity.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
BIN="$BUILD/simctl-bench-sensitivity"
[ -x "$BIN" ] || { echo "sensitivity.sh: $BIN not found: build first (make build)" >&2; exit 1; }
for variant in "--perturb 2.2e-16" "--perturb 1e-14" "--global cholesky"; do
  # shellcheck disable=SC2086 # the variant is two words
  "$BIN" "$SCENE" --steps "$STEPS" $variant ${SETS[@]+"${SETS[@]}"}
done

# SPDX-License-Identifier: MIT
# Sourced by the shell tests of the scripts (test_frame_gaps.sh, test_gpu_goals.sh,
# test_sass_loads.sh): a fresh folder $TMP removed at exit, and `check WHAT CONDITION...`,
# which prints ok or FAILED for WHAT as CONDITION (a command) succeeds or not and counts the
# failures; `finish NAME` prints the count and exits non-zero where one failed.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
check() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fails=$((fails + 1)); fi
}
finish() {
  echo "$1: $fails failed"
  exit $((fails > 0))
}

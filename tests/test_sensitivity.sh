#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# simctl-bench-sensitivity (cli/bench_sensitivity.c, behind scripts/sensitivity.sh): two CPU
# backends from the same start step to the same bits (what the GPU tests' tolerances are
# measured against); a perturbed start reaches the steps; bad input is one line and exit 1-2.
# usage: test_sensitivity.sh PATH/TO/simctl-bench-sensitivity   (run from tests/)
set -u
BIN=$1
SCENE=../scenes/stick_slip.json
PASS=0 FAIL=0
T=$(mktemp -d "${TMPDIR:-/tmp}/simctl-sens.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "test_sensitivity.sh: check failed: $*" >&2; }
# figures LINE: "median largest" of a result line
figures() { sed -n 's/.*median \([^,]*\), largest \([^ ]*\) of the size.*/\1 \2/p' <<<"$1"; }

out=$("$BIN" "$SCENE" --steps 20) || bad "unperturbed run exit $?"
read -r med big <<<"$(figures "$out")"
if [ "$med" = 0.00e+00 ] && [ "$big" = 0.00e+00 ] && grep -q "20 steps with contact" <<<"$out"; then
  ok
else
  bad "unperturbed: expected 20 contact steps, median and largest 0: $out"
fi

out=$("$BIN" "$SCENE" --steps 20 --perturb 1e-12) || bad "perturbed run exit $?"
read -r med big <<<"$(figures "$out")"
if awk -v m="$med" -v b="$big" 'BEGIN { exit !(m > 0 && b >= m && b < 1e-6) }'; then
  ok
else
  bad "perturbed by 1e-12: expected 0 < median <= largest < 1e-6: $out"
fi

# bad input: exit code, one line on stderr naming what was wrong, nothing on stdout
while IFS='|' read -r want args name; do
  # shellcheck disable=SC2086 # args are words
  "$BIN" $args >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = "$want" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$name" "$T/err" &&
    [ ! -s "$T/out" ]; then
    ok
  else
    bad "$args: expected exit $want and one line naming '$name', got $rc: $(cat "$T/err")"
  fi
done <<EOF2
2|$SCENE --steps 0|--steps
2|$SCENE --perturb 1|--perturb
2|$SCENE --global lu|--global
2|$SCENE --frames 2|--frames
2|$SCENE --steps|--steps
2||no scene
1|missing.json|missing.json
1|$SCENE --set solver.dt=-1|solver.dt
EOF2
# --help: the usage on standard output, exit 0, nothing on standard error
"$BIN" --help > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^usage: simctl-bench-sensitivity SCENE" "$T/out" && [ ! -s "$T/err" ]; then
  ok
else
  bad "--help: expected exit 0 and the usage on standard output, got $rc"
fi
echo "test_sensitivity: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ]

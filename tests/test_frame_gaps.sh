#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/frame_gaps.py on a timing.csv of known figures: the mean frame and gap (frame_ms less
# the buckets it holds) over the frames whose contact count changed and over the others, the
# frames of a new most contacts against their neighbours; and bad input refused in one line.
# usage: test_frame_gaps.sh PYTHON SCRIPT
set -u
PY=$1 SCRIPT=$2
. "$(dirname "$0")/check_lib.sh"
H=frame,time,cd,schur,local,global,assemble,cst_solve,corr,cst_global,frame_ms,predict,integrate,output,lg_iterations,contacts,rows,newton_steps,cr_iterations,min_gap,redetected
# frames 2-6 have contact (10, 10, 20, 20, 15); each holds 1 ms of buckets (0.1 x 8 + 0.2 in
# local), so the gap is frame_ms - 1: changed frames 2, 4, 6 (gaps 1, 3, 0.5), unchanged 3, 5
# (gaps 0, 1); frame 4 is a new most with neighbours 1 and 2 ms: 4 - 1.5 = 2.5 over them
{
  echo "$H"
  echo "1,0.01,9,0,0.3,0.1,0,0,0,0.1,0.6,0.1,0.1,0,5,0,0,0,0,inf,0"
  echo "2,0.02,9,0.1,0.3,0.1,0.1,0.1,0.1,0.4,2,0.1,0.1,0,5,10,30,5,50,0,0"
  echo "3,0.03,9,0.1,0.3,0.1,0.1,0.1,0.1,0.4,1,0.1,0.1,0,5,10,30,5,50,0,0"
  echo "4,0.04,9,0.1,0.3,0.1,0.1,0.1,0.1,0.4,4,0.1,0.1,0,5,20,60,5,50,0,0"
  echo "5,0.05,9,0.1,0.3,0.1,0.1,0.1,0.1,0.4,2,0.1,0.1,0,5,20,60,5,50,0,0"
  echo "6,0.06,9,0.1,0.3,0.1,0.1,0.1,0.1,0.4,1.5,0.1,0.1,0,5,15,45,5,50,0,0"
} > "$TMP/timing.csv"
out=$("$PY" "$SCRIPT" "$TMP/timing.csv")
rc=$?
echo "$out"
row=$(echo "$out" | grep "timing.csv |")
check "exit code 0" test $rc -eq 0
check "5 contact frames, mean frame 2.100" grep -q "| 5 | 2.100 |" <<< "$row"
check "changed frames: mean gap 1.500 over 3" grep -q "| 1.500 (3) |" <<< "$row"
check "unchanged frames: mean gap 0.500 over 2" grep -q "| 0.500 (2) |" <<< "$row"
check "one new most (frame 4) 2.50 ms over its neighbours, 0.500 a contact frame" \
  grep -q "| 1 | 2.50 (0.500) |" <<< "$row"
# a folder: its */timing.csv
mkdir -p "$TMP/run/scene" && cp "$TMP/timing.csv" "$TMP/run/scene/"
check "a folder's */timing.csv" bash -c "'$PY' '$SCRIPT' '$TMP/run' | grep -q 'scene/timing.csv | 5 |'"
# bad input: one line naming the file and the place, a non-zero exit
printf 'frame,contacts,frame_ms\n1,x,2\n' > "$TMP/bad.csv"
err=$("$PY" "$SCRIPT" "$TMP/bad.csv" 2>&1 >/dev/null)
rc=$?
echo "$err"
check "bad value: exit 1" test $rc -eq 1
check "bad value: one line naming the file and line 2" \
  bash -c "[ \$(printf '%s\n' \"\$1\" | wc -l) -eq 1 ] && grep -q 'bad.csv:2: expected numbers' <<< \"\$1\"" _ "$err"
echo "frame,time" > "$TMP/other.csv"
err=$("$PY" "$SCRIPT" "$TMP/other.csv" 2>&1 >/dev/null)
rc=$?
check "not a timing.csv: exit 1, one line" \
  bash -c "[ $rc -eq 1 ] && grep -q 'other.csv: not a simctl timing.csv' <<< \"\$1\"" _ "$err"
"$PY" "$SCRIPT" "$TMP/missing.csv" > /dev/null 2>&1
check "a missing file: exit 1" test $? -eq 1
finish test_frame_gaps

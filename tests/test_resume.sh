#!/usr/bin/env bash
# The checks' eval strings are single-quoted on purpose.
# shellcheck disable=SC2016
# SPDX-License-Identifier: MIT
# simctl run --resume (core/app/resume.c): a run of 3 frames gone on to 6 writes the frames of
# one run of 6, byte for byte (VTK, OBJ, PNG: the camera as frame 0 fitted it), with the same
# series and timing rows; a run killed after a frame it had not written yet goes on from its
# last VTK frame, its later timing rows, frame files and temporary files gone; with contact the
# resumed frames are the run's byte for byte from the state file beside the VTK frame, and
# without it (multipliers starting cold) within 1e-5 m of them, with a note; a state file cut
# short, changed (24 seeded mutations too) or another frame's is refused with one line;
# a run resumed without CSV output keeps the earlier timing rows up to its frame; and a folder
# that holds no such run, a run already at the scene's end, another scene's frames, another time
# step, a VTK frame of another title or in ASCII, a vertex in another body and a timing row without its frame number
# are refused with one line and leave the folder as it was, as are 60 seeded mutations of the
# series, the VTK frame and timing.csv where they do not resume; none crashes.
# usage: test_resume.sh PATH/TO/simctl   (fixture tests/data/cli/tiny_bar.json)
set -u
SIMCTL=$1
case $SIMCTL in /*) ;; *) SIMCTL=$PWD/$SIMCTL ;; esac
TINY=$(cd "$(dirname "$0")" && pwd)/data/cli/tiny_bar.json
. "$(dirname "$0")/check_lib.sh"
export SIMCTL_CACHE_DIR=$TMP/cache
cd "$TMP" || exit 2
ALL='output.formats=["vtk","obj","png","csv"]'
# run DIR [simctl run options...]: tiny_bar into DIR, quiet; its exit code in RC, stderr in DIR.err
run() {
  local dir=$1
  shift
  "$SIMCTL" run "$TINY" --out "$dir" --quiet "$@" 2>"$dir.err"
  RC=$?
}
one_line() { [ "$(wc -l <"$1.err")" = 1 ] && grep -q '^simctl: error: ' "$1.err"; }
tree() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 cksum); }
# the timing rows without their clocks: frame, time and the counts (columns 1, 2, 15-19, 21)
rows() { cut -d, -f1,2,15-19,21 "$1/timing.csv"; }

run whole --frames 6 --set "$ALL"
run part --frames 3 --set "$ALL"
run part --frames 6 --set "$ALL" --resume
check "3 frames, then --resume to 6: exit 0" [ "$RC" = 0 ]
same=1
for f in 00004.vtk 00005.obj 00006.vtk 00006.obj 00006.png; do
  cmp -s "whole/frames/$f" "part/frames/$f" || { echo "differs: $f"; same=0; }
done
check "the resumed frames are the whole run's, byte for byte (VTK, OBJ, PNG)" [ "$same" = 1 ]
check "the series and the timing rows are the whole run's" eval \
  'cmp -s whole/frames/frames.vtk.series part/frames/frames.vtk.series && [ "$(rows whole)" = "$(rows part)" ]'
check "summary.json: frames 6, resumed_from 3; a new run's resumed_from null" eval \
  'grep -q "\"frames\":[[:space:]]*6," part/summary.json &&
   grep -q "\"resumed_from\":[[:space:]]*3," part/summary.json &&
   grep -q "\"resumed_from\":[[:space:]]*null," whole/summary.json'
# same_state A B: two state files hold the same bytes but their first figure (the frame times'
# sum: state_file.h) and so their checksums
same_state() {
  python3 - "$1" "$2" <<'PY'
import sys
a, b = (bytearray(open(p, "rb").read()) for p in sys.argv[1:])
at = len(b"simctl state 1\n") + 4 + 16 + 16
for x in (a, b):
    x[at:at + 8] = bytes(8)
sys.exit(a[:-8] != b[:-8])
PY
}
# same_figures A B: the two runs' summary.json have the same contact and inversion figures,
# from frame 1 both
same_figures() {
  python3 - "$1/summary.json" "$2/summary.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
keys = ("contact", "inverted_tets", "figures_from_frame")
sys.exit(not all(a.get(k) == b.get(k) for k in keys) or b["figures_from_frame"] != 1)
PY
}
check "... its figures the whole run's, from frame 1 (the state file's)" same_figures whole part

# killed after frame 5 was simulated but before it was written (every 2nd frame is): the series
# ends at 4, timing.csv has row 5, a later frame's file and a temporary file lie about
run every2 --frames 5 --set output.every=2
run killed --frames 5 --set output.every=2
unwrite() { # DIR: its last frame (5) as a kill before its writing leaves it: no file, no entry
  rm "$1/frames/00005.vtk"
  python3 - "$1/frames/frames.vtk.series" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["files"] = d["files"][:-1]
json.dump(d, open(sys.argv[1], "w"))
PY
}
unwrite killed
touch killed/frames/00007.vtk killed/frames/00006.vtk.tmp.99 killed/summary.json.tmp.98
run killed --frames 5 --set output.every=2 --resume
check "killed before writing frame 5: --resume goes on from frame 4, exit 0" eval \
  '[ "$RC" = 0 ] && grep -q "\"resumed_from\":[[:space:]]*4," killed/summary.json'
check "... frame 5 as the whole run's, the timing rows and series too" eval \
  'cmp -s every2/frames/00005.vtk killed/frames/00005.vtk && [ "$(rows every2)" = "$(rows killed)" ] &&
   cmp -s every2/frames/frames.vtk.series killed/frames/frames.vtk.series'
check "... its figures from frame 5 (frame 4 kept no state file: the run's last frame's alone)" \
  grep -q "\"figures_from_frame\":[[:space:]]*5," killed/summary.json
check "... the later frame's file and the temporary files gone" eval \
  '[ ! -e killed/frames/00007.vtk ] && [ -z "$(find killed -name "*.tmp.*")" ]'

# the same killed run resumed without CSV output: its timing rows cut at frame 4 all the same
rm -rf nocsv && cp -r every2 nocsv && unwrite nocsv
run nocsv --frames 5 --set output.every=2 --set 'output.formats=["vtk"]' --resume
check "resumed without CSV output: timing.csv's rows up to frame 4, as written before" eval \
  '[ "$RC" = 0 ] && [ "$(cut -d, -f1 nocsv/timing.csv | tr "\n" " ")" = "frame 1 2 3 4 " ] &&
   [ "$(head -n 5 every2/timing.csv)" = "$(cat nocsv/timing.csv)" ]'

# with contact (the bar on a box from the start): the state file beside each VTK frame
# (frames/NNNNN.state: previous positions, contacts, multipliers) makes the resumed frames the
# run's own, byte for byte; without it the multipliers start cold and the frames stay close
BOX='obstacles=[{"type": "box", "center": [0, -1.3, 0], "half_extents": [2, 0.3, 2]}]'
run cwhole --frames 12 --set "$BOX"
run cpart --frames 6 --set "$BOX"
check "a run keeps its last frame's state file alone (with contact, and without)" eval \
  '[ "$(cd cpart/frames && ls -- *.state)" = 00006.state ] &&
   [ "$(cd cwhole/frames && ls -- *.state)" = 00012.state ] &&
   [ "$(cd whole/frames && ls -- *.state)" = 00006.state ]'
rm -rf ccold && cp -r cpart ccold && rm ccold/frames/00006.state
cp -r cpart cbad # for the refusals below
run cpart --frames 12 --set "$BOX" --resume
check "with contact: --resume from frame 6's state file gives frames 7-12 byte for byte, the whole run's figures" eval \
  '[ "$RC" = 0 ] && cmp -s cwhole/frames/00007.vtk cpart/frames/00007.vtk &&
   cmp -s cwhole/frames/00012.vtk cpart/frames/00012.vtk &&
   same_state cwhole/frames/00012.state cpart/frames/00012.state &&
   grep -q "\"resumed_exactly\":[[:space:]]*true," cpart/summary.json && same_figures cwhole cpart'
"$SIMCTL" run "$TINY" --out ccold --frames 12 --set "$BOX" --resume >/dev/null 2>ccold.err
RC=$?
points() { # the largest coordinate difference of two frames' points
  python3 - "$1" "$2" <<'PY'
import struct, sys
def pts(p):
    b = open(p, "rb").read()
    i = b.index(b"POINTS "); j = b.index(b"\n", i); n = int(b[i:j].split()[1])
    return struct.unpack(">%dd" % (3 * n), b[j + 1:j + 1 + 24 * n])
print(max(abs(x - y) for x, y in zip(pts(sys.argv[1]), pts(sys.argv[2]))))
PY
}
dq=$(points cwhole/frames/00012.vtk ccold/frames/00012.vtk)
echo "contact without the state file: frame 12 within $dq m of the run without a break"
check "without the state file: exit 0, a note, resumed_exactly false, frame 12 other than the run's but within 1e-5 m" \
  eval '[ "$RC" = 0 ] && grep -q "frame 6 has no state file" ccold.err &&
    grep -q "\"resumed_exactly\":[[:space:]]*false," ccold/summary.json &&
    grep -q "\"resumed_exactly\":[[:space:]]*null," cwhole/summary.json &&
    ! cmp -s cwhole/frames/00012.vtk ccold/frames/00012.vtk &&
    awk -v d="$dq" "BEGIN { exit !(d != \"\" && d + 0 > 0 && d + 0 < 1e-5) }"'
# a state file cut short, changed, or another frame's: refused with one line, the folder as it
# was; 24 seeded mutations of it each refused so (its length and checksum)
statefile() { # NAME PYTHON: a copy of cbad as NAME, then PYTHON on its frame 6 state file (argv[1])
  rm -rf "$1" && cp -r cbad "$1" && python3 - "$1/frames/00006.state" <<<"$2"
}
statefile scut 'import sys
p = sys.argv[1]; b = open(p, "rb").read(); open(p, "wb").write(b[:-9])'
statefile sbyte 'import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[200] ^= 1; open(p, "wb").write(bytes(b))'
rm -rf sother && cp -r cbad sother && "$SIMCTL" run "$TINY" --out sother5 --quiet --frames 5 --set "$BOX" &&
  cp sother5/frames/00005.state sother/frames/00006.state
for what in "scut:cut short or lengthened" "sbyte:changed since it was written" \
  "sother:the state of frame 5 at"; do
  name=${what%%:*} msg=${what#*:}
  before=$(tree "$name")
  run "$name" --frames 12 --set "$BOX" --resume
  check "state file $name: exit 6, one line ($msg), the folder as it was" eval \
    '[ "$RC" = 6 ] && one_line "$name" && grep -q "00006.state: $msg" "$name.err" &&
     [ "$(tree "$name")" = "$before" ]'
done
rm -rf snobox && cp -r cbad snobox
before=$(tree snobox)
run snobox --frames 12 --resume # the scene without its box: no contact now
check "a contact run's folder resumed by the scene without contact: exit 6, one line, the folder as it was" \
  eval '[ "$RC" = 6 ] && one_line snobox && grep -q "vertices with contact, .*without, .*remove it" snobox.err &&
    [ "$(tree snobox)" = "$before" ]'
bad=0
for k in $(seq 0 23); do
  statefile "smut$k" "import random, sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); rng = random.Random($k)
if $k % 2:
    b = b[:rng.randrange(len(b))]
else:
    i = rng.randrange(len(b)); b[i] = (b[i] + 1 + rng.randrange(255)) % 256
open(p, 'wb').write(bytes(b))"
  run "smut$k" --frames 12 --set "$BOX" --resume
  if ! { [ "$RC" = 6 ] && one_line "smut$k"; }; then
    echo "state mutation $k: exit $RC: $(head -c 300 "smut$k.err")"
    bad=1
  fi
done
check "24 mutated state files: each refused with one line (exit 6)" [ "$bad" = 0 ]

# refusals: one line, the folder as it was
before=$(tree part)
run part --frames 6 --resume
check "at the scene's end already: exit 2, one line naming the frames" eval \
  '[ "$RC" = 2 ] && one_line part && grep -q "reached frame 6, and the scene runs to frame 6" part.err'
run part --frames 8 --resume --set solver.dt=0.02
check "another time step: exit 2, one line" eval '[ "$RC" = 2 ] && one_line part &&
  grep -q "not 6 x solver.dt" part.err'
run part --frames 8 --resume --set 'bodies.0.mesh.vertices=[4, 7, 4]'
check "another scene's frames: exit 6, one line naming the VTK file" eval '[ "$RC" = 6 ] &&
  one_line part && grep -q "part/frames/00006.vtk: 96 points, but the scene.s model has 112" part.err'
check "... and the folder as it was after each" [ "$(tree part)" = "$before" ]
# base2: a run of 3 frames edited four ways, each refused with one line naming the file and what
# it expected, the folder as it was: its VTK frame with another title or made ASCII, a vertex
# moved to another body, a timing row without its frame number
run base2 --frames 3
edit() { # NAME PYTHON: a copy of base2 as NAME, then PYTHON run on it (the folder as argv[1])
  rm -rf "$1" && cp -r base2 "$1" && python3 - "$1" <<<"$2"
}
edit ascii 'import sys
p = sys.argv[1] + "/frames/00003.vtk"; b = open(p, "rb").read()
open(p, "wb").write(b.replace(b"BINARY", b"ASCII\n", 1))'
edit bodyid 'import sys
p = sys.argv[1] + "/frames/00003.vtk"; b = bytearray(open(p, "rb").read())
i = b.index(b"LOOKUP_TABLE default\n") + len("LOOKUP_TABLE default\n")
b[i:i + 4] = (1).to_bytes(4, "big"); open(p, "wb").write(bytes(b))'
edit title 'import sys
p = sys.argv[1] + "/frames/00003.vtk"; b = open(p, "rb").read()
open(p, "wb").write(b.replace(b"simctl frame 3", b"paraview out", 1))'
edit nofield 'import sys
p = sys.argv[1] + "/timing.csv"; t = open(p).read().split("\n")
t[2] = "x" + t[2]; open(p, "w").write("\n".join(t))'
for what in "title:not a frame simctl wrote (title .paraview out" "ascii:expected .BINARY., found .ASCII." "bodyid:vertex 0 is in body 1, but in the scene.s body 0" \
  "nofield:timing.csv: line 3: expected a frame number first"; do
  name=${what%%:*} msg=${what#*:}
  before=$(tree "$name")
  run "$name" --frames 6 --resume
  check "$name: exit 6, one line ($msg), the folder as it was" eval \
    '[ "$RC" = 6 ] && one_line "$name" && grep -q "$msg" "$name.err" && [ "$(tree "$name")" = "$before" ]'
done
run none --frames 6 --resume
check "no earlier run: exit 6, one line naming the series, nothing made" eval '[ "$RC" = 6 ] &&
  one_line none && grep -q "none/frames/frames.vtk.series: not found" none.err && [ ! -e none ]'
# mutated folders: a run of 3 frames, then one of its series, last VTK frame or timing.csv cut
# short or with a byte changed (seeded): each resume goes on (exit 0) or is refused with one
# line (exit 2 or 6), never a crash
run base --frames 3
bad=0
for k in $(seq 0 59); do
  rm -rf "mut$k" && cp -r base "mut$k"
  python3 - "mut$k" "$k" <<'PY'
import random, sys
d, k = sys.argv[1], int(sys.argv[2])
rng = random.Random(k)
path = d + ["/frames/frames.vtk.series", "/frames/00003.vtk", "/timing.csv"][k % 3]
b = bytearray(open(path, "rb").read())
if k % 2:
    b = b[:rng.randrange(len(b))]
else:
    b[rng.randrange(len(b))] = rng.randrange(256)
open(path, "wb").write(bytes(b))
PY
  run "mut$k" --frames 5 --resume
  if ! { [ "$RC" = 0 ] || { { [ "$RC" = 2 ] || [ "$RC" = 6 ]; } && one_line "mut$k"; }; }; then
    echo "mutation $k: exit $RC: $(head -c 300 "mut$k.err")"
    bad=1
  fi
done
check "60 mutated folders: each resumed or refused with one line (exit 2 or 6), none crashed" \
  [ "$bad" = 0 ]
"$SIMCTL" run --help | grep -q -- "--resume" 
check "run --help lists --resume" [ $? = 0 ]
finish test_resume

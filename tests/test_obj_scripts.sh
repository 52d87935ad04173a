#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/fold_layers.py, scripts/self_intersections.py, scripts/obstacle_depths.py and
# scripts/crossing_heights.py on OBJ frames of known geometry: frame 0 a flat strip of 4 x 2
# vertices 0.1 apart (x 0..0.3, one body "cloth"); frame 5 its half x > 0.15 folded over 5 mm
# above the other half, then 5 mm below it (through it), with a second object "other" whose edge
# pierces its triangle (or, --between, the strip's, or, --obstacles, the strip's as the frame's
# obstacle, with and without --depth); an edge into a unit cube (--deep); chords of a cylinder
# and a torus (obstacle_depths.py); two quads crossed at right angles 1 cm apart, then 1 cm the
# other way. Bad input is refused with exit 2.
# usage: test_obj_scripts.sh PYTHON SCRIPTS_DIR
set -u
PY=$1 DIR=$2
. "$(dirname "$0")/check_lib.sh"
mkdir -p "$TMP/run/frames" "$TMP/through/frames"
# FILE Y1 Y2 X: the strip's vertices x = 0.2 and 0.3 at height Y1 and Y2 (folded: moved to x =
# 0.1 and 0 by fold below), then the object "other": a triangle and a degenerate face whose
# edge from (X, -0.1, 0.05) to (X, 0.1, 0.05) passes through the triangle where X = 0.6
frame() {
  {
    echo "# test frame"
    echo "o cloth"
    for z in 0 0.1; do
      echo "v 0 0 $z"; echo "v 0.1 0 $z"; echo "v 0.2 $2 $z"; echo "v 0.3 $3 $z"
    done
    echo "f 1 2 6"; echo "f 1 6 5"; echo "f 2 3 7"; echo "f 2 7 6"; echo "f 3 4 8"; echo "f 3 8 7"
    echo "o other"
    echo "v 0.5 0 0"; echo "v 0.7 0 0"; echo "v 0.6 0 0.2"; echo "v $4 -0.1 0.05"; echo "v $4 0.1 0.05"
    echo "f 9 10 11"; echo "f 12 13 12"
  } > "$1"
}
frame "$TMP/run/frames/00000.obj" 0 0 0.9
cp "$TMP/run/frames/00000.obj" "$TMP/through/frames/00000.obj"
fold() { # FILE Y: the strip's half x > 0.15 mirrored onto the other, at height Y
  frame "$1" "$2" "$2" 0.6
  sed -i -e "s/^v 0.2 $2 /v 0.1 $2 /" -e "s/^v 0.3 $2 /v 0 $2 /" "$1"
}
fold "$TMP/run/frames/00005.obj" 0.005
fold "$TMP/through/frames/00005.obj" -0.005
out=$("$PY" "$DIR/fold_layers.py" "$TMP/run" --fold 0.15)
rc=$?
echo "$out"
check "fold_layers: exit 0" test $rc -eq 0
check "fold_layers: frame 0 none over" grep -q "^00000     0  -" <<< "$out"
check "fold_layers: frame 5, 4 over at +5 mm" grep -q "^00005     4  +0.00500  +0.00500  +0.00500" <<< "$out"
check "fold_layers: lowest +5 mm" grep -q "lowest over all frames: +0.00500 m" <<< "$out"
out=$("$PY" "$DIR/fold_layers.py" "$TMP/through" --fold 0.15 | tail -1)
check "fold_layers: through, lowest -5 mm" grep -q "lowest over all frames: -0.00500 m" <<< "$out"
out=$("$PY" "$DIR/self_intersections.py" "$TMP/run")
rc=$?
echo "$out"
check "self_intersections: exit 0" test $rc -eq 0
check "self_intersections: frame 0, none" grep -q "^00000  cloth 0, other 0" <<< "$out"
check "self_intersections: frame 5, the other's edge through its triangle" \
  grep -q "^00005  cloth 0, other 1" <<< "$out"
check "self_intersections: --object cloth" \
  grep -q "^00005  cloth 0$" <<< "$("$PY" "$DIR/self_intersections.py" "$TMP/run" --object cloth)"
mkdir -p "$TMP/between/frames"
frame "$TMP/between/frames/00000.obj" 0 0 0.06 # the other's edge through the strip at x 0.06
out=$("$PY" "$DIR/self_intersections.py" "$TMP/between" --between)
echo "$out"
check "self_intersections --between: the other's edge through the strip's triangle" \
  grep -q "^00000  cloth/other 1$" <<< "$out"
check "self_intersections: each alone, none" \
  grep -q "^00000  cloth 0, other 0$" <<< "$("$PY" "$DIR/self_intersections.py" "$TMP/between")"
# --obstacles: the same strip alone, "other" as its obstacle in 00000.obstacles.obj (indices
# local to that file)
mkdir -p "$TMP/obst/frames"
sed -n '1,/^o other/p' "$TMP/between/frames/00000.obj" | sed '$d' > "$TMP/obst/frames/00000.obj"
# the other object as "blade", its face numbers less the strip's 8 vertices
sed -n '/^o other/,$p' "$TMP/between/frames/00000.obj" | sed 's/^o other/o blade/' |
  awk '$1 == "f" { print "f", $2 - 8, $3 - 8, $4 - 8; next } { print }' \
  > "$TMP/obst/frames/00000.obstacles.obj"
# WHAT LINE ARGS...: self_intersections.py on the strip and its obstacle (with ARGS) prints LINE
obst_has() {
  local what=$1 line=$2
  shift 2
  check "self_intersections $what" \
    grep -q "^$line$" <<< "$("$PY" "$DIR/self_intersections.py" "$TMP/obst" "$@")"
}
obst_has "--obstacles: the obstacle's edge through the strip's triangle" \
  "00000  cloth/obstacle:blade 1" --obstacles
obst_has "without --obstacles: the strip alone, none" "00000  cloth 0"
# --depth: the blade's edge has both ends 0.1 from the strip's plane
obst_has "--obstacles --depth 0.05: both ends deeper, counted" \
  "00000  cloth/obstacle:blade 1" --obstacles --depth 0.05
obst_has "--obstacles --depth 0.2: an end nearer the plane, not counted" \
  "00000  cloth/obstacle:blade 0" --obstacles --depth 0.2
"$PY" "$DIR/self_intersections.py" "$TMP/obst" --obstacles --depth -1 > "$TMP/out" 2> "$TMP/err"
check "--depth -1: exit 2, one line naming the option" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '--depth: expected' '$TMP/err'"
rm "$TMP/obst/frames/00000.obstacles.obj"
"$PY" "$DIR/self_intersections.py" "$TMP/obst" --obstacles > "$TMP/out" 2> "$TMP/err"
check "--obstacles without the obstacles' file: exit 2, one line naming it" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '00000.obstacles.obj: no obstacles' '$TMP/err'"
"$PY" "$DIR/self_intersections.py" "$TMP/obst" --obstacles --between > "$TMP/out" 2> "$TMP/err"
check "--obstacles with --between: exit 2, the usage" \
  eval "[ $? -eq 2 ] && grep -q '^usage:' '$TMP/err'"
# --deep: a unit cube and a probe, an edge along z at x 0.4, y 0.3 (0.3 from the side y 0) from
# z = $2 to $3
mkdir -p "$TMP/deep/frames"
probe() {
  {
    echo "o cube"
    for v in "0 0 0" "1 0 0" "1 1 0" "0 1 0" "0 0 1" "1 0 1" "1 1 1" "0 1 1"; do echo "v $v"; done
    for f in "1 3 2" "1 4 3" "5 6 7" "5 7 8" "1 2 6" "1 6 5" "2 3 7" "2 7 6" "3 4 8" "3 8 7" \
      "4 1 5" "4 5 8"; do echo "f $f"; done
    echo "o probe"
    echo "v 0.4 0.3 $2"; echo "v 0.4 0.3 $3"; echo "f 9 10 9"
  } > "$1"
}
probe "$TMP/deep/frames/00000.obj" -0.5 0.2 # its end 0.2 inside
probe "$TMP/deep/frames/00001.obj" -0.5 1.5 # through: 0.3 from the side y 0 at most
out=$("$PY" "$DIR/self_intersections.py" "$TMP/deep" --between --deep)
echo "$out"
check "--deep: an end 0.2 inside" grep -q "^00000  cube/probe 1 (200.00 mm deep)$" <<< "$out"
check "--deep: through, its points between the crossings" \
  grep -q "^00001  cube/probe 1 (300.00 mm deep)$" <<< "$out"
check "--deep: the deepest frame" grep -q "^deepest: 300.00 mm (frame 00001, cube/probe)$" <<< "$out"
check "--deep: the cube turned inside out, the same" grep -q "^00001  cube/probe 1 (300.00 mm deep)$" \
  <<< "$(sed -i 's/^f \([0-9]*\) \([0-9]*\) \([0-9]*\)$/f \1 \3 \2/' "$TMP/deep/frames/00001.obj" &&
    "$PY" "$DIR/self_intersections.py" "$TMP/deep" --between --deep)"
check "--deep, an edge outside the cube: none crossing" grep -q "^deepest: none (no edge crosses" \
  <<< "$(sed -i 's/^v 0.4 0.3 1.5$/v 0.4 0.3 -0.1/' "$TMP/deep/frames/00001.obj" &&
    sed -i 's/^v 0.4 0.3 0.2$/v 0.4 0.3 -0.1/' "$TMP/deep/frames/00000.obj" &&
    "$PY" "$DIR/self_intersections.py" "$TMP/deep" --between --deep)"
# entering through the bottom face's diagonal at (0.5, 0.5, 0), which neither of its triangles
# counts, and leaving through the side y 1: its start, outside, is not taken to be inside
mkdir -p "$TMP/deep2/frames"
sed -e 's/^v 0.4 0.3 -0.5$/v 0.5 0.1 -0.2/' -e 's/^v 0.4 0.3 -0.1$/v 0.5 1.1 0.3/' \
  "$TMP/deep/frames/00000.obj" > "$TMP/deep2/frames/00000.obj"
check "--deep, an entry no triangle counts: no depth from the outside end" \
  grep -q "^00000  cube/probe 1 (0.00 mm deep)$" \
  <<< "$("$PY" "$DIR/self_intersections.py" "$TMP/deep2" --between --deep)"
check "--deep, no closed surface: none" grep -q "^deepest: none (no closed surface" \
  <<< "$("$PY" "$DIR/self_intersections.py" "$TMP/between" --between --deep)"
"$PY" "$DIR/self_intersections.py" "$TMP/deep" --deep > "$TMP/out" 2> "$TMP/err"
check "--deep without --between or --obstacles: exit 2, the usage" \
  eval "[ $? -eq 2 ] && grep -q '^usage:' '$TMP/err'"
# obstacle_depths.py: the chord of a cylinder of radius 1 (axis z) between two points of its
# surface 0.2 rad apart dips 1 - cos 0.1 = 5.00 mm into it; the same chord of a torus's tube
# (major 2, minor 1, axis z); a scripted plane and a mesh obstacle are named, not checked
mkdir -p "$TMP/sdf/frames"
{
  echo "o strip"
  echo "v -0.09983341664682815 0.9950041652780258 0"; echo "v 0.09983341664682815 0.9950041652780258 0"
  echo "v 0 2 0.5"; echo "f 1 2 3"
  echo "o ring"
  echo "v 1.9001665833531718 0 0.9950041652780258"; echo "v 2.0998334166468282 0 0.9950041652780258"
  echo "v 2 0 2"; echo "f 4 5 6"
} > "$TMP/sdf/frames/00000.obj"
cat > "$TMP/sdf/summary.json" << 'JSON'
{"resolved_scene": {"obstacles": [
  {"name": "cyl", "type": "cylinder", "point": [0, 0, 0], "axis": [0, 0, 1], "radius": 1,
   "height": 0, "touches": ["strip"], "script": []},
  {"name": "donut", "type": "torus", "center": [0, 0, 0], "axis": [0, 0, 1], "major": 2,
   "minor": 1, "touches": ["ring"], "script": []},
  {"name": "wall", "type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0],
   "touches": ["strip", "ring"], "script": [{"type": "wait", "duration": 1}]},
  {"name": "blade", "type": "mesh", "path": "/nowhere/blade.obj", "touches": ["strip"],
   "script": []}]}}
JSON
out=$("$PY" "$DIR/obstacle_depths.py" "$TMP/sdf")
rc=$?
echo "$out"
check "obstacle_depths: exit 0" test $rc -eq 0
check "obstacle_depths: the chords 5.00 mm in, the vertices on the surfaces" \
  grep -q "^00000  strip/cyl vertex 0.00 edge 5.00, ring/donut vertex 0.00 edge 5.00$" <<< "$out"
check "obstacle_depths: the deepest edge point and its edge's length" \
  grep -q "^deepest edge point: 5.00 mm (frame 00000, strip/cyl, an edge 199.7 mm long)$" <<< "$out"
check "obstacle_depths: the moving plane named" grep -q "^not checked: wall, it moves" <<< "$out"
check "obstacle_depths: the mesh obstacle named" grep -q "^not checked: blade, a mesh obstacle" <<< "$out"
rm "$TMP/sdf/summary.json"
"$PY" "$DIR/obstacle_depths.py" "$TMP/sdf" > "$TMP/out" 2> "$TMP/err"
check "obstacle_depths without summary.json: exit 2, one line naming it" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'sdf/summary.json: expected a run' '$TMP/err'"
# two quads, "lower" along x (|x| <= 1, |z| <= 0.1) at y 0 and "upper" along z at y = $2: their
# long sides and diagonals cross seen from above, 9 crossings
mkdir -p "$TMP/cross/frames"
quads() {
  {
    echo "o lower"
    echo "v -1 0 -0.1"; echo "v 1 0 -0.1"; echo "v 1 0 0.1"; echo "v -1 0 0.1"
    echo "f 1 2 3"; echo "f 1 3 4"
    echo "o upper"
    echo "v -0.1 $2 -1"; echo "v 0.1 $2 -1"; echo "v 0.1 $2 1"; echo "v -0.1 $2 1"
    echo "f 5 6 7"; echo "f 5 7 8"
  } > "$1"
}
quads "$TMP/cross/frames/00000.obj" 0.01
quads "$TMP/cross/frames/00001.obj" -0.01
out=$("$PY" "$DIR/crossing_heights.py" "$TMP/cross" --upper upper --lower lower)
rc=$?
echo "$out"
check "crossing_heights: exit 0" test $rc -eq 0
check "crossing_heights: frame 0, 9 crossings at +1 cm" \
  grep -q "^00000     9 crossing  nearest +0.01000  lowest +0.01000  highest +0.01000" <<< "$out"
check "crossing_heights: frame 1, under it" grep -q "^00001     9 crossing  nearest -0.01000" <<< "$out"
check "crossing_heights: lowest -1 cm" grep -q "lowest nearest height over all frames: -0.01000 m" <<< "$out"
"$PY" "$DIR/crossing_heights.py" "$TMP/cross" --upper upper > "$TMP/out" 2> "$TMP/err"
check "crossing_heights without --lower: exit 2, the usage" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^usage:' '$TMP/err'"
"$PY" "$DIR/crossing_heights.py" "$TMP/cross" --upper upper --lower floor > "$TMP/out" 2> "$TMP/err"
check "crossing_heights, an object not there: exit 2, one line naming it" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'no object floor (has lower, upper)' '$TMP/err'"
"$PY" "$DIR/self_intersections.py" "$TMP/nothing" > "$TMP/out" 2> "$TMP/err"
check "no frames: exit 2, one line naming the folder" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'nothing/frames: no OBJ frames' '$TMP/err'"
"$PY" "$DIR/fold_layers.py" "$TMP/run" --every 0 > "$TMP/out" 2> "$TMP/err"
check "--every 0: exit 2, one line" eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ]"
printf 'o cloth\nv 1 2\n' > "$TMP/run/frames/00010.obj"
"$PY" "$DIR/fold_layers.py" "$TMP/run" > "$TMP/out" 2> "$TMP/err"
check "a vertex of two numbers: exit 2, one line naming the file and line" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '00010.obj: line 2' '$TMP/err'"
printf 'o cloth\nv 1 2 3\nf 1 2 3\n' > "$TMP/run/frames/00010.obj"
"$PY" "$DIR/self_intersections.py" "$TMP/run" > "$TMP/out" 2> "$TMP/err"
check "a face past the vertices: exit 2, one line" \
  eval "[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'names vertex 3 of 1' '$TMP/err'"
finish test_obj_scripts

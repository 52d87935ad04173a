#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A box's edge held off the other box between its vertices: scenes/pushing_wall.json's first 80
# frames on the CPU with contact.edge_edge on and off, every 2nd frame written as OBJ and
# checked with scripts/self_intersections.py --between --deep. With edge pairs the crossing
# edges reach less than 1 mm into the other box (0.36 mm at frame 74, docs/results.md); with
# vertex-triangle contacts alone more than 3 mm (5.33 mm): the check sees the difference.
# usage: test_boxes_edge_pairs.sh SIMCTL PYTHON SCRIPTS_DIR SCENES_DIR
set -u
SIMCTL=$1 PY=$2 DIR=$3 SCENES=$4
. "$(dirname "$0")/check_lib.sh"
# ON: the deepest reach (mm) of the run with contact.edge_edge=ON, "none" where no edge crossed
deepest() {
  "$SIMCTL" run "$SCENES/pushing_wall.json" --out "$TMP/$1" --frames 80 --threads 1 \
    --device cpu --quiet --set "contact.edge_edge=$1" --set output.every=2 \
    --set 'output.formats=["obj"]' || { echo "run failed"; return; }
  "$PY" "$DIR/self_intersections.py" "$TMP/$1" --between --deep |
    sed -n 's/^deepest: \([0-9.]*\) mm .*/\1/p; s/^deepest: none.*/none/p'
}
on=$(deepest true)
off=$(deepest false)
echo "deepest with edge pairs: $on mm, without: $off mm"
check "with edge pairs: less than 1 mm into the other box" \
  "$PY" -c "import sys; v = sys.argv[1]; sys.exit(not (0.0 if v == 'none' else float(v)) < 1.0)" "$on"
check "without: more than 3 mm (vertex contacts alone)" \
  "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) > 3.0)" "$off"
finish test_boxes_edge_pairs

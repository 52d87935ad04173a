#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/obstacle_depths.py's signed distances agree with simctl's obstacles: a scene with one
# analytic obstacle of each type (a rotated box, a finite tilted cylinder, a torus, a capsule,
# a sphere and a tilted plane) run for a frame with OBJ output, and every vertex of each
# obstacle's drawing (NNNNN.obstacles.obj, which simctl puts on the obstacle's surface) within
# 1e-6 m of the surface by the script's distance; and a point inside each, where the distance
# is known (the box's centre -0.3, the cylinder's point -0.5, a point of the torus's core circle
# -0.3, the capsule's end -0.4, the sphere's centre -0.7, 0.5 behind the plane -0.5), reads it.
# Then the same obstacles turned and carried by a script (rolling about an axis off their
# origins, 5 frames): the script takes each drawn frame's points back to rest by the `# frame`
# and `# rest` comments of NNNNN.obstacles.obj, and the same two checks hold there.
# usage: test_obstacle_sdf.sh SIMCTL PYTHON SCRIPTS_DIR
set -u
SIMCTL=$1 PY=$2 DIR=$3
. "$(dirname "$0")/check_lib.sh"
cat > "$TMP/scene.json" << 'JSON'
{"bodies": [{"mesh": {"type": "icosphere"}, "transform": {"translate": [0, 6, 0]}}],
 "solver": {"frames": 1},
 "obstacles": [
  {"type": "box", "center": [0.5, -1, 0.2], "half_extents": [1, 0.3, 0.6], "rotate": [20, 35, -50]},
  {"type": "cylinder", "point": [3, 0, 0], "axis": [1, 2, 3], "radius": 0.5, "height": 2},
  {"type": "torus", "center": [-3, 0, 0], "axis": [0, 1, 1], "major": 1, "minor": 0.3},
  {"type": "capsule", "a": [0, 0, -3], "b": [1, 1, -3], "radius": 0.4},
  {"type": "sphere", "center": [0, 0, 4], "radius": 0.7},
  {"type": "plane", "point": [0, -4, 0], "normal": [0.2, 1, -0.1]}]}
JSON
# measure RUN: a line per obstacle of RUN's last obstacles.obj: name, type, vertices drawn, the
# largest |phi| among them, and |phi - known| at the point inside (both posed where scripted)
measure() {
  "$PY" - "$DIR" "$1" << 'PY'
import glob, json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import obj_frames, obstacle_depths as od  # noqa: E402
run = sys.argv[2]
obstacles = json.load(open(run + "/summary.json"))["resolved_scene"]["obstacles"]
last = sorted(glob.glob(run + "/frames/*.obstacles.obj"))[-1]
V, objs = obj_frames.read(last, "test")
drawn = od.poses(last)
for o in obstacles:
    phi = od.sdf(o)
    n = od.unit(o.get("normal", [0, 1, 0]))
    p = o.get("point", [0, 0, 0])
    inner, want = {"box": (o.get("center"), -0.3), "cylinder": (p, -0.5),
                   "torus": ([-2, 0, 0], -0.3), "capsule": (o.get("a"), -0.4),
                   "sphere": (o.get("center"), -0.7),
                   "plane": ([p[k] - 0.5 * n[k] for k in range(3)], -0.5)}[o["type"]]
    if o.get("script"):  # the point inside carried as the obstacle: frame(rest^-1(inner))
        (q, R), (q0, R0) = drawn[o["name"]]
        d = od.sub(inner, q0)
        loc = [sum(R0[i][j] * d[i] for i in range(3)) for j in range(3)]
        inner = [od.dot(R[i], loc) + q[i] for i in range(3)]
        phi = od.moved(phi, drawn[o["name"]])
    verts = sorted({i for t in objs[o["name"]] for i in t})
    worst = max(abs(phi(V[i])) for i in verts)
    print("%s %s %d %.3g %.3g" % (o["name"], o["type"], len(verts), worst,
                                  abs(phi(inner) - want)))
PY
}
"$SIMCTL" run "$TMP/scene.json" --out "$TMP/run" --quiet --device cpu \
  --set 'output.formats=["obj"]'
check "the run: exit 0" test $? -eq 0
ROLL='[{"type": "rolling", "axis": [0.3, 1, 0.2], "center": [0.4, -0.2, 0.1], "speed": 300, "angle": 720}]'
"$SIMCTL" run "$TMP/scene.json" --out "$TMP/moved" --quiet --device cpu --frames 5 \
  --set 'output.formats=["obj"]' \
  --set "obstacles.0.script=$ROLL" --set "obstacles.1.script=$ROLL" --set "obstacles.2.script=$ROLL" \
  --set "obstacles.3.script=$ROLL" --set "obstacles.4.script=$ROLL" --set "obstacles.5.script=$ROLL"
check "the run with every obstacle rolled by a script: exit 0" test $? -eq 0
for run in run moved; do
  out=$(measure "$TMP/$run")
  echo "$out"
  check "$run: six obstacles read" test "$(wc -l <<< "$out")" -eq 6
  check "$run: every drawn vertex within 1e-6 m of its obstacle's surface" \
    "$PY" -c "import sys; l = sys.argv[1].splitlines(); sys.exit(not (len(l) == 6 and all(float(x.split()[3]) < 1e-6 for x in l)))" "$out"
  check "$run: a point inside each at its known distance (within 1e-12 m)" \
    "$PY" -c "import sys; l = sys.argv[1].splitlines(); sys.exit(not (len(l) == 6 and all(float(x.split()[4]) < 1e-12 for x in l)))" "$out"
done
check "the rolled obstacles were drawn away from their rest (the last frame's own poses)" \
  "$PY" -c "import sys; sys.path.insert(0, sys.argv[1]); import obstacle_depths as od; P = od.poses(sys.argv[2]); sys.exit(not (len(P) == 6 and all(f != r for f, r in P.values())))" "$DIR" "$TMP/moved/frames/00005.obstacles.obj"
finish test_obstacle_sdf

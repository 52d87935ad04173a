#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes scenes/grabbing_raptor*.json: the paper's grabbing example (Figs. 2 and 11, the
grabbing_raptor rows of Table 3) at its three sizes.

Two soft fingers, each bent by a cable along its inner side, hang from a gripper; they close
on a soft raptor standing on the floor, lift it, turn it 90 degrees about the vertical, carry
it aside, set it down and let go. The set-up follows the authors' (../shared/paper/
realsim_scenes.md, CableGrabRaptor) in its units and materials: gravity 1, a raptor of mass
10 (Neo-Hookean, E 2e4, nu 0.1), fingers of mass 1 (Neo-Hookean, E 5e5, nu 0.2), hard cables
(compliance 1e-12) through 12 embedded points, a pin box [-2, -0.5, -2, 2, 1, 2] that
carries the fingers' bases, contact margin 0.1 between bodies, friction 0.5 between bodies
and 1 on the floor.

What differs: the raptor is simctl's procedural stand-in (meshes/raptor_standin.obj, the
paper's mesh is not public), scaled by 7.5 and turned so that its long axis is z, like the
authors' (head towards -z); the fingers are straight bars 4.1 x 0.6 x 0.6 with 3 x 17 x 3
vertices (the SoftRobots finger the paper used is 4.1 x 0.6 x 0.6 at the paper's scale, 158
vertices), tilted 20 degrees outwards, their cables pulled by 0.2 (a tension in the
thousands; tests/test_cable.c check_high_tension); the gripper's script is shorter (18.6 s
instead of 60 s: wait, lift, turn 90 instead of 135 degrees, carry, lower, open, rise),
slower and with ramps (see SCRIPT); the raptor touches the floor only (the authors' second,
tilted plane is left out); the floor has a margin of its own, 0.02 (FLOOR_MARGIN; the authors
give the margin 0.1 for the bodies' contacts only).

Sizes (raptor stand-in vertices with TetGen, plus 2 x 153 finger vertices; the paper's Table 3
rows count 10.3k, 15.3k and 20.4k): quality 2.1 (no volume bound) gives 9,980 + 306 = 10,286;
quality 2, max volume 3.1e-6 gives 15,080 + 306 = 15,386; quality 1.414, max volume 4.2e-6
gives 20,195 + 306 = 20,501.

Deterministic; the JSON files are committed, run this only to change them:
    python3 scripts/gen_grabbing_raptor.py [SCENEDIR]
"""
import json
import math
import os
import sys

FINGER_LEN = 4.1
FINGER_HALF = 0.3
FINGER_TILT = 20.0  # degrees outwards from the vertical
FINGER_X = 0.42  # the bases' centres at x = +-FINGER_X, y = 0, z = 0 (at 0.4 the fingers
# started 3 mm inside the raptor's hips; at 0.42 the nearest contact is 16 mm apart)
CABLE_OFFSET = 0.2  # from the finger's axis towards the raptor
CABLE_POINTS = 12
CABLE_COMPLIANCE = 1e-12  # m/N: a hard cable, as the authors'
PULL = 0.2  # how much each cable is shortened (the fingers close on the raptor)
RAPTOR_SCALE = 7.5
RAPTOR_Y = -5.575  # the stand-in's feet (its y = 0.005) then stand at -5.54
FLOOR_Y = -5.56
FLOOR_MARGIN = 0.02  # the floor's own contact margin: twice the raptor's fastest step down
# (speed 1, dt 0.01); at the bodies' 0.1 the floor took some 290 of the raptor's vertices

SIZES = [
    ("grabbing_raptor", {"quality": 2.1, "max_volume": 0}),
    ("grabbing_raptor_15k", {"quality": 2, "max_volume": 3.1e-06}),
    ("grabbing_raptor_20k", {"quality": 1.414, "max_volume": 4.2e-06}),
]

# The gripper's script (both pins run it): wait while the cables close the fingers, lift,
# turn about the vertical axis through the gripper, carry aside, lower as far as it was
# lifted, wait while the cables let go, rise. Every move speeds up and slows down over its
# `ramp` and is slower than the authors' 2 and 45 deg/s. Chosen while the cables' rows still
# lagged a step (world_cables.c), when the jumps of the authors' steps flung the raptor about
# in the grip. Tried again with the rows at q~ (2026-11-27, the raptor meshed coarser with
# tetgen.quality 0): at the authors' speeds without ramps the grip holds through the lift,
# the turn and the carry, and the raptor is set down where the gripper puts it, but it lands
# at speed 2 and tips over once the fingers open; with this script it stays standing.
LIFT = 2.5
SCRIPT = [
    {"type": "wait", "duration": 1.5},
    {"type": "pulling", "direction": [0, 1, 0], "speed": 1, "length": LIFT, "ramp": 0.8},
    {"type": "rolling", "axis": [0, 1, 0], "center": [0, 0, 0], "speed": 30, "angle": 90,
     "ramp": 1.5},
    {"type": "pulling", "direction": [1, 0, -1], "speed": 1, "length": 2, "ramp": 1},
    {"type": "pulling", "direction": [0, -1, 0], "speed": 1, "length": LIFT, "ramp": 0.8},
    {"type": "wait", "duration": 1.5},
    {"type": "pulling", "direction": [0, 1, 0], "speed": 2, "length": 2, "ramp": 0.5},
]
# cable pull keys [t, s]: close from 0.3 to 1.2 s, hold, open over 0.7 s once the gripper is
# down (at 15.6 s)
PULL_KEYS = [[0.3, 0], [1.2, PULL], [15.6, PULL], [16.3, 0]]
FRAMES = 1860


def script_duration():
    t = 0.0
    for s in SCRIPT:
        if s["type"] == "wait":
            t += s["duration"]
        elif s["type"] == "pulling":
            t += s["length"] / s["speed"] + s.get("ramp", 0)
        else:
            t += s["angle"] / abs(s["speed"]) + s.get("ramp", 0)
    return t


def finger_world(side, p):
    """A point of finger `side` (+1: the finger at +x, -1: at -x) from its local frame (the bar
    [-0.3, -4.1, -0.3] .. [0.3, 0, 0.3]) to world space: rotate about z by side * tilt
    (simctl's transform: rotate, then translate), then translate to (side * FINGER_X, 0, 0)."""
    a = math.radians(side * FINGER_TILT)
    x, y, z = p
    return [round(x * math.cos(a) - y * math.sin(a) + side * FINGER_X, 6),
            round(x * math.sin(a) + y * math.cos(a), 6), round(z, 6)]


def finger(side):
    return {
        "name": "finger_%s" % ("right" if side > 0 else "left"),
        "mesh": {"type": "bar", "lo": [-FINGER_HALF, -FINGER_LEN, -FINGER_HALF],
                 "hi": [FINGER_HALF, 0, FINGER_HALF], "vertices": [3, 17, 3]},
        "transform": {"translate": [side * FINGER_X, 0, 0], "rotate": [0, 0, side * FINGER_TILT]},
        "material": {"model": "neo_hookean", "mass": 1, "lumping": "uniform",
                     "youngs_modulus": 5e5, "poisson_ratio": 0.2},
    }


def cable(body, side):
    # the inner side is local -x for the finger at +x, local +x for the one at -x
    ys = [-(0.1 + k * (FINGER_LEN - 0.2) / (CABLE_POINTS - 1)) for k in range(CABLE_POINTS)]
    pts = [finger_world(side, (-side * CABLE_OFFSET, y, 0.0)) for y in ys]
    return {"body": body, "compliance": CABLE_COMPLIANCE, "points": pts, "pull": PULL_KEYS}


def scene(name, tetgen):
    raptor = {
        "name": "raptor_standin",
        "mesh": {"type": "file", "path": "../meshes/raptor_standin.obj", "tetgen": tetgen},
        "transform": {"translate": [0, RAPTOR_Y, 0], "rotate": [0, 90, 0], "scale": RAPTOR_SCALE},
        "material": {"model": "neo_hookean", "mass": 10, "lumping": "uniform",
                     "youngs_modulus": 2e4, "poisson_ratio": 0.1},
    }
    pin_box = [-2, -0.5, -2, 2, 1, 2]
    return {
        "name": name,
        "solver": {"dt": 0.01, "frames": FRAMES, "lg_iterations": 5, "global": "auto",
                   "device": "auto"},
        "gravity": [0, -1, 0],
        "bodies": [finger(1), finger(-1), raptor],
        "pins": [{"body": 0, "box": pin_box, "script": SCRIPT},
                 {"body": 1, "box": pin_box, "script": SCRIPT}],
        "cables": [cable(0, 1), cable(1, -1)],
        "contact": {"margin": 0.1, "bodies": True, "mu": 0.5, "cr_iterations": 10},
        "obstacles": [{"name": "floor", "type": "plane", "point": [0, FLOOR_Y, 0],
                       "normal": [0, 1, 0], "mu": 1, "margin": FLOOR_MARGIN,
                       "touches": ["raptor_standin"]}],
        "output": {"every": 10, "formats": ["vtk", "obj", "png", "csv"]},
    }


def num(x):
    """A number as the hand-written scenes give it: 30, 0.25, 5e+05 -> 5e5."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return json.dumps(x)
    if x == int(x) and abs(x) < 1e4:
        return str(int(x))
    return ("%.7g" % x).replace("e+0", "e").replace("e-0", "e-")


def flat(v):
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (json.dumps(k), flat(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(flat(x) for x in v) + "]"
    return num(v)


def dump(v, ind=0, width=100):
    """JSON with an object or array that does not fit on its line opened one member a line
    (the layout of the hand-written scenes)."""
    f = flat(v)
    if len(f) + ind <= width or not isinstance(v, (dict, list)):
        return f
    pad = " " * (ind + 2)
    if isinstance(v, dict):
        items = ["%s%s: %s" % (pad, json.dumps(k), dump(x, ind + 2, width)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
    items = [pad + dump(x, ind + 2, width) for x in v]
    return "[\n" + ",\n".join(items) + "\n" + " " * ind + "]"


def main():
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):  # --help, or an option it lacks
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..",
                                                             "scenes")
    assert abs(script_duration() - (FRAMES - 1) * 0.01) < 1.0, script_duration()
    for name, tetgen in SIZES:
        t = dict(tetgen)
        if not t["max_volume"]:
            del t["max_volume"]
        path = os.path.join(out, name + ".json")
        with open(path, "w") as f:
            f.write(dump(scene(name, t)) + "\n")
        print(path)


if __name__ == "__main__":
    main()

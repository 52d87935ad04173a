#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How far the upper layer of a cloth folded in two lies above its lower layer, per frame.

Reads a run's OBJ frames (DIR/frames/NNNNN.obj, the first body's object). The halves are told
apart in frame 0: the vertices whose x there is above the fold line (--fold, default 0) are the
half that is turned over, the triangles whose three vertices are all below it the other half.
For each written frame, each vertex of the turned half that lies over a triangle of the other
half, seen along y, is measured against that triangle's plane there; the frame's line gives
how many lie over it and the lowest, median and highest heights (m); --every K prints
every K-th written frame (and the last). A negative height is a
vertex below the other layer: through it. The last line is the lowest over all frames.

  scripts/fold_layers.py DIR [--fold X] [--every K]

Exit 0; 2 on bad usage or an unreadable frame. Example (scenes/folding_towel.json):
  build/simctl run scenes/folding_towel.json --out out/towel -q
  scripts/fold_layers.py out/towel --every 50
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import obj_frames  # noqa: E402

PROG = "fold_layers.py"
USAGE = "usage: scripts/fold_layers.py DIR [--fold X] [--every K]"


def heights(V, upper, lower_tris):
    out = []
    for i in upper:
        px, py, pz = V[i]
        for t in lower_tris:
            a, b, c = (V[k] for k in t)
            d = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2])
            if abs(d) < 1e-14:
                continue
            l1 = ((b[2] - c[2]) * (px - c[0]) + (c[0] - b[0]) * (pz - c[2])) / d
            l2 = ((c[2] - a[2]) * (px - c[0]) + (a[0] - c[0]) * (pz - c[2])) / d
            l3 = 1 - l1 - l2
            if min(l1, l2, l3) < 0:
                continue
            out.append(py - (l1 * a[1] + l2 * b[1] + l3 * c[1]))
            break
    return sorted(out)


def main(argv):
    opts, rest = obj_frames.parse(argv, PROG, __doc__, USAGE,
                                  {"--fold": (float, 0.0), "--every": (int, 1)})
    if len(rest) != 1:
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    fold, every = opts["--fold"], opts["--every"]
    paths = obj_frames.frame_names(rest[0], PROG)
    V0, objs = obj_frames.read(paths[0], PROG)
    T = next(iter(objs.values()), [])  # the first body's
    upper = [i for i, v in enumerate(V0) if v[0] > fold]
    lower = [t for t in T if all(V0[k][0] < fold for k in t)]
    lowest = None
    print("frame  over  lowest_m  median_m  highest_m")
    for n, path in enumerate(paths):
        V, _ = obj_frames.read(path, PROG)
        if len(V) != len(V0):
            sys.stderr.write("%s: %s: %d vertices, frame 0 has %d\n" % (PROG, path, len(V), len(V0)))
            sys.exit(2)
        h = heights(V, upper, lower)
        if h:
            lowest = h[0] if lowest is None else min(lowest, h[0])
        if n % every == 0 or n == len(paths) - 1:
            name = os.path.basename(path)[:-4]
            if h:
                print("%s  %4d  %+.5f  %+.5f  %+.5f" % (name, len(h), h[0], h[len(h) // 2], h[-1]))
            else:
                print("%s  %4d  -  -  -" % (name, 0))
    print("lowest over all frames: %s" % ("%+.5f m" % lowest if lowest is not None else "none over"))


if __name__ == "__main__":
    main(sys.argv[1:])

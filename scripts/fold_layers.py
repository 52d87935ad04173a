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
import re
import sys


def usage(code):
    if code == 0:
        sys.stdout.write(__doc__)
    else:
        sys.stderr.write("usage: scripts/fold_layers.py DIR [--fold X] [--every K]\n")
    sys.exit(code)


def load(path):
    verts, tris = [], []
    try:
        with open(path) as f:
            for line in f:
                s = line.split()
                if not s:
                    continue
                if s[0] == "o" and verts:
                    break  # the first object only
                if s[0] == "v":
                    verts.append(tuple(float(t) for t in s[1:4]))
                elif s[0] == "f":
                    tris.append(tuple(int(t.split("/")[0]) - 1 for t in s[1:4]))
    except (OSError, ValueError) as e:
        sys.stderr.write("fold_layers.py: %s: %s\n" % (path, e))
        sys.exit(2)
    return verts, tris


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
    if any(a in ("-h", "--help") for a in argv):
        usage(0)
    fold, every, rest = 0.0, 1, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--fold", "--every") and i + 1 < len(argv):
            try:
                if a == "--fold":
                    fold = float(argv[i + 1])
                else:
                    every = int(argv[i + 1])
                    if every < 1:
                        raise ValueError
            except ValueError:
                sys.stderr.write("fold_layers.py: %s: expected a number, got %s\n" % (a, argv[i + 1]))
                sys.exit(2)
            i += 2
        elif a.startswith("-"):
            sys.stderr.write("fold_layers.py: unknown option %s\n" % a)
            usage(2)
        else:
            rest.append(a)
            i += 1
    if len(rest) != 1:
        usage(2)
    frames = os.path.join(rest[0], "frames")
    names = sorted(n for n in os.listdir(frames) if re.fullmatch(r"\d+\.obj", n)) \
        if os.path.isdir(frames) else []
    if not names:
        sys.stderr.write("fold_layers.py: %s: no OBJ frames (NNNNN.obj)\n" % frames)
        sys.exit(2)
    V0, T = load(os.path.join(frames, names[0]))
    upper = [i for i, v in enumerate(V0) if v[0] > fold]
    lower = [t for t in T if all(V0[k][0] < fold for k in t)]
    lowest = None
    print("frame  over  lowest_m  median_m  highest_m")
    for n, name in enumerate(names):
        V, _ = load(os.path.join(frames, name))
        h = heights(V, upper, lower)
        if h:
            lowest = h[0] if lowest is None else min(lowest, h[0])
        if n % every == 0 or n == len(names) - 1:
            if h:
                print("%s  %4d  %+.5f  %+.5f  %+.5f" % (name[:-4], len(h), h[0], h[len(h) // 2], h[-1]))
            else:
                print("%s  %4d  -  -  -" % (name[:-4], 0))
    print("lowest over all frames: %s" % ("%+.5f m" % lowest if lowest is not None else "none over"))


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How far one body lies above another where their edges cross, seen from above, per frame.

Reads a run's OBJ frames (DIR/frames/NNNNN.obj: one object per body, `o NAME`). For each
written frame, every edge of the upper object's triangles is paired with every edge of the
lower object's whose projections on the x-z plane cross inside both; the upper edge's height
over the lower's there is a crossing's height. Where the bodies touch, the crossing nearest
in height (the least |height|) is the one that tells which lies on which: the frame's line
gives how many cross, that nearest height, and the lowest and highest (m); --every K prints
every K-th written frame (and the last). A negative nearest height is the upper body under
the lower where they meet: it went through (parts hanging below the other body, seen from
above, make the lowest negative too). Two strips crossed at right angles, whose vertices lie
beside each other's, touch only edge to edge (scenes/crossed_ribbons.json): without
contact.edge_edge the upper one falls through. The last line is the lowest nearest height
over all frames.

  scripts/crossing_heights.py DIR --upper NAME --lower NAME [--every K]

Exit 0; 2 on bad usage, an unreadable frame or an object that is not there. Example:
  build/simctl run scenes/crossed_ribbons.json --out out/ribbons -q
  scripts/crossing_heights.py out/ribbons --upper upper --lower lower --every 10
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import obj_frames  # noqa: E402

PROG = "crossing_heights.py"
USAGE = "usage: scripts/crossing_heights.py DIR --upper NAME --lower NAME [--every K]"


def heights(V, upper, lower):
    """The heights of upper's edges over lower's where their x-z projections cross."""
    out = []
    for a, b in upper:
        p, q = V[a], V[b]
        for c, d in lower:
            r, s = V[c], V[d]
            ux, uz = q[0] - p[0], q[2] - p[2]
            vx, vz = s[0] - r[0], s[2] - r[2]
            den = ux * vz - uz * vx
            if abs(den) < 1e-14:
                continue  # parallel seen from above
            wx, wz = r[0] - p[0], r[2] - p[2]
            t = (wx * vz - wz * vx) / den  # along the upper edge
            u = (wx * uz - wz * ux) / den  # along the lower edge
            if 0 < t < 1 and 0 < u < 1:
                out.append((p[1] + t * (q[1] - p[1])) - (r[1] + u * (s[1] - r[1])))
    return out


def main(argv):
    opts, rest = obj_frames.parse(argv, PROG, __doc__, USAGE,
                                  {"--upper": (str, None), "--lower": (str, None),
                                   "--every": (int, 1)})
    if len(rest) != 1 or opts["--upper"] is None or opts["--lower"] is None:
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    paths = obj_frames.frame_names(rest[0], PROG)
    lowest = None  # of the frames' nearest heights
    for k, path in enumerate(paths):
        V, objs = obj_frames.read(path, PROG)
        for name in (opts["--upper"], opts["--lower"]):
            if name not in objs:
                sys.stderr.write("%s: %s: no object %s (has %s)\n"
                                 % (PROG, path, name, ", ".join(objs) or "none"))
                sys.exit(2)
        up, low = (obj_frames.edges(objs[opts[o]]) for o in ("--upper", "--lower"))
        h = sorted(heights(V, up, low))
        near = min(h, key=abs) if h else None
        if h:
            lowest = near if lowest is None else min(lowest, near)
        if k % opts["--every"] and k != len(paths) - 1:
            continue
        name = os.path.basename(path)[:-4]
        if h:
            print("%s  %4d crossing  nearest %+.5f  lowest %+.5f  highest %+.5f"
                  % (name, len(h), near, h[0], h[-1]))
        else:
            print("%s     0 crossing" % name)
    print("lowest nearest height over all frames: %s"
          % ("none cross" if lowest is None else "%+.5f m" % lowest))


if __name__ == "__main__":
    main(sys.argv[1:])

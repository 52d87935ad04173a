#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a body's surface passes through itself, per frame: the edges that cross a triangle of
the same object, neither sharing a vertex with it; with --between, through another body's.

Reads a run's OBJ frames (DIR/frames/NNNNN.obj: one object per body, `o NAME`) and, for each
object of each frame, tests every edge of its triangles against every triangle of it that
does not share a vertex with the edge (a uniform grid of cells as large as the longest edge
keeps it fast). A cloth folded onto itself with contact.self_collision on should show none; a
cloth that passes through itself shows the edges that went through. Vertex-triangle contacts
hold vertices, not edges, so a few crossings where layers meet at an angle are possible
(docs/results.md, Cloth self-collision); contact.edge_edge holds edges too.
With --between, every pair of objects instead: the edges of either that cross a triangle of
the other (two ribbons crossed, scenes/crossed_ribbons.json: none with contact.edge_edge on).
With --obstacles, every body against every obstacle the frame's NNNNN.obstacles.obj draws (a
mesh obstacle posed as at that frame, a plane as its drawn patch): the body's edges through
the obstacle's triangles and the obstacle's edges through the body's (a blade's tip or edge
through a cloth: scenes/cloth_on_knives.json).
With --depth D (metres, default 0) an edge counts only where both its ends lie more than D from
the plane of the triangle it crosses: a body resting on an obstacle with
contact.min_separation 0 has vertices a hair behind it at the solve's tolerance, and
--obstacles counts every edge from them (stick_slip 38 in a frame, soft_box_on_slab 337, at
gaps of 1e-8 to 3e-5 m). --depth does not remove an obstacle's drawn edge that lies in the
plane the body rests on (a face's diagonal) and passes through the bottoms of the body's side
faces, a hair behind that plane: 1 such edge in a frame of those runs at --depth 0.001. An
analytic obstacle's drawing is only a picture of it: pulling_wooper's cylinders, radius 1 with
24 sides, lie up to 8.6 mm inside their surfaces, and its run shows up to 223 edges at --depth
0.001. For a mesh obstacle the drawing is the obstacle: a blade's tip 1.6 mm through a cloth
counts at --depth 0.001.

  scripts/self_intersections.py DIR [--every K] [--object NAME] [--between | --obstacles]
                                [--depth D]

Prints one line per frame tested (every K-th written frame, and the last): the frame, and per
object (with --between or --obstacles: per pair A/B, with --object only the pairs with NAME)
its crossing edges; then the largest count. Exit 0; 2 on bad usage or an unreadable frame (or,
with --obstacles, a frame without its obstacles' file).
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import obj_frames  # noqa: E402

PROG = "self_intersections.py"
USAGE = ("usage: scripts/self_intersections.py DIR [--every K] [--object NAME] "
         "[--between | --obstacles] [--depth D]")


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def crosses(p, q, a, b, c, depth=0.0):
    """Whether segment pq passes through triangle abc (Moller-Trumbore, open on both), with p
    and q each more than depth from its plane where depth > 0."""
    if depth > 0.0:
        n = cross(sub(b, a), sub(c, a))
        ln = dot(n, n) ** 0.5
        if ln == 0.0 or min(abs(dot(n, sub(p, a))), abs(dot(n, sub(q, a)))) <= depth * ln:
            return False
    d = sub(q, p)
    e1, e2 = sub(b, a), sub(c, a)
    h = cross(d, e2)
    det = dot(e1, h)
    if abs(det) < 1e-18:
        return False
    f = 1.0 / det
    s = sub(p, a)
    u = f * dot(s, h)
    if u <= 0.0 or u >= 1.0:
        return False
    qv = cross(s, e1)
    v = f * dot(d, qv)
    if v <= 0.0 or u + v >= 1.0:
        return False
    t = f * dot(e2, qv)
    return 0.0 < t < 1.0


def count(V, tris, targets=None, depth=0.0):
    """The edges of tris that cross a triangle of targets (default: tris itself) that does not
    share a vertex with them, both ends more than depth from its plane."""
    targets = tris if targets is None else targets
    edges = set()
    for t in tris:
        for i in range(3):
            a, b = t[i], t[(i + 1) % 3]
            edges.add((min(a, b), max(a, b)))
    if not tris or not targets:
        return 0
    h = max(max(abs(V[a][k] - V[b][k]) for k in range(3)) for a, b in edges) or 1.0
    grid = {}
    for j, t in enumerate(targets):
        lo = [int(min(V[i][k] for i in t) // h) for k in range(3)]
        hi = [int(max(V[i][k] for i in t) // h) for k in range(3)]
        for x in range(lo[0], hi[0] + 1):
            for y in range(lo[1], hi[1] + 1):
                for z in range(lo[2], hi[2] + 1):
                    grid.setdefault((x, y, z), []).append(j)
    n = 0
    for a, b in edges:
        lo = [int(min(V[a][k], V[b][k]) // h) for k in range(3)]
        hi = [int(max(V[a][k], V[b][k]) // h) for k in range(3)]
        near = set()  # the triangles in the cells the edge's box meets
        for x in range(lo[0], hi[0] + 1):
            for y in range(lo[1], hi[1] + 1):
                for z in range(lo[2], hi[2] + 1):
                    near.update(grid.get((x, y, z), ()))
        n += any(a not in targets[j] and b not in targets[j] and
                 crosses(V[a], V[b], *(V[i] for i in targets[j]), depth) for j in near)
    return n


def with_obstacles(path, V, objs):
    """The frame's vertices and objects with those of its NNNNN.obstacles.obj appended (their
    names prefixed "obstacle:"), and the (body, obstacle) pairs; exit 2 where it is missing."""
    opath = path[:-4] + ".obstacles.obj"
    if not os.path.isfile(opath):
        sys.stderr.write("%s: %s: no obstacles' file (a run with obstacles and OBJ frames "
                         "writes one per frame)\n" % (PROG, opath))
        sys.exit(2)
    OV, oobjs = obj_frames.read(opath, PROG)
    off = len(V)
    V = list(V) + list(OV)
    bodies = list(objs)
    objs = dict(objs)
    for name, tris in oobjs.items():
        objs["obstacle:" + name] = [tuple(i + off for i in t) for t in tris]
    pairs = [(b, "obstacle:" + o) for b in bodies for o in oobjs]
    return V, objs, pairs


def main(argv):
    opts, rest = obj_frames.parse(argv, PROG, __doc__, USAGE,
                                  {"--every": (int, 1), "--object": (str, None),
                                   "--between": (bool, False), "--obstacles": (bool, False),
                                   "--depth": (float, 0.0)})
    if len(rest) != 1 or (opts["--between"] and opts["--obstacles"]):
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    depth = opts["--depth"]
    if not depth >= 0.0 or depth == float("inf"):
        sys.stderr.write("%s: --depth: expected a distance >= 0 in metres, got %s\n"
                         % (PROG, depth))
        sys.exit(2)
    every, only, between = opts["--every"], opts["--object"], opts["--between"]
    obstacles = opts["--obstacles"]
    paths = obj_frames.frame_names(rest[0], PROG)
    most = 0
    for k, path in enumerate(paths):
        if k % every and k != len(paths) - 1:
            continue
        V, objs = obj_frames.read(path, PROG)
        parts = []
        names = list(objs)
        if obstacles:
            V, objs, pairs = with_obstacles(path, V, objs)
        elif between:
            pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        else:
            pairs = [(o, o) for o in names]
        for a, b in pairs:
            if only is None or only in (a, b):
                c = count(V, objs[a], None, depth) if a == b else \
                    count(V, objs[a], objs[b], depth) + count(V, objs[b], objs[a], depth)
                most = max(most, c)
                parts.append("%s %d" % (a if a == b else a + "/" + b, c))
        print("%s  %s" % (os.path.basename(path)[:-4], ", ".join(parts) if parts else "no such object"))
    print("most crossing edges in a frame: %d" % most)


if __name__ == "__main__":
    main(sys.argv[1:])

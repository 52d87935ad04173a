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
0.001 (scripts/obstacle_depths.py measures bodies against the shapes). For a mesh obstacle the
drawing is the obstacle: a blade's tip 1.6 mm through a cloth counts at --depth 0.001.
With --deep (with --between or --obstacles) a pair also gets how far its crossing edges reach
into the other's surface where that surface is closed (a solid's, a mesh obstacle's; not a
cloth's or a plane's patch): along each such edge, the stretches between the crossing where it
enters and the one where it leaves (or its end, where that lies inside), 8 points on each and
the ends inside, their largest distance to the surface; a last line names the deepest frame.
A count alone does not tell edges that graze a surface from edges that went through it: bodies
held at contact.min_separation 0 cross wherever an edge touches. grabbing_raptor, vertex-
triangle contacts alone: up to 103 edges in a frame, the fingers' box edges pressed 4.03 mm
into the raptor between its vertices; with contact.edge_edge, 0.02 mm (scripts/edge_pairs.sh).

  scripts/self_intersections.py DIR [--every K] [--object NAME] [--between | --obstacles]
                                [--depth D] [--deep]

Prints one line per frame tested (every K-th written frame, and the last): the frame, and per
object (with --between or --obstacles: per pair A/B, with --object only the pairs with NAME)
its crossing edges (with --deep, and how deep); then the largest count. Exit 0; 2 on bad usage
or an unreadable frame (or, with --obstacles, a frame without its obstacles' file).
"""
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import obj_frames  # noqa: E402

PROG = "self_intersections.py"
USAGE = ("usage: scripts/self_intersections.py DIR [--every K] [--object NAME] "
         "[--between | --obstacles] [--depth D] [--deep]")


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


def grid_of(V, targets, h):
    """A uniform grid of cells of side h: cell -> the indices of targets whose boxes meet it."""
    grid = {}
    for j, t in enumerate(targets):
        lo = [int(min(V[i][k] for i in t) // h) for k in range(3)]
        hi = [int(max(V[i][k] for i in t) // h) for k in range(3)]
        for x in range(lo[0], hi[0] + 1):
            for y in range(lo[1], hi[1] + 1):
                for z in range(lo[2], hi[2] + 1):
                    grid.setdefault((x, y, z), []).append(j)
    return grid


def near(V, grid, h, pts, grow=0):
    """The target indices in the cells that the box of pts, grown by grow cells, meets."""
    lo = [int(min(p[k] for p in pts) // h) - grow for k in range(3)]
    hi = [int(max(p[k] for p in pts) // h) + grow for k in range(3)]
    out = set()
    for x in range(lo[0], hi[0] + 1):
        for y in range(lo[1], hi[1] + 1):
            for z in range(lo[2], hi[2] + 1):
                out.update(grid.get((x, y, z), ()))
    return out


def crossing(V, tris, targets=None, depth=0.0):
    """The edges of tris that cross a triangle of targets (default: tris itself) that does not
    share a vertex with them, both ends more than depth from its plane; with the grid and cell
    size they were found with."""
    targets = tris if targets is None else targets
    edges = obj_frames.edges(tris)
    if not tris or not targets:
        return [], {}, 1.0
    h = max(max(abs(V[a][k] - V[b][k]) for k in range(3)) for a, b in edges) or 1.0
    grid = grid_of(V, targets, h)
    found = [(a, b) for a, b in edges
             if any(a not in targets[j] and b not in targets[j] and
                    crosses(V[a], V[b], *(V[i] for i in targets[j]), depth)
                    for j in near(V, grid, h, (V[a], V[b])))]
    return found, grid, h


def count(V, tris, targets=None, depth=0.0):
    """The number of crossing edges (crossing)."""
    return len(crossing(V, tris, targets, depth)[0])


def closed(tris):
    """Whether tris is a closed surface: every edge in exactly two triangles."""
    uses = {}
    for t in tris:
        for i in range(3):
            e = (min(t[i], t[(i + 1) % 3]), max(t[i], t[(i + 1) % 3]))
            uses[e] = uses.get(e, 0) + 1
    return bool(uses) and all(n == 2 for n in uses.values())


def point_triangle(p, a, b, c):
    """The distance from p to triangle abc."""
    n = cross(sub(b, a), sub(c, a))
    nn = dot(n, n)
    if nn > 0.0:
        d = dot(n, sub(p, a)) / nn
        q = (p[0] - d * n[0], p[1] - d * n[1], p[2] - d * n[2])
        if all(dot(n, cross(sub(y, x), sub(q, x))) >= 0.0 for x, y in ((a, b), (b, c), (c, a))):
            return abs(d) * nn ** 0.5

    def seg(x, y):
        e = sub(y, x)
        ee = dot(e, e)
        t = 0.0 if ee == 0.0 else max(0.0, min(1.0, dot(sub(p, x), e) / ee))
        r = sub(p, (x[0] + t * e[0], x[1] + t * e[1], x[2] + t * e[2]))
        return dot(r, r) ** 0.5
    return min(seg(a, b), seg(b, c), seg(c, a))


def outward(V, tris):
    """+1 where the closed surface tris faces outward (positive enclosed volume), else -1."""
    vol = sum(dot(V[t[0]], cross(V[t[1]], V[t[2]])) for t in tris)
    return 1.0 if vol >= 0.0 else -1.0


DEEP_SAMPLES = 8  # points on each stretch of an edge inside the target, evenly between its ends


def inside(x, V, tris):
    """Whether x lies inside the closed surface tris: its winding number (the triangles' solid
    angles seen from x, Van Oosterom and Strackee, over 4 pi) is +-1, not 0."""
    total = 0.0
    for t in tris:
        a, b, c = (sub(V[i], x) for i in t)
        la, lb, lc = (dot(v, v) ** 0.5 for v in (a, b, c))
        total += 2.0 * math.atan2(dot(a, cross(b, c)),
                                  la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la)
    return abs(total) > 2.0 * math.pi


def deepest(V, edges, targets, grid, h):
    """How far the crossing edges reach into the closed surface targets: over the stretches of
    each edge between its entering and leaving crossings (an edge's end inside where its first
    crossing leaves, or its last enters, and its winding number says so), the largest distance to
    the surface of DEEP_SAMPLES points on each and of the edge's ends that lie inside."""
    sign = outward(V, targets)
    most = 0.0
    for a, b in edges:
        p, q = V[a], V[b]
        d = sub(q, p)
        hits = []  # (t along pq, +1 entering, -1 leaving)
        for j in near(V, grid, h, (p, q)):
            t = targets[j]
            if a in t or b in t or not crosses(p, q, *(V[i] for i in t)):
                continue
            n = cross(sub(V[t[1]], V[t[0]]), sub(V[t[2]], V[t[0]]))
            s = dot(n, sub(V[t[0]], p)) / dot(n, d)
            hits.append((s, 1 if sign * dot(n, d) < 0.0 else -1))
        hits.sort()
        spans, start = [], None
        for s, kind in hits:
            if kind > 0:
                start = s
            else:
                spans.append((0.0 if start is None else start, s))
                start = None
        if start is not None:
            spans.append((start, 1.0))
        # an end taken to be inside (its first crossing leaves, or its last enters) is checked:
        # a crossing through a triangle's edge or corner, which neither triangle counts, would
        # otherwise pair the wrong ones
        spans = [(t0, t1) for t0, t1 in spans
                 if (t0 > 0.0 or inside(p, V, targets)) and (t1 < 1.0 or inside(q, V, targets))]
        cand = [targets[j] for j in near(V, grid, h, (p, q), grow=2)]
        for t0, t1 in spans:
            us = [t0 + (t1 - t0) * k / (DEEP_SAMPLES + 1) for k in range(1, DEEP_SAMPLES + 1)]
            for u in us + [t for t in (t0, t1) if t in (0.0, 1.0)]:  # an end inside too
                x = (p[0] + u * d[0], p[1] + u * d[1], p[2] + u * d[2])
                most = max(most, min(point_triangle(x, *(V[i] for i in t)) for t in cand))
    return most


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
                                   "--depth": (float, 0.0), "--deep": (bool, False)})
    if len(rest) != 1 or (opts["--between"] and opts["--obstacles"]) or \
            (opts["--deep"] and not (opts["--between"] or opts["--obstacles"])):
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    depth = opts["--depth"]
    if not depth >= 0.0 or depth == float("inf"):
        sys.stderr.write("%s: --depth: expected a distance >= 0 in metres, got %s\n"
                         % (PROG, depth))
        sys.exit(2)
    every, only, between = opts["--every"], opts["--object"], opts["--between"]
    obstacles, deep = opts["--obstacles"], opts["--deep"]
    paths = obj_frames.frame_names(rest[0], PROG)
    most, worst, closed_seen = 0, None, False  # worst: (deepest, frame, pair)
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
            if only is not None and only not in (a, b):
                continue
            if a == b:
                c, reach = count(V, objs[a], None, depth), None
            else:
                c, reach = 0, None
                for x, y in ((a, b), (b, a)):  # x's edges through y's triangles
                    edges, grid, h = crossing(V, objs[x], objs[y], depth)
                    c += len(edges)
                    if deep and closed(objs[y]):
                        r = deepest(V, edges, objs[y], grid, h)
                        reach = r if reach is None else max(reach, r)
            most = max(most, c)
            name = a if a == b else a + "/" + b
            parts.append("%s %d" % (name, c) if reach is None else
                         "%s %d (%.2f mm deep)" % (name, c, 1e3 * reach))
            closed_seen |= reach is not None
            if reach is not None and c and (worst is None or reach > worst[0]):
                worst = (reach, os.path.basename(path)[:-4], name)
        print("%s  %s" % (os.path.basename(path)[:-4],
                          ", ".join(parts) if parts else "no such object"))
    print("most crossing edges in a frame: %d" % most)
    if deep:
        print("deepest: %s" % ("none (no closed surface among the pairs)" if not closed_seen else
                               "none (no edge crosses a closed surface)" if worst is None else
                               "%.2f mm (frame %s, %s)" % (1e3 * worst[0], worst[1], worst[2])))


if __name__ == "__main__":
    main(sys.argv[1:])

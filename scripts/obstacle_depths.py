# SPDX-License-Identifier: MIT
"""How deep the bodies' surfaces reach into the run's analytic obstacles, per OBJ frame: at
their vertices, which the contacts hold, and along their edges, which they do not.

Reads a run's OBJ frames (DIR/frames/NNNNN.obj: one object per body, `o NAME`) and the
obstacles of the scene it ran (DIR/summary.json's resolved_scene), and for each body and each
analytic obstacle that touches it (plane, box, sphere, capsule, cylinder, torus) takes the
obstacle's signed distance (phi, negative inside, as core/contact/sdf.h) at every vertex of
the body's surface and its least along every edge (a golden-section search, phi being convex
along a line for every type but the torus; for a torus the least of 17 points and a search
round it). A contact holds a vertex at contact.min_separation or more outside, but an edge
between two held vertices can pass through the obstacle: an edge of length e over a cylinder
of radius R dips e^2 / (8 R) into it, unless contact.obstacle_edges holds the edge too
(scripts/obstacle_edges.sh runs scenes with it off and on). scripts/self_intersections.py
--obstacles cannot show this on analytic obstacles: their drawings (NNNNN.obstacles.obj) are
polygons inside them.
An obstacle that moves (a script) is taken where the frame drew it: its frame's
NNNNN.obstacles.obj gives its local frame as drawn and at rest (`# frame` and `# rest` after its
`o` line), and a point x is measured at rest(frame^-1(x)) in the scene's obstacle; a run
without those drawings (no "obj" among its formats) leaves it out. Mesh obstacles are not
checked (self_intersections.py --obstacles --deep measures those); a line names each left out.

  scripts/obstacle_depths.py DIR [--every K]

Prints one line per frame tested (every K-th written frame, and the last): the frame, and per
pair BODY/OBSTACLE with something inside the depth of its deepest vertex and of its deepest
edge point (mm), or "none inside"; then the deepest of each over the frames, with its frame and
pair (and the edge's length). Exit 0; 2
on bad usage, an unreadable frame or a run without its summary.json.
"""
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import obj_frames  # noqa: E402

PROG = "obstacle_depths.py"
USAGE = "usage: scripts/obstacle_depths.py DIR [--every K]"
ANALYTIC = ("plane", "box", "sphere", "capsule", "cylinder", "torus")
SEARCH_STEPS = 60  # golden-section steps along an edge: 0.618^60 of its length
TORUS_POINTS = 17  # points along an edge before a torus's search


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def unit(a):
    n = math.sqrt(dot(a, a))
    return (a[0] / n, a[1] / n, a[2] / n)


def box_axes(rotate):
    """The columns of R = Rz Ry Rx (degrees), the box's local axes in world space."""
    ax, ay, az = (math.radians(a) for a in rotate)
    cx, sx, cy, sy, cz, sz = (math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay),
                              math.cos(az), math.sin(az))
    R = ((cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx),
         (sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx),
         (-sy, cy * sx, cy * cx))
    return [(R[0][j], R[1][j], R[2][j]) for j in range(3)]


def sdf(o):
    """phi(x) of analytic obstacle o (the resolved scene's entry), negative inside."""
    kind = o["type"]
    if kind == "plane":
        p, n = o["point"], unit(o["normal"])
        return lambda x: dot(n, sub(x, p))
    if kind == "sphere":
        c, r = o["center"], o["radius"]
        return lambda x: math.sqrt(dot(sub(x, c), sub(x, c))) - r
    if kind == "capsule":
        a, b, r = o["a"], o["b"], o["radius"]
        ab = sub(b, a)
        ll = dot(ab, ab)

        def capsule(x):
            t = 0.0 if ll == 0.0 else min(1.0, max(0.0, dot(sub(x, a), ab) / ll))
            d = sub(x, (a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]))
            return math.sqrt(dot(d, d)) - r
        return capsule
    if kind == "box":
        c, half, axes = o["center"], o["half_extents"], box_axes(o.get("rotate", [0, 0, 0]))

        def box(x):
            d = sub(x, c)
            q = [abs(dot(axes[k], d)) - half[k] for k in range(3)]
            out = math.sqrt(sum(max(v, 0.0) ** 2 for v in q))
            return out + min(max(q), 0.0)
        return box
    p, axis = o["point"] if kind == "cylinder" else o["center"], unit(o["axis"])

    def along_across(x):
        d = sub(x, p)
        t = dot(d, axis)
        r = sub(d, (t * axis[0], t * axis[1], t * axis[2]))
        return t, math.sqrt(dot(r, r))
    if kind == "cylinder":
        r, h = o["radius"], 0.5 * o.get("height", 0.0)

        def cylinder(x):
            t, rho = along_across(x)
            if h <= 0.0:
                return rho - r
            dx, dy = rho - r, abs(t) - h
            return min(max(dx, dy), 0.0) + math.hypot(max(dx, 0.0), max(dy, 0.0))
        return cylinder
    major, minor = o["major"], o["minor"]

    def torus(x):
        t, rho = along_across(x)
        return math.hypot(rho - major, t) - minor
    return torus


def poses(path):
    """{obstacle name: (frame, rest)} from an obstacles.obj file's `# frame` and `# rest`
    comments, each (origin, rotation rows); {} where the file is missing."""
    out, name = {}, None
    try:
        with open(path) as f:
            for line in f:
                s = line.split()
                if s[:1] == ["o"]:
                    name = s[1] if len(s) > 1 else "object"
                elif len(s) == 14 and s[0] == "#" and s[1] in ("frame", "rest") and name:
                    v = [float(t) for t in s[2:]]
                    out.setdefault(name, {})[s[1]] = (v[:3], (v[3:6], v[6:9], v[9:12]))
    except OSError:
        return {}
    return {k: (p["frame"], p["rest"]) for k, p in out.items() if len(p) == 2}


def moved(phi, pose):
    """phi of the obstacle drawn at pose (frame, rest): x taken back to rest(frame^-1(x))."""
    (p, R), (p0, R0) = pose

    def at(x):
        d = sub(x, p)
        local = [R[0][j] * d[0] + R[1][j] * d[1] + R[2][j] * d[2] for j in range(3)]
        return phi(tuple(dot(R0[i], local) + p0[i] for i in range(3)))
    return at


def least_along(phi, p, q, convex, ends):
    """The least phi on segment pq, ends the lesser of phi(p) and phi(q)."""
    def at(u):
        return phi((p[0] + u * (q[0] - p[0]), p[1] + u * (q[1] - p[1]), p[2] + u * (q[2] - p[2])))
    lo, hi = 0.0, 1.0
    best = ends
    if not convex:  # start from the least of TORUS_POINTS points
        us = [k / (TORUS_POINTS - 1) for k in range(TORUS_POINTS)]
        k = min(range(TORUS_POINTS), key=lambda i: at(us[i]))
        lo, hi = us[max(k - 1, 0)], us[min(k + 1, TORUS_POINTS - 1)]
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = at(a), at(b)
    for _ in range(SEARCH_STEPS):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = at(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = at(b)
    return min(best, fa, fb)


def depths(V, tris, phi, convex):
    """(deepest vertex, deepest edge point, that edge's length) of the surface tris in the
    obstacle, m (0: none inside)."""
    verts = {i for t in tris for i in t}
    val = {i: phi(V[i]) for i in verts}
    vdeep = max(0.0, -min(val.values())) if val else 0.0
    edeep, elen = 0.0, 0.0
    for a, b in obj_frames.edges(tris):
        d = sub(V[a], V[b])
        length = math.sqrt(dot(d, d))
        if val[a] + val[b] > length:  # phi is 1-Lipschitz: the segment stays outside
            continue
        deep = -least_along(phi, V[a], V[b], convex, min(val[a], val[b]))
        if deep > edeep:
            edeep, elen = deep, length
    return vdeep, edeep, elen


def main(argv):
    opts, rest = obj_frames.parse(argv, PROG, __doc__, USAGE, {"--every": (int, 1)})
    if len(rest) != 1:
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    spath = os.path.join(rest[0], "summary.json")
    try:
        with open(spath) as f:
            obstacles = json.load(f)["resolved_scene"].get("obstacles", [])
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write("%s: %s: expected a run's summary.json with its resolved_scene (%s)\n"
                         % (PROG, spath, e.strerror if isinstance(e, OSError) else
                            "no resolved_scene" if isinstance(e, KeyError) else "not JSON"))
        sys.exit(2)
    paths = obj_frames.frame_names(rest[0], PROG)
    checked = []
    for o in obstacles:
        if o["type"] not in ANALYTIC:
            print("not checked: %s, a mesh obstacle (scripts/self_intersections.py "
                  "--obstacles --deep)" % o["name"])
        else:
            checked.append((o["name"], sdf(o), o["type"] != "torus", o.get("touches"),
                            bool(o.get("script"))))
    worst = {"vertex": None, "edge": None}  # (depth, frame, pair)
    unposed = set()  # scripted obstacles a frame did not draw (named once)
    pairs = 0
    for k, path in enumerate(paths):
        if k % opts["--every"] and k != len(paths) - 1:
            continue
        V, objs = obj_frames.read(path, PROG)
        frame = os.path.basename(path)[:-4]
        drawn = poses(path[:-4] + ".obstacles.obj")
        parts = []
        for body, tris in objs.items():
            for name, phi, convex, touches, scripted in checked:
                if touches is not None and body not in touches:
                    continue
                if scripted:
                    if name not in drawn:
                        if name not in unposed:
                            print("not checked: %s, it moves (a script) and %s draws it nowhere"
                                  % (name, os.path.basename(path)[:-4] + ".obstacles.obj"))
                            unposed.add(name)
                        continue
                    phi = moved(phi, drawn[name])
                vd, ed, el = depths(V, tris, phi, convex)
                pair = body + "/" + name
                pairs += 1
                if vd > 0.0 or ed > 0.0:
                    parts.append("%s vertex %.2f edge %.2f" % (pair, 1e3 * vd, 1e3 * ed))
                for what, d, note in (("vertex", vd, ""), ("edge", ed, ", an edge %.1f mm long"
                                                                     % (1e3 * el))):
                    if d > 0.0 and (worst[what] is None or d > worst[what][0]):
                        worst[what] = (d, frame, pair + note)
        print("%s  %s" % (frame, ", ".join(parts) if parts else "none inside"))
    for what in ("vertex", "edge"):
        w = worst[what]
        print("deepest %s: %s" % ("vertex" if what == "vertex" else "edge point",
                                  "none (no pair checked)" if not pairs else
                                  "none inside" if w is None else
                                  "%.2f mm (frame %s, %s)" % (1e3 * w[0], w[1], w[2])))


if __name__ == "__main__":
    main(sys.argv[1:])

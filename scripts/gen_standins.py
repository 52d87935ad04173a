#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the procedural STAND-IN surfaces for the paper's Table 2 rows to meshes/.

The paper's raptor, wooper and gingerbread-man meshes are not public, so simctl uses
stand-ins of similar shape whose TetGen meshes have the table's vertex and tet counts
(within 5%; switches in scripts/paper_tables.sh). Each stand-in is an implicit solid
(smooth union of round cones and ellipsoids, or an extruded 2D outline) turned into a
closed, manifold, outward-oriented triangle surface by surface nets on a regular grid.
Also writes the icosphere used for the ball rows.

Pure Python 3 (no numpy). The OBJ files are committed, so `make tables` needs no Python;
run this only to change a stand-in:   python3 scripts/gen_standins.py [OUTDIR]
"""
import math
import os
import sys

# ---------------------------------------------------------------- implicit primitives


def smin(a, b, k):
    """Polynomial smooth minimum (exact min when |a - b| >= k)."""
    if k <= 0:
        return min(a, b)
    h = max(k - abs(a - b), 0.0) / k
    return min(a, b) - h * h * k * 0.25


class RoundCone:
    """Segment a-b swept by a sphere whose radius goes linearly from ra to rb."""

    def __init__(self, a, b, ra, rb):
        self.a, self.b, self.ra, self.rb = a, b, ra, rb
        self.d = [b[i] - a[i] for i in range(3)]
        self.dd = sum(c * c for c in self.d)
        r = max(ra, rb)
        self.lo = [min(a[i], b[i]) - r for i in range(3)]
        self.hi = [max(a[i], b[i]) + r for i in range(3)]

    def __call__(self, x, y, z):
        a, d = self.a, self.d
        px, py, pz = x - a[0], y - a[1], z - a[2]
        t = (px * d[0] + py * d[1] + pz * d[2]) / self.dd
        t = 0.0 if t < 0 else (1.0 if t > 1 else t)
        qx, qy, qz = px - t * d[0], py - t * d[1], pz - t * d[2]
        return math.sqrt(qx * qx + qy * qy + qz * qz) - (self.ra + t * (self.rb - self.ra))


class Ellipsoid:
    """Approximate distance to an axis-aligned ellipsoid (exact on the surface)."""

    def __init__(self, c, r):
        self.c, self.r = c, r
        self.lo = [c[i] - r[i] for i in range(3)]
        self.hi = [c[i] + r[i] for i in range(3)]
        self.rmin = min(r)

    def __call__(self, x, y, z):
        c, r = self.c, self.r
        u, v, w = (x - c[0]) / r[0], (y - c[1]) / r[1], (z - c[2]) / r[2]
        return (math.sqrt(u * u + v * v + w * w) - 1.0) * self.rmin


class Extruded:
    """A 2D solid (union of discs and 2D capsules in x-y) extruded to |z| <= t/2, with
    its rim rounded by radius rr."""

    def __init__(self, discs, caps, t, rr, k):
        self.discs, self.caps, self.t, self.rr, self.k = discs, caps, t, rr, k
        lo, hi = [1e9, 1e9], [-1e9, -1e9]
        for (cx, cy, r) in discs:
            lo = [min(lo[0], cx - r), min(lo[1], cy - r)]
            hi = [max(hi[0], cx + r), max(hi[1], cy + r)]
        for (ax, ay, bx, by, r) in caps:
            lo = [min(lo[0], ax - r, bx - r), min(lo[1], ay - r, by - r)]
            hi = [max(hi[0], ax + r, bx + r), max(hi[1], ay + r, by + r)]
        self.lo = [lo[0], lo[1], -t / 2]
        self.hi = [hi[0], hi[1], t / 2]

    def d2(self, x, y):
        d = 1e9
        for (cx, cy, r) in self.discs:
            d = smin(d, math.hypot(x - cx, y - cy) - r, self.k)
        for (ax, ay, bx, by, r) in self.caps:
            dx, dy = bx - ax, by - ay
            t = ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)
            t = 0.0 if t < 0 else (1.0 if t > 1 else t)
            d = smin(d, math.hypot(x - ax - t * dx, y - ay - t * dy) - r, self.k)
        return d

    def __call__(self, x, y, z):
        rr = self.rr
        a = self.d2(x, y) + rr
        b = abs(z) - self.t / 2 + rr
        return math.hypot(max(a, 0.0), max(b, 0.0)) + min(max(a, b), 0.0) - rr


# ---------------------------------------------------------------- the shapes (metres, y up)


def raptor():
    """Stand-in for the paper's raptor: torso, S-shaped neck, head with snout, a long tail
    tapering to a thin tip, two legs (thigh, shin, foot with a toe) and two small arms."""
    P = [Ellipsoid((0.0, 0.45, 0.0), (0.19, 0.11, 0.095))]
    P.append(RoundCone((0.12, 0.49, 0.0), (0.22, 0.62, 0.0), 0.065, 0.045))
    P.append(RoundCone((0.22, 0.62, 0.0), (0.27, 0.72, 0.0), 0.045, 0.04))
    P.append(Ellipsoid((0.31, 0.75, 0.0), (0.085, 0.055, 0.045)))
    P.append(RoundCone((0.34, 0.74, 0.0), (0.45, 0.72, 0.0), 0.04, 0.022))
    tail = [(-0.14, 0.47, 0.0, 0.08), (-0.33, 0.53, 0.0, 0.05), (-0.52, 0.57, 0.0, 0.03),
            (-0.70, 0.58, 0.0, 0.016)]
    for (a, b) in zip(tail, tail[1:]):
        P.append(RoundCone(a[:3], b[:3], a[3], b[3]))
    for s in (-1, 1):
        z = 0.065 * s
        P.append(RoundCone((-0.02, 0.42, z), (0.04, 0.26, z * 1.1), 0.06, 0.036))
        P.append(RoundCone((0.04, 0.26, z * 1.1), (-0.03, 0.07, z * 1.1), 0.032, 0.022))
        P.append(RoundCone((-0.06, 0.045, z * 1.1), (0.08, 0.03, z * 1.1), 0.026, 0.018))
        P.append(RoundCone((0.08, 0.03, z * 1.1), (0.13, 0.02, z * 1.25), 0.018, 0.012))
        P.append(RoundCone((0.12, 0.45, z * 0.8), (0.19, 0.36, z * 1.5), 0.026, 0.019))
        P.append(RoundCone((0.19, 0.36, z * 1.5), (0.24, 0.33, z * 1.5), 0.019, 0.015))
    return P, 0.03


def wooper():
    """Stand-in for the paper's wooper: a squat round body with a big head, four stubby
    legs, a flat vertical tail fin and three gill stalks on each side of the head."""
    P = [Ellipsoid((0.0, 0.26, 0.0), (0.27, 0.22, 0.22))]
    P.append(Ellipsoid((0.13, 0.42, 0.0), (0.2, 0.17, 0.2)))
    P.append(Ellipsoid((-0.33, 0.22, 0.0), (0.19, 0.13, 0.06)))
    for sx in (-1, 1):
        for sz in (-1, 1):
            x, z = 0.13 * sx, 0.13 * sz
            P.append(RoundCone((x, 0.16, z), (x * 1.05, 0.03, z * 1.2), 0.07, 0.055))
    for sz in (-1, 1):
        for (dy, dx) in ((0.12, -0.03), (0.0, 0.0), (-0.12, 0.03)):
            a = (0.1, 0.45 + dy * 0.5, 0.17 * sz)
            b = (0.1 + dx, 0.45 + dy * 1.2, 0.34 * sz)
            P.append(RoundCone(a, b, 0.045, 0.032))
    return P, 0.04


def gingerbread():
    """Stand-in for the paper's gingerbread man: a flat outline (head, body, arms, legs)
    extruded to a slab with a rounded rim."""
    discs = [(0.0, 0.78, 0.17), (0.0, 0.45, 0.2)]
    caps = [(0.0, 0.6, 0.0, 0.3, 0.19),
            (-0.12, 0.54, -0.4, 0.6, 0.085), (0.12, 0.54, 0.4, 0.6, 0.085),
            (-0.08, 0.3, -0.2, 0.0, 0.095), (0.08, 0.3, 0.2, 0.0, 0.095)]
    return [Extruded(discs, caps, 0.12, 0.03, 0.04)], 0.0


def icosphere(subdivisions, radius=1.0):
    g = (1 + 5 ** 0.5) / 2
    V = [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g), (0, 1, g), (0, -1, -g),
         (0, 1, -g), (g, 0, -1), (g, 0, 1), (-g, 0, -1), (-g, 0, 1)]
    V = [tuple(radius * c / math.sqrt(1 + g * g) for c in v) for v in V]
    F = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        mid = {}

        def m(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                p = [(V[a][i] + V[b][i]) / 2 for i in range(3)]
                n = math.sqrt(sum(c * c for c in p))
                V.append(tuple(radius * c / n for c in p))
                mid[key] = len(V) - 1
            return mid[key]

        NF = []
        for (a, b, c) in F:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            NF += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        F = NF
    return V, F


# ---------------------------------------------------------------- surface nets


def surface_nets(prims, k, h, shift=0.0):
    """Closed surface {f = 0} of f = smooth union of prims, on a grid of spacing h."""
    lo = [min(p.lo[i] for p in prims) - 3 * h - k + shift * h * (0.31, 0.17, 0.23)[i]
          for i in range(3)]
    hi = [max(p.hi[i] for p in prims) + 3 * h + k for i in range(3)]
    n = [int(math.ceil((hi[i] - lo[i]) / h)) + 1 for i in range(3)]
    nx, ny, nz = n
    margin = k + 3 * h
    big = 1e9
    f = [big] * (nx * ny * nz)
    for p in prims:
        i0 = [max(0, int((p.lo[a] - margin - lo[a]) / h)) for a in range(3)]
        i1 = [min(n[a] - 1, int((p.hi[a] + margin - lo[a]) / h) + 1) for a in range(3)]
        for i in range(i0[0], i1[0] + 1):
            x = lo[0] + i * h
            for j in range(i0[1], i1[1] + 1):
                y = lo[1] + j * h
                base = (i * ny + j) * nz
                for kk in range(i0[2], i1[2] + 1):
                    idx = base + kk
                    f[idx] = smin(f[idx], p(x, y, lo[2] + kk * h), k)
    # no value exactly on the surface: every grid edge crosses it at most once, cleanly
    eps = 1e-9 * h
    for idx in range(len(f)):
        if f[idx] == 0.0:
            f[idx] = eps
    acc = {}  # cell -> [sx, sy, sz, count]
    quads = []
    sy, sx = nz, ny * nz
    strides = (sx, sy, 1)
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for kk in range(1, nz - 1):
                idx = i * sx + j * sy + kk
                f0 = f[idx]
                for axis in range(3):
                    idx1 = idx + strides[axis]
                    f1 = f[idx1]
                    if (f0 < 0) == (f1 < 0):
                        continue
                    t = f0 / (f0 - f1)
                    p = [lo[0] + i * h, lo[1] + j * h, lo[2] + kk * h]
                    p[axis] += t * h
                    # the four cells around the edge, counter-clockwise about +axis
                    c = [i, j, kk]
                    u, v = (axis + 1) % 3, (axis + 2) % 3
                    cells = []
                    for (du, dv) in ((-1, -1), (0, -1), (0, 0), (-1, 0)):
                        cc = list(c)
                        cc[u] += du
                        cc[v] += dv
                        cells.append(tuple(cc))
                    for cc in cells:
                        a = acc.get(cc)
                        if a is None:
                            acc[cc] = [p[0], p[1], p[2], 1]
                        else:
                            a[0] += p[0]
                            a[1] += p[1]
                            a[2] += p[2]
                            a[3] += 1
                    if f0 > 0:  # outside -> inside along +axis: the normal points to -axis
                        cells.reverse()
                    quads.append(cells)
    vid = {}
    V = []
    for cc in sorted(acc):
        a = acc[cc]
        vid[cc] = len(V)
        V.append((a[0] / a[3], a[1] / a[3], a[2] / a[3]))
    F = []
    for q in quads:
        a, b, c, d = (vid[x] for x in q)
        if dist2(V[a], V[c]) <= dist2(V[b], V[d]):
            F += [(a, b, c), (a, c, d)]
        else:
            F += [(a, b, d), (b, c, d)]
    return V, F


def field(prims, k):
    """f(x, y, z) of the smooth union, evaluated only over primitives near the point."""
    pad = k + 1e-9

    def f(x, y, z):
        v = 1e9
        for p in prims:
            if (p.lo[0] - pad <= x <= p.hi[0] + pad and p.lo[1] - pad <= y <= p.hi[1] + pad
                    and p.lo[2] - pad <= z <= p.hi[2] + pad):
                v = smin(v, p(x, y, z), k)
        return v

    return f


def smooth_project(V, F, prims, k, h, iterations):
    """Umbrella smoothing, each step followed by two Newton steps back onto f = 0
    (moves limited to h/2): evens out the triangles surface nets leaves near creases."""
    f = field(prims, k)
    nb = [set() for _ in V]
    for (a, b, c) in F:
        nb[a].update((b, c))
        nb[b].update((a, c))
        nb[c].update((a, b))
    V = [list(v) for v in V]
    e = 1e-3 * h
    for _ in range(iterations):
        W = []
        for i, v in enumerate(V):
            m = [sum(V[j][d] for j in nb[i]) / len(nb[i]) for d in range(3)]
            for _newton in range(2):
                f0 = f(*m)
                gx = (f(m[0] + e, m[1], m[2]) - f(m[0] - e, m[1], m[2])) / (2 * e)
                gy = (f(m[0], m[1] + e, m[2]) - f(m[0], m[1] - e, m[2])) / (2 * e)
                gz = (f(m[0], m[1], m[2] + e) - f(m[0], m[1], m[2] - e)) / (2 * e)
                g2 = gx * gx + gy * gy + gz * gz
                if g2 < 1e-12:
                    break
                s = -f0 / g2
                step = [s * gx, s * gy, s * gz]
                n = math.sqrt(sum(c * c for c in step))
                if n > 0.5 * h:
                    step = [c * 0.5 * h / n for c in step]
                m = [m[d] + step[d] for d in range(3)]
            W.append(m)
        V = W
    return [tuple(v) for v in V]


def dist2(p, q):
    return sum((p[i] - q[i]) ** 2 for i in range(3))


# ---------------------------------------------------------------- checks and output


def check_closed_manifold(V, F, name):
    """Every edge in exactly two triangles with opposite directions, every vertex's
    triangles form one fan, one component, Euler characteristic 2 (genus 0), outward."""
    half = {}
    for t, (a, b, c) in enumerate(F):
        if len({a, b, c}) < 3:
            raise SystemExit("%s: degenerate triangle %d" % (name, t))
        for (p, q) in ((a, b), (b, c), (c, a)):
            if (p, q) in half:
                raise SystemExit("%s: edge %d-%d used twice in one direction" % (name, p, q))
            half[(p, q)] = t
    for (p, q) in half:
        if (q, p) not in half:
            raise SystemExit("%s: open or non-manifold edge %d-%d" % (name, p, q))
    # vertex fans: walk around each vertex
    nxt = {}
    for (a, b, c) in F:
        for (v, p, q) in ((a, b, c), (b, c, a), (c, a, b)):
            nxt.setdefault(v, {})[p] = q
    for v, ring in nxt.items():
        start = next(iter(ring))
        p, steps = start, 0
        while True:
            p = ring[p]
            steps += 1
            if p == start:
                break
        if steps != len(ring):
            raise SystemExit("%s: pinched (non-manifold) vertex %d" % (name, v))
    nedges = len(half) // 2
    chi = len(V) - nedges + len(F)
    if chi != 2:
        raise SystemExit("%s: Euler characteristic %d (expected 2: one closed genus-0 surface)"
                         % (name, chi))
    vol = 0.0
    for (a, b, c) in F:
        pa, pb, pc = V[a], V[b], V[c]
        vol += (pa[0] * (pb[1] * pc[2] - pb[2] * pc[1]) - pa[1] * (pb[0] * pc[2] - pb[2] * pc[0])
                + pa[2] * (pb[0] * pc[1] - pb[1] * pc[0])) / 6.0
    if vol <= 0:
        raise SystemExit("%s: inward oriented (volume %g)" % (name, vol))
    return vol


def tetgen_self_intersections(V, F):
    """Pairs of intersecting triangles found by `tetgen -d` (None when tetgen is absent)."""
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("tetgen"):
        return None
    with tempfile.TemporaryDirectory() as d:
        off = os.path.join(d, "s.off")
        with open(off, "w") as out:
            out.write("OFF\n%d %d 0\n" % (len(V), len(F)))
            for v in V:
                out.write("%.6g %.6g %.6g\n" % v)
            for t in F:
                out.write("3 %d %d %d\n" % t)
        r = subprocess.run(["tetgen", "-d", off], capture_output=True, text=True)
        if "No faces are intersecting" in r.stdout:
            return 0
        for line in r.stdout.splitlines():
            if "pairs of faces are intersecting" in line:
                return int(line.split()[2])
        return -1


def min_angle_deg(V, F):
    worst = 180.0
    for (a, b, c) in F:
        P = (V[a], V[b], V[c])
        for i in range(3):
            u = [P[(i + 1) % 3][d] - P[i][d] for d in range(3)]
            w = [P[(i + 2) % 3][d] - P[i][d] for d in range(3)]
            cu = sum(x * y for x, y in zip(u, w)) / math.sqrt(dist2(P[(i + 1) % 3], P[i]) *
                                                              dist2(P[(i + 2) % 3], P[i]))
            worst = min(worst, math.degrees(math.acos(max(-1.0, min(1.0, cu)))))
    return worst


def write_obj(path, V, F, comment):
    with open(path, "w") as out:
        for line in comment:
            out.write("# %s\n" % line)
        out.write("# %d vertices, %d triangles; closed, manifold, genus 0, outward, not self-intersecting (checked)\n"
                  % (len(V), len(F)))
        for v in V:
            out.write("v %.6g %.6g %.6g\n" % v)
        for (a, b, c) in F:
            out.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


SHAPES = {
    # name: (builder, grid spacing h in metres)
    "raptor_standin": (raptor, 0.016),
    "wooper_standin": (wooper, 0.04),
    "gingerbread_standin": (gingerbread, 0.024),
}


def main():
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):  # --help, or an option it lacks
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "meshes")
    only = [a for a in sys.argv[2:] if "=" not in a]  # optional subset of names
    for a in sys.argv[2:]:  # NAME=H: another grid spacing (for tuning)
        if "=" in a:
            nm, hv = a.split("=")
            if nm not in SHAPES:
                sys.exit("gen_standins.py: unknown shape %s (expected one of %s)"
                         % (nm, ", ".join(SHAPES)))
            SHAPES[nm] = (SHAPES[nm][0], float(hv))
            only.append(nm)
    unknown = [n for n in only if n not in SHAPES and n != "icosphere2"]
    if unknown:
        sys.exit("gen_standins.py: unknown name %s (expected %s or icosphere2)"
                 % (", ".join(unknown), ", ".join(SHAPES)))
    os.makedirs(outdir, exist_ok=True)
    for name, (build, h) in SHAPES.items():
        if only and name not in only:
            continue
        prims, k = build()
        # a rare ambiguous grid cell can make surface nets non-manifold: shift the grid
        for attempt in range(20):
            V, F = surface_nets(prims, k, h, attempt + 1)
            V = smooth_project(V, F, prims, k, h, 3)
            try:
                vol = check_closed_manifold(V, F, name)
                V = [tuple(float("%.6g" % c) for c in v) for v in V]
                check_closed_manifold(V, F, name)
                nx = tetgen_self_intersections(V, F)
                if nx:
                    raise SystemExit("%s: tetgen -d: %d intersecting triangle pairs" % (name, nx))
                break
            except SystemExit as e:
                print("  (grid shift %d: %s; trying another)" % (attempt, e))
        else:
            raise SystemExit("%s: no manifold surface found" % name)
        write_obj(os.path.join(outdir, name + ".obj"), V, F,
                  ["STAND-IN for the paper's %s (not the paper's mesh): procedural implicit "
                   "solid," % name.replace("_standin", ""),
                   "surface nets at grid spacing %g m; written by scripts/gen_standins.py" % h])
        print("%s: %d vertices, %d triangles, volume %.5g m^3, min angle %.1f deg"
              % (name, len(V), len(F), vol, min_angle_deg(V, F)))
    if not only or "icosphere2" in only:
        V, F = icosphere(2)
        check_closed_manifold(V, F, "icosphere2")
        write_obj(os.path.join(outdir, "icosphere2.obj"), V, F,
                  ["unit icosphere, 2 subdivisions (TetGen input of the ball rows of "
                   "scripts/paper_tables.sh)", "written by scripts/gen_standins.py"])
        print("icosphere2: %d vertices, %d triangles" % (len(V), len(F)))


if __name__ == "__main__":
    main()

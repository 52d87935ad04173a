#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the triangle-mesh OBSTACLES of the contact scenes to meshes/.

  meshes/knives_standin.obj  the blades of scenes/cloth_on_knives*.json: five thin, flat,
                             triangle-shaped blades standing upright, each in its own
                             vertical plane (yawed differently about y), apex up. Open,
                             single-sided triangle surfaces (a codimensional obstacle: use
                             "closed": false). The paper's knives mesh is not public; this is
                             a stand-in. Coordinates are chosen so that the paper's obstacle
                             transform (translate (1.5, 0, 0), scale 2) puts the blades under
                             the paper's cloth (3 m x 2.7 m at y = 3): world x in about
                             [-1.4, 1.4], blade bases on the floor plane y = -2, apexes at
                             y = 0.5 .. 1.3.
  meshes/cube_obstacle.obj   the cube of scenes/sharp_corner*.json: a closed, outward-oriented
                             triangulated surface of the cube [-1, 1]^3, 5 x 5 vertices per
                             face (98 vertices, 192 triangles).

Pure Python 3, deterministic (no randomness). The OBJ files are committed; run this only to
change them:   python3 scripts/gen_obstacles.py [OUTDIR]
"""
import math
import os
import sys

# The scene's obstacle transform for the knives (the paper's): world = 2 * mesh + (1.5, 0, 0).
KNIFE_T = (1.5, 0.0, 0.0)
KNIFE_S = 2.0
KNIFE_ROWS = 6  # each blade triangle is split into ROWS^2 triangles

# Blades in WORLD coordinates: (x, z) of the base centre, yaw of the blade plane about y
# (degrees; 0 = the blade lies in the y-z plane), base half-width, apex height y, and where
# along the base the apex sits (0 = first base corner, 1 = second; 0.5 = isosceles).
FLOOR_Y = -2.0
BLADES = [
    (-1.2, -0.2, 15.0, 0.5, 0.6, 0.30),
    (-0.6, 0.45, -20.0, 0.5, 1.0, 0.70),
    (0.0, 0.1, 5.0, 0.5, 1.3, 0.50),
    (0.6, -0.25, 25.0, 0.5, 0.8, 0.20),
    (1.2, 0.4, -10.0, 0.5, 0.5, 0.60),
]


def blade(x, z, yaw_deg, hw, apex_y, t, rows):
    """One flat triangle (apex up) in a vertical plane, split into rows^2 triangles."""
    yaw = math.radians(yaw_deg)
    d = (math.sin(yaw), 0.0, math.cos(yaw))  # horizontal direction of the base
    b0 = (x - hw * d[0], FLOOR_Y, z - hw * d[2])
    b1 = (x + hw * d[0], FLOOR_Y, z + hw * d[2])
    a = (b0[0] + t * (b1[0] - b0[0]), apex_y, b0[2] + t * (b1[2] - b0[2]))
    V, idx = [], {}
    for i in range(rows + 1):  # row i: i + 1 points from the apex side toward the base
        for j in range(i + 1):
            p = tuple(a[k] + (i / rows) * (b0[k] - a[k]) + ((j / rows) * (b1[k] - b0[k]))
                      for k in range(3))
            idx[(i, j)] = len(V)
            V.append(p)
    F = []
    for i in range(rows):
        for j in range(i + 1):
            F.append((idx[(i, j)], idx[(i + 1, j)], idx[(i + 1, j + 1)]))
            if j < i:
                F.append((idx[(i, j)], idx[(i + 1, j + 1)], idx[(i, j + 1)]))
    return V, F


def knives():
    V, F = [], []
    for (x, z, yaw, hw, ay, t) in BLADES:
        bv, bf = blade(x, z, yaw, hw, ay, t, KNIFE_ROWS)
        o = len(V)
        # world -> mesh coordinates (the scene applies scale 2, then translate (1.5, 0, 0))
        V += [tuple((p[k] - KNIFE_T[k]) / KNIFE_S for k in range(3)) for p in bv]
        F += [(a + o, b + o, c + o) for (a, b, c) in bf]
    return V, F


def cube(n=5, h=1.0):
    """Closed cube [-h, h]^3, n x n vertices per face, shared edges, outward triangles."""
    V, key = [], {}

    def vid(p):
        k = tuple(round(c * 1e9) for c in p)
        if k not in key:
            key[k] = len(V)
            V.append(p)
        return key[k]

    F = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = (axis + 1) % 3, (axis + 2) % 3  # (u, v, axis) is right-handed
            grid = {}
            for i in range(n):
                for j in range(n):
                    p = [0.0, 0.0, 0.0]
                    p[axis] = sign * h
                    p[u] = -h + 2 * h * i / (n - 1)
                    p[v] = -h + 2 * h * j / (n - 1)
                    grid[(i, j)] = vid(tuple(p))
            for i in range(n - 1):
                for j in range(n - 1):
                    a, b = grid[(i, j)], grid[(i + 1, j)]
                    c, d = grid[(i + 1, j + 1)], grid[(i, j + 1)]
                    # counter-clockwise about +axis; flipped on the -axis face
                    tris = [(a, b, c), (a, c, d)] if sign > 0 else [(a, c, b), (a, d, c)]
                    F += tris
    return V, F


def signed_volume(V, F):
    vol = 0.0
    for (a, b, c) in F:
        pa, pb, pc = V[a], V[b], V[c]
        vol += (pa[0] * (pb[1] * pc[2] - pb[2] * pc[1]) - pa[1] * (pb[0] * pc[2] - pb[2] * pc[0])
                + pa[2] * (pb[0] * pc[1] - pb[1] * pc[0])) / 6.0
    return vol


def check_closed(V, F, name):
    half = {}
    for (a, b, c) in F:
        for (p, q) in ((a, b), (b, c), (c, a)):
            if (p, q) in half:
                raise SystemExit(f"{name}: edge {p}-{q} used twice in one direction")
            half[(p, q)] = True
    for (p, q) in half:
        if (q, p) not in half:
            raise SystemExit(f"{name}: open edge {p}-{q}")


def write_obj(path, V, F, header):
    with open(path, "w", newline="\n") as f:
        for line in header:
            f.write(f"# {line}\n")
        for p in V:
            f.write("v %.9g %.9g %.9g\n" % p)
        for (a, b, c) in F:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):  # --help, or an option it lacks
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "meshes")
    os.makedirs(out, exist_ok=True)

    V, F = knives()
    write_obj(os.path.join(out, "knives_standin.obj"), V, F, [
        "STAND-IN for the paper's knives obstacle (not public): written by scripts/gen_obstacles.py",
        f"{len(BLADES)} flat triangle blades, open surfaces (use \"closed\": false)",
        "scene transform: translate (1.5, 0, 0), scale 2 (the paper's)",
        f"{len(V)} vertices, {len(F)} triangles"])
    print(f"knives_standin.obj: {len(V)} vertices, {len(F)} triangles")

    V, F = cube()
    check_closed(V, F, "cube_obstacle")
    vol = signed_volume(V, F)
    if abs(vol - 8.0) > 1e-9:
        raise SystemExit(f"cube_obstacle: signed volume {vol}, expected +8 (outward)")
    write_obj(os.path.join(out, "cube_obstacle.obj"), V, F, [
        "cube [-1, 1]^3 obstacle, closed and outward: written by scripts/gen_obstacles.py",
        f"{len(V)} vertices, {len(F)} triangles"])
    print(f"cube_obstacle.obj: {len(V)} vertices, {len(F)} triangles, volume {vol:g}")


if __name__ == "__main__":
    main()

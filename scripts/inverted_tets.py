#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a run's inverted tetrahedra are: reads the binary legacy VTK frames simctl writes
(`output.formats` with "vtk", `output.every` N) and prints, for each frame asked for, the
tetrahedra whose signed volume is <= 0, by how near they lie to the surface (the smallest
number of edges from one of their vertices to a surface vertex: 0 on the surface), how many
have all four vertices on the surface (slivers there), and their rest quality (6 sqrt(2) V /
l_rms^3 at frame 0: 1 for a regular tetrahedron). The count is the one summary.json's
`inverted_tets` takes at its state checks.

usage: scripts/inverted_tets.py FRAMES_DIR FRAME...    (FRAMES_DIR holds 00000.vtk, ...)
"""
import collections
import math
import os
import struct
import sys


def read_vtk(path):
    """(points as a flat list, tetrahedra as 4-tuples) of a binary legacy VTK file."""
    data = open(path, "rb").read()
    pos, pts, cells, types = 0, None, None, None
    while pos < len(data) and types is None:
        end = data.index(b"\n", pos)
        line = data[pos:end].decode("latin1")
        pos = end + 1
        if line.startswith("POINTS"):
            n = int(line.split()[1])
            pts = struct.unpack(">%dd" % (3 * n), data[pos:pos + 24 * n])
            pos += 24 * n
        elif line.startswith("CELLS"):
            size = int(line.split()[2])
            cells = struct.unpack(">%di" % size, data[pos:pos + 4 * size])
            pos += 4 * size
        elif line.startswith("CELL_TYPES"):
            n = int(line.split()[1])
            types = struct.unpack(">%di" % n, data[pos:pos + 4 * n])
    if pts is None or cells is None or types is None:
        sys.exit("%s: not a binary legacy VTK unstructured grid" % path)
    tets, i = [], 0
    for t in types:
        k = cells[i]
        if t == 10:  # VTK_TETRA
            tets.append(cells[i + 1:i + 1 + k])
        i += 1 + k
    return pts, tets


def volume(p, t):
    a, b, c, d = [p[3 * v:3 * v + 3] for v in t]
    u = [b[k] - a[k] for k in range(3)]
    v = [c[k] - a[k] for k in range(3)]
    w = [d[k] - a[k] for k in range(3)]
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0])) / 6.0


def quality(p, t):
    pts = [p[3 * v:3 * v + 3] for v in t]
    l2 = sum((pts[i][k] - pts[j][k]) ** 2 for i in range(4) for j in range(i + 1, 4)
             for k in range(3))
    return 6.0 * math.sqrt(2.0) * volume(p, t) / math.sqrt(l2 / 6.0) ** 3


def surface_layers(tets):
    """Each vertex's distance in edges from the surface (faces of one tetrahedron)."""
    faces = collections.Counter()
    adj = collections.defaultdict(set)
    for t in tets:
        for f in ((t[0], t[1], t[2]), (t[0], t[1], t[3]), (t[0], t[2], t[3]), (t[1], t[2], t[3])):
            faces[tuple(sorted(f))] += 1
        for a in t:
            adj[a].update(b for b in t if b != a)
    layer = {v: 0 for f, c in faces.items() if c == 1 for v in f}
    front = list(layer)
    while front:
        nxt = []
        for v in front:
            for w in adj[v]:
                if w not in layer:
                    layer[w] = layer[v] + 1
                    nxt.append(w)
        front = nxt
    return layer


def main():
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    folder = sys.argv[1]
    try:
        frames = [int(f) for f in sys.argv[2:]]
        rest, tets = read_vtk(os.path.join(folder, "00000.vtk"))
    except (ValueError, OSError) as e:
        sys.exit("inverted_tets.py: %s (usage: inverted_tets.py FOLDER FRAME...)" % e)
    if not tets:
        sys.exit("inverted_tets.py: %s has no tetrahedra (cloth alone)"
                 % os.path.join(folder, "00000.vtk"))
    layer = surface_layers(tets)
    q0 = [quality(rest, t) for t in tets]
    print("%d tetrahedra; rest quality min %.3f, median %.3f" %
          (len(tets), min(q0), sorted(q0)[len(q0) // 2]))
    for frame in frames:
        path = os.path.join(folder, "%05d.vtk" % frame)
        try:
            p, _ = read_vtk(path)
        except OSError as e:
            sys.exit("inverted_tets.py: %s" % e)
        inv = [i for i, t in enumerate(tets) if volume(p, t) <= 0.0]
        if not inv:
            print("frame %s: none inverted" % frame)
            continue
        near = collections.Counter(min(layer[v] for v in tets[i]) for i in inv)
        slivers = sum(1 for i in inv if all(layer[v] == 0 for v in tets[i]))
        qs = sorted(q0[i] for i in inv)
        print("frame %s: %d inverted; nearest surface layer %s; %d with all vertices on the "
              "surface; rest quality min %.3f, median %.3f" %
              (frame, len(inv), ", ".join("%d: %d" % kv for kv in sorted(near.items())),
               slivers, qs[0], qs[len(qs) // 2]))


if __name__ == "__main__":
    main()

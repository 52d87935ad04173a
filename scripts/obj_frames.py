# SPDX-License-Identifier: MIT
"""Shared by the scripts that read a run's OBJ frames (fold_layers.py, self_intersections.py,
crossing_heights.py, obstacle_depths.py): their command lines, the frames' names, one frame's
objects and a surface's edges. Not a command of its own."""
import os
import re
import sys


def parse(argv, prog, doc, usage, options):
    """(values, positionals) of argv: -h/--help prints doc and exits 0; options maps each
    option to its converter (float, int >= 1, str; bool: a flag, no value, True where given)
    and default, as {name: (kind, default)}; bad usage prints usage to standard error and
    exits 2."""
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(doc)
        sys.exit(0)
    values = {k: d for k, (_, d) in options.items()}
    rest, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in options and options[a][0] is bool:
            values[a] = True
            i += 1
        elif a in options and i + 1 < len(argv):
            kind, v = options[a][0], argv[i + 1]
            try:
                values[a] = kind(v)
                if kind is int and values[a] < 1:
                    raise ValueError
            except ValueError:
                sys.stderr.write("%s: %s: expected %s, got %s\n"
                                 % (prog, a, "a count >= 1" if kind is int else "a number", v))
                sys.exit(2)
            i += 2
        elif a.startswith("-"):
            sys.stderr.write("%s: unknown option %s\n%s\n" % (prog, a, usage))
            sys.exit(2)
        else:
            rest.append(a)
            i += 1
    return values, rest


def frame_names(run_dir, prog):
    """The run's OBJ frames (DIR/frames/NNNNN.obj) in order, as paths; exit 2 where none."""
    frames = os.path.join(run_dir, "frames")
    names = sorted(n for n in os.listdir(frames) if re.fullmatch(r"\d+\.obj", n)) \
        if os.path.isdir(frames) else []
    if not names:
        sys.stderr.write("%s: %s: no OBJ frames (NNNNN.obj)\n" % (prog, frames))
        sys.exit(2)
    return [os.path.join(frames, n) for n in names]


def read(path, prog):
    """(vertices, {object name: triangles}) of an OBJ frame, the objects in file order (a dict
    keeps it; faces before any `o` line belong to "object"), vertex indices 0-based over the
    file; exit 2 with one line naming the file and line where it cannot be read."""
    objs, verts, name = {}, [], None

    def bad(what):
        sys.stderr.write("%s: %s: %s\n" % (prog, path, what))
        sys.exit(2)

    try:
        with open(path) as f:
            for no, line in enumerate(f, 1):
                s = line.split()
                if not s:
                    continue
                if s[0] == "o":
                    name = s[1] if len(s) > 1 else "object"
                    objs.setdefault(name, [])
                elif s[0] == "v":
                    try:
                        verts.append(tuple(float(t) for t in s[1:4]))
                    except ValueError:
                        bad("line %d: expected a vertex x y z, got %s" % (no, line.strip()))
                    if len(verts[-1]) != 3:
                        bad("line %d: expected a vertex x y z, got %s" % (no, line.strip()))
                elif s[0] == "f":
                    try:
                        t = tuple(int(u.split("/")[0]) - 1 for u in s[1:4])
                    except ValueError:
                        t = ()
                    if len(t) != 3 or min(t) < 0:
                        bad("line %d: expected a face of 3 vertex numbers, got %s"
                            % (no, line.strip()))
                    if name is None:
                        name = "object"
                    objs.setdefault(name, []).append(t)
    except OSError as e:
        bad(e.strerror or str(e))
    for tris in objs.values():
        for t in tris:
            if max(t) >= len(verts):
                bad("a face names vertex %d of %d" % (max(t) + 1, len(verts)))
    return verts, objs


def edges(tris):
    """The edges of triangles tris, lower vertex first, each once, in order."""
    out = set()
    for t in tris:
        for i in range(3):
            a, b = t[i], t[(i + 1) % 3]
            out.add((min(a, b), max(a, b)))
    return sorted(out)

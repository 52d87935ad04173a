#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Feeds simctl mutated scenes or mesh files and checks how it fails: every mutant must either
be accepted (exit 0) or be refused with exit code 3 (scene), 4 (mesh) or 5 (numerical failure)
and one line on stderr, `simctl: error: FILE: ...`; never a crash, a sanitizer report, a hang
or another exit code. The scene mutations change one value of one of the project's scenes at
a time (a number to 0, a negative, a huge or a non-finite-looking value, a string to another,
a value to another JSON type, an array shortened or lengthened, a key removed or misspelt,
the file cut short). The mesh mutations change one of the small meshes of tests/data/mesh
(every format simctl reads: OBJ, OFF, ASCII and binary STL, TetGen .node/.ele, Gmsh .msh,
legacy VTK) in one place: a number to 0, -1, 2^31, 1e308, nan or a word, a line removed,
repeated or swapped, bytes inserted, the file cut short; a scene with that mesh then runs.

usage: scripts/fuzz_scenes.py [--simctl PATH] [--runs N] [--seed S] [--inputs scenes|meshes]
                              [--command validate|run] [--timeout SECONDS] [--keep DIR]
                              [--device cpu|cuda]
  --command run: each accepted scene mutant also runs 2 frames (meshing, the solver's set-up,
                 the first steps), with --out in a temporary folder and every output format
                 (the PNG preview small: the camera's fit and the rasteriser see the mutant
                 too); mesh mutants always run
A refusal's line must name the mutant's file (the scene, or the mesh file it reads), or the
run's own --frames or --set where the mutant changed what they set (`solver`, `output`).
  --keep: copy each failing mutant there
  --device: the backend the runs use (default cpu); cuda fuzzes the CUDA backend's set-up and
            first steps, on a GPU or on the host emulation (--simctl build/simctl-emu)
Run it against an AddressSanitizer build (make test-asan builds build-asan/simctl) to catch
memory errors too. Prints one line per failure and a summary; exits 1 if any mutant failed.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "scenes")
# large scenes take seconds to mesh: the fuzzer mutates the small ones
SKIP = ("_10k", "_11k", "_14k", "_15k", "_19k", "_20k")


def paths(v, at=()):
    """Every (path, value) in a JSON value, containers included."""
    yield at, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, at + (i,))


def get(v, at):
    for k in at:
        v = v[k]
    return v


def put(v, at, x):
    get(v, at[:-1])[at[-1]] = x


def absolute(scene):
    """The scene with its file names (relative to scenes/) made absolute, so that a mutant
    written elsewhere still finds its meshes."""
    for at, v in list(paths(scene)):
        if at and isinstance(v, str) and os.path.isfile(os.path.join(SCENES, v)):
            put(scene, at, os.path.abspath(os.path.join(SCENES, v)))
    return scene


def mutate_value(rng, x):
    if isinstance(x, bool):
        return rng.choice([not x, 0, "yes", None])
    if isinstance(x, (int, float)):
        return rng.choice([0, -x, -1, x * 1e12, 1e308, -1e308, 1e-300, 2**31, -(2**31) - 1,
                           0.5, str(x), None, [x], True])
    if isinstance(x, str):
        return rng.choice(["", x + "_", x.upper(), "x" * 300, "../" * 8 + "nowhere", 0, None,
                           "\u00e9\u00e8", "nan", "inf"])
    if isinstance(x, list):
        c = rng.choice(["short", "long", "empty", "type", "nested"])
        if c == "short":
            return x[:-1]
        if c == "long":
            return x + [x[-1] if x else 0]
        if c == "empty":
            return []
        if c == "nested":
            return [x]
        return {"0": x}
    if isinstance(x, dict):
        return rng.choice([[], "obj", 0, None, {}])
    return rng.choice([0, "", [], {}])


def mutant(rng, scene):
    """A mutated copy of scene (a dict) and what was done, or raw text for a cut file."""
    s = json.loads(json.dumps(scene))
    all_paths = [p for p, _ in paths(s) if p]
    at = rng.choice(all_paths)
    kind = rng.random()
    parent = get(s, at[:-1])
    if kind < 0.15 and isinstance(parent, dict):
        del parent[at[-1]]
        return s, "removed %s" % "/".join(map(str, at))
    if kind < 0.25 and isinstance(parent, dict):
        parent[at[-1] + "_typo"] = parent.pop(at[-1])
        return s, "misspelt %s" % "/".join(map(str, at))
    if kind < 0.30:
        text = json.dumps(s)
        cut = rng.randrange(1, len(text))
        return text[:cut], "cut at byte %d" % cut
    x = mutate_value(rng, get(s, at))
    put(s, at, x)
    return s, "%s = %s" % ("/".join(map(str, at)), json.dumps(x)[:60])


MESHES = os.path.join(HERE, "..", "tests", "data", "mesh")
MESH_SEEDS = ["cube.obj", "cube.off", "cube_ascii.stl", "cube.stl", "cube0.node", "cube0.ele",
              "tet1.node", "cube.msh", "cube_ascii.vtk", "cube51.vtk"]
WEIRD = [b"0", b"-1", b"2147483648", b"-2147483649", b"1e308", b"-1e308", b"nan", b"inf",
         b"1.5", b"word", b"", b"99999999999999999999"]


def binary_stl(ascii_path):
    """The ASCII STL's triangles as a binary STL (the seed for that reader)."""
    tris, cur = [], []
    for line in open(ascii_path):
        t = line.split()
        if t[:1] == ["vertex"]:
            cur.append([float(x) for x in t[1:4]])
            if len(cur) == 3:
                tris.append(cur)
                cur = []
    out = bytearray(b"simctl fuzz".ljust(80, b" ") + struct.pack("<I", len(tris)))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 0)
        for v in t:
            out += struct.pack("<3f", *v)
        out += b"\0\0"
    return bytes(out)


def mutate_bytes(rng, data, binary):
    """data changed in one place (text: a token or a line; binary: bytes)."""
    kind = rng.random()
    if kind < 0.1:
        return data[:rng.randrange(1, len(data))], "cut"
    if binary:
        at = rng.randrange(len(data))
        if kind < 0.6:
            n = rng.choice([1, 2, 4])
            return data[:at] + bytes(rng.randrange(256) for _ in range(n)) + data[at + n:], \
                "bytes at %d overwritten" % at
        return data[:at] + b"\xff" * rng.choice([1, 4]) + data[at:], "bytes inserted at %d" % at
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    if kind < 0.6:
        tok = lines[i].split(b" ")
        nums = [j for j, x in enumerate(tok) if x[:1].isdigit() or x[:1] in b"-."]
        if nums:
            j = rng.choice(nums)
            tok[j] = rng.choice(WEIRD)
            lines[i] = b" ".join(tok)
            return b"\n".join(lines), "line %d token %d = %r" % (i + 1, j, tok[j])
    if kind < 0.7:
        del lines[i]
        return b"\n".join(lines), "line %d removed" % (i + 1)
    if kind < 0.8:
        lines.insert(i, lines[i])
        return b"\n".join(lines), "line %d repeated" % (i + 1)
    if kind < 0.9:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), "lines %d and %d swapped" % (i + 1, j + 1)
    return b"\n".join(lines[:i] + [b"\x00\xff garbage"] + lines[i:]), \
        "bytes before line %d" % (i + 1)


def mesh_mutant(rng, tmp, i):
    """A mutated mesh file in its own folder under tmp, and a scene that uses it."""
    seed = rng.choice(MESH_SEEDS)
    d = os.path.join(tmp, "mesh%04d" % i)
    os.makedirs(d)
    stem, ext = os.path.splitext(seed)
    if ext in (".node", ".ele"):  # the pair goes together, one of them mutated
        for e in (".node", ".ele"):
            shutil.copy(os.path.join(MESHES, stem + e), d)
    path = os.path.join(d, seed)
    data = binary_stl(os.path.join(MESHES, "cube_ascii.stl")) if seed == "cube.stl" else \
        open(os.path.join(MESHES, seed), "rb").read()
    data, what = mutate_bytes(rng, data, seed == "cube.stl")
    open(path, "wb").write(data)
    scene = {"name": "fuzz", "solver": {"dt": 0.01, "frames": 2, "lg_iterations": 2},
             "bodies": [{"mesh": {"type": "file", "path": os.path.join(d, stem + (
                 ".node" if ext == ".ele" else ext))}, "material": {"youngs_modulus": 1e5}}],
             "output": {"formats": ["csv"]}}
    return scene, "%s: %s" % (seed, what)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--simctl", default=os.path.join(HERE, "..", "build", "simctl"))
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--inputs", choices=["scenes", "meshes"], default="scenes")
    ap.add_argument("--command", choices=["validate", "run"], default="validate")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    a = ap.parse_args()
    if not os.access(a.simctl, os.X_OK):
        sys.exit(f"fuzz_scenes.py: {a.simctl} is not an executable (make build)")
    rng = random.Random(a.seed)
    names = sorted(f for f in os.listdir(SCENES)
                   if f.endswith(".json") and not any(k in f for k in SKIP))
    scenes = {n: absolute(json.load(open(os.path.join(SCENES, n)))) for n in names}
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99")
    tmp = tempfile.mkdtemp(prefix="simctl-fuzz.")
    counts = {"accepted": 0, "refused": 0, "failed": 0}
    try:
        for i in range(a.runs):
            if a.inputs == "meshes":
                name = "mesh.json"
                m, what = mesh_mutant(rng, tmp, i)
            else:
                name = rng.choice(names)
                m, what = mutant(rng, scenes[name])
            f = os.path.join(tmp, "m%04d_%s" % (i, name))
            with open(f, "w") as out:
                out.write(m if isinstance(m, str) else json.dumps(m, indent=1))
            cmd = [a.simctl, "validate", f]
            if a.command == "run" or a.inputs == "meshes":
                cmd = [a.simctl, "run", f, "-q", "--frames", "2", "--device", a.device,
                       "--out", os.path.join(tmp, "out%04d" % i),
                       "--set", 'output.formats=["vtk","obj","png","csv"]',
                       "--set", "output.every=1", "--set", "output.png_size=[64,48]"]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout,
                                   env=env, errors="replace")
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
            lines = [l for l in err.splitlines() if l.strip()]
            why = None
            if rc == 0:
                counts["accepted"] += 1
            elif rc in (3, 4, 5) and len(lines) == 1 and lines[0].startswith("simctl: error: "):
                # the scene, the mesh (.node or .ele), or the run's own --frames or --set where
                # the mutant changed what they set
                files = [os.path.basename(f), "--set output.", "--frames 2:"]
                if a.inputs == "meshes":
                    files.append(os.path.splitext(
                        os.path.basename(m["bodies"][0]["mesh"]["path"]))[0] + ".")
                if any(n in lines[0] for n in files):
                    counts["refused"] += 1
                else:
                    why = "the error line names neither %s" % " nor ".join(files)
            elif rc in (3, 4, 5):
                why = "exit %s but stderr is not one 'simctl: error:' line" % rc
            else:
                why = "exit %s" % rc
            if why:
                counts["failed"] += 1
                print("FAIL %s (%s): %s\n  %s" % (name, what, why, "\n  ".join(lines[:6])))
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(f, a.keep)
                    if a.inputs == "meshes":
                        shutil.copytree(os.path.join(tmp, "mesh%04d" % i),
                                        os.path.join(a.keep, "mesh%04d" % i))
            shutil.rmtree(os.path.join(tmp, "out%04d" % i), ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    what = "mesh" if a.inputs == "meshes" else "scene"
    command = "run" if a.inputs == "meshes" else a.command
    if command == "run":
        command += " --device " + a.device
    print("fuzz_scenes.py: %d %s mutants (%s, seed %d): %d accepted, %d refused with one "
          "line, %d failed" % (a.runs, what, command, a.seed, counts["accepted"],
                               counts["refused"], counts["failed"]))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Feeds simctl mutated scenes and checks how it fails: every mutant must either be accepted
(exit 0) or be refused with exit code 3 (scene), 4 (mesh) or 5 (numerical failure) and one line
on stderr, `simctl: error: FILE: ...`; never a crash, a sanitizer report, a hang or another
exit code. The mutations change one value of one of the project's scenes at a time (a number
to 0, a negative, a huge or a non-finite-looking value, a string to another, a value to another
JSON type, an array shortened or lengthened, a key removed or misspelt, the file cut short).

usage: scripts/fuzz_scenes.py [--simctl PATH] [--runs N] [--seed S] [--command validate|run]
                              [--timeout SECONDS] [--keep DIR]
  --command run: each accepted mutant also runs 2 frames (meshing, the solver's set-up, the
                 first steps), with --out in a temporary folder and CSV output only
  --keep: copy each failing mutant there
Run it against an AddressSanitizer build (make test-asan builds build-asan/simctl) to catch
memory errors too. Prints one line per failure and a summary; exits 1 if any mutant failed.
"""
import argparse
import json
import os
import random
import shutil
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--simctl", default="build/simctl")
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--command", choices=["validate", "run"], default="validate")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    names = sorted(f for f in os.listdir(SCENES)
                   if f.endswith(".json") and not any(k in f for k in SKIP))
    scenes = {n: absolute(json.load(open(os.path.join(SCENES, n)))) for n in names}
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99")
    tmp = tempfile.mkdtemp(prefix="simctl-fuzz.")
    counts = {"accepted": 0, "refused": 0, "failed": 0}
    try:
        for i in range(a.runs):
            name = rng.choice(names)
            m, what = mutant(rng, scenes[name])
            f = os.path.join(tmp, "m%04d_%s" % (i, name))
            with open(f, "w") as out:
                out.write(m if isinstance(m, str) else json.dumps(m, indent=1))
            cmd = [a.simctl, "validate", f]
            if a.command == "run":
                cmd = [a.simctl, "run", f, "-q", "--frames", "2", "--device", "cpu",
                       "--out", os.path.join(tmp, "out%04d" % i),
                       "--set", 'output.formats=["csv"]']
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
                counts["refused"] += 1
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
            shutil.rmtree(os.path.join(tmp, "out%04d" % i), ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("fuzz_scenes.py: %d mutants (%s, seed %d): %d accepted, %d refused with one line, "
          "%d failed" % (a.runs, a.command, a.seed, counts["accepted"], counts["refused"],
                         counts["failed"]))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

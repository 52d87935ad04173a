#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CUDA backend's code that the emulated GPU tests ran, from a coverage build's .gcda files.

Reads every .gcda file of the emulation's library (simcore_emu: gpu/*.cu rewritten by cu2cpp,
whose #line directives name the .cu files) through gcov's JSON, and writes to OUT:
  coverage.md   per file of gpu/: lines with code, lines run, functions, kernels and those of
                them never run; then every kernel never run and every other function never run,
                with file and line; the runs of lines never run per file; and the core
                headers' lines (SIM_HD code the kernels call)
  coverage.csv  the per-file figures
A line counts as run where any translation unit ran it (a header's lines are in several).
Written by scripts/emu_coverage.sh after the emu tests; usable alone on a build's .gcda files:
  scripts/emu_coverage.py --build BUILD --src SRC --out OUT [--gcov GCOV]
"""
import argparse
import collections
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile

KERNEL = re.compile(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\s*\([^)]*\)\s*)?"
                    r"(?:void\s+)?(\w+)\s*\(")


def die(msg):
    print("emu_coverage.py: " + msg, file=sys.stderr)
    sys.exit(2)


def kernels_in(src):
    """Kernel name -> (file relative to src, line) of every __global__ function in gpu/."""
    found = {}
    gpu = os.path.join(src, "gpu")
    for name in sorted(os.listdir(gpu)):
        if not name.endswith((".cu", ".cuh")):
            continue
        path = os.path.join(gpu, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in KERNEL.finditer(text):
            found[m.group(1)] = ("gpu/" + name, text.count("\n", 0, m.start(1)) + 1)
    return found


def gcov_json(gcov, gcda, tmp):
    """gcov's JSON of one .gcda file (its object directory beside it)."""
    obj = os.path.dirname(gcda)
    r = subprocess.run([gcov, "--json-format", "--stdout", "--object-directory", obj, gcda],
                       cwd=tmp, capture_output=True)
    if r.returncode != 0:
        die("%s: gcov failed: %s" % (gcda, r.stderr.decode(errors="replace").strip()))
    out = r.stdout
    if out[:2] == b"\x1f\x8b":
        out = gzip.decompress(out)
    docs = []
    for line in io.StringIO(out.decode()):  # one JSON document a line with --stdout
        line = line.strip()
        if line:
            docs.append(json.loads(line))
    return docs


def relative(path, src, build):
    """A source file's path relative to src (gcov's may be relative to the build), else None."""
    path = os.path.normpath(path if os.path.isabs(path) else os.path.join(build, path))
    return path[len(src) + 1:] if path.startswith(src + os.sep) else None


def base_name(demangled):
    """void k_foo<3, double>(int, ...) -> k_foo; ns::f(int) -> f."""
    name = demangled.split("(")[0]
    while True:  # template arguments, innermost first
        shorter = re.sub(r"<[^<>]*>", "", name)
        if shorter == name:
            break
        name = shorter
    name = name.strip().split()[-1] if name.strip() else name  # a template's return type
    return name.split("::")[-1]


def unrun_spans(d):
    """The runs of d's lines (line -> count) with count 0, no line with code that ran between a
    run's lines, as "12, 30-34" ("" where none)."""
    spans, open_span = [], False
    for line in sorted(d):
        if d[line] > 0:
            open_span = False
        elif open_span:
            spans[-1][1] = line
        else:
            spans.append([line, line])
            open_span = True
    return ", ".join("%d" % lo if lo == hi else "%d-%d" % (lo, hi) for lo, hi in spans)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gcov", default="gcov")
    a = ap.parse_args()
    src, build = os.path.realpath(a.src), os.path.realpath(a.build)
    objdir = os.path.join(build, "CMakeFiles", "simcore_emu.dir")
    gcdas = []
    for root, _, files in os.walk(objdir):
        gcdas += [os.path.join(root, f) for f in files if f.endswith(".gcda")]
    if not gcdas:
        die("no .gcda files under %s: a build with --coverage whose emu tests ran "
            "(scripts/emu_coverage.sh)" % objdir)
    lines = collections.defaultdict(dict)  # file -> line -> count (summed over units)
    funcs = collections.defaultdict(int)  # (file, start line, base name) -> runs
    with tempfile.TemporaryDirectory() as tmp:
        for gcda in sorted(gcdas):
            for doc in gcov_json(a.gcov, gcda, tmp):
                for f in doc.get("files", []):
                    rel = relative(f["file"], src, build)
                    if rel is None or not rel.startswith(("gpu/", "core/")):
                        continue
                    for ln in f.get("lines", []):
                        d = lines[rel]
                        d[ln["line_number"]] = d.get(ln["line_number"], 0) + ln["count"]
                    for fn in f.get("functions", []):  # a template's instances as one
                        key = (rel, fn["start_line"], base_name(fn["demangled_name"]))
                        funcs[key] += fn["execution_count"]
    kernels = kernels_in(src)
    # kernels: runs summed over instantiations and translation units
    kruns = collections.defaultdict(int)
    kseen = set()
    by_file = collections.defaultdict(list)  # gpu/ file -> its functions' runs
    for (rel, _, base), count in funcs.items():
        by_file[rel].append(count)
        if base in kernels and rel == kernels[base][0]:
            kruns[base] += count
            kseen.add(base)
    per_file = []
    for rel in sorted(lines):
        if not rel.startswith("gpu/"):
            continue
        d, fl = lines[rel], by_file[rel]
        ks = [k for k, (kf, _) in kernels.items() if kf == rel]
        per_file.append({
            "file": rel, "lines": len(d), "run": sum(1 for c in d.values() if c > 0),
            "functions": len(fl), "functions_not_run": sum(1 for c in fl if c == 0),
            "kernels": len(ks), "kernels_not_run": sum(1 for k in ks if kruns.get(k, 0) == 0)})
    core = [(rel, d) for rel, d in lines.items() if rel.startswith("core/")]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "coverage.csv"), "w") as f:
        f.write("file,lines,lines_run,functions,functions_not_run,kernels,kernels_not_run\n")
        for p in per_file:
            f.write("%(file)s,%(lines)d,%(run)d,%(functions)d,%(functions_not_run)d,"
                    "%(kernels)d,%(kernels_not_run)d\n" % p)
    tl = sum(p["lines"] for p in per_file)
    tr = sum(p["run"] for p in per_file)
    tk = sum(p["kernels"] for p in per_file)
    tkn = sum(p["kernels_not_run"] for p in per_file)
    tf = sum(p["functions"] for p in per_file)
    tfn = sum(p["functions_not_run"] for p in per_file)
    md = ["# The CUDA backend's code run by the emulated GPU tests", "",
          "gpu/: %d of %d lines with code run (%.1f %%), %d of %d functions, %d of %d kernels."
          % (tr, tl, 100.0 * tr / max(tl, 1), tf - tfn, tf, tk - tkn, tk), "",
          "| file | lines | run | % | functions | not run | kernels | not run |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in per_file:
        md.append("| %s | %d | %d | %.1f | %d | %d | %d | %d |" % (
            p["file"], p["lines"], p["run"], 100.0 * p["run"] / max(p["lines"], 1),
            p["functions"], p["functions_not_run"], p["kernels"], p["kernels_not_run"]))
    md += ["", "## Kernels never run", ""]
    never = sorted((kernels[k][0], kernels[k][1], k) for k in kernels if kruns.get(k, 0) == 0)
    absent = ": no code of it in the emulation's objects"
    md += ["- `%s` (%s:%d)%s" % (k, f, l, "" if k in kseen else absent)
           for f, l, k in never] or ["(none)"]
    md += ["", "## Other functions never run", ""]
    md += ["- `%s` (%s:%d)" % (b, r, l) for (r, l, b), c in sorted(funcs.items())
           if c == 0 and r.startswith("gpu/") and b not in kernels] or ["(none)"]
    md += ["", "## Lines never run", "",
           "Runs of lines with code that no test ran (no line between them ran), per file:", ""]
    for p in per_file:
        spans = unrun_spans(lines[p["file"]])
        if spans:
            md.append("- %s: %s" % (p["file"], spans))
    cl = sum(len(d) for _, d in core)
    cr = sum(1 for _, d in core for c in d.values() if c > 0)
    md += ["", "## Core headers compiled into the emulation's device code", "",
           "%d files, %d of %d lines with code run (%.1f %%): the SIM_HD code the kernels call, "
           "which the CPU's own tests also run; the device's copy of a line listed here has run "
           "in no GPU test:" % (len(core), cr, cl, 100.0 * cr / max(cl, 1)), ""]
    for rel, d in sorted(core):
        spans = unrun_spans(d)
        if spans:
            md.append("- %s (%d of %d run): %s"
                      % (rel, sum(1 for c in d.values() if c > 0), len(d), spans))
    with open(os.path.join(a.out, "coverage.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(md[2])
    print("emu_coverage.py: wrote %s" % os.path.join(a.out, "coverage.md"))


if __name__ == "__main__":
    main()

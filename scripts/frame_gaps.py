#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a run's contact frames spend the time no bucket covers, from its timing.csv files.

For each timing.csv given (a run's, e.g. those of `scripts/table3.sh` or of `gpu_report.sh`'s
table3 part, `table3_timing_csv.tgz`), over the frames with contact: the mean `frame_ms` and
the mean gap, `frame_ms` less the buckets it holds (schur, local, global, assemble,
cst_solve, corr, predict, integrate; `cd` and `output` are outside `frame_ms`).
The frames are split three ways:

- whose contact count differs from the frame before's, and whose does not: on the CUDA
  backend a capture of the device Newton solve's graph used to follow every change of the
  count (until 2026-11-29; on the H200's grabbing_raptor with W dense, 0.87 ms of gap on those
  frames against 0.57 on the others), and now only a growth of its arrays;
- where the count first passes every earlier frame's (the arrays that grow with the contacts
  may grow there): their frame_ms against the mean of the frames on either side, summed into
  the time such frames cost over the run.

usage: scripts/frame_gaps.py TIMING.csv [TIMING.csv ...]   (a folder: its */timing.csv)
"""
import csv
import os
import sys

HELD = ("schur", "local", "global", "assemble", "cst_solve", "corr", "predict", "integrate")


def frames(path):
    """The file's rows as dicts of floats (a missing or empty value: 0)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "frame_ms" not in rows[0] or "contacts" not in rows[0]:
        raise ValueError(f"{path}: not a simctl timing.csv (no frame_ms or contacts column)")
    out = []
    for i, r in enumerate(rows, start=2):
        try:
            out.append({k: float(v) if v not in ("", None) else 0.0 for k, v in r.items()})
        except ValueError as e:
            raise ValueError(f"{path}:{i}: expected numbers ({e})") from None
    return out


def gap(r):
    return r["frame_ms"] - sum(r.get(k, 0.0) for k in HELD)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def report(path):
    rows = frames(path)
    changed, same, highs = [], [], []
    best = 0.0
    for i, r in enumerate(rows):
        if r["contacts"] <= 0:
            continue
        prev = rows[i - 1]["contacts"] if i > 0 else 0.0
        (changed if r["contacts"] != prev else same).append(r)
        if r["contacts"] > best:
            if best > 0 and 0 < i < len(rows) - 1 and rows[i + 1]["contacts"] > 0:
                beside = 0.5 * (rows[i - 1]["frame_ms"] + rows[i + 1]["frame_ms"])
                highs.append(r["frame_ms"] - beside)
            best = r["contacts"]
    contact = changed + same
    name = path
    if not contact:
        print(f"| {name} | no frame with contact | | | | | |")
        return
    print(f"| {name} | {len(contact)} | {mean([r['frame_ms'] for r in contact]):.3f} "
          f"| {mean([gap(r) for r in changed]):.3f} ({len(changed)}) "
          f"| {mean([gap(r) for r in same]):.3f} ({len(same)}) "
          f"| {len(highs)} | {sum(highs):.2f} ({sum(highs) / len(contact):.3f}) |")


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    paths = []
    for a in argv[1:]:
        if os.path.isdir(a):
            found = sorted(os.path.join(a, d, "timing.csv") for d in os.listdir(a)
                           if os.path.isfile(os.path.join(a, d, "timing.csv")))
            if not found:
                sys.stderr.write(f"frame_gaps.py: {a}: no */timing.csv in this folder\n")
                return 2
            paths += found
        else:
            paths.append(a)
    print("| timing.csv | frames with contact | mean frame_ms | mean gap, count changed (frames) "
          "| mean gap, count unchanged (frames) | frames of a new most contacts "
          "| their ms over their neighbours' mean, summed (per contact frame) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for p in paths:
        try:
            report(p)
        except (OSError, ValueError) as e:
            sys.stderr.write(f"frame_gaps.py: {e}\n")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

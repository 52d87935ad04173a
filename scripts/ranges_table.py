#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a CUDA run's collision detection goes, from its ranges.csv (SIMCTL_CUDA_RANGES=on,
gpu/range_cuda.h) and timing.csv: a Markdown table per run folder, each range's milliseconds a
frame (its sum over the run's frames, the frames counted by the settles, one a frame), its
count a frame and its mean. Host ranges are the host's wall time inside them; device ranges the
time from the stream reaching their start to its reaching their end (the kernels' run, and any
time the device waited there for the host). Below the table: timing.csv's cd a frame, and the
host's part of `cd: collision detection` outside the `detect:` ranges (posing the obstacles,
merging the contacts, the side memory and skip list: core/contact/world.c).

usage: scripts/ranges_table.py RUN_DIR...   (gpu_report.sh --only profile writes ranges.md so)
"""
import csv
import os
import sys


def table(run):
    path = os.path.join(run, "ranges.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"range", "clock", "count", "total_ms", "mean_us"}
    if not rows or not need <= set(rows[0]):
        raise ValueError(f"{path}: expected the columns {','.join(sorted(need))} and a row")
    by = {(r["clock"], r["range"]): r for r in rows}
    settle = by.get(("host", "settle: wait for the frame"))
    frames = int(settle["count"]) if settle else 0
    if frames <= 0:
        raise ValueError(f"{path}: no settle counted, so no frames to divide by")
    out = [f"### {os.path.basename(os.path.normpath(run))} ({frames} frames)", "",
           "| range | clock | ms a frame | count a frame | mean µs |",
           "| --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['range']} | {r['clock']} | {float(r['total_ms']) / frames:.4f} | "
                   f"{int(r['count']) / frames:.2f} | {float(r['mean_us']):.1f} |")
    cd = by.get(("host", "cd: collision detection"))
    inner = sum(float(r["total_ms"]) for r in rows
                if r["clock"] == "host" and r["range"].startswith("detect: "))
    timing = os.path.join(run, "timing.csv")
    cd_csv = None
    if os.path.exists(timing):
        with open(timing, newline="") as f:
            vals = [float(r["cd"]) for r in csv.DictReader(f) if r.get("cd") not in (None, "")]
        cd_csv = sum(vals) / len(vals) if vals else None
    out.append("")
    if cd_csv is not None:
        out.append(f"timing.csv's cd: {cd_csv:.4f} ms a frame.")
    if cd:
        out.append(f"The host's own part of cd (outside the `detect:` ranges): "
                   f"{(float(cd['total_ms']) - inner) / frames:.4f} ms a frame.")
    out.append("")
    return "\n".join(out)


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    status = 0
    for run in argv[1:]:
        try:
            print(table(run))
        except (OSError, ValueError, KeyError) as e:
            print(f"ranges_table.py: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the project's contact scenes to their end (or a stated frame) and prints one Markdown
row per scene from its summary.json: the deepest contact gap of the run (min_gap, at the steps'
starts), the most contacts in a step, what re-detection added (contacts in steps), the change
of the bodies' volume, the most inverted tetrahedra (and the frame), the largest centre
displacement of a body, and the run's mean frame time. These are the figures of docs/results.md's
table "What each scene looks like at its end"; with --images DIR the PNG snapshots the table
links (docs/contact/NAME_FRAME.png) are copied there.

usage: scripts/scene_ends.py [--simctl PATH] [--out DIR] [--images DIR] [--only NAME[,NAME]]
                             [--threads N] [--set KEY=VALUE ...]
  --out     where the runs write (default out/scene_ends/NAME)
  --images  copy the linked snapshots there (docs/contact to refresh the images docs/results.md links)
  --only    run these scenes only (names as in the list below)
  --set     passed to every run (for example contact.redetect=0 for the paper's detection)
A scene that fails prints its error and the script goes on; it exits 1 if any failed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "scenes")
# name, frames, the frames whose snapshots docs/results.md links
RUNS = [
    ("squeezing_ball", 600, [600]),
    ("sharp_corner", 200, [200]),
    ("cloth_on_knives", 900, [100, 300, 900]),
    ("pulling_wooper", 500, [300, 500]),
    ("gingerbread_man", 810, [810]),
    ("stick_slip", 100, [100]),
    ("soft_box_on_slab", 150, [150]),
    ("box_on_trampoline", 150, [40, 150]),
    ("pushing_wall", 200, [100, 200]),
    ("cable_finger", 150, [150]),
    ("grabbing_raptor", 1860, [500, 900, 1860]),
]


def row(name, frames, s, seconds):
    c = s.get("contact", {})
    m = s.get("measure", {})
    inv = s.get("inverted_tets", {})
    moved = max((sum(d * d for d in b["displacement"]) ** 0.5 for b in s.get("bodies", [])),
                default=0.0)
    gap = c.get("min_gap")
    cells = [
        f"{name} ({frames})",
        f"{gap * 1e3:+.4f}" if gap is not None else "-",
        f"{c.get('contacts_max', 0):,}",
        f"{c.get('redetected', 0):,} in {c.get('redetect_steps', 0)}",
        f"{m.get('change_percent', 0.0):+.3f}" if m.get("rest") else "-",
        f"{inv.get('max', 0)} ({inv.get('max_frame', 0)})" if inv.get("max") else "0",
        f"{moved:.3f}",
        f"{s.get('mean_frame_ms', 0.0):.1f}",
        f"{seconds:.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simctl", default=os.path.join(HERE, "..", "build", "simctl"))
    ap.add_argument("--out", default="out/scene_ends")
    ap.add_argument("--images")
    ap.add_argument("--only")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    if not os.access(a.simctl, os.X_OK):
        sys.exit(f"scene_ends.py: {a.simctl} is not an executable (make build)")
    only = set(a.only.split(",")) if a.only else None
    if only and not only <= {r[0] for r in RUNS}:
        sys.exit(f"scene_ends.py: unknown scene in --only: {', '.join(sorted(only))}")
    print("| scene (frames) | min gap (mm) | contacts max | re-detected (steps) | volume % |"
          " inverted max (frame) | largest move (m) | mean frame (ms) | wall (s) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    failed = 0
    for name, frames, shots in RUNS:
        if only and name not in only:
            continue
        out = os.path.join(a.out, name)
        every = 50 if all(f % 50 == 0 for f in shots) else 10
        cmd = [a.simctl, "run", os.path.join(SCENES, name + ".json"), "-q", "--out", out,
               "--frames", str(frames), "--set", f"output.every={every}",
               "--set", 'output.formats=["png","csv"]']
        if a.threads:
            cmd += ["--threads", str(a.threads)]
        for kv in a.set:
            cmd += ["--set", kv]
        t0 = time.time()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seconds = time.time() - t0
        if r.returncode != 0:
            failed += 1
            print(f"| {name} ({frames}) | failed (exit {r.returncode}): "
                  f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''} |")
            continue
        with open(os.path.join(out, "summary.json")) as f:
            print(row(name, frames, json.load(f), seconds), flush=True)
        if a.images:
            os.makedirs(a.images, exist_ok=True)
            for fr in shots:
                shutil.copyfile(os.path.join(out, "frames", f"{fr:05d}.png"),
                                os.path.join(a.images, f"{name}_{fr}.png"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: MIT
"""Shared by the scripts that tabulate runs (creases.sh, end_pass.sh, edge_pairs.sh,
obstacle_edges.sh): a run folder's timing.csv rows, its summary.json's contact figures, and its
smallest gap at a step's start with that step's frame. Not a command of its own."""
import csv
import json
import math


def read(d):
    """(timing.csv's rows, summary.json's "contact" ({} without), the smallest min_gap (m; nan
    where no step had a contact), its frame ("-" then)) of run folder d."""
    with open(d + "/timing.csv") as f:
        rows = list(csv.DictReader(f))
    gaps = [(float(r["min_gap"]), int(r["frame"])) for r in rows
            if r["min_gap"] not in ("", "inf", "nan")]
    with open(d + "/summary.json") as f:
        contact = json.load(f).get("contact", {})
    gap, at = min(gaps) if gaps else (math.nan, "-")
    return rows, contact, gap, at


def mean(rows, key):
    """The mean of column key over rows."""
    return sum(float(r[key]) for r in rows) / len(rows)

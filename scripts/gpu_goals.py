#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CUDA backend's two goals and the defaults a GPU run decides, from a gpu_report.sh folder.

Reads what `scripts/gpu_report.sh` wrote (docs/gpu_checklist.md) and prints, as Markdown:

- the test programs' exit codes (tests.txt, sanitize.txt);
- Table 3's rows, frame over the paper's frame for each table3 variant that ran, at the frame
  with the most contacts (table3.csv) and over every frame with contact (its runs'
  timing.csv), against the goal of at most 1/5;
- the global step against its bandwidth limit (global_step.md, else bench_gpu.md), at the
  default settings and at the best of the sweep, against the goal of within 2x; and each
  SIMCTL_CUDA_TUNE=on row (-tuned) against the best fixed row of the same chunk and warps,
  which it should keep up with (within 3%) before the tuning becomes the default;
- the contact solve's product with W formed against its block form per row count
  (w_products.csv), and from which row count the block form wins (SIM_CUDA_BLOCK_ROWS);
- the comparisons the defaults follow from: fused against separate launches
  (SIMCTL_CUDA_FUSE), CR's W in float against double, W dense (formed, or in its block form)
  against auto, the block form against W formed
  (SIM_CUDA_DENSE_ROWS), the matrix-free W through the contacts' columns of S against all of S
  (SIMCTL_CUDA_WCOLS), the row gather's chunk and the column gather's warps
  (SIMCTL_CUDA_ROW_CHUNK, SIMCTL_CUDA_COL_WARPS), the local step's register bound
  (SIMCTL_CUDA_LOCAL_BLOCKS) or its split (SIMCTL_CUDA_LOCAL_SPLIT, local_step.md). It states
  the figures; the checklist says what each decides;
- frames written by the loop against the writer thread on the device (output.md, the output
  part: output.async off and on), on's wall time over off's and whether their files agree;
- where the profile part ran (Nsight Systems), each example's costliest kernels, CUDA calls
  and host ranges (profile/EXAMPLE_*.csv).

A part that did not run is named as missing. Meant to be read between two calls to a GPU
machine, when there is little time to read the parts' own files.

usage: scripts/gpu_goals.py REPORT_DIR
"""
import csv
import os
import re
import statistics
import sys

FRAME_GOAL, GLOBAL_GOAL = 0.2, 2.0
VARIANTS = ("host", "device", "fused", "crfloat", "paper", "fastest", "pdl", "tuned",
            "device_dense",
            "device_blocks", "device_dense_launches", "device_allcols", "device_mfreads",
            "device_exact")


class Bad(Exception):
    """Input that is not what gpu_report.sh writes: one line, naming the file and place."""


def table3_scenes():
    """(example, paper vertices) -> scene, from scripts/table3.sh's TABLE."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "table3.sh")
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'^(?:TABLE=")?([a-z_]+)\|(\d+)\|[a-z_]+\|([a-z0-9_]+)\|\d+\|[01]"?$',
                         line.strip())
            if m:
                out[(m.group(1), m.group(2))] = m.group(3)
    return out


def number(path, line, text):
    try:
        return float(text)
    except ValueError:
        raise Bad(f"{path}:{line}: expected a number, got '{text}'") from None


def read_csv(path, need):
    """Rows of a CSV file as dicts; `need`: columns it must have."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    missing = [c for c in need if rows and c not in rows[0]]
    if missing:
        raise Bad(f"{path}:1: expected the column(s) {', '.join(missing)}")
    return rows


def contact_mean(path):
    """The mean frame_ms over a timing.csv's frames with contact, or over all its frames where
    none has contact (Table 3's elastic rows); None where the file is missing or empty."""
    if not os.path.exists(path):
        return None
    rows = read_csv(path, ("frame_ms", "contacts"))
    ms = [(number(path, i, r["frame_ms"]), number(path, i, r["contacts"]) > 0)
          for i, r in enumerate(rows, 2)]
    ms = [m for m, c in ms if c] or [m for m, _ in ms]
    return sum(ms) / len(ms) if ms else None


def ratio(a, b):
    return a / b if a is not None and b else None


def cell(x, goal=None, fmt="{:.2f}"):
    if x is None:
        return "-"
    s = fmt.format(x)
    return s + (" ✓" if goal is not None and x <= goal else "")


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()


def tests_part(d):
    for name in ("tests.txt", "sanitize.txt"):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            print(f"- {name}: missing (the part did not run)")
            continue
        progs = []
        for i, line in enumerate(open(path), 1):
            m = re.match(r"^(\S+)\s+exit\s+(-?\d+)\s+(\d+) s", line)
            if not m:
                raise Bad(f"{path}:{i}: expected 'PROGRAM exit CODE SECONDS s'")
            progs.append((m.group(1), int(m.group(2)), int(m.group(3))))
        bad = [f"{p} ({'SKIPPED: no usable GPU' if c == 77 else 'exit %d' % c})"
               for p, c, _ in progs if c != 0]
        longest = max(progs, key=lambda p: p[2]) if progs else None
        print(f"- {name}: {len(progs) - len(bad)} of {len(progs)} programs passed"
              + (f"; **failed: {', '.join(bad)}**" if bad else "")
              + (f"; the longest {longest[0]}, {longest[2]} s" if longest else ""))
    print()


def table3_part(d):
    """Frame / paper per variant; returns {variant: {(example, vertices): (busiest / paper,
    contact frames' mean / paper, rows, busiest frame ms, contact frames' mean ms)}}."""
    scenes = table3_scenes()
    got = {}
    for v in VARIANTS:
        path = os.path.join(d, "table3_nsn_" + v, "table3.csv")
        if not os.path.exists(path):
            continue
        got[v] = {}
        for i, r in enumerate(read_csv(path, ("example", "vertices", "rows", "frame_ms",
                                               "paper_frame_ms")), 2):
            key = (r["example"], r["vertices"])
            paper = number(path, i, r["paper_frame_ms"]) if r["paper_frame_ms"] else None
            frame = number(path, i, r["frame_ms"])
            mean = None
            if key in scenes:
                mean = contact_mean(os.path.join(d, "table3_nsn_" + v, scenes[key], "timing.csv"))
            got[v][key] = (ratio(frame, paper), ratio(mean, paper), int(number(path, i, r["rows"])),
                           frame, mean)
    if not got:
        print("No table3 part in this folder (table3_nsn_*/table3.csv).\n")
        return got
    keys = []
    for v in got:
        keys += [k for k in got[v] if k not in keys]
    for title, at in (("at the frame with the most contacts", 0), ("over the frames with contact (every frame where none has)", 1)):
        print(f"**Table 3: frame / paper's frame, {title}** (goal at most {FRAME_GOAL}: ✓)\n")
        rows = [[k[0], k[1], str(max(got[v][k][2] for v in got if k in got[v]))]
                + [cell(got[v][k][at] if k in got[v] else None, FRAME_GOAL) for v in got]
                for k in keys]
        met = []
        for v in got:
            vals = [got[v][k][at] for k in keys if k in got[v] and got[v][k][at] is not None]
            n = sum(x <= FRAME_GOAL for x in vals)
            met.append(f"{n} of {len(vals)}" + (" **met**" if vals and n == len(vals) else ""))
        table(["example", "paper vertices", "rows"] + list(got), rows + [["goal met", "", ""] + met])
    return got


def faster(rs):
    """'N of M (median R)': how many ratios are below 1, and their median."""
    if not rs:
        return "- of 0"
    return f"{sum(r < 1.0 for r in rs)} of {len(rs)} (median {statistics.median(rs):.2f})"


def versus_part(got):
    """The variants the defaults follow from, each against the one it would replace."""
    pairs = (("fused", "device", "SIMCTL_CUDA_FUSE=on against the defaults (on since 2026-12-04)"),
             ("device_apart", "device",
              "SIMCTL_CUDA_FUSE=off against on (the default since 2026-12-04)"),
             ("crfloat", "device", "contact.cr_precision float against double"),
             ("fastest", "paper", "the paper's algorithm fused with CR in float, against plain"),
             ("pdl", "fastest",
              "programmatic edges in the graphs (SIMCTL_CUDA_PDL=on) against without, both fastest"),
             ("tuned", "fastest",
              "the global step's gathers tuned (SIMCTL_CUDA_TUNE=on) against the defaults, both "
              "fastest"),
             ("device_dense", "device", "W dense at every size against auto (SIM_CUDA_DENSE_ROWS)"),
             ("device_blocks", "device_dense",
              "W's block form against W formed, both at every size (contact.delassus)"),
             ("device_blocks", "device",
              "W's block form at every size against auto (SIM_CUDA_BLOCK_ROWS, SIM_CUDA_DENSE_ROWS)"),
             ("device_dense_launches", "device_dense", "kernels launched one by one against graphs"),
             ("device_exact", "device",
              "the friction rows' exact Jacobian by GMRES against the lagged one by CR"),
             ("device", "device_allcols",
              "W matrix-free through the contacts' columns of S against all of S (SIMCTL_CUDA_WCOLS;"
              " only rows above SIM_CUDA_DENSE_ROWS differ)"),
             ("device", "device_mfreads",
              "W matrix-free queued with gates against the host reading each decision"
              " (SIMCTL_CUDA_MF_QUEUE; only rows above SIM_CUDA_DENSE_ROWS differ)"))
    for a, b, what in pairs:
        if a not in got or b not in got:
            continue
        rows, busy, mean = [], [], []
        for k in got[a]:
            if k not in got[b] or not got[a][k][2]:
                continue
            x, y = got[a][k], got[b][k]
            r1, r2 = ratio(x[3], y[3]), ratio(x[4], y[4])
            busy += [r1] if r1 is not None else []
            mean += [r2] if r2 is not None else []
            rows.append([k[0], str(x[2]), cell(r1), cell(r2)])
        if rows:
            print(f"**{a} / {b}: {what}** (frame ms; below 1: {a} is faster)\n")
            table(["example", "rows", "at the most contacts", "over the contact frames"], rows)
            print(f"{a} faster on {faster(busy)} of the rows at the most contacts and on "
                  f"{faster(mean)} over the contact frames.\n")


def md_tables(path):
    """Each Markdown table in a file: (header cells, [(line number, row cells)])."""
    out, cur = [], None
    for n, line in enumerate(open(path), 1):
        if not line.startswith("|"):
            cur = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cur is None:
            cur = (cells, [])
            out.append(cur)
        elif not all(set(c) <= set("-: ") for c in cells):
            cur[1].append((n, cells))
    return out


def global_part(d):
    path = next((os.path.join(d, n) for n in ("global_step.md", "bench_gpu.md")
                 if os.path.exists(os.path.join(d, n))), None)
    tabs = [t for t in md_tables(path) if "free unknowns" in t[0] and "global / limit" in t[0]] \
        if path else []
    if not tabs:
        print("No global step sweep in this folder (global_step.md or bench_gpu.md).\n")
        return
    head, body = tabs[0]
    col = {h: i for i, h in enumerate(head)}
    first, best, per_setting, tuned, fixed = {}, {}, {}, {}, {}
    for n, cells in body:
        if len(cells) != len(head):
            raise Bad(f"{path}:{n}: a row of {len(cells)} cells under a header of {len(head)}")
        r = {h: cells[i] for h, i in col.items()}
        if r.get("solver", "sparse_inverse") != "sparse_inverse" or r.get("products") != "kernel":
            continue
        key = (r["scene"], r["precision"])
        ms, lim = number(path, n, r["global ms"]), number(path, n, r["global / limit"])
        setting = (f"chunk {r.get('row chunk', '-').split(' ')[0]}, "
                   f"warps {r.get('warps a column', '-')}")
        # each product alone against its own bytes, and the step with the L2 cache flushed
        # before each call (sweeps since 2026-12-04 evening), captured as a graph without and
        # with programmatic edges (since the sixth session)
        parts = (f"{r.get('S b / its limit', '-')} / {r.get('Sᵀ y / its limit', '-')}; "
                 f"cold {r.get('cold / limit', '-')}; graph {r.get('graph / limit', '-')}, "
                 f"with PDL {r.get('graph+PDL / limit', '-')}")
        first.setdefault(key, (lim, ms, setting, parts))
        if key not in best or ms < best[key][1]:
            best[key] = (lim, ms, setting, parts)
        if r["precision"] == "double":
            per_setting.setdefault(setting, {})[r["scene"]] = ms
        # SIMCTL_CUDA_TUNE's rows (-tuned) against the fixed rows of the same chunk, split and
        # warps, which differ from it only in the layouts and batches it chooses among
        m = re.match(r"(\d+)(\S*)", r.get("row chunk", ""))
        if m:
            tags, warps = m.group(2), r.get("warps a column", "-").split("-")[0]
            base = key + (m.group(1), "-whole" in tags, warps)
            group = tuned if tags.endswith("-tuned") else fixed
            if base not in group or ms < group[base][0]:
                group[base] = (ms, setting)
    if not first:
        print(f"No rows of simctl's gathers (sparse_inverse, kernel) in {os.path.basename(path)}: "
              "the part failed or was cut short (its log says which).\n")
        return
    print(f"**The global step against its bandwidth limit** ({os.path.basename(path)}; goal "
          f"within {GLOBAL_GOAL}x: ✓)\n")
    table(["scene", "precision", "first row (the defaults)", "ms", "best", "ms", "its settings",
           "its S b / Sᵀ y over their limits; cold, as a graph, and a graph with PDL over the "
           "limit"],
          [[k[0], k[1], cell(first[k][0], GLOBAL_GOAL), cell(first[k][1], fmt="{:.4f}"),
            cell(best[k][0], GLOBAL_GOAL), cell(best[k][1], fmt="{:.4f}"), best[k][2],
            best[k][3]] for k in first])
    scenes = {s for v in per_setting.values() for s in v}
    full = {s: sum(v.values()) for s, v in per_setting.items() if set(v) == scenes}
    if len(full) > 1:
        print("Double, summed over the scenes: "
              + "; ".join(f"{s}: {ms:.4f} ms" for s, ms in sorted(full.items(), key=lambda x: x[1]))
              + "\n")
    tuned_part(tuned, fixed)


TUNE_KEEPS_UP = 1.03  # docs/gpu_checklist.md: within a few percent of the best fixed row


def tuned_part(tuned, fixed):
    """SIMCTL_CUDA_TUNE=on's rows against the best fixed row of the same chunk and warps."""
    rows, kept = [], 0
    for base, (ms, setting) in tuned.items():
        if base not in fixed:
            continue
        r = ms / fixed[base][0] if fixed[base][0] > 0 else None
        kept += r is not None and r <= TUNE_KEEPS_UP
        rows.append([base[0], base[1], setting, f"{ms:.4f}", fixed[base][1],
                     f"{fixed[base][0]:.4f}", cell(r, TUNE_KEEPS_UP)])
    if not rows:
        return
    print(f"**SIMCTL_CUDA_TUNE=on against the best fixed row of the same chunk and warps** "
          f"(global ms; at most {TUNE_KEEPS_UP}: the tuning keeps up, ✓)\n")
    table(["scene", "precision", "tuned", "ms", "best fixed", "ms", "tuned / fixed"], rows)
    print(f"The tuning kept up on {kept} of {len(rows)} (where on every one: make it the "
          "default, docs/gpu_checklist.md section 3).\n")


def wprod_part(d):
    """W's product formed against its block form per row count (simctl-bench-wprod)."""
    path = os.path.join(d, "w_products.csv")
    if not os.path.exists(path):
        print("No W products in this folder (w_products.csv, the global part).\n")
        return
    us = {}
    with open(path) as f:
        for n, r in enumerate(csv.DictReader(f), 2):
            if not r.get("us"):
                raise Bad(f"{path}:{n}: expected the columns rows, form, precision, K, us")
            key = (int(number(path, n, r["rows"])), r["precision"], r["K"])
            us.setdefault(key, {})[r["form"]] = (number(path, n, r["us"]),
                                                 number(path, n, r["over_limit"]))
    rows = sorted({k[0] for k in us})
    if not rows:
        print(f"No rows in {path}: the part failed (its log says why).\n")
        return
    print("**W's product, the block form against W formed** (w_products.csv; µs a product, "
          "and over the bandwidth limit; SIM_CUDA_BLOCK_ROWS should be where blocks start to "
          "win at K 1 in double)\n")
    out, wins = [], None
    for m in rows:
        line = [str(m)]
        for prec, K in (("double", "1"), ("float", "1"), ("double", "16")):
            v = us.get((m, prec, K), {})
            if "formed" in v and "blocks" in v:
                line += [f"{v['formed'][0]:.1f} / {v['blocks'][0]:.1f}",
                         f"{v['formed'][1]:.2f} / {v['blocks'][1]:.2f}"]
            else:
                line += ["-", "-"]
        v = us.get((m, "double", "1"), {})
        if "formed" in v and "blocks" in v and v["blocks"][0] < v["formed"][0] and wins is None:
            wins = m
        elif "formed" in v and "blocks" in v and v["blocks"][0] >= v["formed"][0]:
            wins = None
        line.append(f"{v['prepare'][0]:.1f}" if "prepare" in v else "-")
        out.append(line)
    table(["rows", "double µs formed / blocks", "over limit", "float µs", "over limit",
           "batch of 16 µs", "over limit", "k_blk_cols µs"], out)
    print("The block form is faster at K 1 in double from " +
          (f"{wins} rows on (every size measured from there).\n" if wins else
           "no row count on (not at the largest measured).\n"))


def first_table(path, need):
    """The first Markdown table in path with the columns need: ({column: index}, [(line,
    cells)]), every row as long as the header."""
    tabs = [t for t in md_tables(path) if all(h in t[0] for h in need)]
    if not tabs:
        raise Bad(f"{path}: no table with the columns {', '.join(need)}")
    head, body = tabs[0]
    for n, cells in body:
        if len(cells) != len(head):
            raise Bad(f"{path}:{n}: a row of {len(cells)} cells under a header of {len(head)}")
    return {h: i for i, h in enumerate(head)}, body


def local_part(d):
    path = os.path.join(d, "local_step.md")
    if not os.path.exists(path):
        print("No local step sweep in this folder (local_step.md).\n")
        return
    col, body = first_table(path, ("scene", "blocks", "local ms"))
    best = {}
    for n, cells in body:
        scene, blocks, ms = cells[col["scene"]], cells[col["blocks"]], cells[col["local ms"]]
        if not ms or ms == "-":
            continue
        ms = number(path, n, ms)
        best.setdefault(scene, []).append((ms, blocks))
    print("**The local step per L-G iteration by SIMCTL_CUDA_LOCAL_BLOCKS, and split** "
          "(SIMCTL_CUDA_LOCAL_SPLIT=on; local_step.md)\n")
    table(["scene", "ms by blocks", "fastest"],
          [[s, ", ".join(f"{b}: {ms:.4f}" for ms, b in v), min(v)[1]] for s, v in best.items()])


def output_part(d):
    """output.async off against on, on the device (bench_output.sh's table and verdict line)."""
    path = os.path.join(d, "output.md")
    if not os.path.exists(path):
        print("No output part in this folder (output.md).\n")
        return
    need = ("output.async", "wall s", "mean frame ms", "output ms per output frame")
    col, body = first_table(path, need)
    got = {}
    for n, cells in body:
        got[cells[col["output.async"]]] = [number(path, n, cells[col[h]]) for h in need[1:]]
    text = open(path).read()
    same = ("yes" if "the same both ways" in text
            else "no: they differ" if "differ" in text else "not compared (the part was cut short)")
    print("**Frames written by the loop (output.async off) or on the writer thread (on, `auto`'s "
          "choice on the CUDA backend)** (output.md)\n")
    table(["output.async", "wall s", "mean frame ms", "loop's output ms per output frame"],
          [[a] + [f"{x:.2f}" for x in v] for a, v in got.items()])
    if "off" in got and "on" in got:
        print(f"on's wall time over off's: {cell(ratio(got['on'][0], got['off'][0]))}; "
              f"the same frame files both ways: {same}.\n")


# nsys stats' reports that the profile part keeps (gpu_report.sh; the names since 2023, then the
# older ones): file suffix -> (title, the column of the names)
PROFILE_REPORTS = (("cuda_gpu_kern_sum", "kernels", "Name"), ("gpukernsum", "kernels", "Name"),
                   ("cuda_api_sum", "CUDA calls", "Name"), ("cudaapisum", "CUDA calls", "Name"),
                   ("nvtx_sum", "the host's named ranges", "Range"),
                   ("nvtxsum", "the host's named ranges", "Range"))


def profile_part(d, top=10):
    """Each profiled example's costliest kernels, CUDA calls and ranges (Nsight Systems)."""
    pd = os.path.join(d, "profile")
    files = sorted(os.listdir(pd)) if os.path.isdir(pd) else []
    shown = 0
    for f in files:
        for suffix, title, name_col in PROFILE_REPORTS:
            if not f.endswith("_" + suffix + ".csv"):
                continue
            path = os.path.join(pd, f)
            rows = read_csv(path, (name_col,))
            total = next((c for c in (rows[0] if rows else {}) if c.startswith("Total Time")), None)
            count = next((c for c in (rows[0] if rows else {})
                          if c in ("Instances", "Num Calls", "Count")), None)
            if not rows or not total:
                continue
            vals = [(number(path, i, r[total]), r[count] if count else "", r[name_col])
                    for i, r in enumerate(rows, 2)]
            vals.sort(key=lambda v: -v[0])
            whole = sum(v[0] for v in vals) or 1.0
            print(f"**{f[:-len(suffix) - 5]}: {title}, the {min(top, len(vals))} costliest of "
                  f"{len(vals)}** ({f}; {whole / 1e6:.1f} ms in all)\n")
            table(["ms", "share", "count", "name"],
                  [[f"{t / 1e6:.2f}", f"{t / whole:.0%}", c, n[:90]] for t, c, n in vals[:top]])
            shown += 1
    if not shown:
        print("No profile in this folder (profile/*_cuda_gpu_kern_sum.csv and the others).\n")


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    d = argv[1]
    if not os.path.isdir(d):
        print(f"gpu_goals.py: {d}: not a folder (expected gpu_report.sh's --out)", file=sys.stderr)
        return 1
    try:
        print(f"# The CUDA backend's goals, from {d}\n")
        machine = os.path.join(d, "machine.txt")
        if os.path.exists(machine):
            print("Machine (machine.txt):\n\n```\n" + open(machine).read().strip() + "\n```\n")
        tests_part(d)
        versus_part(table3_part(d))
        global_part(d)
        wprod_part(d)
        local_part(d)
        output_part(d)
        profile_part(d)
    except (Bad, OSError) as e:
        print(f"gpu_goals.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

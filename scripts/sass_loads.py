#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How a kernel's loops wait for memory, read off its machine code (`cuobjdump -sass`).

For each kernel whose name matches --match, takes its busiest loop (the backward branch whose
body holds the most double-precision products, DMUL or DFMA: the gathers' sums, three an entry
of S) and walks one trip of it in issue order under a simple model: every global load (LDG)
takes the same latency L, every other instruction none, and an instruction that reads a
register a load writes waits until that load is done. It prints, per kernel:
  regs      registers a thread (with --regs, from ptxas -v's log: scripts/kernel_sass.sh)
  warps     warps a multiprocessor those registers leave room for in blocks of 256 threads
  entries   S's entries a trip (the loop's DMUL/DFMA count over 3)
  loads     global loads a trip
  waits_L   the trip's length in latencies L (a chain index -> vector entry is 2 a trip)
  per_entry waits_L / entries: the latencies an entry of S costs a thread; the gathers' time
            at small sizes, where each thread's chain of loads, not the bytes, sets it
  in_flight the most loads issued and not yet waited for at one time in the trip
This is a model of the code's order, not a timing: the hardware overlaps the trips of other
warps, and the latencies differ (an index from memory, the vector from L2). It tells whether a
batch of loads (SIMCTL_CUDA_GATHER_BATCH) stays a batch after ptxas schedules it, with no GPU:
ptxas may move a batch's loads back beside their sums where it keeps registers few.
With --loops, a row for every loop that holds a product, named by its branch's address.
usage: cuobjdump -sass FILE | scripts/sass_loads.py [--match REGEX] [--regs PTXAS_LOG] [--loops]
"""
import argparse
import re
import subprocess
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
REG = re.compile(r"\bR(\d+)\b(\.64|\.128)?")
FP64 = ("DMUL", "DFMA")


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True, check=True).stdout.split("\n")
        return [o.split("(")[0] for o in out[:len(names)]]
    except (OSError, subprocess.CalledProcessError):
        return names


def parse(lines):
    """{(arch, mangled name): [(address, opcode, operands)]} in the listing's order."""
    funcs, cur, arch = {}, None, ""
    for line in lines:
        if "arch = " in line:
            arch = line.split("arch = ")[-1].strip()
        elif "code for sm_" in line:
            arch = line.strip().split()[-1]
        elif "Function : " in line:
            cur = funcs.setdefault((arch, line.split("Function : ")[-1].strip()), [])
        elif cur is not None:
            m = INSN.search(line)
            if not m:
                continue
            text = re.sub(r"^@!?U?P[T0-9]+\s+", "", m.group(2).strip())
            op, _, rest = text.partition(" ")
            cur.append((int(m.group(1), 16), op, rest))
    return funcs


def width(op):
    return 4 if ".128" in op else 2 if ".64" in op or op.startswith("D") else 1


def regs_of(text):
    """Registers an operand text names, a 64-bit pair's second too."""
    out = set()
    for m in REG.finditer(text):
        r, w = int(m.group(1)), m.group(2)
        out.update(range(r, r + (4 if w == ".128" else 2 if w == ".64" else 1)))
    return out


def split_ops(op, rest):
    """(registers written, registers read) of one instruction, roughly: the first operand is
    the destination but for stores, branches and the like."""
    parts = [p.strip() for p in rest.split(",")]
    if not parts or op.startswith(("ST", "RED", "BRA", "BAR", "EXIT", "RET", "CALL", "BSYNC",
                                   "BSSY", "WARPSYNC", "ISETP", "DSETP", "FSETP")):
        return set(), regs_of(rest)
    dst = regs_of(parts[0])
    if dst and op.startswith(("D", "LDG")) and not op.startswith("DSETP"):
        base = min(dst)
        dst = set(range(base, base + width(op)))
    return dst, regs_of(",".join(parts[1:]))


def loops(code):
    """(products, body, address) of every backward branch's loop with a DMUL or DFMA."""
    out = []
    for addr, op, rest in code:
        if op.startswith("BRA"):
            m = re.search(r"0x([0-9a-f]+)", rest)
            if not m or int(m.group(1), 16) > addr:
                continue
            body = [c for c in code if int(m.group(1), 16) <= c[0] <= addr]
            fp = sum(1 for c in body if c[1].startswith(FP64))
            if fp:
                out.append((fp, body, addr))
    return out


def busiest_loop(code):
    found = loops(code)
    return max(found, key=lambda f: f[0])[:2] if found else None


def walk(body):
    """(waits in L, most loads in flight) over one trip of the body."""
    t, ready, pending, most = 0, {}, [], 0
    for _, op, rest in body:
        dst, src = split_ops(op, rest)
        for r in src:
            if r in ready and ready[r] > t:
                t = ready[r]
        pending = [p for p in pending if p > t]
        for r in dst:
            ready.pop(r, None)
        if op.startswith("LDG"):
            for r in dst:
                ready[r] = t + 1
            pending.append(t + 1)
            most = max(most, len(pending))
    # what the trip's own loads still owe at its end (the sums wait for them)
    return max([t] + list(ready.values())), most


def ptxas_regs(path):
    """{mangled name: registers} from ptxas -v's log."""
    regs, name = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            regs[name] = int(m.group(1))
            name = None
    return regs


def warps(regs):
    """Warps a multiprocessor of 65,536 registers and 64 warps holds in blocks of 256 threads,
    each warp's registers taken in units of 256."""
    if not isinstance(regs, int):
        return "-"
    per_warp = -(-regs * 32 // 256) * 256
    return min(64, 65536 // (per_warp * 8) * 8)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--match", default=r"k_rows|k_cols")
    ap.add_argument("--regs", help="ptxas -v's log, for the registers")
    ap.add_argument("--loops", action="store_true",
                    help="every loop with a product (its branch's address), not the busiest")
    a = ap.parse_args()
    funcs = parse(sys.stdin)
    regs = ptxas_regs(a.regs) if a.regs else {}
    keys = list(funcs)
    names = demangle([k[1] for k in keys])
    rows = []
    for (arch, mangled), name in zip(keys, names):
        if not re.search(a.match, name):
            continue
        code = funcs[(arch, mangled)]
        r = regs.get(mangled, "-")
        found = loops(code) if a.loops else [l + ("",) for l in [busiest_loop(code)] if l]
        if not found:
            rows.append((name, arch, r, warps(r), "-", "-", "-", "-", "-"))
        for fp, body, at in found:
            entries = fp / 3.0
            waits, most = walk(body)
            loads = sum(1 for c in body if c[1].startswith("LDG"))
            label = "%s @0x%04x" % (name, at) if a.loops else name
            rows.append((label, arch, r, warps(r), "%g" % entries, loads, waits,
                         "%.2f" % (waits / entries), most))
    print("| kernel | arch | regs | warps | entries | loads | waits_L | per_entry | in_flight |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in sorted(rows, key=lambda r: (r[1], r[0])):
        print("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |" % r)
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())

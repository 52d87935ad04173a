#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every kernel of the CUDA backend begins with SIM_PDL_WAIT() (gpu/pdl.cuh): with
SIMCTL_CUDA_PDL=on a kernel may be launched before the one it follows has finished, and only the
wait makes that kernel's writes visible to it. Scans each __global__ function defined in the
folder's .cu, .cuh and .h files; names each one whose body does not begin with the wait (FILE:LINE)
and exits 1. The emulation checks the same at run time, for the kernels its tests launch behind
such an edge.
usage: check_pdl_waits.py GPU_DIR"""
import os
import re
import sys


def kernels(src):
    """(line, whether the body begins with the wait) for each __global__ function defined"""
    for m in re.finditer(r'\b__global__\b', src):
        line_start = src.rfind('\n', 0, m.start()) + 1
        if '//' in src[line_start:m.start()] or '*' in src[line_start:m.start()].strip()[:1]:
            continue  # in a comment
        i, depth = m.end(), 0
        while i < len(src):
            c = src[i]
            if c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
            elif depth == 0 and c in ';{':
                break
            i += 1
        if i >= len(src) or src[i] == ';':
            continue  # a declaration
        body = src[i + 1:]
        yield src.count('\n', 0, m.start()) + 1, re.match(r'\s*SIM_PDL_WAIT\(\);', body) is not None


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.stderr.write(__doc__.split('usage: ')[1] + '\n')
        return 2
    root, total, bad = sys.argv[1], 0, []
    for name in sorted(os.listdir(root)):
        if not name.endswith(('.cu', '.cuh', '.h')):
            continue
        path = os.path.join(root, name)
        with open(path, encoding='utf-8') as f:
            for line, ok in kernels(f.read()):
                total += 1
                if not ok:
                    bad.append('%s:%d' % (path, line))
    for b in bad:
        print('%s: a kernel whose body does not begin with SIM_PDL_WAIT(); (gpu/pdl.cuh)' % b)
    print('check_pdl_waits: %d kernels, %d without the wait first' % (total, len(bad)))
    return 1 if bad or total == 0 else 0


if __name__ == '__main__':
    sys.exit(main())

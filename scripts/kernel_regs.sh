#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Registers, stack and spills of every CUDA kernel in gpu/, as ptxas reports them when it
# compiles for the build's architecture (nvcc -Xptxas -v with the build's flags: C++17, -O3,
# -fmad=false). No GPU needed. A kernel's registers bound how many of its threads a
# multiprocessor holds (65,536 registers: 232 a thread leave one block of 256), so this says
# which kernels run at low occupancy and what a __launch_bounds__ costs in spills.
# usage: scripts/kernel_regs.sh [--nvcc PATH] [--arch sm_NN] [--match REGEX] [FILE.cu...]
#   FILE.cu: the sources to compile (default gpu/*.cu); --match: only kernels whose demangled
#   name matches REGEX (grep -E), e.g. --match 'k_project|k_arap'
set -euo pipefail
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)} ARCH=sm_90 MATCH=.
FILES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nvcc) NVCC=${2:?--nvcc needs a value}; shift 2 ;;
    --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
    --match) MATCH=${2:?--match needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "kernel_regs.sh: unknown option '$1' (see the usage at the top)" >&2; exit 2 ;;
    *) FILES+=("$1"); shift ;;
  esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/kernel_nvcc.sh"
kernel_need_nvcc kernel_regs.sh "$NVCC"
[ ${#FILES[@]} -gt 0 ] || FILES=("$ROOT"/gpu/*.cu)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| file | kernel | registers | stack bytes | spill stores | spill loads |"
echo "| --- | --- | --- | --- | --- | --- |"
for f in "${FILES[@]}"; do
  : >"$TMP/log"
  kernel_nvcc kernel_regs.sh "$NVCC" "$ARCH" "$ROOT" "$f" "$TMP/k.o" "$TMP/log" -c
  # ptxas prints, per function: "Compiling entry function 'NAME'", then its stack and spills,
  # then "Used N registers"
  awk -v file="$(basename "$f")" '
    /Compiling entry function/ { match($0, /'\''[^'\'']*'\''/); name = substr($0, RSTART + 1, RLENGTH - 2); next }
    name != "" && /bytes stack frame/ { stack = $1; st = $5; ld = $9; next }
    name != "" && /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); r = substr($0, RSTART + 5, RLENGTH - 5)
      print file "\t" name "\t" r "\t" stack "\t" st "\t" ld; name = "" }' "$TMP/log" |
    while IFS=$'\t' read -r file name r stack st ld; do
      dn=$(c++filt "$name" 2>/dev/null || echo "$name")
      grep -qE -- "$MATCH" <<<"$dn" || continue
      echo "| $file | \`${dn%%(*}\` | $r | $stack | $st | $ld |"
    done
done

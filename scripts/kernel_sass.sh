#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How the global step's gathers wait for memory, read off their machine code, with no GPU:
# compiles a gpu/ source for one architecture with the build's flags (nvcc -cubin, C++17, -O3,
# -fmad=false; ptxas -v for the registers), disassembles it (cuobjdump -sass) and prints
# scripts/sass_loads.py's table: per kernel its registers, the warps a multiprocessor they leave
# room for, and in its busiest loop the entries of S a trip, the loads, the trip's length in
# memory latencies and that per entry (the chain of loads each thread waits through), and the
# most loads in flight at once.
# usage: scripts/kernel_sass.sh [--nvcc PATH] [--cuobjdump PATH] [--arch sm_NN] [--match REGEX]
#                               [--loops] [FILE.cu...]
#   FILE.cu: default gpu/global_step.cu; --match: kernels whose demangled name matches REGEX
#   (default 'k_rows|k_cols'); --cuobjdump: default the one beside nvcc, else on PATH; --loops:
#   a row for every loop with a product, not only each kernel's busiest.
# A toolkit without cuobjdump (the development VM's nvcc 13.0 has neither it nor nvdisasm) can
# borrow an older one: Debian's nvidia-cuda-toolkit (bookworm non-free, CUDA 11.8) unpacked
# anywhere with dpkg-deb -x (docs/cuda_backend.md says how). A newer nvcc (13.0 here) writes
# a cubin's ELF header in a form 11.8's cuobjdump refuses ("Support for 'sm_4' has been
# removed"); where it does, the header's four identifying fields are rewritten in the old form
# (OS/ABI 0x33, ABI version 7, e_version 0x76 and e_flags with the architecture in its low and
# third bytes) on a copy, and the machine code, which is the same, disassembled from that; the
# script says so on stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/kernel_nvcc.sh"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)} ARCH=sm_90
MATCH='k_rows|k_cols' CUOBJDUMP="" LOOPS=()
FILES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nvcc) NVCC=${2:?--nvcc needs a value}; shift 2 ;;
    --cuobjdump) CUOBJDUMP=${2:?--cuobjdump needs a value}; shift 2 ;;
    --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
    --match) MATCH=${2:?--match needs a value}; shift 2 ;;
    --loops) LOOPS=(--loops); shift ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "kernel_sass.sh: unknown option '$1' (see the usage at the top)" >&2; exit 2 ;;
    *) FILES+=("$1"); shift ;;
  esac
done
kernel_need_nvcc kernel_sass.sh "$NVCC"
[ -n "$CUOBJDUMP" ] || CUOBJDUMP=$(ls "$(dirname "$NVCC")/cuobjdump" 2>/dev/null ||
  command -v cuobjdump || true)
if [ -z "$CUOBJDUMP" ] || [ ! -x "$CUOBJDUMP" ]; then
  echo "kernel_sass.sh: no cuobjdump beside $NVCC or on PATH (give --cuobjdump PATH; the" \
    "header of this script says where to find one)" >&2
  exit 2
fi
[ ${#FILES[@]} -gt 0 ] || FILES=("$ROOT/gpu/global_step.cu")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for f in "${FILES[@]}"; do
  kernel_nvcc kernel_sass.sh "$NVCC" "$ARCH" "$ROOT" "$f" "$TMP/k.cubin" "$TMP/ptxas.log" -cubin
  if ! "$CUOBJDUMP" -sass "$TMP/k.cubin" >>"$TMP/sass" 2>"$TMP/err"; then
    # an older cuobjdump and a newer cubin's header (above): rewrite it on a copy
    python3 - "$TMP/k.cubin" "$TMP/old.cubin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
if b[:4] != b"\x7fELF" or b[7] != 0x41:
    sys.exit("not a cubin with the newer header (OS/ABI 0x41)")
sm = (struct.unpack_from("<I", b, 0x30)[0] >> 8) & 0xFF
b[7], b[8] = 0x33, 7
struct.pack_into("<I", b, 0x14, 0x76)
struct.pack_into("<I", b, 0x30, sm | 0x0500 | sm << 16)
open(sys.argv[2], "wb").write(b)
PY
    echo "kernel_sass.sh: note: $CUOBJDUMP refused $(basename "$f")'s cubin ($(head -c 120 \
      "$TMP/err")); disassembled a copy with its ELF header in the older form" >&2
    "$CUOBJDUMP" -sass "$TMP/old.cubin" >>"$TMP/sass"
  fi
done
python3 "$ROOT/scripts/sass_loads.py" --match "$MATCH" --regs "$TMP/ptxas.log" "${LOOPS[@]}" \
  <"$TMP/sass"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs this machine's CUDA build for a GPU machine that has the CUDA toolkit but no package
# registry (no CHOLMOD, cJSON, libpng or tetgen to install): the relocatable bundle without the
# CUDA libraries (scripts/bundle.sh --no-cuda-libs), the GPU test programs and
# simctl-bench-global, simctl-bench-wprod, and run.sh, which
# on the GPU machine unpacks them and runs scripts/gpu_report.sh from this source tree:
#   here:  make build && scripts/gpu_pack.sh --out DIR     (about 40 MiB with the kernels for
#          sm_75, sm_80 and sm_90 (2026-12-04): the test programs, each linked with the whole
#          library, packed in tests.tar.xz, or tests.tar.gz where this machine has no xz (55
#          MiB); smaller from `make build CUDA_ARCHS=90-real,90-virtual`)
#   there: bash DIR/run.sh [REPORT_DIR] [gpu_report.sh options]   (from the source tree's root)
# usage: scripts/gpu_pack.sh [--build DIR] [--out DIR]
set -euo pipefail
BUILD="$(cd "$(dirname "$0")/.." && pwd)"/build OUT=out/gpu_pack
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=${2:?--build needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_pack.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
HERE="$(cd "$(dirname "$0")" && pwd)"
die() { echo "gpu_pack.sh: $*" >&2; exit 1; }
[ -x "$BUILD/simctl" ] || die "$BUILD/simctl not found: build first (make build)"
GPU_TESTS="test_gpu_backend test_gpu_runs test_gpu_contact test_gpu_detect test_gpu_points test_gpu_delassus
  test_gpu_solvers test_gpu_contact_ops"
for t in $(printf 'tests/%s ' $GPU_TESTS) simctl-bench-global simctl-bench-wprod; do
  [ -x "$BUILD/$t" ] || die "$BUILD/$t not found: build first (make build, with nvcc)"
done
ldd "$BUILD/simctl" | grep -q libcusparse || die "$BUILD/simctl was built without CUDA (nvcc)"
# OUT is this script's: a new or empty folder, or an earlier pack (run.sh, tests.tar.xz or .gz)
if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ] && [ ! -f "$OUT/run.sh" ]; then
  die "$OUT holds files that are not an earlier pack: give a new or empty --out"
fi
rm -rf "$OUT"
mkdir -p "$OUT/tests"
bash "$HERE/bundle.sh" --no-cuda-libs --out "$OUT" "$BUILD/simctl" >&2
for t in $GPU_TESTS; do cp "$BUILD/tests/$t" "$OUT/tests/"; done
cp "$BUILD"/simctl-bench-global "$BUILD"/simctl-bench-wprod "$OUT/tests/"
# xz where this machine has it: the programs share most of their bytes (the same library's
# kernels), which xz's window finds and gzip's does not (19 against 35 MB on 2026-12-04)
if command -v xz >/dev/null; then
  tar -cf - -C "$OUT" tests | xz -6 -T0 >"$OUT/tests.tar.xz"
else
  tar -czf "$OUT/tests.tar.gz" -C "$OUT" tests
fi
rm -rf "$OUT/tests"
cat >"$OUT/run.sh" <<'EOF'
#!/usr/bin/env bash
# Unpacks the bundle next to this script into a temporary folder and runs
# scripts/gpu_report.sh (from the current directory, the source tree's root) with the bundle's
# libraries and the machine's CUDA toolkit on LD_LIBRARY_PATH.
# usage: bash PACK/run.sh [REPORT_DIR] [gpu_report.sh options]
set -u
PACK=$(cd "$(dirname "$0")" && pwd)
REPORT=out/gpu_report
case ${1:-} in -*) ;; ?*) REPORT=$1; shift ;; esac # REPORT_DIR may be left out before options
[ -f scripts/gpu_report.sh ] || { echo "run.sh: run it from the simctl source tree's root" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/simctl-pack.XXXXXX") || exit 2
tar -xzf "$PACK"/simctl-*.tar.gz -C "$T" || exit 2
B=$(echo "$T"/simctl-*)
if [ -f "$PACK/tests.tar.gz" ]; then
  tar -xzf "$PACK/tests.tar.gz" -C "$T" || exit 2
elif command -v xz >/dev/null; then
  tar -xJf "$PACK/tests.tar.xz" -C "$T" || exit 2
else # no xz program here: Python's tarfile reads xz itself (its lzma module)
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    "$PACK/tests.tar.xz" "$T" || exit 2
fi
mkdir -p "$T/build"
mv "$T/tests" "$T/build/tests"
mv "$T/build/tests/simctl-bench-global" "$T/build/tests/simctl-bench-wprod" "$T/build/"
ln -s "$B/bin/simctl" "$T/build/simctl"
CUDA_LIB=${CUDA_HOME:-/usr/local/cuda}/lib64
export LD_LIBRARY_PATH="$B/lib:$CUDA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# a toolkit elsewhere (a Python wheel's nvidia/ folders, say): look for what is still missing
for lib in $(ldd "$B/bin/simctl" | awk '/not found/ { print $1 }'); do
  d=$(find / -xdev -name "$lib" -print -quit 2>/dev/null)
  [ -n "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$d")"
done
if ldd "$B/bin/simctl" | grep "not found" >&2; then
  echo "run.sh: the libraries above were found nowhere (set CUDA_HOME to the CUDA toolkit)" >&2
  exit 2
fi
# the test programs are not beside the bundle's tetgen, and this machine may have none of its own
export SIMCTL_TETGEN="${SIMCTL_TETGEN:-$B/bin/tetgen}"
bash scripts/gpu_report.sh --build "$T/build" --out "$REPORT" "$@"
EOF
chmod +x "$OUT/run.sh"
du -sh "$OUT" >&2
# the device tool carries at most 64 MiB, the source tree included: git's files, tracked or
# untracked and not ignored (5 MiB on 2026-12-04)
mib=$(du -sm "$OUT" | cut -f1)
# (du's totals summed: xargs may run it more than once; a listed file gone from the tree is
# left out)
tree=$( (cd "$HERE/.." && git ls-files -z --cached --others --exclude-standard 2>/dev/null |
  xargs -0 du -cb 2>/dev/null || true) | awk '$2 == "total" { t += $1 } END { print t + 0 }')
tree_mib=$(((tree + 1048575) / 1048576))
echo "gpu_pack.sh: $mib MiB packed, $tree_mib MiB of source tree: $((mib + tree_mib)) of the 64 MiB a device tool call carries" >&2
if [ $((mib + tree_mib)) -gt 60 ]; then
  echo "gpu_pack.sh: note: near the 64 MiB;" \
    "a build for the GPU's architecture alone packs smaller (make build CUDA_ARCHS=90-real,90-virtual)" >&2
fi
echo "$OUT"

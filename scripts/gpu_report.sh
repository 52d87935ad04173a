#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Everything the CUDA backend needs checked and measured on a machine with an NVIDIA GPU, in one
# go, into one folder: the GPU tests (label gpu: collision detection and every operation against
# the CPU backend, short runs, the contact stage), then scripts/bench_gpu.sh (elastic Table 3 rows, kernels against
# cuSPARSE, double against float, the bandwidth limit) and scripts/table3.sh with
# solver.device=cuda (the contact rows at the paper's sizes). The test binaries are run
# directly from tests/ (their working directory under CTest), so a build copied from another
# machine works where its CTest files' absolute paths would not; put the libraries it needs on
# LD_LIBRARY_PATH (README: the CUDA backend on a machine with a GPU).
# usage: scripts/gpu_report.sh [--build DIR] [--out DIR] [--rows all|small] [--skip-bench]
#                              [--sanitize]
#   --sanitize: each GPU test also runs under compute-sanitizer (memcheck: out-of-bounds and
#               misaligned accesses, leaks; and, for the per-operation tests, racecheck and
#               synccheck: shared-memory races and misused barriers) where the CUDA toolkit has
#               it; its log goes to DIR/sanitizer.log
set -uo pipefail
BUILD=build OUT=out/gpu_report ROWS=small BENCH=1 SANITIZE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --skip-bench) BENCH=0; shift ;;
    --sanitize) SANITIZE=1; shift ;;
    *) echo "gpu_report.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD=$(cd "$BUILD" && pwd) || exit 2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
{
  date -u
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  "$BUILD/simctl" --version
} | tee "$OUT/machine.txt"
FAIL=0
: >"$OUT/tests.log" # this run's logs only
: >"$OUT/sanitizer.log"
for t in test_gpu_detect test_gpu_delassus test_gpu_backend test_gpu_runs test_gpu_contact; do
  echo "== $t" | tee -a "$OUT/tests.log"
  (cd "$ROOT/tests" && "$BUILD/tests/$t") >>"$OUT/tests.log" 2>&1
  rc=$?
  echo "   exit $rc" | tee -a "$OUT/tests.log"
  if [ $rc -eq 77 ]; then # SKIPPED: no usable device (an old driver, no GPU): nothing to test
    grep -m1 SKIPPED "$OUT/tests.log" >&2
    echo "gpu_report.sh: $t found no usable CUDA device; stopping (nothing was tested)" >&2
    exit 1
  fi
  [ $rc -eq 0 ] || FAIL=1
done
tail -n 40 "$OUT/tests.log"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ "$SANITIZE" = 1 ] && [ -n "$CS" ]; then
  for t in test_gpu_detect test_gpu_delassus test_gpu_backend test_gpu_runs; do
    echo "== memcheck $t" >>"$OUT/sanitizer.log"
    (cd "$ROOT/tests" && "$CS" --tool memcheck --leak-check full "$BUILD/tests/$t") \
      >>"$OUT/sanitizer.log" 2>&1 || FAIL=1
  done
  # shared-memory races and barriers: what the host emulation (tests/emu) cannot see
  for tool in racecheck synccheck; do
    for t in test_gpu_detect test_gpu_delassus test_gpu_backend; do
      echo "== $tool $t" >>"$OUT/sanitizer.log"
      (cd "$ROOT/tests" && "$CS" --tool $tool --error-exitcode 1 "$BUILD/tests/$t") \
        >>"$OUT/sanitizer.log" 2>&1 || FAIL=1
    done
  done
  grep -E "^== |ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log"
elif [ "$SANITIZE" = 1 ]; then
  echo "compute-sanitizer not found: --sanitize skipped" | tee -a "$OUT/sanitizer.log"
fi
if [ "$BENCH" = 1 ]; then
  bash "$ROOT/scripts/bench_gpu.sh" --simctl "$BUILD/simctl" --out "$OUT/bench" | tee "$OUT/bench_gpu.md"
  bash "$ROOT/scripts/table3.sh" --simctl "$BUILD/simctl" --out "$OUT/table3" --rows "$ROWS" \
    --set solver.device=cuda | tee "$OUT/table3_cuda.txt"
fi
exit $FAIL

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Which of the CUDA backend's code the GPU tests run, measured on the host emulation of CUDA
# (tests/emu): a build whose rewritten gpu/*.cu are compiled with gcc's --coverage
# (SIMCTL_EMU_COVERAGE; CUDA off, the emulation on, Release: some lines of code the optimiser
# merged count as one), the tests of label emu (the GPU tests on the emulation, with its schedule and command-line tests), then
# scripts/emu_coverage.py over the emulation library's .gcda files: per file of gpu/ its lines
# with code and those run, its functions and kernels and those never run, and the list of every
# kernel and function never run (OUT/coverage.md, OUT/coverage.csv). A kernel no test runs is
# one whose first run would be on a GPU, with its result compared with nothing.
# It takes about 25 minutes on 2 cores (the build 1, the tests 23-24; 2026-12-07).
# usage: scripts/emu_coverage.sh [--build DIR] [--out DIR] [--jobs N] [--tests REGEX]
#                                [--no-build] [--keep]
#   --build DIR   the coverage build (default build-cov)
#   --out DIR     where coverage.md and coverage.csv go (default out/emu_coverage)
#   --tests REGEX only the emu tests whose names match (ctest -R; default all of label emu)
#   --no-build    the build is there: no configure or build, its .gcda files cleared
#   --keep        keep the .gcda files of the runs before (add this run's counts to theirs;
#                 those of a file compiled again since are dropped)
# A test that fails is named and makes the exit status 1; the figures are written all the same.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-cov" OUT="$ROOT/out/emu_coverage" JOBS=$(nproc) TESTS="" BUILD_IT=1 KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=${2:?--build needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --jobs) JOBS=${2:?--jobs needs a value}; shift 2 ;;
    --tests) TESTS=${2:?--tests needs a value}; shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --keep) KEEP=1; shift ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "emu_coverage.sh: unknown argument '$1' (see the usage at the top)" >&2; exit 2 ;;
  esac
done
if ! [[ "$JOBS" =~ ^[1-9][0-9]*$ ]]; then
  echo "emu_coverage.sh: --jobs $JOBS: expected a whole number above 0" >&2
  exit 2
fi
for tool in gcov python3 cmake ctest; do
  if ! command -v "$tool" >/dev/null; then
    echo "emu_coverage.sh: $tool: not found (gcc's gcov, Python 3 and CMake are needed)" >&2
    exit 2
  fi
done
if [ "$BUILD_IT" = 1 ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DSIMCTL_CUDA=OFF -DSIMCTL_CUDA_EMU=ON \
    -DSIMCTL_EMU_COVERAGE=ON >/dev/null
  cmake --build "$BUILD" -j "$JOBS" >/dev/null
elif [ ! -f "$BUILD/CTestTestfile.cmake" ]; then
  echo "emu_coverage.sh: $BUILD: no build there (leave out --no-build to make one)" >&2
  exit 2
fi
if [ ! -d "$BUILD/CMakeFiles/simcore_emu.dir" ]; then
  echo "emu_coverage.sh: $BUILD: no emulation library (SIMCTL_CUDA_EMU needs x86-64)" >&2
  exit 2
fi
if [ "$KEEP" = 1 ]; then # counts of an object compiled again since are gcov's stamp mismatch
  find "$BUILD" -name '*.gcda' | while read -r g; do
    # an if, not an && list: a last test that is false would end the script under set -e
    if [ "${g%.gcda}.gcno" -nt "$g" ]; then rm -f "$g"; fi
  done
else
  find "$BUILD" -name '*.gcda' -delete
fi
STATUS=0
SELECT=(-L emu)
[ -n "$TESTS" ] && SELECT+=(-R "$TESTS")
if ! (cd "$BUILD" && ctest "${SELECT[@]}" -j "$JOBS" --no-tests=error --output-on-failure \
  >"$BUILD/emu_coverage_ctest.log" 2>&1); then
  echo "emu_coverage.sh: some tests failed (the figures count what ran):" >&2
  grep -E "\*\*\*|Failed|Not Run|No tests" "$BUILD/emu_coverage_ctest.log" >&2 || true
  STATUS=1
fi
python3 "$ROOT/scripts/emu_coverage.py" --build "$BUILD" --src "$ROOT" --out "$OUT"
exit $STATUS

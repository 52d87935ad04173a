#!/usr/bin/env bash
# Checks are eval strings, so shellcheck cannot see some uses of variables.
# shellcheck disable=SC2034,SC2016
# SPDX-License-Identifier: MIT
# The relocatable bundle (scripts/bundle.sh, `make bundle`) end to end: builds one from the
# built simctl into a temp dir, extracts it elsewhere, checks with ldd that every library the
# two programs need resolves inside the bundle except the glibc family, the NVIDIA driver's
# and (built with --no-cuda-libs) the CUDA toolkit's, then runs from it under `env -i` (PATH=/nonexistent, no HOME so no TetGen cache):
# a procedural bar, and a "file" mesh that the bundled tetgen meshes (a stub put in its place
# must then be what runs).
# usage: test_bundle.sh PATH/TO/simctl   (fixtures in tests/data/cli; everything else in a temp dir)
set -u

[ $# -eq 1 ] || { echo "usage: $0 PATH/TO/simctl" >&2; exit 2; }
SIMCTL=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/data/cli
T=$(mktemp -d "${TMPDIR:-/tmp}/simctl-bundle-test.XXXXXX") || exit 2
T=$(cd -P "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

FAIL=0
check() { # check DESC COMMAND...: passes when COMMAND succeeds
  local desc=$1
  shift
  if "$@"; then echo "ok - $desc"; else
    echo "not ok - $desc"
    FAIL=$((FAIL + 1))
    return 1
  fi
}
# bundled [VAR=VALUE...] ARGS...: runs the extracted bin/simctl in a clean environment;
# output in $T/log, exit code in RC.
RC=0
bundled() {
  env -i PATH=/nonexistent TMPDIR="$T/tmp" "$@" >"$T/log" 2>&1
  RC=$?
}
show() { sed 's/^/    /' "$T/log"; }

# 1. build and extract
mkdir -p "$T/tmp" "$T/x"
# --no-cuda-libs: a CUDA build's toolkit libraries (cuSPARSE: 180 MB compressed) stay out of
# the test's bundle; they then resolve from the toolkit, which ldd_inside accepts
if ! bash "$HERE/../scripts/bundle.sh" --no-cuda-libs --out "$T/out" "$SIMCTL" >"$T/log" 2>&1; then
  echo "not ok - scripts/bundle.sh failed:"
  show
  exit 1
fi
TARBALL=$(tail -n 1 "$T/log")
check "bundle.sh wrote $(basename "$TARBALL")" test -s "$TARBALL"
tar -xzf "$TARBALL" -C "$T/x" || exit 1
B=$T/x/$(basename "$TARBALL" .tar.gz)
for f in bin/simctl bin/tetgen libexec/simctl libexec/tetgen; do
  check "bundle holds $f" test -x "$B/$f"
done
check "bundle holds README.txt" grep -q "Which libraries are bundled" "$B/README.txt"

# 2. ldd: what resolves outside lib/ must be glibc's or the driver's
SYSTEM='^(ld-linux.*|libc|libm|libmvec|libpthread|libdl|librt|libutil|libresolv|libanl|libnsl|libnss_[a-z]*|libthread_db|libBrokenLocale)\.so|^(libcuda\.so|libnvidia-)'
ldd_inside() {
  local out bad
  out=$(env -i LD_LIBRARY_PATH="$B/lib" ldd "$1") || return 1
  bad=$(printf '%s\n' "$out" | LIB="$B/lib/" SYS="$SYSTEM" awk '
    { n = $1; sub(/.*\//, "", n); lib = ENVIRON["LIB"]; sys = ENVIRON["SYS"] }
    $2 == "=>" && $3 == "not" { print; next }
    $2 == "=>" && index($3, lib) != 1 && n !~ sys && $3 !~ /\/cuda(-[0-9.]+)?\// { print; next }
    $1 ~ /^\// && $1 !~ /\/ld-linux[^\/]*$/ { print }')
  [ -z "$bad" ] || { printf '    outside the bundle: %s\n' "$bad"; return 1; }
}
check "ldd libexec/simctl: every library in lib/ but glibc's and the CUDA toolkit's" ldd_inside "$B/libexec/simctl"
check "ldd libexec/tetgen: every library in lib/ but glibc's" ldd_inside "$B/libexec/tetgen"

# 3. runs in a clean environment
bundled "$B/bin/simctl" run "$DATA/tiny_bar.json" --out "$T/bar" --frames 2
check "env -i bin/simctl run tiny_bar.json: exit 0, summary.json" \
  eval '[ $RC -eq 0 ] && test -s "$T/bar/summary.json"' || show
bundled "$B/bin/simctl" run "$DATA/file_mesh.json" --out "$T/file" --frames 2
check "env -i bin/simctl run file_mesh.json (TetGen): exit 0, summary.json" \
  eval '[ $RC -eq 0 ] && test -s "$T/file/summary.json"' || show
ln -s "$B/bin/simctl" "$T/simctl-link"
check "a symbolic link to bin/simctl runs" eval \
  'env -i PATH=/nonexistent "$T/simctl-link" --version | grep -q "^simctl "'
printf '8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n5 0 0 1\n6 1 0 1\n7 0 1 1\n8 1 1 1\n' \
  >"$T/cube.node"
check "env -i bin/tetgen meshes 8 points" eval \
  'env -i PATH=/nonexistent "$B/bin/tetgen" -Q "$T/cube.node" >/dev/null && test -s "$T/cube.1.ele"'

# 4. the tetgen that ran was the bundle's; SIMCTL_TETGEN still wins and is named on failure
mv "$B/libexec/tetgen" "$B/libexec/tetgen.real"
printf '#!/bin/sh\necho bundled-tetgen-stub\nexit 3\n' >"$B/libexec/tetgen"
chmod 755 "$B/libexec/tetgen"
bundled "$B/bin/simctl" run "$DATA/file_mesh.json" --out "$T/stub" --frames 2
check "with a stub as libexec/tetgen, simctl runs it (exit 4, its output)" \
  eval '[ $RC -eq 4 ] && grep -q "tetgen failed (exit 3): bundled-tetgen-stub" "$T/log"' || show
bundled SIMCTL_TETGEN=/nonexistent/tetgen "$B/bin/simctl" run "$DATA/file_mesh.json" \
  --out "$T/env" --frames 2
check "SIMCTL_TETGEN=/nonexistent/tetgen: exit 4, the path and where it came from" \
  eval '[ $RC -eq 4 ] && grep -q "/nonexistent/tetgen.: No such file.*taken from SIMCTL_TETGEN" "$T/log"' ||
  show

if [ "$FAIL" -ne 0 ]; then
  echo "$FAIL check(s) failed"
  exit 1
fi
echo "all checks passed"

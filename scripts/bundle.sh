#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs simctl, the tetgen program and the shared libraries they need into a relocatable
# tarball, OUT/simctl-<version>-linux-<arch>.tar.gz, that runs on another x86-64 Linux machine
# (a cluster GPU node, say) with no package installed and no root: extract it anywhere and run
# <dir>/bin/simctl. `make bundle` calls it with build/simctl.
#
# usage: scripts/bundle.sh [--out DIR] [--no-cuda-libs] [--tetgen PATH] PATH/TO/simctl
#   --out DIR       where the tarball goes (default out)
#   --no-cuda-libs  leave the CUDA toolkit's libraries out (for targets with a toolkit); the
#                   tarball's name then ends in -nocudalibs
#   --tetgen PATH   the tetgen program to ship (default: tetgen on PATH, Debian's /usr/bin/tetgen)
#
# Layout (under the top directory simctl-<version>-linux-<arch>/):
#   bin/simctl, bin/tetgen          launchers (POSIX sh, builtins only, so `env -i` works)
#   libexec/simctl, libexec/tetgen  the programs, unchanged copies
#   lib/                            the libraries, each under the name the programs ask for
#   README.txt                      what is inside, how to run it, the library rule
#
# Relocation: a launcher rather than an rpath patched in with patchelf. It needs no extra
# package, the programs stay byte-for-byte the built ones, and the launcher is also where the
# fall-back to a system CUDA toolkit lives. It puts lib/ first on LD_LIBRARY_PATH, then the
# caller's LD_LIBRARY_PATH, then $CUDA_HOME/lib64 and /usr/local/cuda/lib64 where they exist,
# and execs libexec/<program>. simctl runs the tetgen beside its own executable
# (/proc/self/exe, see core/mesh/tetgen_run.c), that is libexec/tetgen, which inherits
# LD_LIBRARY_PATH; $SIMCTL_TETGEN, when set, still wins.
#
# Library rule: every shared library `ldd` lists for the two programs is copied, except
#   - the glibc family (ld-linux, libc, libm, libmvec, libpthread, libdl, librt, libutil,
#     libresolv, libanl, libnsl, libnss_*, libthread_db, libBrokenLocale; linux-vdso is the
#     kernel's): the loader and libc must be the target's own and match each other;
#   - the NVIDIA driver's libraries (libcuda, libnvidia-*): they must match the target's
#     kernel driver.
# Everything else is bundled, the GCC run-time too (libstdc++, libgcc_s, libgomp,
# libgfortran, libquadmath) and libz: a node with an older compiler or distribution would
# lack their newer symbol versions. CUDA toolkit libraries (libcudart, libcublas*,
# libcusparse, ..., or anything resolved from a CUDA directory) are bundled unless
# --no-cuda-libs. Libraries opened with dlopen are not seen by ldd; today that is only
# libcuda (the driver's, excluded). The target needs a glibc at least as new as the newest
# GLIBC_ symbol version the bundled files use; README.txt names it.
#
# Idempotent: it stages in a temporary directory and replaces the tarball atomically. The
# last line of output is the tarball's path.
set -euo pipefail
shopt -s nullglob

OUT=out
CUDA_LIBS=1
TETGEN=""
SIMCTL=""
die() {
  echo "bundle.sh: error: $*" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --no-cuda-libs) CUDA_LIBS=0; shift ;;
    --tetgen) TETGEN=${2:?--tetgen needs a path}; shift 2 ;;
    -h|--help) sed -n '8,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$SIMCTL" ] || die "more than one simctl given"; SIMCTL=$1; shift ;;
  esac
done
[ -n "$SIMCTL" ] || die "usage: scripts/bundle.sh [--out DIR] [--no-cuda-libs] [--tetgen PATH] PATH/TO/simctl"
if [ ! -f "$SIMCTL" ] || [ ! -x "$SIMCTL" ]; then
  die "$SIMCTL is not an executable (run make build)"
fi
TETGEN=${TETGEN:-$(command -v tetgen || true)}
if [ -z "$TETGEN" ] || [ ! -x "$TETGEN" ]; then
  die "no tetgen program (install the Debian package tetgen, or pass --tetgen PATH)"
fi
command -v ldd >/dev/null || die "ldd not found (Debian package libc-bin)"

version=$("$SIMCTL" --version | awk '{print $2; exit}')
[ -n "$version" ] || die "$SIMCTL --version printed no version"
name=simctl-$version-linux-$(uname -m)
if [ "$CUDA_LIBS" = 0 ]; then name=$name-nocudalibs; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/simctl-bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/$name
mkdir -p "$root/bin" "$root/libexec" "$root/lib"
install -m 755 "$SIMCTL" "$root/libexec/simctl"
install -m 755 "$TETGEN" "$root/libexec/tetgen"

# ldd also looks in the CUDA toolkit, which the build may reach through an rpath only
ldd_path=${LD_LIBRARY_PATH:-}
for d in ${CUDA_HOME:+"$CUDA_HOME/lib64"} ${CUDA_PATH:+"$CUDA_PATH/lib64"} /usr/local/cuda/lib64; do
  if [ -d "$d" ]; then ldd_path=${ldd_path:+$ldd_path:}$d; fi
done

# "NAME PATH" for each library PROGRAM needs (PATH "-" for linux-vdso, "?" when not found).
needed() {
  { LD_LIBRARY_PATH=$ldd_path ldd "$1" 2>&1 || true; } | awk '
    { n = $1; sub(/.*\//, "", n) } # the loader may be listed by its path
    $2 == "=>" { print n, ($3 == "not" ? "?" : $3); next }
    $1 ~ /^\// { print n, $1; next }
    $1 ~ /^linux-(vdso|gate)/ { print $1, "-" }'
}

# system (glibc family), driver (NVIDIA driver), cuda (CUDA toolkit) or bundle.
class_of() {
  case $1 in
    linux-vdso.so* | linux-gate.so* | ld-linux*.so* | libc.so.* | libm.so.* | libmvec.so.* | \
      libpthread.so.* | libdl.so.* | librt.so.* | libutil.so.* | libresolv.so.* | libanl.so.* | \
      libnsl.so.* | libnss_* | libthread_db.so.* | libBrokenLocale.so.*) echo system ;;
    libcuda.so* | libnvidia-* | libcudadebugger.so*) echo driver ;;
    libcudart.so* | libcublas* | libcusparse* | libcusolver* | libcufft* | libcurand* | \
      libnvJitLink* | libnvrtc* | libnpp* | libnvToolsExt* | libcupti* | libcudnn*) echo cuda ;;
    *) case $2 in */cuda/* | */cuda-[0-9]*/*) echo cuda ;; *) echo bundle ;; esac ;;
  esac
}

excluded=()
left_out=()
cuda=()
for prog in simctl tetgen; do
  src=$SIMCTL
  if [ "$prog" = tetgen ]; then src=$TETGEN; fi
  while read -r lib path; do
    [ "$path" != "?" ] || die "$lib, needed by $prog, is not found by ldd (set LD_LIBRARY_PATH)"
    class=$(class_of "$lib" "$path")
    if [ "$class" = system ] || [ "$class" = driver ]; then
      excluded+=("$lib")
    elif [ "$class" = cuda ] && [ "$CUDA_LIBS" = 0 ]; then
      left_out+=("$lib")
    elif [ ! -e "$root/lib/$lib" ]; then
      install -m 644 "$path" "$root/lib/$lib" # follows links: Debian's alternatives, sonames
      if [ "$class" = cuda ]; then cuda+=("$lib"); fi
    fi
  done < <(needed "$src") # the original, so that an $ORIGIN rpath resolves as built
done

for prog in simctl tetgen; do
  sed "s/@PROG@/$prog/g" >"$root/bin/$prog" <<'EOF'
#!/bin/sh
# simctl bundle launcher: runs libexec/@PROG@ with the bundle's lib/ first on LD_LIBRARY_PATH.
self=$0
case $self in */*) ;; *) self=./$self ;; esac
# a symbolic link to this launcher (from ~/bin, say) is followed where readlink exists
if [ -L "$self" ]; then
  for rl in /usr/bin/readlink /bin/readlink; do
    if [ -x "$rl" ]; then self=$("$rl" -f -- "$self"); break; fi
  done
fi
root=$(cd -P -- "${self%/*}/.." && pwd -P) || exit 127
LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# CUDA toolkit libraries left out of the bundle (--no-cuda-libs) come from the target's toolkit
for d in ${CUDA_HOME:+"$CUDA_HOME/lib64"} /usr/local/cuda/lib64; do
  if [ -d "$d" ]; then LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d; fi
done
export LD_LIBRARY_PATH
exec "$root/libexec/@PROG@" "$@"
EOF
  chmod 755 "$root/bin/$prog"
done

# the newest GLIBC_ symbol version any bundled file asks for: the target's glibc must have it
glibc_min=unknown
if command -v objdump >/dev/null; then
  glibc_min=$(for f in "$root"/libexec/* "$root"/lib/*; do objdump -T "$f" 2>/dev/null || true; done |
    grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1 || true)
  glibc_min=${glibc_min:-unknown}
fi
libs=("$root"/lib/*)
libs=("${libs[@]##*/}")
list() { if [ $# -eq 0 ]; then echo "none"; else printf '%s\n' "$@" | sort -u | paste -sd ' '; fi; }
# wrap COLUMN WORDS...: the words in lines of at most 88 characters, lines after the first
# indented to COLUMN (for README.txt)
wrap() {
  local indent
  indent=$(printf '%*s' "$1" '')
  shift
  printf '%s\n' "$*" | fold -s -w $((88 - ${#indent})) | sed "s/ *\$//; 2,\$s/^/$indent/"
}
if [ "$CUDA_LIBS" = 0 ]; then
  cuda_note="left out (--no-cuda-libs): $(list "${left_out[@]}")"
else
  cuda_note="bundled: $(list "${cuda[@]}")"
fi

cat >"$root/README.txt" <<EOF
$name: simctl $version, relocatable
================================================================================

simctl is a command-line batch simulator of hyperelastic solids and cloth. This directory
runs on an x86-64 Linux machine without installing any package and without root: extract
it anywhere and run bin/simctl.

Contents
  bin/simctl       launcher: puts lib/ first on LD_LIBRARY_PATH, runs libexec/simctl
  bin/tetgen       launcher for the bundled TetGen program, the same way
  libexec/         the simctl and tetgen programs themselves
  lib/             the shared libraries they need:
                   $(wrap 19 "$(list "${libs[@]}")")

How to run
  tar xzf $name.tar.gz
  $name/bin/simctl run SCENE.json --out OUT_DIR
  $name/bin/simctl --help
Put bin/ on PATH or link bin/simctl from another directory (a link is followed). simctl
meshes with the tetgen in libexec/ (beside its executable); set SIMCTL_TETGEN=PATH to use
another. The TetGen cache is in \$SIMCTL_CACHE_DIR, else \$XDG_CACHE_HOME/simctl/tetgen,
else \$HOME/.cache/simctl/tetgen (none when none of them is set).

Which libraries are bundled
  Every shared library that ldd lists for simctl and tetgen, except
  - the glibc family (ld-linux, libc, libm, libpthread, libdl, librt, ...): the target's own;
  - the NVIDIA driver's libraries (libcuda, libnvidia-*): the target's driver provides them.
  Left out here: $(wrap 4 "$(list "${excluded[@]}")")
  CUDA toolkit libraries: $(wrap 4 "$cuda_note.")
  Libraries not bundled are looked up after lib/ and LD_LIBRARY_PATH in \$CUDA_HOME/lib64
  and /usr/local/cuda/lib64, then in the system's directories; CUDA toolkit libraries left
  out must come from a toolkit that has the same names (sonames) as above.

Requirements of the target machine
  - x86-64 Linux with glibc $glibc_min or newer (check with: getconf GNU_LIBC_VERSION);
  - /bin/sh for the launchers;
  - for the CUDA backend (a CUDA build of simctl): an NVIDIA driver recent enough for the
    CUDA version simctl was built with; without one, --device auto runs on the CPU.
EOF

mkdir -p "$OUT"
tarball=$OUT/$name.tar.gz
tar -C "$tmp" --sort=name --owner=0 --group=0 --numeric-owner -czf "$tarball.tmp" "$name"
mv -f "$tarball.tmp" "$tarball"
echo "bundle.sh: $(du -h "$tarball" | cut -f1) (${#libs[@]} libraries," \
  "glibc >= $glibc_min; CUDA toolkit libraries: $cuda_note)"
echo "$tarball"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every script under scripts/ (but kernel_nvcc.sh and scene_args.sh, which scripts source, and
# obj_frames.py and run_figures.py, which scripts import) and every
# program given answers -h and --help: exit 0, its help on standard output, nothing on standard
# error, and nothing else done (the help is read before any option, file or device).
# usage: test_scripts_help.sh PYTHON ROOT [PROGRAM...]
set -u
PY=$1 ROOT=$2
shift 2
. "$(dirname "$0")/check_lib.sh"
helps() { # NAME COMMAND...: COMMAND --help and -h both give help
  local name=$1 flag
  shift
  for flag in --help -h; do
    (cd "$TMP" && timeout 30 "$@" "$flag" > "$TMP/out" 2> "$TMP/err")
    local rc=$?
    check "$name $flag: exit 0, help on standard output, nothing on standard error" \
      eval "[ $rc -eq 0 ] && [ -s '$TMP/out' ] && [ ! -s '$TMP/err' ]" ||
      { head -3 "$TMP/err"; }
  done
}
for s in "$ROOT"/scripts/*.sh; do
  case "$(basename "$s")" in kernel_nvcc.sh | scene_args.sh) continue ;; esac # sourced helpers
  helps "scripts/$(basename "$s")" bash "$s"
done
for s in "$ROOT"/scripts/*.py; do
  case "$(basename "$s")" in obj_frames.py | run_figures.py) continue ;; esac # imported helpers
  helps "scripts/$(basename "$s")" "$PY" "$s"
done
for p in "$@"; do helps "$(basename "$p")" "$p"; done
check "no script wrote into the folder it ran from" test -z "$(ls -A "$TMP" | grep -v -x -e out -e err)"
finish test_scripts_help

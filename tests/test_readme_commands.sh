#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's Commands against the program: every command `simctl --help` lists has a line in
# the README's synopsis and an item of its own ("- `COMMAND`:"), and the options of each
# command's usage (its --help, up to the first blank line) are the options of its synopsis
# line(s), both ways; the README's exit codes are the ones `simctl --help` lists.
# usage: test_readme_commands.sh SIMCTL ROOT
set -u
SIMCTL=$1 ROOT=$2
README=$ROOT/README.md
. "$(dirname "$0")/check_lib.sh"
# the synopsis: the first fenced block under "## Commands"
syn=$(sed -n '/^## Commands/,/^## /p' "$README" | sed -n '/^```/,/^```/p')
check "README.md: a synopsis under ## Commands" test -n "$syn"
cmds=$("$SIMCTL" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
check "simctl --help lists commands" test -n "$cmds"
opts() { grep -o -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' '; }
for c in $cmds; do
  # the command's synopsis lines: its own, and the indented ones after it
  mine=$(echo "$syn" | awk -v c="$c" '$1 == "simctl" { on = ($2 == c) } on' | opts)
  want=$("$SIMCTL" "$c" --help | sed -n '/^usage:/,/^$/p' | opts)
  check "$c: a synopsis line in README.md" test -n "$(echo "$syn" | awk -v c="$c" '$1 == "simctl" && $2 == c')"
  check "$c: README.md's synopsis options ($mine) are its usage's ($want)" test "$mine" = "$want"
  check "$c: an item of its own in README.md's Commands" grep -q "^- \`$c\`:" "$README"
done
codes=$("$SIMCTL" --help | sed -n '/^exit codes:/,/^$/p' | grep -o '[0-9] [a-z][a-z /]*' | sed 's/ *$//')
while IFS= read -r code; do
  n=${code%% *} what=${code#* }
  check "exit code $n ($what) in README.md" grep -q "$n $what" "$README"
done <<< "$codes"
finish test_readme_commands

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's table of the CUDA backend's switches (Commands, "at a glance") against the code:
# a row for every SIMCTL_CUDA_ name the backend knows (gpu/device.cu's env_names, less the
# build's SIMCTL_CUDA_ARCHS and SIMCTL_CUDA_EMU), no row for a name it does not, and each
# two-valued switch's default (sim_cuda_env_choice's in gpu/*.cu) first among the row's values,
# so that a switch added, renamed or given another default without the table fails here.
# usage: test_readme_switches.sh SOURCE_ROOT
set -u
ROOT=${1:?usage: $0 SOURCE_ROOT}
README=$ROOT/README.md
failed=0
fail() {
  echo "FAILED: $*" >&2
  failed=1
}

known=$(sed -n '/env_names\[\] = {/,/};/p' "$ROOT/gpu/device.cu" | grep -o '"SIMCTL_CUDA_[A-Z_]*"' |
  tr -d '"' | grep -v -x -e SIMCTL_CUDA_ARCHS -e SIMCTL_CUDA_EMU | sort -u)
rows=$(sed -n '/^### The CUDA backend.s switches, at a glance/,/^## /p' "$README" |
  grep -o '^| `SIMCTL_CUDA_[A-Z_]*`' | tr -d '|` ' | sort)
[ "$(echo "$known" | wc -w)" -ge 20 ] || fail "gpu/device.cu: env_names not found (read $(echo "$known" | wc -w))"
[ -n "$rows" ] || fail "README.md: no table of the CUDA backend's switches"
for n in $known; do
  echo "$rows" | grep -q -x "$n" || fail "README.md: no row for $n"
done
for n in $rows; do
  echo "$known" | grep -q -x "$n" || fail "README.md: a row for $n, which the backend does not know"
done
[ "$(echo "$rows" | uniq -d)" = "" ] || fail "README.md: rows twice: $(echo "$rows" | uniq -d)"

# each sim_cuda_env_choice(NAME, a, b, dflt, ...): the default is b where dflt is 1, else a
checked=0
while read -r name a b d; do
  want=$a
  [ "$d" = 1 ] && want=$b
  first=$(grep -m1 "^| \`$name\` |" "$README" | awk -F'|' '{ print $3 }' | grep -o '`[^`]*`' |
    head -1 | tr -d '`')
  [ "$first" = "$want" ] || fail "README.md: $name's default is $want (gpu/), the table says ${first:-nothing}"
  checked=$((checked + 1))
done < <(grep -h -o 'sim_cuda_env_choice("SIMCTL_CUDA_[A-Z_]*", "[a-z]*", "[a-z]*", [01]' \
  "$ROOT"/gpu/*.cu | sed 's/sim_cuda_env_choice(//; s/[",]/ /g' | sort -u)
[ "$checked" -ge 15 ] || fail "gpu/*.cu: only $checked two-valued switches found"

if [ "$failed" = 0 ]; then
  echo "test_readme_switches: $(echo "$known" | wc -w) switches in the table, $checked defaults checked"
fi
exit $failed

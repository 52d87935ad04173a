#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/doc_links.py: the README's and docs/'s relative links and anchors all resolve; and on
# a small tree of known faults (a missing file, a missing image, a missing anchor in the page
# and in another page) it names each, and no link inside code, nor a web link.
# usage: test_doc_links.sh PYTHON SCRIPT ROOT
set -u
PY=$1 SCRIPT=$2 ROOT=$3
. "$(dirname "$0")/check_lib.sh"
out=$("$PY" "$SCRIPT" "$ROOT")
rc=$?
[ -z "$out" ] || echo "$out"
check "the project's pages: exit code 0" test $rc -eq 0
check "the project's pages: no broken link" test -z "$out"

mkdir -p "$TMP/t/docs"
cat > "$TMP/t/README.md" <<'MD'
# T

## The CUDA backend's switches, at a glance

[a](docs/x.md) [b](#the-cuda-backends-switches-at-a-glance) [c](#nope) ![i](docs/missing.png)
`[d](nofile.md)` [w](https://example.org/nofile.md)

```
[e](nofile2.md)
```
MD
cat > "$TMP/t/docs/x.md" <<'MD'
# X

## Fig. 9 (complete)

## Fig. 9 (complete)

[r](../README.md#t) [s](#fig-9-complete-1) [t](../README.md#zz) [u](gone.md#x)
MD
out=$("$PY" "$SCRIPT" "$TMP/t")
rc=$?
echo "$out"
check "faults: exit code 1" test $rc -eq 1
check "a missing anchor in the page" grep -q -x "README.md:5: #nope: no heading with that anchor in README.md" <<< "$out"
check "a missing image" grep -q -x "README.md:5: docs/missing.png: no such file" <<< "$out"
check "a missing anchor in another page" grep -q -x "docs/x.md:7: ../README.md#zz: no heading with that anchor in README.md" <<< "$out"
check "a missing page" grep -q -x "docs/x.md:7: gone.md#x: no such file" <<< "$out"
check "four faults, nothing from code or web links" test "$(echo "$out" | wc -l)" -eq 4
"$PY" "$SCRIPT" "$TMP/none" > /dev/null 2>&1
check "no such folder: exit code 2" test $? -eq 2
finish test_doc_links

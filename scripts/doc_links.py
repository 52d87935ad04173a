#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the relative links of a tree's Markdown pages: every [text](target) and
![alt](target) outside code must name a file that exists and, after a '#', a heading of that
page (GitHub's anchors: the heading in lower case, punctuation but '-' and '_' dropped, spaces
as '-', a repeated heading's anchor numbered -1, -2, ...). Web links (http:, https:, mailto:)
are not followed.

usage: scripts/doc_links.py ROOT
  ROOT: the tree; its README.md and every *.md under docs/ are checked
Prints one line per broken link (FILE:LINE: what is wrong) and exits 1 if there is any,
2 on bad usage, 0 otherwise."""
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"`+[^`]*`+")


def slug(heading):
    text = CODE.sub(lambda m: m.group(0).strip("`"), heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def lines_outside_code(path):
    fence = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.lstrip()
            if s.startswith("```") or s.startswith("~~~"):
                mark = s[:3]
                fence = None if fence == mark else (fence or mark)
                continue
            if fence is None and not line.startswith("    "):
                yield n, line


def anchors(path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        for _, line in lines_outside_code(path):
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                a = slug(m.group(1))
                k = seen.get(a, 0)
                seen[a] = k + 1
                out.add(a if k == 0 else "%s-%d" % (a, k))
        cache[path] = out
    return cache[path]


def check(root):
    pages = [os.path.join(root, "README.md")]
    for d, _, files in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(d, f) for f in sorted(files) if f.endswith(".md")]
    bad = 0
    for page in pages:
        if not os.path.isfile(page):
            continue
        rel = os.path.relpath(page, root)
        for n, line in lines_outside_code(page):
            for m in LINK.finditer(CODE.sub("", line)):
                target = m.group(1)
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                if not os.path.exists(dest):
                    print("%s:%d: %s: no such file" % (rel, n, target))
                    bad += 1
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    print("%s:%d: %s: no heading with that anchor in %s"
                          % (rel, n, target, os.path.relpath(dest, root)))
                    bad += 1
    return bad


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write("usage: scripts/doc_links.py ROOT (a folder)\n")
        return 2
    return 1 if check(argv[1]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Count test262 scenarios per suite straight from the corpus, independently of
kiln-test262, to check the scoreboard's denominators.

Usage: python3 tasks/test262/independent_count.py [build/test262]
A test is one scenario if its flags say raw or module, else one per mode it
allows (sloppy unless onlyStrict, strict unless noStrict). Tests using a
feature listed under "Proposed" in features.txt count as proposals.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "build/test262"
proposals, in_proposals = [], False
for line in open(os.path.join(root, "features.txt"), encoding="utf-8"):
    # sections are the "## ... features" headings; other "##" lines are notes
    if line.startswith("## ") and line.strip().lower().endswith("features"):
        in_proposals = "Proposed" in line
        continue
    t = line.strip()
    if in_proposals and t and not t.startswith("#"):
        proposals.append(t)


def yaml_list(yaml, key):
    inline = re.search(r"^" + key + r":\s*\[(.*?)\]", yaml, re.M)
    if inline:
        return [x.strip() for x in inline.group(1).split(",") if x.strip()]
    block = re.search(r"^" + key + r":\s*\n((?:\s+-\s*.*\n?)+)", yaml, re.M)
    if block:
        return [x.strip()[1:].strip() for x in block.group(1).strip().split("\n")]
    return []


counts = {}
for dirpath, _, files in os.walk(os.path.join(root, "test")):
    for name in files:
        if not name.endswith(".js") or "_FIXTURE" in name:
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        source = open(path, encoding="utf-8", errors="replace").read()
        m = re.search(r"/\*---(.*?)---\*/", source, re.S)
        yaml = m.group(1) if m else ""
        flags, features = yaml_list(yaml, "flags"), yaml_list(yaml, "features")
        if "raw" in flags or "module" in flags:
            n = 1
        else:
            n = ("onlyStrict" not in flags) + ("noStrict" not in flags)
        if any(f in proposals for f in features):
            suite = "proposals"
        elif rel.startswith("test/annexB"):
            suite = "annexB"
        elif rel.startswith("test/intl402"):
            suite = "intl402"
        elif rel.startswith("test/harness"):
            suite = "harness"
        else:
            suite = "main"
        counts[suite] = counts.get(suite, 0) + n
for suite in sorted(counts):
    print(f"{suite}: {counts[suite]}")
print(f"total: {sum(counts.values())}")

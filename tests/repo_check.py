#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The repository stands alone: no tracked file may refer to a path above the repository root.

A fresh clone has nothing beside it, so a test, script, build file or doc that reads the team's
shared folder beside the checkout (or climbs out of the tree any other way) passes only inside
one team's folder layout. Three kinds of reference are flagged:
  1. a relative path whose parent steps, taken from the file's own folder, leave the root;
  2. a path built from the root and then climbing (PROJECT_SOURCE_DIR, KILN_SOURCE_DIR, a
     Python ROOT or a shell $root followed by a parent step);
  3. an absolute path into a team layout (the team's work tree, or its shared models, docs or
     reliability folders).
This file spells its own examples indirectly (see self_test) so that it passes its own check and
`git grep` for the shared folder finds nothing in the project.
Usage: repo_check.py ROOT        checks ROOT (its tracked files when it is a git work tree)
       repo_check.py --self-test the check itself catches each kind and passes a clean tree
Exit 1 and list `file:line: text` for each offence."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

# Records of past benchmark runs: they say where that run read its model from, and nothing
# reads them back as a path.
EXEMPT = (re.compile(r"^bench/results/"),)
# `a/b/../../..`: a run of path segments that contains `..` steps.
RELATIVE = re.compile(r"(?<![\w.$}/-])((?:\.\.?/)*\.\.(?![.\w])(?:/[\w.@+-]+)*)")
ROOT_NAMES = r"(?:PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|KILN_SOURCE_DIR|ROOT|REPO_ROOT|root|repo_root|top|here)"
CLIMB_FROM_ROOT = re.compile(
    ROOT_NAMES + r"""\b[})]?(?:["']?\s*(?:\+\s*)?["']?/\.\.(?:/|["'\s)]|$)|\s*,\s*["']\.\.["'])""")
TEAM_ROOT = "/" + "work" + "/"
TEAM_LAYOUT = re.compile(r"(?:^|[\s\"'`(=:])(" + re.escape(TEAM_ROOT) +
                         r"|(?:[\w.-]*/)*shared/(?:models|docs|reliability)\b)")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "build", "__pycache__"}
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in skip and not d.startswith("build")]
            files += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
        return files


def escapes(rel_file, path):
    """True when `path`, read from rel_file's folder, ends above the repository root."""
    depth = len(pathlib.PurePosixPath(rel_file).parent.parts)
    for part in path.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def offences(root):
    found = []
    for rel in tracked_files(root):
        if any(e.search(rel) for e in EXEMPT):
            continue
        path = pathlib.Path(root, rel)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue  # binary: models, test data
        text = data.decode("utf-8", "replace")
        for n, line in enumerate(text.splitlines(), 1):
            why = None
            if any(escapes(rel, m.group(1)) for m in RELATIVE.finditer(line)):
                why = "climbs above the repository root"
            elif CLIMB_FROM_ROOT.search(line):
                why = "builds a path above the repository root"
            elif TEAM_LAYOUT.search(line):
                why = "names a folder outside the repository"
            if why:
                found.append(f"{rel}:{n}: {why}: {line.strip()[:160]}")
    return found


def self_test():
    up = "." + "./"  # a parent step, spelled so this file does not match itself
    shared = up + "shared"
    bad = {
        "README.md": f"see `{shared}/docs/design.md`\n",
        "tests/capi/a.h": f'return std::string(KILN_SOURCE_DIR) + "/{shared}/models/m";\n',
        "tests/unit/CMakeLists.txt": f'X="${{PROJECT_SOURCE_DIR}}/{shared}/models"\n',
        "tests/python/conftest.py": 'S = os.path.join(ROOT, "' + up[:2] + '", "shared", "m")\n',
        "tests/models/c.sh": f'"$root/{up}data/m.onnx"\n',
        "tests/deep/x.cc": f'#include "{up * 3}outside.h"\n',
        "bench/c.py": f'open("{TEAM_ROOT}shared/models/mnist-8/model.onnx")\n',
    }
    good = {
        "tests/capi/b.cc": f'#include "{up}onnx/test_data.h"\n',
        "tests/unit/CMakeLists.txt": 'X="${PROJECT_SOURCE_DIR}/tests/data/models"\n',
        "tests/python/conftest.py": 'ROOT = os.path.join(HERE, "' + up[:2] + '", "' + up[:2] +
                                    '")\n',
        "src/a/b.cc": f"// ratio a/b..c, f(...), ./x and x/{up}y are fine\n",
        "bench/results/r.json": f'"source": "{TEAM_ROOT}shared/models/m.onnx"\n',
        "docs/x.md": "the shared pool and shared/ memory\n",
    }
    ok = True
    for name, files in (("bad", bad), ("good", good)):
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in files.items():
                p = pathlib.Path(tmp, rel)
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            flagged = {o.split(":", 1)[0] for o in offences(tmp)}
            want = set(files) if name == "bad" else set()
            if flagged != want:
                ok = False
                print(f"self-test {name}: flagged {sorted(flagged)}, expected {sorted(want)}")
    print("repo_check self-test", "passed" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = offences(argv[1])
    for o in found:
        print(o)
    if found:
        print(f"{len(found)} reference(s) outside the repository: a fresh clone has nothing "
              "beside it; commit the file (tests/data/), install it (scripts/setup.sh) or "
              "generate it")
        return 1
    print("no tracked file refers to a path outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

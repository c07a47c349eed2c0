#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""libascendcl.so must export exactly the functions the public headers declare: every
declared acl* function, and nothing else. Usage: exports_check.py <lib> <include dir>"""
import pathlib
import re
import subprocess
import sys

DECL = re.compile(r"(?:ACL_FUNC_VISIBILITY|MSVP_PROF_API)\s+[^;{]*?\b(acl\w+)\s*\(", re.S)


def main(lib, include):
    declared = set()
    for header in pathlib.Path(include).rglob("*.h"):
        declared |= set(DECL.findall(header.read_text()))
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
    missing = sorted(declared - exported)
    extra = sorted(exported - declared)
    for name in missing:
        print(f"declared but not exported: {name}")
    for name in extra:
        print(f"exported but not declared: {name}")
    print(f"{len(declared)} declared, {len(exported)} exported")
    return 1 if missing or extra or not declared else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

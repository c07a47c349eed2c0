# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Copies the licence of every library auditwheel put into a repaired wheel's kiln.libs/.

Usage: wheel_licenses.py <unrepaired wheel> <unpacked repaired wheel> <extra licence files...>

A copied library is named `<soname stem>-<8 hex>.<so suffix>`; this resolves the unrepaired
wheel's ELF files with auditwheel's own lddtree, finds the Debian package that shipped each
copied library (dpkg -S) and copies /usr/share/doc/<package>/copyright into
kiln.libs/licenses/<package>.copyright. The extra files (the static FFmpeg's licences) are
copied as they are. Fails when a copied library's licence cannot be found.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from auditwheel.lddtree import ldd


def resolved_libraries(wheel):
    """{soname or file name: real path} of the libraries outside the wheel its ELF files load."""
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
        for dirpath, _, files in os.walk(tmp):
            for f in files:
                path = os.path.join(dirpath, f)
                with open(path, "rb") as fh:
                    if fh.read(4) != b"\x7fELF":
                        continue
                for name, lib in ldd(path).libraries.items():
                    real = str(lib.realpath) if lib.realpath else ""
                    if real and not real.startswith(tmp):
                        found[name] = real  # by soname and by file name: auditwheel names
                        found[os.path.basename(real)] = real  # its copy after either
    return found


def package_of(path):
    for candidate in (path, re.sub(r"^/lib/", "/usr/lib/", path)):
        out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True).stdout
        if out:
            return out.splitlines()[0].split(":")[0]
    return None


def main(argv):
    built, tree, extras = argv[1], argv[2], argv[3:]
    libs_dir = os.path.join(tree, "kiln.libs")
    out = os.path.join(libs_dir, "licenses")
    os.makedirs(out, exist_ok=True)
    resolved = resolved_libraries(built)
    missing = []
    for copied in sorted(os.listdir(libs_dir)):
        if copied == "licenses":
            continue
        soname = re.sub(r"-[0-9a-f]{8}(\.so)", r"\1", copied)
        package = package_of(resolved[soname]) if soname in resolved else None
        src = "/usr/share/doc/%s/copyright" % package if package else ""
        if not src or not os.path.exists(src):
            missing.append(copied)
            continue
        shutil.copy(src, os.path.join(out, package + ".copyright"))
    for extra in extras:
        shutil.copy(extra, out)
    if missing:
        sys.exit("wheel_licenses: no licence found for " + ", ".join(missing))


if __name__ == "__main__":
    main(sys.argv)

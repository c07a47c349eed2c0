#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks the layer table of docs/design.md §1: every #include "<layer>/..." in src/ and
tools/ must name the file's own layer or one it may use. Exit 1 and list offenders."""
import pathlib
import re
import sys

# layer -> layers it may include (besides itself). Mirrors the CMake target dependencies.
ALLOWED = {
    "base": set(),
    "ir": {"base"},
    "frontend/onnx": {"ir", "base"},
    "format": {"base"},
    "compiler": {"ir", "format", "kernels", "base"},
    # atc.{h,cc}: the ONNX → .om pipeline (front end, then compiler), the facade tools and
    # python call; the one place where the front end and the compiler meet.
    "atc": {"compiler", "frontend/onnx", "ir", "base"},
    # CANN's graph-engine C++ API (include/ge, include/graph, include/parser) on the atc facade
    "ge": {"atc", "compiler", "base"},
    "hal": {"base"},
    # the kernel contract names the HAL's Execution (where a run's kernels go: a CPU team, a
    # CUDA stream) and the Device a kernel is prepared for (docs/design.md §1)
    "kernels": {"ir", "hal", "base"},
    "backends/cpu": {"hal", "kernels", "base"},
    "backends/cuda": {"hal", "kernels", "base"},
    # register_all.{h,cc}: the one place that registers every built-in backend
    "backends": {"hal", "backends/cpu", "backends/cuda", "kernels", "base"},
    # "backends" is src/backends/register_all.h alone (backends/cpu/... is its own layer): the
    # runtime calls RegisterAll once before listing devices and reaches backends only through
    # the HAL registry afterwards (docs/design.md §1).
    "runtime": {"hal", "kernels", "format", "backends", "base"},
    # media: pictures, their codecs and VPC operations for the DVPP API (host libraries only)
    "media": {"base"},
    "capi": {"runtime", "compiler", "media", "base", "acl"},
    # tools and python use the public headers and the compiler facade (atc.h, compile.h's
    # options, om_inspect.h, op_catalog.h)
    "tools": {"acl", "kiln", "tools", "atc", "compiler"},
    "python": {"acl", "kiln", "python", "atc", "compiler"},
}
# The usage record's layout (include/kiln/kiln_usage.h, a C header that declares no function):
# the runtime writes it, tools read it. It is the one public header the runtime may include.
USAGE_RECORD = "kiln/kiln_usage.h"
USAGE_RECORD_LAYERS = {"runtime", "tools", "python"}
LAYERS = sorted(ALLOWED, key=len, reverse=True)  # longest prefix first
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    for layer in LAYERS:
        if rel == layer or rel.startswith(layer + "/"):
            return layer
    return None


def main(root):
    root = pathlib.Path(root)
    bad = []
    for top in ("src", "tools", "python"):
        base = root / top
        if not base.exists():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in (".h", ".cc", ".cu", ".c"):
                continue
            rel = path.relative_to(root / "src" if top == "src" else root).as_posix()
            own = layer_of(rel.rsplit("/", 1)[0]) if top == "src" else top
            if own is None:
                bad.append(f"{path}: not in any layer of the table")
                continue
            for inc in INCLUDE.findall(path.read_text(errors="replace")):
                target = layer_of(inc.rsplit("/", 1)[0]) if "/" in inc else own
                if inc.startswith("acl/"):
                    target = "acl"
                elif inc.startswith("kiln/base/"):
                    target = "base"  # generated base headers (version.h)
                elif inc.startswith("kiln/"):
                    target = "kiln"
                if target is None or target == own or target in ALLOWED[own]:
                    continue
                if inc == USAGE_RECORD and own in USAGE_RECORD_LAYERS:
                    continue
                bad.append(f"{path}: layer '{own}' may not include \"{inc}\" (layer '{target}')")
    for line in bad:
        print(line)
    print(f"layering: {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

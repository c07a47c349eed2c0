# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""What the tools' tests share: the `kiln` binary under test (KILN_BIN, set by ctest; else the
release build's) and the ways they run it. Imported by name: pytest puts this folder on
sys.path for the test files in it."""
import json
import os
import subprocess

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KILN = os.environ.get("KILN_BIN", os.path.join(ROOT, "build", "release", "tools", "kiln", "kiln"))


def kiln(*args, check=True):
    """Runs `kiln args...`; with `check`, asserts it succeeded (its output in the message)."""
    r = subprocess.run([KILN, *map(str, args)], capture_output=True, text=True, timeout=300)
    if check:
        assert r.returncode == 0, f"kiln {' '.join(map(str, args))}\n{r.stdout}\n{r.stderr}"
    return r


def run_once(om, x, work, name="x"):
    """Runs the .om `om` once on its one input `x` (saved as work/<name>.npy) with `kiln bench`
    and returns its first output."""
    np.save(work / f"{name}.npy", x)
    out = work / f"out_{os.path.basename(str(om)).rsplit('.', 1)[0]}"
    kiln("bench", "--model", om, "--input", work / f"{name}.npy", "--output", out, "--outfmt",
         "NPY", "--loop", 1)
    return np.load(out / f"{name}_0.npy")


def om_json(om):
    """The compiled graph of the .om `om` as `kiln atc --mode=1` writes it, as JSON text."""
    path = f"{om}.json"
    kiln("atc", "--mode=1", f"--om={om}", f"--json={path}")
    with open(path) as f:
        return json.dumps(json.load(f))

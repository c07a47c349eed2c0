# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""What a user of the wheel does first, checked (tests/python/run_wheel_test.sh, docs/wheel.md).

Run by the venv's interpreter the wheel was installed into:
    python wheel_smoke.py <source tree>
1. `import acl`, `import kiln` come from this venv, and acl's runtime is the wheel's
   acl/libascendcl.so;
2. the `kiln` command (the venv's console script) prints its version and compiles mnist-8 with
   `kiln atc`, and `kiln doctor` recognises the wheel's layout; the .om runs through kiln.Model and the .onnx through kiln.InferenceSession, both
   matching the ONNX test data's outputs (the oracle);
3. every shared library this process mapped is the venv's or the system's, and none of those the
   wheel carries in kiln.libs/ was taken from the system instead (a missing RPATH would do that
   on a machine prepared like ours, and fail on a clean one).
Prints one line per check; exits non-zero on the first failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

SRC = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(SRC, "tests", "python"))
from onnx_tensor import read_tensor  # noqa: E402  (the ONNX TensorProto reader, no onnx needed)

PREFIX = os.path.realpath(sys.prefix)
MNIST = os.path.join(SRC, "tests", "data", "models", "mnist-8")


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        sys.exit(1)


def in_venv(path):
    return os.path.realpath(path).startswith(PREFIX + os.sep)


def mapped_libraries():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split(None, 5)[-1].strip()
            if re.search(r"\.so(\.|$)", os.path.basename(path)):
                libs.add(os.path.realpath(path))
    return sorted(libs)


def stem(name):
    """'libdnnl-a4f9d805.so.2.6' and 'libdnnl.so.2' -> 'libdnnl'."""
    return re.sub(r"(-[0-9a-f]{8})?\.so.*$", "", name)


def main():
    import acl
    import kiln

    check(in_venv(acl.__file__) and in_venv(kiln.__file__),
          "acl and kiln import from the venv (%s, %s)" % (acl.__file__, kiln.__file__))
    version = kiln.get_version()
    check(bool(version), "kiln.get_version() = %s" % version)

    exe = shutil.which("kiln")
    check(exe is not None and in_venv(exe), "the kiln command is the venv's: %s" % exe)
    out = subprocess.run([exe, "--version"], capture_output=True, text=True)
    check(out.returncode == 0 and version in out.stdout,
          "kiln --version: %s" % out.stdout.strip().splitlines()[0])

    doctor = subprocess.run([exe, "doctor", "--json"], capture_output=True, text=True)
    findings = {f["check"]: f for f in json.loads(doctor.stdout)["findings"]}
    library = findings["library"]
    check(library["level"] == "OK" and library["data"]["install_kind"] == "Kiln wheel"
          and in_venv(library["data"]["expected"]) and findings["set_env"]["level"] == "OK",
          "kiln doctor knows the wheel: %s; %s" % (library["found"], findings["set_env"]["found"]))

    onnx = os.path.join(MNIST, "model.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        om_base = os.path.join(tmp, "mnist")
        run = subprocess.run([exe, "atc", "--framework=5", "--model=" + onnx,
                              "--output=" + om_base, "--soc_version=Ascend310P3"],
                             capture_output=True, text=True)
        check(run.returncode == 0 and os.path.exists(om_base + ".om"),
              "kiln atc compiles mnist-8 (%s)" % (run.stderr.strip()[-200:] or "exit 0"))
        model = kiln.Model(om_base + ".om")
        session = kiln.InferenceSession(onnx)
        for case in ("test_data_set_0", "test_data_set_1"):
            x = read_tensor(os.path.join(MNIST, case, "input_0.pb"))
            want = read_tensor(os.path.join(MNIST, case, "output_0.pb"))
            (got_om,) = model.run({model.inputs[0].name: x}).values()
            (got_onnx,) = session.run(None, {session.get_inputs()[0].name: x})
            err = max(float(np.abs(got_om - want).max()), float(np.abs(got_onnx - want).max()))
            check(err < 1e-3, "mnist-8 %s: .om and .onnx within %.2g of the ONNX test data"
                  % (case, err))
        del model, session

    libs = mapped_libraries()
    runtime = [p for p in libs if os.path.basename(p) == "libascendcl.so"]
    check(len(runtime) == 1 and in_venv(runtime[0]),
          "one libascendcl.so, the wheel's: %s" % runtime)
    carried_dir = os.path.join(os.path.dirname(os.path.dirname(acl.__file__)), "kiln.libs")
    carried = {stem(n) for n in os.listdir(carried_dir) if ".so" in n}
    outside = [p for p in libs if not in_venv(p)]
    leaked = [p for p in outside if stem(os.path.basename(p)) in carried]
    check(not leaked, "no library the wheel carries (%d) was loaded from the system: %s"
          % (len(carried), leaked or "none"))
    print("      libraries from outside the venv: " +
          " ".join(sorted(os.path.basename(p) for p in outside)))
    print("wheel smoke: OK")


if __name__ == "__main__":
    main()

# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Files the tools read on a user's behalf are opened as regular files only (docs/capi.md,
"Files Kiln reads"): a FIFO, /dev/zero or a folder named as a config, an input or a model is
refused at once with a message naming it, instead of blocking forever on the open or reading
without end."""
import os
import subprocess

import pytest
from kiln_cli import KILN, ROOT

MNIST = os.path.join(ROOT, "tests", "data", "models", "mnist-8", "model.onnx")


def run(*args):
    return subprocess.run([KILN, *map(str, args)], capture_output=True, text=True, timeout=30)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("flag", ["--insert_op_conf", "--fusion_switch_file", "--keep_dtype"])
@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "folder"])
def test_atc_option_files_must_be_regular(flag, kind, fifo, tmp_path):
    path = {"fifo": fifo, "dev_zero": "/dev/zero", "folder": tmp_path}[kind]
    r = run("atc", "--framework=5", f"--model={MNIST}", f"--output={tmp_path / 'm'}",
            f"{flag}={path}")
    assert r.returncode != 0
    assert "is not a regular file" in r.stderr, r.stderr
    assert str(path) in r.stderr


def test_atc_display_refuses_an_om_that_is_not_a_regular_file(fifo):
    for path in (fifo, "/dev/zero"):
        r = run("atc", "--mode=6", f"--om={path}")
        assert r.returncode != 0
        assert "is not a regular file" in r.stderr, r.stderr


def test_bench_refuses_an_input_that_is_not_a_regular_file(fifo, tmp_path):
    om = tmp_path / "mnist"
    r = run("atc", "--framework=5", f"--model={MNIST}", f"--output={om}")
    assert r.returncode == 0, r.stderr
    for path in (fifo, "/dev/zero"):
        r = run("bench", "--model", f"{om}.om", "--input", path, "--loop", 1)
        assert r.returncode != 0
        assert "is not a regular file" in r.stdout + r.stderr, r.stdout + r.stderr


def test_bench_refuses_a_model_that_is_not_a_regular_file(fifo):
    r = run("bench", "--model", fifo, "--loop", 1)
    assert r.returncode != 0
    assert "is not a regular file" in r.stdout + r.stderr, r.stdout + r.stderr

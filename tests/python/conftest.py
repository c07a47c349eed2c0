# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the Python tests: the models, their reference data, and a compiler.

Environment (set by tests/python/CMakeLists.txt; all optional):
    KILN_BIN        the `kiln` program: models are compiled with `kiln atc`, as a CANN user
                    compiles them with `atc`; without it, with kiln.compile.
    KILN_MODELS_DIR where scripts/gen_models.py writes the generated models (build/models).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "tests", "data", "models")
MNIST = os.path.join(MODELS, "mnist-8")


# Beside this file; also when another suite loads this file by path (tests/tools/test_bench.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_tensor import read_tensor, zoo_sets  # noqa: E402,F401  (the fixtures' and tests' reader)


def mnist_sets():
    """[(input [1,1,28,28], expected logits [1,10])] of the three digits shipped with mnist-8."""
    return zoo_sets(MNIST)


def compile_model(onnx_path, out_dir, name, input_shape=None):
    """Compiles with `kiln atc` when KILN_BIN is set, else with kiln.compile; returns the .om."""
    out = os.path.join(out_dir, name)
    kiln_bin = os.environ.get("KILN_BIN")
    if kiln_bin:
        cmd = [kiln_bin, "atc", "--framework=5", f"--model={onnx_path}", f"--output={out}",
               "--soc_version=Ascend310P3"]
        if input_shape:
            cmd.append(f"--input_shape={input_shape}")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    else:
        import kiln
        kiln.compile(onnx_path, out, **({"input_shape": input_shape} if input_shape else {}))
    return out + ".om"


@pytest.fixture(scope="session")
def mnist_om(tmp_path_factory):
    return compile_model(os.path.join(MNIST, "model.onnx"), str(tmp_path_factory.mktemp("om")),
                         "mnist")


@pytest.fixture(scope="session")
def mnist_data():
    return mnist_sets()


def generated_model(name):
    """A model of scripts/gen_models.py (seeded weights), written once into KILN_MODELS_DIR."""
    out = os.environ.get("KILN_MODELS_DIR", os.path.join(ROOT, "build", "models"))
    path = os.path.join(out, name + ".onnx")
    if not os.path.exists(path):
        pytest.importorskip("onnx")
        only = {"mobilenetv2": "mobilenetv2", "resnet50_v1.5": "resnet50",
                "bert_encoder": "bert"}[name]
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_models.py"), "--out",
                        out, "--only", only],
                       check=True, stdout=subprocess.DEVNULL)
    return path

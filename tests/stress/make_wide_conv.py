# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Writes a small ONNX model whose weights the runtime gives back at load (docs/capi.md "Models",
"Weights held once"): two 1x1 convolutions of 128 channels with a Relu between (64 KiB of
weights each) on x [1, 128, 4, 4]. Used by the fault injection test of that path.

    make_wide_conv.py OUT.onnx     (exit 77 when the onnx package is missing)
"""
import sys

try:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper, save
except ImportError:
    sys.exit(77)

rng = np.random.default_rng(17)
inits, nodes, prev = [], [], "x"
for i in range(2):
    w = (rng.standard_normal((128, 128, 1, 1)) / 16).astype(np.float32)
    inits.append(numpy_helper.from_array(w, f"w{i}"))
    nodes.append(helper.make_node("Conv", [prev, f"w{i}"], [f"c{i}"], name=f"conv{i}"))
    prev = f"c{i}"
    if i == 0:
        nodes.append(helper.make_node("Relu", [prev], ["r0"], name="relu0"))
        prev = "r0"
value = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 128, 4, 4]) for n in ("x", prev)]
graph = helper.make_graph(nodes, "wide_conv", value[:1], value[1:], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
save(model, sys.argv[1])

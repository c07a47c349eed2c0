#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Compiles the .om seeds of the om fuzz target with the `kiln` under test, from models in the
repository, so the seeds always have the current format (committed .om files would go stale
with it):
  mnist.om  mnist-8 (tests/data/models): Conv, MaxPool, MatMul, Reshape
  yunet.om  YuNet 320 (tests/data/models): depthwise convolutions, Concat, Resize, Sigmoid
  gears.om  a small net made here, Conv/Relu/MaxPool/AveragePool/ReduceMean/MatMul/Softmax with
            batch gears 1,2,4 (the gear tables, per-gear dims and workspaces)
  head.om   a small net made here like a text detector's: a residual squeeze-excitation and a
            pyramid add (channels_last's NHWC arithmetic in an ArithmeticChain), upsampling by
            ConvTranspose + Relu and + Sigmoid (FusedConvTranspose)
  aipp.om   mnist-8 with static AIPP (a YUV400 frame cropped and padded: the Aipp node)
  dynaipp.om mnist-8 with dynamic AIPP (the DynamicAipp node and its parameter input, whose
            random bytes reach the block check)

usage: make_seeds.py --kiln KILN --out DIR"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "tests", "data", "models")


def gear_model(path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    m = numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "m")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["p"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("ReduceMean", ["a"], ["g"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["g", "m"], ["l"]),
        helper.make_node("Softmax", ["l"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "gears", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])], [w, b, m])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def head_model(path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(11)

    def const(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
    inits = [const("w1", (8, 3, 3, 3)), const("w2", (8, 8, 1, 1)), const("ws", (8, 8, 1, 1)),
             const("w3", (8, 8, 3, 3)), const("up1", (8, 4, 2, 2)), const("b1", (4,)),
             const("up2", (4, 1, 2, 2)),
             numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["c1", "w2"], ["c2"]),
        helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
        helper.make_node("Conv", ["g", "ws"], ["s0"]),
        helper.make_node("HardSigmoid", ["s0"], ["s"]),
        helper.make_node("Mul", ["c2", "s"], ["m"]),
        helper.make_node("Add", ["c2", "m"], ["r"]),
        helper.make_node("Conv", ["r", "w3"], ["d"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Resize", ["d", "", "scales"], ["u"], mode="nearest"),
        helper.make_node("Add", ["r", "u"], ["f"]),
        helper.make_node("Conv", ["f", "w2"], ["f2"]),
        helper.make_node("ConvTranspose", ["f2", "up1", "b1"], ["t1"], strides=[2, 2]),
        helper.make_node("Relu", ["t1"], ["t1r"]),
        helper.make_node("ConvTranspose", ["t1r", "up2"], ["t2"], strides=[2, 2]),
        helper.make_node("Sigmoid", ["t2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "head", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 64, 64])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    gears_onnx = os.path.join(a.out, "gears.onnx")
    gear_model(gears_onnx)
    head_onnx = os.path.join(a.out, "head.onnx")
    head_model(head_onnx)
    aipp_cfg = os.path.join(a.out, "aipp.cfg")
    with open(aipp_cfg, "w") as f:
        f.write("aipp_op {\n aipp_mode: static\n input_format: YUV400_U8\n"
                " src_image_size_w: 30\n src_image_size_h: 28\n crop: true\n"
                " load_start_pos_w: 2\n crop_size_w: 26\n crop_size_h: 28\n padding: true\n"
                " left_padding_size: 1\n right_padding_size: 1\n min_chn_0: 0.5\n}\n")
    dyn_cfg = os.path.join(a.out, "dynaipp.cfg")
    with open(dyn_cfg, "w") as f:
        f.write("aipp_op {\n aipp_mode: dynamic\n max_src_image_size: 1024\n}\n")
    mnist = os.path.join(MODELS, "mnist-8", "model.onnx")
    seeds = [
        ("mnist", os.path.join(MODELS, "mnist-8", "model.onnx"), []),
        ("yunet", os.path.join(MODELS, "yunet", "yunet_n_320_320.onnx"), []),
        ("gears", gears_onnx, ["--input_shape=x:-1,3,16,16", "--dynamic_batch_size=1,2,4"]),
        ("head", head_onnx, ["--log=info"]),
        ("aipp", mnist, [f"--insert_op_conf={aipp_cfg}"]),
        ("dynaipp", mnist, [f"--insert_op_conf={dyn_cfg}"]),
    ]
    seed_dir = os.path.join(a.out, "seeds")
    os.makedirs(seed_dir, exist_ok=True)
    for name, onnx_path, flags in seeds:
        out = os.path.join(seed_dir, name)
        r = subprocess.run([a.kiln, "atc", f"--model={onnx_path}", "--framework=5",
                            f"--output={out}", *flags], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"make_seeds: kiln atc failed on {onnx_path}:\n{r.stdout}{r.stderr}")
        if name == "head":  # the seed must carry the fused ops it was made for
            for fused in ("ArithmeticChain", "FusedConvTranspose"):
                if fused not in r.stdout + r.stderr:
                    sys.exit(f"make_seeds: {onnx_path} compiled without {fused}")
    print(f"make_seeds: {len(seeds)} seeds in {seed_dir}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The input and the expected classes of the ResNet-50 install test, from onnxruntime.

    resnet_expected.py --model resnet50_v1.5.onnx --hw 224 --input input.bin --expected out.txt

writes a deterministic float32 NCHW image [1,3,hw,hw] (numpy.random.default_rng(2026), standard
normal) to --input, runs the ONNX model on it with onnxruntime's CPU provider (the batch and, for
hw != 224, the image size of the graph input are set first) and writes "top1 <class>", "top5 <c1>
... <c5>" and "margin <logit 1 - logit 2>" to --expected. Exit status 1 when the two best logits
are so close (margin < 1e-3) that float rounding could swap them.
"""
import argparse
import sys

import numpy as np
import onnx
import onnxruntime as ort


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--hw", type=int, default=224)
    parser.add_argument("--input", required=True, help="the raw float32 input to write")
    parser.add_argument("--expected", required=True, help="the expected classes to write")
    args = parser.parse_args(argv)

    x = np.random.default_rng(2026).standard_normal((1, 3, args.hw, args.hw)).astype(np.float32)
    x.tofile(args.input)

    model = onnx.load(args.model)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for i, value in ((0, 1), (2, args.hw), (3, args.hw)):
        dims[i].dim_value = value
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    logits = session.run(None, {model.graph.input[0].name: x})[0].reshape(-1)
    order = np.argsort(-logits, kind="stable")
    margin = float(logits[order[0]] - logits[order[1]])
    with open(args.expected, "w") as out:
        out.write(f"top1 {order[0]}\n")
        out.write("top5 " + " ".join(str(i) for i in order[:5]) + "\n")
        out.write(f"margin {margin:.6f}\n")
    print(f"onnxruntime: top-5 {list(order[:5])}, logits {logits[order[:5]]}, margin {margin:.4f}")
    if margin < 1e-3:
        print("the two best classes are too close to compare", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

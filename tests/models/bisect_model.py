#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Finds where Kiln starts to differ from onnxruntime inside one model.

    .venv/bin/python tests/models/bisect_model.py --case DIR/public/<case> --out DIR2
        [--set N] [--fold-if [ROUNDS]] [--tensors A,B | --ops Conv,LSTM | --every K] [--truncate]

Writes DIR2/bisect/<case>/ in the ONNX backend-test layout: the case's model with intermediate
tensors added as graph outputs, the case's inputs of test_data_set_N and onnxruntime's values
for every output, so that

    onnx_conformance --data-root=DIR2 --subsets=bisect --json=FILE

prints the max abs / max rel error of each intermediate tensor; the first one that differs
names the op. --fold-if first replaces every If whose condition onnxruntime computes for these
inputs by the nodes of the branch taken, ROUNDS levels deep (default: until none is left), which
brings the tensors inside control flow to the top level. --truncate keeps only the nodes the
selected tensors depend on (the graph outputs become just those tensors), which also stops
Kiln's fusion passes from spanning the cut. Tensors default to every node output (--every K:
every K-th); --tensors names them (a graph output name keeps the outputs as they are).
"""
import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_reference_data import session, write_tensor  # noqa: E402


def load_set(case_dir, n, model):
    inits = {i.name for i in model.graph.initializer}
    names = [v.name for v in model.graph.input if v.name not in inits]
    feeds = {}
    for k, name in enumerate(names):
        t = onnx.TensorProto()
        with open(os.path.join(case_dir, f"test_data_set_{n}", f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[name] = numpy_helper.to_array(t)
    return feeds


def run_ort(model, feeds, outputs):
    """onnxruntime's values of `outputs` (tensor names) for `feeds`."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.output[:]
    for name in outputs:
        m.graph.output.append(helper.make_empty_tensor_value_info(name))
    path = f"/tmp/bisect_{os.getpid()}.onnx"
    onnx.save(m, path)
    try:
        return dict(zip(outputs, session(path).run(outputs, feeds)))
    finally:
        os.remove(path)


def fold_ifs(model, feeds, rounds):
    """Replaces each top-level If by the branch onnxruntime takes, `rounds` times or until none
    is left."""
    for _ in range(rounds):
        ifs = [n for n in model.graph.node if n.op_type == "If"]
        if not ifs:
            return model
        conds = run_ort(model, feeds, [n.input[0] for n in ifs])
        nodes = []
        for n in model.graph.node:
            if n.op_type != "If":
                nodes.append(n)
                continue
            taken = "then_branch" if bool(np.asarray(conds[n.input[0]]).reshape(-1)[0]) \
                else "else_branch"
            g = next(a.g for a in n.attribute if a.name == taken)
            for init in g.initializer:
                model.graph.initializer.append(init)
            nodes.extend(g.node)
            for out, branch_out in zip(n.output, g.output):
                nodes.append(helper.make_node("Identity", [branch_out.name], [out],
                                              name=f"{n.name}/{taken}/{out}"))
        del model.graph.node[:]
        model.graph.node.extend(nodes)
    return model


def needed_nodes(model, targets):
    """The nodes `targets` depend on, in graph order."""
    producer = {o: i for i, n in enumerate(model.graph.node) for o in n.output}
    keep, stack = set(), list(targets)
    while stack:
        t = stack.pop()
        i = producer.get(t)
        if i is None or i in keep:
            continue
        keep.add(i)
        n = model.graph.node[i]
        stack.extend(x for x in n.input if x)
        for a in n.attribute:  # outer-scope names used by subgraphs
            if a.type == onnx.AttributeProto.GRAPH:
                stack.extend(x for sn in a.g.node for x in sn.input if x)
    return [n for i, n in enumerate(model.graph.node) if i in keep]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--case", required=True, help="a case directory written by "
                   "make_reference_data.py")
    p.add_argument("--out", required=True, help="data root to write <out>/bisect/<case>/ into")
    p.add_argument("--set", type=int, default=0, help="the test_data_set to use")
    p.add_argument("--fold-if", type=int, nargs="?", const=32, default=0, metavar="ROUNDS",
                   help="fold the Ifs ROUNDS levels deep (default: all)")
    p.add_argument("--tensors", default="")
    p.add_argument("--ops", default="", help="outputs of the nodes of these op types")
    p.add_argument("--every", type=int, default=1)
    p.add_argument("--truncate", action="store_true")
    p.add_argument("--name", default="", help="case name (default: the case's)")
    args = p.parse_args(argv)

    model = onnx.load(os.path.join(args.case, "model.onnx"))
    feeds = load_set(args.case, args.set, model)
    if args.fold_if:
        model = fold_ifs(model, feeds, args.fold_if)
    if args.tensors:
        tensors = [t for t in args.tensors.split(",") if t]
    else:
        ops = set(o for o in args.ops.split(",") if o)
        tensors = [o for n in model.graph.node if not ops or n.op_type in ops
                   for o in n.output if o and n.op_type != "Constant"]
        tensors = tensors[args.every - 1::args.every]
    graph_outputs = [o.name for o in model.graph.output]
    if args.truncate:
        keep = needed_nodes(model, tensors)
        del model.graph.node[:]
        model.graph.node.extend(keep)
        del model.graph.output[:]
        outputs = tensors
    else:
        outputs = graph_outputs + [t for t in tensors if t not in graph_outputs]

    # Types and shapes for the new graph outputs.
    del model.graph.value_info[:]
    inferred = shape_inference.infer_shapes(model)
    info = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    values = run_ort(model, feeds, outputs)
    del model.graph.output[:]
    for name in outputs:
        v = info.get(name)
        if v is None or not v.type.tensor_type.elem_type:
            arr = values[name]
            v = helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(arr.dtype), [None] * arr.ndim)
        model.graph.output.append(v)

    name = args.name or os.path.basename(os.path.normpath(args.case))
    case_dir = os.path.join(args.out, "bisect", name)
    if os.path.isdir(case_dir):
        shutil.rmtree(case_dir)
    set_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(set_dir)
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    inits = {i.name for i in model.graph.initializer}
    for k, v in enumerate(i for i in model.graph.input if i.name not in inits):
        write_tensor(os.path.join(set_dir, f"input_{k}.pb"), feeds[v.name], v.name)
    for k, o in enumerate(outputs):
        write_tensor(os.path.join(set_dir, f"output_{k}.pb"), values[o], o)
    print(f"{case_dir}: {len(model.graph.node)} nodes, {len(outputs)} outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

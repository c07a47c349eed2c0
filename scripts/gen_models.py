#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Generates the models of the public set that no package ships, with seeded random weights.

    .venv/bin/python scripts/gen_models.py --out DIR [--only resnet50,mobilenetv2,bert,...]

writes DIR/resnet50_v1.5.onnx, DIR/mobilenetv2.onnx and DIR/bert_encoder.onnx: standard
architectures (torchvision ResNet-50 v1.5 and MobileNetV2, a BERT encoder at all-MiniLM-L6
sizes) built with the onnx helper API at opset 17, laid out the way PyTorch exports them (node
names, decomposed LayerNorm and GELU, dynamic Shape/Reshape sub-graphs). The weights are
random, drawn from numpy.random.default_rng(seed) with He-style scaling so that activations
stay finite: the models are for speed and compiler tests, never for accuracy.

Every model passes onnx.checker.check_model(full_check=True) before it is written, and the
output is byte-for-byte deterministic. A model whose file already exists and carries this
script's GENERATOR_VERSION in its metadata_props is skipped (--force regenerates it).

`resnet50_qdq` (DIR/resnet50_v1.5_qdq.onnx) and `bert_qdq` (DIR/bert_encoder_qdq.onnx) are that
ResNet-50 and BERT encoder quantized the way users quantize for onnxruntime:
onnxruntime.quantization's quant_pre_process (BatchNormalization folded), then quantize_static in
the QDQ format, int8 weights (per output channel for ResNet-50), uint8 activations, calibrated
(MinMax) on seeded random inputs; `bert_dynamic` (DIR/bert_encoder_dynamic.onnx) is the BERT
encoder quantized dynamically (quantize_dynamic: DynamicQuantizeLinear -> MatMulInteger).
"""
import argparse
import math
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Bump whenever the bytes written change: files carrying the old version are regenerated.
GENERATOR_VERSION = "1"
OPSET = 17
IR_VERSION = 8
VERSION_KEY = "kiln_generator_version"


class GraphBuilder:
    """Accumulates the nodes and initializers of one ONNX graph.

    Node names follow the PyTorch exporter: "<scope>/<OpType>" with "_1", "_2", ... appended
    when the name repeats, and outputs "<node name>_output_<i>".
    """

    def __init__(self, seed):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self._names = {}
        self._matmul_weights = 0

    def _node_name(self, scope, op_type):
        base = f"{scope}/{op_type}"
        count = self._names.get(base, 0)
        self._names[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def op(self, op_type, inputs, scope="", outputs=None, **attrs):
        """Adds a node; returns its output name (or the list of them when `outputs` has more
        than one). `outputs` names the outputs, by default "<node name>_output_<i>"."""
        name = self._node_name(scope, op_type)
        if outputs is None:
            outputs = [f"{name}_output_0"]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def constant(self, value, scope="", dtype=np.int64):
        """Adds a Constant node holding `value` (a scalar or a list) and returns its output."""
        array = np.asarray(value, dtype=dtype)
        name = self._node_name(scope, "Constant")
        output = f"{name}_output_0"
        tensor = numpy_helper.from_array(array, name=output)
        self.nodes.append(helper.make_node("Constant", [], [output], name=name, value=tensor))
        return output

    def tensor(self, name, array):
        """Adds an initializer (stored as raw_data) and returns its name."""
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def normal(self, name, shape, std, mean=0.0):
        """Adds a float32 initializer drawn from N(mean, std^2)."""
        array = self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)
        return self.tensor(name, array + np.float32(mean))

    def uniform(self, name, shape, low, high):
        """Adds a float32 initializer drawn from U(low, high)."""
        array = self.rng.uniform(low, high, size=shape).astype(np.float32)
        return self.tensor(name, array)

    def matmul_weight(self, shape, std):
        """A MatMul weight named like the PyTorch exporter names transposed Linear weights."""
        self._matmul_weights += 1
        return self.normal(f"onnx::MatMul_{self._matmul_weights}", shape, std)

    def model(self, graph_name, inputs, outputs, doc, metadata):
        """Returns the ModelProto of everything added so far."""
        graph = helper.make_graph(self.nodes, graph_name, inputs, outputs,
                                  initializer=self.initializers, doc_string=doc)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="kiln gen_models.py",
                                  producer_version=GENERATOR_VERSION, doc_string=doc)
        model.ir_version = IR_VERSION
        props = {VERSION_KEY: GENERATOR_VERSION, "kiln_seed": str(self.seed),
                 "kiln_weights": "random", **metadata}
        helper.set_model_props(model, props)
        return model


def _doc(architecture, seed):
    return (f"{architecture} with SEEDED RANDOM weights (numpy.random.default_rng({seed})), "
            "generated by Kiln's scripts/gen_models.py. For speed and compiler tests only: "
            "its outputs mean nothing, do not measure accuracy with it.")


# ---------------------------------------------------------------------------------------------
# CNN pieces (torchvision naming)
# ---------------------------------------------------------------------------------------------

def _segment(module):
    """The scope segment the PyTorch exporter gives a module: its qualified name from the last
    non-numeric component on ("layer1.0.conv1" -> "conv1", "features.0.0" -> "features.0.0",
    "encoder.layer.0" -> "layer.0")."""
    parts = module.split(".")
    start = len(parts) - 1
    while start > 0 and parts[start].isdigit():
        start -= 1
    return ".".join(parts[start:])


def _conv_bn(b, x, scope, conv, bn, cin, cout, kernel, stride=1, group=1, gain=2.0,
             gamma=(0.8, 1.2)):
    """Conv (no bias) + BatchNormalization of the modules `conv` and `bn` (qualified names)
    inside the node scope `scope`.

    The conv weight is He-scaled (variance gain / fan_in); the BatchNormalization has random
    gamma in `gamma`, small beta and running mean, and a running variance near 1, so the pair
    keeps the second moment of its input about constant."""
    fan_in = cin // group * kernel * kernel
    w = b.normal(f"{conv}.weight", (cout, cin // group, kernel, kernel), math.sqrt(gain / fan_in))
    pad = kernel // 2
    y = b.op("Conv", [x, w], f"{scope}/{_segment(conv)}", dilations=[1, 1], group=group,
             kernel_shape=[kernel, kernel], pads=[pad] * 4, strides=[stride, stride])
    params = [
        b.uniform(f"{bn}.weight", (cout,), *gamma),
        b.normal(f"{bn}.bias", (cout,), 0.05),
        b.normal(f"{bn}.running_mean", (cout,), 0.05),
        b.uniform(f"{bn}.running_var", (cout,), 0.8, 1.2),
    ]
    return b.op("BatchNormalization", [y, *params], f"{scope}/{_segment(bn)}",
                epsilon=1e-5, momentum=0.9)


def _classifier_head(b, x, pool_scope, fc_scope, fc, channels, classes=1000):
    """GlobalAveragePool, Flatten and the Linear `fc` as Gemm (transB=1) to "logits"."""
    x = b.op("GlobalAveragePool", [x], pool_scope)
    x = b.op("Flatten", [x], "", axis=1)
    w = b.normal(f"{fc}.weight", (classes, channels), 0.01)
    bias = b.normal(f"{fc}.bias", (classes,), 0.01)
    return b.op("Gemm", [x, w, bias], fc_scope, outputs=["logits"], alpha=1.0, beta=1.0,
                transB=1)


def _image_io():
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 224, 224])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1000])]
    return inputs, outputs


def build_resnet50(seed=50):
    """torchvision ResNet-50 v1.5 (stride 2 in the bottleneck's 3x3 conv), 1000 classes."""
    b = GraphBuilder(seed)
    x = _conv_bn(b, "input", "", "conv1", "bn1", 3, 64, 7, stride=2)
    x = b.op("Relu", [x], "/relu")
    x = b.op("MaxPool", [x], "/maxpool", ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3],
             pads=[1, 1, 1, 1], strides=[2, 2])
    cin = 64
    for stage, (blocks, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512]), start=1):
        for i in range(blocks):
            layer = f"layer{stage}"
            block = f"{layer}.{i}"
            scope = f"/{layer}/{block}"
            stride = 2 if i == 0 and stage > 1 else 1
            cout = width * 4
            y = _conv_bn(b, x, scope, f"{block}.conv1", f"{block}.bn1", cin, width, 1)
            y = b.op("Relu", [y], f"{scope}/relu")
            y = _conv_bn(b, y, scope, f"{block}.conv2", f"{block}.bn2", width, width, 3,
                         stride=stride)
            y = b.op("Relu", [y], f"{scope}/relu_1")
            # A small gamma on the last BN of the branch keeps the residual sum from growing.
            y = _conv_bn(b, y, scope, f"{block}.conv3", f"{block}.bn3", width, cout, 1,
                         gamma=(0.2, 0.4))
            if i == 0:
                # The projection shortcut; variance gain 1 keeps it the size of its input.
                down = f"{block}.downsample"
                identity = _conv_bn(b, x, f"{scope}/downsample", f"{down}.0", f"{down}.1",
                                    cin, cout, 1, stride=stride, gain=1.0)
            else:
                identity = x
            x = b.op("Add", [y, identity], scope)
            x = b.op("Relu", [x], f"{scope}/relu_2")
            cin = cout
    _classifier_head(b, x, "/avgpool", "/fc", "fc", 2048)
    inputs, outputs = _image_io()
    doc = _doc("ResNet-50 v1.5 (torchvision layout)", seed)
    return b.model("resnet50_v1.5", inputs, outputs, doc,
                   {"kiln_architecture": "resnet50_v1.5", "kiln_purpose": "speed, compiler"})


def _conv_bn_relu6(b, x, scope, module, cin, cout, kernel, stride=1, group=1):
    """torchvision Conv2dNormActivation `module` (.0 conv, .1 bn, .2 ReLU6) inside the node
    scope `scope`; ReLU6 is Clip with min and max as Constant inputs (opset 11+)."""
    inner = f"{scope}/{_segment(module)}"
    y = _conv_bn(b, x, inner, f"{module}.0", f"{module}.1", cin, cout, kernel, stride, group)
    clip = f"{inner}/{_segment(module + '.2')}"
    lo = b.constant(0.0, clip, dtype=np.float32)
    hi = b.constant(6.0, clip, dtype=np.float32)
    return b.op("Clip", [y, lo, hi], clip)


def build_mobilenetv2(seed=2):
    """torchvision MobileNetV2, width 1.0, 1000 classes."""
    b = GraphBuilder(seed)
    x = _conv_bn_relu6(b, "input", "/features", "features.0", 3, 32, 3, stride=2)
    cin = 32
    index = 1
    # (expand ratio t, output channels c, repeats n, first stride s) as in the paper.
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            block = f"/features/features.{index}"
            scope = f"{block}/conv"
            module = f"features.{index}.conv"
            hidden = cin * t
            y = x
            layer = 0
            if t != 1:
                y = _conv_bn_relu6(b, y, scope, f"{module}.{layer}", cin, hidden, 1)
                layer += 1
            y = _conv_bn_relu6(b, y, scope, f"{module}.{layer}", hidden, hidden, 3, stride,
                               group=hidden)
            # The linear bottleneck: no activation follows, so variance gain 1, not 2.
            y = _conv_bn(b, y, scope, f"{module}.{layer + 1}", f"{module}.{layer + 2}",
                         hidden, c, 1, gain=1.0)
            if stride == 1 and cin == c:
                y = b.op("Add", [x, y], block)
            x = y
            cin = c
            index += 1
    x = _conv_bn_relu6(b, x, "/features", f"features.{index}", cin, 1280, 1)
    _classifier_head(b, x, "", "/classifier/classifier.1", "classifier.1", 1280)
    inputs, outputs = _image_io()
    doc = _doc("MobileNetV2 1.0 (torchvision layout)", seed)
    return b.model("mobilenetv2", inputs, outputs, doc,
                   {"kiln_architecture": "mobilenetv2", "kiln_purpose": "speed, compiler"})


# ---------------------------------------------------------------------------------------------
# BERT pieces (transformers naming; LayerNorm and GELU decomposed, as PyTorch exports them
# below opset 17)
# ---------------------------------------------------------------------------------------------

def _layer_norm(b, x, scope, module, hidden, eps=1e-12, output=None):
    """Decomposed LayerNorm over the last axis:
    ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta.
    `output` names the result (default: the exporter's name)."""
    mean = b.op("ReduceMean", [x], scope, axes=[-1], keepdims=1)
    d = b.op("Sub", [x, mean], scope)
    sq = b.op("Pow", [d, b.constant(2.0, scope, np.float32)], scope)
    var = b.op("ReduceMean", [sq], scope, axes=[-1], keepdims=1)
    var = b.op("Add", [var, b.constant(eps, scope, np.float32)], scope)
    std = b.op("Sqrt", [var], scope)
    y = b.op("Div", [d, std], scope)
    gamma = b.normal(f"{module}.weight", (hidden,), 0.05, mean=1.0)
    beta = b.normal(f"{module}.bias", (hidden,), 0.05)
    y = b.op("Mul", [y, gamma], scope)
    return b.op("Add", [y, beta], scope, outputs=[output] if output else None)


def _linear(b, x, scope, module, fan_in, fan_out, std=0.02):
    """torch.nn.Linear on a [batch, seq, fan_in] tensor: MatMul by Wᵀ then Add bias."""
    w = b.matmul_weight((fan_in, fan_out), std)
    y = b.op("MatMul", [x, w], scope)
    bias = b.normal(f"{module}.bias", (fan_out,), std)
    return b.op("Add", [bias, y], scope)


def _dims_01(b, x, scope):
    """x.size(0) and x.size(1) as 1-D tensors: Shape -> Gather -> Unsqueeze, twice."""
    dims = []
    for axis in (0, 1):
        shape = b.op("Shape", [x], scope)
        dim = b.op("Gather", [shape, b.constant(axis, scope)], scope, axis=0)
        dims.append(b.op("Unsqueeze", [dim, b.constant([0], scope)], scope))
    return dims


def _split_heads(b, x, scope, heads, head_dim):
    """transpose_for_scores: view to [batch, seq, heads, head_dim], permute to [b, h, s, d]."""
    batch, seq = _dims_01(b, x, scope)
    shape = b.op("Concat", [batch, seq, b.constant([heads], scope), b.constant([head_dim], scope)],
                 scope, axis=0)
    y = b.op("Reshape", [x, shape], scope)
    return b.op("Transpose", [y], scope, perm=[0, 2, 1, 3])


def _bert_layer(b, x, mask, index, hidden, heads, inter, output=None):
    """One BertLayer: self-attention, output dense + residual + LayerNorm, FFN with exact GELU,
    residual + LayerNorm. `output` names the layer's result."""
    head_dim = hidden // heads
    layer = f"encoder.layer.{index}"
    scope = f"/encoder/layer.{index}"
    att = f"{scope}/attention/self"
    q = _linear(b, x, f"{att}/query", f"{layer}.attention.self.query", hidden, hidden)
    k = _linear(b, x, f"{att}/key", f"{layer}.attention.self.key", hidden, hidden)
    k = _split_heads(b, k, att, heads, head_dim)
    v = _linear(b, x, f"{att}/value", f"{layer}.attention.self.value", hidden, hidden)
    v = _split_heads(b, v, att, heads, head_dim)
    q = _split_heads(b, q, att, heads, head_dim)
    kt = b.op("Transpose", [k], att, perm=[0, 1, 3, 2])
    scores = b.op("MatMul", [q, kt], att)
    scores = b.op("Div", [scores, b.constant(math.sqrt(head_dim), att, np.float32)], att)
    scores = b.op("Add", [scores, mask], att)
    probs = b.op("Softmax", [scores], att, axis=-1)
    ctx = b.op("MatMul", [probs, v], att)
    ctx = b.op("Transpose", [ctx], att, perm=[0, 2, 1, 3])
    batch, seq = _dims_01(b, ctx, att)
    shape = b.op("Concat", [batch, seq, b.constant([hidden], att)], att, axis=0)
    ctx = b.op("Reshape", [ctx, shape], att)

    out = f"{scope}/attention/output"
    y = _linear(b, ctx, f"{out}/dense", f"{layer}.attention.output.dense", hidden, hidden)
    y = b.op("Add", [y, x], out)
    attention = _layer_norm(b, y, f"{out}/LayerNorm", f"{layer}.attention.output.LayerNorm",
                            hidden)

    act = f"{scope}/intermediate/intermediate_act_fn"
    h = _linear(b, attention, f"{scope}/intermediate/dense", f"{layer}.intermediate.dense",
                hidden, inter)
    # GELU, exact: x * 0.5 * (1 + erf(x / sqrt(2))).
    e = b.op("Div", [h, b.constant(1.4142135381698608, act, np.float32)], act)
    e = b.op("Erf", [e], act)
    e = b.op("Add", [e, b.constant(1.0, act, np.float32)], act)
    g = b.op("Mul", [h, b.constant(0.5, act, np.float32)], act)
    g = b.op("Mul", [g, e], act)

    out = f"{scope}/output"
    y = _linear(b, g, f"{out}/dense", f"{layer}.output.dense", inter, hidden)
    y = b.op("Add", [y, attention], out)
    return _layer_norm(b, y, f"{out}/LayerNorm", f"{layer}.output.LayerNorm", hidden,
                       output=output)


def build_bert_encoder(seed=6, layers=6, hidden=384, heads=12, inter=1536, vocab=30522,
                       max_positions=512, type_vocab=2):
    """A BERT encoder (no pooler) at all-MiniLM-L6 sizes, as transformers' BertModel exports:
    inputs input_ids, attention_mask, token_type_ids [batch, seq]; output last_hidden_state."""
    b = GraphBuilder(seed)
    emb = "/embeddings"
    # Position ids: the registered buffer position_ids[:, :seq_length].
    position_ids = b.tensor("embeddings.position_ids",
                            np.arange(max_positions, dtype=np.int64).reshape(1, max_positions))
    shape = b.op("Shape", ["input_ids"], emb)
    seq = b.op("Gather", [shape, b.constant(1, emb)], emb, axis=0)
    seq = b.op("Unsqueeze", [seq, b.constant([0], emb)], emb)
    position_ids = b.op("Slice", [position_ids, b.constant([0], emb), seq, b.constant([1], emb),
                                  b.constant([1], emb)], emb)

    words = b.normal("embeddings.word_embeddings.weight", (vocab, hidden), 0.02)
    x = b.op("Gather", [words, "input_ids"], f"{emb}/word_embeddings")
    types = b.normal("embeddings.token_type_embeddings.weight", (type_vocab, hidden), 0.02)
    t = b.op("Gather", [types, "token_type_ids"], f"{emb}/token_type_embeddings")
    x = b.op("Add", [x, t], emb)
    positions = b.normal("embeddings.position_embeddings.weight", (max_positions, hidden), 0.02)
    p = b.op("Gather", [positions, position_ids], f"{emb}/position_embeddings")
    x = b.op("Add", [x, p], emb)
    x = _layer_norm(b, x, f"{emb}/LayerNorm", "embeddings.LayerNorm", hidden)

    # Extended attention mask: (1 - mask[:, None, None, :]) * -10000 as float.
    mask = b.op("Unsqueeze", ["attention_mask", b.constant([1, 2])], "")
    mask = b.op("Cast", [mask], "", to=TensorProto.FLOAT)
    mask = b.op("Sub", [b.constant(1.0, "", np.float32), mask], "")
    mask = b.op("Mul", [mask, b.constant(-10000.0, "", np.float32)], "")

    for index in range(layers):
        last = index == layers - 1
        x = _bert_layer(b, x, mask, index, hidden, heads, inter,
                        output="last_hidden_state" if last else None)

    dims = ["batch", "seq"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             dims + [hidden])]
    doc = _doc(f"BERT encoder ({layers} layers, hidden {hidden}, {heads} heads, "
               f"intermediate {inter}, vocab {vocab}; all-MiniLM-L6 sizes)", seed)
    return b.model("bert_encoder", inputs, outputs, doc,
                   {"kiln_architecture": "bert_encoder", "kiln_purpose": "speed, compiler"})


def _lstm_stack(b, x, fan_in, hidden, direction, scope):
    """Two LSTM layers of `hidden` (weights as PyTorch initialises them) over `x`, each Y
    [T, D, B, H] brought back to [T, B, D*H] the way PyTorch's export does (Transpose and
    Reshape when bidirectional, Squeeze otherwise); returns the output and its width."""
    dirs = 2 if direction == "bidirectional" else 1
    std = 1.0 / np.sqrt(hidden)
    for layer in range(2):
        s = f"{scope}.{layer}"
        w = b.uniform(f"{s}.W", (dirs, 4 * hidden, fan_in), -std, std)
        r = b.uniform(f"{s}.R", (dirs, 4 * hidden, hidden), -std, std)
        bias = b.uniform(f"{s}.B", (dirs, 8 * hidden), -std, std)
        y = b.op("LSTM", [x, w, r, bias], s, outputs=[f"{s}/Y", f"{s}/Y_h", f"{s}/Y_c"],
                 hidden_size=hidden, direction=direction)[0]
        if dirs == 2:
            t = b.op("Transpose", [y], s, perm=[0, 2, 1, 3])  # [T, B, 2, H]
            x = b.op("Reshape", [t, b.constant([0, 0, 2 * hidden], s)], s)
        else:
            x = b.op("Squeeze", [y, b.constant([1], s)], s)  # [T, B, H]
        fan_in = dirs * hidden
    return x, fan_in


def _sequence_model(b, name, input_name, steps, features, hidden, direction, classes, doc,
                    seed):
    """`input_name` [steps, 1, features] -> _lstm_stack -> Linear to `classes` ("logits")."""
    x, fan_in = _lstm_stack(b, input_name, features, hidden, direction,
                            "rnn" if direction == "bidirectional" else "lstm")
    w = b.matmul_weight((fan_in, classes), 1.0 / np.sqrt(fan_in))
    logits = b.op("MatMul", [x, w], "fc")
    b.op("Add", [logits, b.normal("fc.bias", (classes,), 0.02)], "fc", outputs=["logits"])
    inputs = [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, [steps, 1, features])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [steps, 1, classes])]
    return b.model(name, inputs, outputs, _doc(doc, seed),
                   {"kiln_architecture": name, "kiln_purpose": "speed (recurrent)"})


def build_crnn_head(seed=7, steps=80, features=512, hidden=256, classes=97):
    """A CRNN text recogniser's sequence head, as PyTorch exports nn.LSTM(bidirectional=True):
    features [steps, 1, 512] (a conv backbone's columns) -> two bidirectional LSTM layers of 256
    (each output [T, 2, B, H] transposed and reshaped to [T, B, 512]) -> Linear to 97 classes."""
    return _sequence_model(
        GraphBuilder(seed), "crnn_head", "features", steps, features, hidden, "bidirectional",
        classes, f"CRNN sequence head: 2 bidirectional LSTM layers of {hidden} over {steps} steps "
        f"of {features} features, {classes} classes", seed)


def build_lstm_lm(seed=11, steps=64, features=256, hidden=512, classes=1000):
    """A unidirectional language-model-style stack, as PyTorch exports nn.LSTM(num_layers=2):
    inputs [steps, 1, 256] -> two forward LSTM layers of 512 (each Y [T, 1, B, H] squeezed to
    [T, B, H]) -> Linear to 1000 classes. Batch 1 and one direction leave one recurrence per
    layer: its steps are what the threads must share."""
    return _sequence_model(
        GraphBuilder(seed), "lstm_lm", "inputs", steps, features, hidden, "forward", classes,
        f"LSTM language-model stack: 2 forward LSTM layers of {hidden} over {steps} steps of "
        f"{features} features, {classes} classes", seed)


def _quantize_qdq(model, feeds, seed, architecture, doc, per_channel):
    """`model` quantized by onnxruntime.quantization as its documentation shows: quant_pre_process
    (BatchNormalization folded), then quantize_static in the QDQ format, int8 weights, uint8
    activations, every op type it quantizes, MinMax-calibrated on `feeds`."""
    import tempfile

    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quant_pre_process, quantize_static)

    class Feeds(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter(feeds)

        def get_next(self):
            return next(self.feeds, None)

    with tempfile.TemporaryDirectory() as tmp:
        f32, pre, qdq = (os.path.join(tmp, n) for n in ("f32.onnx", "pre.onnx", "qdq.onnx"))
        onnx.save(model, f32)
        quant_pre_process(f32, pre, skip_symbolic_shape=True)
        quantize_static(pre, qdq, Feeds(), quant_format=QuantFormat.QDQ, per_channel=per_channel,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        model = onnx.load(qdq)
    model.doc_string = doc + " For speed and compiler tests only."
    del model.metadata_props[:]
    for key, value in {VERSION_KEY: GENERATOR_VERSION, "kiln_seed": str(seed),
                       "kiln_architecture": architecture, "kiln_purpose": "speed (int8)"}.items():
        model.metadata_props.add(key=key, value=value)
    return model


def build_resnet50_qdq(seed=51, calibration_images=8):
    """build_resnet50's model quantized (QDQ, per-channel weights; see _quantize_qdq),
    calibrated on seeded standard-normal images."""
    rng = np.random.default_rng(seed)
    feeds = [{"input": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}
             for _ in range(calibration_images)]
    return _quantize_qdq(build_resnet50(), feeds, seed, "resnet50_v1.5_qdq",
                         "ResNet-50 v1.5 (scripts/gen_models.py, seeded random weights) quantized "
                         "by onnxruntime.quantization: QDQ, per-channel int8 weights, uint8 "
                         "activations.", per_channel=True)


def build_bert_qdq(seed=61, calibration_sets=4, seq=128):
    """build_bert_encoder's model quantized (QDQ, per-tensor weights, every op type
    onnxruntime quantizes; see _quantize_qdq), calibrated on seeded random token ids."""
    rng = np.random.default_rng(seed)
    feeds = [{"input_ids": rng.integers(1000, 30522, (1, seq)).astype(np.int64),
              "attention_mask": np.ones((1, seq), np.int64),
              "token_type_ids": np.zeros((1, seq), np.int64)} for _ in range(calibration_sets)]
    return _quantize_qdq(build_bert_encoder(), feeds, seed, "bert_encoder_qdq",
                         "A BERT encoder at all-MiniLM-L6 sizes (scripts/gen_models.py, seeded "
                         "random weights) quantized by onnxruntime.quantization: QDQ, int8 "
                         "weights, uint8 activations, every op type it quantizes.",
                         per_channel=False)


def build_bert_dynamic(seed=62):
    """build_bert_encoder's model quantized dynamically, as onnxruntime's transformer recipes do
    (quant_pre_process, then quantize_dynamic with int8 weights: DynamicQuantizeLinear ->
    MatMulInteger -> Cast -> Mul per weight product)."""
    import tempfile

    from onnxruntime.quantization import QuantType, quant_pre_process, quantize_dynamic

    with tempfile.TemporaryDirectory() as tmp:
        f32, pre, dyn = (os.path.join(tmp, n) for n in ("f32.onnx", "pre.onnx", "dyn.onnx"))
        onnx.save(build_bert_encoder(), f32)
        quant_pre_process(f32, pre, skip_symbolic_shape=True)
        quantize_dynamic(pre, dyn, weight_type=QuantType.QInt8)
        model = onnx.load(dyn)
    model.doc_string = ("A BERT encoder at all-MiniLM-L6 sizes (scripts/gen_models.py, seeded "
                        "random weights) quantized dynamically by onnxruntime.quantization (int8 "
                        "weights). For speed and compiler tests only.")
    del model.metadata_props[:]
    for key, value in {VERSION_KEY: GENERATOR_VERSION, "kiln_seed": str(seed),
                       "kiln_architecture": "bert_encoder_dynamic",
                       "kiln_purpose": "speed (int8)"}.items():
        model.metadata_props.add(key=key, value=value)
    return model


MODELS = {
    "resnet50": ("resnet50_v1.5.onnx", build_resnet50),
    "resnet50_qdq": ("resnet50_v1.5_qdq.onnx", build_resnet50_qdq),
    "crnn": ("crnn_head.onnx", build_crnn_head),
    "lstm_lm": ("lstm_lm.onnx", build_lstm_lm),
    "mobilenetv2": ("mobilenetv2.onnx", build_mobilenetv2),
    "bert": ("bert_encoder.onnx", build_bert_encoder),
    "bert_qdq": ("bert_encoder_qdq.onnx", build_bert_qdq),
    "bert_dynamic": ("bert_encoder_dynamic.onnx", build_bert_dynamic),
}


def is_current(path):
    """True when `path` is a model written by this version of the script."""
    if not os.path.isfile(path):
        return False
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception:  # a truncated or foreign file is simply regenerated
        return False
    props = {p.key: p.value for p in model.metadata_props}
    return props.get(VERSION_KEY) == GENERATOR_VERSION


def write_atomically(path, data):
    """Writes `data` to `path` through a temporary file, so a reader never sees half a model."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", required=True, help="directory to write the .onnx files to")
    parser.add_argument("--only", default=",".join(MODELS),
                        help=f"comma-separated subset of {','.join(MODELS)} (default: all)")
    parser.add_argument("--force", action="store_true",
                        help="regenerate even the models that are current")
    args = parser.parse_args(argv)
    args.only = [m.strip() for m in args.only.split(",") if m.strip()]
    unknown = [m for m in args.only if m not in MODELS]
    if unknown or not args.only:
        parser.error(f"--only: unknown model(s) {','.join(unknown)}; choose from "
                     f"{','.join(MODELS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for key in args.only:
        filename, build = MODELS[key]
        path = os.path.join(args.out, filename)
        start = time.perf_counter()
        if not args.force and is_current(path):
            print(f"{filename}: current (version {GENERATOR_VERSION}), skipped")
            continue
        model = build()
        onnx.checker.check_model(model, full_check=True)  # also runs strict shape inference
        data = model.SerializeToString(deterministic=True)
        write_atomically(path, data)
        print(f"{filename}: {len(model.graph.node)} nodes, {len(data) / 2**20:.1f} MiB, "
              f"{time.perf_counter() - start:.1f} s, checker passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

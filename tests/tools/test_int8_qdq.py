# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""int8 from QDQ models (docs/atc.md "int8"): a small ResNet-style network (a 7x7 stem, max
pool, two residual blocks, one with a strided 1x1 shortcut, global pool, Gemm) quantized by
onnxruntime.quantization (QuantFormat.QDQ, per channel and per tensor, uint8 and int8
activations) compiles to FusedQLinearConv nodes and a MaxPool on the quantized tensor, and gives
onnxruntime's results within one step of the output's quantization; a transformer-style MLP
block's weight products become QLinearMatMul (the product of two activations stays float); the
same block quantized dynamically (onnxruntime's quantize_dynamic: DynamicQuantizeLinear ->
MatMulInteger) matches onnxruntime."""
import numpy as np
import pytest
from kiln_cli import kiln, om_json, run_once

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SHAPE = (1, 3, 64, 64)


def float_model(path):
    rng = np.random.default_rng(8)
    inits, nodes = [], []

    def conv(x, cin, cout, k, stride=1, relu=True, name=None):
        name = name or f"conv{len(nodes)}"
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        inits.append(numpy_helper.from_array(w.astype(np.float32), f"{name}_w"))
        inits.append(numpy_helper.from_array(
            (0.1 * rng.standard_normal(cout)).astype(np.float32), f"{name}_b"))
        p = k // 2
        nodes.append(helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [f"{name}_y"],
                                      pads=[p] * 4, strides=[stride] * 2))
        if not relu:
            return f"{name}_y"
        nodes.append(helper.make_node("Relu", [f"{name}_y"], [f"{name}_r"]))
        return f"{name}_r"

    def block(x, cin, cout, stride):
        a = conv(x, cin, cout // 2, 1)
        b = conv(a, cout // 2, cout // 2, 3, stride)
        c = conv(b, cout // 2, cout, 1, relu=False)
        s = x if stride == 1 and cin == cout else conv(x, cin, cout, 1, stride, relu=False)
        out = f"add{len(nodes)}"
        nodes.append(helper.make_node("Add", [c, s], [out]))
        nodes.append(helper.make_node("Relu", [out], [out + "_r"]))
        return out + "_r"

    x = conv("x", 3, 16, 7, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    x = block("pool", 16, 32, 2)
    x = block(x, 32, 32, 1)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    inits.append(numpy_helper.from_array(
        (rng.standard_normal((10, 32)) / np.sqrt(32)).astype(np.float32), "fc_w"))
    inits.append(numpy_helper.from_array(np.zeros(10, np.float32), "fc_b"))
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1))
    graph = helper.make_graph(nodes, "tiny_resnet",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


class Calibration(quantization.CalibrationDataReader):
    def __init__(self):
        rng = np.random.default_rng(3)
        self.feeds = iter([{"x": rng.standard_normal(SHAPE).astype(np.float32)}
                           for _ in range(4)])

    def get_next(self):
        return next(self.feeds, None)


@pytest.fixture(scope="module")
def f32_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("int8")
    float_model(d / "f32.onnx")
    return d


@pytest.mark.parametrize("per_channel,activations", [(True, "QUInt8"), (False, "QInt8")])
def test_a_qdq_model_runs_int8_and_matches_onnxruntime(f32_model, per_channel, activations):
    d = f32_model
    name = f"qdq_{int(per_channel)}_{activations}"
    qdq = d / f"{name}.onnx"
    quantization.quantize_static(
        str(d / "f32.onnx"), str(qdq), Calibration(), quant_format=quantization.QuantFormat.QDQ,
        per_channel=per_channel, activation_type=getattr(quantization.QuantType, activations),
        weight_type=quantization.QuantType.QInt8)
    r = kiln("atc", "--framework=5", f"--model={qdq}", f"--output={d / name}", "--log=info")
    log = r.stdout + r.stderr
    # Every convolution and both residual adds became integer ops.
    assert log.count("became FusedQLinearConv") == 8, log
    assert log.count("and the residual") == 2, log
    assert "runs on the quantized" in log, log
    assert log.count("became FusedQLinearMatMul") == 1, log  # the classifier's Gemm
    # The 8-bit activations stay channels-last between the convolutions.
    assert "channels_last: FusedQLinearConv" in log and "keeps X, Y NHWC" in log, log
    text = om_json(d / f"{name}.om")
    assert text.count('"FusedQLinearConv"') == 8, text[:2000]
    assert '"Conv"' not in text

    x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    got = run_once(d / f"{name}.om", x, d)
    (expected,) = ort.InferenceSession(str(qdq), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    # The logits are dequantized from the last QuantizeLinear: an element may differ by one
    # step where onnxruntime's and Kiln's integer kernels round a tie differently.
    step = float(numpy_helper.to_array(next(
        i for i in onnx.load(str(qdq)).graph.initializer if i.name == "y_scale")))
    diff = np.abs(got - expected)
    assert diff.max() <= step * 1.01, (diff.max(), step)
    assert np.mean(diff > 0) < 0.5
    assert got.argmax() == expected.argmax()


def test_every_load_of_a_qdq_model_gives_the_same_bits(f32_model):
    """Kernels are prepared on several threads at load (hal::Device::ForEachPreparation): each
    fresh process must still compute bit-identical results. Integer weights packed with their
    compensation are the sensitive case (a race there moved logits by a quantization step)."""
    d = f32_model
    qdq = d / "qdq_repeat.onnx"
    quantization.quantize_static(
        str(d / "f32.onnx"), str(qdq), Calibration(), quant_format=quantization.QuantFormat.QDQ,
        per_channel=False, activation_type=quantization.QuantType.QInt8,
        weight_type=quantization.QuantType.QInt8)
    kiln("atc", "--framework=5", f"--model={qdq}", f"--output={d / 'qdq_repeat'}")
    x = np.random.default_rng(7).standard_normal(SHAPE).astype(np.float32)
    first = run_once(d / "qdq_repeat.om", x, d, name="repeat")
    for _ in range(5):
        again = run_once(d / "qdq_repeat.om", x, d, name="repeat")
        assert np.array_equal(first, again), np.abs(first - again).max()

def mlp_model(path):
    """x [1, 16, 64] -> MatMul W1 [64, 128] + b1 -> Relu -> MatMul W2 [128, 64] + b2 -> + x ->
    MatMul by its own transpose (two activations) -> y [1, 16, 16]."""
    rng = np.random.default_rng(9)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * g).astype(np.float32), n)
             for n, s, g in [("w1", (64, 128), 0.15), ("b1", (128,), 0.1),
                             ("w2", (128, 64), 0.1), ("b2", (64,), 0.1)]]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"]),
        helper.make_node("Add", ["h1", "b1"], ["h1b"]),
        helper.make_node("Relu", ["h1b"], ["h1r"]),
        helper.make_node("MatMul", ["h1r", "w2"], ["h2"]),
        helper.make_node("Add", ["h2", "b2"], ["h2b"]),
        helper.make_node("Add", ["h2b", "x"], ["res"]),
        helper.make_node("Transpose", ["res"], ["resT"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["res", "resT"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 16])],
                              inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


class MlpCalibration(quantization.CalibrationDataReader):
    def __init__(self):
        rng = np.random.default_rng(4)
        self.feeds = iter([{"x": rng.standard_normal((1, 16, 64)).astype(np.float32)}
                           for _ in range(4)])

    def get_next(self):
        return next(self.feeds, None)


@pytest.mark.parametrize("per_channel", [True, False])
def test_weight_products_of_a_qdq_model_run_int8(tmp_path, per_channel):
    mlp_model(tmp_path / "f32.onnx")
    qdq = tmp_path / "qdq.onnx"
    quantization.quantize_static(
        str(tmp_path / "f32.onnx"), str(qdq), MlpCalibration(),
        quant_format=quantization.QuantFormat.QDQ, per_channel=per_channel,
        activation_type=quantization.QuantType.QUInt8, weight_type=quantization.QuantType.QInt8,
        op_types_to_quantize=["MatMul"])
    r = kiln("atc", "--framework=5", f"--model={qdq}", f"--output={tmp_path / 'mlp'}", "--log=info")
    log = r.stdout + r.stderr
    assert log.count("became QLinearMatMul") == 2, log  # not the product of two activations
    x = np.random.default_rng(6).standard_normal((1, 16, 64)).astype(np.float32)
    got = run_once(tmp_path / "mlp.om", x, tmp_path)
    (expected,) = ort.InferenceSession(str(qdq), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    # The integer products requantize as onnxruntime's do; the last (float) product of two
    # dequantized activations sums in another order.
    scale = float(np.max(np.abs(expected)))
    assert np.max(np.abs(got - expected)) <= 1e-4 * scale


def test_a_dynamically_quantized_model_matches_onnxruntime(tmp_path):
    mlp_model(tmp_path / "f32.onnx")
    dyn = tmp_path / "dyn.onnx"
    quantization.quantize_dynamic(str(tmp_path / "f32.onnx"), str(dyn),
                                  weight_type=quantization.QuantType.QInt8)
    ops = [n.op_type for n in onnx.load(str(dyn)).graph.node]
    assert ops.count("MatMulInteger") == 2 and "DynamicQuantizeLinear" in ops, ops
    kiln("atc", "--framework=5", f"--model={dyn}", f"--output={tmp_path / 'dyn'}")
    x = np.random.default_rng(7).standard_normal((1, 16, 64)).astype(np.float32)
    got = run_once(tmp_path / "dyn.om", x, tmp_path)
    (expected,) = ort.InferenceSession(str(dyn), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    # Exact int32 sums, the same dynamic ranges; float scaling and the last float product may
    # round differently.
    scale = float(np.max(np.abs(expected)))
    assert np.max(np.abs(got - expected)) <= 1e-4 * scale, np.max(np.abs(got - expected))


def test_dynamically_quantized_convolutions_match_onnxruntime(f32_model):
    """quantize_dynamic on the convolution network: DynamicQuantizeLinear -> ConvInteger."""
    d = f32_model
    dyn = d / "conv_dyn.onnx"
    quantization.quantize_dynamic(str(d / "f32.onnx"), str(dyn), op_types_to_quantize=["Conv"],
                                  weight_type=quantization.QuantType.QInt8)
    ops = [n.op_type for n in onnx.load(str(dyn)).graph.node]
    assert ops.count("ConvInteger") == 8, ops
    kiln("atc", "--framework=5", f"--model={dyn}", f"--output={d / 'conv_dyn'}")
    x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    got = run_once(d / "conv_dyn.om", x, d, name="xd")
    (expected,) = ort.InferenceSession(str(dyn), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    scale = float(np.max(np.abs(expected)))
    assert np.max(np.abs(got - expected)) <= 1e-3 * scale, np.max(np.abs(got - expected))


def test_a_gemm_with_a_row_shaped_bias_compiles_and_matches_onnxruntime(tmp_path):
    """Gemm(x, W, C) with C of shape [1, N]: the quantized bias is reshaped to the [N] the integer
    product takes (reused as it is only when already 1-D)."""
    rng = np.random.default_rng(12)
    inits = [numpy_helper.from_array((rng.standard_normal((8, 16)) * 0.3).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal((1, 8)) * 0.2).astype(np.float32), "c")]
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "c"], ["y"], transB=1)], "gemm_row_bias",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "f32.onnx"))

    class Feeds(quantization.CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([{"x": rng.standard_normal((1, 16)).astype(np.float32)}
                               for _ in range(4)])

        def get_next(self):
            return next(self.feeds, None)

    qdq = tmp_path / "qdq.onnx"
    quantization.quantize_static(str(tmp_path / "f32.onnx"), str(qdq), Feeds(),
                                 quant_format=quantization.QuantFormat.QDQ)
    r = kiln("atc", "--framework=5", f"--model={qdq}", f"--output={tmp_path / 'g'}", "--log=info")
    assert "became FusedQLinearMatMul" in r.stdout + r.stderr
    x = rng.standard_normal((1, 16)).astype(np.float32)
    got = run_once(tmp_path / "g.om", x, tmp_path)
    (expected,) = ort.InferenceSession(str(qdq), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    step = float(np.max(np.abs(expected))) / 100  # well above one step of y's quantization
    assert np.max(np.abs(got - expected)) <= step, (got, expected)

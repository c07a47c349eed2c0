# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.compile: ONNX in, .om out, with `kiln atc`'s options (the same compiler facade)."""
import os
import tempfile

from acl import _acl

from kiln.errors import KilnError

OPTIONS = tuple(_acl._kiln.COMPILE_OPTIONS)


def _flag(name, value):
    """An option given as a Python value, written as ATC's flag text."""
    if isinstance(value, str):
        return value
    if name == "input_shape" and isinstance(value, dict):
        return ";".join(f"{k}:{','.join(str(int(d)) for d in dims)}" for k, dims in value.items())
    if name in ("out_nodes", "input_fp16_nodes"):
        return ";".join(str(v) for v in value)
    if name == "dynamic_batch_size":
        return ",".join(str(int(v)) for v in value)
    if name in ("dynamic_image_size", "dynamic_dims"):
        return ";".join(",".join(str(int(d)) for d in gear) for gear in value)
    raise TypeError(f"kiln.compile: option {name} must be a string, not {type(value).__name__}")


def flags(options):
    """The options as {flag: text}, validated by name (KilnError for an unknown one)."""
    out = {}
    for name, value in options.items():
        if name not in OPTIONS:
            raise KilnError(
                100000, f"unknown option '{name}' (options: {', '.join(OPTIONS)})", "kiln.compile"
            )
        if value is None:
            continue
        out[name] = _flag(name, value)
    return out


def _model_bytes(model):
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if hasattr(model, "SerializeToString"):  # an onnx.ModelProto
        return model.SerializeToString()
    return None


def compile(model, output=None, **options):  # noqa: A001  (the public name)
    """Compiles an ONNX model into a Kiln .om.

    Args:
        model: path of an .onnx file, its bytes, or an onnx.ModelProto.
        output: the .om path to write (".om" is appended when missing); None returns the .om's
            bytes instead.
        **options: `kiln atc` options without "--": input_shape ("x:1,3,224,224" or
            {"x": [1, 3, 224, 224]}), dynamic_batch_size ("1,2,4" or [1, 2, 4]),
            dynamic_image_size, dynamic_dims, out_nodes, output_type, input_fp16_nodes,
            insert_op_conf, soc_version, input_format, precision_mode, precision_mode_v2.

    Returns:
        The written path (output given) or the .om bytes.

    Raises:
        KilnError: with the compiler's code and message (unsupported op, bad option, ...).
    """
    text = flags(options)
    data = _model_bytes(model)
    with tempfile.TemporaryDirectory(prefix="kiln-compile-") as tmp:
        if data is not None:
            path = os.path.join(tmp, "model.onnx")
            with open(path, "wb") as f:
                f.write(data)
        else:
            path = os.fspath(model)
        target = os.fspath(output) if output is not None else os.path.join(tmp, "model.om")
        report, code, message = _acl._kiln.compile(path, target, text)
        if report is None:
            raise KilnError(code, message, "kiln.compile")
        if output is not None:
            return report["output_path"]
        with open(report["output_path"], "rb") as f:
            return f.read()

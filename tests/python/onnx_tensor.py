# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The ONNX TensorProto reader of the Python tests (the model zoo's test data, input_0.pb /
output_0.pb): no onnx package needed, so the wheel and serving tests, which run without it,
use it too (tests/python/conftest.py, tests/serving/conftest.py, wheel_smoke.py)."""
import os
import struct

import numpy as np

_NP = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
       9: np.bool_, 10: np.float16, 11: np.float64}


def _varint(buf, i):
    value, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def read_tensor(path):
    """A TensorProto file (dims, data_type, raw_data or float_data) as a numpy array."""
    with open(path, "rb") as f:
        buf = f.read()
    dims, dtype, raw, floats = [], 1, None, []
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
            if field == 1:
                dims.append(value)
            elif field == 2:
                dtype = value
        elif wire == 2:
            n, i = _varint(buf, i)
            chunk = buf[i:i + n]
            i += n
            if field == 1:  # packed dims
                j = 0
                while j < len(chunk):
                    v, j = _varint(chunk, j)
                    dims.append(v)
            elif field == 9:
                raw = chunk
            elif field == 4:
                floats.extend(struct.unpack(f"<{len(chunk) // 4}f", chunk))
        elif wire == 5:
            if field == 4:
                floats.append(struct.unpack("<f", buf[i:i + 4])[0])
            i += 4
        elif wire == 1:
            i += 8
        else:
            raise ValueError(f"{path}: unexpected protobuf wire type {wire}")
    if raw is not None:
        return np.frombuffer(raw, dtype=_NP[dtype]).reshape(dims).copy()
    return np.array(floats, dtype=np.float32).reshape(dims)


def zoo_sets(model_dir):
    """[(input_0, output_0)] of a zoo model's test_data_set_<n> folders, in order."""
    out = []
    n = 0
    while os.path.isdir(os.path.join(model_dir, f"test_data_set_{n}")):
        d = os.path.join(model_dir, f"test_data_set_{n}")
        out.append((read_tensor(os.path.join(d, "input_0.pb")),
                    read_tensor(os.path.join(d, "output_0.pb"))))
        n += 1
    return out

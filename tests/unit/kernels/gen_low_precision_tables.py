#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Writes low_precision_tables.h, the oracle of low_precision_test.cc.

Every expected value comes from the installed onnx package: its reference Cast
(onnx.reference.ops.op_cast.cast_to, which uses onnx.numpy_helper and ml_dtypes) and its
reference QuantizeLinear, and its packing helpers. Run it with the onnx of the project's
virtual environment and commit the output:

    .venv/bin/python tests/unit/kernels/gen_low_precision_tables.py

The tables hold:
  - the float value of every code of the float8 types, FLOAT8E8M0 and FLOAT4E2M1 (float bits);
  - the code the reference Cast gives for a set of float inputs: the representable values, the
    midpoints between neighbours (the ties) and one float either side of them, the overflow
    boundaries, zeros, infinities, NaNs, E8M0 rounding boundaries and a sweep over all float
    bit patterns; for the four float8 types with saturate on and off, FLOAT8E8M0 with each
    round_mode and saturate, and FLOAT4E2M1;
  - Cast to INT4/UINT4/INT2/UINT2 and QuantizeLinear to them (scale 1, zero point 0 and
    another), for inputs in the range where the reference is defined on every platform;
  - onnx.numpy_helper's packing of a few int4/int2 vectors.
"""

from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.ops.op_cast import cast_to

F8_TYPES = [
    TensorProto.FLOAT8E4M3FN,
    TensorProto.FLOAT8E4M3FNUZ,
    TensorProto.FLOAT8E5M2,
    TensorProto.FLOAT8E5M2FNUZ,
]
E8M0_MODES = ["up", "down", "nearest"]
INT_TYPES = [TensorProto.UINT4, TensorProto.INT4, TensorProto.UINT2, TensorProto.INT2]
# A second zero point per type for the QuantizeLinear columns.
INT_ZERO_POINTS = {
    TensorProto.UINT4: 5,
    TensorProto.INT4: 3,
    TensorProto.UINT2: 2,
    TensorProto.INT2: -1,
}
# Marks a result the reference leaves to the platform (float to int conversion out of int32
# range, of inf or of NaN); the test checks those cases by their documented rule instead.
UNDEFINED = 0x7F


def f32_bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def from_bits(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def codes(x: np.ndarray, to: int, saturate: bool, round_mode: str = "up") -> np.ndarray:
    with np.errstate(all="ignore"):
        return cast_to(x, to, saturate, round_mode).view(np.uint8)


def decode_table(to: int, count: int) -> np.ndarray:
    dtype = helper.tensor_dtype_to_np_dtype(to)
    return f32_bits(np.arange(count, dtype=np.uint8).view(dtype).astype(np.float32))


def finite_positive_values(to: int, count: int) -> np.ndarray:
    v = from_bits(decode_table(to, count)).astype(np.float64)
    return np.unique(v[np.isfinite(v) & (v >= 0)])


def float_inputs() -> np.ndarray:
    """Float32 bit patterns worth checking, deduplicated and sorted."""
    bits: set[int] = set()

    def add(values) -> None:
        a = np.asarray(values, dtype=np.float32)
        bits.update(int(b) for b in f32_bits(a).ravel())

    def add_with_neighbours(values) -> None:
        a = np.asarray(values, dtype=np.float32)
        add(a)
        add(np.nextafter(a, np.float32(np.inf)))
        add(np.nextafter(a, np.float32(-np.inf)))

    finfo = np.finfo(np.float32)
    add([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, finfo.max, -finfo.max])
    add([finfo.tiny, -finfo.tiny, finfo.smallest_subnormal, -finfo.smallest_subnormal])
    bits.update([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FA00000, 0x7FFFFFFF])
    for to, count in [(t, 256) for t in F8_TYPES] + [(TensorProto.FLOAT4E2M1, 16)]:
        v = finite_positive_values(to, count)
        add(v)
        add(-v)
        ulp_at_max = v[-1] - v[-2]
        # The ties between neighbours, and the one between the largest value and the next
        # (virtual) one, where rounding overflows.
        mids = np.append((v[:-1] + v[1:]) / 2, v[-1] + ulp_at_max / 2)
        add_with_neighbours(mids)
        add(-mids)
        add_with_neighbours([v[-1] + ulp_at_max, 2 * v[-1], -(v[-1] + ulp_at_max)])
    # FLOAT8E8M0: per float exponent field, the mantissas where up/down/nearest differ
    # (guard, round and sticky bits), at the low end (subnormals), around 1 and at the top.
    mantissas = [0, 1, 0x1FFFFF, 0x200000, 0x3FFFFF, 0x400000, 0x400001, 0x600000, 0x7FFFFF]
    for e in list(range(0, 6)) + list(range(124, 131)) + list(range(250, 255)):
        for m in mantissas:
            bits.add((e << 23) | m)
    bits.update([0x80000000 | (127 << 23) | 0x400000, 0x80000000 | (254 << 23) | 1])
    # A sweep over every float bit pattern, by a prime step.
    bits.update(range(0, 1 << 32, 2097143))
    return np.array(sorted(bits), dtype=np.uint32)


def int_inputs() -> np.ndarray:
    values = list(np.arange(-40, 40.25, 0.25))
    for t in [0.5, 1.5, 2.5, 7.5, 8.5, 15.5, 16.5, 1e6, 123456.5]:
        for s in (1, -1):
            x = np.float32(s * t)
            values += [x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))]
    largest_below_2_31 = np.nextafter(np.float32(2.0**31), np.float32(0))
    values += [largest_below_2_31, -largest_below_2_31, -(2.0**31), 2.0**31, 3e9, -3e9, 1e20]
    values += [np.inf, -np.inf, np.nan, -np.nan, -0.0]
    return np.unique(f32_bits(np.array(values, dtype=np.float32)))


def quantize(x: np.ndarray, to: int, zero_point: int) -> np.ndarray:
    node = helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])
    graph = helper.make_graph(
        [node],
        "q",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("y", to, [None])],
        [
            helper.make_tensor("s", TensorProto.FLOAT, [], [1.0]),
            helper.make_tensor("zp", to, [], [zero_point]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    with np.errstate(all="ignore"):
        (y,) = ReferenceEvaluator(model).run(None, {"x": x})
    return y.astype(np.int8)


def int_rows(bits: np.ndarray) -> list[list[int]]:
    x = from_bits(bits)
    with np.errstate(all="ignore"):
        cast_defined = np.isfinite(x) & (np.abs(x.astype(np.float64)) < 2.0**31)
        # rint(q) + zero point must fit int32 (the reference's intermediate type).
        quant_defined = np.isfinite(x) & (np.abs(x.astype(np.float64)) < 2.0**30)
    columns = []
    for to in INT_TYPES:
        with np.errstate(all="ignore"):
            c = cast_to(x, to, True).astype(np.int8)
        columns.append(np.where(cast_defined, c, UNDEFINED))
    for zp in (0, None):
        for to in INT_TYPES:
            q = quantize(x, to, INT_ZERO_POINTS[to] if zp is None else zp)
            columns.append(np.where(quant_defined, q, UNDEFINED))
    return [[int(c[i]) & 0xFF for c in columns] for i in range(len(bits))]


def hex_bytes(values) -> str:
    return "".join(f"{v:02x}" for v in values)


def main() -> None:
    lines = [
        "// Copyright 2026 The Kiln Authors",
        "// SPDX-License-Identifier: Apache-2.0",
        "//",
        "// Generated by gen_low_precision_tables.py from onnx "
        f"{onnx.__version__} (ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__});",
        "// do not edit. The oracle of low_precision_test.cc: see the script for what it holds.",
        "#pragma once",
        "",
        "#include <cstdint>",
        "",
        "namespace kiln::kernels::low_precision_tables {",
        "",
        "// clang-format off",
    ]

    def emit_u32_array(name: str, values) -> None:
        lines.append(f"inline constexpr uint32_t {name}[{len(values)}] = {{")
        for i in range(0, len(values), 8):
            lines.append("  " + ", ".join(f"0x{int(v):08x}u" for v in values[i : i + 8]) + ",")
        lines.append("};")

    lines.append("// Float bits of the value of every code: E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ.")
    lines.append("inline constexpr uint32_t kFloat8Decode[4][256] = {")
    for to in F8_TYPES:
        table = decode_table(to, 256)
        lines.append("  {")
        for i in range(0, 256, 8):
            lines.append("    " + ", ".join(f"0x{int(v):08x}u" for v in table[i : i + 8]) + ",")
        lines.append("  },")
    lines.append("};")
    emit_u32_array("kE8M0Decode", decode_table(TensorProto.FLOAT8E8M0, 256))
    emit_u32_array("kE2M1Decode", decode_table(TensorProto.FLOAT4E2M1, 16))

    # Float inputs: codes as hex pairs, columns
    #   0-3   float8 E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ with saturate=1
    #   4-7   the same with saturate=0
    #   8-13  E8M0 (up, 1), (up, 0), (down, 1), (down, 0), (nearest, 1), (nearest, 0)
    #   14    FLOAT4E2M1
    bits = float_inputs()
    x = from_bits(bits)
    columns = [codes(x, to, True) for to in F8_TYPES]
    columns += [codes(x, to, False) for to in F8_TYPES]
    for mode in E8M0_MODES:
        for sat in (True, False):
            columns.append(codes(x, TensorProto.FLOAT8E8M0, sat, mode))
    columns.append(codes(x, TensorProto.FLOAT4E2M1, True))
    lines += [
        "",
        "struct FloatRow {",
        "  uint32_t input;  // float bits",
        "  // 15 codes as hex pairs: float8 saturate x4, float8 no-saturate x4,",
        "  // E8M0 (up,1) (up,0) (down,1) (down,0) (nearest,1) (nearest,0), E2M1.",
        "  const char* codes;",
        "};",
        f"inline constexpr FloatRow kFloatRows[{len(bits)}] = {{",
    ]
    for i, b in enumerate(bits):
        lines.append(f'  {{0x{int(b):08x}u, "{hex_bytes(c[i] for c in columns)}"}},')
    lines.append("};")

    # Integer inputs: values as int8 hex pairs (0x7f: not defined by the reference), columns
    #   0-3   Cast to UINT4, INT4, UINT2, INT2
    #   4-7   QuantizeLinear (scale 1, zero point 0) to the same
    #   8-11  QuantizeLinear (scale 1, zero point kIntZeroPoints) to the same
    ibits = int_inputs()
    lines += [
        "",
        f"inline constexpr uint8_t kUndefined = 0x{UNDEFINED:02x};",
        "inline constexpr int32_t kIntZeroPoints[4] = {"
        + ", ".join(str(INT_ZERO_POINTS[t]) for t in INT_TYPES)
        + "};  // UINT4, INT4, UINT2, INT2",
        "struct IntRow {",
        "  uint32_t input;  // float bits",
        "  // 12 int8 values: Cast x4, QuantizeLinear zero point 0 x4, kIntZeroPoints x4.",
        "  const char* codes;",
        "};",
        f"inline constexpr IntRow kIntRows[{len(ibits)}] = {{",
    ]
    for b, row in zip(ibits, int_rows(ibits)):
        lines.append(f'  {{0x{int(b):08x}u, "{hex_bytes(row)}"}},')
    lines.append("};")

    # Packing: onnx.numpy_helper's layout of -8..7 and 0..15 (odd counts), and of int2/uint2.
    int4_values = np.array([(i * 5) % 16 - 8 for i in range(23)], dtype=np.int8)
    uint4_values = np.array([(i * 7) % 16 for i in range(23)], dtype=np.uint8)
    int2_values = np.array([(i * 3) % 4 - 2 for i in range(23)], dtype=np.int8)
    uint2_values = np.array([(i * 3) % 4 for i in range(23)], dtype=np.uint8)
    pack4, pack2 = numpy_helper._pack_4bitx2, numpy_helper._pack_2bitx4
    packs = [
        ("kInt4Values", "kInt4Packed", int4_values, pack4(int4_values.astype(ml_dtypes.int4))),
        ("kUInt4Values", "kUInt4Packed", uint4_values, pack4(uint4_values.astype(ml_dtypes.uint4))),
        ("kInt2Values", "kInt2Packed", int2_values, pack2(int2_values.astype(ml_dtypes.int2))),
        ("kUInt2Values", "kUInt2Packed", uint2_values, pack2(uint2_values.astype(ml_dtypes.uint2))),
    ]
    lines.append("")
    lines.append("// onnx.numpy_helper._pack_4bitx2 / _pack_2bitx4 of 23 values.")
    for vname, pname, values, packed in packs:
        ctype = "int8_t" if values.dtype == np.int8 else "uint8_t"
        lines.append(
            f"inline constexpr {ctype} {vname}[{len(values)}] = {{"
            + ", ".join(str(int(v)) for v in values)
            + "};"
        )
        lines.append(
            f"inline constexpr uint8_t {pname}[{len(packed)}] = {{"
            + ", ".join(f"0x{int(v):02x}" for v in packed)
            + "};"
        )

    lines += ["// clang-format on", "", "}  // namespace kiln::kernels::low_precision_tables", ""]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "low_precision_tables.h")
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {out}: {len(bits)} float rows, {len(ibits)} int rows", file=sys.stderr)


if __name__ == "__main__":
    main()

# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Every type of the CANN operator table (src/compiler/cann_ops_*.cc), run as a pyACL program
runs a single operator: each case is an op_list.json entry compiled with `kiln atc --singleop`
(all cases in one call), its .om registered with acl.op.load, and the operator run with
acl.op.execute_v2 on device memory. The oracle is numpy, written from CANN's operator semantics
(docs/single-op-reference.md §4): convolution and pooling by their definitions, slicing by numpy
indexing. The shapes are awkward on purpose: odd sizes, size-1 dims, broadcasting, ranks 0..5,
negative axes, NCHW/NHWC/HWCN layouts, asymmetric pads.

The table's types are read from its sources, so an operator added without a numeric case here
fails test_every_table_type_has_a_case. Operators with required attributes are compiled without
each of them and must be refused with ACL_ERROR_OP_ATTR_NOT_MATCH (100023); the table's
deliberate refusals (BatchNorm training, StridedSlice ellipsis/new-axis masks, ...) are checked
too."""
import json
import math
import os
import re
import subprocess

import numpy as np
import pytest

import acl

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE_SOURCES = [os.path.join(ROOT, "src", "compiler", f"cann_ops_{part}.cc")
                 for part in ("math", "nn", "tensor")]

INVALID_PARAM = 100000  # ACL_ERROR_INVALID_PARAM
OP_ATTR_NOT_MATCH = 100023  # ACL_ERROR_OP_ATTR_NOT_MATCH
H2D, D2H = 1, 2  # ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST

# numpy type -> (aclDataType, op_list.json type name)
DTYPES = {
    np.dtype(np.float32): (0, "float"), np.dtype(np.float16): (1, "float16"),
    np.dtype(np.int8): (2, "int8"), np.dtype(np.int32): (3, "int32"),
    np.dtype(np.uint8): (4, "uint8"), np.dtype(np.int64): (9, "int64"),
    np.dtype(np.bool_): (12, "bool"),
}
ACL_DT = {k.type: v[0] for k, v in DTYPES.items()}  # numpy scalar type -> aclDataType
FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "HWCN": 16}

f32, f16, i8, i32, u8, i64, b8 = (np.float32, np.float16, np.int8, np.int32, np.uint8, np.int64,
                                  np.bool_)


# ---- the table's types, from its sources ---------------------------------------------------

def _table_bodies():
    """The text of each Add*Ops function (where the table's entries are made)."""
    for path in TABLE_SOURCES:
        text = open(path).read()
        m = re.search(r"\nvoid Add\w+Ops\(std::vector<CannOp>& ops\) \{\n(.*)\n\}", text, re.S)
        assert m, f"no Add*Ops function in {path}"
        yield path, m.group(1)


def table_types():
    """{type: text of its entry}: `ops.push_back({"Type", ...})` entries and the
    `{"Type", "Onnx"}` pairs the loops push."""
    types = {}
    for path, body in _table_bodies():
        found = 0
        for m in re.finditer(r"for \(auto \[type, onnx\]\s*:\s*std::vector<[^{]*\{(.*?)\}\)\s*\{"
                             r"(.*?)\n  \}", body, re.S):
            for t, _ in re.findall(r'\{"(\w+)",\s*"(\w+)"\}', m.group(1)):
                types[t] = m.group(2)
                found += 1
        for m in re.finditer(r'ops\.push_back\(\s*\{"(\w+)"(.*?)\}\);', body, re.S):
            types[m.group(1)] = m.group(2)
            found += 1
        assert found, f"no table entries found in {path}"
    return types


# ---- cases ---------------------------------------------------------------------------------

class In:
    """An input: a numpy array, its format, and whether it is const (is_const + const_value at
    compile time, acl.set_tensor_const at run time)."""

    def __init__(self, array, fmt="ND", const=False):
        self.array = np.asarray(array)
        assert self.array.dtype in DTYPES, self.array.dtype
        self.fmt, self.const = fmt, const


class Out:
    """An output: the oracle's array (its dtype and shape are the declared ones) and format."""

    def __init__(self, expected, fmt="ND"):
        self.expected = np.asarray(expected)
        self.fmt = fmt


class Case:
    def __init__(self, op, tag, inputs, outputs, attrs=(), rtol=None, atol=None):
        self.op, self.tag = op, tag
        self.inputs = [i if isinstance(i, In) else In(i) for i in inputs]
        self.outputs = [o if isinstance(o, Out) else Out(o) for o in outputs]
        self.attrs = list(attrs)  # (name, json type, value)
        self.rtol, self.atol = rtol, atol

    @property
    def id(self):
        return f"{self.op}-{self.tag}"


def _tensor_json(array, fmt, const=False):
    d = {"format": fmt, "shape": list(array.shape), "type": DTYPES[array.dtype][1]}
    if const:
        d["is_const"] = True
        d["const_value"] = array.reshape(-1).tolist()
    return d


def entry_of(op, inputs, outputs, attrs=(), name=None):
    e = {"op": op}
    if name is not None:
        e["name"] = name
    e["input_desc"] = [_tensor_json(i.array, i.fmt, i.const) for i in inputs]
    e["output_desc"] = [_tensor_json(o.expected, o.fmt) for o in outputs]
    if attrs:
        e["attr"] = [{"name": n, "type": t, "value": v} for n, t, v in attrs]
    return e


CASES = []


def case(op, tag, inputs, outputs, attrs=(), **tol):
    CASES.append(Case(op, tag, inputs, outputs, attrs, **tol))


def rnd(rng, shape, dtype=f32, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def rint(rng, shape, dtype=i32, lo=-9, hi=10):
    return rng.integers(lo, hi, shape).astype(dtype)


# ---- element-wise binary -------------------------------------------------------------------

def _binary_cases():
    rng = np.random.default_rng(10)
    arith = {
        "Add": np.add, "AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply,
        "RealDiv": np.divide, "Div": np.divide, "Pow": np.power, "Maximum": np.maximum,
        "Minimum": np.minimum,
    }
    compare = {"Equal": np.equal, "Greater": np.greater, "GreaterEqual": np.greater_equal,
               "Less": np.less, "LessEqual": np.less_equal}
    shapes = [("bcast3", (3, 1, 5), (4, 5)), ("scalar-x1", (), (2, 3)),
              ("scalar-x2", (7,), ()), ("rank0", (), ()),
              ("rank5", (2, 1, 3, 1, 2), (1, 4, 1, 5, 1)), ("size1", (1, 1), (1,))]

    def operands(op, s1, s2, dtype):
        if op == "Pow":
            return rnd(rng, s1, dtype, 0.5, 2.0), rnd(rng, s2, dtype, -2.0, 2.0)
        if op in ("RealDiv", "Div"):
            b = rnd(rng, s2, dtype, 0.5, 2.0) * np.where(rng.random(s2) < 0.5, -1, 1)
            return rnd(rng, s1, dtype), b.astype(dtype)
        return rnd(rng, s1, dtype), rnd(rng, s2, dtype)

    for op, fn in arith.items():
        for tag, s1, s2 in shapes:
            a, b = operands(op, s1, s2, f32)
            case(op, tag, [a, b], [fn(a.astype(np.float64), b).astype(f32)])
        a, b = operands(op, (2, 3, 1), (1, 5), f16)
        case(op, "fp16", [a, b], [fn(a.astype(np.float64), b).astype(f16)])
        if op in ("RealDiv",):
            continue
        if op == "Pow":
            a, b = rint(rng, (3, 4), i32, -3, 4), rint(rng, (4,), i32, 0, 4)
        elif op == "Div":  # positive operands: C's and floor division agree
            a, b = rint(rng, (3, 4), i32, 0, 50), rint(rng, (3, 1), i32, 1, 7)
        else:
            a, b = rint(rng, (3, 4), i32), rint(rng, (3, 1), i32)
        want = {"Div": lambda x, y: x // y}.get(op, fn)(a, b).astype(i32)
        case(op, "int32", [a, b], [want])
    for op, fn in compare.items():
        for tag, s1, s2 in shapes[:3] + shapes[4:5]:
            # Small integers as floats: equal elements occur.
            a = rng.integers(-2, 3, s1).astype(f32)
            b = rng.integers(-2, 3, s2).astype(f32)
            case(op, tag, [a, b], [fn(a, b)])
        a, b = rint(rng, (2, 5), i32, -2, 3), rint(rng, (5,), i32, -2, 3)
        case(op, "int32", [a, b], [fn(a, b)])
        a = rng.integers(-2, 3, (4, 1)).astype(f16)
        b = rng.integers(-2, 3, (1, 3)).astype(f16)
        case(op, "fp16", [a, b], [fn(a, b)])
    for op, fn in {"LogicalAnd": np.logical_and, "LogicalOr": np.logical_or}.items():
        a, b = rng.random((3, 1, 4)) < 0.5, rng.random((2, 4)) < 0.5
        case(op, "bcast", [a, b], [fn(a, b)])
        a, b = rng.random((5,)) < 0.5, np.array(True)
        case(op, "scalar", [a, b], [fn(a, b)])
        a, b = rng.random((2, 1, 2, 1, 3)) < 0.5, rng.random((1, 2, 1, 2, 1)) < 0.5
        case(op, "rank5", [a, b], [fn(a, b)])


_binary_cases()


# ---- element-wise unary --------------------------------------------------------------------

_erf = np.vectorize(math.erf)


def _unary_cases():
    rng = np.random.default_rng(11)
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.7, 0.2, 3.49, -3.51], f32)
    ops = {
        # op: (oracle in float64, domain (lo, hi), int32 too)
        "Relu": (lambda x: np.maximum(x, 0), (-2, 2), True),
        "Sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-6, 6), False),
        "Tanh": (np.tanh, (-3, 3), False),
        "Abs": (np.abs, (-2, 2), True),
        "Neg": (np.negative, (-2, 2), True),
        "Floor": (np.floor, (-4, 4), False),
        "Ceil": (np.ceil, (-4, 4), False),
        "Reciprocal": (np.reciprocal, (0.25, 4), False),
        "Sqrt": (np.sqrt, (0, 9), False),
        "Erf": (_erf, (-2.5, 2.5), False),
        "Round": (np.round, (-4, 4), False),  # half to even, as numpy and CANN's
        "Sin": (np.sin, (-4, 4), False),
        "Cos": (np.cos, (-4, 4), False),
        "Sign": (np.sign, (-2, 2), True),
        "Softplus": (lambda x: np.log1p(np.exp(x)), (-5, 5), False),
        "Softsign": (lambda x: x / (1 + np.abs(x)), (-5, 5), False),
        "Square": (np.square, (-3, 3), True),
        "Rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 9), False),
    }
    for op, (fn, (lo, hi), ints) in ops.items():
        x = rnd(rng, (2, 3, 1, 5), f32, lo, hi)
        if op in ("Floor", "Ceil", "Round", "Sign"):
            x.reshape(-1)[:10] = halves if op != "Sign" else [0, -0.0, 1, -1, 2, -2, .1, -.1,
                                                              5, -5]
        case(op, "rank4", [x], [fn(x.astype(np.float64)).astype(f32)])
        x = rnd(rng, (), f32, lo, hi)
        case(op, "rank0", [x], [np.asarray(fn(x.astype(np.float64))).astype(f32)])
        x = rnd(rng, (1, 3, 1, 2, 1), f32, lo, hi)
        case(op, "rank5", [x], [fn(x.astype(np.float64)).astype(f32)])
        x = rnd(rng, (7,), f16, lo, hi)
        case(op, "fp16", [x], [fn(x.astype(np.float64)).astype(f16)])
        if ints:
            x = rint(rng, (3, 1, 4), i32, -6, 7)
            case(op, "int32", [x], [fn(x).astype(i32)])
    x = rng.random((2, 1, 3)) < 0.5
    case("LogicalNot", "rank3", [x], [~x])
    case("LogicalNot", "rank0", [np.array(False)], [np.array(True)])
    x = rng.random((1, 2, 1, 3, 2)) < 0.5
    case("LogicalNot", "rank5", [x], [~x])

    x = rnd(rng, (3, 1, 5))
    case("LeakyRelu", "default-slope", [x], [np.maximum(x, 0)])
    case("LeakyRelu", "slope0.2", [x], [np.where(x > 0, x, np.float32(0.2) * x)],
         [("negative_slope", "float", 0.2)])
    x = rnd(rng, (), f32)
    case("LeakyRelu", "rank0-slope-1.5", [x], [np.where(x > 0, x, np.float32(-1.5) * x)],
         [("negative_slope", "float", -1.5)])
    x = rnd(rng, (2, 7), f16)
    case("LeakyRelu", "fp16", [x], [np.where(x > 0, x, 0.1 * x.astype(np.float64)).astype(f16)],
         [("negative_slope", "float", 0.1)])

    # Exp: base^(scale*x + shift), base -1 = e.  Log: log_base(scale*x + shift).
    def exp_oracle(x, base=-1.0, scale=1.0, shift=0.0):
        t = scale * x.astype(np.float64) + shift
        return np.exp(t) if base == -1.0 else np.power(base, t)

    def log_oracle(x, base=-1.0, scale=1.0, shift=0.0):
        t = np.log(scale * x.astype(np.float64) + shift)
        return t if base == -1.0 else t / np.log(base)

    for tag, attrs, kw in [
            ("default", [], {}),
            ("all-defaults-set", [("base", "float", -1.0), ("scale", "float", 1.0),
                                  ("shift", "float", 0.0)], {}),
            ("base2-scale0.5-shift1", [("base", "float", 2.0), ("scale", "float", 0.5),
                                       ("shift", "float", 1.0)],
             dict(base=2.0, scale=0.5, shift=1.0)),
            ("e-scale2-shift-1", [("scale", "float", 2.0), ("shift", "float", -1.0)],
             dict(scale=2.0, shift=-1.0)),
            ("base10", [("base", "float", 10.0)], dict(base=10.0))]:
        x = rnd(rng, (2, 1, 3, 5), f32, -1.5, 1.5)
        case("Exp", tag, [x], [exp_oracle(x, **kw).astype(f32)], attrs)
        # scale*x + shift > 0 for x in (0.2, 3)
        x = rnd(rng, (3, 5, 1), f32, 0.2, 3.0)
        lkw = dict(kw)
        if lkw.get("shift", 0.0) < 0:
            lkw["shift"] = 0.5
            attrs = [(n, t, 0.5 if n == "shift" else v) for n, t, v in attrs]
        case("Log", tag, [x], [log_oracle(x, **lkw).astype(f32)], attrs)
    x = rnd(rng, (), f32, 0.5, 1.5)
    case("Exp", "rank0-base3", [x], [exp_oracle(x, 3.0).astype(f32)], [("base", "float", 3.0)])
    case("Log", "rank0-base3-scale4", [x], [log_oracle(x, 3.0, 4.0).astype(f32)],
         [("base", "float", 3.0), ("scale", "float", 4.0)])
    x = rnd(rng, (9,), f16, -1, 1)
    case("Exp", "fp16-base2-shift0.5", [x], [exp_oracle(x, 2.0, 1.0, 0.5).astype(f16)],
         [("base", "float", 2.0), ("shift", "float", 0.5)])
    x = rnd(rng, (9,), f16, 0.5, 4)
    case("Log", "fp16-scale2", [x], [log_oracle(x, -1.0, 2.0).astype(f16)],
         [("scale", "float", 2.0)])


_unary_cases()


# ---- Cast ----------------------------------------------------------------------------------

def _cast_cases():
    types = {"float32": f32, "float16": f16, "int32": i32, "int8": i8, "uint8": u8, "bool": b8}
    # Values exact in float16; the float ones have fractions (float -> int truncates to zero).
    pool = [0, 1, -1, 2.5, -3.75, 0.25, -0.5, 7, 100.5, -100.5, 127, -128, 200, 255, 1000,
            -1000, 2048, -37]
    ranges = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-2 ** 31, 2 ** 31 - 1)}
    for sn, st in types.items():
        for dn, dt in types.items():
            if sn == "bool":
                vals = [0, 1, 1, 0, 1]
            else:
                vals = [v for v in pool if sn in ("float32", "float16") or float(v).is_integer()]
                if sn in ranges:
                    vals = [v for v in vals if ranges[sn][0] <= v <= ranges[sn][1]]
            if dn in ranges:
                vals = [v for v in vals if ranges[dn][0] <= math.trunc(v) <= ranges[dn][1]]
            x = np.array(vals, np.float64).astype(st)
            if x.size % 2 == 0:
                x = x.reshape(2, -1, 1)
            acl_dt = ACL_DT[dt]
            case("Cast", f"{sn}-to-{dn}", [x], [x.astype(dt)],
                 [("dst_type", "int", acl_dt), ("truncate", "bool", False)])
    x = np.array(3.7, f32)
    case("Cast", "rank0-float32-to-int32", [x], [np.array(3, i32)], [("dst_type", "int", 3)])
    x = rnd(np.random.default_rng(12), (2, 3, 1, 1, 2), f32, -50, 50)
    case("Cast", "rank5-data_type-attr", [x], [x.astype(f16)],
         [("dst_type", "data_type", "DT_FLOAT16")])
    case("Cast", "truncate-true", [x], [x.astype(i32)],
         [("dst_type", "int", 3), ("truncate", "bool", True)])


_cast_cases()


# ---- ArgMax, Softmax -----------------------------------------------------------------------

def _argmax_softmax_cases():
    rng = np.random.default_rng(13)
    x = rng.permutation(60).astype(f32).reshape(3, 5, 4)
    dim = lambda v, t=i32, shape=(): In(np.array(v, t).reshape(shape), const=True)  # noqa: E731
    case("ArgMaxV2", "dim1-int32-dtype-int32", [x, dim(1)], [np.argmax(x, 1).astype(i32)],
         [("dtype", "data_type", "DT_INT32")])
    case("ArgMaxV2", "dim-1-int64-default-dtype", [x, dim(-1, i64, (1,))],
         [np.argmax(x, -1).astype(i64)])
    case("ArgMaxV2", "dim0-dtype-int64", [x, dim(0, i64)], [np.argmax(x, 0).astype(i64)],
         [("dtype", "data_type", 9)])
    ties = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [0, -1, 5, 5]], f32)
    case("ArgMaxV2", "ties-first-index", [ties, dim(1)], [np.array([1, 0, 2], i32)],
         [("dtype", "data_type", 3)])
    y = rnd(rng, (2, 1, 3, 1, 4), f16)
    case("ArgMaxV2", "fp16-rank5-dim-3", [y, dim(-3)], [np.argmax(y, -3).astype(i64)])
    v = rng.permutation(9).astype(f32)
    case("ArgMaxV2", "rank1-to-rank0", [v, dim(0)], [np.array(np.argmax(v), i64)])

    case("ArgMaxD", "dim1", [x], [np.argmax(x, 1).astype(i32)], [("dimension", "int", 1)])
    case("ArgMaxD", "dim-1", [x], [np.argmax(x, -1).astype(i32)], [("dimension", "int", -1)])
    case("ArgMaxD", "dtype-int64", [x], [np.argmax(x, 2).astype(i64)],
         [("dimension", "int", 2), ("dtype", "data_type", "DT_INT64")])
    logits = rng.uniform(-1, 1, 1000).astype(f16)
    logits[617] = 7.5
    case("ArgMaxD", "sample-fp16-1000-to-[1]", [logits], [np.array([617], i32)],
         [("dimension", "int", 0)])
    case("ArgMaxD", "ties", [ties], [np.array([1, 0, 2], i32)], [("dimension", "int", -1)])

    def softmax(a, axes):
        a = a.astype(np.float64)
        e = np.exp(a - a.max(axis=axes, keepdims=True))
        return e / e.sum(axis=axes, keepdims=True)

    x = rnd(rng, (8, 16), f32, -4, 4)
    case("SoftmaxV2", "default-axes", [x], [softmax(x, -1).astype(f32)])
    x = rnd(rng, (2, 3, 1, 5), f32, -4, 4)
    case("SoftmaxV2", "axis1", [x], [softmax(x, 1).astype(f32)], [("axes", "list_int", [1])])
    case("SoftmaxV2", "axis0", [x], [softmax(x, 0).astype(f32)], [("axes", "list_int", [0])])
    case("SoftmaxV2", "size1-axis", [x], [softmax(x, 2).astype(f32)],
         [("axes", "list_int", [-2])])
    case("SoftmaxV2", "axes-1,-2", [x], [softmax(x, (-1, -2)).astype(f32)],
         [("axes", "list_int", [-1, -2])])
    case("SoftmaxV2", "axes0,3", [x], [softmax(x, (0, 3)).astype(f32)],
         [("axes", "list_int", [0, 3])])
    case("SoftmaxV2", "all-axes", [x], [softmax(x, (0, 1, 2, 3)).astype(f32)],
         [("axes", "list_int", [0, 1, 2, 3])])
    x = rnd(rng, (2, 1, 3, 2, 3), f32, -4, 4)
    case("SoftmaxV2", "rank5-axes1,4", [x], [softmax(x, (1, 4)).astype(f32)],
         [("axes", "list_int", [1, 4])])
    x = rnd(rng, (5,), f32, -4, 4)
    case("SoftmaxV2", "rank1", [x], [softmax(x, 0).astype(f32)], [("axes", "list_int", [0])])
    x = rnd(rng, (4, 6), f16, -4, 4)
    case("SoftmaxV2", "fp16", [x], [softmax(x, -1).astype(f16)], [("axes", "list_int", [-1])])


_argmax_softmax_cases()


# ---- reductions ----------------------------------------------------------------------------

def _reduce_cases():
    rng = np.random.default_rng(14)
    fns = {"Sum": np.sum, "Mean": np.mean, "Max": np.max, "Min": np.min, "Prod": np.prod}

    def want(fn, x, axes, keep, dtype=f32):
        return np.asarray(fn(x.astype(np.float64), axis=tuple(axes), keepdims=keep)).astype(dtype)

    for name, fn in fns.items():
        op = "Reduce" + name
        lo, hi = (0.5, 1.5) if name == "Prod" else (-2, 2)
        x = rnd(rng, (2, 3, 4), f32, lo, hi)
        axes = lambda v, t=i32, const=True: In(np.array(v, t), const=const)  # noqa: E731
        case(op, "const-int32-axes1", [x, axes([1])], [want(fn, x, [1], False)])
        x4 = rnd(rng, (2, 3, 1, 5), f32, lo, hi)
        case(op, "runtime-int64-axes-1,0-keep", [x4, axes([-1, 0], i64, False)],
             [want(fn, x4, [-1, 0], True)], [("keep_dims", "bool", True)])
        case(op, "const-size1-axis-keep-false", [x4, axes([2], i64)],
             [want(fn, x4, [2], False)], [("keep_dims", "bool", False)])
        x5 = rnd(rng, (2, 1, 3, 2, 3), f32, lo, hi)
        case(op, "rank5-axes1,3", [x5, axes([1, 3])], [want(fn, x5, [1, 3], False)])
        # Empty axes: noop_with_empty_axes, true in CANN's prototype, returns x.
        case(op, "empty-axes-noop-default", [x, axes(np.zeros(0), i64, False)], [x])
        case(op, "empty-axes-noop-false", [x, axes(np.zeros(0), i64, False)],
             [want(fn, x, [0, 1, 2], False)], [("noop_with_empty_axes", "bool", False)])
        x16 = rnd(rng, (3, 5), f16, lo, hi)
        case(op, "fp16", [x16, axes([0])], [want(fn, x16, [0], False, f16)])

        op = "Reduce" + name + "D"
        case(op, "axes1-keep", [x], [want(fn, x, [1], True)],
             [("axes", "list_int", [1]), ("keep_dims", "bool", True)])
        case(op, "axes0,2", [x], [want(fn, x, [0, 2], False)],
             [("axes", "list_int", [0, 2]), ("keep_dims", "bool", False)])
        case(op, "axes-1-no-keep_dims", [x5], [want(fn, x5, [-1], False)],
             [("axes", "list_int", [-1])])
        case(op, "all-axes-to-rank0", [x4], [want(fn, x4, [0, 1, 2, 3], False)],
             [("axes", "list_int", [0, 1, 2, 3])])
        case(op, "fp16-axes-2", [x16], [want(fn, x16, [-2], True, f16)],
             [("axes", "list_int", [-2]), ("keep_dims", "bool", True)])
        if name in ("Max", "Min"):
            xi = rint(rng, (3, 4), i32, -50, 50)
            case(op, "int32", [xi], [fn(xi, axis=1).astype(i32)], [("axes", "list_int", [1])])
    x = rnd(rng, (2, 3, 4))
    case("ReduceSumD", "empty-axes-noop", [x], [x], [("axes", "list_int", [])])
    case("ReduceSumD", "rank0-empty-axes", [np.array(2.5, f32)], [np.array(2.5, f32)],
         [("axes", "list_int", [])])


_reduce_cases()


# ---- Conv2D --------------------------------------------------------------------------------

def conv2d(x, w, bias, strides, pads, dilations, groups):
    """NCHW x, OIHW w; pads [top, bottom, left, right]; float64."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    assert c == cg * groups and o % groups == 0
    (sh, sw), (dh, dw) = strides, dilations
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    oh = (h + pads[0] + pads[1] - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pads[2] + pads[3] - dw * (kw - 1) - 1) // sw + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                       j * dw:j * dw + sw * (ow - 1) + 1:sw]
            for g in range(groups):
                y[:, g * og:(g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og, :, i, j])
    if bias is not None:
        y += bias.astype(np.float64).reshape(1, -1, 1, 1)
    return y


def same_pads(size, k, s, d=1):
    """TensorFlow's SAME (ONNX SAME_UPPER): [begin, end] with the extra one at the end."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return [total // 2, total - total // 2]


NHWC_OF = (0, 2, 3, 1)
NCHW_OF = (0, 3, 1, 2)


def _conv_cases():
    rng = np.random.default_rng(15)
    ints = lambda name, v: (name, "list_int", v)  # noqa: E731
    tol = dict(rtol=1e-5, atol=1e-5)

    x = rnd(rng, (1, 3, 7, 7))
    w = rnd(rng, (4, 3, 3, 3))
    case("Conv2D", "nchw-basic", [In(x, "NCHW"), In(w, "NCHW")],
         [Out(conv2d(x, w, None, (1, 1), [0] * 4, (1, 1), 1).astype(f32), "NCHW")],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [0, 0, 0, 0])], **tol)

    x = rnd(rng, (2, 3, 9, 8))
    w = rnd(rng, (5, 3, 3, 2))
    b = rnd(rng, (5,))
    y = conv2d(x, w, b, (2, 1), [1, 0, 2, 1], (1, 2), 1)
    case("Conv2D", "nchw-stride-h2-asym-pads-dilation-w2-bias",
         [In(x, "NCHW"), In(w, "NCHW"), In(b)], [Out(y.astype(f32), "NCHW")],
         [ints("strides", [1, 1, 2, 1]), ints("pads", [1, 0, 2, 1]),
          ints("dilations", [1, 1, 1, 2])], **tol)

    # CANN's acl_execute_conv2d sample: NHWC x, NCHW filter, NHWC y.
    x = rnd(rng, (1, 7, 6, 4))
    w = rnd(rng, (6, 4, 3, 3))
    y = conv2d(x.transpose(NCHW_OF), w, None, (2, 2), [1, 1, 1, 1], (1, 1), 1)
    case("Conv2D", "nhwc-x-nchw-filter-stride2",
         [In(x, "NHWC"), In(w, "NCHW")], [Out(y.transpose(NHWC_OF).astype(f32), "NHWC")],
         [ints("strides", [1, 2, 2, 1]), ints("pads", [1, 1, 1, 1]),
          ints("dilations", [1, 1, 1, 1])], **tol)

    # NHWC x, HWCN filter, 2 groups, dilation 2 on H (NHWC order), asymmetric pads.
    x = rnd(rng, (2, 8, 5, 4))
    w_oihw = rnd(rng, (6, 2, 2, 3))
    w = w_oihw.transpose(2, 3, 1, 0)  # HWCN
    y = conv2d(x.transpose(NCHW_OF), w_oihw, None, (1, 1), [0, 2, 1, 0], (2, 1), 2)
    case("Conv2D", "nhwc-x-hwcn-filter-groups2-dilation-h2",
         [In(x, "NHWC"), In(w, "HWCN")], [Out(y.transpose(NHWC_OF).astype(f32), "NHWC")],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [0, 2, 1, 0]),
          ints("dilations", [1, 2, 1, 1]), ("groups", "int", 2)], **tol)

    # Depthwise: NCHW x, NHWC-format filter ([O, H, W, I]), groups = C, bias.
    x = rnd(rng, (1, 3, 6, 5))
    w_oihw = rnd(rng, (3, 1, 3, 2))
    b = rnd(rng, (3,))
    y = conv2d(x, w_oihw, b, (1, 2), [1, 1, 0, 1], (1, 1), 3)
    case("Conv2D", "nchw-x-nhwc-filter-depthwise",
         [In(x, "NCHW"), In(w_oihw.transpose(NHWC_OF), "NHWC"), In(b)],
         [Out(y.astype(f32), "NCHW")],
         [ints("strides", [1, 1, 1, 2]), ints("pads", [1, 1, 0, 1]), ("groups", "int", 3)],
         **tol)

    # ND descs: the layout comes from data_format (NCHW here; NHWC by default).
    x = rnd(rng, (1, 2, 5, 5))
    w = rnd(rng, (3, 2, 2, 2))
    y = conv2d(x, w, None, (1, 1), [0, 1, 1, 0], (1, 1), 1)
    case("Conv2D", "nd-data_format-nchw", [x, w], [y.astype(f32)],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [0, 1, 1, 0]),
          ("data_format", "string", "NCHW")], **tol)
    x = rnd(rng, (1, 5, 6, 2))
    y = conv2d(x.transpose(NCHW_OF), w, None, (2, 3), [0, 0, 0, 0], (1, 1), 1)
    case("Conv2D", "nd-data_format-default-nhwc", [x, w], [y.transpose(NHWC_OF).astype(f32)],
         [ints("strides", [1, 2, 3, 1]), ints("pads", [0, 0, 0, 0])], **tol)

    # auto_pad (onnxruntime's CANN provider's attribute): SAME_UPPER and VALID.
    x = rnd(rng, (1, 2, 7, 6))
    w = rnd(rng, (2, 2, 3, 2))
    ph, pw = same_pads(7, 3, 2), same_pads(6, 2, 2)
    y = conv2d(x, w, None, (2, 2), ph + pw, (1, 1), 1)
    case("Conv2D", "auto_pad-same_upper-stride2", [In(x, "NCHW"), In(w, "NCHW")],
         [Out(y.astype(f32), "NCHW")],
         [ints("strides", [1, 1, 2, 2]), ints("pads", [0, 0, 0, 0]),
          ("auto_pad", "string", "SAME_UPPER")], **tol)
    y = conv2d(x, w, None, (2, 2), [0] * 4, (1, 1), 1)
    case("Conv2D", "auto_pad-valid", [In(x, "NCHW"), In(w, "NCHW")],
         [Out(y.astype(f32), "NCHW")],
         [ints("strides", [1, 1, 2, 2]), ints("pads", [1, 1, 1, 1]),
          ("auto_pad", "string", "VALID")], **tol)

    # onnxruntime's "group" spelling; NCHW x with an NHWC output desc.
    x = rnd(rng, (1, 4, 5, 5))
    w = rnd(rng, (2, 2, 3, 3))
    y = conv2d(x, w, None, (1, 1), [1, 1, 1, 1], (1, 1), 2)
    case("Conv2D", "group-attr", [In(x, "NCHW"), In(w, "NCHW")], [Out(y.astype(f32), "NCHW")],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [1, 1, 1, 1]), ("group", "int", 2)],
         **tol)
    case("Conv2D", "nchw-x-nhwc-y", [In(x, "NCHW"), In(w, "NCHW")],
         [Out(y.transpose(NHWC_OF).astype(f32), "NHWC")],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [1, 1, 1, 1]), ("groups", "int", 2)],
         **tol)

    # NHWC x, HWCN filter, bias, an ND output (follows x: NHWC).
    x = rnd(rng, (2, 5, 4, 3))
    w_oihw = rnd(rng, (4, 3, 2, 2))
    b = rnd(rng, (4,))
    y = conv2d(x.transpose(NCHW_OF), w_oihw, b, (1, 2), [1, 0, 0, 1], (1, 1), 1)
    case("Conv2D", "nhwc-x-hwcn-filter-bias-nd-y",
         [In(x, "NHWC"), In(w_oihw.transpose(2, 3, 1, 0), "HWCN"), In(b)],
         [y.transpose(NHWC_OF).astype(f32)],
         [ints("strides", [1, 1, 2, 1]), ints("pads", [1, 0, 0, 1])], **tol)

    # 1x1 spatial, 1x1 kernel.
    x = rnd(rng, (3, 5, 1, 1))
    w = rnd(rng, (2, 5, 1, 1))
    y = conv2d(x, w, None, (1, 1), [0] * 4, (1, 1), 1)
    case("Conv2D", "1x1", [In(x, "NCHW"), In(w, "NCHW")], [Out(y.astype(f32), "NCHW")],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [0, 0, 0, 0])], **tol)

    x = rnd(rng, (1, 3, 6, 6), f16)
    w = rnd(rng, (4, 3, 3, 3), f16, -0.5, 0.5)
    b = rnd(rng, (4,), f16)
    y = conv2d(x, w, b, (1, 1), [1, 1, 1, 1], (1, 1), 1)
    case("Conv2D", "fp16", [In(x, "NCHW"), In(w, "NCHW"), In(b)], [Out(y.astype(f16), "NCHW")],
         [ints("strides", [1, 1, 1, 1]), ints("pads", [1, 1, 1, 1])], rtol=2e-3, atol=5e-3)


_conv_cases()


# ---- pooling -------------------------------------------------------------------------------

def pool2d(x, mode, k, s, pads, ceil=False, exclusive=True):
    """NCHW pooling by definition; pads [top, bottom, left, right]. The window of an average
    that counts padding is clipped to the padded extent (ONNX's and PyTorch's)."""
    x = x.astype(np.float64)
    n, c, h, w = x.shape

    def out_size(size, kk, ss, pb, pe):
        span = size + pb + pe - kk
        o = (-(-span // ss) if ceil else span // ss) + 1
        if ceil and (o - 1) * ss >= size + pb:  # the last window starts in the padding
            o -= 1
        return o

    oh = out_size(h, k[0], s[0], pads[0], pads[1])
    ow = out_size(w, k[1], s[1], pads[2], pads[3])
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        h0 = i * s[0] - pads[0]
        hs, he = max(h0, 0), min(h0 + k[0], h)
        for j in range(ow):
            w0 = j * s[1] - pads[2]
            ws, we = max(w0, 0), min(w0 + k[1], w)
            win = x[:, :, hs:he, ws:we]
            if mode == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                if exclusive:
                    count = (he - hs) * (we - ws)
                else:
                    count = ((min(h0 + k[0], h + pads[1]) - h0) *
                             (min(w0 + k[1], w + pads[3]) - w0))
                y[:, :, i, j] = win.sum(axis=(2, 3)) / count
    return y


def _pool_cases():
    rng = np.random.default_rng(16)
    ints = lambda name, v: (name, "list_int", v)  # noqa: E731
    tol = dict(rtol=1e-5, atol=1e-6)
    for op, mode in (("MaxPoolV3", "max"), ("AvgPoolV2", "avg")):
        x = rnd(rng, (2, 3, 7, 7))
        case(op, "nchw-k3-s2", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (3, 3), (2, 2), [0] * 4).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2])], **tol)
        x = rnd(rng, (1, 2, 5, 6))
        case(op, "nchw-k2x3-asym-pads", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (2, 3), (1, 2), [1, 0, 0, 1]).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 2, 3]), ints("strides", [1, 1, 1, 2]),
              ("padding_mode", "string", "CALCULATED"), ints("pads", [1, 0, 0, 1])], **tol)
        x = rnd(rng, (1, 2, 6, 8))
        case(op, "ceil_mode", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (3, 3), (2, 2), [0] * 4, ceil=True).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2]),
              ("ceil_mode", "bool", True)], **tol)
        case(op, "ceil_mode-false", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (3, 3), (2, 2), [0] * 4).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2]),
              ("ceil_mode", "bool", False)], **tol)
        # NHWC: ksize and strides in x's layout.
        x = rnd(rng, (2, 7, 5, 3))
        y = pool2d(x.transpose(NCHW_OF), mode, (3, 2), (2, 1), [1, 1, 0, 1])
        case(op, "nhwc-asym-pads", [In(x, "NHWC")], [Out(y.transpose(NHWC_OF).astype(f32),
                                                        "NHWC")],
             [ints("ksize", [1, 3, 2, 1]), ints("strides", [1, 2, 1, 1]),
              ints("pads", [1, 1, 0, 1]), ("data_format", "string", "NHWC")], **tol)
        x2 = rnd(rng, (1, 6, 8, 2))
        y2 = pool2d(x2.transpose(NCHW_OF), mode, (3, 3), (2, 2), [1, 0, 0, 1], ceil=True)
        case(op, "nhwc-ceil_mode-pads", [In(x2, "NHWC")],
             [Out(y2.transpose(NHWC_OF).astype(f32), "NHWC")],
             [ints("ksize", [1, 3, 3, 1]), ints("strides", [1, 2, 2, 1]),
              ints("pads", [1, 0, 0, 1]), ("ceil_mode", "bool", True)], **tol)
        # ND descs: data_format decides.
        case(op, "nd-data_format-nhwc", [x], [y.transpose(NHWC_OF).astype(f32)],
             [ints("ksize", [1, 3, 2, 1]), ints("strides", [1, 2, 1, 1]),
              ints("pads", [1, 1, 0, 1]), ("data_format", "string", "NHWC")], **tol)
        x = rnd(rng, (1, 2, 5, 7))
        pads = same_pads(5, 3, 2) + same_pads(7, 3, 2)
        case(op, "same", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (3, 3), (2, 2), pads).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2]),
              ("padding_mode", "string", "SAME")], **tol)
        case(op, "valid", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (3, 2), (2, 2), [0] * 4).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 3, 2]), ints("strides", [1, 1, 2, 2]),
              ("padding_mode", "string", "VALID"), ints("pads", [1, 1, 1, 1])], **tol)
        x = rnd(rng, (2, 3, 5, 4))
        red = np.max if mode == "max" else np.mean
        case(op, "global", [In(x, "NCHW")],
             [Out(red(x.astype(np.float64), axis=(2, 3), keepdims=True).astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 1, 1]), ints("strides", [1, 1, 1, 1]),
              ("global_pooling", "bool", True)], **tol)
        x = rnd(rng, (1, 4, 4, 3))
        case(op, "global-nhwc", [In(x, "NHWC")],
             [Out(red(x.astype(np.float64), axis=(1, 2), keepdims=True).astype(f32), "NHWC")],
             [ints("ksize", [1, 1, 1, 1]), ints("strides", [1, 1, 1, 1]),
              ("global_pooling", "bool", True)], **tol)
        x = rnd(rng, (1, 3, 6, 5), f16)
        case(op, "fp16", [In(x, "NCHW")],
             [Out(pool2d(x, mode, (2, 2), (2, 2), [0, 1, 0, 1]).astype(f16), "NCHW")],
             [ints("ksize", [1, 1, 2, 2]), ints("strides", [1, 1, 2, 2]),
              ints("pads", [0, 1, 0, 1])], rtol=1e-3, atol=1e-3)
        x = rnd(rng, (1, 1, 1, 1))
        case(op, "1x1", [In(x, "NCHW")], [Out(x, "NCHW")],
             [ints("ksize", [1, 1, 1, 1]), ints("strides", [1, 1, 1, 1])], **tol)
    # AvgPoolV2's exclusive: padding not counted (true, the default) or counted.
    x = rnd(rng, (1, 2, 5, 5))
    for tag, attrs, excl in (("exclusive-default", [], True),
                             ("exclusive-true", [("exclusive", "bool", True)], True),
                             ("exclusive-false", [("exclusive", "bool", False)], False)):
        y = pool2d(x, "avg", (3, 3), (2, 2), [1, 1, 1, 1], exclusive=excl)
        case("AvgPoolV2", tag + "-pads", [In(x, "NCHW")], [Out(y.astype(f32), "NCHW")],
             [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2]),
              ints("pads", [1, 1, 1, 1])] + attrs, **tol)
    x = rnd(rng, (1, 2, 6, 4))
    y = pool2d(x, "avg", (2, 3), (1, 1), [1, 0, 2, 1], exclusive=False)
    case("AvgPoolV2", "exclusive-false-asym-pads", [In(x, "NCHW")], [Out(y.astype(f32), "NCHW")],
         [ints("ksize", [1, 1, 2, 3]), ints("strides", [1, 1, 1, 1]),
          ints("pads", [1, 0, 2, 1]), ("exclusive", "bool", False)], **tol)
    x = rnd(rng, (1, 2, 6, 7))
    y = pool2d(x, "avg", (3, 3), (2, 2), [0, 0, 0, 0], ceil=True, exclusive=True)
    case("AvgPoolV2", "ceil_mode-exclusive", [In(x, "NCHW")], [Out(y.astype(f32), "NCHW")],
         [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2]),
          ("ceil_mode", "bool", True), ("exclusive", "bool", True)], **tol)
    x = rnd(rng, (1, 2, 5, 7))
    pads = same_pads(5, 3, 2) + same_pads(7, 3, 2)
    y = pool2d(x, "avg", (3, 3), (2, 2), pads, exclusive=False)
    case("AvgPoolV2", "same-exclusive-false", [In(x, "NCHW")], [Out(y.astype(f32), "NCHW")],
         [ints("ksize", [1, 1, 3, 3]), ints("strides", [1, 1, 2, 2]),
          ("padding_mode", "string", "SAME"), ("exclusive", "bool", False)], **tol)


_pool_cases()


# ---- BatchNorm -----------------------------------------------------------------------------

def _batchnorm_cases():
    rng = np.random.default_rng(17)

    def params(c, dtype=f32):
        return (rnd(rng, (c,), dtype, 0.5, 2), rnd(rng, (c,), dtype), rnd(rng, (c,), dtype),
                rnd(rng, (c,), dtype, 0.1, 2))

    def bn(x, scale, offset, mean, var, eps, axis):
        shape = [1] * x.ndim
        shape[axis] = -1
        r = lambda a: a.astype(np.float64).reshape(shape)  # noqa: E731
        return (x.astype(np.float64) - r(mean)) / np.sqrt(r(var) + eps) * r(scale) + r(offset)

    off = ("is_training", "bool", False)
    x = rnd(rng, (2, 3, 4, 5))
    p = params(3)
    case("BatchNorm", "nchw-5-outputs-eps1e-3",
         [In(x, "NCHW")] + [In(a, "ND") for a in p],
         [Out(bn(x, *p, 1e-3, 1).astype(f32), "NCHW"), p[2], p[3], p[2], p[3]],
         [("epsilon", "float", 1e-3), ("data_format", "string", "NCHW"), off])
    x = rnd(rng, (2, 3, 1, 5))
    p = params(5)
    case("BatchNorm", "nhwc-6-outputs-default-eps",
         [In(x, "NHWC")] + [In(a, "ND") for a in p],
         [Out(bn(x, *p, 1e-4, 3).astype(f32), "NHWC"), p[2], p[3], p[2], p[3],
          np.zeros((1,), f32)],
         [off])
    x = rnd(rng, (1, 4, 3, 3))
    p = params(4)
    case("BatchNorm", "nd-data_format-nchw", [x] + list(p),
         [bn(x, *p, 1e-5, 1).astype(f32), p[2], p[3], p[2], p[3]],
         [("epsilon", "float", 1e-5), ("data_format", "string", "NCHW"), off])
    x = rnd(rng, (3, 2, 2, 4))
    p = params(4)
    case("BatchNorm", "nd-default-nhwc", [x] + list(p),
         [bn(x, *p, 1e-4, 3).astype(f32), p[2], p[3], p[2], p[3]], [off])
    x = rnd(rng, (1, 3, 3, 5), f16)
    p = params(3, f16)
    case("BatchNorm", "fp16-nchw", [In(x, "NCHW")] + list(p),
         [Out(bn(x, *p, 1e-3, 1).astype(f16), "NCHW"), p[2], p[3], p[2], p[3]],
         [("epsilon", "float", 1e-3), off], rtol=2e-3, atol=2e-3)


_batchnorm_cases()


# ---- matrix products -----------------------------------------------------------------------

def _matmul_cases():
    rng = np.random.default_rng(18)
    tol = dict(rtol=1e-5, atol=1e-5)
    mm = lambda a, b: np.matmul(a.astype(np.float64), b.astype(np.float64))  # noqa: E731
    T = lambda a: np.swapaxes(a, -1, -2).copy()  # noqa: E731
    for op in ("MatMul", "MatMulV2"):
        a, b, bias = rnd(rng, (3, 5)), rnd(rng, (5, 4)), rnd(rng, (4,))
        case(op, "plain", [a, b], [mm(a, b).astype(f32)], **tol)
        case(op, "transpose_x1", [T(a), b], [mm(a, b).astype(f32)],
             [("transpose_x1", "bool", True)], **tol)
        case(op, "transpose_x2-bias", [a, T(b), bias], [(mm(a, b) + bias).astype(f32)],
             [("transpose_x1", "bool", False), ("transpose_x2", "bool", True)], **tol)
        case(op, "both-transposed-bias", [T(a), T(b), bias], [(mm(a, b) + bias).astype(f32)],
             [("transpose_x1", "bool", True), ("transpose_x2", "bool", True)], **tol)
        a, b = rnd(rng, (1, 7)), rnd(rng, (7, 1))
        case(op, "size1", [a, b], [mm(a, b).astype(f32)], **tol)
        a, b = rnd(rng, (4, 9), f16), rnd(rng, (9, 3), f16)
        case(op, "fp16", [a, b], [mm(a, b).astype(f16)], rtol=2e-3, atol=2e-3)
    for op in ("BatchMatMul", "BatchMatMulV2"):
        a, b = rnd(rng, (2, 3, 4)), rnd(rng, (2, 4, 5))
        case(op, "batch2", [a, b], [mm(a, b).astype(f32)], **tol)
        a, b = rnd(rng, (2, 1, 3, 4)), rnd(rng, (5, 4, 6))
        case(op, "broadcast-batch", [a, b], [mm(a, b).astype(f32)], **tol)
        case(op, "adj_x1-adj_x2", [T(a), T(b)], [mm(a, b).astype(f32)],
             [("adj_x1", "bool", True), ("adj_x2", "bool", True)], **tol)
        case(op, "adj_x2-only", [a, T(b)], [mm(a, b).astype(f32)],
             [("adj_x1", "bool", False), ("adj_x2", "bool", True)], **tol)
        a, b = rnd(rng, (1, 2, 1, 3, 4)), rnd(rng, (2, 1, 2, 4, 2))
        case(op, "rank5-broadcast", [a, b], [mm(a, b).astype(f32)], **tol)
        a, b = rnd(rng, (2, 3, 4)), rnd(rng, (4, 5))
        case(op, "rank3-by-rank2", [a, b], [mm(a, b).astype(f32)], **tol)
        a, b = rnd(rng, (3, 2, 5), f16), rnd(rng, (3, 5, 2), f16)
        case(op, "fp16", [a, b], [mm(a, b).astype(f16)], rtol=2e-3, atol=2e-3)
    a, b = rnd(rng, (2, 3, 4)), rnd(rng, (2, 4, 5))
    case("BatchMatMul", "old-adj_x-adj_y", [T(a), b], [mm(a, b).astype(f32)],
         [("adj_x", "bool", True), ("adj_y", "bool", False)], **tol)
    bias = rnd(rng, (5,))
    case("BatchMatMulV2", "bias", [a, b, bias], [(mm(a, b) + bias).astype(f32)], **tol)
    case("BatchMatMulV2", "adj_x1-bias", [T(a), b, bias], [(mm(a, b) + bias).astype(f32)],
         [("adj_x1", "bool", True)], **tol)

    # GEMM: y = alpha * op(a) @ op(b) + beta * c; alpha and beta tensors of c's type.
    def gemm(a, b, c, alpha, beta):
        return alpha.astype(np.float64).reshape(()) * mm(a, b) + \
            beta.astype(np.float64).reshape(()) * c.astype(np.float64)

    a, b, c = rnd(rng, (3, 4)), rnd(rng, (4, 5)), rnd(rng, (3, 5))
    al, be = np.array(1.5, f32), np.array(-0.5, f32)
    case("GEMM", "fp32", [a, b, c, al, be], [gemm(a, b, c, al, be).astype(f32)],
         [("transpose_a", "bool", False), ("transpose_b", "bool", False)], **tol)
    al1, be1 = np.array([0.75], f32), np.array([2.0], f32)
    case("GEMM", "fp32-transposed-alpha[1]", [T(a), T(b), c, al1, be1],
         [gemm(a, b, c, al1, be1).astype(f32)],
         [("transpose_a", "bool", True), ("transpose_b", "bool", True)], **tol)
    a, b, c = rnd(rng, (16, 16), f16), rnd(rng, (16, 16), f16), rnd(rng, (16, 16), f16)
    al, be = np.array(1.0, f16), np.array(0.5, f16)
    case("GEMM", "fp16-sample", [a, b, c, al, be], [gemm(a, b, c, al, be).astype(f16)],
         [("transpose_a", "bool", False), ("transpose_b", "bool", False)], rtol=2e-3, atol=4e-3)
    a, b, c = rnd(rng, (5, 3), f16), rnd(rng, (3, 7), f16), rnd(rng, (5, 7), f16)
    al, be = np.array([-1.25], f16), np.array([1.0], f16)
    case("GEMM", "fp16-transpose_b", [a, T(b), c, al, be], [gemm(a, b, c, al, be).astype(f16)],
         [("transpose_a", "bool", False), ("transpose_b", "bool", True)], rtol=2e-3, atol=2e-3)
    a, b = rint(rng, (4, 6), i8, -128, 128), rint(rng, (6, 3), i8, -128, 128)
    c = rint(rng, (4, 3), i32, -1000, 1000)
    al, be = np.array(3, i32), np.array(-2, i32)
    want = 3 * (a.astype(np.int64) @ b.astype(np.int64)) - 2 * c
    case("GEMM", "int8-int32", [a, b, c, al, be], [want.astype(i32)],
         [("transpose_a", "bool", False), ("transpose_b", "bool", False)])
    al, be = np.array([1], i32), np.array([1], i32)
    want = a.astype(np.int64) @ b.astype(np.int64) + c
    case("GEMM", "int8-transpose_a-alpha[1]", [T(a), b, c, al, be], [want.astype(i32)],
         [("transpose_a", "bool", True), ("transpose_b", "bool", False)])


_matmul_cases()


# ---- slicing, shapes, joining --------------------------------------------------------------

def _tensor_cases():
    rng = np.random.default_rng(19)
    const = lambda v, t=i32: In(np.array(v, t), const=True)  # noqa: E731
    runtime = lambda v, t=i64: In(np.array(v, t))  # noqa: E731

    x = rnd(rng, (4, 5, 6))
    case("Slice", "const-int32-size-1", [x, const([1, 0, 2]), const([2, -1, 3])],
         [x[1:3, 0:, 2:5]])
    case("Slice", "runtime-int64", [x, runtime([0, 2, 1]), runtime([4, 3, 5])],
         [x[0:4, 2:5, 1:6]])
    case("Slice", "runtime-int32-size-1", [x, runtime([3, 1, 0], i32), runtime([-1, 2, -1], i32)],
         [x[3:, 1:3, 0:]])
    x5 = rnd(rng, (2, 1, 3, 2, 4))
    case("Slice", "rank5-const", [x5, const([1, 0, 1, 0, 1], i64), const([1, 1, 2, -1, 2], i64)],
         [x5[1:2, 0:1, 1:3, 0:, 1:3]])
    xh = rnd(rng, (6, 30), f16)
    case("Slice", "fp16-sample", [xh, runtime([2, 5], i32), runtime([3, 20], i32)],
         [xh[2:5, 5:25]])
    case("SliceD", "size-1", [x], [x[1:, 2:4, 5:]],
         [("offsets", "list_int", [1, 2, 5]), ("size", "list_int", [-1, 2, -1])])
    case("SliceD", "rank5", [x5], [x5[0:2, 0:1, 2:3, 1:2, 0:4]],
         [("offsets", "list_int", [0, 0, 2, 1, 0]), ("size", "list_int", [2, 1, 1, 1, 4])])
    v = rnd(rng, (9,))
    case("SliceD", "rank1", [v], [v[4:7]],
         [("offsets", "list_int", [4]), ("size", "list_int", [3])])

    # StridedSlice: bounds as const inputs (strides optional); masks bit i = axis i.
    x = rnd(rng, (5, 6, 7))
    case("StridedSlice", "strides-2", [x, const([0, 1, 6]), const([5, 6, 0]), const([2, 2, -2])],
         [x[0:5:2, 1:6:2, 6:0:-2]])
    case("StridedSlice", "no-strides-input", [x, const([1, 0, 2], i64), const([4, 3, 7], i64)],
         [x[1:4, 0:3, 2:7]])
    case("StridedSlice", "masks", [x, const([3, 4, 1]), const([1, 5, 6]), const([1, -1, 1])],
         [x[0:1, 4::-1, 1]],
         [("begin_mask", "int", 1), ("end_mask", "int", 2), ("shrink_axis_mask", "int", 4)])
    case("StridedSliceD", "negative-strides", [x], [x[4:0:-1, ::-3, -1:-6:-2]],
         [("begin", "list_int", [4, 0, -1]), ("end", "list_int", [0, 0, -6]),
          ("strides", "list_int", [-1, -3, -2]), ("begin_mask", "int", 2),
          ("end_mask", "int", 2)])
    case("StridedSliceD", "begin-end-masks", [x], [x[:3, 2:, 1:6:2]],
         [("begin", "list_int", [1, 2, 1]), ("end", "list_int", [3, 0, 6]),
          ("strides", "list_int", [1, 1, 2]), ("begin_mask", "int", 1), ("end_mask", "int", 2)])
    case("StridedSliceD", "shrink-negative-begin", [x], [x[-1, 1:5, -2]],
         [("begin", "list_int", [-1, 1, -2]), ("end", "list_int", [0, 5, 0]),
          ("strides", "list_int", [1, 1, 1]), ("shrink_axis_mask", "int", 5)])
    case("StridedSliceD", "shrink-minus-one", [x], [x[2, :, -1]],
         [("begin", "list_int", [2, 0, -1]), ("end", "list_int", [3, 0, 0]),
          ("begin_mask", "int", 2), ("end_mask", "int", 2), ("shrink_axis_mask", "int", 5)])
    case("StridedSliceD", "fewer-than-rank-no-strides", [x], [x[1:4]],
         [("begin", "list_int", [1]), ("end", "list_int", [4])])
    case("StridedSliceD", "all-masked-reverse", [x], [x[::-1, ::-1, ::-1]],
         [("begin", "list_int", [0, 0, 0]), ("end", "list_int", [0, 0, 0]),
          ("strides", "list_int", [-1, -1, -1]), ("begin_mask", "int", 7),
          ("end_mask", "int", 7)])
    case("StridedSliceD", "to-rank0", [v], [np.array(v[3])],
         [("begin", "list_int", [3]), ("end", "list_int", [4]),
          ("strides", "list_int", [1]), ("shrink_axis_mask", "int", 1)])
    case("StridedSliceD", "rank5-out-of-range-clamped", [x5],
         [x5[0:2, 0:1, 1:100, -1:-3:-1, -100:3]],
         [("begin", "list_int", [0, 0, 1, -1, -100]), ("end", "list_int", [2, 1, 100, -3, 3]),
          ("strides", "list_int", [1, 1, 1, -1, 1])])

    x = rnd(rng, (2, 3, 4))
    case("Transpose", "const-int32-perm", [x, const([2, 0, 1])], [x.transpose(2, 0, 1)])
    case("Transpose", "const-int64-perm-rank5", [x5, const([4, 2, 0, 3, 1], i64)],
         [x5.transpose(4, 2, 0, 3, 1)])
    case("TransposeD", "rank3", [x], [x.transpose(1, 2, 0)], [("perm", "list_int", [1, 2, 0])])
    m8 = rint(rng, (3, 5), i8)
    case("TransposeD", "rank2-int8", [m8], [m8.T], [("perm", "list_int", [1, 0])])
    case("TransposeD", "rank5-size1", [x5], [x5.transpose(0, 3, 1, 4, 2)],
         [("perm", "list_int", [0, 3, 1, 4, 2])])
    case("TransposeD", "identity", [v], [v], [("perm", "list_int", [0])])

    s = rnd(rng, (3, 1))
    case("BroadcastTo", "const-int32", [s, const([2, 3, 4])], [np.broadcast_to(s, (2, 3, 4))])
    case("BroadcastTo", "runtime-int64", [s, runtime([5, 3, 2])], [np.broadcast_to(s, (5, 3, 2))])
    case("BroadcastTo", "rank0", [np.array(1.25, f32), const([2, 1, 3])],
         [np.full((2, 1, 3), 1.25, f32)])
    r = rnd(rng, (1, 3))
    case("BroadcastToD", "1x3-to-4x2x3", [r], [np.broadcast_to(r, (4, 2, 3))],
         [("shape", "list_int", [4, 2, 3])])
    b = rint(rng, (5,), i32)
    case("BroadcastToD", "int32-rank5", [b], [np.broadcast_to(b, (2, 1, 1, 2, 5))],
         [("shape", "list_int", [2, 1, 1, 2, 5])])

    case("Fill", "const-int32-dims-scalar-value", [const([2, 3, 1]), np.array(-0.5, f32)],
         [np.full((2, 3, 1), -0.5, f32)])
    case("Fill", "runtime-int64-dims-int32-value[1]", [runtime([4, 1, 2, 1, 3]),
                                                      np.array([7], i32)],
         [np.full((4, 1, 2, 1, 3), 7, i32)])
    case("Fill", "fp16-rank1", [const([5], i64), np.array(3.5, f16)], [np.full(5, 3.5, f16)])

    x = rnd(rng, (2, 3, 4, 5))
    case("Flatten", "default-axis", [x], [x.reshape(2, 60)])
    case("Flatten", "axis0", [x], [x.reshape(1, 120)], [("axis", "int", 0)])
    case("Flatten", "axis-1", [x], [x.reshape(24, 5)], [("axis", "int", -1)])
    n4 = rint(rng, (3, 1, 2, 2), i32)
    case("Flatten", "axis3-int32", [n4], [n4.reshape(6, 2)], [("axis", "int", 3)])

    case("Reshape", "const-int32-minus1", [x, const([4, -1, 3])], [x.reshape(4, 10, 3)])
    case("Reshape", "runtime-int64", [x, runtime([1, 5, 1, 24])], [x.reshape(1, 5, 1, 24)])
    case("Reshape", "to-rank1-attrs", [x, const([-1], i64)], [x.reshape(-1)],
         [("axis", "int", 0), ("num_axes", "int", -1)])
    case("Reshape", "rank0-to-rank5", [np.array(2.0, f32), const([1, 1, 1, 1, 1])],
         [np.full((1, 1, 1, 1, 1), 2.0, f32)])

    y = rnd(rng, (1, 3, 1, 2, 1))
    case("Squeeze", "all-size1", [y], [y.reshape(3, 2)])
    case("Squeeze", "axis0,-1", [y], [y.reshape(3, 1, 2)], [("axis", "list_int", [0, -1])])
    case("Squeeze", "axis-empty", [y], [y.reshape(3, 2)], [("axis", "list_int", [])])
    case("Squeeze", "to-rank0", [np.array([[4.5]], f32)], [np.array(4.5, f32)],
         [("axis", "list_int", [0, 1])])
    z = rnd(rng, (3, 2))
    case("Unsqueeze", "axes0", [z], [z[None]], [("axes", "list_int", [0])])
    case("Unsqueeze", "axes-1", [z], [z[..., None]], [("axes", "list_int", [-1])])
    case("Unsqueeze", "axes1,3", [z], [z.reshape(3, 1, 2, 1)], [("axes", "list_int", [1, 3])])
    case("Unsqueeze", "rank0", [np.array(1.5, f32)], [np.array([1.5], f32)],
         [("axes", "list_int", [0])])
    case("ExpandDims", "const-int32-axis0", [z, const(0)], [z[None]])
    case("ExpandDims", "const-int64-axis-1", [z, const(-1, i64)], [z[..., None]])
    case("ExpandDims", "const-axis1-[1]", [z, const([1])], [z[:, None]])
    case("ExpandDims", "rank0", [np.array(True), const(0)], [np.array([True])])
    case("ExpandDims", "runtime-int32-axis", [z, runtime(1, i32)], [z[:, None]])
    case("ExpandDims", "runtime-int64-axis-3", [z, runtime(-3)], [z[None]])

    a, b, c = rnd(rng, (2, 3, 4)), rnd(rng, (2, 1, 4)), rnd(rng, (2, 5, 4))
    for op in ("ConcatD", "ConcatV2D"):
        case(op, "axis1-three", [a, b, c], [np.concatenate([a, b, c], 1)],
             [("concat_dim", "int", 1), ("N", "int", 3)])
        d = rnd(rng, (2, 3, 1))
        case(op, "axis-1", [a, d], [np.concatenate([a, d], -1)], [("concat_dim", "int", -1)])
        k1, k2 = rint(rng, (3,), i32), rint(rng, (1,), i32)
        case(op, "rank1-int32", [k1, k2], [np.concatenate([k1, k2])],
             [("concat_dim", "int", 0), ("N", "int", 2)])
        case(op, "one-input", [a], [a], [("concat_dim", "int", 0)])
        h1, h2 = rnd(rng, (1, 2), f16), rnd(rng, (3, 2), f16)
        case(op, "fp16-axis-2", [h1, h2], [np.concatenate([h1, h2], 0)],
             [("concat_dim", "int", -2)])

    x = rnd(rng, (5, 4, 3))
    idx = np.array([4, 0, 2, 2], i32)
    case("GatherV2", "axis0-int32", [x, idx, const(0)], [x[idx]])
    idx2 = np.array([[2, 0, 1], [1, 1, 0]], i64)
    case("GatherV2", "axis-1-int64-2d-indices", [x, idx2, const(-1, i64)],
         [np.take(x, idx2, axis=-1)])
    case("GatherV2", "axis1-scalar-index", [x, np.array(3, i32), const([1])], [x[:, 3]])
    case("GatherV2D", "axis0", [x, idx], [x[idx]], [("axis", "int", 0)])
    case("GatherV2D", "axis-2", [x, idx2], [np.take(x, idx2, axis=-2)], [("axis", "int", -2)])
    xi = rint(rng, (3, 6), i32)
    case("GatherV2D", "int32-axis1", [xi, np.array([5, 0], i32)], [xi[:, [5, 0]]],
         [("axis", "int", 1)])

    x = rnd(rng, (2, 1, 3))
    case("Tile", "const-int32", [x, const([2, 3, 1])], [np.tile(x, (2, 3, 1))])
    case("Tile", "runtime-int64", [x, runtime([1, 4, 2])], [np.tile(x, (1, 4, 2))])
    v32 = rint(rng, (5,), i32)
    case("Tile", "rank1-int32-data", [v32, const([3], i64)], [np.tile(v32, 3)])
    case("TileD", "rank3", [x], [np.tile(x, (3, 1, 2))], [("multiples", "list_int", [3, 1, 2])])
    case("TileD", "rank5-ones", [x5], [np.tile(x5, (1, 2, 1, 1, 1))],
         [("multiples", "list_int", [1, 2, 1, 1, 1])])

    case("Identity", "rank0", [np.array(3.25, f32)], [np.array(3.25, f32)])
    q = rint(rng, (2, 1, 3, 1, 2), i8)
    case("Identity", "rank5-int8", [q], [q])
    case("Identity", "bool", [np.array([True, False, True])], [np.array([True, False, True])])
    case("Identity", "fp16-nchw", [In(xh.reshape(1, 2, 3, 30), "NCHW")],
         [Out(xh.reshape(1, 2, 3, 30), "NCHW")])


_tensor_cases()


# ---- compiling and running -----------------------------------------------------------------

def kiln_bin():
    path = os.environ.get("KILN_BIN") or os.path.join(ROOT, "build", "release", "tools", "kiln",
                                                      "kiln")
    if not os.path.exists(path):
        pytest.skip("no kiln CLI (set KILN_BIN)")
    return path


def atc_singleop(out_dir, entries):
    """`kiln atc --singleop` of `entries`: (returncode, {entry index: (aclError, message)}, log)
    with the .om files in out_dir/models/<name>.om."""
    os.makedirs(out_dir, exist_ok=True)
    op_list = os.path.join(out_dir, "op_list.json")
    with open(op_list, "w") as f:
        json.dump(entries, f, indent=1)
    proc = subprocess.run([kiln_bin(), "atc", f"--singleop={op_list}",
                           f"--output={os.path.join(out_dir, 'models')}",
                           "--soc_version=Ascend310P3"], capture_output=True, text=True,
                          timeout=120)
    failures = {}
    for m in re.finditer(r"\[aclError (\d+)\] entry (\d+): (.*)", proc.stderr):
        failures[int(m.group(2))] = (int(m.group(1)), m.group(3))
    return proc.returncode, failures, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """All of CASES compiled in one `kiln atc --singleop` call: (models dir, failures)."""
    out = str(tmp_path_factory.mktemp("op_table"))
    entries = [entry_of(c.op, c.inputs, c.outputs, c.attrs, name=f"case{i:03d}")
               for i, c in enumerate(CASES)]
    rc, failures, log = atc_singleop(out, entries)
    assert (rc == 0) == (not failures), log
    return os.path.join(out, "models"), failures


class Device:
    """AscendCL initialised, a context and a stream; each run frees what it allocates."""

    def __init__(self):
        assert acl.init() == 0
        assert acl.rt.set_device(0) == 0
        self.context, ret = acl.rt.create_context(0)
        assert ret == 0
        self.stream, ret = acl.rt.create_stream()
        assert ret == 0

    def close(self):
        assert acl.rt.destroy_stream(self.stream) == 0
        assert acl.rt.destroy_context(self.context) == 0
        assert acl.rt.reset_device(0) == 0
        assert acl.finalize() == 0


@pytest.fixture(scope="module")
def device():
    d = Device()
    yield d
    d.close()


ATTR_SETTERS = {"bool": "set_attr_bool", "int": "set_attr_int", "float": "set_attr_float",
                "string": "set_attr_string", "list_int": "set_attr_list_int",
                "list_bool": "set_attr_list_bool", "list_float": "set_attr_list_float",
                "data_type": "set_attr_data_type"}
DT_NAMES = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4,
            "DT_INT64": 9, "DT_BOOL": 12}


def make_attr(attrs):
    """An aclopAttr holding exactly the entry's attributes (CANN matches them exactly)."""
    handle = acl.op.create_attr()
    assert handle != 0
    for name, kind, value in attrs:
        if kind == "data_type" and isinstance(value, str):
            value = DT_NAMES[value]
        if kind == "bool":
            value = int(value)
        ret = getattr(acl.op, ATTR_SETTERS[kind])(handle, name, value)
        if isinstance(ret, tuple):
            ret = ret[1]
        assert ret == 0, (name, kind, value)
    return handle


def run_case(device, c, om_path):
    """Registers the case's model and runs it; the outputs as numpy arrays."""
    data = open(om_path, "rb").read()
    assert acl.op.load(acl.util.bytes_to_ptr(data), len(data)) == 0, om_path
    attr = make_attr(c.attrs)
    memory, descs, buffers, keep = [], [], [], []

    def tensor(array, dtype, shape, fmt, const=False):
        desc = acl.create_tensor_desc(dtype, list(shape), FORMATS[fmt])
        assert desc != 0
        descs.append(desc)
        nbytes = 0
        if array is not None:
            array = np.ascontiguousarray(array)
            keep.append(array)
            nbytes = array.nbytes
            if const:
                assert acl.set_tensor_const(desc, array.ctypes.data, nbytes) == 0
        else:
            nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype_np[dtype]).itemsize
        dev, ret = acl.rt.malloc(max(nbytes, 1), 0)
        assert ret == 0
        memory.append(dev)
        if array is not None and nbytes:
            assert acl.rt.memcpy(dev, nbytes, array.ctypes.data, nbytes, H2D) == 0
        buf = acl.create_data_buffer(dev, nbytes)
        assert buf != 0
        buffers.append(buf)
        return desc, buf, dev, nbytes

    dtype_np = {v: k for k, v in ACL_DT.items()}
    try:
        ins = [tensor(i.array, ACL_DT[i.array.dtype.type], i.array.shape, i.fmt, i.const)
               for i in c.inputs]
        outs = [tensor(None, ACL_DT[o.expected.dtype.type], o.expected.shape, o.fmt)
                for o in c.outputs]
        ret = acl.op.execute_v2(c.op, [t[0] for t in ins], [t[1] for t in ins],
                                [t[0] for t in outs], [t[1] for t in outs], attr, device.stream)
        assert ret == 0, (ret, acl.get_recent_err_msg())
        ret = acl.rt.synchronize_stream(device.stream)
        assert ret == 0, (ret, acl.get_recent_err_msg())
        got = []
        for (desc, _, dev, nbytes), o in zip(outs, c.outputs):
            y = np.empty(o.expected.shape, o.expected.dtype)
            if nbytes:
                assert acl.rt.memcpy(y.ctypes.data, nbytes, dev, nbytes, D2H) == 0
            got.append(y)
        return got
    finally:
        for b in buffers:
            acl.destroy_data_buffer(b)
        for d in descs:
            acl.destroy_tensor_desc(d)
        for p in memory:
            acl.rt.free(p)
        acl.op.destroy_attr(attr)


def check(c, got):
    for i, (y, o) in enumerate(zip(got, c.outputs)):
        want = o.expected
        assert y.dtype == want.dtype and y.shape == want.shape
        where = f"{c.id} output {i}"
        if want.dtype.kind == "f":
            half = want.dtype == np.float16
            rtol = c.rtol if c.rtol is not None else (1e-3 if half else 1e-5)
            atol = c.atol if c.atol is not None else (1e-3 if half else 1e-6)
            np.testing.assert_allclose(y.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                       atol=atol, err_msg=where)
        else:
            np.testing.assert_array_equal(y, want, err_msg=where)


@pytest.mark.parametrize("index", [pytest.param(i, id=c.id) for i, c in enumerate(CASES)])
def test_op(compiled, device, index):
    c = CASES[index]
    models, failures = compiled
    assert index not in failures, f"kiln atc refused {c.id}: [aclError {failures[index][0]}] " \
                                  f"{failures[index][1]}"
    check(c, run_case(device, c, os.path.join(models, f"case{index:03d}.om")))


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_every_table_type_has_a_case():
    types = table_types()
    assert len(types) >= 80, sorted(types)  # the parse found the table
    covered = {c.op for c in CASES}
    assert sorted(set(types) - covered) == [], "table types without a numeric case"
    assert sorted(covered - set(types)) == [], "cases of types the table does not have"


# ---- refusals at compile time --------------------------------------------------------------

def _valid_entries():
    """{type: a case of it with every attribute it requires}: the first case that sets them."""
    out = {}
    for c in CASES:
        names = {n for n, _, _ in c.attrs}
        if c.op in REQUIRED and c.op not in out and set(REQUIRED[c.op]) <= names:
            out[c.op] = c
    return out


# The required attributes (no default in CANN's prototypes) of the table's types.
REQUIRED = {
    "Cast": ["dst_type"], "ArgMaxD": ["dimension"],
    "ReduceSumD": ["axes"], "ReduceMeanD": ["axes"], "ReduceMaxD": ["axes"],
    "ReduceMinD": ["axes"], "ReduceProdD": ["axes"],
    "Conv2D": ["strides", "pads"], "MaxPoolV3": ["ksize", "strides"],
    "AvgPoolV2": ["ksize", "strides"], "SliceD": ["offsets", "size"],
    "StridedSliceD": ["begin", "end"], "TransposeD": ["perm"], "BroadcastToD": ["shape"],
    "Unsqueeze": ["axes"], "ConcatD": ["concat_dim"], "ConcatV2D": ["concat_dim"],
    "GatherV2D": ["axis"], "TileD": ["multiples"],
}
MISSING = [(op, name) for op, names in REQUIRED.items() for name in names]


def _refusals():
    """(id, entry, expected aclError, text the message holds) of entries the table refuses."""
    valid = _valid_entries()
    out = []
    for op, name in MISSING:
        c = valid[op]
        attrs = [a for a in c.attrs if a[0] != name]
        out.append((f"{op}-without-{name}", entry_of(op, c.inputs, c.outputs, attrs),
                    OP_ATTR_NOT_MATCH, f"'{name}'"))
    rng = np.random.default_rng(20)
    x = rnd(rng, (1, 2, 3, 3))
    p = [rnd(rng, (2,)) for _ in range(4)]
    bn_outs = [Out(x, "NCHW")] + [Out(a) for a in (p[2], p[3], p[2], p[3])]
    bn_ins = [In(x, "NCHW")] + [In(a) for a in p]
    out.append(("BatchNorm-is_training-default",
                entry_of("BatchNorm", bn_ins, bn_outs, [("epsilon", "float", 1e-3)]),
                INVALID_PARAM, "is_training"))
    out.append(("BatchNorm-is_training-true",
                entry_of("BatchNorm", bn_ins, bn_outs, [("is_training", "bool", True)]),
                INVALID_PARAM, "is_training"))
    out.append(("BatchNorm-is_training-int",
                entry_of("BatchNorm", bn_ins, bn_outs, [("is_training", "int", 0)]),
                OP_ATTR_NOT_MATCH, "is_training"))
    x = rnd(rng, (4, 5))
    for mask in ("ellipsis_mask", "new_axis_mask"):
        out.append((f"StridedSliceD-{mask}",
                    entry_of("StridedSliceD", [In(x)], [Out(x)],
                             [("begin", "list_int", [0, 0]), ("end", "list_int", [4, 5]),
                              (mask, "int", 1)]), INVALID_PARAM, mask))
        b = In(np.array([0, 0], i32), const=True)
        e = In(np.array([4, 5], i32), const=True)
        out.append((f"StridedSlice-{mask}",
                    entry_of("StridedSlice", [In(x), b, e], [Out(x)], [(mask, "int", 2)]),
                    INVALID_PARAM, mask))
    out.append(("StridedSliceD-zero-stride",
                entry_of("StridedSliceD", [In(x)], [Out(x)],
                         [("begin", "list_int", [0, 0]), ("end", "list_int", [4, 5]),
                          ("strides", "list_int", [1, 0])]), INVALID_PARAM, "strides[1]"))
    out.append(("StridedSlice-runtime-begin",
                entry_of("StridedSlice", [In(x), In(np.array([0, 0], i32)),
                                          In(np.array([4, 5], i32), const=True)], [Out(x)], []),
                INVALID_PARAM, "constant"))
    xc, w = rnd(rng, (1, 2, 4, 4)), rnd(rng, (2, 2, 1, 1))
    out.append(("Conv2D-offset_w",
                entry_of("Conv2D", [In(xc, "NCHW"), In(w, "NCHW"), In(rnd(rng, (2,))),
                                    In(np.zeros(2, i8))], [Out(xc, "NCHW")],
                         [("strides", "list_int", [1, 1, 1, 1]),
                          ("pads", "list_int", [0, 0, 0, 0])]), INVALID_PARAM, "offset_w"))
    out.append(("Conv2D-strides-3-values",
                entry_of("Conv2D", [In(xc, "NCHW"), In(w, "NCHW")], [Out(xc, "NCHW")],
                         [("strides", "list_int", [1, 1, 1]),
                          ("pads", "list_int", [0, 0, 0, 0])]), INVALID_PARAM, "strides"))
    out.append(("Conv2D-strides-as-int",
                entry_of("Conv2D", [In(xc, "NCHW"), In(w, "NCHW")], [Out(xc, "NCHW")],
                         [("strides", "int", 1), ("pads", "list_int", [0, 0, 0, 0])]),
                OP_ATTR_NOT_MATCH, "strides"))
    out.append(("MaxPoolV3-padding_mode-unknown",
                entry_of("MaxPoolV3", [In(xc, "NCHW")], [Out(xc, "NCHW")],
                         [("ksize", "list_int", [1, 1, 1, 1]),
                          ("strides", "list_int", [1, 1, 1, 1]),
                          ("padding_mode", "string", "FULL")]), INVALID_PARAM, "padding_mode"))
    out.append(("AvgPoolV2-data_format-unknown",
                entry_of("AvgPoolV2", [In(xc)], [Out(xc)],
                         [("ksize", "list_int", [1, 1, 1, 1]),
                          ("strides", "list_int", [1, 1, 1, 1]),
                          ("data_format", "string", "NCDHW")]), INVALID_PARAM, "data_format"))
    out.append(("Reshape-axis-1",
                entry_of("Reshape", [In(x), In(np.array([20], i32), const=True)],
                         [Out(x.reshape(20))], [("axis", "int", 1)]), INVALID_PARAM, "axis"))
    out.append(("SoftmaxV2-empty-axes",
                entry_of("SoftmaxV2", [In(x)], [Out(x)], [("axes", "list_int", [])]),
                INVALID_PARAM, "axes"))
    out.append(("Exp-base-0", entry_of("Exp", [In(x)], [Out(x)], [("base", "float", 0.0)]),
                INVALID_PARAM, "base"))
    out.append(("Log-base-1", entry_of("Log", [In(x)], [Out(x)], [("base", "float", 1.0)]),
                INVALID_PARAM, "base"))
    out.append(("Cast-dst_type-not-the-output",
                entry_of("Cast", [In(x)], [Out(x.astype(f16))], [("dst_type", "int", 3)]),
                OP_ATTR_NOT_MATCH, "dst_type"))
    out.append(("ArgMaxV2-dtype-not-the-output",
                entry_of("ArgMaxV2", [In(x), In(np.array(1, i32), const=True)],
                         [Out(np.zeros(4, i32))], [("dtype", "data_type", 9)]),
                OP_ATTR_NOT_MATCH, "dtype"))
    out.append(("ArgMaxD-dtype-not-the-output",
                entry_of("ArgMaxD", [In(x)], [Out(np.zeros(4, i32))],
                         [("dimension", "int", 1), ("dtype", "data_type", 9)]),
                OP_ATTR_NOT_MATCH, "dtype"))
    out.append(("Transpose-runtime-perm",
                entry_of("Transpose", [In(x), In(np.array([1, 0], i32))], [Out(x.T)]),
                INVALID_PARAM, "constant"))
    out.append(("GatherV2-runtime-axis",
                entry_of("GatherV2", [In(x), In(np.array([0], i32)), In(np.array(0, i32))],
                         [Out(x[:1])]), INVALID_PARAM, "constant"))
    out.append(("ArgMaxV2-runtime-dimension",
                entry_of("ArgMaxV2", [In(x), In(np.array(1, i32))], [Out(np.zeros(4, i64))]),
                INVALID_PARAM, "constant"))
    out.append(("ArgMaxD-float-output",
                entry_of("ArgMaxD", [In(x)], [Out(np.zeros(4, f32))], [("dimension", "int", 1)]),
                INVALID_PARAM, "int32 or int64"))
    a8, b16 = In(np.zeros((2, 2), i8)), In(np.zeros((2, 2), f16))
    c16 = In(np.zeros((2, 2), f16))
    s16 = In(np.zeros((), f16))
    out.append(("GEMM-a-b-types-differ",
                entry_of("GEMM", [a8, b16, c16, s16, s16], [Out(np.zeros((2, 2), f16))]),
                INVALID_PARAM, "one type"))
    out.append(("MatMulV2-offset_w",
                entry_of("MatMulV2", [In(x), In(x.T.copy()), In(np.zeros(4, f32)),
                                      In(np.zeros(4, i8))], [Out(np.zeros((4, 4), f32))]),
                INVALID_PARAM, "offset_w"))
    return out


REFUSALS = _refusals()


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("op_table_refusals"))
    rc, failures, log = atc_singleop(out, [e for _, e, _, _ in REFUSALS])
    return rc, failures, log


def test_required_attributes_are_the_tables():
    """Every type whose table entry says "required" is in REQUIRED, so that a new operator with
    a required attribute gets its refusal case."""
    marked = sorted(t for t, text in table_types().items() if "required" in text)
    assert sorted(set(marked) - set(REQUIRED)) == []
    assert sorted(set(REQUIRED) - set(table_types())) == []
    assert sorted(set(REQUIRED) - set(_valid_entries())) == [], "no valid case to strip"


def test_refusals_fail_the_atc_run(refused):
    rc, failures, log = refused
    assert rc == 1, log
    assert "[aclError" in log
    assert sorted(failures) == list(range(len(REFUSALS))), log


@pytest.mark.parametrize("index", [pytest.param(i, id=r[0]) for i, r in enumerate(REFUSALS)])
def test_refused_at_compile_time(refused, index):
    _, failures, log = refused
    name, _, want_code, text = REFUSALS[index]
    assert index in failures, f"{name} compiled; kiln atc should refuse it"
    code, message = failures[index]
    assert (code, text in message) == (want_code, True), message

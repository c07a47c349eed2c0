# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""acl.op (single-operator execution, include/acl/acl_op.h) through the Python bindings, as a
pyACL program uses it: single-op models compiled by `kiln atc --singleop=op_list.json` (CANN's
JSON), registered with acl.op.load (the file's bytes) or acl.op.set_model_dir, then run with
execute / execute_v2 / handles / cast on device memory (acl.rt.malloc + acl.rt.memcpy). The
oracles are numpy and worked values; the matching rules (exact op type, descs and attributes, no
default-filling) and their codes are CANN's (docs/single-op-reference.md §2)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import acl

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# CANN's values (acl_base.h, acl_op.h, acl_op_compiler.h), written out so that a wrong generated
# constant fails.
SUCCESS = 0
INVALID_PARAM = 100000  # ACL_ERROR_INVALID_PARAM
REPEAT_INITIALIZE = 100002  # ACL_ERROR_REPEAT_INITIALIZE
READ_MODEL_FAILURE = 100014  # ACL_ERROR_READ_MODEL_FAILURE
OP_INPUT_NOT_MATCH = 100021  # ACL_ERROR_OP_INPUT_NOT_MATCH
OP_OUTPUT_NOT_MATCH = 100022  # ACL_ERROR_OP_OUTPUT_NOT_MATCH
OP_ATTR_NOT_MATCH = 100023  # ACL_ERROR_OP_ATTR_NOT_MATCH
OP_NOT_FOUND = 100024  # ACL_ERROR_OP_NOT_FOUND
API_NOT_SUPPORT = 200001  # ACL_ERROR_API_NOT_SUPPORT
FLOAT, FLOAT16, INT8, INT32, INT64 = 0, 1, 2, 3, 9  # aclDataType
DT_UNDEFINED = -1
NCHW, ND, FORMAT_UNDEFINED = 0, 2, -1  # aclFormat
H2D, D2H = 1, 2  # ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST

NP = {FLOAT: np.float32, FLOAT16: np.float16, INT8: np.int8, INT32: np.int32, INT64: np.int64}
JSON_TYPE = {FLOAT: "float", FLOAT16: "float16", INT8: "int8", INT32: "int32", INT64: "int64"}

OP_FUNCTIONS = [
    "set_model_dir", "load", "create_attr", "destroy_attr", "set_attr_bool", "set_attr_int",
    "set_attr_float", "set_attr_string", "set_attr_list_bool", "set_attr_list_int",
    "set_attr_list_float", "set_attr_list_string", "set_attr_list_list_int",
    "set_attr_data_type", "set_attr_list_data_type", "execute", "execute_v2", "create_handle",
    "destroy_handle", "execute_with_handle", "cast", "create_handle_for_cast", "infer_shape",
    "set_max_op_queue_num", "register_compile_func", "unregister_compile_func", "create_kernel",
    "set_kernel_args", "set_kernel_workspace_sizes", "update_params"]


# ---- op_list.json entries ------------------------------------------------------------------

def tdesc(dtype, shape, fmt="ND", shape_range=None):
    d = {"format": fmt, "shape": list(shape), "type": JSON_TYPE[dtype]}
    if shape_range is not None:
        d["shape_range"] = shape_range
    return d


def entry(op, inputs, outputs, attrs=()):
    e = {"op": op, "input_desc": inputs, "output_desc": outputs}
    if attrs:
        e["attr"] = [{"name": n, "type": t, "value": v} for n, t, v in attrs]
    return e


ADD_BCAST = entry("Add", [tdesc(FLOAT, [3, 1, 5]), tdesc(FLOAT, [4, 5])],
                  [tdesc(FLOAT, [3, 4, 5])])
ADD_2x3 = entry("Add", [tdesc(FLOAT, [2, 3]), tdesc(FLOAT, [2, 3])], [tdesc(FLOAT, [2, 3])])
ADD_DYNAMIC = entry("Add", [tdesc(FLOAT, [-1, 5], shape_range=[[1, 8]]),
                            tdesc(FLOAT, [-1, 5], shape_range=[[1, 8]])],
                    [tdesc(FLOAT, [-1, 5], shape_range=[[1, 8]])])
CAST_2x3 = entry("Cast", [tdesc(FLOAT, [2, 3])], [tdesc(FLOAT16, [2, 3])],
                 [("dst_type", "int", FLOAT16), ("truncate", "bool", False)])
ARGMAX_4x6 = entry("ArgMaxD", [tdesc(FLOAT, [4, 6])], [tdesc(INT32, [4])],
                   [("dimension", "int", 1)])
TRANSPOSE = entry("TransposeD", [tdesc(FLOAT, [2, 3, 4])], [tdesc(FLOAT, [4, 2, 3])],
                  [("perm", "list_int", [2, 0, 1])])
REDUCE_KEEP = entry("ReduceSumD", [tdesc(FLOAT, [2, 3, 4])], [tdesc(FLOAT, [2, 1, 4])],
                    [("axes", "list_int", [1]), ("keep_dims", "bool", True)])
REDUCE_DROP = entry("ReduceSumD", [tdesc(FLOAT, [2, 3, 4])], [tdesc(FLOAT, [3])],
                    [("axes", "list_int", [0, 2]), ("keep_dims", "bool", False)])
SOFTMAX = entry("SoftmaxV2", [tdesc(FLOAT, [8, 16])], [tdesc(FLOAT, [8, 16])],
                [("axes", "list_int", [-1])])
LOADED = [ADD_BCAST, ADD_2x3, ADD_DYNAMIC, CAST_2x3, ARGMAX_4x6, TRANSPOSE, REDUCE_KEEP,
          REDUCE_DROP, SOFTMAX]

# CANN's classification sample (vpc_resnet50_imagenet_classification/out/op_models/op_list.json),
# used through acl.op.set_model_dir.
SAMPLE_OPS = [
    entry("Cast", [tdesc(FLOAT, [1000])], [tdesc(FLOAT16, [1000])],
          [("truncate", "bool", False), ("dst_type", "int", 1)]),
    entry("ArgMaxD", [tdesc(FLOAT16, [1000])], [tdesc(INT32, [1])], [("dimension", "int", 0)]),
]


def kiln_bin():
    path = os.environ.get("KILN_BIN") or os.path.join(ROOT, "build", "release", "tools", "kiln",
                                                      "kiln")
    if not os.path.exists(path):
        pytest.skip("no kiln CLI (set KILN_BIN)")
    return path


def atc_singleop(out_dir, entries):
    """`kiln atc --singleop`: one .om per entry in out_dir; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    op_list = os.path.join(out_dir, "op_list.json")
    with open(op_list, "w") as f:
        json.dump(entries, f, indent=2)
    models = os.path.join(out_dir, "models")
    proc = subprocess.run([kiln_bin(), "atc", f"--singleop={op_list}", f"--output={models}",
                           "--soc_version=Ascend310P3"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    oms = sorted(os.path.join(models, n) for n in os.listdir(models) if n.endswith(".om"))
    assert len(oms) == len(entries), (oms, proc.stdout + proc.stderr)
    return oms


# ---- device tensors ------------------------------------------------------------------------

class Ctx:
    """AscendCL initialised, a context and a stream; frees what the tests allocate."""

    def __init__(self):
        assert acl.init() == 0
        assert acl.rt.set_device(0) == 0
        self.context, ret = acl.rt.create_context(0)
        assert ret == 0
        self.stream, ret = acl.rt.create_stream()
        assert ret == 0
        self.memory, self.descs, self.buffers = [], [], []

    def close(self):
        for b in self.buffers:
            acl.destroy_data_buffer(b)
        for d in self.descs:
            acl.destroy_tensor_desc(d)
        for p in self.memory:
            assert acl.rt.free(p) == 0
        assert acl.rt.destroy_stream(self.stream) == 0
        assert acl.rt.destroy_context(self.context) == 0
        assert acl.rt.reset_device(0) == 0
        assert acl.finalize() == 0

    def desc(self, dtype, dims, fmt=ND):
        d = acl.create_tensor_desc(dtype, list(dims), fmt)
        assert d != 0
        self.descs.append(d)
        return d

    def malloc(self, size):
        dev, ret = acl.rt.malloc(max(size, 1), 0)
        assert ret == 0 and dev != 0
        self.memory.append(dev)
        return dev

    def tensor(self, array=None, dtype=None, shape=None, fmt=ND, capacity=None):
        """(desc, buffer, dev, nbytes): `array` copied to device memory, or an empty one."""
        if array is not None:
            array = np.ascontiguousarray(array)
            dtype = {v: k for k, v in NP.items()}[array.dtype.type] if dtype is None else dtype
            shape = array.shape if shape is None else shape
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(NP[dtype]).itemsize
        size = nbytes if capacity is None else capacity
        dev = self.malloc(size)
        if array is not None:
            assert acl.rt.memcpy(dev, size, array.ctypes.data, array.nbytes, H2D) == 0
        buf = acl.create_data_buffer(dev, size)
        assert buf != 0
        self.buffers.append(buf)
        return self.desc(dtype, shape, fmt), buf, dev, size

    def read(self, dev, dtype, shape):
        out = np.empty(shape, NP[dtype])
        if out.nbytes:
            assert acl.rt.memcpy(out.ctypes.data, out.nbytes, dev, out.nbytes, D2H) == 0
        return out

    def sync(self):
        assert acl.rt.synchronize_stream(self.stream) == 0


def desc_dims(desc):
    out = []
    for i in range(acl.get_tensor_desc_num_dims(desc)):
        dim, ret = acl.get_tensor_desc_dim_v2(desc, i)
        assert ret == 0
        out.append(dim)
    return out


@pytest.fixture(scope="module")
def ctx():
    c = Ctx()
    yield c
    c.close()


@pytest.fixture(scope="module")
def loaded(ctx, tmp_path_factory):
    """Every model of LOADED registered with acl.op.load from the file's bytes."""
    for om in atc_singleop(str(tmp_path_factory.mktemp("singleop")), LOADED):
        data = open(om, "rb").read()
        assert acl.op.load(acl.util.bytes_to_ptr(data), len(data)) == 0, om
    return ctx


class Attr:
    """An aclopAttr built from (setter, name, value) triples; destroyed by close()."""

    def __init__(self, *items):
        self.handle = acl.op.create_attr()
        assert self.handle != 0
        for setter, name, value in items:
            ret = getattr(acl.op, setter)(self.handle, name, value)
            if isinstance(ret, tuple):
                assert ret == (self.handle, 0)
            else:
                assert ret == 0, (setter, name, value)

    def close(self):
        assert acl.op.destroy_attr(self.handle) is None


def run_v2(ctx, op, inputs, out_specs, attr=0, v2=True):
    """Runs `op` on numpy `inputs`; out_specs: [(dtype, shape)]. Returns (ret, outputs, descs)."""
    ins = [ctx.tensor(a) for a in inputs]
    outs = [ctx.tensor(None, dt, shape) for dt, shape in out_specs]
    fn = acl.op.execute_v2 if v2 else acl.op.execute
    ret = fn(op, [t[0] for t in ins], [t[1] for t in ins], [t[0] for t in outs],
             [t[1] for t in outs], attr, ctx.stream)
    if ret != 0:
        return ret, None, [t[0] for t in outs]
    ctx.sync()
    return ret, [ctx.read(t[2], dt, shape) for t, (dt, shape) in zip(outs, out_specs)], \
        [t[0] for t in outs]


# ---- the module ----------------------------------------------------------------------------

def test_module_functions_and_constants():
    import acl.op  # noqa: F401  (importable as pyACL's submodule)
    missing = [n for n in OP_FUNCTIONS if not callable(getattr(acl.op, n, None))]
    assert missing == []
    expected = {
        "ACL_ENGINE_SYS": 0, "ACL_ENGINE_AICORE": 1, "ACL_ENGINE_VECTOR": 2,
        "ACL_COMPILE_SYS": 0, "ACL_COMPILE_UNREGISTERED": 1,
        "ACL_OP_COMPILE_DEFAULT": 0, "ACL_OP_COMPILE_FUZZ": 1,
        "ACL_TRANS_N": 0, "ACL_TRANS_T": 1, "ACL_TRANS_NZ": 2, "ACL_TRANS_NZ_T": 3,
        "ACL_COMPUTE_HIGH_PRECISION": 0, "ACL_COMPUTE_LOW_PRECISION": 1,
        "ACL_COMPILE_FLAG_BIN_SELECTOR": 1, "ACL_PRECISION_MODE": 0, "ACL_OP_JIT_COMPILE": 10,
        "ACL_OP_DEBUG_OPTION": 16, "ACL_ERROR_OP_NOT_FOUND": OP_NOT_FOUND,
        "ACL_ERROR_OP_ATTR_NOT_MATCH": OP_ATTR_NOT_MATCH,
    }
    assert {n: getattr(acl, n, None) for n in expected} == expected
    # No compile functions: pyACL's op module has none.
    assert not hasattr(acl.op, "compile") and not hasattr(acl.op, "compile_and_execute")


# ---- attributes ----------------------------------------------------------------------------

def test_attr_setters_return_codes(ctx):
    attr = acl.op.create_attr()
    assert isinstance(attr, int) and attr != 0
    assert acl.op.set_attr_bool(attr, "b", 1) == 0
    assert acl.op.set_attr_bool(attr, "b", True) == 0  # a name set again is replaced
    assert acl.op.set_attr_int(attr, "i", -(1 << 40)) == 0
    assert acl.op.set_attr_float(attr, "f", 0.25) == 0
    assert acl.op.set_attr_float(attr, "f2", 3) == 0  # an int is a float argument too
    assert acl.op.set_attr_string(attr, "s", "NCHW") == 0
    assert acl.op.set_attr_list_bool(attr, "lb", [1, 0, True]) == 0
    assert acl.op.set_attr_list_int(attr, "li", [1, -2, 1 << 40]) == 0
    assert acl.op.set_attr_list_float(attr, "lf", [0.5, -1.0, 2]) == 0
    assert acl.op.set_attr_list_string(attr, "ls", ["a", "bc", ""]) == 0
    assert acl.op.set_attr_list_list_int(attr, "lli", [[1, 2], [], [3]]) == 0
    assert acl.op.set_attr_list_int(attr, "empty", []) == 0
    # These two return (attr, ret), as pyACL's.
    assert acl.op.set_attr_data_type(attr, "dt", FLOAT16) == (attr, 0)
    assert acl.op.set_attr_list_data_type(attr, "ldt", [FLOAT, INT32]) == (attr, 0)
    # numpy arrays: accepted with pyACL's warning, read by value.
    with pytest.warns(Warning, match="list"):
        assert acl.op.set_attr_list_int(attr, "np", np.array([4, 5, 6], np.int64)) == 0
    with pytest.warns(Warning, match="list"):
        assert acl.op.set_attr_list_float(attr, "npf", np.array([0.5], np.float32)) == 0
    assert acl.op.destroy_attr(attr) is None

    # A NULL attr: ACL_ERROR_INVALID_PARAM from every setter.
    for null in (0, None):
        assert acl.op.set_attr_bool(null, "b", 1) == INVALID_PARAM
        assert acl.op.set_attr_int(null, "i", 1) == INVALID_PARAM
        assert acl.op.set_attr_float(null, "f", 1.0) == INVALID_PARAM
        assert acl.op.set_attr_string(null, "s", "x") == INVALID_PARAM
        assert acl.op.set_attr_list_bool(null, "lb", [1]) == INVALID_PARAM
        assert acl.op.set_attr_list_int(null, "li", [1]) == INVALID_PARAM
        assert acl.op.set_attr_list_float(null, "lf", [1.0]) == INVALID_PARAM
        assert acl.op.set_attr_list_string(null, "ls", ["x"]) == INVALID_PARAM
        assert acl.op.set_attr_list_list_int(null, "lli", [[1]]) == INVALID_PARAM
        assert acl.op.set_attr_data_type(null, "dt", FLOAT) == (0, INVALID_PARAM)
        assert acl.op.set_attr_list_data_type(null, "ldt", [FLOAT]) == (0, INVALID_PARAM)
    assert acl.op.destroy_attr(0) is None  # NULL-safe

    # Wrong Python types are TypeErrors, as pyACL's argument parsing raises.
    attr = acl.op.create_attr()
    for call in (lambda: acl.op.set_attr_int(attr, "i", "1"),
                 lambda: acl.op.set_attr_int(attr, "i", 1.5),
                 lambda: acl.op.set_attr_string(attr, "s", 1),
                 lambda: acl.op.set_attr_list_int(attr, "li", 5),
                 lambda: acl.op.set_attr_list_int(attr, "li", ["a"]),
                 lambda: acl.op.set_attr_list_string(attr, "ls", "abc"),
                 lambda: acl.op.set_attr_list_list_int(attr, "lli", [1, 2]),
                 lambda: acl.op.set_attr_bool("attr", "b", 1)):
        with pytest.raises(TypeError):
            call()
    acl.op.destroy_attr(attr)


# ---- execution -----------------------------------------------------------------------------

def test_add_broadcast_execute_v2_and_execute(loaded):
    ctx = loaded
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1, 5)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    attr = Attr()
    for v2 in (True, False):
        for handle in (attr.handle, 0):  # a NULL attr equals an empty one
            ret, (y,), descs = run_v2(ctx, "Add", [a, b], [(FLOAT, (3, 4, 5))], handle, v2)
            assert ret == 0
            np.testing.assert_allclose(y, a + b, rtol=1e-6, atol=1e-6)
            assert desc_dims(descs[0]) == [3, 4, 5]
    attr.close()


def test_execute_v2_writes_back_output_dims(loaded):
    """A dynamic model ([-1, 5] in [1, 8]): given the largest output shape, execute_v2 writes
    the real one into the output desc (and waits for it)."""
    ctx = loaded
    a = np.arange(15, dtype=np.float32).reshape(3, 5)
    b = np.full((3, 5), 0.5, np.float32)
    x1, x2 = ctx.tensor(a), ctx.tensor(b)
    out_desc, out_buf, out_dev, _ = ctx.tensor(None, FLOAT, (8, 5))
    ret = acl.op.execute_v2("Add", [x1[0], x2[0]], [x1[1], x2[1]], [out_desc], [out_buf], 0,
                            ctx.stream)
    assert ret == 0
    ctx.sync()
    assert desc_dims(out_desc) == [3, 5]
    np.testing.assert_array_equal(ctx.read(out_dev, FLOAT, (3, 5)), a + b)
    # Outside the model's range: no model matches the input.
    big = ctx.tensor(np.zeros((9, 5), np.float32))
    out9 = ctx.tensor(None, FLOAT, (9, 5))
    ret = acl.op.execute_v2("Add", [big[0], big[0]], [big[1], big[1]], [out9[0]], [out9[1]], 0,
                            ctx.stream)
    assert ret == OP_INPUT_NOT_MATCH


def test_transpose_d(loaded):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    attr = Attr(("set_attr_list_int", "perm", [2, 0, 1]))
    ret, (y,), _ = run_v2(loaded, "TransposeD", [x], [(FLOAT, (4, 2, 3))], attr.handle)
    assert ret == 0
    np.testing.assert_array_equal(y, np.transpose(x, (2, 0, 1)))
    attr.close()


def test_reduce_sum_d(loaded):
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    keep = Attr(("set_attr_list_int", "axes", [1]), ("set_attr_bool", "keep_dims", 1))
    ret, (y,), _ = run_v2(loaded, "ReduceSumD", [x], [(FLOAT, (2, 1, 4))], keep.handle)
    assert ret == 0
    np.testing.assert_allclose(y, x.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    drop = Attr(("set_attr_list_int", "axes", [0, 2]), ("set_attr_bool", "keep_dims", 0))
    ret, (y,), _ = run_v2(loaded, "ReduceSumD", [x], [(FLOAT, (3,))], drop.handle)
    assert ret == 0
    np.testing.assert_allclose(y, x.sum(axis=(0, 2)), rtol=1e-5, atol=1e-6)
    # No default-filling: without keep_dims the model compiled with it does not match.
    partial = Attr(("set_attr_list_int", "axes", [1]))
    ret, _, _ = run_v2(loaded, "ReduceSumD", [x], [(FLOAT, (2, 1, 4))], partial.handle)
    assert ret == OP_ATTR_NOT_MATCH
    for a in (keep, drop, partial):
        a.close()


def test_softmax_v2(loaded):
    x = np.random.default_rng(3).standard_normal((8, 16)).astype(np.float32) * 3
    attr = Attr(("set_attr_list_int", "axes", [-1]))
    ret, (y,), _ = run_v2(loaded, "SoftmaxV2", [x], [(FLOAT, (8, 16))], attr.handle)
    assert ret == 0
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=-1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(y.sum(axis=-1), np.ones(8), rtol=1e-5)
    attr.close()


def test_argmax_d_along_an_axis(loaded):
    rng = np.random.default_rng(4)
    x = rng.permutation(24).astype(np.float32).reshape(4, 6)  # no ties
    attr = Attr(("set_attr_int", "dimension", 1))
    ret, (y,), _ = run_v2(loaded, "ArgMaxD", [x], [(INT32, (4,))], attr.handle)
    assert ret == 0
    np.testing.assert_array_equal(y, np.argmax(x, axis=1).astype(np.int32))
    attr.close()
    # The attr's type is part of the match: a float `dimension` is not the model's int.
    as_float = Attr(("set_attr_float", "dimension", 1.0))
    assert run_v2(loaded, "ArgMaxD", [x], [(INT32, (4,))], as_float.handle)[0] == \
        OP_ATTR_NOT_MATCH
    as_float.close()
    # An attr the model was not compiled with (CANN's `dtype`) does not match either.
    extra = Attr(("set_attr_int", "dimension", 1), ("set_attr_data_type", "dtype", INT32))
    assert run_v2(loaded, "ArgMaxD", [x], [(INT32, (4,))], extra.handle)[0] == OP_ATTR_NOT_MATCH
    extra.close()


def test_handle_and_execute_with_handle(loaded):
    ctx = loaded
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[10, 20, 30], [40, 50, 60]], np.float32)
    x1, x2 = ctx.tensor(a), ctx.tensor(b)
    y = ctx.tensor(None, FLOAT, (2, 3))
    attr = Attr()
    handle, ret = acl.op.create_handle("Add", [x1[0], x2[0]], [y[0]], attr.handle)
    assert ret == 0 and handle != 0
    attr.close()  # the handle keeps what it matched
    assert acl.op.execute_with_handle(handle, [x1[1], x2[1]], [y[1]], ctx.stream) == 0
    ctx.sync()
    np.testing.assert_array_equal(ctx.read(y[2], FLOAT, (2, 3)), a + b)
    # Again with other data in the same buffers.
    assert acl.rt.memcpy(x1[2], x1[3], b.ctypes.data, b.nbytes, H2D) == 0
    assert acl.op.execute_with_handle(handle, [x1[1], x2[1]], [y[1]], ctx.stream) == 0
    ctx.sync()
    np.testing.assert_array_equal(ctx.read(y[2], FLOAT, (2, 3)), b + b)
    # Counts other than the handle's.
    assert acl.op.execute_with_handle(handle, [x1[1]], [y[1]], ctx.stream) == OP_INPUT_NOT_MATCH
    assert acl.op.execute_with_handle(handle, [x1[1], x2[1]], [], ctx.stream) == \
        OP_OUTPUT_NOT_MATCH
    assert acl.op.destroy_handle(handle) is None
    assert acl.op.destroy_handle(0) is None  # NULL-safe
    # A handle is matched once, with the same codes as an execution.
    bad = ctx.desc(FLOAT, [2, 4])
    assert acl.op.create_handle("Add", [x1[0], bad], [y[0]], 0) == (0, OP_INPUT_NOT_MATCH)
    assert acl.op.create_handle("NoSuchOp", [x1[0]], [y[0]], 0) == (0, OP_NOT_FOUND)


def test_cast_and_cast_handle(loaded):
    ctx = loaded
    x = np.array([[0.1, -2.5, 65504.0], [1e-8, 3.14159, -0.0]], np.float32)
    src, dst = ctx.tensor(x), ctx.tensor(None, FLOAT16, (2, 3))
    assert acl.op.cast(src[0], src[1], dst[0], dst[1], 0, ctx.stream) == 0
    ctx.sync()
    np.testing.assert_array_equal(ctx.read(dst[2], FLOAT16, (2, 3)), x.astype(np.float16))
    # truncate=1 asks for a Cast with truncate true, which no loaded model has.
    assert acl.op.cast(src[0], src[1], dst[0], dst[1], 1, ctx.stream) == OP_ATTR_NOT_MATCH

    handle, ret = acl.op.create_handle_for_cast(src[0], dst[0], 0)
    assert ret == 0 and handle != 0
    y = np.array([[1, 2, 3], [4, 5, 6.5]], np.float32)
    assert acl.rt.memcpy(src[2], src[3], y.ctypes.data, y.nbytes, H2D) == 0
    assert acl.op.execute_with_handle(handle, [src[1]], [dst[1]], ctx.stream) == 0
    ctx.sync()
    np.testing.assert_array_equal(ctx.read(dst[2], FLOAT16, (2, 3)), y.astype(np.float16))
    acl.op.destroy_handle(handle)
    # NULL dst desc.
    assert acl.op.cast(src[0], src[1], 0, dst[1], 0, ctx.stream) == INVALID_PARAM
    assert acl.op.create_handle_for_cast(src[0], 0, 0) == (0, INVALID_PARAM)


def test_mismatch_codes(loaded):
    ctx = loaded
    a = np.zeros((3, 1, 5), np.float32)
    b = np.zeros((4, 5), np.float32)
    out = [(FLOAT, (3, 4, 5))]
    # No model of the type at all.
    assert run_v2(ctx, "NoSuchOp", [a, b], out)[0] == OP_NOT_FOUND
    assert run_v2(ctx, "Sub", [a, b], out)[0] == OP_NOT_FOUND
    # An input desc differs: dims, dtype, format.
    acl.get_recent_err_msg()  # (clears the messages so far)
    assert run_v2(ctx, "Add", [a, np.zeros((4, 6), np.float32)], [(FLOAT, (3, 4, 6))])[0] == \
        OP_INPUT_NOT_MATCH
    msg = acl.get_recent_err_msg()
    assert msg is not None and "Add" in msg
    assert run_v2(ctx, "Add", [a, b.astype(np.float16)], out)[0] == OP_INPUT_NOT_MATCH
    x1, x2 = ctx.tensor(a, fmt=NCHW), ctx.tensor(b)
    y = ctx.tensor(None, FLOAT, (3, 4, 5))
    assert acl.op.execute_v2("Add", [x1[0], x2[0]], [x1[1], x2[1]], [y[0]], [y[1]], 0,
                             ctx.stream) == OP_INPUT_NOT_MATCH
    assert run_v2(ctx, "Add", [a], out)[0] == OP_INPUT_NOT_MATCH  # one input short
    # An output desc differs.
    assert run_v2(ctx, "Add", [a, b], [(FLOAT, (3, 4, 6))])[0] == OP_OUTPUT_NOT_MATCH
    assert run_v2(ctx, "Add", [a, b], [(FLOAT16, (3, 4, 5))])[0] == OP_OUTPUT_NOT_MATCH
    assert run_v2(ctx, "Add", [a, b], [(FLOAT, (3, 4, 5)), (FLOAT, (3, 4, 5))])[0] == \
        OP_OUTPUT_NOT_MATCH
    # Attributes differ: one the model has not, a different value, a missing one.
    extra = Attr(("set_attr_int", "alpha", 1))
    assert run_v2(ctx, "Add", [a, b], out, extra.handle)[0] == OP_ATTR_NOT_MATCH
    extra.close()
    x = np.zeros((2, 3, 4), np.float32)
    other = Attr(("set_attr_list_int", "perm", [0, 2, 1]))
    assert run_v2(ctx, "TransposeD", [x], [(FLOAT, (4, 2, 3))], other.handle)[0] == \
        OP_ATTR_NOT_MATCH
    other.close()
    assert run_v2(ctx, "TransposeD", [x], [(FLOAT, (4, 2, 3))], 0)[0] == OP_ATTR_NOT_MATCH


def test_empty_outputs_and_short_buffers(loaded):
    ctx = loaded
    a = ctx.tensor(np.ones((2, 3), np.float32))
    # Every output empty (a zero dim): CANN returns success without running anything.
    empty = ctx.desc(FLOAT, [0, 3])
    nothing = acl.create_data_buffer(0, 0)
    for fn in (acl.op.execute, acl.op.execute_v2):
        assert fn("Add", [a[0], a[0]], [a[1], a[1]], [empty], [nothing], 0, ctx.stream) == 0
    acl.destroy_data_buffer(nothing)
    # A buffer shorter than its desc: the task fails on the stream (the code comes back from
    # synchronize_stream), and nothing is written past the buffer.
    guard = np.full(16, 7.0, np.float32)
    dev = ctx.malloc(guard.nbytes)
    assert acl.rt.memcpy(dev, guard.nbytes, guard.ctypes.data, guard.nbytes, H2D) == 0
    short = acl.create_data_buffer(dev, 8)
    y = ctx.desc(FLOAT, [2, 3])
    ret = acl.op.execute_v2("Add", [a[0], a[0]], [a[1], a[1]], [y], [short], 0, ctx.stream)
    if ret == 0:
        assert acl.rt.synchronize_stream(ctx.stream) == INVALID_PARAM
        assert "24 bytes" in acl.get_recent_err_msg()
    else:
        assert ret == INVALID_PARAM
    np.testing.assert_array_equal(ctx.read(dev, FLOAT, (16,))[2:], guard[2:])
    acl.destroy_data_buffer(short)
    ctx.sync()


def test_infer_shape(ctx):
    """Output descs from the operator's shape rule; no compiled model is needed."""
    a = ctx.tensor(np.zeros((3, 1, 5), np.float32))
    b = ctx.tensor(np.zeros((4, 5), np.float32))
    out = ctx.desc(DT_UNDEFINED, [], FORMAT_UNDEFINED)
    assert acl.op.infer_shape("Add", [a[0], b[0]], [a[1], b[1]], 1, [out], 0) == 0
    assert desc_dims(out) == [3, 4, 5]
    assert acl.get_tensor_desc_type(out) == FLOAT
    x = ctx.tensor(np.zeros((2, 3, 4), np.float32))
    attr = Attr(("set_attr_list_int", "axes", [1]), ("set_attr_bool", "keep_dims", 0))
    out = ctx.desc(DT_UNDEFINED, [], FORMAT_UNDEFINED)
    assert acl.op.infer_shape("ReduceSumD", [x[0]], [x[1]], 1, [out], attr.handle) == 0
    assert desc_dims(out) == [2, 4]
    attr.close()
    # More outputs asked for than descs given: refused before the C library reads past them.
    assert acl.op.infer_shape("Add", [a[0], b[0]], [a[1], b[1]], 2, [out], 0) == INVALID_PARAM


def test_set_model_dir_classification_sample(ctx, tmp_path):
    """CANN's classification sample: set_model_dir("op_models"), cast the 1000 logits to float16
    and ArgMaxD them. set_model_dir works once per process."""
    atc_singleop(str(tmp_path / "sample"), SAMPLE_OPS)
    model_dir = str(tmp_path / "sample" / "models")
    assert acl.op.set_model_dir(str(tmp_path / "no-such-dir")) == READ_MODEL_FAILURE
    assert acl.op.set_model_dir(model_dir) == 0
    assert acl.op.set_model_dir(model_dir) == REPEAT_INITIALIZE

    logits = np.random.default_rng(5).uniform(-1, 1, 1000).astype(np.float32)
    logits[617] = 7.5
    src = ctx.tensor(logits)
    half = ctx.tensor(None, FLOAT16, (1000,))
    assert acl.op.cast(src[0], src[1], half[0], half[1], 0, ctx.stream) == 0
    index = ctx.tensor(None, INT32, (1,))
    attr = Attr(("set_attr_int", "dimension", 0))
    assert acl.op.execute_v2("ArgMaxD", [half[0]], [half[1]], [index[0]], [index[1]],
                             attr.handle, ctx.stream) == 0
    ctx.sync()
    np.testing.assert_array_equal(ctx.read(half[2], FLOAT16, (1000,)),
                                  logits.astype(np.float16))
    assert ctx.read(index[2], INT32, (1,)).tolist() == [617]
    attr.close()


def test_load_errors(ctx, mnist_om):
    assert acl.op.load(0, 16) == INVALID_PARAM
    data = b"\0" * 64
    assert acl.op.load(acl.util.bytes_to_ptr(data), 0) == INVALID_PARAM
    garbage = bytes(range(256)) * 4
    assert acl.op.load(acl.util.bytes_to_ptr(garbage), len(garbage)) != 0
    # A model .om that is not a single-operator model.
    om = open(mnist_om, "rb").read()
    assert acl.op.load(acl.util.bytes_to_ptr(om), len(om)) != 0
    # An address that is not mapped: refused by the binding before anything reads it.
    assert acl.op.load(0xDEAD0000000, 4096) == INVALID_PARAM
    assert "not mapped" in acl.get_recent_err_msg()


def test_binding_checks(loaded):
    ctx = loaded
    a = ctx.tensor(np.zeros((2, 3), np.float32))
    y = ctx.tensor(None, FLOAT, (2, 3))
    # Desc and buffer lists must pair up.
    for fn in (acl.op.execute, acl.op.execute_v2):
        assert fn("Add", [a[0], a[0]], [a[1]], [y[0]], [y[1]], 0, ctx.stream) == INVALID_PARAM
        assert fn("Add", [a[0], a[0]], [a[1], a[1]], [y[0]], [], 0, ctx.stream) == INVALID_PARAM
    assert "entries" in acl.get_recent_err_msg()
    # A buffer over unmapped memory (on the CPU device, device memory is host memory).
    if (acl.get_soc_name() or "cpu").startswith("cpu"):
        bad = acl.create_data_buffer(0xDEAD0000000, 24)
        assert acl.op.execute_v2("Add", [a[0], a[0]], [a[1], bad], [y[0]], [y[1]], 0,
                                 ctx.stream) == INVALID_PARAM
        assert "not mapped" in acl.get_recent_err_msg()
        assert acl.op.execute_v2("Add", [a[0], a[0]], [a[1], a[1]], [y[0]], [bad], 0,
                                 ctx.stream) == INVALID_PARAM
        handle, ret = acl.op.create_handle("Add", [a[0], a[0]], [y[0]], 0)
        assert ret == 0
        assert acl.op.execute_with_handle(handle, [a[1], a[1]], [bad], ctx.stream) == \
            INVALID_PARAM
        acl.op.destroy_handle(handle)
        acl.destroy_data_buffer(bad)
    # Python types.
    with pytest.raises(TypeError):
        acl.op.execute_v2("Add", a[0], [a[1]], [y[0]], [y[1]], 0, ctx.stream)
    with pytest.raises(TypeError):
        acl.op.execute_v2(None, [a[0]], [a[1]], [y[0]], [y[1]], 0, ctx.stream)
    with pytest.raises(TypeError):
        acl.op.create_handle("Add", [a[0], "desc"], [y[0]], 0)


def test_kernel_group_and_queue(ctx):
    """Custom Ascend kernel binaries: not supported on Kiln's devices (200001)."""
    calls = []
    assert acl.op.register_compile_func("MyOp", lambda *args: calls.append(args)) == \
        API_NOT_SUPPORT
    with pytest.raises(TypeError):
        acl.op.register_compile_func("MyOp", 42)
    assert acl.op.unregister_compile_func("MyOp") == API_NOT_SUPPORT
    blob = b"\x7fELF" + bytes(60)
    assert acl.op.create_kernel("MyOp", "k0", "kernel", acl.util.bytes_to_ptr(blob), len(blob),
                                acl.ACL_ENGINE_AICORE, 0) == API_NOT_SUPPORT
    args = np.zeros(4, np.uint64)
    assert acl.op.set_kernel_args(0, "k0", 1, args.ctypes.data, args.nbytes) in \
        (API_NOT_SUPPORT, INVALID_PARAM)
    sizes = np.array([256, 512], np.uint64)
    assert acl.op.set_kernel_workspace_sizes(0, 2, sizes.ctypes.data) in \
        (API_NOT_SUPPORT, INVALID_PARAM)
    d = ctx.desc(FLOAT, [4])
    assert acl.op.update_params("MyOp", [d], [d], 0) == API_NOT_SUPPORT
    assert calls == []
    assert acl.op.set_max_op_queue_num(1000) == 0


# ---- bad handles, in a child interpreter (a crash fails one test, not the run) -------------

CHILD = r'''
import warnings
import numpy as np
import acl
warnings.simplefilter("ignore")
EINVAL = 100000
keep = bytes(4096)
LIVE = acl.util.bytes_to_ptr(keep)             # mapped memory that is no handle of any kind
GARBAGE = [8, 4096, 0xDEAD0000000, 1 << 60, LIVE, -1, (1 << 64) - 1]
assert acl.init() == 0 and acl.rt.set_device(0) == 0
stream, ret = acl.rt.create_stream()
dead = acl.op.create_attr()
acl.op.destroy_attr(dead)
for h in [dead] + GARBAGE:
    assert acl.op.set_attr_bool(h, "b", 1) == EINVAL, h
    assert acl.op.set_attr_int(h, "i", 1) == EINVAL, h
    assert acl.op.set_attr_float(h, "f", 1.0) == EINVAL, h
    assert acl.op.set_attr_string(h, "s", "x") == EINVAL, h
    assert acl.op.set_attr_list_int(h, "li", [1, 2]) == EINVAL, h
    assert acl.op.set_attr_list_list_int(h, "lli", [[1], [2, 3]]) == EINVAL, h
    assert acl.op.set_attr_data_type(h, "dt", 0)[1] == EINVAL, h
    assert acl.op.destroy_attr(h) is None   # a dead or foreign attr: ignored
    desc = acl.create_tensor_desc(0, [2], 2)
    mem, _ = acl.rt.malloc(8, 0)
    buf = acl.create_data_buffer(mem, 8)
    # A dead/foreign attr, desc, buffer or handle in an execution: a code, no crash.
    assert acl.op.execute_v2("Add", [desc, desc], [buf, buf], [desc], [buf], h, stream) != 0
    assert acl.op.execute_v2("Add", [h, desc], [buf, buf], [desc], [buf], 0, stream) != 0
    assert acl.op.execute_v2("Add", [desc, desc], [h, buf], [desc], [buf], 0, stream) != 0
    assert acl.op.create_handle("Add", [h], [desc], 0)[1] != 0
    assert acl.op.execute_with_handle(h, [buf], [buf], stream) == EINVAL
    assert acl.op.destroy_handle(h) is None
    assert acl.op.cast(h, buf, desc, buf, 0, stream) != 0
    assert acl.op.infer_shape("Add", [h, desc], [buf, buf], 1, [desc], 0) != 0
    acl.destroy_data_buffer(buf)
    acl.destroy_tensor_desc(desc)
    acl.rt.free(mem)
assert acl.op.execute_with_handle(0, [], [], stream) == EINVAL
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
print("CHILD-OK", flush=True)
'''


def test_dead_and_foreign_handles_in_child():
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD)], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))
    detail = f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n" \
             f"{proc.stderr[-3000:]}"
    assert proc.returncode == 0 and "CHILD-OK" in proc.stdout, detail

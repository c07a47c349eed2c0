# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""acl.blas (include/acl/ops/acl_cblas.h) through the Python bindings, as CANN's GEMM sample
calls it: row-major matrices, alpha and beta in device memory of C's type, lda = ldb = ldc = -1,
every operand copied to acl.rt.malloc memory with acl.rt.memcpy. The oracle is numpy (float64,
then C's type; exact for the integer forms, a tolerance growing with k for float16). No GEMM
single-op model is loaded for most tests: Kiln compiles the operator on first use (CANN would
need one); the last test runs CANN's gemm.json model compiled by `kiln atc --singleop`."""
import json
import os
import subprocess

import numpy as np
import pytest

import acl

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# CANN's values (acl_base.h, acl_cblas.h), written out so that a wrong generated constant fails.
INVALID_PARAM = 100000
FLOAT, FLOAT16, INT8, INT32 = 0, 1, 2, 3  # aclDataType
ND = 2
N, T, NZ, NZ_T = 0, 1, 2, 3  # aclTransType
HIGH, LOW = 0, 1  # aclComputeType
H2D, D2H = 1, 2

NP = {FLOAT: np.float32, FLOAT16: np.float16, INT8: np.int8, INT32: np.int32}
# (A, B, C) combinations of aclblasGemmEx (CANN's documented four).
COMBOS = [(FLOAT16, FLOAT16, FLOAT16), (FLOAT16, FLOAT16, FLOAT), (INT8, INT8, INT32),
          (INT8, INT8, FLOAT)]
COMBO_IDS = ["f16f16-f16", "f16f16-f32", "s8s8-s32", "s8s8-f32"]
SIZES = [(7, 13, 5), (1, 1, 1)]  # (m, n, k)

BLAS_FUNCTIONS = ["gemm_ex", "hgemm", "s8gemm", "gemv_ex", "hgemv", "s8gemv",
                  "create_handle_for_gemm_ex", "create_handle_for_hgemm",
                  "create_handle_for_s8gemm", "create_handle_for_gemv_ex",
                  "create_handle_for_hgemv", "create_handle_for_s8gemv"]


class Dev:
    """AscendCL initialised, a context and a stream; device copies of numpy arrays."""

    def __init__(self):
        assert acl.init() == 0
        assert acl.rt.set_device(0) == 0
        self.context, ret = acl.rt.create_context(0)
        assert ret == 0
        self.stream, ret = acl.rt.create_stream()
        assert ret == 0
        self.memory, self.buffers = [], []

    def close(self):
        self.release()
        assert acl.rt.destroy_stream(self.stream) == 0
        assert acl.rt.destroy_context(self.context) == 0
        assert acl.rt.reset_device(0) == 0
        assert acl.finalize() == 0

    def release(self):
        for b in self.buffers:
            acl.destroy_data_buffer(b)
        for p in self.memory:
            assert acl.rt.free(p) == 0
        self.memory, self.buffers = [], []

    def put(self, array):
        """Device memory holding `array` (C order)."""
        array = np.ascontiguousarray(array)
        dev, ret = acl.rt.malloc(max(array.nbytes, 1), 0)
        assert ret == 0 and dev != 0
        self.memory.append(dev)
        assert acl.rt.memcpy(dev, array.nbytes, array.ctypes.data, array.nbytes, H2D) == 0
        return dev

    def get(self, dev, dtype, shape):
        out = np.empty(shape, dtype)
        assert acl.rt.memcpy(out.ctypes.data, out.nbytes, dev, out.nbytes, D2H) == 0
        return out

    def buffer(self, dev, nbytes):
        b = acl.create_data_buffer(dev, nbytes)
        assert b != 0
        self.buffers.append(b)
        return b

    def sync(self):
        assert acl.rt.synchronize_stream(self.stream) == 0


@pytest.fixture(scope="module")
def dev():
    d = Dev()
    yield d
    d.close()


@pytest.fixture(autouse=True)
def _free_after_each(request):
    yield
    if "dev" in request.fixturenames:
        request.getfixturevalue("dev").release()


# ---- operands and the oracle ---------------------------------------------------------------

def operand(rng, dtype, shape):
    if dtype == FLOAT16:
        return rng.uniform(-1, 1, shape).astype(np.float16)
    if dtype == INT8:
        return rng.integers(-128, 128, shape, dtype=np.int8)
    if dtype == INT32:
        return rng.integers(-1000, 1000, shape, dtype=np.int32)
    return rng.uniform(-1, 1, shape).astype(np.float32)


def scalars(type_c):
    """(alpha, beta) of C's type: exact in it."""
    if type_c == INT32:
        return np.array(2, np.int32), np.array(-1, np.int32)
    return np.array(1.5, NP[type_c]), np.array(-0.5, NP[type_c])


def check(got, alpha, a, b, beta, c, type_a, type_c, k):
    """got == alpha * a @ b + beta * c (a, b logical, row-major)."""
    f = np.float64
    expected = f(alpha) * (a.astype(f) @ b.astype(f)) + f(beta) * c.astype(f)
    if type_c == INT32:
        np.testing.assert_array_equal(got, expected.astype(np.int32))
        return
    bound = abs(f(alpha)) * (np.abs(a.astype(f)) @ np.abs(b.astype(f))) + \
        abs(f(beta)) * np.abs(c.astype(f))
    if type_c == FLOAT16 or type_a == FLOAT16:
        tol = bound * (k + 2) * 2.0 ** -11 + 2.0 ** -24  # one float16 rounding per step
    else:
        tol = bound * (k + 2) * 2.0 ** -24 + 1e-30  # int8 products are exact in float32
    err = np.abs(got.astype(f) - expected)
    assert np.all(err <= tol), f"max error {err.max()} (tolerance {tol.min()}..{tol.max()})"


def stored(logical, trans):
    """Row-major storage of op(X) = logical: X itself for N, its transpose for T."""
    return np.ascontiguousarray(logical.T if trans == T else logical)


# ---- GEMM ----------------------------------------------------------------------------------

def test_module_functions():
    import acl.blas  # noqa: F401  (importable as pyACL's submodule)
    assert [n for n in BLAS_FUNCTIONS if not callable(getattr(acl.blas, n, None))] == []
    assert (acl.ACL_TRANS_N, acl.ACL_TRANS_T, acl.ACL_TRANS_NZ, acl.ACL_TRANS_NZ_T) == (0, 1, 2, 3)
    assert (acl.ACL_COMPUTE_HIGH_PRECISION, acl.ACL_COMPUTE_LOW_PRECISION) == (0, 1)


@pytest.mark.parametrize("m,n,k", SIZES, ids=["7x13x5", "1x1x1"])
@pytest.mark.parametrize("trans_a,trans_b", [(N, N), (T, N), (N, T), (T, T)],
                         ids=["NN", "TN", "NT", "TT"])
@pytest.mark.parametrize("types", COMBOS, ids=COMBO_IDS)
def test_gemm_ex(dev, types, trans_a, trans_b, m, n, k):
    type_a, type_b, type_c = types
    rng = np.random.default_rng(m * 100 + trans_a * 10 + trans_b + type_c)
    a = operand(rng, type_a, (m, k))
    b = operand(rng, type_b, (k, n))
    c = operand(rng, type_c, (m, n))
    alpha, beta = scalars(type_c)
    d_a, d_b, d_c = dev.put(stored(a, trans_a)), dev.put(stored(b, trans_b)), dev.put(c)
    ret = acl.blas.gemm_ex(trans_a, trans_b, N, m, n, k, dev.put(alpha), d_a, -1, type_a, d_b, -1,
                           type_b, dev.put(beta), d_c, -1, type_c, HIGH, dev.stream)
    assert ret == 0
    dev.sync()
    check(dev.get(d_c, NP[type_c], (m, n)), alpha, a, b, beta, c, type_a, type_c, k)


@pytest.mark.parametrize("trans_a,trans_b", [(N, N), (T, N), (N, T), (T, T)],
                         ids=["NN", "TN", "NT", "TT"])
def test_hgemm_and_s8gemm(dev, trans_a, trans_b):
    m, n, k = 5, 3, 9
    rng = np.random.default_rng(trans_a * 2 + trans_b)
    for fn, type_ab, type_c in ((acl.blas.hgemm, FLOAT16, FLOAT16),
                                (acl.blas.s8gemm, INT8, INT32)):
        a, b = operand(rng, type_ab, (m, k)), operand(rng, type_ab, (k, n))
        c = operand(rng, type_c, (m, n))
        alpha, beta = scalars(type_c)
        d_c = dev.put(c)
        ret = fn(trans_a, trans_b, N, m, n, k, dev.put(alpha), dev.put(stored(a, trans_a)), -1,
                 dev.put(stored(b, trans_b)), -1, dev.put(beta), d_c, -1, HIGH, dev.stream)
        assert ret == 0, fn.__name__
        dev.sync()
        check(dev.get(d_c, NP[type_c], (m, n)), alpha, a, b, beta, c, type_ab, type_c, k)


def test_gemm_beta_zero_and_repeat(dev):
    """beta = 0 ignores C's old contents; running twice accumulates as BLAS does."""
    m, n, k = 4, 6, 8
    rng = np.random.default_rng(9)
    a, b = operand(rng, INT8, (m, k)), operand(rng, INT8, (k, n))
    c = np.full((m, n), 12345, np.int32)
    one, zero = np.array(1, np.int32), np.array(0, np.int32)
    d_a, d_b, d_c = dev.put(a), dev.put(b), dev.put(c)
    d_one, d_zero = dev.put(one), dev.put(zero)
    assert acl.blas.s8gemm(N, N, N, m, n, k, d_one, d_a, -1, d_b, -1, d_zero, d_c, -1, HIGH,
                           dev.stream) == 0
    dev.sync()
    ab = a.astype(np.int64) @ b.astype(np.int64)
    np.testing.assert_array_equal(dev.get(d_c, np.int32, (m, n)), ab)
    assert acl.blas.s8gemm(N, N, N, m, n, k, d_one, d_a, -1, d_b, -1, d_one, d_c, -1, HIGH,
                           dev.stream) == 0
    dev.sync()
    np.testing.assert_array_equal(dev.get(d_c, np.int32, (m, n)), 2 * ab)


# ---- GEMV ----------------------------------------------------------------------------------

@pytest.mark.parametrize("m,n", [(7, 5), (1, 1)], ids=["7x5", "1x1"])
@pytest.mark.parametrize("trans_a", [N, T], ids=["N", "T"])
@pytest.mark.parametrize("types", COMBOS, ids=COMBO_IDS)
def test_gemv_ex(dev, types, trans_a, m, n):
    type_a, type_x, type_y = types
    rng = np.random.default_rng(m * 10 + trans_a + type_y)
    a = operand(rng, type_a, (m, n))  # op(A) is m x n
    x = operand(rng, type_x, (n,))
    y = operand(rng, type_y, (m,))
    alpha, beta = scalars(type_y)
    d_y = dev.put(y)
    ret = acl.blas.gemv_ex(trans_a, m, n, dev.put(alpha), dev.put(stored(a, trans_a)), -1, type_a,
                           dev.put(x), -1, type_x, dev.put(beta), d_y, -1, type_y, HIGH, dev.stream)
    assert ret == 0
    dev.sync()
    check(dev.get(d_y, NP[type_y], (m, 1)), alpha, a, x.reshape(n, 1), beta, y.reshape(m, 1),
          type_a, type_y, n)


@pytest.mark.parametrize("trans_a", [N, T], ids=["N", "T"])
def test_hgemv_and_s8gemv(dev, trans_a):
    m, n = 6, 11
    rng = np.random.default_rng(20 + trans_a)
    for fn, type_ax, type_y in ((acl.blas.hgemv, FLOAT16, FLOAT16),
                                (acl.blas.s8gemv, INT8, INT32)):
        a, x = operand(rng, type_ax, (m, n)), operand(rng, type_ax, (n,))
        y = operand(rng, type_y, (m,))
        alpha, beta = scalars(type_y)
        d_y = dev.put(y)
        ret = fn(trans_a, m, n, dev.put(alpha), dev.put(stored(a, trans_a)), -1, dev.put(x), -1,
                 dev.put(beta), d_y, -1, HIGH, dev.stream)
        assert ret == 0, fn.__name__
        dev.sync()
        check(dev.get(d_y, NP[type_y], (m, 1)), alpha, a, x.reshape(n, 1), beta, y.reshape(m, 1),
              type_ax, type_y, n)


# ---- handles -------------------------------------------------------------------------------

def run_handle(dev, handle, a, b, c, alpha, beta):
    """aclopExecWithHandle(inputs a, b, c, alpha, beta; output c); returns the new C."""
    ptrs = [dev.put(v) for v in (a, b, c, alpha, beta)]
    bufs = [dev.buffer(p, np.asarray(v).nbytes) for p, v in zip(ptrs, (a, b, c, alpha, beta))]
    assert acl.op.execute_with_handle(handle, bufs, [bufs[2]], dev.stream) == 0
    dev.sync()
    return dev.get(ptrs[2], c.dtype, c.shape)


@pytest.mark.parametrize("kind", ["gemm_ex", "hgemm", "s8gemm", "gemv_ex", "hgemv", "s8gemv"])
def test_create_handle_and_execute_with_handle(dev, kind):
    m, n, k = 3, 4, 5
    rng = np.random.default_rng(len(kind))
    if kind == "gemm_ex":
        types = (FLOAT16, FLOAT16, FLOAT)
        handle, ret = acl.blas.create_handle_for_gemm_ex(T, N, N, m, n, k, *types, HIGH)
        trans_a, n_eff, k_eff = T, n, k
    elif kind in ("hgemm", "s8gemm"):
        types = (FLOAT16,) * 3 if kind == "hgemm" else (INT8, INT8, INT32)
        fn = getattr(acl.blas, "create_handle_for_" + kind)
        handle, ret = fn(N, N, N, m, n, k, HIGH)
        trans_a, n_eff, k_eff = N, n, k
    elif kind == "gemv_ex":
        types = (INT8, INT8, FLOAT)
        handle, ret = acl.blas.create_handle_for_gemv_ex(T, m, k, *types, HIGH)
        trans_a, n_eff, k_eff = T, 1, k
    else:
        types = (FLOAT16,) * 3 if kind == "hgemv" else (INT8, INT8, INT32)
        handle, ret = getattr(acl.blas, "create_handle_for_" + kind)(N, m, k, HIGH)
        trans_a, n_eff, k_eff = N, 1, k
    assert ret == 0 and handle != 0
    type_a, type_b, type_c = types
    a = operand(rng, type_a, (m, k_eff))
    b = operand(rng, type_b, (k_eff, n_eff))
    c = operand(rng, type_c, (m, n_eff))
    alpha, beta = scalars(type_c)
    for _ in range(2):  # a handle runs any number of times
        got = run_handle(dev, handle, stored(a, trans_a), b, c, alpha, beta)
        check(got, alpha, a, b, beta, c, type_a, type_c, k_eff)
    assert acl.op.destroy_handle(handle) is None


# ---- errors --------------------------------------------------------------------------------

def test_gemm_invalid_arguments(dev):
    m, n, k = 2, 3, 4
    a = dev.put(np.zeros((m, k), np.float16))
    b = dev.put(np.zeros((k, n), np.float16))
    c = dev.put(np.zeros((m, n), np.float16))
    s = dev.put(np.zeros(1, np.float16))

    def gemm(ta=N, tb=N, tc=N, m=m, n=n, k=k, lda=-1, ldb=-1, ldc=-1, alpha=s, a=a, b=b, c=c):
        return acl.blas.gemm_ex(ta, tb, tc, m, n, k, alpha, a, lda, FLOAT16, b, ldb, FLOAT16, s, c,
                                ldc, FLOAT16, HIGH, dev.stream)

    assert gemm() == 0
    dev.sync()
    # Leading dimensions are reserved: -1.
    for kwargs in ({"lda": k}, {"ldb": n}, {"ldc": n}, {"lda": 0}, {"ldc": -2}):
        assert gemm(**kwargs) == INVALID_PARAM, kwargs
    # Sizes must be positive.
    for kwargs in ({"m": 0}, {"n": 0}, {"k": 0}, {"m": -1}, {"k": -7}):
        assert gemm(**kwargs) == INVALID_PARAM, kwargs
    # Fractal layouts are refused; C is never transposed.
    for kwargs in ({"ta": NZ}, {"tb": NZ}, {"ta": NZ_T}, {"tc": T}, {"tc": NZ}, {"ta": 7}):
        assert gemm(**kwargs) == INVALID_PARAM, kwargs
    # NULL operands.
    for kwargs in ({"alpha": 0}, {"a": 0}, {"b": 0}, {"c": 0}):
        assert gemm(**kwargs) == INVALID_PARAM, kwargs
    assert acl.blas.hgemm(N, N, N, m, n, k, s, a, 5, b, -1, s, c, -1, HIGH, dev.stream) == \
        INVALID_PARAM
    assert acl.blas.s8gemm(NZ, N, N, m, n, k, s, a, -1, b, -1, s, c, -1, HIGH, dev.stream) == \
        INVALID_PARAM
    # Handles: the same checks.
    assert acl.blas.create_handle_for_gemm_ex(N, N, N, 0, n, k, FLOAT16, FLOAT16, FLOAT16,
                                              HIGH) == (0, INVALID_PARAM)
    assert acl.blas.create_handle_for_gemm_ex(NZ, N, N, m, n, k, FLOAT16, FLOAT16, FLOAT16,
                                              HIGH) == (0, INVALID_PARAM)
    assert acl.blas.create_handle_for_hgemm(N, N, T, m, n, k, HIGH) == (0, INVALID_PARAM)
    assert acl.blas.create_handle_for_s8gemm(N, N, N, m, -1, k, HIGH) == (0, INVALID_PARAM)
    # Wrong Python types.
    with pytest.raises(TypeError):
        acl.blas.gemm_ex(N, N, N, 1.5, n, k, s, a, -1, FLOAT16, b, -1, FLOAT16, s, c, -1, FLOAT16,
                         HIGH, dev.stream)
    with pytest.raises(TypeError):
        acl.blas.hgemm(N, N, N, m, n, k, "alpha", a, -1, b, -1, s, c, -1, HIGH, dev.stream)


def test_gemv_invalid_arguments(dev):
    m, n = 3, 4
    a = dev.put(np.zeros((m, n), np.int8))
    x = dev.put(np.zeros(n, np.int8))
    y = dev.put(np.zeros(m, np.int32))
    s = dev.put(np.zeros(1, np.int32))

    def gemv(ta=N, m=m, n=n, lda=-1, incx=-1, incy=-1):
        return acl.blas.gemv_ex(ta, m, n, s, a, lda, INT8, x, incx, INT8, s, y, incy, INT32, HIGH,
                                dev.stream)

    assert gemv() == 0
    dev.sync()
    for kwargs in ({"lda": n}, {"incx": 1}, {"incy": 1}, {"m": 0}, {"n": -1}, {"ta": NZ},
                   {"ta": NZ_T}):
        assert gemv(**kwargs) == INVALID_PARAM, kwargs
    assert acl.blas.s8gemv(N, m, n, s, a, -1, x, 2, s, y, -1, HIGH, dev.stream) == INVALID_PARAM
    assert acl.blas.hgemv(N, 0, n, s, a, -1, x, -1, s, y, -1, HIGH, dev.stream) == INVALID_PARAM
    assert acl.blas.create_handle_for_gemv_ex(N, m, 0, INT8, INT8, INT32, HIGH) == \
        (0, INVALID_PARAM)
    assert acl.blas.create_handle_for_hgemv(NZ, m, n, HIGH) == (0, INVALID_PARAM)
    assert acl.blas.create_handle_for_s8gemv(N, -3, n, HIGH) == (0, INVALID_PARAM)


def test_unmapped_operands_are_refused(dev):
    """On the CPU device (device memory is host memory) the binding checks every operand range
    before the runtime reads it."""
    if not (acl.get_soc_name() or "cpu").startswith("cpu"):
        pytest.skip("device memory is not host memory here")
    m, n, k = 4, 4, 4
    ok = dev.put(np.zeros((m, k), np.float16))
    s = dev.put(np.zeros(1, np.float16))
    bad = 0xDEAD0000000
    for pos in range(5):  # alpha, a, b, beta, c
        ptrs = [s, ok, ok, s, ok]
        ptrs[pos] = bad
        ret = acl.blas.hgemm(N, N, N, m, n, k, ptrs[0], ptrs[1], -1, ptrs[2], -1, ptrs[3],
                             ptrs[4], -1, HIGH, dev.stream)
        assert ret == INVALID_PARAM, pos
        assert "not mapped" in acl.get_recent_err_msg()
    # A buffer too short for m x k: its end is unmapped only if past the allocation's pages,
    # so only a wildly large size is certain to be refused.
    assert acl.blas.hgemm(N, N, N, 1 << 20, 1 << 20, 1 << 20, s, ok, -1, ok, -1, s, ok, -1, HIGH,
                          dev.stream) == INVALID_PARAM


def test_compute_type_low_precision(dev):
    """CANN documents HIGH as the default; LOW gives the same result or ACL_ERROR_INVALID_PARAM
    (CANN's own implementation refuses it), never anything else."""
    m, n, k = 3, 2, 4
    rng = np.random.default_rng(30)
    a, b, c = operand(rng, INT8, (m, k)), operand(rng, INT8, (k, n)), operand(rng, INT32, (m, n))
    alpha, beta = scalars(INT32)
    d_c = dev.put(c)
    ret = acl.blas.s8gemm(N, N, N, m, n, k, dev.put(alpha), dev.put(a), -1, dev.put(b), -1,
                          dev.put(beta), d_c, -1, LOW, dev.stream)
    assert ret in (0, INVALID_PARAM)
    if ret == 0:
        dev.sync()
        check(dev.get(d_c, np.int32, (m, n)), alpha, a, b, beta, c, INT8, INT32, k)


# ---- with CANN's GEMM single-op model ------------------------------------------------------

# CANN's sample cplusplus/level1_single_api/1_acl/4_blas/gemm/run/out/test_data/config/gemm.json.
GEMM_JSON = [{
    "op": "GEMM",
    "input_desc": [{"format": "ND", "shape": [16, 16], "type": "float16"},
                   {"format": "ND", "shape": [16, 16], "type": "float16"},
                   {"format": "ND", "shape": [16, 16], "type": "float16"},
                   {"format": "ND", "shape": [], "type": "float16"},
                   {"format": "ND", "shape": [], "type": "float16"}],
    "output_desc": [{"format": "ND", "shape": [16, 16], "type": "float16"}],
    "attr": [{"name": "transpose_a", "type": "bool", "value": False},
             {"name": "transpose_b", "type": "bool", "value": False}],
}]


def test_gemm_sample_with_its_single_op_model(dev, tmp_path):
    kiln = os.environ.get("KILN_BIN") or os.path.join(ROOT, "build", "release", "tools", "kiln",
                                                      "kiln")
    if not os.path.exists(kiln):
        pytest.skip("no kiln CLI (set KILN_BIN)")
    op_list = tmp_path / "gemm.json"
    op_list.write_text(json.dumps(GEMM_JSON))
    out = tmp_path / "op_models"
    proc = subprocess.run([kiln, "atc", f"--singleop={op_list}", f"--output={out}",
                           "--soc_version=Ascend310P3"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (om,) = [out / f for f in os.listdir(out) if f.endswith(".om")]
    data = om.read_bytes()
    assert acl.op.load(acl.util.bytes_to_ptr(data), len(data)) == 0

    rng = np.random.default_rng(16)
    a, b, c = (operand(rng, FLOAT16, (16, 16)) for _ in range(3))
    alpha, beta = scalars(FLOAT16)
    # The sample's call: aclblasHgemm on device memory, lda = ldb = ldc = -1.
    d_c = dev.put(c)
    assert acl.blas.hgemm(N, N, N, 16, 16, 16, dev.put(alpha), dev.put(a), -1, dev.put(b), -1,
                          dev.put(beta), d_c, -1, HIGH, dev.stream) == 0
    dev.sync()
    check(dev.get(d_c, np.float16, (16, 16)), alpha, a, b, beta, c, FLOAT16, FLOAT16, 16)

    # The same model through acl.op.execute_v2: inputs a, b, c, alpha, beta; output y.
    def desc(shape):
        d = acl.create_tensor_desc(FLOAT16, shape, ND)
        assert d != 0
        return d
    descs = [desc([16, 16]) for _ in range(3)] + [desc([]), desc([])]
    ptrs = [dev.put(v) for v in (a, b, c, alpha, beta)]
    bufs = [dev.buffer(p, np.asarray(v).nbytes) for p, v in zip(ptrs, (a, b, c, alpha, beta))]
    y_desc = desc([16, 16])
    d_y = dev.put(np.zeros((16, 16), np.float16))
    attr = acl.op.create_attr()
    assert acl.op.set_attr_bool(attr, "transpose_a", 0) == 0
    assert acl.op.set_attr_bool(attr, "transpose_b", 0) == 0
    assert acl.op.execute_v2("GEMM", descs, bufs, [y_desc], [dev.buffer(d_y, 512)], attr,
                             dev.stream) == 0
    dev.sync()
    check(dev.get(d_y, np.float16, (16, 16)), alpha, a, b, beta, c, FLOAT16, FLOAT16, 16)
    acl.op.destroy_attr(attr)
    for d in descs + [y_desc]:
        acl.destroy_tensor_desc(d)

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.blas: the BLAS calls of acl/ops/acl_cblas.h as pyACL spells them (aclblasGemmEx ->
// acl.blas.gemm_ex), with pyACL's argument orders: the enums (aclTransType, aclDataType,
// aclComputeType) and the sizes are ints, the matrices, vectors, alpha, beta and the stream are
// addresses (ints; alpha and beta are device memory of C's / y's type). On a CPU device (device
// memory is host memory) the ranges the runtime reads and writes (m*k elements of A, ...) are
// checked to be mapped first, when m, n (and k) are positive and the types known; the C library
// answers everything else with its own code. Every call releases the GIL (the first call of a
// shape compiles its operator).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>

#include "acl/ops/acl_cblas.h"
#include "python/src/bindings.h"

namespace kiln::python {
namespace {

aclTransType Trans(int v) { return static_cast<aclTransType>(v); }
aclDataType Dtype(int v) { return static_cast<aclDataType>(v); }
aclComputeType Compute(int v) { return static_cast<aclComputeType>(v); }

// rows * cols elements of `dtype` in bytes; SIZE_MAX when it overflows (no mapping is that large,
// so the range check refuses it).
size_t Bytes(int rows, int cols, aclDataType dtype) {
  const size_t elem = aclDataTypeSize(dtype);
  size_t n = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(rows), static_cast<size_t>(cols), &n) ||
      __builtin_mul_overflow(n, elem, &n)) {
    return std::numeric_limits<size_t>::max();
  }
  return n;
}

// The operands of one GEMM: C = alpha * op(A) * op(B) + beta * C, A m x k, B k x n, C m x n.
struct GemmOperands {
  int m, n, k;
  uintptr_t alpha, a, b, beta, c;
  aclDataType type_a, type_b, type_c;
};

// On a CPU device: every operand's memory is mapped (NULL and sizes the C library refuses are
// left to it).
aclError CheckGemm(const char* api, const GemmOperands& g, const char* names[5]) {
  if (!DeviceMemoryIsHost() || g.m <= 0 || g.n <= 0 || g.k <= 0) return ACL_SUCCESS;
  const size_t scalar = aclDataTypeSize(g.type_c);
  const struct {
    uintptr_t p;
    size_t bytes;
  } ranges[] = {{g.alpha, scalar},
                {g.a, Bytes(g.m, g.k, g.type_a)},
                {g.b, Bytes(g.k, g.n, g.type_b)},
                {g.beta, scalar},
                {g.c, Bytes(g.m, g.n, g.type_c)}};
  for (int i = 0; i < 5; ++i) {
    if (aclError e = CheckMapped(api, names[i], ranges[i].p, ranges[i].bytes)) return e;
  }
  return ACL_SUCCESS;
}

const char* kGemmNames[5] = {"alpha", "a", "b", "beta", "c"};
// GEMV is GEMM with B = x (n x 1) and C = y (m x 1).
const char* kGemvNames[5] = {"alpha", "a", "x", "beta", "y"};

void RegisterGemm(py::module_& m) {
  m.def(
      "gemm_ex",
      [](int trans_a, int trans_b, int trans_c, int m, int n, int k, Ptr alpha, Ptr a, int lda,
         int type_a, Ptr b, int ldb, int type_b, Ptr beta, Ptr c, int ldc, int type_c,
         int compute_type, Ptr stream) {
        GemmOperands g{m, n, k, alpha, a, b, beta, c, Dtype(type_a), Dtype(type_b), Dtype(type_c)};
        if (aclError e = CheckGemm("acl.blas.gemm_ex", g, kGemmNames)) return e;
        ReleaseGil release;
        return aclblasGemmEx(Trans(trans_a), Trans(trans_b), Trans(trans_c), m, n, k,
                             FromPtr(alpha), FromPtr(a), lda, Dtype(type_a), FromPtr(b), ldb,
                             Dtype(type_b), FromPtr(beta), FromPtr(c), ldc, Dtype(type_c),
                             Compute(compute_type), FromPtr(stream));
      },
      py::arg("trans_a"), py::arg("trans_b"), py::arg("trans_c"), py::arg("m"), py::arg("n"),
      py::arg("k"), py::arg("alpha"), py::arg("a"), py::arg("lda"), py::arg("type_a"), py::arg("b"),
      py::arg("ldb"), py::arg("type_b"), py::arg("beta"), py::arg("c"), py::arg("ldc"),
      py::arg("type_c"), py::arg("compute_type"), py::arg("stream"), "aclblasGemmEx: ret");
  m.def(
      "hgemm",
      [](int trans_a, int trans_b, int trans_c, int m, int n, int k, Ptr alpha, Ptr a, int lda,
         Ptr b, int ldb, Ptr beta, Ptr c, int ldc, int compute_type, Ptr stream) {
        GemmOperands g{m, n, k, alpha, a, b, beta, c, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16};
        if (aclError e = CheckGemm("acl.blas.hgemm", g, kGemmNames)) return e;
        ReleaseGil release;
        return aclblasHgemm(Trans(trans_a), Trans(trans_b), Trans(trans_c), m, n, k,
                            FromPtr<const aclFloat16>(alpha), FromPtr<const aclFloat16>(a), lda,
                            FromPtr<const aclFloat16>(b), ldb, FromPtr<const aclFloat16>(beta),
                            FromPtr<aclFloat16>(c), ldc, Compute(compute_type), FromPtr(stream));
      },
      py::arg("trans_a"), py::arg("trans_b"), py::arg("trans_c"), py::arg("m"), py::arg("n"),
      py::arg("k"), py::arg("alpha"), py::arg("a"), py::arg("lda"), py::arg("b"), py::arg("ldb"),
      py::arg("beta"), py::arg("c"), py::arg("ldc"), py::arg("compute_type"), py::arg("stream"),
      "aclblasHgemm: ret");
  m.def(
      "s8gemm",
      [](int trans_a, int trans_b, int trans_c, int m, int n, int k, Ptr alpha, Ptr a, int lda,
         Ptr b, int ldb, Ptr beta, Ptr c, int ldc, int compute_type, Ptr stream) {
        GemmOperands g{m, n, k, alpha, a, b, beta, c, ACL_INT8, ACL_INT8, ACL_INT32};
        if (aclError e = CheckGemm("acl.blas.s8gemm", g, kGemmNames)) return e;
        ReleaseGil release;
        return aclblasS8gemm(Trans(trans_a), Trans(trans_b), Trans(trans_c), m, n, k,
                             FromPtr<const int32_t>(alpha), FromPtr<const int8_t>(a), lda,
                             FromPtr<const int8_t>(b), ldb, FromPtr<const int32_t>(beta),
                             FromPtr<int32_t>(c), ldc, Compute(compute_type), FromPtr(stream));
      },
      py::arg("trans_a"), py::arg("trans_b"), py::arg("trans_c"), py::arg("m"), py::arg("n"),
      py::arg("k"), py::arg("alpha"), py::arg("a"), py::arg("lda"), py::arg("b"), py::arg("ldb"),
      py::arg("beta"), py::arg("c"), py::arg("ldc"), py::arg("compute_type"), py::arg("stream"),
      "aclblasS8gemm: ret");

  m.def(
      "create_handle_for_gemm_ex",
      [](int trans_a, int trans_b, int trans_c, int m, int n, int k, int type_a, int type_b,
         int type_c, int compute_type) {
        aclopHandle* handle = nullptr;
        aclError ret;
        {
          ReleaseGil release;
          ret = aclblasCreateHandleForGemmEx(Trans(trans_a), Trans(trans_b), Trans(trans_c), m, n,
                                             k, Dtype(type_a), Dtype(type_b), Dtype(type_c),
                                             Compute(compute_type), &handle);
        }
        return std::make_tuple(ToPtr(handle), ret);
      },
      py::arg("trans_a"), py::arg("trans_b"), py::arg("trans_c"), py::arg("m"), py::arg("n"),
      py::arg("k"), py::arg("type_a"), py::arg("type_b"), py::arg("type_c"),
      py::arg("compute_type"), "aclblasCreateHandleForGemmEx: (handle, ret)");
  using GemmHandleFn = aclError (*)(aclTransType, aclTransType, aclTransType, int, int, int,
                                    aclComputeType, aclopHandle**);
  auto def_handle = [&m](const char* name, GemmHandleFn fn, const char* doc) {
    m.def(
        name,
        [fn](int trans_a, int trans_b, int trans_c, int m, int n, int k, int compute_type) {
          aclopHandle* handle = nullptr;
          aclError ret;
          {
            ReleaseGil release;
            ret = fn(Trans(trans_a), Trans(trans_b), Trans(trans_c), m, n, k, Compute(compute_type),
                     &handle);
          }
          return std::make_tuple(ToPtr(handle), ret);
        },
        py::arg("trans_a"), py::arg("trans_b"), py::arg("trans_c"), py::arg("m"), py::arg("n"),
        py::arg("k"), py::arg("compute_type"), doc);
  };
  def_handle("create_handle_for_hgemm", &aclblasCreateHandleForHgemm,
             "aclblasCreateHandleForHgemm: (handle, ret)");
  def_handle("create_handle_for_s8gemm", &aclblasCreateHandleForS8gemm,
             "aclblasCreateHandleForS8gemm: (handle, ret)");
}

void RegisterGemv(py::module_& m) {
  m.def(
      "gemv_ex",
      [](int trans_a, int m, int n, Ptr alpha, Ptr a, int lda, int type_a, Ptr x, int incx,
         int type_x, Ptr beta, Ptr y, int incy, int type_y, int compute_type, Ptr stream) {
        // A is m x n, x has n elements, y has m (GEMM with k = n and one column).
        GemmOperands g{m, 1, n, alpha, a, x, beta, y, Dtype(type_a), Dtype(type_x), Dtype(type_y)};
        if (aclError e = CheckGemm("acl.blas.gemv_ex", g, kGemvNames)) return e;
        ReleaseGil release;
        return aclblasGemvEx(Trans(trans_a), m, n, FromPtr(alpha), FromPtr(a), lda, Dtype(type_a),
                             FromPtr(x), incx, Dtype(type_x), FromPtr(beta), FromPtr(y), incy,
                             Dtype(type_y), Compute(compute_type), FromPtr(stream));
      },
      py::arg("trans_a"), py::arg("m"), py::arg("n"), py::arg("alpha"), py::arg("a"),
      py::arg("lda"), py::arg("type_a"), py::arg("x"), py::arg("incx"), py::arg("type_x"),
      py::arg("beta"), py::arg("y"), py::arg("incy"), py::arg("type_y"), py::arg("compute_type"),
      py::arg("stream"), "aclblasGemvEx: ret");
  m.def(
      "hgemv",
      [](int trans_a, int m, int n, Ptr alpha, Ptr a, int lda, Ptr x, int incx, Ptr beta, Ptr y,
         int incy, int compute_type, Ptr stream) {
        GemmOperands g{m, 1, n, alpha, a, x, beta, y, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16};
        if (aclError e = CheckGemm("acl.blas.hgemv", g, kGemvNames)) return e;
        ReleaseGil release;
        return aclblasHgemv(Trans(trans_a), m, n, FromPtr<const aclFloat16>(alpha),
                            FromPtr<const aclFloat16>(a), lda, FromPtr<const aclFloat16>(x), incx,
                            FromPtr<const aclFloat16>(beta), FromPtr<aclFloat16>(y), incy,
                            Compute(compute_type), FromPtr(stream));
      },
      py::arg("trans_a"), py::arg("m"), py::arg("n"), py::arg("alpha"), py::arg("a"),
      py::arg("lda"), py::arg("x"), py::arg("incx"), py::arg("beta"), py::arg("y"), py::arg("incy"),
      py::arg("compute_type"), py::arg("stream"), "aclblasHgemv: ret");
  m.def(
      "s8gemv",
      [](int trans_a, int m, int n, Ptr alpha, Ptr a, int lda, Ptr x, int incx, Ptr beta, Ptr y,
         int incy, int compute_type, Ptr stream) {
        GemmOperands g{m, 1, n, alpha, a, x, beta, y, ACL_INT8, ACL_INT8, ACL_INT32};
        if (aclError e = CheckGemm("acl.blas.s8gemv", g, kGemvNames)) return e;
        ReleaseGil release;
        return aclblasS8gemv(Trans(trans_a), m, n, FromPtr<const int32_t>(alpha),
                             FromPtr<const int8_t>(a), lda, FromPtr<const int8_t>(x), incx,
                             FromPtr<const int32_t>(beta), FromPtr<int32_t>(y), incy,
                             Compute(compute_type), FromPtr(stream));
      },
      py::arg("trans_a"), py::arg("m"), py::arg("n"), py::arg("alpha"), py::arg("a"),
      py::arg("lda"), py::arg("x"), py::arg("incx"), py::arg("beta"), py::arg("y"), py::arg("incy"),
      py::arg("compute_type"), py::arg("stream"), "aclblasS8gemv: ret");

  m.def(
      "create_handle_for_gemv_ex",
      [](int trans_a, int m, int n, int type_a, int type_x, int type_y, int compute_type) {
        aclopHandle* handle = nullptr;
        aclError ret;
        {
          ReleaseGil release;
          ret = aclblasCreateHandleForGemvEx(Trans(trans_a), m, n, Dtype(type_a), Dtype(type_x),
                                             Dtype(type_y), Compute(compute_type), &handle);
        }
        return std::make_tuple(ToPtr(handle), ret);
      },
      py::arg("trans_a"), py::arg("m"), py::arg("n"), py::arg("type_a"), py::arg("type_x"),
      py::arg("type_y"), py::arg("compute_type"), "aclblasCreateHandleForGemvEx: (handle, ret)");
  using GemvHandleFn = aclError (*)(aclTransType, int, int, aclComputeType, aclopHandle**);
  auto def_handle = [&m](const char* name, GemvHandleFn fn, const char* doc) {
    m.def(
        name,
        [fn](int trans_a, int m, int n, int compute_type) {
          aclopHandle* handle = nullptr;
          aclError ret;
          {
            ReleaseGil release;
            ret = fn(Trans(trans_a), m, n, Compute(compute_type), &handle);
          }
          return std::make_tuple(ToPtr(handle), ret);
        },
        py::arg("trans_a"), py::arg("m"), py::arg("n"), py::arg("compute_type"), doc);
  };
  def_handle("create_handle_for_hgemv", &aclblasCreateHandleForHgemv,
             "aclblasCreateHandleForHgemv: (handle, ret)");
  def_handle("create_handle_for_s8gemv", &aclblasCreateHandleForS8gemv,
             "aclblasCreateHandleForS8gemv: (handle, ret)");
}

}  // namespace

void RegisterBlas(py::module_& blas) {
  RegisterGemm(blas);
  RegisterGemv(blas);
}

}  // namespace kiln::python

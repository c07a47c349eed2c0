// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl_cblas.h: GEMM and GEMV as the single operator "GEMM" (a, b, c, alpha, beta → c, row-major,
// attributes transpose_a / transpose_b), as CANN runs them. A loaded GEMM model that matches is
// used; otherwise Kiln compiles one on first use and keeps it (CANN needs one from
// atc --singleop). docs/single-ops.md, "BLAS".
#include "acl/ops/acl_cblas.h"

#include "capi/error.h"
#include "capi/op_objects.h"
#include "runtime/runtime.h"

using kiln::Error;
using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::OpCall;
using kiln::capi::Report;
using kiln::capi::SingleOpRegistry;
namespace code = kiln::code;

namespace {

struct Gemm {
  aclTransType trans_a = ACL_TRANS_N, trans_b = ACL_TRANS_N, trans_c = ACL_TRANS_N;
  int m = 0, n = 0, k = 0;
  int lda = -1, ldb = -1, ldc = -1;
  aclDataType a = ACL_FLOAT, b = ACL_FLOAT, c = ACL_FLOAT;
  aclComputeType type = ACL_COMPUTE_HIGH_PRECISION;
};

bool Supported(aclDataType a, aclDataType b, aclDataType c) {
  if (a != b) return false;
  if (a == ACL_FLOAT16) return c == ACL_FLOAT16 || c == ACL_FLOAT;
  if (a == ACL_INT8) return c == ACL_FLOAT || c == ACL_INT32;
  return a == ACL_FLOAT && c == ACL_FLOAT;  // Kiln's addition to CANN's four
}

aclError CheckTrans(const char* api, const char* name, aclTransType t, bool c) {
  const int v = kiln::capi::EnumInt(t);
  if (v == ACL_TRANS_N || (!c && v == ACL_TRANS_T)) return ACL_SUCCESS;
  if (v == ACL_TRANS_NZ || v == ACL_TRANS_NZ_T) {
    return InvalidParam(api, name, " ", v,
                        " is Ascend's fractal NZ layout, which Kiln does not store: use "
                        "ACL_TRANS_N",
                        c ? "" : " or ACL_TRANS_T");
  }
  return InvalidParam(api, name, " ", v, " is not an aclTransType",
                      c ? " (transC: ACL_TRANS_N)" : "");
}

// The GEMM call for `g`: descs, attributes and (when given) buffers.
aclError GemmCall(const char* api, const Gemm& g, OpCall* call) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0) {
    return InvalidParam(api, "m, n and k must be positive (m ", g.m, ", n ", g.n, ", k ", g.k, ")");
  }
  if (aclError e = CheckTrans(api, "transA", g.trans_a, false); e != ACL_SUCCESS) return e;
  if (aclError e = CheckTrans(api, "transB", g.trans_b, false); e != ACL_SUCCESS) return e;
  if (aclError e = CheckTrans(api, "transC", g.trans_c, true); e != ACL_SUCCESS) return e;
  if (g.lda != -1 || g.ldb != -1 || g.ldc != -1) {
    return InvalidParam(api, "the leading dimensions are reserved and must be -1 (lda ", g.lda,
                        ", ldb ", g.ldb, ", ldc ", g.ldc, ")");
  }
  if (kiln::capi::EnumInt(g.type) != ACL_COMPUTE_HIGH_PRECISION) {
    return InvalidParam(api, "type must be ACL_COMPUTE_HIGH_PRECISION");
  }
  if (!Supported(g.a, g.b, g.c)) {
    return InvalidParam(api, "A, B, C types ", kiln::compiler::AclDataTypeName(g.a), ", ",
                        kiln::compiler::AclDataTypeName(g.b), ", ",
                        kiln::compiler::AclDataTypeName(g.c),
                        " are not supported (float16 × float16 → float16 or float, int8 × int8 → "
                        "int32 or float, float × float → float)");
  }
  const bool ta = kiln::capi::EnumInt(g.trans_a) == ACL_TRANS_T;
  const bool tb = kiln::capi::EnumInt(g.trans_b) == ACL_TRANS_T;
  auto tensor = [](aclDataType t, std::vector<int64_t> dims) {
    kiln::compiler::OpTensorDesc d;
    d.dtype = t;
    d.format = ACL_FORMAT_ND;
    d.dims = std::move(dims);
    return d;
  };
  auto& d = call->desc;
  d.op_type = "GEMM";
  d.inputs = {tensor(g.a, ta ? std::vector<int64_t>{g.k, g.m} : std::vector<int64_t>{g.m, g.k}),
              tensor(g.b, tb ? std::vector<int64_t>{g.n, g.k} : std::vector<int64_t>{g.k, g.n}),
              tensor(g.c, {g.m, g.n}), tensor(g.c, {}), tensor(g.c, {})};
  d.outputs = {tensor(g.c, {g.m, g.n})};
  kiln::compiler::OpAttr t;
  t.kind = kiln::compiler::OpAttr::Kind::kBool;
  t.ints = {ta};
  d.attrs["transpose_a"] = t;
  t.ints = {tb};
  d.attrs["transpose_b"] = t;
  call->host_inputs.assign(d.inputs.size(), false);
  return ACL_SUCCESS;
}

size_t Bytes(const kiln::compiler::OpTensorDesc& t) {
  size_t n = kiln::compiler::AclDataTypeSize(t.dtype);
  for (int64_t d : t.dims) n *= static_cast<size_t>(d);
  return n;
}

aclError RunGemm(const char* api, const Gemm& g, const void* alpha, const void* a, const void* b,
                 const void* beta, void* c, aclrtStream stream) {
  if (Status st = kiln::runtime::Runtime::Get().CheckInitialized(api); !st.ok()) {
    return Report(api, st);
  }
  OpCall call;
  if (aclError e = GemmCall(api, g, &call); e != ACL_SUCCESS) return e;
  const void* ptrs[] = {a, b, c, alpha, beta};
  const char* names[] = {"A", "B", "C", "alpha", "beta"};
  for (size_t i = 0; i < 5; ++i) {
    if (ptrs[i] == nullptr) return InvalidParam(api, names[i], " is NULL");
    kiln::runtime::IoBuffer io;
    io.data = const_cast<void*>(ptrs[i]);
    io.size = Bytes(call.desc.inputs[i]);
    io.has_dims = true;
    io.dims = call.desc.inputs[i].dims;
    call.inputs.push_back(io);
  }
  kiln::runtime::IoBuffer out = call.inputs[2];  // C is written in place
  call.outputs = {out};
  auto entry = SingleOpRegistry::Get().FindOrCompile(call.desc);
  if (!entry.ok()) return Report(api, entry.status());
  return kiln::capi::LaunchOp(api, *entry, call, stream, nullptr);
}

aclError GemmHandle(const char* api, const Gemm& g, aclopHandle** handle) {
  if (Status st = kiln::runtime::Runtime::Get().CheckInitialized(api); !st.ok()) {
    return Report(api, st);
  }
  if (handle == nullptr) return InvalidParam(api, "handle is NULL");
  OpCall call;
  if (aclError e = GemmCall(api, g, &call); e != ACL_SUCCESS) return e;
  auto entry = SingleOpRegistry::Get().FindOrCompile(call.desc);
  if (!entry.ok()) return Report(api, entry.status());
  return kiln::capi::CreateOpHandle(api, std::move(call), handle);
}

// GEMV as CANN defines it: GEMM with n = 1 (A is m × n, or n × m stored for ACL_TRANS_T; x has
// n elements, y has m).
Gemm Gemv(aclTransType transA, int m, int n, int incx, int incy, int lda, aclDataType a,
          aclDataType x, aclDataType y, aclComputeType type) {
  Gemm g;
  g.trans_a = transA;
  g.m = m;
  g.n = 1;
  g.k = n;
  g.lda = lda;
  g.ldb = incx;
  g.ldc = incy;
  g.a = a;
  g.b = x;
  g.c = y;
  g.type = type;
  return g;
}

Gemm GemmOf(aclTransType ta, aclTransType tb, aclTransType tc, int m, int n, int k, int lda,
            int ldb, int ldc, aclDataType a, aclDataType b, aclDataType c, aclComputeType type) {
  Gemm g;
  g.trans_a = ta;
  g.trans_b = tb;
  g.trans_c = tc;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = lda;
  g.ldb = ldb;
  g.ldc = ldc;
  g.a = a;
  g.b = b;
  g.c = c;
  g.type = type;
  return g;
}

}  // namespace

extern "C" {

aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                       int k, const void* alpha, const void* matrixA, int lda,
                       aclDataType dataTypeA, const void* matrixB, int ldb, aclDataType dataTypeB,
                       const void* beta, void* matrixC, int ldc, aclDataType dataTypeC,
                       aclComputeType type, aclrtStream stream) {
  KILN_CAPI("aclblasGemmEx", {
    return RunGemm("aclblasGemmEx",
                   GemmOf(transA, transB, transC, m, n, k, lda, ldb, ldc, dataTypeA, dataTypeB,
                          dataTypeC, type),
                   alpha, matrixA, matrixB, beta, matrixC, stream);
  });
}

aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB, aclTransType transC,
                                      int m, int n, int k, aclDataType dataTypeA,
                                      aclDataType dataTypeB, aclDataType dataTypeC,
                                      aclComputeType type, aclopHandle** handle) {
  KILN_CAPI("aclblasCreateHandleForGemmEx", {
    return GemmHandle(
        "aclblasCreateHandleForGemmEx",
        GemmOf(transA, transB, transC, m, n, k, -1, -1, -1, dataTypeA, dataTypeB, dataTypeC, type),
        handle);
  });
}

aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                      int k, const aclFloat16* alpha, const aclFloat16* matrixA, int lda,
                      const aclFloat16* matrixB, int ldb, const aclFloat16* beta,
                      aclFloat16* matrixC, int ldc, aclComputeType type, aclrtStream stream) {
  KILN_CAPI("aclblasHgemm", {
    return RunGemm("aclblasHgemm",
                   GemmOf(transA, transB, transC, m, n, k, lda, ldb, ldc, ACL_FLOAT16, ACL_FLOAT16,
                          ACL_FLOAT16, type),
                   alpha, matrixA, matrixB, beta, matrixC, stream);
  });
}

aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB, aclTransType transC,
                                     int m, int n, int k, aclComputeType type,
                                     aclopHandle** handle) {
  KILN_CAPI("aclblasCreateHandleForHgemm", {
    return GemmHandle("aclblasCreateHandleForHgemm",
                      GemmOf(transA, transB, transC, m, n, k, -1, -1, -1, ACL_FLOAT16, ACL_FLOAT16,
                             ACL_FLOAT16, type),
                      handle);
  });
}

aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                       int k, const int32_t* alpha, const int8_t* matrixA, int lda,
                       const int8_t* matrixB, int ldb, const int32_t* beta, int32_t* matrixC,
                       int ldc, aclComputeType type, aclrtStream stream) {
  KILN_CAPI("aclblasS8gemm", {
    return RunGemm(
        "aclblasS8gemm",
        GemmOf(transA, transB, transC, m, n, k, lda, ldb, ldc, ACL_INT8, ACL_INT8, ACL_INT32, type),
        alpha, matrixA, matrixB, beta, matrixC, stream);
  });
}

aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB, aclTransType transC,
                                      int m, int n, int k, aclComputeType type,
                                      aclopHandle** handle) {
  KILN_CAPI("aclblasCreateHandleForS8gemm", {
    return GemmHandle(
        "aclblasCreateHandleForS8gemm",
        GemmOf(transA, transB, transC, m, n, k, -1, -1, -1, ACL_INT8, ACL_INT8, ACL_INT32, type),
        handle);
  });
}

aclError aclblasGemvEx(aclTransType transA, int m, int n, const void* alpha, const void* a, int lda,
                       aclDataType dataTypeA, const void* x, int incx, aclDataType dataTypeX,
                       const void* beta, void* y, int incy, aclDataType dataTypeY,
                       aclComputeType type, aclrtStream stream) {
  KILN_CAPI("aclblasGemvEx", {
    return RunGemm("aclblasGemvEx",
                   Gemv(transA, m, n, incx, incy, lda, dataTypeA, dataTypeX, dataTypeY, type),
                   alpha, a, x, beta, y, stream);
  });
}

aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA,
                                      aclDataType dataTypeX, aclDataType dataTypeY,
                                      aclComputeType type, aclopHandle** handle) {
  KILN_CAPI("aclblasCreateHandleForGemvEx", {
    return GemmHandle("aclblasCreateHandleForGemvEx",
                      Gemv(transA, m, n, -1, -1, -1, dataTypeA, dataTypeX, dataTypeY, type),
                      handle);
  });
}

aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16* alpha,
                      const aclFloat16* a, int lda, const aclFloat16* x, int incx,
                      const aclFloat16* beta, aclFloat16* y, int incy, aclComputeType type,
                      aclrtStream stream) {
  KILN_CAPI("aclblasHgemv", {
    return RunGemm("aclblasHgemv",
                   Gemv(transA, m, n, incx, incy, lda, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, type),
                   alpha, a, x, beta, y, stream);
  });
}

aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type,
                                     aclopHandle** handle) {
  KILN_CAPI("aclblasCreateHandleForHgemv", {
    return GemmHandle("aclblasCreateHandleForHgemv",
                      Gemv(transA, m, n, -1, -1, -1, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, type),
                      handle);
  });
}

aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t* alpha, const int8_t* a,
                       int lda, const int8_t* x, int incx, const int32_t* beta, int32_t* y,
                       int incy, aclComputeType type, aclrtStream stream) {
  KILN_CAPI("aclblasS8gemv", {
    return RunGemm("aclblasS8gemv",
                   Gemv(transA, m, n, incx, incy, lda, ACL_INT8, ACL_INT8, ACL_INT32, type), alpha,
                   a, x, beta, y, stream);
  });
}

aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type,
                                      aclopHandle** handle) {
  KILN_CAPI("aclblasCreateHandleForS8gemv", {
    return GemmHandle("aclblasCreateHandleForS8gemv",
                      Gemv(transA, m, n, -1, -1, -1, ACL_INT8, ACL_INT8, ACL_INT32, type), handle);
  });
}

}  // extern "C"

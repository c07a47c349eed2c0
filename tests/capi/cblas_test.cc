// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl_cblas.h linked as CANN programs link it (-lacl_cblas -lascendcl): GEMM and GEMV against
// plain loops in double precision, on odd sizes, both transposes and every supported type pair.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_cblas.h"

namespace {

std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg ? msg : "";
}

// Device memory holding `bytes` copied from the host.
struct Dev {
  void* p = nullptr;
  size_t n = 0;
  Dev(const void* host, size_t bytes) : n(bytes) {
    EXPECT_EQ(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  ~Dev() { aclrtFree(p); }
  template <typename T>
  std::vector<T> Get() const {
    std::vector<T> v(n / sizeof(T));
    EXPECT_EQ(aclrtMemcpy(v.data(), n, p, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return v;
  }
};

class CblasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    aclrtDestroyStream(stream_);
    aclrtResetDevice(0);
    aclFinalize();
  }
  aclrtStream stream_ = nullptr;
};

// alpha·op(A)·op(B) + beta·C in double, row-major; A is m×k (k×m stored when ta), B k×n (n×k).
std::vector<double> Reference(int m, int n, int k, bool ta, bool tb, const std::vector<double>& a,
                              const std::vector<double>& b, const std::vector<double>& c,
                              double alpha, double beta) {
  std::vector<double> y(static_cast<size_t>(m * n));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) {
        const double av =
            ta ? a[static_cast<size_t>(p * m + i)] : a[static_cast<size_t>(i * k + p)];
        const double bv =
            tb ? b[static_cast<size_t>(j * k + p)] : b[static_cast<size_t>(p * n + j)];
        s += av * bv;
      }
      y[static_cast<size_t>(i * n + j)] = alpha * s + beta * c[static_cast<size_t>(i * n + j)];
    }
  }
  return y;
}

std::vector<double> Randoms(size_t n, int lo, int hi, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng) / 4.0;  // quarters: exact in float16 for small values
  return v;
}

TEST_F(CblasTest, GemmExFloat32MatchesLoopsOnOddSizesAndBothTransposes) {
  std::mt19937 rng(7);
  for (auto [m, n, k] : {std::tuple{7, 13, 5}, std::tuple{1, 1, 1}, std::tuple{33, 2, 17}}) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      auto a = Randoms(static_cast<size_t>(m * k), -8, 8, rng);
      auto b = Randoms(static_cast<size_t>(k * n), -8, 8, rng);
      auto c = Randoms(static_cast<size_t>(m * n), -8, 8, rng);
      std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), cf(c.begin(), c.end());
      const float alpha = 1.5f, beta = -0.5f;
      Dev da(af.data(), af.size() * 4), db(bf.data(), bf.size() * 4), dc(cf.data(), cf.size() * 4);
      Dev dal(&alpha, 4), dbe(&beta, 4);
      ASSERT_EQ(aclblasGemmEx(ta ? ACL_TRANS_T : ACL_TRANS_N, tb ? ACL_TRANS_T : ACL_TRANS_N,
                              ACL_TRANS_N, m, n, k, dal.p, da.p, -1, ACL_FLOAT, db.p, -1, ACL_FLOAT,
                              dbe.p, dc.p, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, stream_),
                ACL_SUCCESS)
          << RecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
      auto want = Reference(m, n, k, ta, tb, a, b, c, alpha, beta);
      auto got = dc.Get<float>();
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
            << m << "x" << n << "x" << k << " t" << t << " @" << i;
      }
    }
  }
}

TEST_F(CblasTest, HgemmAndFloat16IntoFloat32AccumulateInFloat32) {
  std::mt19937 rng(11);
  const int m = 9, n = 6, k = 31;
  auto a = Randoms(m * k, -6, 6, rng), b = Randoms(k * n, -6, 6, rng),
       c = Randoms(m * n, -6, 6, rng);
  auto half = [](const std::vector<double>& v) {
    std::vector<aclFloat16> h;
    for (double x : v) h.push_back(aclFloatToFloat16(static_cast<float>(x)));
    return h;
  };
  auto ah = half(a), bh = half(b), ch = half(c);
  const aclFloat16 alpha = aclFloatToFloat16(0.5f), beta = aclFloatToFloat16(2.0f);
  Dev da(ah.data(), ah.size() * 2), db(bh.data(), bh.size() * 2), dc(ch.data(), ch.size() * 2);
  Dev dal(&alpha, 2), dbe(&beta, 2);
  ASSERT_EQ(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, m, n, k,
                         static_cast<const aclFloat16*>(dal.p), static_cast<aclFloat16*>(da.p), -1,
                         static_cast<aclFloat16*>(db.p), -1, static_cast<const aclFloat16*>(dbe.p),
                         static_cast<aclFloat16*>(dc.p), -1, ACL_COMPUTE_HIGH_PRECISION, stream_),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  auto want = Reference(m, n, k, false, true, a, b, c, 0.5, 2.0);
  auto got = dc.Get<aclFloat16>();
  for (size_t i = 0; i < want.size(); ++i) {
    // One float16 rounding of the float32 result.
    EXPECT_NEAR(aclFloat16ToFloat(got[i]), want[i], 1e-3 * std::fabs(want[i]) + 1e-3) << i;
  }
  // float16 inputs into a float32 C: no rounding to float16 at all.
  std::vector<float> cf(c.begin(), c.end());
  const float alpha32 = 0.5f, beta32 = 2.0f;
  Dev dcf(cf.data(), cf.size() * 4), dal32(&alpha32, 4), dbe32(&beta32, 4);
  ASSERT_EQ(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, m, n, k, dal32.p, da.p, -1,
                          ACL_FLOAT16, db.p, -1, ACL_FLOAT16, dbe32.p, dcf.p, -1, ACL_FLOAT,
                          ACL_COMPUTE_HIGH_PRECISION, stream_),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  auto got32 = dcf.Get<float>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got32[i], want[i], 1e-4) << i;
}

TEST_F(CblasTest, Int8GemmIsExactInInt32AndFloat) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-128, 127);
  const int m = 5, n = 11, k = 67;
  std::vector<int8_t> a(m * k), b(k * n);
  for (auto& v : a) v = static_cast<int8_t>(d(rng));
  for (auto& v : b) v = static_cast<int8_t>(d(rng));
  std::vector<int32_t> c(m * n);
  for (auto& v : c) v = d(rng) * 100;
  const int32_t alpha = 3, beta = -2;
  Dev da(a.data(), a.size()), db(b.data(), b.size()), dc(c.data(), c.size() * 4);
  Dev dal(&alpha, 4), dbe(&beta, 4);
  ASSERT_EQ(aclblasS8gemm(ACL_TRANS_T, ACL_TRANS_N, ACL_TRANS_N, m, n, k,
                          static_cast<const int32_t*>(dal.p), static_cast<const int8_t*>(da.p), -1,
                          static_cast<const int8_t*>(db.p), -1, static_cast<const int32_t*>(dbe.p),
                          static_cast<int32_t*>(dc.p), -1, ACL_COMPUTE_HIGH_PRECISION, stream_),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end()), cd(c.begin(), c.end());
  auto want = Reference(m, n, k, true, false, ad, bd, cd, alpha, beta);
  auto got = dc.Get<int32_t>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], static_cast<int32_t>(want[i])) << i;
  // int8 into float32.
  std::vector<float> cf(c.begin(), c.end());
  const float alphaf = 0.25f, betaf = 1.0f;
  Dev dcf(cf.data(), cf.size() * 4), dalf(&alphaf, 4), dbef(&betaf, 4);
  ASSERT_EQ(aclblasGemmEx(ACL_TRANS_T, ACL_TRANS_N, ACL_TRANS_N, m, n, k, dalf.p, da.p, -1,
                          ACL_INT8, db.p, -1, ACL_INT8, dbef.p, dcf.p, -1, ACL_FLOAT,
                          ACL_COMPUTE_HIGH_PRECISION, stream_),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  auto wantf = Reference(m, n, k, true, false, ad, bd, cd, 0.25, 1.0);
  auto gotf = dcf.Get<float>();
  for (size_t i = 0; i < wantf.size(); ++i) EXPECT_NEAR(gotf[i], wantf[i], 1e-3) << i;
}

TEST_F(CblasTest, GemvIsGemmWithOneColumnAndHandlesRunThroughExecWithHandle) {
  const int m = 3, n = 4;
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, x = {1, -1, 2, 0.5f},
                     y = {1, 1, 1};
  const float alpha = 2, beta = 10;
  Dev da(a.data(), 48), dx(x.data(), 16), dy(y.data(), 12), dal(&alpha, 4), dbe(&beta, 4);
  ASSERT_EQ(aclblasGemvEx(ACL_TRANS_N, m, n, dal.p, da.p, -1, ACL_FLOAT, dx.p, -1, ACL_FLOAT, dbe.p,
                          dy.p, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, stream_),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  // Rows · x: 1-2+6+2 = 7, 5-6+14+4 = 17, 9-10+22+6 = 27; 2·r + 10.
  EXPECT_EQ(dy.Get<float>(), (std::vector<float>{24, 44, 64}));

  aclopHandle* h = nullptr;
  ASSERT_EQ(aclblasCreateHandleForGemvEx(ACL_TRANS_N, m, n, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT,
                                         ACL_COMPUTE_HIGH_PRECISION, &h),
            ACL_SUCCESS)
      << RecentErrMsg();
  aclDataBuffer* ba = aclCreateDataBuffer(da.p, 48);
  aclDataBuffer* bx = aclCreateDataBuffer(dx.p, 16);
  aclDataBuffer* by = aclCreateDataBuffer(dy.p, 12);
  aclDataBuffer* bal = aclCreateDataBuffer(dal.p, 4);
  aclDataBuffer* bbe = aclCreateDataBuffer(dbe.p, 4);
  const aclDataBuffer* ins[] = {ba, bx, by, bal, bbe};
  aclDataBuffer* outs[] = {by};
  ASSERT_EQ(aclopExecWithHandle(h, 5, ins, 1, outs, stream_), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(dy.Get<float>(), (std::vector<float>{24 * 10 + 14, 44 * 10 + 34, 64 * 10 + 54}));
  aclopDestroyHandle(h);
  for (auto* b : {ba, bx, by, bal, bbe}) aclDestroyDataBuffer(b);
}

TEST_F(CblasTest, BadArgumentsAreRefusedAndTheStreamGoesOn) {
  float v = 1;
  Dev d(&v, 4);
  auto gemm = [&](aclTransType ta, int m, int lda, aclDataType tc, aclComputeType ct,
                  const void* alpha) {
    return aclblasGemmEx(ta, ACL_TRANS_N, ACL_TRANS_N, m, 1, 1, alpha, d.p, lda, ACL_FLOAT, d.p, -1,
                         ACL_FLOAT, d.p, d.p, -1, tc, ct, stream_);
  };
  EXPECT_EQ(gemm(ACL_TRANS_N, 0, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, d.p),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(gemm(ACL_TRANS_N, 1, 1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, d.p),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("must be -1"), std::string::npos);
  EXPECT_EQ(gemm(ACL_TRANS_NZ, 1, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, d.p),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("fractal NZ"), std::string::npos);
  EXPECT_EQ(gemm(ACL_TRANS_N, 1, -1, ACL_INT32, ACL_COMPUTE_HIGH_PRECISION, d.p),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(gemm(ACL_TRANS_N, 1, -1, ACL_FLOAT, ACL_COMPUTE_LOW_PRECISION, d.p),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(gemm(ACL_TRANS_N, 1, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, nullptr),
            ACL_ERROR_INVALID_PARAM);
  // 1·1·1 + 1·1 = 2.
  ASSERT_EQ(gemm(ACL_TRANS_N, 1, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, d.p), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(d.Get<float>()[0], 2.0f);
}

}  // namespace

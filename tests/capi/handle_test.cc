// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Handles are ids that are never reused (docs/capi.md, "Handles"): a handle kept after its object
// was destroyed is refused with the documented code, and never names a newer object of its type,
// not even one the allocator placed at the address the old one had.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"

namespace {

class HandleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
  }
};

// One handle type: how to make one, end it, and make a call on it that succeeds on a live
// handle and returns `stale_code` on a stale one.
struct Kind {
  std::function<void*()> create;
  std::function<aclError(void*)> destroy;
  std::function<aclError(void*)> use;
  aclError stale_code;
};

// Creates and destroys one object, then creates `kNew` more (held live, as a program that
// allocates after a destroy would): none gets the stale handle's value, the stale handle is
// refused, and each new one still works.
void ExpectNeverReused(const Kind& kind) {
  constexpr int kNew = 32;
  void* stale = kind.create();
  ASSERT_NE(stale, nullptr);
  ASSERT_EQ(kind.destroy(stale), ACL_SUCCESS);
  std::vector<void*> fresh;
  std::set<void*> seen{stale};
  for (int i = 0; i < kNew; ++i) {
    void* h = kind.create();
    ASSERT_NE(h, nullptr);
    EXPECT_TRUE(seen.insert(h).second) << "handle " << h << " was handed out before";
    fresh.push_back(h);
  }
  EXPECT_EQ(kind.use(stale), kind.stale_code);
  const char* msg = aclGetRecentErrMsg();
  EXPECT_TRUE(msg != nullptr && std::string(msg).find("live") != std::string::npos)
      << (msg ? msg : "(no message)");
  EXPECT_EQ(kind.destroy(stale), kind.stale_code) << "a second destroy of one handle";
  for (void* h : fresh) {
    EXPECT_EQ(kind.use(h), ACL_SUCCESS) << "the new handle " << h << " was disturbed";
    EXPECT_EQ(kind.destroy(h), ACL_SUCCESS);
  }
}

TEST_F(HandleTest, DataBuffersAreNeverReused) {
  static char bytes[64];
  ExpectNeverReused(
      {[] { return static_cast<void*>(aclCreateDataBuffer(bytes, sizeof bytes)); },
       [](void* h) { return aclDestroyDataBuffer(static_cast<aclDataBuffer*>(h)); },
       [](void* h) { return aclUpdateDataBuffer(static_cast<aclDataBuffer*>(h), bytes, 8); },
       ACL_ERROR_INVALID_PARAM});
}

TEST_F(HandleTest, AStaleDataBufferDoesNotChangeTheOneNowAtItsAddress) {
  static char a[16], b[32];
  aclDataBuffer* stale = aclCreateDataBuffer(a, sizeof a);
  ASSERT_EQ(aclDestroyDataBuffer(stale), ACL_SUCCESS);
  aclDataBuffer* live = aclCreateDataBuffer(b, sizeof b);
  EXPECT_EQ(aclUpdateDataBuffer(stale, a, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetDataBufferAddr(live), b);
  EXPECT_EQ(aclGetDataBufferSizeV2(live), sizeof b);
  EXPECT_EQ(aclGetDataBufferAddr(stale), nullptr);
  EXPECT_EQ(aclDestroyDataBuffer(live), ACL_SUCCESS);
}

TEST_F(HandleTest, TensorDescsAreNeverReused) {
  const int64_t dims[] = {1, 3};
  ExpectNeverReused(
      {[&] { return static_cast<void*>(aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND)); },
       [](void* h) {
         // aclDestroyTensorDesc returns nothing: a stale destroy shows as a recorded error.
         (void)aclGetRecentErrMsg();
         aclDestroyTensorDesc(static_cast<aclTensorDesc*>(h));
         const char* msg = aclGetRecentErrMsg();
         return msg != nullptr && *msg != '\0' ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
       },
       [](void* h) { return aclSetTensorFormat(static_cast<aclTensorDesc*>(h), ACL_FORMAT_NCHW); },
       ACL_ERROR_INVALID_PARAM});
}

TEST_F(HandleTest, DatasetsAreNeverReused) {
  static char bytes[8];
  aclDataBuffer* buffer = aclCreateDataBuffer(bytes, sizeof bytes);
  ExpectNeverReused(
      {[] { return static_cast<void*>(aclmdlCreateDataset()); },
       [](void* h) { return aclmdlDestroyDataset(static_cast<aclmdlDataset*>(h)); },
       [buffer](void* h) { return aclmdlAddDatasetBuffer(static_cast<aclmdlDataset*>(h), buffer); },
       ACL_ERROR_INVALID_PARAM});
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
}

TEST_F(HandleTest, ModelDescsAreNeverReused) {
  // An empty desc is live but unfilled: aclmdlGetNumInputs records "empty", a stale one "not live".
  ExpectNeverReused({[] { return static_cast<void*>(aclmdlCreateDesc()); },
                     [](void* h) { return aclmdlDestroyDesc(static_cast<aclmdlDesc*>(h)); },
                     [](void* h) {
                       // No model is loaded: a live desc gets 100011 from the model lookup.
                       const aclError e = aclmdlGetDesc(static_cast<aclmdlDesc*>(h), 12345);
                       return e == ACL_ERROR_INVALID_MODEL_ID ? ACL_SUCCESS : e;
                     },
                     ACL_ERROR_INVALID_PARAM});
}

TEST_F(HandleTest, StreamsAreNeverReused) {
  ExpectNeverReused({[] {
                       aclrtStream s = nullptr;
                       return aclrtCreateStream(&s) == ACL_SUCCESS ? s : nullptr;
                     },
                     [](void* h) { return aclrtDestroyStream(h); },
                     [](void* h) { return aclrtSynchronizeStream(h); },
                     ACL_ERROR_RT_INVALID_HANDLE});
}

TEST_F(HandleTest, EventsAreNeverReused) {
  ExpectNeverReused({[] {
                       aclrtEvent e = nullptr;
                       return aclrtCreateEvent(&e) == ACL_SUCCESS ? e : nullptr;
                     },
                     [](void* h) { return aclrtDestroyEvent(h); },
                     [](void* h) { return aclrtRecordEvent(h, nullptr); },
                     ACL_ERROR_RT_INVALID_HANDLE});
}

TEST_F(HandleTest, ContextsAreNeverReused) {
  ExpectNeverReused({[] {
                       aclrtContext c = nullptr;
                       return aclrtCreateContext(&c, 0) == ACL_SUCCESS ? c : nullptr;
                     },
                     [](void* h) { return aclrtDestroyContext(h); },
                     [](void* h) { return aclrtSetCurrentContext(h); },
                     ACL_ERROR_RT_INVALID_HANDLE});
}

TEST_F(HandleTest, ProfilingStampsAreNeverReused) {
  ExpectNeverReused(
      {[] { return aclprofCreateStamp(); },
       [](void* h) {
         (void)aclGetRecentErrMsg();
         aclprofDestroyStamp(h);
         const char* msg = aclGetRecentErrMsg();
         return msg != nullptr && *msg != '\0' ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
       },
       [](void* h) { return aclprofSetStampTraceMessage(h, "m", 1); }, ACL_ERROR_INVALID_PARAM});
}

// A handle is never an address of the process: given where memory is expected, it is refused.
TEST_F(HandleTest, AHandleIsNotMemory) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  char host[16] = {0};
  EXPECT_NE(aclrtMemcpy(stream, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

}  // namespace

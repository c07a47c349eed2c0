/*
 * An AscendCL application written only from the AscendCL documentation (device, context,
 * stream, event, memory, callback and data-buffer APIs and their documented error codes).
 * Exits non-zero at the first behaviour that differs from the documentation.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

static int g_failures = 0;

#define EXPECT_RET(call, expected)                                                           \
  do {                                                                                       \
    aclError r_ = (call);                                                                    \
    if (r_ != (expected)) {                                                                  \
      const char* m_ = aclGetRecentErrMsg();                                                 \
      fprintf(stderr, "line %d: %s returned %d, documented %d\n  %s\n", __LINE__, #call, r_, \
              (int)(expected), m_ ? m_ : "");                                                \
      ++g_failures;                                                                          \
    }                                                                                        \
  } while (0)

static volatile int g_stop = 0;
static int g_callback_value = 0;
static pthread_t g_callback_thread_seen;

static void* ReportThread(void* arg) {
  (void)arg;
  while (!g_stop) (void)aclrtProcessReport(20);
  return NULL;
}

static void Callback(void* user_data) {
  g_callback_value = *(int*)user_data;
  g_callback_thread_seen = pthread_self();
}

int main(void) {
  /* Init: NULL config; a second init is reported as repeated. */
  EXPECT_RET(aclInit(NULL), ACL_SUCCESS);
  EXPECT_RET(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);

  /* Devices. */
  uint32_t count = 0;
  EXPECT_RET(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  if (count < 1) ++g_failures;
  EXPECT_RET(aclrtSetDevice((int32_t)count), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_RET(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtRunMode mode;
  EXPECT_RET(aclrtGetRunMode(&mode), ACL_SUCCESS);
  if (mode != ACL_HOST) ++g_failures;

  /* Context: an explicit one becomes current. */
  aclrtContext ctx = NULL, current = NULL;
  EXPECT_RET(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  EXPECT_RET(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  if (current != ctx) ++g_failures;

  /* Stream and memory. */
  aclrtStream stream = NULL;
  EXPECT_RET(aclrtCreateStream(&stream), ACL_SUCCESS);
  void* dev = NULL;
  EXPECT_RET(aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_RET(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_RET(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  if (((size_t)dev) % 64 != 0) ++g_failures;
  void* host = NULL;
  EXPECT_RET(aclrtMallocHost(&host, 4096), ACL_SUCCESS);
  memset(host, 0x5A, 4096);
  EXPECT_RET(aclrtMemcpy(dev, 4096, host, 8192, ACL_MEMCPY_HOST_TO_DEVICE),
             ACL_ERROR_INVALID_PARAM);
  EXPECT_RET(aclrtMemsetAsync(dev, 4096, 0, 4096, stream), ACL_SUCCESS);
  EXPECT_RET(aclrtMemcpyAsync(dev, 4096, host, 2048, ACL_MEMCPY_HOST_TO_DEVICE, stream),
             ACL_SUCCESS);

  /* Event: record after the copies, wait, time. */
  aclrtEvent start = NULL, end = NULL;
  EXPECT_RET(aclrtCreateEvent(&start), ACL_SUCCESS);
  EXPECT_RET(aclrtCreateEvent(&end), ACL_SUCCESS);
  EXPECT_RET(aclrtRecordEvent(end, stream), ACL_SUCCESS);
  EXPECT_RET(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  aclrtEventRecordedStatus status;
  EXPECT_RET(aclrtQueryEventStatus(end, &status), ACL_SUCCESS);
  if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE) ++g_failures;

  /* Callback: a subscribed thread runs it; an unsubscribed stream refuses callbacks. */
  aclrtStream other = NULL;
  EXPECT_RET(aclrtCreateStream(&other), ACL_SUCCESS);
  int value = 42;
  EXPECT_RET(aclrtLaunchCallback(Callback, &value, ACL_CALLBACK_BLOCK, other),
             ACL_ERROR_RT_STREAM_NO_CB_REG);
  EXPECT_RET(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
  pthread_t tid;
  pthread_create(&tid, NULL, ReportThread, NULL);
  EXPECT_RET(aclrtSubscribeReport((uint64_t)tid, stream), ACL_SUCCESS);
  EXPECT_RET(aclrtSubscribeReport((uint64_t)tid, stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
  EXPECT_RET(aclrtLaunchCallback(Callback, &value, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  EXPECT_RET(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  if (g_callback_value != 42 || !pthread_equal(g_callback_thread_seen, tid)) ++g_failures;
  EXPECT_RET(aclrtUnSubscribeReport((uint64_t)tid, stream), ACL_SUCCESS);
  g_stop = 1;
  pthread_join(tid, NULL);

  /* The data made the round trip. */
  unsigned char back[4096];
  EXPECT_RET(aclrtMemcpy(back, sizeof back, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  if (back[0] != 0x5A || back[2047] != 0x5A || back[2048] != 0 || back[4095] != 0) ++g_failures;

  /* Data buffers wrap memory they do not own. */
  aclDataBuffer* buffer = aclCreateDataBuffer(dev, 4096);
  if (buffer == NULL || aclGetDataBufferAddr(buffer) != dev ||
      aclGetDataBufferSizeV2(buffer) != 4096)
    ++g_failures;
  EXPECT_RET(aclDestroyDataBuffer(buffer), ACL_SUCCESS);

  /* Tear down in the documented order; the leaked `other` stream is reclaimed by the reset. */
  EXPECT_RET(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_RET(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_RET(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_RET(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_RET(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_RET(aclrtDestroyContext(ctx), ACL_SUCCESS);
  EXPECT_RET(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_RET(aclFinalize(), ACL_SUCCESS);
  EXPECT_RET(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);

  printf("acl_sample: %s (%d failure(s))\n", g_failures ? "FAILED" : "OK", g_failures);
  return g_failures ? 1 : 0;
}

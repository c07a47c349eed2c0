/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A short AscendCL runtime demo, written only against the public C API: device, context,
 * stream, event, memory and callback APIs. It pushes a batch of image-sized frames through
 * device memory asynchronously, times them with events, checks the data came back intact,
 * and reports through a subscribed callback thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                                      \
  do {                                                                                   \
    aclError err_ = (call);                                                              \
    if (err_ != ACL_SUCCESS) {                                                           \
      const char* msg_ = aclGetRecentErrMsg();                                           \
      fprintf(stderr, "%s failed: %d\n%s\n", #call, err_, msg_ ? msg_ : "(no message)"); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

enum { kFrames = 8, kWidth = 1920, kHeight = 1080, kChannels = 3 };

static volatile int g_exit = 0;
static int g_frames_reported = 0;

static void* ProcessThread(void* arg) {
  (void)arg;
  while (!g_exit) (void)aclrtProcessReport(50); /* time-outs are the idle answer */
  return NULL;
}

static void OnFrameDone(void* user_data) {
  int frame = (int)(size_t)user_data;
  ++g_frames_reported;
  if (frame == kFrames - 1) printf("callback: all %d frames reached the stream's end\n", kFrames);
}

int main(void) {
  const size_t frame_bytes = (size_t)kWidth * kHeight * kChannels;
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  aclrtRunMode mode;
  CHECK(aclrtGetRunMode(&mode));
  printf("device 0: %s, run mode %s\n", aclrtGetSocName(),
         mode == ACL_HOST ? "ACL_HOST" : "ACL_DEVICE");

  aclrtStream stream;
  CHECK(aclrtCreateStream(&stream));
  pthread_t tid;
  if (pthread_create(&tid, NULL, ProcessThread, NULL) != 0) return 1;
  CHECK(aclrtSubscribeReport((uint64_t)tid, stream));

  void *host_in, *host_out, *dev_a, *dev_b;
  CHECK(aclrtMallocHost(&host_in, frame_bytes));
  CHECK(aclrtMallocHost(&host_out, frame_bytes));
  CHECK(aclrtMalloc(&dev_a, frame_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&dev_b, frame_bytes, ACL_MEM_MALLOC_HUGE_FIRST));

  aclrtEvent start, end;
  CHECK(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE));
  CHECK(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE));

  int bad = 0;
  for (int f = 0; f < kFrames; ++f) {
    memset(host_in, f + 1, frame_bytes);
    CHECK(aclrtRecordEvent(start, stream));
    CHECK(aclrtMemcpyAsync(dev_a, frame_bytes, host_in, frame_bytes, ACL_MEMCPY_HOST_TO_DEVICE,
                           stream));
    CHECK(aclrtMemcpyAsync(dev_b, frame_bytes, dev_a, frame_bytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                           stream));
    CHECK(aclrtMemcpyAsync(host_out, frame_bytes, dev_b, frame_bytes, ACL_MEMCPY_DEVICE_TO_HOST,
                           stream));
    CHECK(aclrtRecordEvent(end, stream));
    CHECK(aclrtLaunchCallback(OnFrameDone, (void*)(size_t)f, ACL_CALLBACK_BLOCK, stream));
    CHECK(aclrtSynchronizeStream(stream));
    float ms = 0;
    CHECK(aclrtEventElapsedTime(&ms, start, end));
    if (((unsigned char*)host_out)[frame_bytes - 1] != (unsigned char)(f + 1)) ++bad;
    printf("frame %d: %zu bytes H2D + D2D + D2H in %.3f ms\n", f, frame_bytes, ms);
  }

  size_t free_bytes = 0, total_bytes = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
  printf("device memory: %zu MiB free of %zu MiB\n", free_bytes >> 20, total_bytes >> 20);

  CHECK(aclrtUnSubscribeReport((uint64_t)tid, stream));
  g_exit = 1;
  pthread_join(tid, NULL);
  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(end));
  CHECK(aclrtFree(dev_a));
  CHECK(aclrtFree(dev_b));
  CHECK(aclrtFreeHost(host_in));
  CHECK(aclrtFreeHost(host_out));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("%s: %d frames, %d callbacks, %d corrupted\n", bad ? "FAILED" : "OK", kFrames,
         g_frames_reported, bad);
  return bad ? 1 : 0;
}

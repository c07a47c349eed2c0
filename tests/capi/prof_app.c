// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0

// A C99 AscendCL application that profiles itself the way CANN's documentation shows:
// aclInit → aclprofInit → aclprofCreateConfig → aclprofStart → five aclmdlExecute → aclprofStop
// → aclprofDestroyConfig → aclprofFinalize. It times each execution with its own clock and
// prints `execute_us <n>` per run, so tests/capi/prof_check.py can hold the profile's per-node
// durations against an external measurement. It also pins acl_prof.h's values (compile-time
// checks: the header compiles as C99 with -pedantic -Werror).
// Usage: prof_app <model.om> <result dir> [runs, 5]

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"

#define KILN_STATIC_CHECK(cond, name) typedef char kiln_static_check_##name[(cond) ? 1 : -1]
KILN_STATIC_CHECK(ACL_PROF_ACL_API == 0x1ULL && ACL_PROF_TASK_TIME == 0x2ULL, prof_bits_1);
KILN_STATIC_CHECK(ACL_PROF_MSPROFTX == 0x80ULL && ACL_PROF_RUNTIME_API == 0x100ULL, prof_bits_2);
KILN_STATIC_CHECK(ACL_PROF_TASK_MEMORY == 0x1000ULL && ACL_PROF_OP_ATTR == 0x4000ULL, prof_bits_3);
KILN_STATIC_CHECK(ACL_PROF_FWK_SCHEDULE_L1 == 0x01000000ULL, prof_bits_4);
KILN_STATIC_CHECK(ACL_PROF_MAX_OP_NAME_LEN == 257 && ACL_PROF_MAX_OP_TYPE_LEN == 65, lens);
KILN_STATIC_CHECK(ACL_AICORE_MEMORY_UB == 5 && ACL_AICORE_NONE == 0xFF, metrics);
KILN_STATIC_CHECK(ACL_PROF_STORAGE_LIMIT == 1 && ACL_PROF_SYS_HARDWARE_MEM_FREQ == 3 &&
                      ACL_PROF_HOST_SYS_USAGE_FREQ == 10 && ACL_PROF_PATH == 16,
                  config_types);
KILN_STATIC_CHECK(ACL_STEP_START == 0 && ACL_STEP_END == 1, step_tags);
KILN_STATIC_CHECK(ACL_SUBSCRIBE_OP == 0 && ACL_SUBSCRIBE_NONE == 0xFF, subscribe_flags);

static double NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

#define CHECK(call)                                                                \
  do {                                                                             \
    aclError e_ = (call);                                                          \
    if (e_ != ACL_SUCCESS) {                                                       \
      const char* m_ = aclGetRecentErrMsg();                                       \
      fprintf(stderr, "%s failed: %d %s\n", #call, (int)e_, m_ != NULL ? m_ : ""); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

// A dataset of device buffers, one per model input (or output); zero-filled inputs.
static aclmdlDataset* MakeDataset(aclmdlDesc* desc, int outputs) {
  aclmdlDataset* ds = aclmdlCreateDataset();
  size_t n = outputs ? aclmdlGetNumOutputs(desc) : aclmdlGetNumInputs(desc);
  size_t i;
  for (i = 0; i < n; ++i) {
    size_t size =
        outputs ? aclmdlGetOutputSizeByIndex(desc, i) : aclmdlGetInputSizeByIndex(desc, i);
    void* p = NULL;
    if (aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return NULL;
    if (aclrtMemset(p, size, 0, size) != ACL_SUCCESS) return NULL;
    if (aclmdlAddDatasetBuffer(ds, aclCreateDataBuffer(p, size)) != ACL_SUCCESS) return NULL;
  }
  return ds;
}

static void FreeDataset(aclmdlDataset* ds) {
  size_t i;
  for (i = 0; i < aclmdlGetDatasetNumBuffers(ds); ++i) {
    aclDataBuffer* b = aclmdlGetDatasetBuffer(ds, i);
    (void)aclrtFree(aclGetDataBufferAddr(b));
    (void)aclDestroyDataBuffer(b);
  }
  (void)aclmdlDestroyDataset(ds);
}

int main(int argc, char** argv) {
  uint32_t model_id = 0, device = 0;
  int runs = argc > 3 ? atoi(argv[3]) : 5, i;
  aclmdlDesc* desc;
  aclmdlDataset *in, *out;
  aclprofConfig* config;
  if (argc < 3) {
    fprintf(stderr, "usage: prof_app <model.om> <result dir> [runs]\n");
    return 2;
  }
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclprofInit(argv[2], strlen(argv[2])));
  CHECK(aclmdlLoadFromFile(argv[1], &model_id));
  desc = aclmdlCreateDesc();
  CHECK(aclmdlGetDesc(desc, model_id));
  in = MakeDataset(desc, 0);
  out = MakeDataset(desc, 1);
  if (in == NULL || out == NULL) return 1;
  CHECK(aclmdlExecute(model_id, in, out));  // warm-up, before profiling
  config =
      aclprofCreateConfig(&device, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  if (config == NULL) return 1;
  CHECK(aclprofStart(config));
  for (i = 0; i < runs; ++i) {
    double start = NowUs();
    CHECK(aclmdlExecute(model_id, in, out));
    printf("execute_us %.3f\n", NowUs() - start);
  }
  CHECK(aclprofStop(config));
  CHECK(aclprofDestroyConfig(config));
  FreeDataset(in);
  FreeDataset(out);
  CHECK(aclmdlDestroyDesc(desc));
  CHECK(aclmdlUnload(model_id));
  CHECK(aclprofFinalize());
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return 0;
}

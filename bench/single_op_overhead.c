/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/* The cost of one single-operator call: an Add of two float [n] tensors, compiled once with
 * aclopCompile, then run N times through aclopExecuteV2 (matching every call) and through a handle
 * (matched once), each call followed by aclrtSynchronizeStream, and N times queued back to back
 * with one synchronisation at the end. Prints the median microseconds per call of each form.
 *
 *   cc -O2 bench/single_op_overhead.c -Iinclude -Lbuild/release/src/capi -lascendcl \
 *      -Wl,-rpath,build/release/src/capi -o /tmp/single_op_overhead
 *   /tmp/single_op_overhead [n] [calls] */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

#define CHECK(call)                                  \
  do {                                               \
    aclError e_ = (call);                            \
    if (e_ != ACL_SUCCESS) {                         \
      fprintf(stderr, "%s failed: %d\n", #call, e_); \
      exit(1);                                       \
    }                                                \
  } while (0)

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int Cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 1024;
  const int calls = argc > 2 ? atoi(argv[2]) : 5000;
  aclrtStream stream;
  void *a, *b, *y;
  aclTensorDesc* d;
  aclDataBuffer *ba, *bb, *by;
  aclopHandle* h;
  double* us = malloc(sizeof(double) * (size_t)calls);
  int i, form;
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtMalloc(&a, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&b, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&y, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemset(a, (size_t)n * 4, 0, (size_t)n * 4));
  CHECK(aclrtMemset(b, (size_t)n * 4, 0, (size_t)n * 4));
  d = aclCreateTensorDesc(ACL_FLOAT, 1, &n, ACL_FORMAT_ND);
  ba = aclCreateDataBuffer(a, (size_t)n * 4);
  bb = aclCreateDataBuffer(b, (size_t)n * 4);
  by = aclCreateDataBuffer(y, (size_t)n * 4);
  {
    const aclTensorDesc* in[] = {d, d};
    const aclTensorDesc* out[] = {d};
    CHECK(aclopCompile("Add", 2, in, 1, out, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
    CHECK(aclopCreateHandle("Add", 2, in, 1, out, NULL, &h));
  }
  for (form = 0; form < 3; ++form) {
    aclTensorDesc* in[] = {d, d};
    aclDataBuffer* inb[] = {ba, bb};
    aclTensorDesc* out[] = {d};
    aclDataBuffer* outb[] = {by};
    const aclDataBuffer* cinb[] = {ba, bb};
    double start;
    for (i = 0; i < 200; ++i) CHECK(aclopExecuteV2("Add", 2, in, inb, 1, out, outb, NULL, stream));
    CHECK(aclrtSynchronizeStream(stream));
    if (form == 2) {
      start = Now();
      for (i = 0; i < calls; ++i) {
        CHECK(aclopExecuteV2("Add", 2, in, inb, 1, out, outb, NULL, stream));
      }
      CHECK(aclrtSynchronizeStream(stream));
      printf("n=%lld queued aclopExecuteV2: %.2f us per call (mean of %d)\n", (long long)n,
             (Now() - start) / calls, calls);
      break;
    }
    for (i = 0; i < calls; ++i) {
      start = Now();
      if (form == 0) {
        CHECK(aclopExecuteV2("Add", 2, in, inb, 1, out, outb, NULL, stream));
      } else {
        CHECK(aclopExecWithHandle(h, 2, cinb, 1, outb, stream));
      }
      CHECK(aclrtSynchronizeStream(stream));
      us[i] = Now() - start;
    }
    qsort(us, (size_t)calls, sizeof(double), Cmp);
    printf("n=%lld %s + sync: median %.2f us, p90 %.2f us\n", (long long)n,
           form == 0 ? "aclopExecuteV2" : "aclopExecWithHandle", us[calls / 2], us[calls * 9 / 10]);
  }
  aclopDestroyHandle(h);
  aclDestroyDataBuffer(ba);
  aclDestroyDataBuffer(bb);
  aclDestroyDataBuffer(by);
  aclDestroyTensorDesc(d);
  aclrtFree(a);
  aclrtFree(b);
  aclrtFree(y);
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  free(us);
  return 0;
}

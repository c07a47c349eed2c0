// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// op_classify: a CANN-style classification program that post-processes a model's scores with
// single operators on the same stream, written only against the public AscendCL headers as a CANN
// application is (docs/single-ops.md):
//
//   input (float32 NCHW file) -> aclmdlExecuteAsync -> scores [1, C] float32
//     -> aclopCast (float32 -> float16) -> aclopExecuteV2 "ArgMaxV2" (dimension 1, a constant
//        tensor; dtype int32) -> class index
//
//   op_classify [--scores DIR] MODEL.om OP_MODEL_DIR INPUT.bin...
//
// OP_MODEL_DIR holds the Cast and ArgMaxV2 single-op models (`kiln atc --singleop`). One line per
// input: "INPUT class=N". --scores DIR: also write each input's float16 scores to
// DIR/<input file name>.scores.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace {

#define CHECK(call)                                                               \
  do {                                                                            \
    aclError err_ = (call);                                                       \
    if (err_ != ACL_SUCCESS) {                                                    \
      const char* msg_ = aclGetRecentErrMsg();                                    \
      std::fprintf(stderr, "%s failed: %d\n%s\n", #call, err_, msg_ ? msg_ : ""); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

std::vector<char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(1);
  }
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* scores_dir = nullptr;
  int arg = 1;
  if (arg + 1 < argc && std::strcmp(argv[arg], "--scores") == 0) {
    scores_dir = argv[arg + 1];
    arg += 2;
  }
  if (argc - arg < 3) {
    std::fprintf(stderr, "usage: %s [--scores DIR] MODEL.om OP_MODEL_DIR INPUT.bin...\n", argv[0]);
    return 2;
  }
  const char* model_path = argv[arg];
  const char* op_dir = argv[arg + 1];

  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclopSetModelDir(op_dir));

  uint32_t model_id = 0;
  CHECK(aclmdlLoadFromFile(model_path, &model_id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  CHECK(aclmdlGetDesc(desc, model_id));
  const size_t in_size = aclmdlGetInputSizeByIndex(desc, 0);
  const size_t out_size = aclmdlGetOutputSizeByIndex(desc, 0);
  const int64_t classes = static_cast<int64_t>(out_size / sizeof(float));

  void* in_dev = nullptr;
  void* scores_dev = nullptr;
  void* half_dev = nullptr;
  void* index_dev = nullptr;
  CHECK(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&scores_dev, out_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&half_dev, classes * sizeof(aclFloat16), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&index_dev, sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
  aclmdlDataset* input = aclmdlCreateDataset();
  aclmdlDataset* output = aclmdlCreateDataset();
  aclDataBuffer* in_buf = aclCreateDataBuffer(in_dev, in_size);
  aclDataBuffer* scores_buf = aclCreateDataBuffer(scores_dev, out_size);
  CHECK(aclmdlAddDatasetBuffer(input, in_buf));
  CHECK(aclmdlAddDatasetBuffer(output, scores_buf));

  // The single operators' tensors: scores [1, C] float32 -> float16 -> ArgMaxV2 over dim 1.
  const int64_t score_dims[] = {1, classes};
  const int64_t index_dims[] = {1};
  aclTensorDesc* scores_desc = aclCreateTensorDesc(ACL_FLOAT, 2, score_dims, ACL_FORMAT_ND);
  aclTensorDesc* half_desc = aclCreateTensorDesc(ACL_FLOAT16, 2, score_dims, ACL_FORMAT_ND);
  aclTensorDesc* dim_desc = aclCreateTensorDesc(ACL_INT32, 0, nullptr, ACL_FORMAT_ND);
  aclTensorDesc* index_desc = aclCreateTensorDesc(ACL_INT32, 1, index_dims, ACL_FORMAT_ND);
  int32_t dimension = 1;
  CHECK(aclSetTensorConst(dim_desc, &dimension, sizeof dimension));
  aclDataBuffer* half_buf = aclCreateDataBuffer(half_dev, classes * sizeof(aclFloat16));
  aclDataBuffer* dim_buf = aclCreateDataBuffer(&dimension, sizeof dimension);
  aclDataBuffer* index_buf = aclCreateDataBuffer(index_dev, sizeof(int32_t));
  aclopAttr* argmax_attr = aclopCreateAttr();
  CHECK(aclopSetAttrDataType(argmax_attr, "dtype", ACL_INT32));

  for (int i = arg + 2; i < argc; ++i) {
    std::vector<char> data = ReadFile(argv[i]);
    if (data.size() != in_size) {
      std::fprintf(stderr, "%s has %zu bytes; the model takes %zu\n", argv[i], data.size(),
                   in_size);
      return 1;
    }
    CHECK(aclrtMemcpy(in_dev, in_size, data.data(), in_size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclmdlExecuteAsync(model_id, input, output, stream));
    CHECK(aclopCast(scores_desc, scores_buf, half_desc, half_buf, 0, stream));
    aclTensorDesc* argmax_in[] = {half_desc, dim_desc};
    aclDataBuffer* argmax_in_buf[] = {half_buf, dim_buf};
    aclTensorDesc* argmax_out[] = {index_desc};
    aclDataBuffer* argmax_out_buf[] = {index_buf};
    CHECK(aclopExecuteV2("ArgMaxV2", 2, argmax_in, argmax_in_buf, 1, argmax_out, argmax_out_buf,
                         argmax_attr, stream));
    CHECK(aclrtSynchronizeStream(stream));
    int32_t index = -1;
    CHECK(aclrtMemcpy(&index, sizeof index, index_dev, sizeof index, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("%s class=%d\n", argv[i], index);
    if (scores_dir != nullptr) {
      std::vector<aclFloat16> half(static_cast<size_t>(classes));
      CHECK(aclrtMemcpy(half.data(), half.size() * 2, half_dev, half.size() * 2,
                        ACL_MEMCPY_DEVICE_TO_HOST));
      std::ofstream out(std::string(scores_dir) + "/" + BaseName(argv[i]) + ".scores",
                        std::ios::binary);
      out.write(reinterpret_cast<const char*>(half.data()),
                static_cast<std::streamsize>(half.size() * 2));
    }
  }

  aclopDestroyAttr(argmax_attr);
  aclDestroyDataBuffer(index_buf);
  aclDestroyDataBuffer(dim_buf);
  aclDestroyDataBuffer(half_buf);
  aclDestroyTensorDesc(index_desc);
  aclDestroyTensorDesc(dim_desc);
  aclDestroyTensorDesc(half_desc);
  aclDestroyTensorDesc(scores_desc);
  aclDestroyDataBuffer(scores_buf);
  aclDestroyDataBuffer(in_buf);
  aclmdlDestroyDataset(output);
  aclmdlDestroyDataset(input);
  aclrtFree(index_dev);
  aclrtFree(half_dev);
  aclrtFree(scores_dev);
  aclrtFree(in_dev);
  aclmdlDestroyDesc(desc);
  CHECK(aclmdlUnload(model_id));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return 0;
}

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// dvpp_classify: the classic CANN image-classification pipeline, written only against the
// public AscendCL headers as a CANN application is (docs/dvpp.md, docs/aipp.md):
//
//   JPEG file -> acldvppJpegDecodeAsync (YUV420SP) -> acldvppVpcResizeAsync (224x224 YUV420SP)
//             -> a model compiled with an AIPP config (YUV420SP -> RGB, mean / var_reci)
//             -> top-5 of its 1000 scores
//
//   dvpp_classify [--dynamic-aipp] [--scores DIR] MODEL.om IMAGE.jpg...
//
// --dynamic-aipp: the model was compiled with dynamic AIPP; the same CSC and normalisation as the
// static config are set per execute. --scores DIR: also write each image's scores (float32) to
// DIR/<image file name>.scores. One line per image: "IMAGE top5=c1,...,c5 scores=s1,...,s5".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#define ENABLE_DVPP_INTERFACE
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

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

constexpr uint32_t kSide = 224;  // the model's input, and the VPC's output

// The normalisation the AIPP config applies: (pixel - mean) * var_reci per RGB channel
// (ImageNet's mean and standard deviation in 0..255 units).
constexpr int16_t kMean[3] = {124, 116, 104};
constexpr float kVarReci[3] = {1 / 58.395f, 1 / 57.12f, 1 / 57.375f};

std::vector<uint8_t> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(1);
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// A picture description over DVPP memory.
acldvppPicDesc* Describe(void* data, uint32_t size, uint32_t w, uint32_t h, uint32_t ws,
                         uint32_t hs) {
  acldvppPicDesc* desc = acldvppCreatePicDesc();
  CHECK(acldvppSetPicDescData(desc, data));
  CHECK(acldvppSetPicDescSize(desc, size));
  CHECK(acldvppSetPicDescFormat(desc, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
  CHECK(acldvppSetPicDescWidth(desc, w));
  CHECK(acldvppSetPicDescHeight(desc, h));
  CHECK(acldvppSetPicDescWidthStride(desc, ws));
  CHECK(acldvppSetPicDescHeightStride(desc, hs));
  return desc;
}

// Decodes `jpeg` and resizes it into `resized` (a 224x224 NV12 picture in DVPP memory).
void Preprocess(const std::vector<uint8_t>& jpeg, acldvppChannelDesc* channel,
                acldvppResizeConfig* resize, void* resized, aclrtStream stream) {
  const auto size = static_cast<uint32_t>(jpeg.size());
  uint32_t w = 0, h = 0;
  int32_t components = 0;
  CHECK(acldvppJpegGetImageInfo(jpeg.data(), size, &w, &h, &components));
  uint32_t decoded_size = 0;
  CHECK(
      acldvppJpegPredictDecSize(jpeg.data(), size, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &decoded_size));
  void* input = nullptr;
  void* decoded = nullptr;
  CHECK(acldvppMalloc(&input, size));
  CHECK(acldvppMalloc(&decoded, decoded_size));
  CHECK(aclrtMemcpy(input, size, jpeg.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
  // Strides 0: the decoder chooses them (width aligned to 128, height to 16) and says which.
  acldvppPicDesc* decode_desc = Describe(decoded, decoded_size, w, h, 0, 0);
  CHECK(acldvppJpegDecodeAsync(channel, input, size, decode_desc, stream));
  CHECK(aclrtSynchronizeStream(stream));
  // The VPC reads the decoded picture with the strides the decoder reported.
  acldvppPicDesc* resize_in =
      Describe(decoded, decoded_size, acldvppGetPicDescWidth(decode_desc),
               acldvppGetPicDescHeight(decode_desc), acldvppGetPicDescWidthStride(decode_desc),
               acldvppGetPicDescHeightStride(decode_desc));
  acldvppPicDesc* resize_out = Describe(resized, kSide * kSide * 3 / 2, kSide, kSide, kSide, kSide);
  CHECK(acldvppVpcResizeAsync(channel, resize_in, resize_out, resize, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(acldvppDestroyPicDesc(decode_desc));
  CHECK(acldvppDestroyPicDesc(resize_in));
  CHECK(acldvppDestroyPicDesc(resize_out));
  CHECK(acldvppFree(input));
  CHECK(acldvppFree(decoded));
}

// The dynamic AIPP parameters equal to the static config's (tests/models/dvpp_classify.aipp).
aclmdlAIPP* DynamicAippSet() {
  aclmdlAIPP* set = aclmdlCreateAIPP(1);
  CHECK(aclmdlSetAIPPInputFormat(set, ACL_YUV420SP_U8));
  CHECK(aclmdlSetAIPPSrcImageSize(set, kSide, kSide));
  CHECK(aclmdlSetAIPPCscParams(set, 1, 256, 0, 359, 256, -88, -183, 256, 454, 0, 0, 0, 0, 0, 128,
                               128));
  CHECK(aclmdlSetAIPPDtcPixelMean(set, kMean[0], kMean[1], kMean[2], 0, 0));
  CHECK(aclmdlSetAIPPPixelVarReci(set, kVarReci[0], kVarReci[1], kVarReci[2], 1.0f, 0));
  return set;
}

}  // namespace

int main(int argc, char** argv) {
  int arg = 1;
  bool dynamic = false;
  std::string scores_dir;
  for (; arg < argc && argv[arg][0] == '-' && argv[arg][1] == '-'; ++arg) {
    if (std::strcmp(argv[arg], "--dynamic-aipp") == 0) {
      dynamic = true;
    } else if (std::strcmp(argv[arg], "--scores") == 0 && arg + 1 < argc) {
      scores_dir = argv[++arg];
    } else {
      break;
    }
  }
  if (argc - arg < 2) {
    std::fprintf(stderr, "usage: %s [--dynamic-aipp] [--scores DIR] MODEL.om IMAGE.jpg...\n",
                 argv[0]);
    return 2;
  }
  const char* model_path = argv[arg++];

  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  acldvppChannelDesc* channel = acldvppCreateChannelDesc();
  CHECK(acldvppCreateChannel(channel));
  acldvppResizeConfig* resize = acldvppCreateResizeConfig();

  uint32_t model_id = 0;
  CHECK(aclmdlLoadFromFile(model_path, &model_id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  CHECK(aclmdlGetDesc(desc, model_id));

  // Input 0: the 224x224 NV12 picture the VPC writes; the model's AIPP converts it.
  const size_t picture_bytes = kSide * kSide * 3 / 2;
  void* picture = nullptr;
  CHECK(acldvppMalloc(&picture, picture_bytes));
  aclmdlDataset* inputs = aclmdlCreateDataset();
  CHECK(aclmdlAddDatasetBuffer(inputs,
                               aclCreateDataBuffer(picture, aclmdlGetInputSizeByIndex(desc, 0))));
  aclmdlAIPP* aipp = nullptr;
  size_t aipp_index = 0;
  void* aipp_data = nullptr;
  if (dynamic) {
    CHECK(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_AIPP_NAME, &aipp_index));
    size_t aipp_bytes = aclmdlGetInputSizeByIndex(desc, aipp_index);
    CHECK(aclrtMalloc(&aipp_data, aipp_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclmdlAddDatasetBuffer(inputs, aclCreateDataBuffer(aipp_data, aipp_bytes)));
    aipp = DynamicAippSet();
  }
  const size_t scores_bytes = aclmdlGetOutputSizeByIndex(desc, 0);
  void* scores_dev = nullptr;
  CHECK(aclrtMalloc(&scores_dev, scores_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  aclmdlDataset* outputs = aclmdlCreateDataset();
  CHECK(aclmdlAddDatasetBuffer(outputs, aclCreateDataBuffer(scores_dev, scores_bytes)));

  std::vector<float> scores(scores_bytes / sizeof(float));
  for (; arg < argc; ++arg) {
    Preprocess(ReadFile(argv[arg]), channel, resize, picture, stream);
    if (dynamic) CHECK(aclmdlSetInputAIPP(model_id, inputs, aipp_index, aipp));
    CHECK(aclmdlExecute(model_id, inputs, outputs));
    CHECK(aclrtMemcpy(scores.data(), scores_bytes, scores_dev, scores_bytes,
                      ACL_MEMCPY_DEVICE_TO_HOST));
    if (!scores_dir.empty()) {
      std::string name = argv[arg];
      name = scores_dir + "/" + name.substr(name.find_last_of('/') + 1) + ".scores";
      std::ofstream(name, std::ios::binary)
          .write(reinterpret_cast<const char*>(scores.data()),
                 static_cast<std::streamsize>(scores_bytes));
    }
    std::vector<int> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                      [&](int a, int b) { return scores[a] > scores[b]; });
    std::printf("%s top5=%d,%d,%d,%d,%d scores=%.5f,%.5f,%.5f,%.5f,%.5f\n", argv[arg], order[0],
                order[1], order[2], order[3], order[4], scores[order[0]], scores[order[1]],
                scores[order[2]], scores[order[3]], scores[order[4]]);
  }

  if (aipp != nullptr) CHECK(aclmdlDestroyAIPP(aipp));
  for (aclmdlDataset* set : {inputs, outputs}) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) {
      CHECK(aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i)));
    }
    CHECK(aclmdlDestroyDataset(set));
  }
  CHECK(acldvppFree(picture));
  if (aipp_data != nullptr) CHECK(aclrtFree(aipp_data));
  CHECK(aclrtFree(scores_dev));
  CHECK(aclmdlDestroyDesc(desc));
  CHECK(aclmdlUnload(model_id));
  CHECK(acldvppDestroyResizeConfig(resize));
  CHECK(acldvppDestroyChannel(channel));
  CHECK(acldvppDestroyChannelDesc(channel));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return 0;
}

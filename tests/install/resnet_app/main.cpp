// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// An image classification application written the way CANN's C++ ResNet-50 samples are, against
// the AscendCL documentation only: init, device, context, stream; aclmdlQuerySize and
// aclmdlLoadFromFileWithMem with caller-allocated work and weight memory; the model description;
// input and output datasets of aclrtMalloc'ed buffers; a host-to-device copy, aclmdlExecute, a
// device-to-host copy and the top-5 classes; then everything destroyed in the documented order.
// C++11, nothing but acl/acl.h.
//
// Usage: resnet_app <model.om> <input.bin> [acl.json]
//   input.bin holds the model's first input as raw bytes (float32 NCHW for ResNet-50).
// Prints "top <k>: index[<class>] value[<score>]" for k = 1..5; exits non-zero on any failure.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define WARN_LOG(fmt, ...) fprintf(stdout, "[WARN]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) fprintf(stderr, "[ERROR] " fmt "\n", ##__VA_ARGS__)

typedef enum Result { SUCCESS = 0, FAILED = 1 } Result;

namespace {

void LogAclError(const char* call, aclError ret) {
  const char* msg = aclGetRecentErrMsg();
  ERROR_LOG("%s failed, errorCode = %d%s%s", call, static_cast<int32_t>(ret), msg ? ": " : "",
            msg ? msg : "");
}

// Reads a whole file into memory allocated with aclrtMallocHost.
Result ReadBinFile(const std::string& fileName, void*& buffer, uint32_t& fileSize) {
  std::ifstream binFile(fileName.c_str(), std::ifstream::binary);
  if (!binFile.is_open()) {
    ERROR_LOG("open file %s failed", fileName.c_str());
    return FAILED;
  }
  binFile.seekg(0, binFile.end);
  const std::streamoff binFileBufferLen = binFile.tellg();
  if (binFileBufferLen <= 0) {
    ERROR_LOG("binfile is empty, filename is %s", fileName.c_str());
    return FAILED;
  }
  binFile.seekg(0, binFile.beg);
  aclError ret = aclrtMallocHost(&buffer, static_cast<size_t>(binFileBufferLen));
  if (ret != ACL_SUCCESS) {
    LogAclError("aclrtMallocHost", ret);
    return FAILED;
  }
  binFile.read(static_cast<char*>(buffer), binFileBufferLen);
  fileSize = static_cast<uint32_t>(binFileBufferLen);
  return SUCCESS;
}

class ModelProcess {
 public:
  ModelProcess()
      : modelId_(0),
        modelWorkSize_(0),
        modelWeightSize_(0),
        modelWorkPtr_(NULL),
        modelWeightPtr_(NULL),
        loadFlag_(false),
        modelDesc_(NULL),
        input_(NULL),
        output_(NULL) {}
  ~ModelProcess() {
    Unload();
    DestroyDesc();
    DestroyInput();
    DestroyOutput();
  }

  Result LoadModel(const char* modelPath) {
    if (loadFlag_) {
      ERROR_LOG("model has already been loaded");
      return FAILED;
    }
    aclError ret = aclmdlQuerySize(modelPath, &modelWorkSize_, &modelWeightSize_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclmdlQuerySize", ret);
      return FAILED;
    }
    INFO_LOG("model %s needs work size %zu, weight size %zu", modelPath, modelWorkSize_,
             modelWeightSize_);
    ret = aclrtMalloc(&modelWorkPtr_, modelWorkSize_, ACL_MEM_MALLOC_HUGE_FIRST);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtMalloc (work)", ret);
      return FAILED;
    }
    ret = aclrtMalloc(&modelWeightPtr_, modelWeightSize_, ACL_MEM_MALLOC_HUGE_FIRST);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtMalloc (weight)", ret);
      return FAILED;
    }
    ret = aclmdlLoadFromFileWithMem(modelPath, &modelId_, modelWorkPtr_, modelWorkSize_,
                                    modelWeightPtr_, modelWeightSize_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclmdlLoadFromFileWithMem", ret);
      return FAILED;
    }
    loadFlag_ = true;
    INFO_LOG("load model %s success, modelId %u", modelPath, modelId_);
    return SUCCESS;
  }

  Result CreateDesc() {
    modelDesc_ = aclmdlCreateDesc();
    if (modelDesc_ == NULL) {
      ERROR_LOG("create model description failed");
      return FAILED;
    }
    aclError ret = aclmdlGetDesc(modelDesc_, modelId_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclmdlGetDesc", ret);
      return FAILED;
    }
    aclmdlIODims dims;
    for (size_t i = 0; i < aclmdlGetNumInputs(modelDesc_); ++i) {
      if (aclmdlGetInputDims(modelDesc_, i, &dims) != ACL_SUCCESS) return FAILED;
      std::string shape;
      for (size_t k = 0; k < dims.dimCount; ++k) {
        char text[32];
        snprintf(text, sizeof text, "%s%lld", k ? "," : "", static_cast<long long>(dims.dims[k]));
        shape += text;
      }
      INFO_LOG("input %zu: %s [%s] dtype %d, %zu bytes", i,
               aclmdlGetInputNameByIndex(modelDesc_, i), shape.c_str(),
               static_cast<int>(aclmdlGetInputDataType(modelDesc_, i)),
               aclmdlGetInputSizeByIndex(modelDesc_, i));
    }
    return SUCCESS;
  }

  size_t InputSize(size_t index) const { return aclmdlGetInputSizeByIndex(modelDesc_, index); }

  Result CreateInput(void* inputDataBuffer, size_t bufferSize) {
    input_ = aclmdlCreateDataset();
    if (input_ == NULL) {
      ERROR_LOG("can't create dataset, create input failed");
      return FAILED;
    }
    aclDataBuffer* inputData = aclCreateDataBuffer(inputDataBuffer, bufferSize);
    if (inputData == NULL) {
      ERROR_LOG("can't create data buffer, create input failed");
      return FAILED;
    }
    aclError ret = aclmdlAddDatasetBuffer(input_, inputData);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclmdlAddDatasetBuffer (input)", ret);
      (void)aclDestroyDataBuffer(inputData);
      return FAILED;
    }
    return SUCCESS;
  }

  Result CreateOutput() {
    output_ = aclmdlCreateDataset();
    if (output_ == NULL) {
      ERROR_LOG("can't create dataset, create output failed");
      return FAILED;
    }
    const size_t outputSize = aclmdlGetNumOutputs(modelDesc_);
    for (size_t i = 0; i < outputSize; ++i) {
      const size_t bufferSize = aclmdlGetOutputSizeByIndex(modelDesc_, i);
      void* outputBuffer = NULL;
      aclError ret = aclrtMalloc(&outputBuffer, bufferSize, ACL_MEM_MALLOC_NORMAL_ONLY);
      if (ret != ACL_SUCCESS) {
        LogAclError("aclrtMalloc (output)", ret);
        return FAILED;
      }
      aclDataBuffer* outputData = aclCreateDataBuffer(outputBuffer, bufferSize);
      if (outputData == NULL) {
        ERROR_LOG("can't create data buffer, create output failed");
        (void)aclrtFree(outputBuffer);
        return FAILED;
      }
      ret = aclmdlAddDatasetBuffer(output_, outputData);
      if (ret != ACL_SUCCESS) {
        LogAclError("aclmdlAddDatasetBuffer (output)", ret);
        (void)aclrtFree(outputBuffer);
        (void)aclDestroyDataBuffer(outputData);
        return FAILED;
      }
    }
    INFO_LOG("create model output success");
    return SUCCESS;
  }

  Result Execute() {
    aclError ret = aclmdlExecute(modelId_, input_, output_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclmdlExecute", ret);
      return FAILED;
    }
    INFO_LOG("model execute success");
    return SUCCESS;
  }

  // Copies output 0 to the host and prints its five largest values.
  Result OutputModelResult(aclrtRunMode runMode) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(output_); ++i) {
      aclDataBuffer* dataBuffer = aclmdlGetDatasetBuffer(output_, i);
      void* data = aclGetDataBufferAddr(dataBuffer);
      const size_t len = aclGetDataBufferSizeV2(dataBuffer);
      aclmdlIODims dims;
      if (aclmdlGetCurOutputDims(modelDesc_, i, &dims) != ACL_SUCCESS) return FAILED;
      size_t elements = 1;
      for (size_t k = 0; k < dims.dimCount; ++k) elements *= static_cast<size_t>(dims.dims[k]);
      if (aclmdlGetOutputDataType(modelDesc_, i) != ACL_FLOAT || elements * sizeof(float) != len) {
        ERROR_LOG("output %zu: expected float32 with %zu bytes, the buffer has %zu", i,
                  elements * sizeof(float), len);
        return FAILED;
      }
      void* outHostData = data;
      if (runMode == ACL_HOST) {
        aclError ret = aclrtMallocHost(&outHostData, len);
        if (ret != ACL_SUCCESS) {
          LogAclError("aclrtMallocHost", ret);
          return FAILED;
        }
        ret = aclrtMemcpy(outHostData, len, data, len, ACL_MEMCPY_DEVICE_TO_HOST);
        if (ret != ACL_SUCCESS) {
          LogAclError("aclrtMemcpy (device to host)", ret);
          (void)aclrtFreeHost(outHostData);
          return FAILED;
        }
      }
      const float* outData = static_cast<const float*>(outHostData);
      std::vector<std::pair<float, unsigned int> > scores;
      for (unsigned int j = 0; j < len / sizeof(float); ++j) {
        scores.push_back(std::make_pair(outData[j], j));
      }
      const size_t topN = std::min<size_t>(5, scores.size());
      std::partial_sort(
          scores.begin(), scores.begin() + topN, scores.end(),
          [](const std::pair<float, unsigned int>& a, const std::pair<float, unsigned int>& b) {
            return a.first > b.first || (a.first == b.first && a.second < b.second);
          });
      INFO_LOG("output %zu: %s", i, aclmdlGetOutputNameByIndex(modelDesc_, i));
      for (size_t k = 0; k < topN; ++k) {
        fprintf(stdout, "top %zu: index[%u] value[%lf]\n", k + 1, scores[k].second,
                static_cast<double>(scores[k].first));
      }
      if (runMode == ACL_HOST) {
        aclError ret = aclrtFreeHost(outHostData);
        if (ret != ACL_SUCCESS) {
          LogAclError("aclrtFreeHost", ret);
          return FAILED;
        }
      }
    }
    INFO_LOG("output data success");
    return SUCCESS;
  }

  void DestroyInput() {
    if (input_ == NULL) return;
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(input_); ++i) {
      aclDataBuffer* dataBuffer = aclmdlGetDatasetBuffer(input_, i);
      (void)aclDestroyDataBuffer(dataBuffer);
    }
    (void)aclmdlDestroyDataset(input_);
    input_ = NULL;
  }

  void DestroyOutput() {
    if (output_ == NULL) return;
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(output_); ++i) {
      aclDataBuffer* dataBuffer = aclmdlGetDatasetBuffer(output_, i);
      void* data = aclGetDataBufferAddr(dataBuffer);
      (void)aclrtFree(data);
      (void)aclDestroyDataBuffer(dataBuffer);
    }
    (void)aclmdlDestroyDataset(output_);
    output_ = NULL;
  }

  void DestroyDesc() {
    if (modelDesc_ != NULL) {
      (void)aclmdlDestroyDesc(modelDesc_);
      modelDesc_ = NULL;
    }
  }

  Result Unload() {
    if (!loadFlag_) return SUCCESS;
    aclError ret = aclmdlUnload(modelId_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclmdlUnload", ret);
      return FAILED;
    }
    loadFlag_ = false;
    if (modelWorkPtr_ != NULL) {
      (void)aclrtFree(modelWorkPtr_);
      modelWorkPtr_ = NULL;
      modelWorkSize_ = 0;
    }
    if (modelWeightPtr_ != NULL) {
      (void)aclrtFree(modelWeightPtr_);
      modelWeightPtr_ = NULL;
      modelWeightSize_ = 0;
    }
    INFO_LOG("unload model success, modelId %u", modelId_);
    return SUCCESS;
  }

 private:
  uint32_t modelId_;
  size_t modelWorkSize_;
  size_t modelWeightSize_;
  void* modelWorkPtr_;
  void* modelWeightPtr_;
  bool loadFlag_;
  aclmdlDesc* modelDesc_;
  aclmdlDataset* input_;
  aclmdlDataset* output_;
};

class SampleProcess {
 public:
  SampleProcess() : deviceId_(0), context_(NULL), stream_(NULL), runMode_(ACL_HOST) {}
  ~SampleProcess() { DestroyResource(); }

  Result InitResource(const char* aclConfigPath) {
    aclError ret = aclInit(aclConfigPath);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclInit", ret);
      return FAILED;
    }
    inited_ = true;
    ret = aclrtSetDevice(deviceId_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtSetDevice", ret);
      return FAILED;
    }
    INFO_LOG("open device %d success", deviceId_);
    ret = aclrtCreateContext(&context_, deviceId_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtCreateContext", ret);
      return FAILED;
    }
    ret = aclrtCreateStream(&stream_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtCreateStream", ret);
      return FAILED;
    }
    ret = aclrtGetRunMode(&runMode_);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtGetRunMode", ret);
      return FAILED;
    }
    INFO_LOG("create context and stream success, run mode %s",
             runMode_ == ACL_HOST ? "host" : "device");
    return SUCCESS;
  }

  Result Process(const char* omModelPath, const char* inputPath) {
    ModelProcess modelProcess;
    if (modelProcess.LoadModel(omModelPath) != SUCCESS) return FAILED;
    if (modelProcess.CreateDesc() != SUCCESS) return FAILED;
    if (modelProcess.CreateOutput() != SUCCESS) return FAILED;

    const size_t inputSize = modelProcess.InputSize(0);
    void* inputHost = NULL;
    uint32_t fileSize = 0;
    if (ReadBinFile(inputPath, inputHost, fileSize) != SUCCESS) return FAILED;
    if (fileSize != inputSize) {
      ERROR_LOG("input file %s has %u bytes, the model's input needs %zu", inputPath, fileSize,
                inputSize);
      (void)aclrtFreeHost(inputHost);
      return FAILED;
    }
    void* inputDevice = NULL;
    aclError ret = aclrtMalloc(&inputDevice, inputSize, ACL_MEM_MALLOC_HUGE_FIRST);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtMalloc (input)", ret);
      (void)aclrtFreeHost(inputHost);
      return FAILED;
    }
    ret = aclrtMemcpy(inputDevice, inputSize, inputHost, fileSize, ACL_MEMCPY_HOST_TO_DEVICE);
    (void)aclrtFreeHost(inputHost);
    if (ret != ACL_SUCCESS) {
      LogAclError("aclrtMemcpy (host to device)", ret);
      (void)aclrtFree(inputDevice);
      return FAILED;
    }
    Result result = modelProcess.CreateInput(inputDevice, inputSize);
    if (result == SUCCESS) result = modelProcess.Execute();
    if (result == SUCCESS) result = modelProcess.OutputModelResult(runMode_);
    modelProcess.DestroyInput();
    (void)aclrtFree(inputDevice);
    if (modelProcess.Unload() != SUCCESS) result = FAILED;
    return result;
  }

  Result DestroyResource() {
    Result result = SUCCESS;
    aclError ret;
    if (stream_ != NULL) {
      ret = aclrtDestroyStream(stream_);
      if (ret != ACL_SUCCESS) {
        LogAclError("aclrtDestroyStream", ret);
        result = FAILED;
      }
      stream_ = NULL;
    }
    if (context_ != NULL) {
      ret = aclrtDestroyContext(context_);
      if (ret != ACL_SUCCESS) {
        LogAclError("aclrtDestroyContext", ret);
        result = FAILED;
      }
      context_ = NULL;
    }
    if (inited_) {
      ret = aclrtResetDevice(deviceId_);
      if (ret != ACL_SUCCESS) {
        LogAclError("aclrtResetDevice", ret);
        result = FAILED;
      }
      ret = aclFinalize();
      if (ret != ACL_SUCCESS) {
        LogAclError("aclFinalize", ret);
        result = FAILED;
      }
      inited_ = false;
      INFO_LOG("end to finalize acl");
    }
    return result;
  }

 private:
  int32_t deviceId_;
  aclrtContext context_;
  aclrtStream stream_;
  aclrtRunMode runMode_;
  bool inited_ = false;
};

}  // namespace

int main(int argc, char* argv[]) {
  if (argc < 3) {
    ERROR_LOG("usage: %s <model.om> <input.bin> [acl.json]", argv[0]);
    return 2;
  }
  const char* aclConfigPath = argc > 3 ? argv[3] : NULL;
  SampleProcess sampleProcess;
  if (sampleProcess.InitResource(aclConfigPath) != SUCCESS) {
    ERROR_LOG("sample init resource failed");
    return 1;
  }
  Result ret = sampleProcess.Process(argv[1], argv[2]);
  if (sampleProcess.DestroyResource() != SUCCESS) ret = FAILED;
  if (ret != SUCCESS) {
    ERROR_LOG("sample process failed");
    return 1;
  }
  INFO_LOG("execute sample success");
  return 0;
}

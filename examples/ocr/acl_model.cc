// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "acl_model.h"

namespace ocr {

std::string AclErrorText(const char* call, aclError code) {
  const char* msg = aclGetRecentErrMsg();
  return std::string(call) + " failed: error " + std::to_string(code) +
         (msg && *msg ? std::string("\n") + msg : std::string());
}

#define OCR_ACL_CHECK(call)                \
  do {                                     \
    const aclError code_ = (call);         \
    if (code_ != ACL_SUCCESS) {            \
      *error = AclErrorText(#call, code_); \
      return false;                        \
    }                                      \
  } while (0)

std::unique_ptr<AclModel> AclModel::Load(const std::string& path, std::string* error) {
  std::unique_ptr<AclModel> m(new AclModel());
  m->path_ = path;
  const aclError load = aclmdlLoadFromFile(path.c_str(), &m->model_id_);
  if (load != ACL_SUCCESS) {
    *error = AclErrorText(("aclmdlLoadFromFile(" + path + ")").c_str(), load);
    return nullptr;
  }
  m->loaded_ = true;
  m->desc_ = aclmdlCreateDesc();
  if (m->desc_ == nullptr) {
    *error = "aclmdlCreateDesc failed";
    return nullptr;
  }
  const aclError desc = aclmdlGetDesc(m->desc_, m->model_id_);
  if (desc != ACL_SUCCESS) {
    *error = AclErrorText("aclmdlGetDesc", desc);
    return nullptr;
  }
  if (aclmdlGetNumInputs(m->desc_) != 1 || aclmdlGetNumOutputs(m->desc_) != 1 ||
      aclmdlGetInputDataType(m->desc_, 0) != ACL_FLOAT ||
      aclmdlGetOutputDataType(m->desc_, 0) != ACL_FLOAT) {
    *error = path + ": expected one float32 input and one float32 output (compile it without " +
             "--dynamic_batch_size/--dynamic_image_size/--dynamic_dims gears)";
    return nullptr;
  }
  aclmdlIODims dims;
  const aclError in_dims = aclmdlGetInputDims(m->desc_, 0, &dims);
  if (in_dims != ACL_SUCCESS) {
    *error = AclErrorText("aclmdlGetInputDims", in_dims);
    return nullptr;
  }
  m->input_dims_.assign(dims.dims, dims.dims + dims.dimCount);
  m->fixed_output_bytes_ = aclmdlGetOutputSizeByIndex(m->desc_, 0);
  return m;
}

AclModel::~AclModel() {
  if (device_input_) (void)aclrtFree(device_input_);
  if (device_output_) (void)aclrtFree(device_output_);
  if (desc_) (void)aclmdlDestroyDesc(desc_);
  if (loaded_) (void)aclmdlUnload(model_id_);
}

bool AclModel::EnsureBuffer(void** buffer, size_t* capacity, size_t bytes, std::string* error) {
  if (*capacity >= bytes && *buffer) return true;
  if (*buffer) OCR_ACL_CHECK(aclrtFree(*buffer));
  *buffer = nullptr;
  *capacity = 0;
  OCR_ACL_CHECK(aclrtMalloc(buffer, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  *capacity = bytes;
  return true;
}

bool AclModel::Run(const std::vector<float>& input, const std::vector<int64_t>& input_dims,
                   size_t max_output_elements, std::vector<float>* output,
                   std::vector<int64_t>* output_dims, std::string* error) {
  size_t count = 1;
  bool dynamic = false;
  if (input_dims.size() != input_dims_.size()) {
    *error = path_ + ": input rank " + std::to_string(input_dims.size()) + ", the model's " +
             std::to_string(input_dims_.size());
    return false;
  }
  for (size_t i = 0; i < input_dims.size(); ++i) {
    if (input_dims_[i] < 0) dynamic = true;
    if (input_dims[i] <= 0 || (input_dims_[i] >= 0 && input_dims[i] != input_dims_[i])) {
      *error = path_ + ": input dim " + std::to_string(i) + " is " + std::to_string(input_dims[i]) +
               ", the model takes " + std::to_string(input_dims_[i]);
      return false;
    }
    count *= static_cast<size_t>(input_dims[i]);
  }
  if (input.size() != count) {
    *error = path_ + ": " + std::to_string(input.size()) + " input values for " +
             std::to_string(count) + " elements";
    return false;
  }
  const size_t in_bytes = count * sizeof(float);
  const size_t out_bytes =
      fixed_output_bytes_ ? fixed_output_bytes_ : max_output_elements * sizeof(float);
  if (!EnsureBuffer(&device_input_, &input_capacity_, in_bytes, error) ||
      !EnsureBuffer(&device_output_, &output_capacity_, out_bytes, error)) {
    return false;
  }
  OCR_ACL_CHECK(aclrtMemcpy(device_input_, input_capacity_, input.data(), in_bytes,
                            ACL_MEMCPY_HOST_TO_DEVICE));

  // Datasets and descs are cheap; building them per execution keeps ownership simple.
  aclmdlDataset* in_set = aclmdlCreateDataset();
  aclmdlDataset* out_set = aclmdlCreateDataset();
  aclDataBuffer* in_buf = aclCreateDataBuffer(device_input_, in_bytes);
  aclDataBuffer* out_buf = aclCreateDataBuffer(device_output_, out_bytes);
  bool ok = in_set && out_set && in_buf && out_buf;
  if (!ok) *error = "creating the datasets failed";
  auto step = [&](const char* call, aclError code) {
    if (ok && code != ACL_SUCCESS) {
      *error = AclErrorText(call, code);
      ok = false;
    }
  };
  if (ok) step("aclmdlAddDatasetBuffer(input)", aclmdlAddDatasetBuffer(in_set, in_buf));
  if (ok) step("aclmdlAddDatasetBuffer(output)", aclmdlAddDatasetBuffer(out_set, out_buf));
  if (ok && dynamic) {
    // The real dims of a -1 input go with the dataset (it keeps a copy of the desc).
    aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, static_cast<int>(input_dims.size()),
                                              input_dims.data(), ACL_FORMAT_NCHW);
    if (desc == nullptr) {
      *error = "aclCreateTensorDesc failed";
      ok = false;
    }
    if (ok) step("aclmdlSetDatasetTensorDesc", aclmdlSetDatasetTensorDesc(in_set, desc, 0));
    aclDestroyTensorDesc(desc);
  }
  if (ok) step("aclmdlExecute", aclmdlExecute(model_id_, in_set, out_set));
  if (ok) {
    output_dims->clear();
    size_t out_count = 1;
    aclTensorDesc* out_desc = aclmdlGetDatasetTensorDesc(out_set, 0);
    if (out_desc != nullptr) {
      const size_t rank = aclGetTensorDescNumDims(out_desc);
      for (size_t i = 0; ok && i < rank; ++i) {
        int64_t d = 0;
        step("aclGetTensorDescDimV2", aclGetTensorDescDimV2(out_desc, i, &d));
        output_dims->push_back(d);
        out_count *= static_cast<size_t>(d);
      }
    } else {
      // No desc after the execution: the compiled output dims are the real ones.
      aclmdlIODims dims;
      step("aclmdlGetOutputDims", aclmdlGetOutputDims(desc_, 0, &dims));
      for (size_t i = 0; ok && i < dims.dimCount; ++i) {
        output_dims->push_back(dims.dims[i]);
        out_count *= static_cast<size_t>(dims.dims[i]);
      }
    }
    if (ok && out_count * sizeof(float) > out_bytes) {
      *error = path_ + ": the output has " + std::to_string(out_count) +
               " elements, more than the " + std::to_string(out_bytes / sizeof(float)) +
               " its buffer holds";
      ok = false;
    }
    if (ok) {
      output->resize(out_count);
      step("aclrtMemcpy(output)",
           aclrtMemcpy(output->data(), out_count * sizeof(float), device_output_,
                       out_count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    }
  }
  if (in_buf) (void)aclDestroyDataBuffer(in_buf);
  if (out_buf) (void)aclDestroyDataBuffer(out_buf);
  if (in_set) (void)aclmdlDestroyDataset(in_set);
  if (out_set) (void)aclmdlDestroyDataset(out_set);
  return ok;
}

}  // namespace ocr

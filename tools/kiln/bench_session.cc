// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/bench_session.h"

#include <chrono>
#include <cstring>
#include <sstream>

#include "tools/kiln/bench_io.h"

namespace kiln::tools::bench {
namespace {

using Clock = std::chrono::steady_clock;

double MsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? "," : "") + std::to_string(dims[k]);
  return "[" + s + "]";
}

std::vector<int64_t> DimsOf(const aclmdlIODims& d) {
  return std::vector<int64_t>(d.dims, d.dims + d.dimCount);
}

size_t BytesOf(const std::vector<int64_t>& dims, aclDataType dtype) {
  size_t n = aclDataTypeSize(dtype);
  for (int64_t d : dims) n *= d < 0 ? 0 : static_cast<size_t>(d);
  return n;
}

bool HasDynamicDim(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d < 0) return true;
  }
  return false;
}

// "name:1,3,224,224;name2:1,10" -> names and dims. Returns "" or the error.
std::string ParseDymDims(const std::string& text, std::vector<std::string>* names,
                         std::vector<std::vector<int64_t>>* dims) {
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ';');) {
    if (item.empty()) continue;
    const size_t colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()) {
      return " item '" + item + "' is not name:d0,d1,...";
    }
    names->push_back(item.substr(0, colon));
    std::vector<int64_t> d;
    std::stringstream values(item.substr(colon + 1));
    for (std::string v; std::getline(values, v, ',');) {
      char* end = nullptr;
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || x <= 0) {
        return " item '" + item + "': '" + v + "' is not a positive dim";
      }
      d.push_back(x);
    }
    dims->push_back(d);
  }
  if (names->empty()) return " '" + text + "' names no input";
  return "";
}

}  // namespace

std::string AclFailure(const char* call, aclError ret) {
  const char* msg = aclGetRecentErrMsg();
  std::string name = call;
  name = name.substr(0, name.find('('));  // "aclmdlExecute(model, in, out)" -> its name
  return name + " failed with error " + std::to_string(ret) +
         (msg != nullptr && *msg != '\0' ? std::string(": ") + msg : std::string());
}

#define BENCH_ACL(call)                                                  \
  do {                                                                   \
    const aclError bench_ret_ = (call);                                  \
    if (bench_ret_ != ACL_SUCCESS) return AclFailure(#call, bench_ret_); \
  } while (0)

// ---- Session ---------------------------------------------------------------------------------

Session::~Session() {
  for (auto& sample : samples_) {
    for (void* p : sample) (void)aclrtFreeHost(p);
  }
  if (desc_ != nullptr) (void)aclmdlDestroyDesc(desc_);
  if (loaded_) (void)aclmdlUnload(model_id_);
  if (context_ != nullptr) (void)aclrtDestroyContext(context_);
  if (device_ >= 0) (void)aclrtResetDevice(device_);
  if (initialized_) (void)aclFinalize();
}

std::string Session::Open(int device, const std::string& acl_json) {
  BENCH_ACL(aclInit(acl_json.empty() ? nullptr : acl_json.c_str()));
  initialized_ = true;
  uint32_t count = 0;
  BENCH_ACL(aclrtGetDeviceCount(&count));
  if (device < 0 || static_cast<uint32_t>(device) >= count) {
    return "--device " + std::to_string(device) + " does not exist: this machine has " +
           std::to_string(count) + " device(s), 0.." + std::to_string(count - 1);
  }
  BENCH_ACL(aclrtSetDevice(device));
  device_ = device;
  BENCH_ACL(aclrtCreateContext(&context_, device));
  return "";
}

std::string Session::Load(const std::string& om_path) {
  BENCH_ACL(aclmdlLoadFromFile(om_path.c_str(), &model_id_));
  loaded_ = true;
  desc_ = aclmdlCreateDesc();
  if (desc_ == nullptr) return "aclmdlCreateDesc returned NULL";
  BENCH_ACL(aclmdlGetDesc(desc_, model_id_));
  num_model_inputs_ = aclmdlGetNumInputs(desc_);
  for (size_t i = 0; i < num_model_inputs_; ++i) {
    const char* name = aclmdlGetInputNameByIndex(desc_, i);
    if (name != nullptr && std::strcmp(name, ACL_DYNAMIC_TENSOR_NAME) == 0) {
      gear_index_ = i;
      gear_capacity_ = aclmdlGetInputSizeByIndex(desc_, i);
      continue;
    }
    TensorInfo in;
    in.index = i;
    in.name = name != nullptr ? name : "";
    in.dtype = aclmdlGetInputDataType(desc_, i);
    aclmdlIODims dims{};
    BENCH_ACL(aclmdlGetInputDims(desc_, i, &dims));
    in.model_dims = DimsOf(dims);
    in.capacity = aclmdlGetInputSizeByIndex(desc_, i);
    inputs_.push_back(in);
  }
  for (size_t o = 0; o < aclmdlGetNumOutputs(desc_); ++o) {
    TensorInfo out;
    out.index = o;
    const char* name = aclmdlGetOutputNameByIndex(desc_, o);
    out.name = name != nullptr ? name : "";
    out.dtype = aclmdlGetOutputDataType(desc_, o);
    aclmdlIODims dims{};
    BENCH_ACL(aclmdlGetOutputDims(desc_, o, &dims));
    out.model_dims = DimsOf(dims);
    out.capacity = aclmdlGetOutputSizeByIndex(desc_, o);
    outputs_.push_back(out);
  }
  return "";
}

// The model's gears, for messages: "batch gears 1,2,4", ... or "no gears".
std::string Session::GearsOfModel() const {
  if (gear_index_ == SIZE_MAX) return "it was compiled without gears";
  aclmdlBatch batch{};
  if (aclmdlGetDynamicBatch(desc_, &batch) == ACL_SUCCESS && batch.batchCount > 0) {
    std::string s = "its batch gears are ";
    for (size_t k = 0; k < batch.batchCount; ++k) {
      s += (k ? "," : "") + std::to_string(batch.batch[k]);
    }
    return s + " (--dymBatch)";
  }
  aclmdlHW hw{};
  if (aclmdlGetDynamicHW(desc_, SIZE_MAX, &hw) == ACL_SUCCESS && hw.hwCount > 0) {
    std::string s = "its image size gears are ";
    for (size_t k = 0; k < hw.hwCount; ++k) {
      s += (k ? ";" : "") + std::to_string(hw.hw[k][0]) + "," + std::to_string(hw.hw[k][1]);
    }
    return s + " (--dymHW)";
  }
  size_t count = 0;
  if (aclmdlGetInputDynamicGearCount(desc_, SIZE_MAX, &count) == ACL_SUCCESS && count > 0) {
    std::vector<aclmdlIODims> gears(count);
    if (aclmdlGetInputDynamicDims(desc_, SIZE_MAX, gears.data(), count) == ACL_SUCCESS) {
      std::string s = "its dims gears are ";
      for (size_t k = 0; k < count; ++k) s += (k ? ";" : "") + DimsText(DimsOf(gears[k]));
      return s + " (--dymDims)";
    }
  }
  return "it has gears of an unknown kind";
}

std::string Session::ResolveDims(TensorInfo& in, const std::vector<std::string>& dym_names,
                                 const std::vector<std::vector<int64_t>>& dym_dims) {
  in.dims = in.model_dims;
  const std::string what =
      "input " + std::to_string(in.index) + " '" + in.name + "' " + DimsText(in.model_dims);
  const std::string flag = gear_.kind == GearChoice::kShape ? "--dymShape" : "--dymDims";
  switch (gear_.kind) {
    case GearChoice::kBatch:
      for (int64_t& d : in.dims) {
        if (d < 0) d = static_cast<int64_t>(gear_.batch);
      }
      break;
    case GearChoice::kHW: {
      int seen = 0;
      for (int64_t& d : in.dims) {
        if (d < 0) d = static_cast<int64_t>(seen++ == 0 ? gear_.height : gear_.width);
      }
      if (seen != 0 && seen != 2)
        return what + " has " + std::to_string(seen) + " dynamic dims, --dymHW sets 2";
      break;
    }
    case GearChoice::kDims:
    case GearChoice::kShape:
      for (size_t k = 0; k < dym_names.size(); ++k) {
        if (dym_names[k] != in.name) continue;
        const auto& given = dym_dims[k];
        if (given.size() != in.model_dims.size()) {
          return flag + " gives " + std::to_string(given.size()) + " dims for " + what;
        }
        for (size_t j = 0; j < given.size(); ++j) {
          if (in.model_dims[j] >= 0 && in.model_dims[j] != given[j]) {
            return flag + " gives " + DimsText(given) + " for " + what +
                   ", whose static dims differ";
          }
        }
        in.dims = given;
      }
      break;
    case GearChoice::kNone:
      break;
  }
  if (HasDynamicDim(in.dims)) {
    if (gear_.kind == GearChoice::kNone && gear_index_ != SIZE_MAX) {
      return what + " is dynamic: choose a gear; " + GearsOfModel();
    }
    if (gear_.kind == GearChoice::kDims || gear_.kind == GearChoice::kShape) {
      return flag + " gives no dims for " + what;
    }
    return what +
           " has dynamic dims and the model has no gears: give its real dims with --dymShape "
           "(and --outputSize), or fix them (an .onnx's --input_shape, kiln atc --input_shape "
           "or gears)";
  }
  in.bytes = BytesOf(in.dims, in.dtype);
  if (gear_.kind == GearChoice::kShape && in.capacity < in.bytes) in.capacity = in.bytes;
  if (in.bytes > in.capacity) {
    return what + " at " + DimsText(in.dims) + " needs " + std::to_string(in.bytes) +
           " bytes, more than the model's " + std::to_string(in.capacity);
  }
  return "";
}

std::string Session::ChooseGear(const GearChoice& gear) {
  gear_ = gear;
  if (gear_.kind != GearChoice::kNone && gear_.kind != GearChoice::kShape &&
      gear_index_ == SIZE_MAX) {
    static const char* kFlags[] = {"", "--dymBatch", "--dymHW", "--dymDims"};
    return std::string(kFlags[gear_.kind]) +
           " was given but the model was compiled without gears (kiln atc "
           "--dynamic_batch_size/--dynamic_image_size/--dynamic_dims)";
  }
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> dims;
  if (gear_.kind == GearChoice::kShape && gear_index_ != SIZE_MAX) {
    return "--dymShape is for a model with dynamic dims and no gears; " + GearsOfModel();
  }
  const std::string flag = gear_.kind == GearChoice::kShape ? "--dymShape" : "--dymDims";
  if (gear_.kind == GearChoice::kDims || gear_.kind == GearChoice::kShape) {
    std::string err = ParseDymDims(gear_.dims_text, &names, &dims);
    if (!err.empty()) return flag + err;
    for (const std::string& name : names) {
      bool found = false;
      for (const auto& in : inputs_) found = found || in.name == name;
      if (!found) {
        std::string known;
        for (const auto& in : inputs_) known += (known.empty() ? "" : ", ") + in.name;
        return flag + " names '" + name + "', which is not a model input (" + known + ")";
      }
    }
  }
  gear_dims_ = aclmdlIODims{};
  for (auto& in : inputs_) {
    std::string err = ResolveDims(in, names, dims);
    if (!err.empty()) return err;
    for (int64_t d : in.dims) {
      if (gear_dims_.dimCount < ACL_MAX_DIM_CNT) gear_dims_.dims[gear_dims_.dimCount++] = d;
    }
  }
  if (!gear_.output_sizes.empty() && gear_.output_sizes.size() != outputs_.size()) {
    return "--outputSize gives " + std::to_string(gear_.output_sizes.size()) +
           " size(s); the model has " + std::to_string(outputs_.size()) + " output(s)";
  }
  for (size_t o = 0; o < outputs_.size(); ++o) {
    TensorInfo& out = outputs_[o];
    if (!gear_.output_sizes.empty() && gear_.output_sizes[o] > 0) {
      out.capacity = gear_.output_sizes[o];
    }
    out.dims = out.model_dims;
    out.bytes = HasDynamicDim(out.dims) ? out.capacity : BytesOf(out.dims, out.dtype);
    if (out.capacity == 0) {
      return "output " + std::to_string(o) + " '" + out.name + "' " + DimsText(out.model_dims) +
             " has no size in the model: give every output's buffer size in bytes with "
             "--outputSize";
    }
  }
  return "";
}

std::string Session::GearText() const {
  switch (gear_.kind) {
    case GearChoice::kBatch:
      return "batch " + std::to_string(gear_.batch);
    case GearChoice::kHW:
      return "hw " + std::to_string(gear_.height) + "," + std::to_string(gear_.width);
    case GearChoice::kDims:
      return "dims " + gear_.dims_text;
    case GearChoice::kShape:
      return "shape " + gear_.dims_text;
    case GearChoice::kNone:
      break;
  }
  return "";
}

std::string Session::SetSamples(const std::vector<std::vector<std::vector<char>>>& samples) {
  for (const auto& sample : samples) {
    samples_.emplace_back();
    for (size_t i = 0; i < sample.size(); ++i) {
      void* host = nullptr;
      BENCH_ACL(aclrtMallocHost(&host, sample[i].size() == 0 ? 1 : sample[i].size()));
      samples_.back().push_back(host);
      std::memcpy(host, sample[i].data(), sample[i].size());
    }
  }
  return "";
}

void Session::RefreshOutputDims(const aclmdlDataset* output) {
  for (auto& out : outputs_) {
    std::vector<int64_t> dims;
    aclTensorDesc* desc = aclmdlGetDatasetTensorDesc(output, out.index);
    if (desc != nullptr) {
      for (size_t k = 0; k < aclGetTensorDescNumDims(desc); ++k) {
        int64_t d = 0;
        if (aclGetTensorDescDimV2(desc, k, &d) != ACL_SUCCESS) break;
        dims.push_back(d);
      }
    } else {
      aclmdlIODims cur{};
      if (aclmdlGetCurOutputDims(desc_, out.index, &cur) != ACL_SUCCESS) continue;
      dims = DimsOf(cur);
    }
    if (dims.empty() && !out.model_dims.empty()) continue;
    if (HasDynamicDim(dims)) continue;
    const size_t bytes = BytesOf(dims, out.dtype);
    if (bytes > out.capacity) continue;
    out.dims = dims;
    out.bytes = bytes;
  }
}

// ---- Worker ----------------------------------------------------------------------------------

Worker::Worker(Session* session, bool use_stream, size_t output_sets)
    : session_(session), use_stream_(use_stream), out_host_(output_sets == 0 ? 1 : output_sets) {}

Worker::~Worker() {
  for (aclmdlDataset* set : {in_, out_}) {
    if (set == nullptr) continue;
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) {
      aclDataBuffer* buffer = aclmdlGetDatasetBuffer(set, i);
      (void)aclrtFree(aclGetDataBufferAddr(buffer));
      (void)aclDestroyDataBuffer(buffer);
    }
    (void)aclmdlDestroyDataset(set);
  }
  for (auto& set : out_host_) {
    for (void* p : set) (void)aclrtFreeHost(p);
  }
  if (stream_ != nullptr) (void)aclrtDestroyStream(stream_);
}

std::string Worker::Prepare() {
  Session& s = *session_;
  in_ = aclmdlCreateDataset();
  out_ = aclmdlCreateDataset();
  if (in_ == nullptr || out_ == nullptr) return "aclmdlCreateDataset returned NULL";
  // Buffers in the model's input order, the gear input included.
  in_dev_.assign(s.num_model_inputs_, nullptr);
  for (size_t i = 0; i < s.num_model_inputs_; ++i) {
    size_t size = i == s.gear_index_ ? s.gear_capacity_ : 0;
    for (const auto& in : s.inputs_) {
      if (in.index == i) size = in.capacity;
    }
    BENCH_ACL(aclrtMalloc(&in_dev_[i], size == 0 ? 1 : size, ACL_MEM_MALLOC_HUGE_FIRST));
    aclDataBuffer* buffer = aclCreateDataBuffer(in_dev_[i], size);
    if (buffer == nullptr) return "aclCreateDataBuffer returned NULL";
    BENCH_ACL(aclmdlAddDatasetBuffer(in_, buffer));
  }
  for (const auto& out : s.outputs_) {
    void* dev = nullptr;
    BENCH_ACL(aclrtMalloc(&dev, out.capacity == 0 ? 1 : out.capacity, ACL_MEM_MALLOC_HUGE_FIRST));
    out_dev_.push_back(dev);
    aclDataBuffer* buffer = aclCreateDataBuffer(dev, out.capacity);
    if (buffer == nullptr) return "aclCreateDataBuffer returned NULL";
    BENCH_ACL(aclmdlAddDatasetBuffer(out_, buffer));
    for (auto& set : out_host_) {
      void* host = nullptr;
      BENCH_ACL(aclrtMallocHost(&host, out.capacity == 0 ? 1 : out.capacity));
      set.push_back(host);
    }
  }
  const GearChoice& g = s.gear_;
  aclError ret = ACL_SUCCESS;
  const char* call = "";
  switch (g.kind) {
    case GearChoice::kBatch:
      call = "aclmdlSetDynamicBatchSize";
      ret = aclmdlSetDynamicBatchSize(s.model_id_, in_, s.gear_index_, g.batch);
      break;
    case GearChoice::kHW:
      call = "aclmdlSetDynamicHWSize";
      ret = aclmdlSetDynamicHWSize(s.model_id_, in_, s.gear_index_, g.height, g.width);
      break;
    case GearChoice::kDims:
      call = "aclmdlSetInputDynamicDims";
      ret = aclmdlSetInputDynamicDims(s.model_id_, in_, s.gear_index_, &s.gear_dims_);
      break;
    case GearChoice::kShape:
      call = "aclmdlSetDatasetTensorDesc";
      for (const auto& in : s.inputs_) {
        aclTensorDesc* desc = aclCreateTensorDesc(in.dtype, static_cast<int>(in.dims.size()),
                                                  in.dims.data(), ACL_FORMAT_ND);
        if (desc == nullptr) return "aclCreateTensorDesc returned NULL";
        ret = aclmdlSetDatasetTensorDesc(in_, desc, in.index);
        aclDestroyTensorDesc(desc);
        if (ret != ACL_SUCCESS) break;
      }
      break;
    case GearChoice::kNone:
      break;
  }
  if (ret != ACL_SUCCESS) {
    return AclFailure(call, ret) + " (gear " + s.GearText() + "; " + s.GearsOfModel() + ")";
  }
  return "";
}

std::string Worker::StartThread() {
  if (use_stream_ && stream_ == nullptr) BENCH_ACL(aclrtCreateStream(&stream_));
  return "";
}

std::string Worker::Copy(void* dst, size_t dst_max, const void* src, size_t count,
                         aclrtMemcpyKind kind) {
  if (count == 0) return "";
  if (use_stream_) {
    BENCH_ACL(aclrtMemcpyAsync(dst, dst_max, src, count, kind, stream_));
    BENCH_ACL(aclrtSynchronizeStream(stream_));
  } else {
    BENCH_ACL(aclrtMemcpy(dst, dst_max, src, count, kind));
  }
  return "";
}

std::string Worker::Run(size_t sample, PhaseTimes* times) {
  Session& s = *session_;
  const auto t0 = Clock::now();
  const std::vector<void*>& host_in = s.samples_[sample % s.samples_.size()];
  for (size_t k = 0; k < s.inputs_.size(); ++k) {
    const TensorInfo& in = s.inputs_[k];
    std::string err =
        Copy(in_dev_[in.index], in.capacity, host_in[k], in.bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    if (!err.empty()) return err;
  }
  const auto t1 = Clock::now();
  if (use_stream_) {
    BENCH_ACL(aclmdlExecuteAsync(s.model_id_, in_, out_, stream_));
    BENCH_ACL(aclrtSynchronizeStream(stream_));
  } else {
    BENCH_ACL(aclmdlExecute(s.model_id_, in_, out_));
  }
  const auto t2 = Clock::now();
  const std::vector<void*>& host_out = out_host_[sample % out_host_.size()];
  for (size_t o = 0; o < s.outputs_.size(); ++o) {
    const TensorInfo& out = s.outputs_[o];
    std::string err =
        Copy(host_out[o], out.capacity, out_dev_[o], out.bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    if (!err.empty()) return err;
  }
  const auto t3 = Clock::now();
  times->h2d = MsBetween(t0, t1);
  times->compute = MsBetween(t1, t2);
  times->d2h = MsBetween(t2, t3);
  return "";
}

}  // namespace kiln::tools::bench

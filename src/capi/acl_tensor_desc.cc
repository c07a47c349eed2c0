// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclTensorDesc: dtype, format and shape of a tensor, with the optional names, ranges and
// constant data the AscendCL API can attach.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "capi/error.h"
#include "capi/handle_table.h"
#include "capi/model_handles.h"
#include "capi/op_objects.h"

using kiln::capi::InvalidParam;

namespace {

// What an aclTensorDesc handle names.
struct TensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> dims;
  aclFormat origin_format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> origin_dims;
  aclFormat storage_format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> storage_dims;
  std::vector<std::array<int64_t, 2>> shape_range;
  std::vector<std::array<int64_t, 2>> value_range;
  std::string name;
  std::string dynamic_input;
  std::vector<unsigned char> const_data;
  aclMemType placement = ACL_MEMTYPE_DEVICE;
  void* address = nullptr;
};

constexpr int kMaxDims = 128;  // ACL_MAX_DIM_CNT
constexpr int64_t kUnknownRankDim = -2;

kiln::capi::HandleTable<aclTensorDesc, TensorDesc>& Descs() {
  static auto* table =
      new kiln::capi::HandleTable<aclTensorDesc, TensorDesc>("desc", "aclTensorDesc");
  return *table;
}

// The descriptor when it is live; otherwise records why not and returns null.
std::shared_ptr<TensorDesc> Live(const char* api, const aclTensorDesc* desc) {
  return Descs().Live(api, desc);
}

bool UnknownRank(const TensorDesc& d) { return d.dims.size() == 1 && d.dims[0] == kUnknownRankDim; }

aclError ReadDims(const char* api, int numDims, const int64_t* dims, std::vector<int64_t>* out) {
  if (numDims < 0 || numDims > kMaxDims) {
    return InvalidParam(api, "numDims ", numDims, " is out of range 0..", kMaxDims);
  }
  if (numDims > 0 && dims == nullptr)
    return InvalidParam(api, "dims is NULL but numDims is ", numDims);
  for (int i = 0; i < numDims; ++i) {
    if (dims[i] < kUnknownRankDim)
      return InvalidParam(api, "dims[", i, "] = ", dims[i], " is invalid");
  }
  out->assign(dims, dims + numDims);
  return ACL_SUCCESS;
}

}  // namespace

bool kiln::capi::ReadTensorDescDims(const aclTensorDesc* desc, std::vector<int64_t>* dims) {
  std::shared_ptr<TensorDesc> d = Descs().Find(desc);
  if (d == nullptr) return false;
  dims->assign(d->dims.begin(), d->dims.end());
  return true;
}

bool kiln::capi::TensorDescSays(const aclTensorDesc* desc, aclDataType dtype, aclFormat format,
                                const std::vector<int64_t>& dims) {
  std::shared_ptr<TensorDesc> d = Descs().Find(desc);
  return d != nullptr && d->dtype == dtype && d->format == format && d->dims == dims;
}

bool kiln::capi::ReadOpTensorDesc(const aclTensorDesc* desc, kiln::compiler::OpTensorDesc* out,
                                  bool* host) {
  std::shared_ptr<TensorDesc> d = Descs().Find(desc);
  if (d == nullptr) return false;
  out->dtype = d->dtype;
  out->format = d->format;
  out->dims = d->dims;
  out->name = d->name;
  out->range.clear();
  // CANN gives a range per dim; the description keeps those of the -1 dims.
  size_t dynamic = 0;
  for (int64_t v : d->dims) dynamic += v == -1;
  for (size_t i = 0; i < d->shape_range.size(); ++i) {
    if (d->shape_range.size() == d->dims.size() && d->dims[i] != -1) continue;
    if (d->shape_range.size() != d->dims.size() && d->shape_range.size() != dynamic) break;
    out->range.emplace_back(d->shape_range[i][0], d->shape_range[i][1]);
  }
  out->is_const = !d->const_data.empty();
  out->const_value.assign(d->const_data.begin(), d->const_data.end());
  *host = d->placement == ACL_MEMTYPE_HOST;
  return true;
}

bool kiln::capi::WriteOpTensorDesc(aclTensorDesc* desc, const kiln::compiler::OpTensorDesc& t) {
  std::shared_ptr<TensorDesc> d = Descs().Find(desc);
  if (d == nullptr) return false;
  d->dtype = static_cast<aclDataType>(t.dtype);
  d->format = static_cast<aclFormat>(t.format);
  d->dims = t.dims;
  d->shape_range.clear();
  size_t r = 0;
  for (int64_t v : t.dims) {
    if (v >= 0) {
      d->shape_range.push_back({v, v});
    } else if (r < t.range.size()) {
      d->shape_range.push_back({t.range[r].first, t.range[r].second});
      ++r;
    } else {
      d->shape_range.push_back({0, -1});
    }
  }
  return true;
}

extern "C" {

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims,
                                   aclFormat format) {
  try {
    std::vector<int64_t> shape;
    if (ReadDims("aclCreateTensorDesc", numDims, dims, &shape) != ACL_SUCCESS) return nullptr;
    auto desc = std::make_shared<TensorDesc>();
    desc->dtype = dataType;
    desc->format = format;
    desc->dims = std::move(shape);
    desc->origin_format = format;
    desc->origin_dims = desc->dims;
    desc->storage_format = format;
    desc->storage_dims = desc->dims;
    return Descs().Add(std::move(desc));
  } catch (...) {
    kiln::capi::Report("aclCreateTensorDesc",
                       kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  if (desc == nullptr) return;
  if (Descs().Remove(desc) == nullptr) InvalidParam("aclDestroyTensorDesc", Descs().NotLive(desc));
}

aclError aclSetTensorShapeRange(aclTensorDesc* desc, size_t dimsCount,
                                int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]) {
  KILN_CAPI("aclSetTensorShapeRange", {
    auto d = Live("aclSetTensorShapeRange", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (dimsCount > 0 && dimsRange == nullptr) {
      return InvalidParam("aclSetTensorShapeRange", "dimsRange is NULL but dimsCount is ",
                          dimsCount);
    }
    d->shape_range.clear();
    for (size_t i = 0; i < dimsCount; ++i)
      d->shape_range.push_back({dimsRange[i][0], dimsRange[i][1]});
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorValueRange(aclTensorDesc* desc, size_t valueCount,
                                int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM]) {
  KILN_CAPI("aclSetTensorValueRange", {
    auto d = Live("aclSetTensorValueRange", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (valueCount > 0 && valueRange == nullptr) {
      return InvalidParam("aclSetTensorValueRange", "valueRange is NULL but valueCount is ",
                          valueCount);
    }
    d->value_range.clear();
    for (size_t i = 0; i < valueCount; ++i)
      d->value_range.push_back({valueRange[i][0], valueRange[i][1]});
    return ACL_SUCCESS;
  });
}

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
  auto d = Live("aclGetTensorDescType", desc);
  return d ? d->dtype : ACL_DT_UNDEFINED;
}

aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
  auto d = Live("aclGetTensorDescFormat", desc);
  return d ? d->format : ACL_FORMAT_UNDEFINED;
}

size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
  auto d = Live("aclGetTensorDescElementCount", desc);
  if (d == nullptr) return 0;
  size_t count = 1;
  for (int64_t dim : d->dims) {
    if (dim < 0) return 0;  // dynamic: unknown until run time
    if (__builtin_mul_overflow(count, static_cast<size_t>(dim), &count)) {
      InvalidParam("aclGetTensorDescElementCount", "the element count overflows size_t");
      return 0;
    }
  }
  return count;
}

size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
  auto d = Live("aclGetTensorDescSize", desc);
  if (d == nullptr) return 0;
  size_t bytes;
  if (__builtin_mul_overflow(aclGetTensorDescElementCount(desc), aclDataTypeSize(d->dtype),
                             &bytes)) {
    InvalidParam("aclGetTensorDescSize", "the byte size overflows size_t");
    return 0;
  }
  return bytes;
}

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
  auto d = Live("aclGetTensorDescNumDims", desc);
  if (d == nullptr) return 0;
  return UnknownRank(*d) ? ACL_UNKNOWN_RANK : d->dims.size();
}

int64_t aclGetTensorDescDim(const aclTensorDesc* desc, size_t index) {
  auto d = Live("aclGetTensorDescDim", desc);
  if (d == nullptr) return -1;
  if (index >= d->dims.size()) {
    InvalidParam("aclGetTensorDescDim", "index ", index, " is out of range for ", d->dims.size(),
                 " dims");
    return -1;
  }
  return d->dims[index];
}

aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
  KILN_CAPI("aclGetTensorDescDimV2", {
    if (dimSize == nullptr) return InvalidParam("aclGetTensorDescDimV2", "dimSize is NULL");
    auto d = Live("aclGetTensorDescDimV2", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (index >= d->dims.size()) {
      return InvalidParam("aclGetTensorDescDimV2", "index ", index, " is out of range for ",
                          d->dims.size(), " dims");
    }
    *dimSize = d->dims[index];
    return ACL_SUCCESS;
  });
}

aclError aclGetTensorDescDimRange(const aclTensorDesc* desc, size_t index, size_t dimRangeNum,
                                  int64_t* dimRange) {
  KILN_CAPI("aclGetTensorDescDimRange", {
    if (dimRange == nullptr) return InvalidParam("aclGetTensorDescDimRange", "dimRange is NULL");
    if (dimRangeNum < ACL_TENSOR_SHAPE_RANGE_NUM) {
      return InvalidParam("aclGetTensorDescDimRange", "dimRangeNum ", dimRangeNum, " is below ",
                          ACL_TENSOR_SHAPE_RANGE_NUM);
    }
    auto d = Live("aclGetTensorDescDimRange", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (index < d->shape_range.size()) {
      dimRange[0] = d->shape_range[index][0];
      dimRange[1] = d->shape_range[index][1];
      return ACL_SUCCESS;
    }
    if (index < d->dims.size() && d->dims[index] >= 0) {  // a static dim is its own range
      dimRange[0] = dimRange[1] = d->dims[index];
      return ACL_SUCCESS;
    }
    return InvalidParam("aclGetTensorDescDimRange", "dim ", index, " has no range set");
  });
}

void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  auto d = Live("aclSetTensorDescName", desc);
  if (d != nullptr) d->name = name ? name : "";
}

const char* aclGetTensorDescName(aclTensorDesc* desc) {
  if (desc == nullptr) return "";
  auto d = Live("aclGetTensorDescName", desc);
  return d ? d->name.c_str() : "";
}

aclError aclTransTensorDescFormat(const aclTensorDesc* srcDesc, aclFormat dstFormat,
                                  aclTensorDesc** dstDesc) {
  KILN_CAPI("aclTransTensorDescFormat", {
    if (dstDesc == nullptr) return InvalidParam("aclTransTensorDescFormat", "dstDesc is NULL");
    *dstDesc = nullptr;
    auto src = Live("aclTransTensorDescFormat", srcDesc);
    if (src == nullptr) return ACL_ERROR_INVALID_PARAM;
    std::vector<int64_t> dims = src->dims;
    bool four_d = dims.size() == 4;
    if (src->format == dstFormat || dstFormat == ACL_FORMAT_ND) {
      // same layout, or a relabel as plain ND
    } else if (four_d && src->format == ACL_FORMAT_NCHW && dstFormat == ACL_FORMAT_NHWC) {
      dims = {src->dims[0], src->dims[2], src->dims[3], src->dims[1]};
    } else if (four_d && src->format == ACL_FORMAT_NHWC && dstFormat == ACL_FORMAT_NCHW) {
      dims = {src->dims[0], src->dims[3], src->dims[1], src->dims[2]};
    } else {
      return kiln::capi::Report(
          "aclTransTensorDescFormat",
          kiln::Error(ACL_ERROR_FORMAT_NOT_MATCH, "no transformation from format ",
                      static_cast<int>(src->format), " to ", static_cast<int>(dstFormat), " for a ",
                      dims.size(),
                      "-d tensor: Kiln devices use ND, NCHW and NHWC (NPU fractal formats do not "
                      "exist here)"));
    }
    auto out = std::make_shared<TensorDesc>(*src);
    out->format = dstFormat;
    out->dims = std::move(dims);
    *dstDesc = Descs().Add(std::move(out));
    return ACL_SUCCESS;
  });
}

static aclError SetFormat(const char* api, aclTensorDesc* desc, aclFormat format,
                          aclFormat TensorDesc::*field) {
  auto d = Live(api, desc);
  if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
  (*d).*field = format;
  return ACL_SUCCESS;
}

static aclError SetShape(const char* api, aclTensorDesc* desc, int numDims, const int64_t* dims,
                         std::vector<int64_t> TensorDesc::*field) {
  auto d = Live(api, desc);
  if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
  return ReadDims(api, numDims, dims, &((*d).*field));
}

aclError aclSetTensorStorageFormat(aclTensorDesc* desc, aclFormat format) {
  KILN_CAPI("aclSetTensorStorageFormat", {
    return SetFormat("aclSetTensorStorageFormat", desc, format, &TensorDesc::storage_format);
  });
}

aclError aclSetTensorStorageShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  KILN_CAPI("aclSetTensorStorageShape", {
    return SetShape("aclSetTensorStorageShape", desc, numDims, dims, &TensorDesc::storage_dims);
  });
}

aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format) {
  KILN_CAPI("aclSetTensorFormat",
            { return SetFormat("aclSetTensorFormat", desc, format, &TensorDesc::format); });
}

aclError aclSetTensorShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  KILN_CAPI("aclSetTensorShape",
            { return SetShape("aclSetTensorShape", desc, numDims, dims, &TensorDesc::dims); });
}

aclError aclSetTensorOriginFormat(aclTensorDesc* desc, aclFormat format) {
  KILN_CAPI("aclSetTensorOriginFormat", {
    return SetFormat("aclSetTensorOriginFormat", desc, format, &TensorDesc::origin_format);
  });
}

aclError aclSetTensorOriginShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  KILN_CAPI("aclSetTensorOriginShape", {
    return SetShape("aclSetTensorOriginShape", desc, numDims, dims, &TensorDesc::origin_dims);
  });
}

aclTensorDesc* aclGetTensorDescByIndex(aclTensorDesc* desc, size_t index) {
  auto d = Live("aclGetTensorDescByIndex", desc);
  if (d == nullptr) return nullptr;
  if (index != 0) {
    // Descriptors are created one at a time here, so only index 0 of one exists.
    InvalidParam("aclGetTensorDescByIndex", "index ", index, " is out of range for one descriptor");
    return nullptr;
  }
  return desc;
}

void* aclGetTensorDescAddress(const aclTensorDesc* desc) {
  auto d = Live("aclGetTensorDescAddress", desc);
  return d ? d->address : nullptr;
}

aclError aclSetTensorDynamicInput(aclTensorDesc* desc, const char* dynamicInputName) {
  KILN_CAPI("aclSetTensorDynamicInput", {
    if (dynamicInputName == nullptr) {
      return InvalidParam("aclSetTensorDynamicInput", "dynamicInputName is NULL");
    }
    auto d = Live("aclSetTensorDynamicInput", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    d->dynamic_input = dynamicInputName;
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer, size_t length) {
  KILN_CAPI("aclSetTensorConst", {
    if (dataBuffer == nullptr || length == 0) {
      return InvalidParam("aclSetTensorConst", "dataBuffer is NULL or length is 0");
    }
    auto d = Live("aclSetTensorConst", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    const auto* bytes = static_cast<const unsigned char*>(dataBuffer);
    d->const_data.assign(bytes, bytes + length);  // copied: the caller may free its buffer
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType) {
  KILN_CAPI("aclSetTensorPlaceMent", {
    int type = kiln::capi::EnumInt(memType);
    if (type != ACL_MEMTYPE_DEVICE && type != ACL_MEMTYPE_HOST &&
        type != ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT) {
      return InvalidParam("aclSetTensorPlaceMent", "memType ", type, " is not an aclMemType");
    }
    auto d = Live("aclSetTensorPlaceMent", desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    d->placement = memType;
    return ACL_SUCCESS;
  });
}

}  // extern "C"

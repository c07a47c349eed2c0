// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The model API's AIPP queries (docs/aipp.md): which inputs static AIPP feeds, and its
// configuration as the model executes it.
#include <cstring>
#include <optional>
#include <vector>

#include "capi/error.h"
#include "capi/model_handles.h"
#include "compiler/aipp_config.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::compiler::AippConfig;
using kiln::compiler::AippMode;
using kiln::runtime::ModelTable;

namespace {

// The model's static AIPP block for input `index`, or nullopt; fails (recorded for `api`) for a
// model id that is not loaded, an index past the inputs or a record that does not decode.
struct Found {
  std::shared_ptr<kiln::runtime::Model> model;
  std::optional<AippConfig> config;
};

kiln::Result<Found> StaticBlock(const char* api, uint32_t model_id, size_t index) {
  Found f;
  KILN_ASSIGN_OR_RETURN(f.model, ModelTable::Get().Find(model_id));
  const kiln::runtime::ModelInfo& info = f.model->info();
  if (index >= info.inputs.size()) {
    return kiln::Error(kiln::code::kInvalidParam, api, ": index ", index,
                       " is out of range: model ", model_id, " has ", info.inputs.size(),
                       " input(s)");
  }
  KILN_ASSIGN_OR_RETURN(std::vector<AippConfig> configs,
                        kiln::compiler::AippFromKeyValues(info.aipp));
  for (const AippConfig& c : configs) {
    if (c.aipp_mode == AippMode::kStatic && static_cast<size_t>(c.related_input_rank) == index &&
        info.inputs[index].aipp_out != nullptr) {
      f.config = c;
    }
  }
  return f;
}

size_t Bytes(const kiln::runtime::IoDesc& io) { return static_cast<size_t>(io.bytes); }

}  // namespace

aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType* type,
                           size_t* dynamicAttachedDataIndex) {
  KILN_CAPI("aclmdlGetAippType", {
    if (type == nullptr) return InvalidParam("aclmdlGetAippType", "type is NULL");
    if (dynamicAttachedDataIndex == nullptr) {
      return InvalidParam("aclmdlGetAippType", "dynamicAttachedDataIndex is NULL");
    }
    auto found = StaticBlock("aclmdlGetAippType", modelId, index);
    if (!found.ok()) return Report("aclmdlGetAippType", found.status());
    *type = found->config ? ACL_DATA_WITH_STATIC_AIPP : ACL_DATA_WITHOUT_AIPP;
    *dynamicAttachedDataIndex = ACL_INVALID_NODE_INDEX;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo* aippInfo) {
  KILN_CAPI("aclmdlGetFirstAippInfo", {
    if (aippInfo == nullptr) return InvalidParam("aclmdlGetFirstAippInfo", "aippInfo is NULL");
    auto found = StaticBlock("aclmdlGetFirstAippInfo", modelId, index);
    if (!found.ok()) return Report("aclmdlGetFirstAippInfo", found.status());
    if (!found->config) {
      return Report("aclmdlGetFirstAippInfo",
                    kiln::Error(kiln::code::kGeAippNotExist, "input ", index, " of model ", modelId,
                                " has no static aipp"));
    }
    const AippConfig& c = *found->config;
    const kiln::runtime::IoDesc& image = found->model->info().inputs[index];
    const kiln::runtime::IoDesc& model_in = *image.aipp_out;
    // What the model reads: [N, C, H, W]; the source size as executed (0 in the file: the
    // image's), the crop size likewise (0: the model's H / W without the padding).
    const int64_t h = model_in.dims[2], w = model_in.dims[3];
    const int32_t pad_w = c.padding ? c.left_padding_size + c.right_padding_size : 0;
    const int32_t pad_h = c.padding ? c.top_padding_size + c.bottom_padding_size : 0;
    aclAippInfo& a = *aippInfo;
    std::memset(&a, 0, sizeof a);
    a.inputFormat = static_cast<aclAippInputFormat>(c.input_format);
    a.srcImageSizeW =
        c.src_image_size_w > 0 ? c.src_image_size_w : static_cast<int32_t>(image.dims[2]);
    a.srcImageSizeH = c.src_image_size_h > 0 ? c.src_image_size_h : static_cast<int32_t>(h);
    a.cropSwitch = c.crop;
    a.loadStartPosW = c.load_start_pos_w;
    a.loadStartPosH = c.load_start_pos_h;
    a.cropSizeW =
        c.crop ? (c.crop_size_w > 0 ? c.crop_size_w : static_cast<int32_t>(w) - pad_w) : 0;
    a.cropSizeH =
        c.crop ? (c.crop_size_h > 0 ? c.crop_size_h : static_cast<int32_t>(h) - pad_h) : 0;
    a.paddingSwitch = c.padding;
    a.leftPaddingSize = c.left_padding_size;
    a.rightPaddingSize = c.right_padding_size;
    a.topPaddingSize = c.top_padding_size;
    a.bottomPaddingSize = c.bottom_padding_size;
    a.cscSwitch = c.csc_switch;
    a.rbuvSwapSwitch = c.rbuv_swap_switch;
    a.axSwapSwitch = c.ax_swap_switch;
    int32_t* matrix[] = {&a.matrixR0C0, &a.matrixR0C1, &a.matrixR0C2, &a.matrixR1C0, &a.matrixR1C1,
                         &a.matrixR1C2, &a.matrixR2C0, &a.matrixR2C1, &a.matrixR2C2};
    for (int i = 0; i < 9; ++i) *matrix[i] = c.matrix[i / 3][i % 3];
    int32_t* out_bias[] = {&a.outputBias0, &a.outputBias1, &a.outputBias2};
    int32_t* in_bias[] = {&a.inputBias0, &a.inputBias1, &a.inputBias2};
    for (int i = 0; i < 3; ++i) {
      *out_bias[i] = c.output_bias[i];
      *in_bias[i] = c.input_bias[i];
    }
    int32_t* mean[] = {&a.meanChn0, &a.meanChn1, &a.meanChn2, &a.meanChn3};
    float* min[] = {&a.minChn0, &a.minChn1, &a.minChn2, &a.minChn3};
    float* var[] = {&a.varReciChn0, &a.varReciChn1, &a.varReciChn2, &a.varReciChn3};
    for (int i = 0; i < 4; ++i) {
      *mean[i] = c.mean_chn[i];
      *min[i] = c.min_chn[i];
      *var[i] = c.var_reci_chn[i];
    }
    a.srcFormat = ACL_FORMAT_NCHW;  // the model's input before AIPP (an ONNX model's layout)
    a.srcDatatype = kiln::capi::ToAclType(model_in.dtype);
    a.srcDimNum = model_in.dims.size();
    // One shape: the model's input, as the model reads it and as AIPP makes it (the same
    // tensor here: AIPP writes the model's own type and layout).
    a.shapeCount = 1;
    kiln::capi::FillIoDims(model_in.name, model_in.dims, &a.outDims[0].srcDims);
    a.outDims[0].srcSize = Bytes(model_in);
    kiln::capi::FillIoDims(model_in.name, model_in.dims, &a.outDims[0].aippOutdims);
    a.outDims[0].aippOutSize = Bytes(model_in);
    a.aippExtend = nullptr;
    return ACL_SUCCESS;
  });
}

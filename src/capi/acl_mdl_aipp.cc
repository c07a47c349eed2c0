// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The model API's AIPP (docs/aipp.md): which inputs AIPP feeds and the static configuration as
// the model executes it; dynamic AIPP's parameter sets (aclmdlAIPP), which aclmdlSetInputAIPP
// writes into the model's ascend_dynamic_aipp_data input as CANN's block (base/aipp.h).
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "base/aipp.h"
#include "base/fp16.h"
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

// The fields that describe the tensor the model reads: its format before AIPP (an ONNX model's
// NCHW), type and rank, and one shape (AIPP writes the model's own type and layout, so the tensor
// before and after AIPP is the same one).
void FillModelInput(const kiln::runtime::IoDesc& model_in, aclAippInfo* a) {
  a->srcFormat = ACL_FORMAT_NCHW;
  a->srcDatatype = kiln::capi::ToAclType(model_in.dtype);
  a->srcDimNum = model_in.dims.size();
  a->shapeCount = 1;
  const size_t bytes = static_cast<size_t>(model_in.bytes);
  kiln::capi::FillIoDims(model_in.name, model_in.dims, &a->outDims[0].srcDims);
  a->outDims[0].srcSize = bytes;
  kiln::capi::FillIoDims(model_in.name, model_in.dims, &a->outDims[0].aippOutdims);
  a->outDims[0].aippOutSize = bytes;
  a->aippExtend = nullptr;
}

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
    const kiln::runtime::IoDesc& io = found->model->info().inputs[index];
    *type = found->config ? ACL_DATA_WITH_STATIC_AIPP : ACL_DATA_WITHOUT_AIPP;
    *dynamicAttachedDataIndex = ACL_INVALID_NODE_INDEX;
    if (io.aipp_params_input >= 0) {
      *type = ACL_DATA_WITH_DYNAMIC_AIPP;
      *dynamicAttachedDataIndex = static_cast<size_t>(io.aipp_params_input);
    } else if (io.name == ACL_DYNAMIC_AIPP_NAME) {
      *type = ACL_DYNAMIC_AIPP_NODE;
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo* aippInfo) {
  KILN_CAPI("aclmdlGetFirstAippInfo", {
    if (aippInfo == nullptr) return InvalidParam("aclmdlGetFirstAippInfo", "aippInfo is NULL");
    auto found = StaticBlock("aclmdlGetFirstAippInfo", modelId, index);
    if (!found.ok()) return Report("aclmdlGetFirstAippInfo", found.status());
    const kiln::runtime::IoDesc& image = found->model->info().inputs[index];
    aclAippInfo& a = *aippInfo;
    if (!found->config && image.aipp_params_input >= 0) {
      // Dynamic AIPP: as in CANN, only what the model reads is known before a run.
      std::memset(&a, 0, sizeof a);
      FillModelInput(*image.aipp_out, &a);
      return ACL_SUCCESS;
    }
    if (!found->config) {
      return Report("aclmdlGetFirstAippInfo",
                    kiln::Error(kiln::code::kGeAippNotExist, "input ", index, " of model ", modelId,
                                " has no aipp"));
    }
    const AippConfig& c = *found->config;
    const kiln::runtime::IoDesc& model_in = *image.aipp_out;
    // What the model reads: [N, C, H, W]; the source size as executed (0 in the file: the
    // image's), the crop size likewise (0: the model's H / W without the padding).
    const int64_t h = model_in.dims[2], w = model_in.dims[3];
    const int32_t pad_w = c.padding ? c.left_padding_size + c.right_padding_size : 0;
    const int32_t pad_h = c.padding ? c.top_padding_size + c.bottom_padding_size : 0;
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
    FillModelInput(model_in, &a);
    a.aippExtend = nullptr;
    return ACL_SUCCESS;
  });
}

// ---- Dynamic AIPP ------------------------------------------------------------------------------

namespace {

// What an aclmdlAIPP handle names: CANN's header and one record per image; `mu` orders setters
// and aclmdlSetInputAIPP called on one set from several threads.
struct AippSet {
  std::mutex mu;
  kiln::aipp::DynamicHeader header{};
  std::vector<kiln::aipp::DynamicBatch> batches;
};

kiln::capi::HandleTable<aclmdlAIPP, AippSet>& AippSets() {
  static auto* table =
      new kiln::capi::HandleTable<aclmdlAIPP, AippSet>("aippParmsSet", "aclmdlAIPP");
  return *table;
}

// The record of image `batch` of a live set, or null after recording why not.
kiln::aipp::DynamicBatch* Batch(const char* api, AippSet& set, uint64_t batch) {
  if (batch >= set.batches.size()) {
    InvalidParam(api, "batchIndex ", batch, " is out of range: the set has ", set.batches.size(),
                 " image(s) (aclmdlCreateAIPP's batchSize)");
    return nullptr;
  }
  return &set.batches[batch];
}

bool OneOrZero(const char* api, const char* what, int v) {
  if (v == 0 || v == 1) return true;
  InvalidParam(api, what, " must be 0 or 1, got ", v);
  return false;
}

// Applies `fn` to the live set, for a setter's body.
template <typename F>
aclError WithSet(const char* api, aclmdlAIPP* handle, F&& fn) {
  std::shared_ptr<AippSet> set = AippSets().Live(api, handle);
  if (set == nullptr) return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> lock(set->mu);
  return fn(*set);
}

// Writes the set into the model's parameter input `index` of `dataset` (the set's batch must be
// the model's N).
aclError WriteSet(const char* api, uint32_t modelId, aclmdlDataset* dataset, size_t index,
                  const aclmdlAIPP* handle) {
  std::shared_ptr<AippSet> set = AippSets().Live(api, handle);
  if (set == nullptr) return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> lock(set->mu);
  auto model = ModelTable::Get().Find(modelId);
  if (!model.ok()) return Report(api, model.status());
  const auto& inputs = (*model)->info().inputs;
  if (index >= inputs.size() || inputs[index].name != ACL_DYNAMIC_AIPP_NAME) {
    return InvalidParam(api, "input ", index, " of model ", modelId,
                        " is not its dynamic aipp input (", ACL_DYNAMIC_AIPP_NAME, ")");
  }
  const kiln::runtime::IoDesc* image = nullptr;
  for (const auto& in : inputs) {
    if (in.aipp_params_input == static_cast<int32_t>(index) && in.aipp_out) image = &in;
  }
  if (image == nullptr) {
    return InvalidParam(api, "no input of model ", modelId, " reads input ", index);
  }
  const kiln::kernels::Dims& y = image->aipp_out->dims;  // [N, C, H, W] the model reads
  if (y[0] != static_cast<int64_t>(set->batches.size())) {
    return InvalidParam(api, "the set is for ", set->batches.size(), " image(s); model ", modelId,
                        " takes ", y[0]);
  }
  auto ds = kiln::capi::LiveDataset(api, dataset);
  if (ds == nullptr) return ACL_ERROR_INVALID_PARAM;
  if (index >= ds->buffers.size()) {
    return InvalidParam(api, "index ", index, " has no buffer in the dataset (", ds->buffers.size(),
                        " buffers)");
  }
  void* addr = nullptr;
  size_t size = 0;
  if (!kiln::capi::ReadDataBuffer(ds->buffers[index], &addr, &size) || addr == nullptr) {
    return InvalidParam(api, "the buffer at index ", index,
                        " is not a live aclDataBuffer with an address");
  }
  const size_t need = kiln::aipp::DynamicBlockSize(set->batches.size());  // CANN's size
  if (size < need) {
    return Report(api, kiln::Error(kiln::code::kGeDynamicInputLengthInvalid, "the buffer at index ",
                                   index, " has ", size, " bytes; the parameters need ", need,
                                   " (aclmdlGetAippDataSize)"));
  }
  // The checks the kernel makes again at each run, made now as CANN makes them.
  std::vector<uint8_t> block(need);
  kiln::aipp::DynamicHeader header = set->header;
  header.batch_num = static_cast<int8_t>(set->batches.size());
  std::memcpy(block.data(), &header, sizeof header);
  std::memcpy(block.data() + sizeof header, set->batches.data(),
              set->batches.size() * sizeof(kiln::aipp::DynamicBatch));
  if (kiln::Status st = kiln::aipp::CheckDynamicBlock(block.data(), block.size(), y[0], y[1], y[2],
                                                      y[3], static_cast<int64_t>(image->bytes), "");
      !st.ok()) {
    return Report(api, st);
  }
  kiln::runtime::Runtime::Get().CopyMemory(addr, block.data(), block.size());
  return ACL_SUCCESS;
}

}  // namespace

aclmdlAIPP* aclmdlCreateAIPP(uint64_t batchSize) {
  if (batchSize == 0 || batchSize > static_cast<uint64_t>(kiln::aipp::kMaxDynamicBatch)) {
    InvalidParam("aclmdlCreateAIPP", "batchSize ", batchSize, " is outside [1, ",
                 kiln::aipp::kMaxDynamicBatch, "]");
    return nullptr;
  }
  try {
    auto set = std::make_shared<AippSet>();
    set->batches.resize(batchSize);
    for (auto& b : set->batches) {
      for (uint16_t& v : b.var_reci) v = kiln::FloatToHalf(1.0f);  // CANN's default: 1.0
    }
    set->header.batch_num = static_cast<int8_t>(batchSize);
    return AippSets().Add(std::move(set));
  } catch (...) {
    Report("aclmdlCreateAIPP", kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclmdlDestroyAIPP(const aclmdlAIPP* aippParmsSet) {
  KILN_CAPI("aclmdlDestroyAIPP", {
    if (aippParmsSet == nullptr) return InvalidParam("aclmdlDestroyAIPP", "aippParmsSet is NULL");
    if (AippSets().Remove(aippParmsSet) == nullptr) {
      return InvalidParam("aclmdlDestroyAIPP", AippSets().NotLive(aippParmsSet));
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t* size) {
  KILN_CAPI("aclmdlGetAippDataSize", {
    if (size == nullptr) return InvalidParam("aclmdlGetAippDataSize", "size is NULL");
    if (batchSize == 0 || batchSize > static_cast<uint64_t>(kiln::aipp::kMaxDynamicBatch)) {
      return InvalidParam("aclmdlGetAippDataSize", "batchSize ", batchSize, " is outside [1, ",
                          kiln::aipp::kMaxDynamicBatch, "]");
    }
    *size = kiln::aipp::DynamicBlockSize(batchSize);
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPInputFormat(aclmdlAIPP* aippParmsSet, aclAippInputFormat inputFormat) {
  KILN_CAPI("aclmdlSetAIPPInputFormat", {
    return WithSet("aclmdlSetAIPPInputFormat", aippParmsSet, [&](AippSet& s) {
      if (kiln::aipp::FindFormat(static_cast<int>(inputFormat)) == nullptr) {
        return InvalidParam("aclmdlSetAIPPInputFormat", "inputFormat ",
                            static_cast<int>(inputFormat),
                            " is not one Kiln executes: ACL_YUV420SP_U8, ACL_XRGB8888_U8, "
                            "ACL_RGB888_U8, ACL_YUV400_U8, ACL_ARGB8888_U8, ACL_YUYV_U8, "
                            "ACL_YUV422SP_U8 or ACL_AYUV444_U8");
      }
      s.header.input_format = static_cast<uint8_t>(inputFormat);
      return ACL_SUCCESS;
    });
  });
}

aclError aclmdlSetAIPPCscParams(aclmdlAIPP* aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
                                int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
                                int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
                                int16_t cscMatrixR2C1, int16_t cscMatrixR2C2,
                                uint8_t cscOutputBiasR0, uint8_t cscOutputBiasR1,
                                uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
                                uint8_t cscInputBiasR1, uint8_t cscInputBiasR2) {
  KILN_CAPI("aclmdlSetAIPPCscParams", {
    return WithSet("aclmdlSetAIPPCscParams", aippParmsSet, [&](AippSet& s) {
      if (!OneOrZero("aclmdlSetAIPPCscParams", "cscSwitch", cscSwitch)) {
        return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      }
      s.header.csc_switch = cscSwitch;
      const int16_t m[] = {cscMatrixR0C0, cscMatrixR0C1, cscMatrixR0C2,
                           cscMatrixR1C0, cscMatrixR1C1, cscMatrixR1C2,
                           cscMatrixR2C0, cscMatrixR2C1, cscMatrixR2C2};
      std::memcpy(s.header.csc_matrix, m, sizeof m);
      const uint8_t out[] = {cscOutputBiasR0, cscOutputBiasR1, cscOutputBiasR2};
      const uint8_t in[] = {cscInputBiasR0, cscInputBiasR1, cscInputBiasR2};
      std::memcpy(s.header.csc_output_bias, out, sizeof out);
      std::memcpy(s.header.csc_input_bias, in, sizeof in);
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP* aippParmsSet, int8_t rbuvSwapSwitch) {
  KILN_CAPI("aclmdlSetAIPPRbuvSwapSwitch", {
    return WithSet("aclmdlSetAIPPRbuvSwapSwitch", aippParmsSet, [&](AippSet& s) {
      if (!OneOrZero("aclmdlSetAIPPRbuvSwapSwitch", "rbuvSwapSwitch", rbuvSwapSwitch)) {
        return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      }
      s.header.rbuv_swap_switch = rbuvSwapSwitch;
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP* aippParmsSet, int8_t axSwapSwitch) {
  KILN_CAPI("aclmdlSetAIPPAxSwapSwitch", {
    return WithSet("aclmdlSetAIPPAxSwapSwitch", aippParmsSet, [&](AippSet& s) {
      if (!OneOrZero("aclmdlSetAIPPAxSwapSwitch", "axSwapSwitch", axSwapSwitch)) {
        return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      }
      s.header.ax_swap_switch = axSwapSwitch;
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP* aippParmsSet, int32_t srcImageSizeW,
                                   int32_t srcImageSizeH) {
  KILN_CAPI("aclmdlSetAIPPSrcImageSize", {
    return WithSet("aclmdlSetAIPPSrcImageSize", aippParmsSet, [&](AippSet& s) {
      if (srcImageSizeW < 2 || srcImageSizeW > 4096 || srcImageSizeH < 1 || srcImageSizeH > 4096) {
        return InvalidParam("aclmdlSetAIPPSrcImageSize", "the size ", srcImageSizeW, "x",
                            srcImageSizeH, " is outside W [2, 4096], H [1, 4096]");
      }
      s.header.src_image_size_w = srcImageSizeW;
      s.header.src_image_size_h = srcImageSizeH;
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPScfParams(aclmdlAIPP* aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                int32_t scfInputSizeH, int32_t scfOutputSizeW,
                                int32_t scfOutputSizeH, uint64_t batchIndex) {
  KILN_CAPI("aclmdlSetAIPPScfParams", {
    return WithSet("aclmdlSetAIPPScfParams", aippParmsSet, [&](AippSet& s) {
      if (!OneOrZero("aclmdlSetAIPPScfParams", "scfSwitch", scfSwitch)) {
        return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      }
      kiln::aipp::DynamicBatch* b = Batch("aclmdlSetAIPPScfParams", s, batchIndex);
      if (b == nullptr) return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      if (scfSwitch == 1) {
        return Report("aclmdlSetAIPPScfParams",
                      kiln::Error(kiln::code::kFeatureUnsupported,
                                  "resizing in aipp (scfSwitch 1) is not supported by Kiln; "
                                  "resize with acldvppVpcResizeAsync or in the model"));
      }
      b->scf_switch = 0;
      b->scf_input_w = scfInputSizeW;
      b->scf_input_h = scfInputSizeH;
      b->scf_output_w = scfOutputSizeW;
      b->scf_output_h = scfOutputSizeH;
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPCropParams(aclmdlAIPP* aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
                                 int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH,
                                 uint64_t batchIndex) {
  KILN_CAPI("aclmdlSetAIPPCropParams", {
    return WithSet("aclmdlSetAIPPCropParams", aippParmsSet, [&](AippSet& s) {
      if (!OneOrZero("aclmdlSetAIPPCropParams", "cropSwitch", cropSwitch)) {
        return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      }
      kiln::aipp::DynamicBatch* b = Batch("aclmdlSetAIPPCropParams", s, batchIndex);
      if (b == nullptr) return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      if (cropSwitch == 1 &&
          (cropStartPosW < 0 || cropStartPosH < 0 || cropStartPosW > 4095 || cropStartPosH > 4095 ||
           cropSizeW < 1 || cropSizeH < 1 || cropSizeW > 4096 || cropSizeH > 4096)) {
        return InvalidParam("aclmdlSetAIPPCropParams", "the window ", cropSizeW, "x", cropSizeH,
                            " at (", cropStartPosW, ", ", cropStartPosH,
                            ") is out of range (start [0, 4095], size [1, 4096])");
      }
      b->crop_switch = cropSwitch;
      b->crop_start_w = cropStartPosW;
      b->crop_start_h = cropStartPosH;
      b->crop_size_w = cropSizeW;
      b->crop_size_h = cropSizeH;
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP* aippParmsSet, int8_t paddingSwitch,
                                    int32_t paddingSizeTop, int32_t paddingSizeBottom,
                                    int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                    uint64_t batchIndex) {
  KILN_CAPI("aclmdlSetAIPPPaddingParams", {
    return WithSet("aclmdlSetAIPPPaddingParams", aippParmsSet, [&](AippSet& s) {
      if (!OneOrZero("aclmdlSetAIPPPaddingParams", "paddingSwitch", paddingSwitch)) {
        return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      }
      kiln::aipp::DynamicBatch* b = Batch("aclmdlSetAIPPPaddingParams", s, batchIndex);
      if (b == nullptr) return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      for (int32_t pad : {paddingSizeTop, paddingSizeBottom, paddingSizeLeft, paddingSizeRight}) {
        if (paddingSwitch == 1 && (pad < 0 || pad > 32)) {
          return InvalidParam("aclmdlSetAIPPPaddingParams", "padding ", pad, " is outside [0, 32]");
        }
      }
      b->padding_switch = paddingSwitch;
      b->padding_top = paddingSizeTop;
      b->padding_bottom = paddingSizeBottom;
      b->padding_left = paddingSizeLeft;
      b->padding_right = paddingSizeRight;
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP* aippParmsSet, int16_t dtcPixelMeanChn0,
                                   int16_t dtcPixelMeanChn1, int16_t dtcPixelMeanChn2,
                                   int16_t dtcPixelMeanChn3, uint64_t batchIndex) {
  KILN_CAPI("aclmdlSetAIPPDtcPixelMean", {
    return WithSet("aclmdlSetAIPPDtcPixelMean", aippParmsSet, [&](AippSet& s) {
      kiln::aipp::DynamicBatch* b = Batch("aclmdlSetAIPPDtcPixelMean", s, batchIndex);
      if (b == nullptr) return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
      const int16_t mean[] = {dtcPixelMeanChn0, dtcPixelMeanChn1, dtcPixelMeanChn2,
                              dtcPixelMeanChn3};
      for (int16_t m : mean) {
        if (m < 0 || m > 255) {
          return InvalidParam("aclmdlSetAIPPDtcPixelMean", "mean ", m, " is outside [0, 255]");
        }
      }
      std::memcpy(b->mean, mean, sizeof mean);
      return static_cast<aclError>(ACL_SUCCESS);
    });
  });
}

namespace {

// DtcPixelMin and PixelVarReci: four channel values in [lo, hi], stored as float16 in `field`.
aclError SetHalfChannels(const char* api, aclmdlAIPP* handle, uint64_t batchIndex,
                         const float (&v)[4], float lo, float hi, const char* what,
                         uint16_t (kiln::aipp::DynamicBatch::*field)[4]) {
  return WithSet(api, handle, [&](AippSet& s) {
    kiln::aipp::DynamicBatch* b = Batch(api, s, batchIndex);
    if (b == nullptr) return static_cast<aclError>(ACL_ERROR_INVALID_PARAM);
    for (float x : v) {
      if (!(x >= lo && x <= hi)) {
        return InvalidParam(api, what, " ", x, " is outside [", lo, ", ", hi, "]");
      }
    }
    for (int i = 0; i < 4; ++i) (b->*field)[i] = kiln::FloatToHalf(v[i]);
    return static_cast<aclError>(ACL_SUCCESS);
  });
}

}  // namespace

aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP* aippParmsSet, float dtcPixelMinChn0,
                                  float dtcPixelMinChn1, float dtcPixelMinChn2,
                                  float dtcPixelMinChn3, uint64_t batchIndex) {
  KILN_CAPI("aclmdlSetAIPPDtcPixelMin", {
    const float v[] = {dtcPixelMinChn0, dtcPixelMinChn1, dtcPixelMinChn2, dtcPixelMinChn3};
    return SetHalfChannels("aclmdlSetAIPPDtcPixelMin", aippParmsSet, batchIndex, v, 0.0f, 255.0f,
                           "min", &kiln::aipp::DynamicBatch::min);
  });
}

aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP* aippParmsSet, float dtcPixelVarReciChn0,
                                   float dtcPixelVarReciChn1, float dtcPixelVarReciChn2,
                                   float dtcPixelVarReciChn3, uint64_t batchIndex) {
  KILN_CAPI("aclmdlSetAIPPPixelVarReci", {
    const float v[] = {dtcPixelVarReciChn0, dtcPixelVarReciChn1, dtcPixelVarReciChn2,
                       dtcPixelVarReciChn3};
    return SetHalfChannels("aclmdlSetAIPPPixelVarReci", aippParmsSet, batchIndex, v, -65504.0f,
                           65504.0f, "var_reci", &kiln::aipp::DynamicBatch::var_reci);
  });
}

aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                            const aclmdlAIPP* aippParmsSet) {
  KILN_CAPI("aclmdlSetInputAIPP",
            { return WriteSet("aclmdlSetInputAIPP", modelId, dataset, index, aippParmsSet); });
}

aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                   const aclmdlAIPP* aippParmsSet) {
  KILN_CAPI("aclmdlSetAIPPByInputIndex", {
    auto model = ModelTable::Get().Find(modelId);
    if (!model.ok()) return Report("aclmdlSetAIPPByInputIndex", model.status());
    const auto& inputs = (*model)->info().inputs;
    if (index >= inputs.size() || inputs[index].aipp_params_input < 0) {
      return InvalidParam("aclmdlSetAIPPByInputIndex", "input ", index, " of model ", modelId,
                          " has no dynamic aipp");
    }
    return WriteSet("aclmdlSetAIPPByInputIndex", modelId, dataset,
                    static_cast<size_t>(inputs[index].aipp_params_input), aippParmsSet);
  });
}

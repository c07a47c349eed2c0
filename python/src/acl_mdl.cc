// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.mdl: load, describe, build datasets, select gears and execute. Dims come back as pyACL's
// dict {'name', 'dimCount', 'dims'} (empty on error); loads and executions release the GIL.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "python/src/bindings.h"

namespace kiln::python {
namespace {

py::dict DimsDict(const aclmdlIODims& d) {
  py::dict out;
  out["name"] = std::string(d.name);
  out["dimCount"] = d.dimCount;
  py::list dims;
  for (size_t i = 0; i < d.dimCount && i < ACL_MAX_DIM_CNT; ++i) dims.append(d.dims[i]);
  out["dims"] = dims;
  return out;
}

// pyACL's aclAippInfo dict: every field under its C name; outDims a list of shapeCount dicts
// {'srcDims', 'srcSize', 'aippOutdims', 'aippOutSize'}.
py::dict AippInfoDict(const aclAippInfo& a) {
  py::dict d;
  d["inputFormat"] = static_cast<int>(a.inputFormat);
  d["srcImageSizeW"] = a.srcImageSizeW;
  d["srcImageSizeH"] = a.srcImageSizeH;
  d["cropSwitch"] = a.cropSwitch;
  d["loadStartPosW"] = a.loadStartPosW;
  d["loadStartPosH"] = a.loadStartPosH;
  d["cropSizeW"] = a.cropSizeW;
  d["cropSizeH"] = a.cropSizeH;
  d["resizeSwitch"] = a.resizeSwitch;
  d["resizeOutputW"] = a.resizeOutputW;
  d["resizeOutputH"] = a.resizeOutputH;
  d["paddingSwitch"] = a.paddingSwitch;
  d["leftPaddingSize"] = a.leftPaddingSize;
  d["rightPaddingSize"] = a.rightPaddingSize;
  d["topPaddingSize"] = a.topPaddingSize;
  d["bottomPaddingSize"] = a.bottomPaddingSize;
  d["cscSwitch"] = a.cscSwitch;
  d["rbuvSwapSwitch"] = a.rbuvSwapSwitch;
  d["axSwapSwitch"] = a.axSwapSwitch;
  d["singleLineMode"] = a.singleLineMode;
  const int32_t matrix[] = {a.matrixR0C0, a.matrixR0C1, a.matrixR0C2, a.matrixR1C0, a.matrixR1C1,
                            a.matrixR1C2, a.matrixR2C0, a.matrixR2C1, a.matrixR2C2};
  for (int i = 0; i < 9; ++i) {
    d[("matrixR" + std::to_string(i / 3) + "C" + std::to_string(i % 3)).c_str()] = matrix[i];
  }
  const int32_t bias[] = {a.outputBias0, a.outputBias1, a.outputBias2,
                          a.inputBias0,  a.inputBias1,  a.inputBias2};
  for (int i = 0; i < 3; ++i) {
    d[("outputBias" + std::to_string(i)).c_str()] = bias[i];
    d[("inputBias" + std::to_string(i)).c_str()] = bias[3 + i];
  }
  const int32_t mean[] = {a.meanChn0, a.meanChn1, a.meanChn2, a.meanChn3};
  const float min[] = {a.minChn0, a.minChn1, a.minChn2, a.minChn3};
  const float var[] = {a.varReciChn0, a.varReciChn1, a.varReciChn2, a.varReciChn3};
  for (int i = 0; i < 4; ++i) {
    d[("meanChn" + std::to_string(i)).c_str()] = mean[i];
    d[("minChn" + std::to_string(i)).c_str()] = min[i];
    d[("varReciChn" + std::to_string(i)).c_str()] = var[i];
  }
  d["srcFormat"] = static_cast<int>(a.srcFormat);
  d["srcDatatype"] = static_cast<int>(a.srcDatatype);
  d["srcDimNum"] = a.srcDimNum;
  d["shapeCount"] = a.shapeCount;
  py::list out;
  for (size_t i = 0; i < a.shapeCount && i < ACL_MAX_SHAPE_COUNT; ++i) {
    py::dict shape;
    shape["srcDims"] = DimsDict(a.outDims[i].srcDims);
    shape["srcSize"] = a.outDims[i].srcSize;
    shape["aippOutdims"] = DimsDict(a.outDims[i].aippOutdims);
    shape["aippOutSize"] = a.outDims[i].aippOutSize;
    out.append(shape);
  }
  d["outDims"] = out;
  d["aippExtend"] = 0;
  return d;
}

// The dims of pyACL's set_input_dynamic_dims: a dict like DimsDict's ('name' optional).
aclmdlIODims DimsFromDict(const py::dict& d) {
  aclmdlIODims dims{};
  if (d.contains("name")) {
    std::string name = py::str(d["name"]);
    std::strncpy(dims.name, name.c_str(), ACL_MAX_TENSOR_NAME_LEN - 1);
  }
  std::vector<int64_t> values;
  size_t count = 0;
  try {
    if (!d.contains("dims")) throw py::cast_error();
    values = d["dims"].cast<std::vector<int64_t>>();
    count = d.contains("dimCount") ? d["dimCount"].cast<size_t>() : values.size();
  } catch (const py::cast_error&) {
    throw py::type_error(
        "acl.mdl.set_input_dynamic_dims: dims must be a dict with 'dims' (a "
        "list of ints) and optionally 'dimCount' and 'name'");
  }
  if (values.size() > ACL_MAX_DIM_CNT) {
    throw py::value_error("acl.mdl: more than ACL_MAX_DIM_CNT (128) dims");
  }
  dims.dimCount = count;
  if (dims.dimCount != values.size()) {
    throw py::value_error("acl.mdl: dimCount " + std::to_string(dims.dimCount) + " but " +
                          std::to_string(values.size()) + " dims given");
  }
  for (size_t i = 0; i < values.size(); ++i) dims.dims[i] = values[i];
  return dims;
}

using DimsFn = aclError (*)(const aclmdlDesc*, size_t, aclmdlIODims*);

template <DimsFn F>
py::tuple GetDims(Ptr desc, Size index) {
  aclmdlIODims dims{};
  aclError ret = F(FromPtr<aclmdlDesc>(desc), index, &dims);
  return py::make_tuple(ret == ACL_SUCCESS ? DimsDict(dims) : py::dict(), ret);
}

py::object Str(const char* s) { return s == nullptr ? py::str("") : py::str(s); }

// The most gears get_input_dynamic_dims allocates room for (pyACL's limit).
constexpr size_t kMaxGears = 4096;

// Every buffer of `dataset` must be mapped memory before the runtime reads or writes it, when
// device memory is host memory (a dataset the C library does not know has no buffers here and
// is rejected by it).
aclError CheckDataset(const char* api, const char* what, uintptr_t dataset) {
  if (!DeviceMemoryIsHost()) return ACL_SUCCESS;
  auto* ds = FromPtr<aclmdlDataset>(dataset);
  const size_t n = aclmdlGetDatasetNumBuffers(ds);
  for (size_t i = 0; i < n; ++i) {
    if (aclError e = CheckBufferMapped(api, what, i, aclmdlGetDatasetBuffer(ds, i));
        e != ACL_SUCCESS) {
      return e;
    }
  }
  return ACL_SUCCESS;
}

// The user memory of a *_with_mem load (device memory): the runtime writes into both.
aclError CheckLoadMemory(const char* api, uintptr_t work, size_t work_size, uintptr_t weight,
                         size_t weight_size) {
  if (!DeviceMemoryIsHost()) return ACL_SUCCESS;
  if (aclError e = CheckMapped(api, "work memory", work, work_size)) return e;
  return CheckMapped(api, "weight memory", weight, weight_size);
}

}  // namespace

void RegisterMdl(py::module_& mdl) {
  // Data dump (docs/tools.md "Data dump").
  mdl.def(
      "init_dump", [] { return aclmdlInitDump(); }, GIL(), "aclmdlInitDump: ret");
  mdl.def(
      "set_dump", [](std::string path) { return aclmdlSetDump(path.c_str()); }, GIL(),
      py::arg("dump_cfg_path"), "aclmdlSetDump: ret");
  mdl.def(
      "finalize_dump", [] { return aclmdlFinalizeDump(); }, GIL(), "aclmdlFinalizeDump: ret");
  // Load, query, unload.
  mdl.def(
      "load_from_file",
      [](std::string path) {
        uint32_t id = 0;
        aclError ret = aclmdlLoadFromFile(path.c_str(), &id);
        return std::make_tuple(id, ret);
      },
      GIL(), py::arg("model_path"), "aclmdlLoadFromFile: (model_id, ret)");
  mdl.def(
      "load_from_mem",
      [](Ptr model, Size size) {
        uint32_t id = 0;
        aclError ret = CheckMapped("acl.mdl.load_from_mem", "model", model, size);
        if (ret == ACL_SUCCESS) {
          ReleaseGil release;
          ret = aclmdlLoadFromMem(FromPtr(model), size, &id);
        }
        return std::make_tuple(id, ret);
      },
      py::arg("model"), py::arg("model_size"), "aclmdlLoadFromMem: (model_id, ret)");
  mdl.def(
      "load_from_file_with_mem",
      [](std::string path, Ptr work, Size work_size, Ptr weight, Size weight_size) {
        uint32_t id = 0;
        aclError ret = CheckLoadMemory("acl.mdl.load_from_file_with_mem", work, work_size, weight,
                                       weight_size);
        if (ret == ACL_SUCCESS) {
          ReleaseGil release;
          ret = aclmdlLoadFromFileWithMem(path.c_str(), &id, FromPtr(work), work_size,
                                          FromPtr(weight), weight_size);
        }
        return std::make_tuple(id, ret);
      },
      py::arg("model_path"), py::arg("work_ptr"), py::arg("work_size"), py::arg("weight_ptr"),
      py::arg("weight_size"), "aclmdlLoadFromFileWithMem: (model_id, ret)");
  mdl.def(
      "load_from_mem_with_mem",
      [](Ptr model, Size size, Ptr work, Size work_size, Ptr weight, Size weight_size) {
        const char* api = "acl.mdl.load_from_mem_with_mem";
        uint32_t id = 0;
        aclError ret = CheckMapped(api, "model", model, size);
        if (ret == ACL_SUCCESS) ret = CheckLoadMemory(api, work, work_size, weight, weight_size);
        if (ret == ACL_SUCCESS) {
          ReleaseGil release;
          ret = aclmdlLoadFromMemWithMem(FromPtr(model), size, &id, FromPtr(work), work_size,
                                         FromPtr(weight), weight_size);
        }
        return std::make_tuple(id, ret);
      },
      py::arg("model"), py::arg("model_size"), py::arg("work_ptr"), py::arg("work_size"),
      py::arg("weight_ptr"), py::arg("weight_size"), "aclmdlLoadFromMemWithMem: (model_id, ret)");
  mdl.def(
      "query_size",
      [](std::string path) {
        size_t work = 0, weight = 0;
        aclError ret = aclmdlQuerySize(path.c_str(), &work, &weight);
        return std::make_tuple(work, weight, ret);
      },
      GIL(), py::arg("model_path"), "aclmdlQuerySize: (work_size, weight_size, ret)");
  mdl.def(
      "query_size_from_mem",
      [](Ptr model, Size size) {
        size_t work = 0, weight = 0;
        aclError ret = CheckMapped("acl.mdl.query_size_from_mem", "model", model, size);
        if (ret == ACL_SUCCESS) ret = aclmdlQuerySizeFromMem(FromPtr(model), size, &work, &weight);
        return std::make_tuple(work, weight, ret);
      },
      py::arg("model"), py::arg("model_size"),
      "aclmdlQuerySizeFromMem: (work_size, weight_size, ret)");
  mdl.def(
      "unload", [](U32 id) { return aclmdlUnload(id); }, GIL(), py::arg("model_id"));

  // Description.
  mdl.def("create_desc", [] { return ToPtr(aclmdlCreateDesc()); });
  mdl.def(
      "destroy_desc", [](Ptr d) { return aclmdlDestroyDesc(FromPtr<aclmdlDesc>(d)); },
      py::arg("model_desc"));
  mdl.def(
      "get_desc", [](Ptr d, U32 id) { return aclmdlGetDesc(FromPtr<aclmdlDesc>(d), id); }, GIL(),
      py::arg("model_desc"), py::arg("model_id"));
  mdl.def(
      "get_num_inputs", [](Ptr d) { return aclmdlGetNumInputs(FromPtr<aclmdlDesc>(d)); },
      py::arg("model_desc"));
  mdl.def(
      "get_num_outputs", [](Ptr d) { return aclmdlGetNumOutputs(FromPtr<aclmdlDesc>(d)); },
      py::arg("model_desc"));
  mdl.def(
      "get_input_size_by_index",
      [](Ptr d, Size i) { return aclmdlGetInputSizeByIndex(FromPtr<aclmdlDesc>(d), i); },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_output_size_by_index",
      [](Ptr d, Size i) { return aclmdlGetOutputSizeByIndex(FromPtr<aclmdlDesc>(d), i); },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_aipp_type",
      [](U32 id, Size index) {
        aclmdlInputAippType type = ACL_DATA_WITHOUT_AIPP;
        size_t attached = ACL_INVALID_NODE_INDEX;
        aclError ret = aclmdlGetAippType(id, index, &type, &attached);
        return py::make_tuple(static_cast<int>(type), attached, ret);
      },
      py::arg("model_id"), py::arg("index"),
      "aclmdlGetAippType: (type, dynamic_attached_data_index, ret)");
  mdl.def(
      "get_first_aipp_info",
      [](U32 id, Size index) {
        auto info = std::make_unique<aclAippInfo>();
        aclError ret = aclmdlGetFirstAippInfo(id, index, info.get());
        return py::make_tuple(ret == ACL_SUCCESS ? AippInfoDict(*info) : py::dict(), ret);
      },
      py::arg("model_id"), py::arg("index"),
      "aclmdlGetFirstAippInfo: (aipp_info dict with aclAippInfo's field names, ret); {} on "
      "failure");
  mdl.def("get_input_dims", &GetDims<&aclmdlGetInputDims>, py::arg("model_desc"), py::arg("index"),
          "aclmdlGetInputDims: ({'name', 'dimCount', 'dims'}, ret); {} on failure");
  mdl.def("get_input_dims_v2", &GetDims<&aclmdlGetInputDimsV2>, py::arg("model_desc"),
          py::arg("index"));
  mdl.def("get_output_dims", &GetDims<&aclmdlGetOutputDims>, py::arg("model_desc"),
          py::arg("index"));
  mdl.def("get_cur_output_dims", &GetDims<&aclmdlGetCurOutputDims>, py::arg("model_desc"),
          py::arg("index"));
  mdl.def(
      "get_input_name_by_index",
      [](Ptr d, Size i) { return Str(aclmdlGetInputNameByIndex(FromPtr<aclmdlDesc>(d), i)); },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_output_name_by_index",
      [](Ptr d, Size i) { return Str(aclmdlGetOutputNameByIndex(FromPtr<aclmdlDesc>(d), i)); },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_input_format",
      [](Ptr d, Size i) {
        return static_cast<int>(aclmdlGetInputFormat(FromPtr<aclmdlDesc>(d), i));
      },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_output_format",
      [](Ptr d, Size i) {
        return static_cast<int>(aclmdlGetOutputFormat(FromPtr<aclmdlDesc>(d), i));
      },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_input_data_type",
      [](Ptr d, Size i) {
        return static_cast<int>(aclmdlGetInputDataType(FromPtr<aclmdlDesc>(d), i));
      },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_output_data_type",
      [](Ptr d, Size i) {
        return static_cast<int>(aclmdlGetOutputDataType(FromPtr<aclmdlDesc>(d), i));
      },
      py::arg("model_desc"), py::arg("index"));
  mdl.def(
      "get_input_index_by_name",
      [](Ptr d, std::string name) {
        size_t index = 0;
        aclError ret = aclmdlGetInputIndexByName(FromPtr<aclmdlDesc>(d), name.c_str(), &index);
        return std::make_tuple(index, ret);
      },
      py::arg("model_desc"), py::arg("name"), "aclmdlGetInputIndexByName: (index, ret)");
  mdl.def(
      "get_output_index_by_name",
      [](Ptr d, std::string name) {
        size_t index = 0;
        aclError ret = aclmdlGetOutputIndexByName(FromPtr<aclmdlDesc>(d), name.c_str(), &index);
        return std::make_tuple(index, ret);
      },
      py::arg("model_desc"), py::arg("name"));

  // Gears.
  mdl.def(
      "get_dynamic_batch",
      [](Ptr d) {
        aclmdlBatch batch{};
        aclError ret = aclmdlGetDynamicBatch(FromPtr<aclmdlDesc>(d), &batch);
        py::dict out;
        if (ret == ACL_SUCCESS) {
          py::list values;
          for (size_t i = 0; i < batch.batchCount && i < ACL_MAX_BATCH_NUM; ++i) {
            values.append(batch.batch[i]);
          }
          out["batchCount"] = batch.batchCount;
          out["batch"] = values;
        }
        return py::make_tuple(out, ret);
      },
      py::arg("model_desc"), "aclmdlGetDynamicBatch: ({'batchCount', 'batch'}, ret)");
  mdl.def(
      "get_dynamic_hw",
      [](Ptr d, Size index) {
        aclmdlHW hw{};
        aclError ret = aclmdlGetDynamicHW(FromPtr<aclmdlDesc>(d), index, &hw);
        py::dict out;
        if (ret == ACL_SUCCESS) {
          py::list values;
          for (size_t i = 0; i < hw.hwCount && i < ACL_MAX_HW_NUM; ++i) {
            py::list pair;  // pyACL: a list [h, w] per gear
            pair.append(hw.hw[i][0]);
            pair.append(hw.hw[i][1]);
            values.append(pair);
          }
          out["hwCount"] = hw.hwCount;
          out["hw"] = values;
        }
        return py::make_tuple(out, ret);
      },
      py::arg("model_desc"), py::arg("index"),
      "aclmdlGetDynamicHW: ({'hwCount', 'hw': [[h, w], ...]}, ret)");
  mdl.def(
      "get_input_dynamic_gear_count",
      [](Ptr d, Size index) {
        size_t count = 0;
        aclError ret = aclmdlGetInputDynamicGearCount(FromPtr<aclmdlDesc>(d), index, &count);
        return std::make_tuple(count, ret);
      },
      py::arg("model_desc"), py::arg("index") = -1, "aclmdlGetInputDynamicGearCount: (count, ret)");
  mdl.def(
      "get_input_dynamic_dims",
      [](Ptr d, Size index, Size gear_count) -> py::tuple {
        if (gear_count > kMaxGears) {
          return py::make_tuple(
              py::none(), Reject("acl.mdl.get_input_dynamic_dims",
                                 "gear_count " + std::to_string(gear_count.value) + " is above " +
                                     std::to_string(kMaxGears)));
        }
        std::vector<aclmdlIODims> dims(gear_count + 1);
        aclError ret =
            aclmdlGetInputDynamicDims(FromPtr<aclmdlDesc>(d), index, dims.data(), gear_count);
        py::list out;
        for (size_t g = 0; ret == ACL_SUCCESS && g < gear_count; ++g) out.append(DimsDict(dims[g]));
        return py::make_tuple(out, ret);
      },
      py::arg("model_desc"), py::arg("index"), py::arg("gear_count"),
      "aclmdlGetInputDynamicDims: ([{'name', 'dimCount', 'dims'}, ...], ret)");
  mdl.def(
      "set_dynamic_batch_size",
      [](U32 id, Ptr ds, Size index, U64 batch) {
        return aclmdlSetDynamicBatchSize(id, FromPtr<aclmdlDataset>(ds), index, batch);
      },
      GIL(), py::arg("model_id"), py::arg("dataset"), py::arg("index"), py::arg("batch_size"));
  mdl.def(
      "set_dynamic_hw_size",
      [](U32 id, Ptr ds, Size index, U64 h, U64 w) {
        return aclmdlSetDynamicHWSize(id, FromPtr<aclmdlDataset>(ds), index, h, w);
      },
      GIL(), py::arg("model_id"), py::arg("dataset"), py::arg("index"), py::arg("height"),
      py::arg("width"));
  mdl.def(
      "set_input_dynamic_dims",
      [](U32 id, Ptr ds, Size index, py::dict dims) {
        aclmdlIODims d = DimsFromDict(dims);
        ReleaseGil release;
        return aclmdlSetInputDynamicDims(id, FromPtr<aclmdlDataset>(ds), index, &d);
      },
      py::arg("model_id"), py::arg("dataset"), py::arg("index"), py::arg("dims"));

  // Datasets.
  // Dynamic AIPP parameter sets (pyACL's names; every setter returns ret).
  mdl.def(
      "create_aipp", [](U64 batch) { return ToPtr(aclmdlCreateAIPP(batch)); },
      py::arg("batch_size"));
  mdl.def(
      "destroy_aipp", [](Ptr set) { return aclmdlDestroyAIPP(FromPtr<aclmdlAIPP>(set)); },
      py::arg("aipp_parms_set"));
  mdl.def(
      "get_aipp_data_size",
      [](U64 batch) {
        size_t size = 0;
        aclError ret = aclmdlGetAippDataSize(batch, &size);
        return py::make_tuple(size, ret);
      },
      py::arg("batch_size"));
  mdl.def(
      "set_aipp_input_format",
      [](Ptr set, U32 format) {
        return aclmdlSetAIPPInputFormat(
            FromPtr<aclmdlAIPP>(set),
            static_cast<aclAippInputFormat>(static_cast<uint32_t>(format)));
      },
      py::arg("aipp_parms_set"), py::arg("input_format"));
  mdl.def("set_aipp_csc_params",
          [](Ptr set, int sw, int r0c0, int r0c1, int r0c2, int r1c0, int r1c1, int r1c2, int r2c0,
             int r2c1, int r2c2, int ob0, int ob1, int ob2, int ib0, int ib1, int ib2) {
            auto i16 = [](int v) { return static_cast<int16_t>(v); };
            auto u8 = [](int v) { return static_cast<uint8_t>(v); };
            return aclmdlSetAIPPCscParams(FromPtr<aclmdlAIPP>(set), static_cast<int8_t>(sw),
                                          i16(r0c0), i16(r0c1), i16(r0c2), i16(r1c0), i16(r1c1),
                                          i16(r1c2), i16(r2c0), i16(r2c1), i16(r2c2), u8(ob0),
                                          u8(ob1), u8(ob2), u8(ib0), u8(ib1), u8(ib2));
          });
  mdl.def("set_aipp_rbuv_swap_switch", [](Ptr set, int v) {
    return aclmdlSetAIPPRbuvSwapSwitch(FromPtr<aclmdlAIPP>(set), static_cast<int8_t>(v));
  });
  mdl.def("set_aipp_ax_swap_switch", [](Ptr set, int v) {
    return aclmdlSetAIPPAxSwapSwitch(FromPtr<aclmdlAIPP>(set), static_cast<int8_t>(v));
  });
  mdl.def("set_aipp_src_image_size", [](Ptr set, int w, int h) {
    return aclmdlSetAIPPSrcImageSize(FromPtr<aclmdlAIPP>(set), w, h);
  });
  mdl.def("set_aipp_scf_params",
          [](Ptr set, int sw, int in_w, int in_h, int out_w, int out_h, U64 batch) {
            return aclmdlSetAIPPScfParams(FromPtr<aclmdlAIPP>(set), static_cast<int8_t>(sw), in_w,
                                          in_h, out_w, out_h, batch);
          });
  mdl.def("set_aipp_crop_params", [](Ptr set, int sw, int x, int y, int w, int h, U64 batch) {
    return aclmdlSetAIPPCropParams(FromPtr<aclmdlAIPP>(set), static_cast<int8_t>(sw), x, y, w, h,
                                   batch);
  });
  mdl.def("set_aipp_padding_params",
          [](Ptr set, int sw, int top, int bottom, int left, int right, U64 batch) {
            return aclmdlSetAIPPPaddingParams(FromPtr<aclmdlAIPP>(set), static_cast<int8_t>(sw),
                                              top, bottom, left, right, batch);
          });
  mdl.def("set_aipp_dtc_pixel_mean", [](Ptr set, int c0, int c1, int c2, int c3, U64 batch) {
    return aclmdlSetAIPPDtcPixelMean(FromPtr<aclmdlAIPP>(set), static_cast<int16_t>(c0),
                                     static_cast<int16_t>(c1), static_cast<int16_t>(c2),
                                     static_cast<int16_t>(c3), batch);
  });
  mdl.def("set_aipp_dtc_pixel_min", [](Ptr set, float c0, float c1, float c2, float c3, U64 batch) {
    return aclmdlSetAIPPDtcPixelMin(FromPtr<aclmdlAIPP>(set), c0, c1, c2, c3, batch);
  });
  mdl.def("set_aipp_pixel_var_reci",
          [](Ptr set, float c0, float c1, float c2, float c3, U64 batch) {
            return aclmdlSetAIPPPixelVarReci(FromPtr<aclmdlAIPP>(set), c0, c1, c2, c3, batch);
          });
  mdl.def("set_input_aipp", [](U32 id, Ptr ds, Size index, Ptr set) {
    return aclmdlSetInputAIPP(id, FromPtr<aclmdlDataset>(ds), index, FromPtr<aclmdlAIPP>(set));
  });
  mdl.def("set_aipp_by_input_index", [](U32 id, Ptr ds, Size index, Ptr set) {
    return aclmdlSetAIPPByInputIndex(id, FromPtr<aclmdlDataset>(ds), index,
                                     FromPtr<aclmdlAIPP>(set));
  });

  mdl.def("create_dataset", [] { return ToPtr(aclmdlCreateDataset()); });
  mdl.def(
      "destroy_dataset", [](Ptr ds) { return aclmdlDestroyDataset(FromPtr<aclmdlDataset>(ds)); },
      py::arg("dataset"));
  mdl.def(
      "add_dataset_buffer",
      [](Ptr ds, Ptr buf) {
        aclError ret =
            aclmdlAddDatasetBuffer(FromPtr<aclmdlDataset>(ds), FromPtr<aclDataBuffer>(buf));
        return std::make_tuple(ds, ret);
      },
      py::arg("dataset"), py::arg("data_buffer"), "aclmdlAddDatasetBuffer: (dataset, ret)");
  mdl.def(
      "get_dataset_num_buffers",
      [](Ptr ds) { return aclmdlGetDatasetNumBuffers(FromPtr<aclmdlDataset>(ds)); },
      py::arg("dataset"));
  mdl.def(
      "get_dataset_buffer",
      [](Ptr ds, Size i) { return ToPtr(aclmdlGetDatasetBuffer(FromPtr<aclmdlDataset>(ds), i)); },
      py::arg("dataset"), py::arg("index"));
  mdl.def(
      "set_dataset_tensor_desc",
      [](Ptr ds, Ptr desc, Size i) {
        return aclmdlSetDatasetTensorDesc(FromPtr<aclmdlDataset>(ds), FromPtr<aclTensorDesc>(desc),
                                          i);
      },
      py::arg("dataset"), py::arg("tensor_desc"), py::arg("index"));
  mdl.def(
      "get_dataset_tensor_desc",
      [](Ptr ds, Size i) {
        return ToPtr(aclmdlGetDatasetTensorDesc(FromPtr<aclmdlDataset>(ds), i));
      },
      py::arg("dataset"), py::arg("index"));

  // Execution. The datasets' buffers are checked first: the runtime reads and writes them.
  mdl.def(
      "execute",
      [](U32 id, Ptr in, Ptr out) {
        if (aclError e = CheckDataset("acl.mdl.execute", "input", in)) return e;
        if (aclError e = CheckDataset("acl.mdl.execute", "output", out)) return e;
        ReleaseGil release;
        return aclmdlExecute(id, FromPtr<aclmdlDataset>(in), FromPtr<aclmdlDataset>(out));
      },
      py::arg("model_id"), py::arg("input"), py::arg("output"));
  mdl.def(
      "execute_async",
      [](U32 id, Ptr in, Ptr out, Ptr stream) {
        if (aclError e = CheckDataset("acl.mdl.execute_async", "input", in)) return e;
        if (aclError e = CheckDataset("acl.mdl.execute_async", "output", out)) return e;
        ReleaseGil release;
        return aclmdlExecuteAsync(id, FromPtr<aclmdlDataset>(in), FromPtr<aclmdlDataset>(out),
                                  FromPtr(stream));
      },
      py::arg("model_id"), py::arg("input"), py::arg("output"), py::arg("stream"));
}

}  // namespace kiln::python

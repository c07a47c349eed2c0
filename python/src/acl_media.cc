// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.media: the DVPP API of acl/ops/acl_dvpp.h as pyACL spells it (acldvppVpcCropAsync ->
// acl.media.dvpp_vpc_crop_async): DVPP memory, channels, picture descriptions and their configs,
// JPEG and PNG information, decode and encode, the VPC operations and the compressed-stream
// descriptions (the video channels, aclvdec* and aclvenc*, are in acl_media_video.cc). Handles are
// checked by the C library, and so is DVPP memory (it must come from acldvppMalloc). Host
// addresses the C library reads or writes are checked here to be mapped: the image data of the
// *_get_image_info and *_predict_dec_size calls and the size word of dvpp_jpeg_encode_async. The
// lists of the batch calls must hold at least as many regions (or borders) as roi_nums asks for,
// since the C library reads that many. Stream tasks, allocation and channel calls release the
// GIL.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "python/src/bindings.h"

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE  // acl_dvpp.h requires it, as CANN's does
#endif
#include "acl/ops/acl_dvpp.h"

namespace kiln::python {
namespace {

// name(handle) -> ret: destroyers and the other calls that take only a handle.
template <typename H, aclError (*F)(H*)>
void DefHandleCall(py::module_& m, const char* name, const char* arg, bool release_gil = false) {
  if (release_gil) {
    m.def(
        name, [](Ptr h) { return F(FromPtr<H>(h)); }, GIL(), py::arg(arg));
  } else {
    m.def(
        name, [](Ptr h) { return F(FromPtr<H>(h)); }, py::arg(arg));
  }
}

// name(handle, value) -> ret, for the uint32 setters ("kI" in pyACL).
template <typename H, aclError (*F)(H*, uint32_t)>
void DefSetU32(py::module_& m, const char* name, const char* handle, const char* value) {
  m.def(
      name, [](Ptr h, U32 v) { return F(FromPtr<H>(h), v); }, py::arg(handle), py::arg(value));
}

// name(handle) -> the getter's value (an int for enums); the C library answers a NULL or dead
// handle with its documented default.
template <typename H, auto F>
void DefGet(py::module_& m, const char* name, const char* handle) {
  m.def(
      name,
      [](Ptr h) {
        auto v = F(FromPtr<H>(h));
        if constexpr (std::is_enum_v<decltype(v)>) {
          return static_cast<int>(v);
        } else {
          return v;
        }
      },
      py::arg(handle));
}

// The regions (or border configs) of a batch call as the C library takes them.
template <typename T>
std::vector<T*> Handles(const std::vector<Ptr>& list) {
  std::vector<T*> out;
  out.reserve(list.size());
  for (Ptr p : list) out.push_back(FromPtr<T>(p));
  return out;
}

// roi_nums as uint32 (pyACL reads each as "I"); ACL_SUCCESS when every list in `lists` (name,
// length) has at least sum(roi_nums) entries, the number the C library reads from each.
aclError BatchCounts(const char* api, const std::vector<U32>& roi_nums,
                     std::initializer_list<std::pair<const char*, size_t>> lists,
                     std::vector<uint32_t>* counts) {
  uint64_t total = 0;
  for (U32 n : roi_nums) {
    counts->push_back(n);
    total += n.value;
  }
  for (const auto& [what, len] : lists) {
    if (len < total) {
      return Reject(api, std::string(what) + " has " + std::to_string(len) +
                             " entries, but roi_nums add up to " + std::to_string(total));
    }
  }
  return ACL_SUCCESS;
}

// The image information calls read `size` bytes of host memory at `data`.
template <typename... Out>
py::tuple ImageInfo(const char* api, uintptr_t data, uint32_t size,
                    aclError (*call)(const void*, uint32_t, Out*...)) {
  std::tuple<Out...> out{};
  aclError ret = CheckMapped(api, "data", data, size);
  if (ret == ACL_SUCCESS) {
    ret = std::apply([&](Out&... o) { return call(FromPtr(data), size, &o...); }, out);
  }
  return std::apply(
      [&](Out&... o) {
        return py::make_tuple(static_cast<std::conditional_t<std::is_enum_v<Out>, int, Out>>(o)...,
                              ret);
      },
      out);
}

aclError JpegGetImageInfoV2(const void* data, uint32_t size, uint32_t* width, uint32_t* height,
                            int32_t* components, acldvppJpegFormat* format) {
  return acldvppJpegGetImageInfoV2(data, size, width, height, components, format);
}

// dvpp_jpeg_predict_dec_size / dvpp_png_predict_dec_size(data, size, format) -> (size, ret).
template <aclError (*F)(const void*, uint32_t, acldvppPixelFormat, uint32_t*)>
void DefPredictDecSize(py::module_& m, const char* name, const char* api) {
  m.def(
      name,
      [api](Ptr data, U32 size, int format) {
        uint32_t dec_size = 0;
        aclError ret = CheckMapped(api, "data", data, size);
        if (ret == ACL_SUCCESS) {
          ret = F(FromPtr(data), size, static_cast<acldvppPixelFormat>(format), &dec_size);
        }
        return std::make_tuple(dec_size, ret);
      },
      py::arg("data"), py::arg("data_size"), py::arg("output_pixel_format"),
      "(decoded size, ret); data is host memory");
}

// dvpp_jpeg_decode_async / dvpp_png_decode_async(channel_desc, data, size, output_desc, stream).
template <aclError (*F)(acldvppChannelDesc*, const void*, uint32_t, acldvppPicDesc*, aclrtStream)>
void DefDecode(py::module_& m, const char* name) {
  m.def(
      name,
      [](Ptr channel, Ptr data, U32 size, Ptr output, Ptr stream) {
        return F(FromPtr<acldvppChannelDesc>(channel), FromPtr(data), size,
                 FromPtr<acldvppPicDesc>(output), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("data"), py::arg("size"),
      py::arg("output_dvpp_pic_desc"), py::arg("stream"));
}

void RegisterMemoryAndChannels(py::module_& m) {
  m.def(
      "dvpp_malloc",
      [](Size size) {
        void* p = nullptr;
        aclError ret = acldvppMalloc(&p, size);
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), "acldvppMalloc: (dev_ptr, ret)");
  DefHandleCall<void, &acldvppFree>(m, "dvpp_free", "dev_ptr", true);

  m.def("dvpp_create_channel_desc", [] { return ToPtr(acldvppCreateChannelDesc()); });
  DefHandleCall<acldvppChannelDesc, &acldvppDestroyChannelDesc>(m, "dvpp_destroy_channel_desc",
                                                                "dvpp_channel_desc");
  DefGet<acldvppChannelDesc, &acldvppGetChannelDescChannelId>(m, "dvpp_get_channel_desc_channel_id",
                                                              "dvpp_channel_desc");
  DefSetU32<acldvppChannelDesc, &acldvppSetChannelDescMode>(m, "dvpp_set_channel_desc_mode",
                                                            "dvpp_channel_desc", "mode");
  DefHandleCall<acldvppChannelDesc, &acldvppCreateChannel>(m, "dvpp_create_channel",
                                                           "dvpp_channel_desc", true);
  DefHandleCall<acldvppChannelDesc, &acldvppDestroyChannel>(m, "dvpp_destroy_channel",
                                                            "dvpp_channel_desc", true);
}

void RegisterPictureDescs(py::module_& m) {
  m.def("dvpp_create_pic_desc", [] { return ToPtr(acldvppCreatePicDesc()); });
  DefHandleCall<acldvppPicDesc, &acldvppDestroyPicDesc>(m, "dvpp_destroy_pic_desc", "pic_desc");
  m.def(
      "dvpp_set_pic_desc_data",
      [](Ptr desc, Ptr data) {
        return acldvppSetPicDescData(FromPtr<acldvppPicDesc>(desc), FromPtr(data));
      },
      py::arg("pic_desc"), py::arg("data_dev"));
  DefSetU32<acldvppPicDesc, &acldvppSetPicDescSize>(m, "dvpp_set_pic_desc_size", "pic_desc",
                                                    "size");
  m.def(
      "dvpp_set_pic_desc_format",
      [](Ptr desc, int format) {
        return acldvppSetPicDescFormat(FromPtr<acldvppPicDesc>(desc),
                                       static_cast<acldvppPixelFormat>(format));
      },
      py::arg("pic_desc"), py::arg("format"));
  DefSetU32<acldvppPicDesc, &acldvppSetPicDescWidth>(m, "dvpp_set_pic_desc_width", "pic_desc",
                                                     "width");
  DefSetU32<acldvppPicDesc, &acldvppSetPicDescHeight>(m, "dvpp_set_pic_desc_height", "pic_desc",
                                                      "height");
  DefSetU32<acldvppPicDesc, &acldvppSetPicDescWidthStride>(m, "dvpp_set_pic_desc_width_stride",
                                                           "pic_desc", "width_stride");
  DefSetU32<acldvppPicDesc, &acldvppSetPicDescHeightStride>(m, "dvpp_set_pic_desc_height_stride",
                                                            "pic_desc", "height_stride");
  DefSetU32<acldvppPicDesc, &acldvppSetPicDescRetCode>(m, "dvpp_set_pic_desc_ret_code", "pic_desc",
                                                       "ret_code");
  m.def(
      "dvpp_get_pic_desc_data",
      [](Ptr desc) { return ToPtr(acldvppGetPicDescData(FromPtr<acldvppPicDesc>(desc))); },
      py::arg("pic_desc"));
  DefGet<acldvppPicDesc, &acldvppGetPicDescSize>(m, "dvpp_get_pic_desc_size", "pic_desc");
  DefGet<acldvppPicDesc, &acldvppGetPicDescFormat>(m, "dvpp_get_pic_desc_format", "pic_desc");
  DefGet<acldvppPicDesc, &acldvppGetPicDescWidth>(m, "dvpp_get_pic_desc_width", "pic_desc");
  DefGet<acldvppPicDesc, &acldvppGetPicDescHeight>(m, "dvpp_get_pic_desc_height", "pic_desc");
  DefGet<acldvppPicDesc, &acldvppGetPicDescWidthStride>(m, "dvpp_get_pic_desc_width_stride",
                                                        "pic_desc");
  DefGet<acldvppPicDesc, &acldvppGetPicDescHeightStride>(m, "dvpp_get_pic_desc_height_stride",
                                                         "pic_desc");
  DefGet<acldvppPicDesc, &acldvppGetPicDescRetCode>(m, "dvpp_get_pic_desc_ret_code", "pic_desc");

  m.def(
      "dvpp_create_batch_pic_desc",
      [](U32 batch_size) { return ToPtr(acldvppCreateBatchPicDesc(batch_size)); },
      py::arg("batch_size"));
  m.def(
      "dvpp_get_pic_desc",
      [](Ptr batch, U32 index) {
        return ToPtr(acldvppGetPicDesc(FromPtr<acldvppBatchPicDesc>(batch), index));
      },
      py::arg("batch_pic_desc"), py::arg("index"));
  DefHandleCall<acldvppBatchPicDesc, &acldvppDestroyBatchPicDesc>(m, "dvpp_destroy_batch_pic_desc",
                                                                  "batch_pic_desc");
}

void RegisterConfigs(py::module_& m) {
  // Regions.
  m.def(
      "dvpp_create_roi_config",
      [](U32 left, U32 right, U32 top, U32 bottom) {
        return ToPtr(acldvppCreateRoiConfig(left, right, top, bottom));
      },
      py::arg("left"), py::arg("right"), py::arg("top"), py::arg("bottom"));
  DefHandleCall<acldvppRoiConfig, &acldvppDestroyRoiConfig>(m, "dvpp_destroy_roi_config",
                                                            "roi_config");
  DefSetU32<acldvppRoiConfig, &acldvppSetRoiConfigLeft>(m, "dvpp_set_roi_config_left", "roi_config",
                                                        "left");
  DefSetU32<acldvppRoiConfig, &acldvppSetRoiConfigRight>(m, "dvpp_set_roi_config_right",
                                                         "roi_config", "right");
  DefSetU32<acldvppRoiConfig, &acldvppSetRoiConfigTop>(m, "dvpp_set_roi_config_top", "roi_config",
                                                       "top");
  DefSetU32<acldvppRoiConfig, &acldvppSetRoiConfigBottom>(m, "dvpp_set_roi_config_bottom",
                                                          "roi_config", "bottom");
  m.def(
      "dvpp_set_roi_config",
      [](Ptr config, U32 left, U32 right, U32 top, U32 bottom) {
        return acldvppSetRoiConfig(FromPtr<acldvppRoiConfig>(config), left, right, top, bottom);
      },
      py::arg("roi_config"), py::arg("left"), py::arg("right"), py::arg("top"), py::arg("bottom"));

  // Resize and JPEG encode.
  m.def("dvpp_create_resize_config", [] { return ToPtr(acldvppCreateResizeConfig()); });
  DefHandleCall<acldvppResizeConfig, &acldvppDestroyResizeConfig>(m, "dvpp_destroy_resize_config",
                                                                  "resize_config");
  DefSetU32<acldvppResizeConfig, &acldvppSetResizeConfigInterpolation>(
      m, "dvpp_set_resize_config_interpolation", "resize_config", "interpolation");
  DefGet<acldvppResizeConfig, &acldvppGetResizeConfigInterpolation>(
      m, "dvpp_get_resize_config_interpolation", "resize_config");
  m.def("dvpp_create_jpege_config", [] { return ToPtr(acldvppCreateJpegeConfig()); });
  DefHandleCall<acldvppJpegeConfig, &acldvppDestroyJpegeConfig>(m, "dvpp_destroy_jpege_config",
                                                                "jpege_config");
  DefSetU32<acldvppJpegeConfig, &acldvppSetJpegeConfigLevel>(m, "dvpp_set_jpege_config_level",
                                                             "jpege_config", "level");
  DefGet<acldvppJpegeConfig, &acldvppGetJpegeConfigLevel>(m, "dvpp_get_jpege_config_level",
                                                          "jpege_config");

  // Borders.
  m.def("dvpp_create_border_config", [] { return ToPtr(acldvppCreateBorderConfig()); });
  DefHandleCall<acldvppBorderConfig, &acldvppDestroyBorderConfig>(m, "dvpp_destroy_border_config",
                                                                  "border_config");
  m.def(
      "dvpp_set_border_config_value",
      [](Ptr config, U32 index, double value) {
        return acldvppSetBorderConfigValue(FromPtr<acldvppBorderConfig>(config), index, value);
      },
      py::arg("border_config"), py::arg("index"), py::arg("value"));
  m.def(
      "dvpp_set_border_config_border_type",
      [](Ptr config, int type) {
        return acldvppSetBorderConfigBorderType(FromPtr<acldvppBorderConfig>(config),
                                                static_cast<acldvppBorderType>(type));
      },
      py::arg("border_config"), py::arg("border_type"));
  DefSetU32<acldvppBorderConfig, &acldvppSetBorderConfigTop>(m, "dvpp_set_border_config_top",
                                                             "border_config", "top");
  DefSetU32<acldvppBorderConfig, &acldvppSetBorderConfigBottom>(m, "dvpp_set_border_config_bottom",
                                                                "border_config", "bottom");
  DefSetU32<acldvppBorderConfig, &acldvppSetBorderConfigLeft>(m, "dvpp_set_border_config_left",
                                                              "border_config", "left");
  DefSetU32<acldvppBorderConfig, &acldvppSetBorderConfigRight>(m, "dvpp_set_border_config_right",
                                                               "border_config", "right");
  m.def(
      "dvpp_get_border_config_value",
      [](Ptr config, U32 index) {
        return acldvppGetBorderConfigValue(FromPtr<acldvppBorderConfig>(config), index);
      },
      py::arg("border_config"), py::arg("index"), "float; -1.0 for a bad handle or index");
  DefGet<acldvppBorderConfig, &acldvppGetBorderConfigBorderType>(
      m, "dvpp_get_border_config_border_type", "border_config");
  DefGet<acldvppBorderConfig, &acldvppGetBorderConfigTop>(m, "dvpp_get_border_config_top",
                                                          "border_config");
  DefGet<acldvppBorderConfig, &acldvppGetBorderConfigBottom>(m, "dvpp_get_border_config_bottom",
                                                             "border_config");
  DefGet<acldvppBorderConfig, &acldvppGetBorderConfigLeft>(m, "dvpp_get_border_config_left",
                                                           "border_config");
  DefGet<acldvppBorderConfig, &acldvppGetBorderConfigRight>(m, "dvpp_get_border_config_right",
                                                            "border_config");

  // Look-up tables and histograms: *_data returns the address of the C library's table (256
  // entries of uint8, or uint32 for a histogram), valid while the object lives.
  m.def("dvpp_create_lut_map", [] { return ToPtr(acldvppCreateLutMap()); });
  DefHandleCall<acldvppLutMap, &acldvppDestroyLutMap>(m, "dvpp_destroy_lut_map", "lut_map");
  DefGet<acldvppLutMap, &acldvppGetLutMapDims>(m, "dvpp_get_lut_map_dims", "lut_map");
  m.def(
      "dvpp_get_lut_map_data",
      [](Ptr lut, U32 dim) {
        uint8_t* data = nullptr;
        uint32_t len = 0;
        aclError ret = acldvppGetLutMapData(FromPtr<acldvppLutMap>(lut), dim, &data, &len);
        return std::make_tuple(ToPtr(data), len, ret);
      },
      py::arg("lut_map"), py::arg("dim"), "acldvppGetLutMapData: (data_ptr, len, ret)");
  m.def("dvpp_create_hist", [] { return ToPtr(acldvppCreateHist()); });
  DefHandleCall<acldvppHist, &acldvppDestroyHist>(m, "dvpp_destroy_hist", "hist");
  DefGet<acldvppHist, &acldvppGetHistDims>(m, "dvpp_get_hist_dims", "hist");
  m.def(
      "dvpp_get_hist_data",
      [](Ptr hist, U32 dim) {
        uint32_t* data = nullptr;
        uint16_t len = 0;
        aclError ret = acldvppGetHistData(FromPtr<acldvppHist>(hist), dim, &data, &len);
        return std::make_tuple(ToPtr(data), static_cast<uint32_t>(len), ret);
      },
      py::arg("hist"), py::arg("dim"), "acldvppGetHistData: (data_ptr, len, ret)");
  DefGet<acldvppHist, &acldvppGetHistRetCode>(m, "dvpp_get_hist_ret_code", "hist");
  DefHandleCall<acldvppHist, &acldvppClearHist>(m, "dvpp_clear_hist", "hist");
}

// Compressed-stream descriptions (the input of video decode, the output of video encode).
void RegisterStreamDescs(py::module_& m) {
  using Stream = acldvppStreamDesc;
  m.def("dvpp_create_stream_desc", [] { return ToPtr(acldvppCreateStreamDesc()); });
  DefHandleCall<Stream, &acldvppDestroyStreamDesc>(m, "dvpp_destroy_stream_desc", "stream_desc");
  m.def(
      "dvpp_set_stream_desc_data",
      [](Ptr desc, Ptr data) {
        return acldvppSetStreamDescData(FromPtr<Stream>(desc), FromPtr(data));
      },
      py::arg("stream_desc"), py::arg("data_dev"));
  DefSetU32<Stream, &acldvppSetStreamDescSize>(m, "dvpp_set_stream_desc_size", "stream_desc",
                                               "size");
  m.def(
      "dvpp_set_stream_desc_format",
      [](Ptr desc, int format) {
        return acldvppSetStreamDescFormat(FromPtr<Stream>(desc),
                                          static_cast<acldvppStreamFormat>(format));
      },
      py::arg("stream_desc"), py::arg("format"));
  m.def(
      "dvpp_set_stream_desc_timestamp",
      [](Ptr desc, U64 timestamp) {
        return acldvppSetStreamDescTimestamp(FromPtr<Stream>(desc), timestamp);
      },
      py::arg("stream_desc"), py::arg("timestamp"));
  DefSetU32<Stream, &acldvppSetStreamDescRetCode>(m, "dvpp_set_stream_desc_ret_code", "stream_desc",
                                                  "ret_code");
  m.def(
      "dvpp_set_stream_desc_eos",
      [](Ptr desc, Masked<uint8_t> eos) {  // "B" in pyACL
        return acldvppSetStreamDescEos(FromPtr<Stream>(desc), eos);
      },
      py::arg("stream_desc"), py::arg("eos"));
  m.def(
      "dvpp_get_stream_desc_data",
      [](Ptr desc) { return ToPtr(acldvppGetStreamDescData(FromPtr<Stream>(desc))); },
      py::arg("stream_desc"));
  DefGet<Stream, &acldvppGetStreamDescSize>(m, "dvpp_get_stream_desc_size", "stream_desc");
  DefGet<Stream, &acldvppGetStreamDescFormat>(m, "dvpp_get_stream_desc_format", "stream_desc");
  DefGet<Stream, &acldvppGetStreamDescTimestamp>(m, "dvpp_get_stream_desc_timestamp",
                                                 "stream_desc");
  DefGet<Stream, &acldvppGetStreamDescRetCode>(m, "dvpp_get_stream_desc_ret_code", "stream_desc");
  DefGet<Stream, &acldvppGetStreamDescEos>(m, "dvpp_get_stream_desc_eos", "stream_desc");
}

void RegisterCodecs(py::module_& m) {
  m.def(
      "dvpp_jpeg_get_image_info",
      [](Ptr data, U32 size) {
        return ImageInfo<uint32_t, uint32_t, int32_t>("acl.media.dvpp_jpeg_get_image_info", data,
                                                      size, &acldvppJpegGetImageInfo);
      },
      py::arg("data"), py::arg("size"), "(width, height, components, ret); data is host memory");
  m.def(
      "dvpp_jpeg_get_image_info_v2",
      [](Ptr data, U32 size) {
        return ImageInfo<uint32_t, uint32_t, int32_t, acldvppJpegFormat>(
            "acl.media.dvpp_jpeg_get_image_info_v2", data, size, &JpegGetImageInfoV2);
      },
      py::arg("data"), py::arg("size"),
      "(width, height, components, format, ret); data is host memory");
  m.def(
      "dvpp_png_get_image_info",
      [](Ptr data, U32 size) {
        return ImageInfo<uint32_t, uint32_t, int32_t>("acl.media.dvpp_png_get_image_info", data,
                                                      size, &acldvppPngGetImageInfo);
      },
      py::arg("data"), py::arg("data_size"),
      "(width, height, components, ret); data is host memory");
  DefPredictDecSize<&acldvppJpegPredictDecSize>(m, "dvpp_jpeg_predict_dec_size",
                                                "acl.media.dvpp_jpeg_predict_dec_size");
  DefPredictDecSize<&acldvppPngPredictDecSize>(m, "dvpp_png_predict_dec_size",
                                               "acl.media.dvpp_png_predict_dec_size");
  m.def(
      "dvpp_jpeg_predict_enc_size",
      [](Ptr input, Ptr config) {
        uint32_t size = 0;
        aclError ret = acldvppJpegPredictEncSize(FromPtr<acldvppPicDesc>(input),
                                                 FromPtr<acldvppJpegeConfig>(config), &size);
        return std::make_tuple(size, ret);
      },
      py::arg("input_dvpp_pic_desc"), py::arg("dvpp_jpege_config"), "(size, ret)");

  DefDecode<&acldvppJpegDecodeAsync>(m, "dvpp_jpeg_decode_async");
  DefDecode<&acldvppPngDecodeAsync>(m, "dvpp_png_decode_async");
  m.def(
      "dvpp_jpeg_encode_async",
      [](Ptr channel, Ptr input, Ptr data, Ptr size_ptr, Ptr config, Ptr stream) {
        // As pyACL: size_ptr addresses a uint32 (the output's capacity) that the task overwrites
        // with the encoded size when it runs, so it must stay alive until the stream is
        // synchronised.
        if (aclError e = CheckMapped("acl.media.dvpp_jpeg_encode_async", "size_ptr", size_ptr,
                                     sizeof(uint32_t))) {
          return e;
        }
        ReleaseGil release;
        return acldvppJpegEncodeAsync(
            FromPtr<acldvppChannelDesc>(channel), FromPtr<acldvppPicDesc>(input), FromPtr(data),
            FromPtr<uint32_t>(size_ptr), FromPtr<acldvppJpegeConfig>(config), FromPtr(stream));
      },
      py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"), py::arg("data"),
      py::arg("size_ptr"), py::arg("dvpp_jpege_config"), py::arg("stream"));
}

void RegisterVpc(py::module_& m) {
  using Pic = acldvppPicDesc;
  using Channel = acldvppChannelDesc;
  using Roi = acldvppRoiConfig;
  using Resize = acldvppResizeConfig;
  m.def(
      "dvpp_vpc_resize_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr resize, Ptr stream) {
        return acldvppVpcResizeAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in), FromPtr<Pic>(out),
                                     FromPtr<Resize>(resize), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("resize_config"), py::arg("stream"));
  m.def(
      "dvpp_vpc_crop_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr crop, Ptr stream) {
        return acldvppVpcCropAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in), FromPtr<Pic>(out),
                                   FromPtr<Roi>(crop), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("crop_area"), py::arg("stream"));
  m.def(
      "dvpp_vpc_crop_resize_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr crop, Ptr resize, Ptr stream) {
        return acldvppVpcCropResizeAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in), FromPtr<Pic>(out),
                                         FromPtr<Roi>(crop), FromPtr<Resize>(resize),
                                         FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("crop_area"), py::arg("resize_config"),
      py::arg("stream"));
  m.def(
      "dvpp_vpc_crop_and_paste_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr crop, Ptr paste, Ptr stream) {
        return acldvppVpcCropAndPasteAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in),
                                           FromPtr<Pic>(out), FromPtr<Roi>(crop),
                                           FromPtr<Roi>(paste), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("crop_area"), py::arg("paste_area"),
      py::arg("stream"));
  m.def(
      "dvpp_vpc_crop_resize_paste_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr crop, Ptr paste, Ptr resize, Ptr stream) {
        return acldvppVpcCropResizePasteAsync(
            FromPtr<Channel>(ch), FromPtr<Pic>(in), FromPtr<Pic>(out), FromPtr<Roi>(crop),
            FromPtr<Roi>(paste), FromPtr<Resize>(resize), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("crop_area"), py::arg("paste_area"),
      py::arg("resize_config"), py::arg("stream"));

  // The batch forms take Python lists: roi_nums (crops per source picture; its length is the C
  // `size`), then one region (and paste region or border config) per destination picture. As in
  // pyACL, batch_crop and batch_crop_and_paste return (dst_batch_pic_descs, ret), the others ret.
  m.def(
      "dvpp_vpc_batch_crop_async",
      [](Ptr ch, Ptr src, std::vector<U32> roi_nums, Ptr dst, std::vector<Ptr> crops, Ptr stream) {
        std::vector<uint32_t> counts;
        aclError ret = BatchCounts("acl.media.dvpp_vpc_batch_crop_async", roi_nums,
                                   {{"crop_area_list", crops.size()}}, &counts);
        if (ret == ACL_SUCCESS) {
          std::vector<Roi*> c = Handles<Roi>(crops);
          ReleaseGil release;
          ret = acldvppVpcBatchCropAsync(FromPtr<Channel>(ch), FromPtr<acldvppBatchPicDesc>(src),
                                         counts.data(), static_cast<uint32_t>(counts.size()),
                                         FromPtr<acldvppBatchPicDesc>(dst), c.data(),
                                         FromPtr(stream));
        }
        return std::make_tuple(dst.value, ret);
      },
      py::arg("dvpp_channel_desc"), py::arg("src_batch_pic_descs"), py::arg("roi_nums"),
      py::arg("dst_batch_pic_descs"), py::arg("crop_area_list"), py::arg("stream"),
      "(dst_batch_pic_descs, ret)");
  m.def(
      "dvpp_vpc_batch_crop_resize_async",
      [](Ptr ch, Ptr src, std::vector<U32> roi_nums, Ptr dst, std::vector<Ptr> crops, Ptr resize,
         Ptr stream) {
        std::vector<uint32_t> counts;
        aclError ret = BatchCounts("acl.media.dvpp_vpc_batch_crop_resize_async", roi_nums,
                                   {{"crop_area_list", crops.size()}}, &counts);
        if (ret != ACL_SUCCESS) return ret;
        std::vector<Roi*> c = Handles<Roi>(crops);
        ReleaseGil release;
        return acldvppVpcBatchCropResizeAsync(
            FromPtr<Channel>(ch), FromPtr<acldvppBatchPicDesc>(src), counts.data(),
            static_cast<uint32_t>(counts.size()), FromPtr<acldvppBatchPicDesc>(dst), c.data(),
            FromPtr<Resize>(resize), FromPtr(stream));
      },
      py::arg("dvpp_channel_desc"), py::arg("src_batch_pic_descs"), py::arg("roi_nums"),
      py::arg("dst_batch_pic_descs"), py::arg("crop_area_list"), py::arg("resize_config"),
      py::arg("stream"));
  m.def(
      "dvpp_vpc_batch_crop_and_paste_async",
      [](Ptr ch, Ptr src, std::vector<U32> roi_nums, Ptr dst, std::vector<Ptr> crops,
         std::vector<Ptr> pastes, Ptr stream) {
        std::vector<uint32_t> counts;
        aclError ret = BatchCounts(
            "acl.media.dvpp_vpc_batch_crop_and_paste_async", roi_nums,
            {{"crop_area_list", crops.size()}, {"paste_area_list", pastes.size()}}, &counts);
        if (ret == ACL_SUCCESS) {
          std::vector<Roi*> c = Handles<Roi>(crops), p = Handles<Roi>(pastes);
          ReleaseGil release;
          ret = acldvppVpcBatchCropAndPasteAsync(
              FromPtr<Channel>(ch), FromPtr<acldvppBatchPicDesc>(src), counts.data(),
              static_cast<uint32_t>(counts.size()), FromPtr<acldvppBatchPicDesc>(dst), c.data(),
              p.data(), FromPtr(stream));
        }
        return std::make_tuple(dst.value, ret);
      },
      py::arg("dvpp_channel_desc"), py::arg("src_batch_pic_descs"), py::arg("roi_nums"),
      py::arg("dst_batch_pic_descs"), py::arg("crop_area_list"), py::arg("paste_area_list"),
      py::arg("stream"), "(dst_batch_pic_descs, ret)");
  m.def(
      "dvpp_vpc_batch_crop_resize_paste_async",
      [](Ptr ch, Ptr src, std::vector<U32> roi_nums, Ptr dst, std::vector<Ptr> crops,
         std::vector<Ptr> pastes, Ptr resize, Ptr stream) {
        std::vector<uint32_t> counts;
        aclError ret = BatchCounts(
            "acl.media.dvpp_vpc_batch_crop_resize_paste_async", roi_nums,
            {{"crop_area_list", crops.size()}, {"paste_area_list", pastes.size()}}, &counts);
        if (ret != ACL_SUCCESS) return ret;
        std::vector<Roi*> c = Handles<Roi>(crops), p = Handles<Roi>(pastes);
        ReleaseGil release;
        return acldvppVpcBatchCropResizePasteAsync(
            FromPtr<Channel>(ch), FromPtr<acldvppBatchPicDesc>(src), counts.data(),
            static_cast<uint32_t>(counts.size()), FromPtr<acldvppBatchPicDesc>(dst), c.data(),
            p.data(), FromPtr<Resize>(resize), FromPtr(stream));
      },
      py::arg("dvpp_channel_desc"), py::arg("src_batch_pic_descs"), py::arg("roi_nums"),
      py::arg("dst_batch_pic_descs"), py::arg("crop_area_list"), py::arg("paste_area_list"),
      py::arg("resize_config"), py::arg("stream"));
  m.def(
      "dvpp_vpc_batch_crop_resize_make_border_async",
      [](Ptr ch, Ptr src, std::vector<U32> roi_nums, Ptr dst, std::vector<Ptr> crops,
         std::vector<Ptr> borders, Ptr resize, Ptr stream) {
        std::vector<uint32_t> counts;
        aclError ret = BatchCounts(
            "acl.media.dvpp_vpc_batch_crop_resize_make_border_async", roi_nums,
            {{"crop_area_list", crops.size()}, {"border_cfgs_list", borders.size()}}, &counts);
        if (ret != ACL_SUCCESS) return ret;
        std::vector<Roi*> c = Handles<Roi>(crops);
        std::vector<acldvppBorderConfig*> b = Handles<acldvppBorderConfig>(borders);
        ReleaseGil release;
        return acldvppVpcBatchCropResizeMakeBorderAsync(
            FromPtr<Channel>(ch), FromPtr<acldvppBatchPicDesc>(src), counts.data(),
            static_cast<uint32_t>(counts.size()), FromPtr<acldvppBatchPicDesc>(dst), c.data(),
            b.data(), FromPtr<Resize>(resize), FromPtr(stream));
      },
      py::arg("dvpp_channel_desc"), py::arg("src_batch_pic_descs"), py::arg("roi_nums"),
      py::arg("dst_batch_pic_descs"), py::arg("crop_area_list"), py::arg("border_cfgs_list"),
      py::arg("resize_config"), py::arg("stream"));

  m.def(
      "dvpp_vpc_convert_color_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr stream) {
        return acldvppVpcConvertColorAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in),
                                           FromPtr<Pic>(out), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("stream"));
  m.def(
      "dvpp_vpc_pyr_down_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr reserve, Ptr stream) {
        return acldvppVpcPyrDownAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in), FromPtr<Pic>(out),
                                      FromPtr(reserve), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("reserve"), py::arg("stream"));
  m.def(
      "dvpp_vpc_equalize_hist_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr lut, Ptr stream) {
        return acldvppVpcEqualizeHistAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in),
                                           FromPtr<Pic>(out), FromPtr<acldvppLutMap>(lut),
                                           FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("lut_map"), py::arg("stream"));
  m.def(
      "dvpp_vpc_make_border_async",
      [](Ptr ch, Ptr in, Ptr out, Ptr border, Ptr stream) {
        return acldvppVpcMakeBorderAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in), FromPtr<Pic>(out),
                                         FromPtr<acldvppBorderConfig>(border), FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("input_dvpp_pic_desc"),
      py::arg("output_dvpp_pic_desc"), py::arg("border_config"), py::arg("stream"));
  m.def(
      "dvpp_vpc_calc_hist_async",
      [](Ptr ch, Ptr in, Ptr hist, Ptr reserve, Ptr stream) {
        return acldvppVpcCalcHistAsync(FromPtr<Channel>(ch), FromPtr<Pic>(in),
                                       FromPtr<acldvppHist>(hist), FromPtr(reserve),
                                       FromPtr(stream));
      },
      GIL(), py::arg("dvpp_channel_desc"), py::arg("src_pic_desc"), py::arg("hist"),
      py::arg("reserve"), py::arg("stream"));
}

}  // namespace

void RegisterMedia(py::module_& media) {
  RegisterMemoryAndChannels(media);
  RegisterPictureDescs(media);
  RegisterConfigs(media);
  RegisterStreamDescs(media);
  RegisterCodecs(media);
  RegisterVpc(media);
  RegisterMediaVideo(media);
}

}  // namespace kiln::python

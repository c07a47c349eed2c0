// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// DVPP image codecs: JPEG and PNG information and size prediction from host memory, and JPEG
// decode, PNG decode and JPEG encode as stream tasks (docs/dvpp.md, "JPEG and PNG"). The
// compressed data is read when the task runs, so a copy queued before it on the same stream is
// seen; the output description's width, height and strides are written then too.
#include <cstring>

#include "capi/dvpp_objects.h"
#include "capi/error.h"
#include "media/jpeg.h"
#include "media/png.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
namespace dvpp = kiln::capi::dvpp;
namespace media = kiln::media;

namespace {

constexpr uint32_t kAnyMode = ~0u;

// The format a JPEG decode asked for as PIXEL_FORMAT_UNKNOWN writes: the JPEG's own
// subsampling, as CANN's JPEGD does (4:4:4 and 4:2:2 V-first, others YUV 4:2:0 U-first).
int JpegOutputFormat(const media::JpegInfo& info, int format) {
  if (format != media::kPixelFormatUnknown) return format;
  if (info.css == media::kJpegCss444) return PIXEL_FORMAT_YVU_SEMIPLANAR_444;
  if (info.css == media::kJpegCss422) return PIXEL_FORMAT_YVU_SEMIPLANAR_422;
  return PIXEL_FORMAT_YUV_SEMIPLANAR_420;
}

kiln::Status CheckDecodeFormat(int format, bool png) {
  if (format == media::kPixelFormatUnknown) return kiln::Status::Ok();
  const media::FormatInfo* f = media::FindFormat(format);
  if (f != nullptr && !(png && f->is_yuv())) return kiln::Status::Ok();
  return kiln::Error(kiln::code::kInvalidParam, media::FormatName(format), " is not a ",
                     png ? "PNG" : "JPEG", " decode output format (docs/dvpp.md lists them)");
}

// The output picture of a decode: the description's strides when it set valid ones, else
// DVPP's (media::DecodedLayout); checked against its size.
kiln::Result<media::Picture> DecodeTarget(const media::Picture& desc, uint32_t w, uint32_t h,
                                          int format) {
  KILN_ASSIGN_OR_RETURN(media::Picture out, media::DecodedLayout(w, h, format));
  const media::FormatInfo& f = *media::FindFormat(format);
  // The description's strides when they hold this picture (a description reused for a smaller
  // image keeps its own), else DVPP's.
  if (desc.width_stride >= media::RowBytes(f, w) && desc.width_stride % media::kStrideAlign == 0 &&
      desc.height_stride >= h && desc.height_stride % 2 == 0) {
    out.width_stride = desc.width_stride;
    out.height_stride = desc.height_stride;
  }
  out.data = desc.data;
  out.size = desc.size;
  uint64_t need = media::PictureBytes(f, out.width_stride, out.height_stride);
  if (out.size < need) {
    return kiln::Error(kiln::code::kInvalidParam, "the output picture holds ", out.size,
                       " bytes; the decoded ", w, "x", h, " ", f.name, " with strides ",
                       out.width_stride, "x", out.height_stride, " takes ", need,
                       " (acldvpp*PredictDecSize)");
  }
  return out;
}

// Writes what the decode produced back into the output description.
void Publish(dvpp::PicDesc& desc, const media::Picture& out) {
  std::lock_guard<std::mutex> lock(desc.mu);
  desc.pic.format = out.format;
  desc.pic.width = out.width;
  desc.pic.height = out.height;
  desc.pic.width_stride = out.width_stride;
  desc.pic.height_stride = out.height_stride;
}

// Checks shared by the two decoders: channel, input data, output description.
// The output description and its picture as the call found it: the task writes there (a later
// change to the description does not move the decode), and publishes what it decoded.
struct DecodeOutput {
  std::shared_ptr<dvpp::PicDesc> desc;
  media::Picture pic;
};

kiln::Result<DecodeOutput> CheckDecode(const acldvppChannelDesc* channel, uint32_t mode,
                                       const void* data, uint32_t size,
                                       const acldvppPicDesc* output, bool png) {
  KILN_RETURN_IF_ERROR(
      dvpp::UsableChannel(channel, mode, png ? "PNG decode" : "DVPP_CHNMODE_JPEGD").status(), "");
  if (size == 0) return kiln::Error(kiln::code::kInvalidParam, "size is 0");
  KILN_RETURN_IF_ERROR(dvpp::CheckDeviceData("the input", data, size), "");
  KILN_ASSIGN_OR_RETURN(auto out, dvpp::LivePicDesc(output, "outputDesc"));
  media::Picture pic = out->Get();
  KILN_RETURN_IF_ERROR(CheckDecodeFormat(pic.format, png), "");
  if (pic.size == 0) return kiln::Error(kiln::code::kInvalidParam, "outputDesc size is 0");
  KILN_RETURN_IF_ERROR(dvpp::CheckDeviceData("outputDesc", pic.data, pic.size), "");
  return DecodeOutput{std::move(out), pic};
}

}  // namespace

extern "C" {

aclError acldvppJpegGetImageInfo(const void* data, uint32_t size, uint32_t* width, uint32_t* height,
                                 int32_t* components) {
  return acldvppJpegGetImageInfoV2(data, size, width, height, components, nullptr);
}

aclError acldvppJpegGetImageInfoV2(const void* data, uint32_t size, uint32_t* width,
                                   uint32_t* height, int32_t* components,
                                   acldvppJpegFormat* format) {
  const char* api = format ? "acldvppJpegGetImageInfoV2" : "acldvppJpegGetImageInfo";
  KILN_CAPI(api, {
    if (width == nullptr || height == nullptr) return InvalidParam(api, "width or height is NULL");
    auto info = media::ReadJpegInfo(static_cast<const uint8_t*>(data), size);
    if (!info.ok()) return Report(api, info.status());
    *width = info->width;
    *height = info->height;
    if (components != nullptr) *components = info->components;
    if (format != nullptr) *format = static_cast<acldvppJpegFormat>(info->css);
    return ACL_SUCCESS;
  });
}

aclError acldvppJpegPredictDecSize(const void* data, uint32_t dataSize,
                                   acldvppPixelFormat outputPixelFormat, uint32_t* decSize) {
  const char* api = "acldvppJpegPredictDecSize";
  KILN_CAPI(api, {
    if (decSize == nullptr) return InvalidParam(api, "decSize is NULL");
    int format = kiln::capi::EnumInt(outputPixelFormat);
    kiln::Status st = CheckDecodeFormat(format, false);
    if (!st.ok()) return Report(api, st);
    auto info = media::ReadJpegInfo(static_cast<const uint8_t*>(data), dataSize);
    if (!info.ok()) return Report(api, info.status());
    if (!info->decodable) {
      return Report(api, kiln::Error(kiln::code::kUnsupportedJpeg, "this JPEG (", info->components,
                                     " components, ", info->width, "x", info->height,
                                     ") is not one DVPP decodes"));
    }
    auto layout = media::DecodedLayout(info->width, info->height, JpegOutputFormat(*info, format));
    if (!layout.ok()) return Report(api, layout.status());
    *decSize = static_cast<uint32_t>(layout->size);
    return ACL_SUCCESS;
  });
}

aclError acldvppPngGetImageInfo(const void* data, uint32_t dataSize, uint32_t* width,
                                uint32_t* height, int32_t* components) {
  const char* api = "acldvppPngGetImageInfo";
  KILN_CAPI(api, {
    if (width == nullptr || height == nullptr) return InvalidParam(api, "width or height is NULL");
    auto info = media::ReadPngInfo(static_cast<const uint8_t*>(data), dataSize);
    if (!info.ok()) return Report(api, info.status());
    *width = info->width;
    *height = info->height;
    if (components != nullptr) *components = info->components;
    return ACL_SUCCESS;
  });
}

aclError acldvppPngPredictDecSize(const void* data, uint32_t dataSize,
                                  acldvppPixelFormat outputPixelFormat, uint32_t* decSize) {
  const char* api = "acldvppPngPredictDecSize";
  KILN_CAPI(api, {
    if (decSize == nullptr) return InvalidParam(api, "decSize is NULL");
    auto info = media::ReadPngInfo(static_cast<const uint8_t*>(data), dataSize);
    if (!info.ok()) return Report(api, info.status());
    auto format = media::PngOutputFormat(*info, kiln::capi::EnumInt(outputPixelFormat));
    if (!format.ok()) return Report(api, format.status());
    if (info->width > media::kMaxSide || info->height > media::kMaxSide) {
      return InvalidParam(api, "the PNG is ", info->width, "x", info->height, ", more than ",
                          media::kMaxSide, " a side");
    }
    auto layout = media::DecodedLayout(info->width, info->height, *format);
    if (!layout.ok()) return Report(api, layout.status());
    *decSize = static_cast<uint32_t>(layout->size);
    return ACL_SUCCESS;
  });
}

aclError acldvppJpegDecodeAsync(acldvppChannelDesc* channelDesc, const void* data, uint32_t size,
                                acldvppPicDesc* outputDesc, aclrtStream stream) {
  const char* api = "acldvppJpegDecodeAsync";
  KILN_CAPI(api, {
    auto out = CheckDecode(channelDesc, DVPP_CHNMODE_JPEGD, data, size, outputDesc, false);
    if (!out.ok()) return Report(api, out.status());
    const auto* in = static_cast<const uint8_t*>(data);
    DecodeOutput o = std::move(*out);
    return Report(
        api, dvpp::Enqueue(
                 stream, "JPEG decode", o.desc,
                 [in, size, desc = o.desc, pic = o.pic]() -> kiln::Status {
                   KILN_ASSIGN_OR_RETURN(media::JpegInfo info, media::ReadJpegInfo(in, size));
                   if (!info.decodable) {
                     return kiln::Error(kiln::code::kUnsupportedJpeg, "JPEG decode: this JPEG (",
                                        info.components, " components) is not one DVPP decodes");
                   }
                   KILN_ASSIGN_OR_RETURN(media::Picture target,
                                         DecodeTarget(pic, info.width, info.height,
                                                      JpegOutputFormat(info, pic.format)));
                   KILN_RETURN_IF_ERROR(media::DecodeJpeg(in, size, target), "JPEG decode");
                   Publish(*desc, target);
                   return kiln::Status::Ok();
                 }));
  });
}

aclError acldvppPngDecodeAsync(acldvppChannelDesc* channelDesc, const void* data, uint32_t size,
                               acldvppPicDesc* outputDesc, aclrtStream stream) {
  const char* api = "acldvppPngDecodeAsync";
  KILN_CAPI(api, {
    auto out = CheckDecode(channelDesc, kAnyMode, data, size, outputDesc, true);
    if (!out.ok()) return Report(api, out.status());
    const auto* in = static_cast<const uint8_t*>(data);
    DecodeOutput o = std::move(*out);
    return Report(
        api,
        dvpp::Enqueue(
            stream, "PNG decode", o.desc, [in, size, desc = o.desc, pic = o.pic]() -> kiln::Status {
              KILN_ASSIGN_OR_RETURN(media::PngInfo info, media::ReadPngInfo(in, size));
              KILN_ASSIGN_OR_RETURN(int format, media::PngOutputFormat(info, pic.format));
              if (info.width > media::kMaxSide || info.height > media::kMaxSide) {
                return kiln::Error(kiln::code::kInvalidParam, "PNG decode: ", info.width, "x",
                                   info.height, " is more than ", media::kMaxSide, " a side");
              }
              KILN_ASSIGN_OR_RETURN(media::Picture target,
                                    DecodeTarget(pic, info.width, info.height, format));
              KILN_RETURN_IF_ERROR(media::DecodePng(in, size, target), "PNG decode");
              Publish(*desc, target);
              return kiln::Status::Ok();
            }));
  });
}

aclError acldvppJpegPredictEncSize(const acldvppPicDesc* inputDesc,
                                   const acldvppJpegeConfig* config, uint32_t* size) {
  const char* api = "acldvppJpegPredictEncSize";
  KILN_CAPI(api, {
    if (size == nullptr) return InvalidParam(api, "size is NULL");
    if (dvpp::JpegeConfigs().Live(api, config) == nullptr) return ACL_ERROR_INVALID_PARAM;
    auto desc = dvpp::LivePicDesc(inputDesc, "inputDesc");
    if (!desc.ok()) return Report(api, desc.status());
    media::Picture pic = (*desc)->Get();
    if (media::FindFormat(pic.format) == nullptr || pic.width == 0 || pic.height == 0 ||
        pic.width > media::kMaxSide || pic.height > media::kMaxSide) {
      return InvalidParam(api, "inputDesc: ", pic.width, "x", pic.height, " ",
                          media::FormatName(pic.format), " is not a picture JPEG encode takes");
    }
    *size = static_cast<uint32_t>(media::PredictJpegEncSize(pic));
    return ACL_SUCCESS;
  });
}

aclError acldvppJpegEncodeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                const void* data, uint32_t* size, acldvppJpegeConfig* config,
                                aclrtStream stream) {
  const char* api = "acldvppJpegEncodeAsync";
  KILN_CAPI(api, {
    auto ch = dvpp::UsableChannel(channelDesc, DVPP_CHNMODE_JPEGE, "DVPP_CHNMODE_JPEGE");
    if (!ch.ok()) return Report(api, ch.status());
    auto desc = dvpp::LivePicDesc(inputDesc, "inputDesc");
    if (!desc.ok()) return Report(api, desc.status());
    const media::Picture in = (*desc)->Get();
    auto checked = media::CheckPicture("inputDesc", in);
    if (!checked.ok()) return Report(api, checked.status());
    kiln::Status st = dvpp::CheckPictureMemory("inputDesc", in);
    if (!st.ok()) return Report(api, st);
    if (size == nullptr || *size == 0) return InvalidParam(api, "size is NULL or 0");
    st = dvpp::CheckDeviceData("the output", data, *size);
    if (!st.ok()) return Report(api, st);
    std::shared_ptr<dvpp::JpegeConfig> cfg = dvpp::JpegeConfigs().Live(api, config);
    if (cfg == nullptr) return ACL_ERROR_INVALID_PARAM;
    const int quality = cfg->level == 0 ? 100 : static_cast<int>(cfg->level);
    auto* dst = static_cast<uint8_t*>(const_cast<void*>(data));
    const uint32_t cap = *size;
    return Report(api, dvpp::Enqueue(stream, "JPEG encode", nullptr,
                                     [in, quality, dst, cap, size]() -> kiln::Status {
                                       KILN_ASSIGN_OR_RETURN(
                                           uint64_t len, media::EncodeJpeg(in, quality, dst, cap));
                                       *size = static_cast<uint32_t>(len);
                                       return kiln::Status::Ok();
                                     }));
  });
}

}  // extern "C"

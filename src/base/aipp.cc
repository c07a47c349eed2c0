// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/aipp.h"

#include <cstring>

namespace kiln::aipp {
namespace {

constexpr Format kFormats[] = {{"YUV420SP_U8", 1, 3, 1, true},
                               {"XRGB8888_U8", 4, 4, 2},
                               {"RGB888_U8", 3, 3, 3},
                               {"YUV400_U8", 1, 1, 4}};

}  // namespace

const Format* FindFormat(const std::string& name) {
  for (const Format& f : kFormats) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

const Format* FindFormat(int acl_format) {
  for (const Format& f : kFormats) {
    if (acl_format == f.acl_format) return &f;
  }
  return nullptr;
}

Status CheckDynamicBlock(const uint8_t* block, size_t size, int64_t n, int64_t c, int64_t h,
                         int64_t w, int64_t image_bytes, const std::string& where) {
  auto fail = [&](auto&&... what) { return Error(code::kInvalidParam, where, what...); };
  if (n < 1 || n > kMaxDynamicBatch) return fail("a batch of ", n, " images is outside [1, 127]");
  if (size < DynamicBlockSize(static_cast<size_t>(n))) {
    return fail("the parameter input has ", size, " bytes; ", n, " image(s) need ",
                DynamicBlockSize(static_cast<size_t>(n)),
                " (aclmdlGetAippDataSize): set it with aclmdlSetInputAIPP");
  }
  DynamicHeader head;
  std::memcpy(&head, block, sizeof head);
  if (head.batch_num != n) {
    return fail("the parameters are for ", static_cast<int>(head.batch_num),
                " image(s) (aclmdlCreateAIPP's batchSize); the model takes ", n);
  }
  const Format* format = FindFormat(head.input_format);
  if (format == nullptr) {
    return fail("input format ", static_cast<int>(head.input_format),
                " is not one Kiln executes (1 YUV420SP_U8, 2 XRGB8888_U8, 3 RGB888_U8, 4 "
                "YUV400_U8): set it with aclmdlSetAIPPInputFormat");
  }
  if (format->model_channels != c) {
    return fail(format->name, " makes ", format->model_channels,
                " channel(s); the model input has ", c);
  }
  const int64_t src_w = head.src_image_size_w, src_h = head.src_image_size_h;
  if (src_w < 2 || src_w > 4096 || src_h < 1 || src_h > 4096 ||
      (format->yuv420 && (src_w % 2 != 0 || src_h % 2 != 0))) {
    return fail("source image size ", src_w, "x", src_h,
                " is out of range (W [2, 4096], H [1, 4096], even for YUV420SP_U8)");
  }
  if (format->image_bytes(src_w, src_h) * n > image_bytes) {
    return fail(n, " image(s) of ", src_w, "x", src_h, " ", format->name, " need ",
                format->image_bytes(src_w, src_h) * n, " bytes; the image input has ", image_bytes,
                " (max_src_image_size)");
  }
  if (head.csc_switch != 0 && c == 1) {
    return fail("colour-space conversion of YUV400_U8 (one channel)");
  }
  for (int64_t b = 0; b < n; ++b) {
    DynamicBatch r;
    std::memcpy(&r, block + sizeof head + static_cast<size_t>(b) * sizeof r, sizeof r);
    if (r.scf_switch != 0) {
      return Error(code::kFeatureUnsupported, where, "image ", b,
                   " asks for a resize (scf_switch); Kiln does not resize in aipp");
    }
    int64_t cw = src_w, ch = src_h;
    if (r.crop_switch != 0) {
      const int64_t x = r.crop_start_w, y = r.crop_start_h;
      cw = r.crop_size_w;
      ch = r.crop_size_h;
      if (x < 0 || y < 0 || cw < 1 || ch < 1 || x + cw > src_w || y + ch > src_h ||
          (format->yuv420 && (x % 2 != 0 || y % 2 != 0))) {
        return fail("image ", b, ": the crop window ", cw, "x", ch, " at (", x, ", ", y,
                    ") does not lie inside the ", src_w, "x", src_h,
                    " image (or starts at odd coordinates of a YUV420SP_U8 one)");
      }
    }
    int64_t pw = 0, ph = 0;
    if (r.padding_switch != 0) {
      for (int64_t pad : {r.padding_top, r.padding_bottom, r.padding_left, r.padding_right}) {
        if (pad < 0 || pad > 32) return fail("image ", b, ": padding ", pad, " is outside [0, 32]");
      }
      pw = r.padding_left + r.padding_right;
      ph = r.padding_top + r.padding_bottom;
    }
    if (cw + pw != w || ch + ph != h) {
      return fail("image ", b, ": crop and padding give ", cw + pw, "x", ch + ph,
                  " but the model input is ", w, "x", h);
    }
  }
  return Status::Ok();
}

}  // namespace kiln::aipp

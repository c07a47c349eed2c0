// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/aipp.h"

#include <cstring>

namespace kiln::aipp {
namespace {

constexpr Format kFormats[] = {
    {"YUV420SP_U8", 1, 3, 1, Layout::kYuv420Sp, true},
    {"XRGB8888_U8", 4, 4, 2},
    {"RGB888_U8", 3, 3, 3},
    {"YUV400_U8", 1, 1, 4, Layout::kPacked, true},
    {"ARGB8888_U8", 4, 4, 7},
    {"YUYV_U8", 2, 3, 8, Layout::kYuyv, true},
    {"YUV422SP_U8", 1, 3, 9, Layout::kYuv422Sp, true},
    {"AYUV444_U8", 4, 4, 10, Layout::kPacked, true},
};

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

Status CheckWindow(const Format& format, const Window& win, const std::string& where) {
  auto fail = [&](auto&&... what) { return Error(code::kInvalidParam, where, what...); };
  if (win.src_w < 2 || win.src_w > 4096 || win.src_h < 1 || win.src_h > 4096 ||
      (format.even_width() && win.src_w % 2 != 0) || (format.even_height() && win.src_h % 2 != 0)) {
    return fail("source image size ", win.src_w, "x", win.src_h, " is out of range for ",
                format.name,
                " (W [2, 4096], H [1, 4096]; W even for the 4:2:x formats, H too for YUV420SP_U8)");
  }
  if (win.x < 0 || win.y < 0 || win.w < 1 || win.h < 1 || win.x + win.w > win.src_w ||
      win.y + win.h > win.src_h || (format.even_width() && win.x % 2 != 0) ||
      (format.even_height() && win.y % 2 != 0)) {
    return fail("the crop window ", win.w, "x", win.h, " at (", win.x, ", ", win.y,
                ") does not lie inside the ", win.src_w, "x", win.src_h, " ", format.name,
                " image (or starts at an odd coordinate where chroma is shared)");
  }
  for (int64_t pad : {win.top, win.bottom, win.left, win.right}) {
    if (pad < 0 || pad > 32) return fail("padding ", pad, " is outside [0, 32]");
  }
  return Status::Ok();
}

DynamicBatch ReadRecord(const uint8_t* block, int64_t b) {
  DynamicBatch r;
  std::memcpy(&r, block + sizeof(DynamicHeader) + static_cast<size_t>(b) * sizeof r, sizeof r);
  return r;
}

Window RecordWindow(const DynamicBatch& r, int64_t src_w, int64_t src_h) {
  Window win{src_w, src_h, 0, 0, src_w, src_h};
  if (r.crop_switch != 0) {
    win.x = r.crop_start_w;
    win.y = r.crop_start_h;
    win.w = r.crop_size_w;
    win.h = r.crop_size_h;
  }
  if (r.padding_switch != 0) {
    win.top = r.padding_top;
    win.bottom = r.padding_bottom;
    win.left = r.padding_left;
    win.right = r.padding_right;
  }
  return win;
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
                "YUV400_U8, 7 ARGB8888_U8, 8 YUYV_U8, 9 YUV422SP_U8, 10 AYUV444_U8): set it with "
                "aclmdlSetAIPPInputFormat");
  }
  if (format->model_channels != c) {
    return fail(format->name, " makes ", format->model_channels,
                " channel(s); the model input has ", c);
  }
  const int64_t src_w = head.src_image_size_w, src_h = head.src_image_size_h;
  KILN_RETURN_IF_ERROR(CheckWindow(*format, Window{src_w, src_h, 0, 0, src_w, src_h}, where), "");
  if (format->image_bytes(src_w, src_h) * n > image_bytes) {
    return fail(n, " image(s) of ", src_w, "x", src_h, " ", format->name, " need ",
                format->image_bytes(src_w, src_h) * n, " bytes; the image input has ", image_bytes,
                " (max_src_image_size)");
  }
  if (head.csc_switch != 0 && c == 1) {
    return fail("colour-space conversion of YUV400_U8 (one channel)");
  }
  for (int64_t b = 0; b < n; ++b) {
    const DynamicBatch r = ReadRecord(block, b);
    if (r.scf_switch != 0) {
      return Error(code::kFeatureUnsupported, where, "image ", b,
                   " asks for a resize (scf_switch); Kiln does not resize in aipp");
    }
    const Window win = RecordWindow(r, src_w, src_h);
    KILN_RETURN_IF_ERROR(CheckWindow(*format, win, StrCat(where, "image ", b, ": ")), "");
    const int64_t cw = win.w, ch = win.h, pw = win.left + win.right, ph = win.top + win.bottom;
    if (cw + pw != w || ch + ph != h) {
      return fail("image ", b, ": crop and padding give ", cw + pw, "x", ch + ph,
                  " but the model input is ", w, "x", h);
    }
  }
  return Status::Ok();
}

}  // namespace kiln::aipp

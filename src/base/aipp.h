// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// AIPP facts that the compiler, the kernels and the C API share (docs/aipp.md): the image
// formats Kiln executes, and dynamic AIPP's parameter block — what aclmdlSetInputAIPP writes into
// the model's ascend_dynamic_aipp_data input and the com.kiln DynamicAipp kernel reads, with the
// one check both apply to it. The block's layout is CANN's (a 64-byte header, then one 96-byte
// record per image), so a block is the same bytes on either runtime; min and var_reci are
// float16 bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace kiln::aipp {

// How a format lays out an image of src_w x src_h pixels, stored [N, rows, src_w, image_channels].
enum class Layout {
  kPacked,    // one pixel after another, image_channels bytes each; rows = src_h
  kYuv420Sp,  // Y plane, then interleaved UV at half height (NV12): rows = 1.5 src_h
  kYuv422Sp,  // Y plane, then interleaved UV at full height: rows = 2 src_h
  kYuyv,      // Y0 U0 Y1 V0 per two pixels (packed 4:2:2): 2 bytes per pixel
};

struct Format {
  const char* name;        // CANN's spelling, e.g. YUV420SP_U8, RGB888_U8
  int64_t image_channels;  // bytes per pixel of a stored row (of the Y plane for the SP formats)
  int64_t model_channels;  // channels AIPP hands to the model (C of its NCHW input)
  int acl_format;          // aclAippInputFormat (CANN's om number)
  Layout layout = Layout::kPacked;
  bool yuv = false;  // a YUV source: CSC uses the YUV->RGB formula (input bias)
  int64_t rows(int64_t src_h) const {
    return layout == Layout::kYuv420Sp   ? src_h * 3 / 2
           : layout == Layout::kYuv422Sp ? src_h * 2
                                         : src_h;
  }
  int64_t image_bytes(int64_t src_w, int64_t src_h) const {
    return rows(src_h) * src_w * image_channels;
  }
  // Chroma shared by two pixels of a row: the width (and crop starts) must be even; for 4:2:0
  // the height too.
  bool even_width() const { return layout != Layout::kPacked; }
  bool even_height() const { return layout == Layout::kYuv420Sp; }
};

// The format named `name`, or numbered `acl_format`; null for one Kiln does not execute. Kiln
// executes YUV420SP_U8 (1), XRGB8888_U8 (2), RGB888_U8 (3), YUV400_U8 (4), ARGB8888_U8 (7),
// YUYV_U8 (8), YUV422SP_U8 (9) and AYUV444_U8 (10); not the NC1HWC0DI or RAW ones.
const Format* FindFormat(const std::string& name);
const Format* FindFormat(int acl_format);

struct DynamicHeader {
  uint8_t input_format;  // aclAippInputFormat
  int8_t csc_switch;
  int8_t rbuv_swap_switch;
  int8_t ax_swap_switch;
  int8_t batch_num;
  int8_t reserve1[3];
  int32_t src_image_size_w;
  int32_t src_image_size_h;
  int16_t csc_matrix[9];  // r0c0 .. r2c2
  int16_t reserve2[3];
  uint8_t csc_output_bias[3];
  uint8_t csc_input_bias[3];
  uint8_t reserve3[2];
  int8_t reserve4[16];
};

struct DynamicBatch {
  int8_t crop_switch;
  int8_t scf_switch;
  int8_t padding_switch;
  int8_t rotate_switch;
  int8_t reserve[4];
  int32_t crop_start_w, crop_start_h, crop_size_w, crop_size_h;
  int32_t scf_input_w, scf_input_h, scf_output_w, scf_output_h;
  int32_t padding_top, padding_bottom, padding_left, padding_right;
  int16_t mean[4];
  uint16_t min[4];       // float16 bits
  uint16_t var_reci[4];  // float16 bits
  int8_t reserve1[16];
};

static_assert(sizeof(DynamicHeader) == 64, "CANN's dynamic AIPP header is 64 bytes");
static_assert(sizeof(DynamicBatch) == 96, "CANN's per-image dynamic AIPP record is 96 bytes");

inline constexpr int kMaxDynamicBatch = 127;  // CANN's MAX_AIPP_BATCH_NUM

// The rows of a source image stored in `rows` rows (the inverse of Format::rows).
inline int64_t SourceHeight(const Format& f, int64_t rows) {
  return f.layout == Layout::kYuv420Sp   ? rows * 2 / 3
         : f.layout == Layout::kYuv422Sp ? rows / 2
                                         : rows;
}

// An image's geometry as one AIPP reads it: a src_w x src_h source in [2, 4096] x [1, 4096] (even
// where `format` shares chroma), the crop window x, y, w, h inside it (even starts likewise), and
// padding top, bottom, left, right each in [0, 32]. Shared by the static op's definition and its
// kernel (which reads attributes a crafted model may carry unchecked); kInvalidParam after
// `where`. Returns the output W and H through out_w / out_h.
struct Window {
  int64_t src_w = 0, src_h = 0;
  int64_t x = 0, y = 0, w = 0, h = 0;  // the crop window (the whole image without crop)
  int64_t top = 0, bottom = 0, left = 0, right = 0;
};
Status CheckWindow(const Format& format, const Window& win, const std::string& where);

// Bytes of a block for `batch` images.
inline constexpr size_t DynamicBlockSize(size_t batch) {
  return sizeof(DynamicHeader) + batch * sizeof(DynamicBatch);
}

// Record `b` of a block (its size checked by CheckDynamicBlock first).
DynamicBatch ReadRecord(const uint8_t* block, int64_t b);
// The window a record sets on a src_w x src_h source: its crop and padding where switched on.
Window RecordWindow(const DynamicBatch& r, int64_t src_w, int64_t src_h);

// Checks the `size` bytes of `block` as the parameters of `n` images of `image_bytes` bytes in
// all for a model input [n, c, h, w], as CANN checks them: a format Kiln executes with c's channel
// count, the batch n, a source size in range (even where chroma is shared) whose n images fit, CSC
// only with colour, no resize, each crop window inside the image, padding in [0, 32], crop plus
// padding equal to h and w. kInvalidParam naming the image and the values (prefixed by `where`);
// kFeatureUnsupported for a resize.
Status CheckDynamicBlock(const uint8_t* block, size_t size, int64_t n, int64_t c, int64_t h,
                         int64_t w, int64_t image_bytes, const std::string& where);

}  // namespace kiln::aipp

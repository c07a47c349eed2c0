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

struct Format {
  const char* name;        // CANN's spelling: YUV420SP_U8, XRGB8888_U8, RGB888_U8, YUV400_U8
  int64_t image_channels;  // bytes per pixel of the stored image (of the Y plane for YUV420SP)
  int64_t model_channels;  // channels AIPP hands to the model (C of its NCHW input)
  int acl_format;          // aclAippInputFormat (CANN's om number)
  bool yuv420 = false;     // a Y plane of src_h rows, then an interleaved UV plane of src_h / 2
  // Rows of the stored image [N, rows, src_w, image_channels] for a source of `src_h` rows.
  int64_t rows(int64_t src_h) const { return yuv420 ? src_h * 3 / 2 : src_h; }
  int64_t image_bytes(int64_t src_w, int64_t src_h) const {
    return rows(src_h) * src_w * image_channels;
  }
};

// The format named `name`, or numbered `acl_format`; null for one Kiln does not execute.
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

// Bytes of a block for `batch` images.
inline constexpr size_t DynamicBlockSize(size_t batch) {
  return sizeof(DynamicHeader) + batch * sizeof(DynamicBatch);
}

// Checks the `size` bytes of `block` as the parameters of `n` images of `image_bytes` bytes in
// all for a model input [n, c, h, w], as CANN checks them: a format Kiln executes with c's channel
// count, the batch n, a source size in range (even for YUV420SP) whose n images fit, CSC only with
// colour, no resize, each crop window inside the image, padding in [0, 32], crop plus padding
// equal to h and w. kInvalidParam naming the image and the values (prefixed by `where`);
// kFeatureUnsupported for a resize.
Status CheckDynamicBlock(const uint8_t* block, size_t size, int64_t n, int64_t c, int64_t h,
                         int64_t w, int64_t image_bytes, const std::string& where);

}  // namespace kiln::aipp

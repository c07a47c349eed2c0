// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// AIPP configuration (`kiln atc --insert_op_conf`, ascendcl-reference.md §5.2–5.3): parsing the
// prototxt-style file, checking it against the model's inputs and encoding it for the .om's
// `Model.aipp`. Executing AIPP is not done here (docs/aipp.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kiln::compiler {

enum class AippMode { kUndefined = 0, kStatic = 1, kDynamic = 2 };

// The numbers are the ones CANN stores in an om (and reports through aclmdlGetFirstAippInfo).
enum class AippInputFormat {
  kUndefined = 0,
  kYuv420SpU8 = 1,  // YUV420SP_U8 (NV12; NV21 with rbuv_swap_switch)
  kXrgb8888U8 = 2,  // XRGB8888_U8
  kRgb888U8 = 3,    // RGB888_U8
  kYuv400U8 = 4,    // YUV400_U8
  kArgb8888U8 = 7,  // ARGB8888_U8
  kYuyvU8 = 8,      // YUYV_U8 (packed 4:2:2)
  kYuv422SpU8 = 9,  // YUV422SP_U8
  kAyuv444U8 = 10,  // AYUV444_U8
};

// One `aipp_op { ... }` block. Every key of CANN's template has a member holding the template's
// default; keys the file does not set keep it. aipp_mode and (static) input_format have no
// default: kUndefined is refused by the checks.
struct AippConfig {
  AippMode aipp_mode = AippMode::kUndefined;
  int32_t related_input_rank = 0;
  std::string related_input_name;  // Caffe only in CANN; Kiln accepts only "" (see docs/aipp.md)
  int64_t max_src_image_size = 0;  // dynamic only; must be > 0 there

  // Static AIPP only.
  AippInputFormat input_format = AippInputFormat::kUndefined;
  int32_t src_image_size_w = 0;  // 0: the model input's W (only with crop and padding off)
  int32_t src_image_size_h = 0;
  bool crop = false;
  int32_t load_start_pos_w = 0;
  int32_t load_start_pos_h = 0;
  int32_t crop_size_w = 0;  // 0: the model input's W (only without padding)
  int32_t crop_size_h = 0;
  bool padding = false;
  int32_t left_padding_size = 0;
  int32_t right_padding_size = 0;
  int32_t top_padding_size = 0;
  int32_t bottom_padding_size = 0;
  float padding_value = 0.0f;
  bool csc_switch = false;
  bool rbuv_swap_switch = false;
  bool ax_swap_switch = false;
  // matrix[row][col] = matrix_r<row>c<col>; rows are output channels.
  std::array<std::array<int32_t, 3>, 3> matrix = {
      {{298, 516, 0}, {298, -100, -208}, {298, 0, 409}}};
  std::array<int32_t, 3> input_bias = {16, 128, 128};
  std::array<int32_t, 3> output_bias = {16, 128, 128};
  std::array<int32_t, 4> mean_chn = {0, 0, 0, 0};
  std::array<float, 4> min_chn = {0.0f, 0.0f, 0.0f, 0.0f};
  std::array<float, 4> var_reci_chn = {1.0f, 1.0f, 1.0f, 1.0f};
  int32_t raw_rgbir_to_f16_n = 8;

  // Reserved by CANN (not supported there either): only these defaults are accepted.
  bool resize = false;
  int32_t resize_output_w = 0;
  int32_t resize_output_h = 0;
  int32_t rotation_angle = 0;
  bool support_rotation = false;
  bool single_line_mode = false;
  float cpadding_value = 0.0f;

  // Where the block came from, for messages: the file, the line of `aipp_op` and the line of
  // each key the file set. Empty / 0 for a config built in code. Not part of the encoding.
  std::string origin;
  int line = 0;
  std::map<std::string, int> key_lines;
};

// Parses the text of an --insert_op_conf file: one or more `aipp_op { key : value ... }` blocks
// (`aipp_op: {` is accepted too), `#` comments, values bare or quoted, booleans true/false (also
// 1/0), enums bare. Each block is checked on its own: unknown or duplicate keys, wrongly typed or
// out-of-range values, a missing aipp_mode (or input_format for static), reserved keys set to
// anything but off/0, keys of the other mode set to a non-default value, and the rules that need
// no model (even sizes where chroma is shared, src_image_size 0 only with crop and padding off,
// ...).
// `origin` names the file in messages. Errors: kInvalidParam, "<origin>:<line>: <key>: ..." with
// the allowed values. Pure function; thread-safe.
Result<std::vector<AippConfig>> ParseAippConfig(const std::string& text, const std::string& origin);

// Checks `configs` against the model's inputs (`input_dims[i]` and `input_names[i]` describe input
// i, dims NCHW, -1 for a dynamic dim): related_input_rank names an existing input and no input
// has two blocks; the input is 4-D with the channel count input_format produces (base/aipp.h's
// table: 3, 4 for the four-byte formats, 1 for YUV400_U8; dynamic AIPP: 1, 3 or 4); static AIPP
// needs a fixed H and W, a crop window inside the source image and crop + padding equal to the
// input's H and W; dynamic AIPP needs max_src_image_size > 0. Also re-runs the per-block checks
// of ParseAippConfig, so configs built in code are checked too. Errors: kInvalidParam naming the
// block, the input (name and rank) and the numbers. Thread-safe.
Status ValidateAippForModel(const std::vector<AippConfig>& configs,
                            const std::vector<std::vector<int64_t>>& input_dims,
                            const std::vector<std::string>& input_names);

// The flat encoding stored in the .om's `Model.aipp`: for block i, "<i>.<key>" = value for every
// key that applies to the block's mode, in the order of CANN's template:
//   all blocks:   aipp_mode (static|dynamic), related_input_rank
//   dynamic:      max_src_image_size
//   static:       input_format (a format name of base/aipp.h), src_image_size_w/h,
//                 crop, load_start_pos_w/h, crop_size_w/h, padding, left/right/top/bottom
//                 _padding_size, padding_value, csc_switch, rbuv_swap_switch, ax_swap_switch,
//                 matrix_r0c0 .. matrix_r2c2, input_bias_0..2, output_bias_0..2, mean_chn_0..3,
//                 min_chn_0..3, var_reci_chn_0..3, raw_rgbir_to_f16_n
// Booleans are "true"/"false", integers decimal, floats the shortest text that reads back to the
// same float. Reserved keys and related_input_name (always default) are not written. Blocks are
// numbered in file order; the order of the pairs is stable. Thread-safe.
std::vector<std::pair<std::string, std::string>> AippToKeyValues(
    const std::vector<AippConfig>& configs);

// Reads the encoding of AippToKeyValues back (any order of the pairs; missing keys take their
// default). Errors: kParseModel for a malformed key, an unknown key, a bad value, a gap in the
// block numbers or a block without aipp_mode. Thread-safe.
Result<std::vector<AippConfig>> AippFromKeyValues(
    const std::vector<std::pair<std::string, std::string>>& pairs);

// "static", "YUV420SP_U8", ...: the spelling used in config files and in the encoding.
const char* AippModeName(AippMode mode);
const char* AippInputFormatName(AippInputFormat format);

}  // namespace kiln::compiler

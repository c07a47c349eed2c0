// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/aipp_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <variant>

#include "base/aipp.h"

namespace kiln::compiler {
namespace {

// A pointer to the member of an AippConfig that one key sets; its type is the key's type.
using FieldRef =
    std::variant<bool*, int32_t*, int64_t*, float*, AippMode*, AippInputFormat*, std::string*>;

// Which aipp_mode a key belongs to (CANN's template sections).
enum class Scope { kBoth, kStatic, kDynamic };

struct KeySpec {
  const char* name;
  FieldRef (*ref)(AippConfig&);
  Scope scope;
  double min = 0;  // range of an integer or float key (inclusive)
  double max = 0;
  bool zero_ok = false;           // 0 is allowed besides [min, max]
  const char* refusal = nullptr;  // set: only the default is accepted, and this says why
};

constexpr double kFp16Max = 65504;
constexpr double kInt16Min = -32768;
constexpr double kInt16Max = 32767;
constexpr double kInt32Max = 2147483647;
constexpr const char* kReserved = "is reserved in cann's aipp and not supported";

#define KILN_AIPP_FIELD(member) [](AippConfig& c) -> FieldRef { return &c.member; }

// Every key, in the order of CANN's config template (which is also the order of the encoding).
const std::vector<KeySpec>& Keys() {
  static const std::vector<KeySpec> keys = {
      {"aipp_mode", KILN_AIPP_FIELD(aipp_mode), Scope::kBoth},
      {"related_input_rank", KILN_AIPP_FIELD(related_input_rank), Scope::kBoth, 0, kInt32Max},
      {"related_input_name", KILN_AIPP_FIELD(related_input_name), Scope::kBoth, 0, 0, false,
       "applies to caffe models only; choose the onnx input with related_input_rank (its "
       "position among the graph inputs, from 0)"},
      {"max_src_image_size", KILN_AIPP_FIELD(max_src_image_size), Scope::kDynamic, 0, 4294967295.0},
      {"support_rotation", KILN_AIPP_FIELD(support_rotation), Scope::kDynamic, 0, 0, false,
       kReserved},
      {"input_format", KILN_AIPP_FIELD(input_format), Scope::kStatic},
      {"src_image_size_w", KILN_AIPP_FIELD(src_image_size_w), Scope::kStatic, 2, 4096, true},
      {"src_image_size_h", KILN_AIPP_FIELD(src_image_size_h), Scope::kStatic, 1, 4096, true},
      {"cpadding_value", KILN_AIPP_FIELD(cpadding_value), Scope::kStatic, -kFp16Max, kFp16Max,
       false, kReserved},
      {"crop", KILN_AIPP_FIELD(crop), Scope::kStatic},
      {"load_start_pos_w", KILN_AIPP_FIELD(load_start_pos_w), Scope::kStatic, 0, 4095},
      {"load_start_pos_h", KILN_AIPP_FIELD(load_start_pos_h), Scope::kStatic, 0, 4095},
      {"crop_size_w", KILN_AIPP_FIELD(crop_size_w), Scope::kStatic, 0, 4096},
      {"crop_size_h", KILN_AIPP_FIELD(crop_size_h), Scope::kStatic, 0, 4096},
      {"resize", KILN_AIPP_FIELD(resize), Scope::kStatic, 0, 0, false, kReserved},
      {"resize_output_w", KILN_AIPP_FIELD(resize_output_w), Scope::kStatic, 16, 1920, true,
       kReserved},
      {"resize_output_h", KILN_AIPP_FIELD(resize_output_h), Scope::kStatic, 16, 4096, true,
       kReserved},
      {"padding", KILN_AIPP_FIELD(padding), Scope::kStatic},
      {"left_padding_size", KILN_AIPP_FIELD(left_padding_size), Scope::kStatic, 0, 32},
      {"right_padding_size", KILN_AIPP_FIELD(right_padding_size), Scope::kStatic, 0, 32},
      {"top_padding_size", KILN_AIPP_FIELD(top_padding_size), Scope::kStatic, 0, 32},
      {"bottom_padding_size", KILN_AIPP_FIELD(bottom_padding_size), Scope::kStatic, 0, 32},
      {"padding_value", KILN_AIPP_FIELD(padding_value), Scope::kStatic, -kFp16Max, kFp16Max},
      {"rotation_angle", KILN_AIPP_FIELD(rotation_angle), Scope::kStatic, 0, 3, false, kReserved},
      {"csc_switch", KILN_AIPP_FIELD(csc_switch), Scope::kStatic},
      {"rbuv_swap_switch", KILN_AIPP_FIELD(rbuv_swap_switch), Scope::kStatic},
      {"ax_swap_switch", KILN_AIPP_FIELD(ax_swap_switch), Scope::kStatic},
      {"single_line_mode", KILN_AIPP_FIELD(single_line_mode), Scope::kStatic, 0, 0, false,
       kReserved},
      {"matrix_r0c0", KILN_AIPP_FIELD(matrix[0][0]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r0c1", KILN_AIPP_FIELD(matrix[0][1]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r0c2", KILN_AIPP_FIELD(matrix[0][2]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r1c0", KILN_AIPP_FIELD(matrix[1][0]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r1c1", KILN_AIPP_FIELD(matrix[1][1]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r1c2", KILN_AIPP_FIELD(matrix[1][2]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r2c0", KILN_AIPP_FIELD(matrix[2][0]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r2c1", KILN_AIPP_FIELD(matrix[2][1]), Scope::kStatic, kInt16Min, kInt16Max},
      {"matrix_r2c2", KILN_AIPP_FIELD(matrix[2][2]), Scope::kStatic, kInt16Min, kInt16Max},
      {"output_bias_0", KILN_AIPP_FIELD(output_bias[0]), Scope::kStatic, 0, 255},
      {"output_bias_1", KILN_AIPP_FIELD(output_bias[1]), Scope::kStatic, 0, 255},
      {"output_bias_2", KILN_AIPP_FIELD(output_bias[2]), Scope::kStatic, 0, 255},
      {"input_bias_0", KILN_AIPP_FIELD(input_bias[0]), Scope::kStatic, 0, 255},
      {"input_bias_1", KILN_AIPP_FIELD(input_bias[1]), Scope::kStatic, 0, 255},
      {"input_bias_2", KILN_AIPP_FIELD(input_bias[2]), Scope::kStatic, 0, 255},
      {"mean_chn_0", KILN_AIPP_FIELD(mean_chn[0]), Scope::kStatic, 0, 255},
      {"mean_chn_1", KILN_AIPP_FIELD(mean_chn[1]), Scope::kStatic, 0, 255},
      {"mean_chn_2", KILN_AIPP_FIELD(mean_chn[2]), Scope::kStatic, 0, 255},
      {"mean_chn_3", KILN_AIPP_FIELD(mean_chn[3]), Scope::kStatic, 0, 255},
      {"min_chn_0", KILN_AIPP_FIELD(min_chn[0]), Scope::kStatic, 0, 255},
      {"min_chn_1", KILN_AIPP_FIELD(min_chn[1]), Scope::kStatic, 0, 255},
      {"min_chn_2", KILN_AIPP_FIELD(min_chn[2]), Scope::kStatic, 0, 255},
      {"min_chn_3", KILN_AIPP_FIELD(min_chn[3]), Scope::kStatic, 0, 255},
      {"var_reci_chn_0", KILN_AIPP_FIELD(var_reci_chn[0]), Scope::kStatic, -kFp16Max, kFp16Max},
      {"var_reci_chn_1", KILN_AIPP_FIELD(var_reci_chn[1]), Scope::kStatic, -kFp16Max, kFp16Max},
      {"var_reci_chn_2", KILN_AIPP_FIELD(var_reci_chn[2]), Scope::kStatic, -kFp16Max, kFp16Max},
      {"var_reci_chn_3", KILN_AIPP_FIELD(var_reci_chn[3]), Scope::kStatic, -kFp16Max, kFp16Max},
      {"raw_rgbir_to_f16_n", KILN_AIPP_FIELD(raw_rgbir_to_f16_n), Scope::kStatic, 0, 31},
  };
  return keys;
}

#undef KILN_AIPP_FIELD

const KeySpec* FindKey(std::string_view name) {
  for (const KeySpec& spec : Keys()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

// Reads a field of a const config (the pointer is only read through).
FieldRef Ref(const KeySpec& spec, const AippConfig& config) {
  return spec.ref(const_cast<AippConfig&>(config));
}

const AippConfig& Defaults() {
  static const AippConfig defaults;
  return defaults;
}

constexpr std::pair<AippInputFormat, const char*> kFormats[] = {
    {AippInputFormat::kYuv420SpU8, "YUV420SP_U8"}, {AippInputFormat::kXrgb8888U8, "XRGB8888_U8"},
    {AippInputFormat::kRgb888U8, "RGB888_U8"},     {AippInputFormat::kYuv400U8, "YUV400_U8"},
    {AippInputFormat::kArgb8888U8, "ARGB8888_U8"}, {AippInputFormat::kYuyvU8, "YUYV_U8"},
    {AippInputFormat::kYuv422SpU8, "YUV422SP_U8"}, {AippInputFormat::kAyuv444U8, "AYUV444_U8"},
};

// The formats, for messages: "YUV420SP_U8, XRGB8888_U8, ... or AYUV444_U8".
std::string FormatList(const char* last_joiner) {
  std::string s;
  const size_t n = std::size(kFormats);
  for (size_t i = 0; i < n; ++i) {
    s += (i == 0 ? "" : i + 1 == n ? last_joiner : ", ") + std::string(kFormats[i].second);
  }
  return s;
}

// Channels of the image AIPP hands to the model for each input format (0 for none).
int64_t FormatChannels(AippInputFormat format) {
  const aipp::Format* f = aipp::FindFormat(AippInputFormatName(format));
  return f != nullptr ? f->model_channels : 0;
}

// Integers print as integers; others as the shortest text that reads back to the same double.
std::string Num(double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 9.0e15) {
    return std::to_string(static_cast<int64_t>(v));
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string FloatText(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string ValueText(FieldRef ref) {
  if (auto* p = std::get_if<bool*>(&ref)) return **p ? "true" : "false";
  if (auto* p = std::get_if<int32_t*>(&ref)) return std::to_string(**p);
  if (auto* p = std::get_if<int64_t*>(&ref)) return std::to_string(**p);
  if (auto* p = std::get_if<float*>(&ref)) return FloatText(**p);
  if (auto* p = std::get_if<AippMode*>(&ref)) return AippModeName(**p);
  if (auto* p = std::get_if<AippInputFormat*>(&ref)) return AippInputFormatName(**p);
  return "\"" + *std::get<std::string*>(ref) + "\"";
}

bool IsNumeric(FieldRef ref) {
  return std::holds_alternative<int32_t*>(ref) || std::holds_alternative<int64_t*>(ref) ||
         std::holds_alternative<float*>(ref);
}

double NumericValue(FieldRef ref) {
  if (auto* p = std::get_if<int32_t*>(&ref)) return **p;
  if (auto* p = std::get_if<int64_t*>(&ref)) return static_cast<double>(**p);
  return **std::get_if<float*>(&ref);
}

bool SameValue(FieldRef a, FieldRef b) {
  return std::visit(
      [&](auto* pa) {
        auto* pb = std::get<std::remove_reference_t<decltype(pa)>>(b);
        return *pa == *pb;
      },
      a);
}

bool IsDefault(const KeySpec& spec, const AippConfig& config) {
  return SameValue(Ref(spec, config), Ref(spec, Defaults()));
}

std::string Allowed(const KeySpec& spec) {
  FieldRef ref = Ref(spec, Defaults());
  if (std::holds_alternative<bool*>(ref)) return "true or false";
  if (std::holds_alternative<AippMode*>(ref)) return "static or dynamic";
  if (std::holds_alternative<AippInputFormat*>(ref)) return FormatList(" or ");
  if (std::holds_alternative<std::string*>(ref)) return "a quoted string";
  std::string range = StrCat("[", Num(spec.min), ", ", Num(spec.max), "]");
  return spec.zero_ok ? "0 or " + range : range;
}

bool InRange(const KeySpec& spec, double v) {
  return (v >= spec.min && v <= spec.max) || (spec.zero_ok && v == 0);
}

// "" when `v` is allowed for `spec`, else the problem (without location).
std::string RangeProblem(const KeySpec& spec, double v, const std::string& text) {
  if (InRange(spec, v)) return "";
  return StrCat(text, " is out of range; allowed ", Allowed(spec));
}

bool IsIntegerText(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// Parses `text` into `spec`'s member of `config`. Returns "" or the problem (without location).
std::string SetValue(const KeySpec& spec, AippConfig& config, const std::string& text) {
  FieldRef ref = spec.ref(config);
  const std::string quoted = "'" + text + "'";
  if (auto* p = std::get_if<bool*>(&ref)) {
    if (text == "true" || text == "True" || text == "1") {
      **p = true;
    } else if (text == "false" || text == "False" || text == "0") {
      **p = false;
    } else {
      return StrCat(quoted, " is not a boolean; allowed ", Allowed(spec));
    }
    return "";
  }
  if (auto* p = std::get_if<AippMode*>(&ref)) {
    if (text == "static") {
      **p = AippMode::kStatic;
    } else if (text == "dynamic") {
      **p = AippMode::kDynamic;
    } else {
      return StrCat(quoted, " is not an aipp mode; allowed ", Allowed(spec));
    }
    return "";
  }
  if (auto* p = std::get_if<AippInputFormat*>(&ref)) {
    for (const auto& [format, name] : kFormats) {
      if (text == name) {
        **p = format;
        return "";
      }
    }
    return StrCat(quoted, " is not a supported input format; allowed ", Allowed(spec));
  }
  if (auto* p = std::get_if<std::string*>(&ref)) {
    **p = text;
    return "";
  }
  std::string_view s = text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (std::holds_alternative<float*>(ref)) {
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    bool consumed = !s.empty() && end == s.data() + s.size();
    if (ec == std::errc::result_out_of_range && consumed) {
      return StrCat(quoted, " is out of range; allowed ", Allowed(spec));
    }
    if (ec != std::errc() || !consumed || !std::isfinite(v)) {
      return StrCat(quoted, " is not a number; allowed ", Allowed(spec));
    }
    std::string problem = RangeProblem(spec, v, text);
    if (problem.empty()) **std::get_if<float*>(&ref) = static_cast<float>(v);
    return problem;
  }
  if (!IsIntegerText(text)) {
    return StrCat(quoted, " is not an integer; allowed ", Allowed(spec));
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || !InRange(spec, static_cast<double>(v))) {
    return StrCat(text, " is out of range; allowed ", Allowed(spec));
  }
  if (auto* p = std::get_if<int32_t*>(&ref)) {
    **p = static_cast<int32_t>(v);
  } else {
    **std::get_if<int64_t*>(&ref) = v;
  }
  return "";
}

// "<origin>:<line>: " of `key` (or of the block when the key was not set); "" for a config built
// in code.
std::string FileLine(const AippConfig& config, const std::string& key) {
  auto it = config.key_lines.find(key);
  int line = it != config.key_lines.end() ? it->second : config.line;
  return line > 0 ? StrCat(config.origin, ":", line, ": ") : "";
}

// An error of one block, located at `key`: "<origin>:<line>: text", or "aipp_op block <i>: text"
// for a config built in code.
Status BlockError(const AippConfig& config, size_t index, const std::string& key,
                  const std::string& text) {
  std::string where = FileLine(config, key);
  if (where.empty()) where = StrCat("aipp_op block ", index, ": ");
  return Error(code::kInvalidParam, where, text);
}

bool Applies(Scope scope, AippMode mode) {
  return scope == Scope::kBoth || (scope == Scope::kStatic && mode == AippMode::kStatic) ||
         (scope == Scope::kDynamic && mode == AippMode::kDynamic);
}

// The checks that need no model; run by ParseAippConfig at the end of each block and again by
// ValidateAippForModel.
Status CheckBlock(const AippConfig& c, size_t index) {
  for (const KeySpec& spec : Keys()) {
    FieldRef ref = Ref(spec, c);
    if (IsNumeric(ref)) {
      std::string problem = RangeProblem(spec, NumericValue(ref), ValueText(ref));
      if (!problem.empty()) {
        return BlockError(c, index, spec.name, StrCat(spec.name, ": ", problem));
      }
    }
    if (spec.refusal != nullptr && !IsDefault(spec, c)) {
      return BlockError(c, index, spec.name,
                        StrCat(spec.name, ": ", ValueText(ref), " ", spec.refusal, "; only ",
                               ValueText(Ref(spec, Defaults())), " is accepted"));
    }
  }
  if (c.aipp_mode == AippMode::kUndefined) {
    return BlockError(c, index, "aipp_mode",
                      "aipp_op has no aipp_mode; add aipp_mode: static or aipp_mode: dynamic");
  }
  const char* mode = AippModeName(c.aipp_mode);
  for (const KeySpec& spec : Keys()) {
    if (Applies(spec.scope, c.aipp_mode) || IsDefault(spec, c)) continue;
    return BlockError(
        c, index, spec.name,
        c.aipp_mode == AippMode::kDynamic
            ? StrCat(spec.name,
                     ": applies to static aipp only, and this aipp_op is dynamic (its "
                     "image parameters are set at run time with aclmdlSetInputAIPP); "
                     "remove it")
            : StrCat(spec.name, ": applies to dynamic aipp only, and this aipp_op is ", mode,
                     "; remove it"));
  }
  if (c.aipp_mode == AippMode::kDynamic) {
    if (c.max_src_image_size <= 0) {
      return BlockError(
          c, index, "max_src_image_size",
          StrCat("max_src_image_size: dynamic aipp needs it > 0 (", c.max_src_image_size,
                 " given): the largest input image in bytes, at least "
                 "N*W*H*{1, 1.5, 2, 3, 4} for YUV400_U8, YUV420SP_U8, YUYV_U8 and "
                 "YUV422SP_U8, RGB888_U8, the four-byte formats; allowed [1, 4294967295]"));
    }
    return Status::Ok();
  }
  if (c.input_format == AippInputFormat::kUndefined) {
    return BlockError(
        c, index, "input_format",
        StrCat("input_format: static aipp needs it; add input_format: one of ", FormatList(", ")));
  }
  const aipp::Format* format = aipp::FindFormat(AippInputFormatName(c.input_format));
  const bool even[] = {format != nullptr && format->even_width(),
                       format != nullptr && format->even_height()};
  struct Axis {
    const char* src_key;
    int32_t src;
    const char* start_key;
    int32_t start;
    const char* crop_key;
    int32_t crop_size;
    const char* what;
    int min;
  };
  const Axis axes[] = {
      {"src_image_size_w", c.src_image_size_w, "load_start_pos_w", c.load_start_pos_w,
       "crop_size_w", c.crop_size_w, "width", 2},
      {"src_image_size_h", c.src_image_size_h, "load_start_pos_h", c.load_start_pos_h,
       "crop_size_h", c.crop_size_h, "height", 1},
  };
  for (size_t axis = 0; axis < 2; ++axis) {
    const Axis& a = axes[axis];
    if (a.src == 0 && (c.crop || c.padding)) {
      return BlockError(c, index, a.src_key,
                        StrCat(a.src_key, ": 0 or unset (the model input's ", a.what,
                               ") is allowed only with crop and padding off; set the source "
                               "image ",
                               a.what, ", allowed [", a.min, ", 4096]"));
    }
    if (even[axis] && a.src % 2 != 0) {
      return BlockError(c, index, a.src_key,
                        StrCat(a.src_key, ": ", a.src, " must be even for ",
                               AippInputFormatName(c.input_format), " (chroma is shared)"));
    }
    if (!c.crop) continue;
    if (even[axis] && a.start % 2 != 0) {
      return BlockError(c, index, a.start_key,
                        StrCat(a.start_key, ": ", a.start, " must be even for ",
                               AippInputFormatName(c.input_format), " (chroma is shared)"));
    }
    if (a.crop_size == 0 && c.padding) {
      return BlockError(c, index, a.crop_key,
                        StrCat(a.crop_key, ": 0 or unset (the model input's ", a.what,
                               ") is allowed only without padding; set the crop ", a.what,
                               ", allowed [1, 4096]"));
    }
    if (a.crop_size > 0 && a.src > 0 && int64_t{a.start} + a.crop_size > a.src) {
      return BlockError(c, index, a.crop_key,
                        StrCat("crop window outside the source image: ", a.start_key, " ", a.start,
                               " + ", a.crop_key, " ", a.crop_size, " = ",
                               int64_t{a.start} + a.crop_size, " > ", a.src_key, " ", a.src));
    }
  }
  return Status::Ok();
}

struct Token {
  enum Kind { kWord, kQuoted, kColon, kOpen, kClose, kEnd } kind;
  std::string text;
  int line;
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Token::kEnd:
      return "the end of the file";
    case Token::kQuoted:
      return "\"" + t.text + "\"";
    default:
      return "'" + t.text + "'";
  }
}

Result<std::vector<Token>> Tokenize(const std::string& text, const std::string& origin) {
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0;
  auto special = [](char ch) {
    return ch == '{' || ch == '}' || ch == ':' || ch == '#' || ch == '"' || ch == '\'';
  };
  auto space = [](char ch) {
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
  };
  while (i < text.size()) {
    char ch = text[i];
    if (ch == '\n') {
      ++line;
      ++i;
    } else if (space(ch)) {
      ++i;
    } else if (ch == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (ch == '{' || ch == '}' || ch == ':') {
      tokens.push_back({ch == '{'   ? Token::kOpen
                        : ch == '}' ? Token::kClose
                                    : Token::kColon,
                        {ch},
                        line});
      ++i;
    } else if (ch == '"' || ch == '\'') {
      size_t end = i + 1;
      while (end < text.size() && text[end] != ch && text[end] != '\n') ++end;
      if (end >= text.size() || text[end] != ch) {
        return Error(code::kInvalidParam, origin, ":", line, ": unterminated quoted value ",
                     text.substr(i, std::min<size_t>(end - i, 40)), "; close it with ", ch,
                     " on the same line");
      }
      tokens.push_back({Token::kQuoted, text.substr(i + 1, end - i - 1), line});
      i = end + 1;
    } else {
      size_t end = i;
      while (end < text.size() && !space(text[end]) && !special(text[end])) ++end;
      tokens.push_back({Token::kWord, text.substr(i, end - i), line});
      i = end;
    }
  }
  tokens.push_back({Token::kEnd, "", line});
  return tokens;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string Suggestion(const std::string& key) {
  const char* best = nullptr;
  size_t best_distance = 3;  // suggest only close misspellings
  for (const KeySpec& spec : Keys()) {
    size_t d = EditDistance(key, spec.name);
    if (d < best_distance) {
      best_distance = d;
      best = spec.name;
    }
  }
  return best != nullptr ? StrCat("; did you mean '", best, "'?")
                         : "; see docs/aipp.md for the keys";
}

}  // namespace

const char* AippModeName(AippMode mode) {
  switch (mode) {
    case AippMode::kStatic:
      return "static";
    case AippMode::kDynamic:
      return "dynamic";
    case AippMode::kUndefined:
      break;
  }
  return "undefined";
}

const char* AippInputFormatName(AippInputFormat format) {
  for (const auto& [f, name] : kFormats) {
    if (f == format) return name;
  }
  return "UNDEFINED";
}

Result<std::vector<AippConfig>> ParseAippConfig(const std::string& text,
                                                const std::string& origin) {
  KILN_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, origin));
  std::vector<AippConfig> configs;
  size_t pos = 0;
  auto fail = [&](int line, auto&&... args) {
    return Error(code::kInvalidParam, origin, ":", line, ": ", args...);
  };
  while (tokens[pos].kind != Token::kEnd) {
    const Token& head = tokens[pos];
    if (head.kind != Token::kWord || head.text != "aipp_op") {
      if (head.kind == Token::kWord && tokens[pos + 1].kind == Token::kColon) {
        return fail(head.line, "key '", head.text,
                    "' is outside an aipp_op block; write aipp_op { ", head.text, ": ... }");
      }
      return fail(head.line, "expected 'aipp_op {', found ", Describe(head));
    }
    ++pos;
    if (tokens[pos].kind == Token::kColon) ++pos;
    if (tokens[pos].kind != Token::kOpen) {
      return fail(tokens[pos].line, "expected '{' after aipp_op, found ", Describe(tokens[pos]));
    }
    ++pos;
    AippConfig config;
    config.origin = origin;
    config.line = head.line;
    while (true) {
      const Token& key = tokens[pos];
      if (key.kind == Token::kEnd) {
        return fail(head.line, "the aipp_op block opened here is not closed; add '}'");
      }
      if (key.kind == Token::kClose) {
        ++pos;
        break;
      }
      if (key.kind != Token::kWord) {
        return fail(key.line, "expected a key or '}', found ", Describe(key));
      }
      if (key.text == "aipp_op") {
        return fail(key.line, "aipp_op blocks cannot be nested; close the block opened on line ",
                    head.line, " with '}' first");
      }
      const KeySpec* spec = FindKey(key.text);
      if (spec == nullptr) {
        return fail(key.line, "unknown key '", key.text, "' in aipp_op", Suggestion(key.text));
      }
      if (tokens[pos + 1].kind != Token::kColon) {
        return fail(key.line, key.text, ": expected ':' after the key, found ",
                    Describe(tokens[pos + 1]));
      }
      const Token& value = tokens[pos + 2];
      if (value.kind != Token::kWord && value.kind != Token::kQuoted) {
        return fail(key.line, key.text, ": expected a value, found ", Describe(value), "; allowed ",
                    Allowed(*spec));
      }
      pos += 3;
      auto [it, inserted] = config.key_lines.emplace(key.text, key.line);
      if (!inserted) {
        return fail(key.line, key.text, ": duplicate key in aipp_op (first set on line ",
                    it->second, ")");
      }
      std::string problem = SetValue(*spec, config, value.text);
      if (!problem.empty()) return fail(key.line, key.text, ": ", problem);
    }
    KILN_RETURN_IF_ERROR(CheckBlock(config, configs.size()), "");
    configs.push_back(std::move(config));
  }
  if (configs.empty()) {
    return Error(code::kInvalidParam, origin,
                 ": no aipp_op block; an aipp config is one or more aipp_op { aipp_mode: static "
                 "input_format: ... } blocks");
  }
  return configs;
}

Status ValidateAippForModel(const std::vector<AippConfig>& configs,
                            const std::vector<std::vector<int64_t>>& input_dims,
                            const std::vector<std::string>& input_names) {
  if (input_names.size() != input_dims.size()) {
    return Error(code::kInternalError, "aipp check got ", input_dims.size(), " input shapes but ",
                 input_names.size(), " input names");
  }
  auto dims_text = [](const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
  };
  std::map<int32_t, size_t> owner;  // input rank -> block
  for (size_t i = 0; i < configs.size(); ++i) {
    const AippConfig& c = configs[i];
    KILN_RETURN_IF_ERROR(CheckBlock(c, i), "");
    const int32_t rank = c.related_input_rank;
    if (rank < 0 || static_cast<size_t>(rank) >= input_dims.size()) {
      std::string inputs;
      for (size_t k = 0; k < input_names.size(); ++k) {
        inputs += StrCat(k ? ", " : "", k, " '", input_names[k], "'");
      }
      return Error(code::kInvalidParam, FileLine(c, "related_input_rank"), "aipp_op block ", i,
                   StrCat(": related_input_rank ", rank, " is out of range; the model has ",
                          input_dims.size(), " input(s) (", inputs, "), allowed [0, ",
                          static_cast<int64_t>(input_dims.size()) - 1, "]"));
    }
    const std::string& name = input_names[rank];
    auto [it, inserted] = owner.emplace(rank, i);
    if (!inserted) {
      return Error(code::kInvalidParam, FileLine(c, "related_input_rank"),
                   StrCat("aipp_op blocks ", it->second, " and ", i, " both configure input '",
                          name, "' (rank ", rank, "); an input takes at most one aipp_op"));
    }
    const std::vector<int64_t>& dims = input_dims[rank];
    auto fail = [&](const std::string& key, const std::string& text) {
      return Error(code::kInvalidParam, FileLine(c, key),
                   StrCat("aipp_op block ", i, " for input '", name, "' (rank ", rank, ", dims ",
                          dims_text(dims), "): ", text));
    };
    if (dims.size() != 4) {
      return fail("related_input_rank",
                  StrCat("aipp needs a 4-d nchw input, this one has ", dims.size(), " dims"));
    }
    const int64_t channels = dims[1], h = dims[2], w = dims[3];
    if (c.aipp_mode == AippMode::kDynamic) {
      if (channels != 1 && channels != 3 && channels != 4) {
        return fail("aipp_mode", StrCat("the input has C = ", channels,
                                        "; dynamic aipp produces 1, 3 or 4 channels"));
      }
      continue;  // max_src_image_size > 0 was checked by CheckBlock
    }
    const int64_t want = FormatChannels(c.input_format);
    if (channels != want) {
      return fail("input_format",
                  StrCat("input_format ", AippInputFormatName(c.input_format), " gives ", want,
                         " channel(s) but the input has C = ", channels,
                         "; allowed: YUV420SP_U8, RGB888_U8, YUYV_U8 or YUV422SP_U8 for C = 3, "
                         "XRGB8888_U8, ARGB8888_U8 or AYUV444_U8 for C = 4 (ax_swap_switch "
                         "changes only the order), YUV400_U8 for C = 1"));
    }
    if (h <= 0 || w <= 0) {
      return fail("aipp_mode", "static aipp needs a fixed H and W; fix them with --input_shape");
    }
    struct Axis {
      const char* what;
      const char* src_key;
      int32_t src;
      const char* start_key;
      int32_t start;
      const char* crop_key;
      int32_t crop_size;
      const char* pad_a_key;
      int32_t pad_a;
      const char* pad_b_key;
      int32_t pad_b;
      int64_t model;
      const char* dim;
      int64_t src_min;
    };
    const Axis axes[] = {
        {"width", "src_image_size_w", c.src_image_size_w, "load_start_pos_w", c.load_start_pos_w,
         "crop_size_w", c.crop_size_w, "left_padding_size", c.left_padding_size,
         "right_padding_size", c.right_padding_size, w, "W", 2},
        {"height", "src_image_size_h", c.src_image_size_h, "load_start_pos_h", c.load_start_pos_h,
         "crop_size_h", c.crop_size_h, "top_padding_size", c.top_padding_size,
         "bottom_padding_size", c.bottom_padding_size, h, "H", 1},
    };
    const aipp::Format* format = aipp::FindFormat(AippInputFormatName(c.input_format));
    for (size_t axis = 0; axis < 2; ++axis) {
      const Axis& a = axes[axis];
      const bool even =
          format != nullptr && (axis == 0 ? format->even_width() : format->even_height());
      // CheckBlock guarantees src == 0 only with crop and padding off.
      int64_t src = a.src;
      std::string src_text = StrCat(a.src_key, " ", a.src);
      if (src == 0) {
        src = a.model;
        src_text = StrCat(a.src_key, " 0 (the input's ", a.dim, " = ", a.model, ")");
        if (src < a.src_min || src > 4096) {
          return fail(a.src_key, StrCat(src_text, ": the source ", a.what, " must be in [",
                                        a.src_min, ", 4096]; set ", a.src_key));
        }
        if (even && src % 2 != 0) {
          return fail(a.src_key, StrCat(src_text, ": the source ", a.what, " must be even for ",
                                        AippInputFormatName(c.input_format), "; set ", a.src_key));
        }
      }
      int64_t out = src;
      std::string out_text = src_text;
      if (c.crop) {
        int64_t crop = a.crop_size;
        std::string crop_text = StrCat(a.crop_key, " ", a.crop_size);
        if (crop == 0) {
          crop = a.model;
          crop_text = StrCat(a.crop_key, " 0 (the input's ", a.dim, " = ", a.model, ")");
        }
        if (a.start + crop > src) {
          return fail(a.crop_key,
                      StrCat("crop window outside the source image: ", a.start_key, " ", a.start,
                             " + ", crop_text, " = ", a.start + crop, " > ", src_text));
        }
        out = crop;
        out_text = crop_text;
      }
      if (c.padding) {
        out += int64_t{a.pad_a} + a.pad_b;
        out_text += StrCat(" + ", a.pad_a_key, " ", a.pad_a, " + ", a.pad_b_key, " ", a.pad_b);
      }
      if (out != a.model) {
        const char* key = c.padding ? a.pad_a_key : c.crop ? a.crop_key : a.src_key;
        return fail(key,
                    StrCat("after crop and padding the image ", a.what, " is ", out, " (", out_text,
                           ") but the input's ", a.dim, " is ", a.model, "; they must be equal"));
      }
    }
    if (c.padding && w > 4096) {
      return fail("padding", StrCat("with padding the output width must be <= 4096, the input's "
                                    "W is ",
                                    w));
    }
  }
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> AippToKeyValues(
    const std::vector<AippConfig>& configs) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < configs.size(); ++i) {
    for (const KeySpec& spec : Keys()) {
      if (spec.refusal != nullptr || !Applies(spec.scope, configs[i].aipp_mode)) continue;
      pairs.emplace_back(StrCat(i, ".", spec.name), ValueText(Ref(spec, configs[i])));
    }
  }
  return pairs;
}

Result<std::vector<AippConfig>> AippFromKeyValues(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::map<size_t, AippConfig> blocks;
  std::map<size_t, std::set<std::string>> seen;
  for (const auto& [full_key, value] : pairs) {
    auto fail = [&](const std::string& text) {
      return Error(code::kParseModel, "aipp entry '", full_key, "' = '", value, "': ", text);
    };
    size_t dot = full_key.find('.');
    std::string index_text = full_key.substr(0, dot);
    if (dot == std::string::npos || !IsIntegerText(index_text) || index_text[0] == '+' ||
        index_text[0] == '-' || index_text.size() > 6) {
      return fail("the key is not <block>.<name>");
    }
    size_t index = std::stoul(index_text);
    std::string key = full_key.substr(dot + 1);
    const KeySpec* spec = FindKey(key);
    if (spec == nullptr) return fail("unknown aipp key");
    if (!seen[index].insert(key).second) return fail("the key appears twice");
    std::string text = value;
    if (std::holds_alternative<std::string*>(Ref(*spec, Defaults()))) {
      if (text.size() < 2 || text.front() != '"' || text.back() != '"') {
        return fail("a string value must be quoted");
      }
      text = text.substr(1, text.size() - 2);
    }
    std::string problem = SetValue(*spec, blocks[index], text);
    if (!problem.empty()) return fail(problem);
  }
  std::vector<AippConfig> configs;
  for (auto& [index, config] : blocks) {
    if (index != configs.size()) {
      return Error(code::kParseModel, "aipp block ", configs.size(),
                   " is missing from the encoding (next is ", index, ")");
    }
    if (config.aipp_mode == AippMode::kUndefined) {
      return Error(code::kParseModel, "aipp block ", index, " has no aipp_mode");
    }
    configs.push_back(std::move(config));
  }
  return configs;
}

}  // namespace kiln::compiler

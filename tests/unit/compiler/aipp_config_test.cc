// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/aipp_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace kiln::compiler {
namespace {

using Dims = std::vector<std::vector<int64_t>>;
using Names = std::vector<std::string>;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// The vpc resnet50 sample of ascendcl-reference.md §5.2, written as CANN's samples write it.
constexpr const char* kVpcResnet50 = R"(# vpc resnet50 sample
aipp_op {
    aipp_mode : static
    related_input_rank : 0
    input_format : YUV420SP_U8
    src_image_size_w : 224
    src_image_size_h : 224
    crop : false

    csc_switch : true
    rbuv_swap_switch : false
    matrix_r0c0 : 256
    matrix_r0c1 : 0
    matrix_r0c2 : 359
    matrix_r1c0 : 256
    matrix_r1c1 : -88
    matrix_r1c2 : -183
    matrix_r2c0 : 256
    matrix_r2c1 : 454
    matrix_r2c2 : 0
    input_bias_0 : 0
    input_bias_1 : 128
    input_bias_2 : 128

    mean_chn_0 : 0
    mean_chn_1 : 0
    mean_chn_2 : 0
    min_chn_0 : 123.0
    min_chn_1 : 117.0
    min_chn_2 : 104.0
    var_reci_chn_0 : 1.0
    var_reci_chn_1 : 1.0
    var_reci_chn_2 : 1.0
}
)";

// An RGB888 static block whose body is `lines` (one key per line, starting on line 4).
std::string RgbBlock(const std::string& lines) {
  return "aipp_op {\n  aipp_mode: static\n  input_format: RGB888_U8\n" + lines + "}\n";
}

Result<std::vector<AippConfig>> Parse(const std::string& text) {
  return ParseAippConfig(text, "aipp.cfg");
}

// Expects a kInvalidParam error whose message contains every one of `parts`.
void ExpectError(const Status& status, std::initializer_list<std::string> parts,
                 int code = code::kInvalidParam) {
  ASSERT_FALSE(status.ok()) << "expected an error containing '" << *parts.begin() << "'";
  EXPECT_EQ(status.code(), code) << status.message();
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "message: " << status.message() << "\nmissing: " << part;
  }
}

void ExpectParseError(const std::string& text, std::initializer_list<std::string> parts) {
  auto result = Parse(text);
  ExpectError(result.ok() ? Status::Ok() : result.status(), parts);
}

AippConfig ParseOne(const std::string& text) {
  auto result = Parse(text);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) {
    ADD_FAILURE() << "expected one aipp_op block";
    return AippConfig();
  }
  return (*result)[0];
}

std::string Find(const Pairs& pairs, const std::string& key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return "<absent>";
}

// ---------------------------------------------------------------------------------------------
// Parsing values

TEST(AippConfigTest, VpcResnet50SampleParsesWithItsExactValues) {
  AippConfig c = ParseOne(kVpcResnet50);
  EXPECT_EQ(c.aipp_mode, AippMode::kStatic);
  EXPECT_EQ(c.related_input_rank, 0);
  EXPECT_EQ(c.input_format, AippInputFormat::kYuv420SpU8);
  EXPECT_EQ(c.src_image_size_w, 224);
  EXPECT_EQ(c.src_image_size_h, 224);
  EXPECT_FALSE(c.crop);
  EXPECT_TRUE(c.csc_switch);
  EXPECT_FALSE(c.rbuv_swap_switch);
  const std::array<std::array<int32_t, 3>, 3> matrix = {
      {{256, 0, 359}, {256, -88, -183}, {256, 454, 0}}};
  EXPECT_EQ(c.matrix, matrix);
  EXPECT_EQ(c.input_bias, (std::array<int32_t, 3>{0, 128, 128}));
  EXPECT_EQ(c.mean_chn, (std::array<int32_t, 4>{0, 0, 0, 0}));
  EXPECT_EQ(c.min_chn, (std::array<float, 4>{123.0f, 117.0f, 104.0f, 0.0f}));
  EXPECT_EQ(c.var_reci_chn, (std::array<float, 4>{1.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(c.origin, "aipp.cfg");
  EXPECT_EQ(c.line, 2);
  EXPECT_EQ(c.key_lines.at("matrix_r1c1"), 16);
}

TEST(AippConfigTest, ImageNetNormalisationFloatsParseToTheirFloatValues) {
  AippConfig c = ParseOne(
      RgbBlock("  min_chn_0: 123.675\n  min_chn_1: 116.28\n  min_chn_2: 103.53\n"
               "  var_reci_chn_0: 0.0171247538316637\n  var_reci_chn_1: 0.0175070028011204\n"
               "  var_reci_chn_2: 0.0174291938997821\n  padding_value: -1.5e2\n"));
  EXPECT_FLOAT_EQ(c.min_chn[0], 123.675f);
  EXPECT_FLOAT_EQ(c.min_chn[1], 116.28f);
  EXPECT_FLOAT_EQ(c.min_chn[2], 103.53f);
  EXPECT_FLOAT_EQ(c.var_reci_chn[0], 1.0f / 58.395f);
  EXPECT_FLOAT_EQ(c.var_reci_chn[1], 1.0f / 57.12f);
  EXPECT_FLOAT_EQ(c.var_reci_chn[2], 1.0f / 57.375f);
  EXPECT_FLOAT_EQ(c.var_reci_chn[3], 1.0f);  // not set: default
  EXPECT_FLOAT_EQ(c.padding_value, -150.0f);
}

TEST(AippConfigTest, UnsetKeysTakeTheDefaultsOfCannsTemplate) {
  AippConfig c = ParseOne(RgbBlock(""));
  EXPECT_EQ(c.related_input_rank, 0);
  EXPECT_EQ(c.src_image_size_w, 0);
  EXPECT_EQ(c.src_image_size_h, 0);
  EXPECT_FALSE(c.crop);
  EXPECT_FALSE(c.padding);
  EXPECT_FALSE(c.csc_switch);
  EXPECT_FALSE(c.ax_swap_switch);
  EXPECT_EQ(c.load_start_pos_w, 0);
  EXPECT_EQ(c.crop_size_h, 0);
  EXPECT_EQ(c.left_padding_size, 0);
  EXPECT_EQ(c.matrix[0], (std::array<int32_t, 3>{298, 516, 0}));
  EXPECT_EQ(c.matrix[1], (std::array<int32_t, 3>{298, -100, -208}));
  EXPECT_EQ(c.matrix[2], (std::array<int32_t, 3>{298, 0, 409}));
  EXPECT_EQ(c.input_bias, (std::array<int32_t, 3>{16, 128, 128}));
  EXPECT_EQ(c.output_bias, (std::array<int32_t, 3>{16, 128, 128}));
  EXPECT_EQ(c.mean_chn, (std::array<int32_t, 4>{0, 0, 0, 0}));
  EXPECT_EQ(c.min_chn, (std::array<float, 4>{0.0f, 0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(c.var_reci_chn, (std::array<float, 4>{1.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(c.raw_rgbir_to_f16_n, 8);
  EXPECT_EQ(c.max_src_image_size, 0);
}

TEST(AippConfigTest, QuotedValuesOneLineBlocksAndTrailingCommentsAreAccepted) {
  auto result = Parse(
      "# two inputs\n"
      "aipp_op { aipp_mode: \"static\" input_format: 'RGB888_U8' crop: 1 "
      "src_image_size_w: 256 src_image_size_h: 256 }\n"
      "\n"
      "aipp_op: {\n"
      "  aipp_mode : dynamic   # set at run time\n"
      "  related_input_rank : \"1\"\n"
      "  max_src_image_size : 150528\n"
      "}\n");
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->size(), 2u);
  const AippConfig& a = (*result)[0];
  EXPECT_EQ(a.aipp_mode, AippMode::kStatic);
  EXPECT_EQ(a.input_format, AippInputFormat::kRgb888U8);
  EXPECT_TRUE(a.crop);
  EXPECT_EQ(a.src_image_size_w, 256);
  EXPECT_EQ(a.line, 2);
  const AippConfig& b = (*result)[1];
  EXPECT_EQ(b.aipp_mode, AippMode::kDynamic);
  EXPECT_EQ(b.related_input_rank, 1);
  EXPECT_EQ(b.max_src_image_size, 150528);
  EXPECT_EQ(b.line, 4);
  EXPECT_EQ(b.key_lines.at("max_src_image_size"), 7);
}

TEST(AippConfigTest, BooleansAcceptTrueFalseAndOneZero) {
  AippConfig c =
      ParseOne(RgbBlock("  csc_switch: true\n  rbuv_swap_switch: 1\n"
                        "  ax_swap_switch: True\n  crop: 0\n  padding: false\n"));
  EXPECT_TRUE(c.csc_switch);
  EXPECT_TRUE(c.rbuv_swap_switch);
  EXPECT_TRUE(c.ax_swap_switch);
  EXPECT_FALSE(c.crop);
  EXPECT_FALSE(c.padding);
}

TEST(AippConfigTest, EveryInputFormatParsesToCannsNumbering) {
  const std::pair<const char*, int> formats[] = {
      {"YUV420SP_U8", 1}, {"XRGB8888_U8", 2}, {"RGB888_U8", 3}, {"YUV400_U8", 4}};
  for (const auto& [name, number] : formats) {
    AippConfig c = ParseOne(StrCat("aipp_op { aipp_mode: static input_format: ", name, " }"));
    EXPECT_EQ(static_cast<int>(c.input_format), number) << name;
    EXPECT_STREQ(AippInputFormatName(c.input_format), name);
  }
}

// ---------------------------------------------------------------------------------------------
// Parse errors: each names the file, the line, the key and what is allowed.

TEST(AippConfigTest, UnknownKeyIsRefusedWithItsLineAndASuggestion) {
  ExpectParseError(RgbBlock("  crop: true\n  crop_sizew: 224\n"),
                   {"aipp.cfg:5:", "unknown key 'crop_sizew'", "did you mean 'crop_size_w'"});
  ExpectParseError(RgbBlock("  brightness: 3\n"), {"aipp.cfg:4:", "unknown key 'brightness'"});
}

TEST(AippConfigTest, DuplicateKeyInABlockNamesBothLines) {
  ExpectParseError(RgbBlock("  crop: true\n  src_image_size_w: 8\n  crop: false\n"),
                   {"aipp.cfg:6:", "crop", "duplicate", "line 4"});
}

TEST(AippConfigTest, SameKeyInTwoBlocksIsNotADuplicate) {
  auto result = Parse(RgbBlock("") + RgbBlock("  related_input_rank: 1\n"));
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->size(), 2u);
}

TEST(AippConfigTest, OutOfRangeValuesNameTheKeyLineAndAllowedRange) {
  struct Case {
    std::string line;
    std::string allowed;
  };
  const Case cases[] = {
      {"src_image_size_w: 5000", "allowed 0 or [2, 4096]"},
      {"src_image_size_w: 1", "allowed 0 or [2, 4096]"},
      {"src_image_size_h: 4097", "allowed 0 or [1, 4096]"},
      {"load_start_pos_w: 4096", "allowed [0, 4095]"},
      {"load_start_pos_h: -2", "allowed [0, 4095]"},
      {"crop_size_w: 4097", "allowed [0, 4096]"},
      {"left_padding_size: 33", "allowed [0, 32]"},
      {"bottom_padding_size: -1", "allowed [0, 32]"},
      {"padding_value: 70000", "allowed [-65504, 65504]"},
      {"matrix_r0c0: 40000", "allowed [-32768, 32767]"},
      {"matrix_r2c2: -32769", "allowed [-32768, 32767]"},
      {"input_bias_1: 256", "allowed [0, 255]"},
      {"output_bias_2: -1", "allowed [0, 255]"},
      {"mean_chn_3: 300", "allowed [0, 255]"},
      {"min_chn_0: -0.5", "allowed [0, 255]"},
      {"min_chn_2: 255.5", "allowed [0, 255]"},
      {"var_reci_chn_1: 1e6", "allowed [-65504, 65504]"},
      {"raw_rgbir_to_f16_n: 32", "allowed [0, 31]"},
      {"related_input_rank: -1", "allowed [0, 2147483647]"},
      {"related_input_rank: 99999999999999999999", "allowed [0, 2147483647]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    std::string key = c.line.substr(0, c.line.find(':'));
    ExpectParseError(RgbBlock("  " + c.line + "\n"),
                     {"aipp.cfg:4: " + key + ": ", "out of range", c.allowed});
  }
}

TEST(AippConfigTest, WronglyTypedValuesSayWhatTypeIsExpected) {
  struct Case {
    std::string line;
    std::string problem;
  };
  const Case cases[] = {
      {"crop: yes", "'yes' is not a boolean; allowed true or false"},
      {"csc_switch: 2", "'2' is not a boolean"},
      {"matrix_r0c0: 1.5", "'1.5' is not an integer; allowed [-32768, 32767]"},
      {"src_image_size_w: 224px", "'224px' is not an integer"},
      {"min_chn_0: abc", "'abc' is not a number; allowed [0, 255]"},
      {"var_reci_chn_0: nan", "'nan' is not a number"},
      {"var_reci_chn_0: 0.5.1", "'0.5.1' is not a number"},
      {"mean_chn_0: \"\"", "'' is not an integer"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    ExpectParseError(RgbBlock("  " + c.line + "\n"), {"aipp.cfg:4: ", c.problem});
  }
  ExpectParseError("aipp_op {\n  aipp_mode: Static\n}",
                   {"aipp.cfg:2: aipp_mode: 'Static' is not an aipp mode; allowed static or "
                    "dynamic"});
  ExpectParseError(
      "aipp_op {\n  aipp_mode: static\n  input_format: NV12\n}",
      {"aipp.cfg:3: input_format: 'NV12'",
       "YUV420SP_U8, XRGB8888_U8, RGB888_U8, YUV400_U8, ARGB8888_U8, YUYV_U8, YUV422SP_U8 "
       "or AYUV444_U8"});
}

TEST(AippConfigTest, MissingAippModeIsReportedAtTheBlockLine) {
  ExpectParseError("\n# first\naipp_op {\n  input_format: RGB888_U8\n}\n",
                   {"aipp.cfg:3: ", "no aipp_mode", "aipp_mode: static"});
}

TEST(AippConfigTest, StaticBlockWithoutInputFormatIsRefused) {
  ExpectParseError(RgbBlock("") + "aipp_op {\n  aipp_mode: static\n  csc_switch: false\n}\n",
                   {"aipp.cfg:5: ", "input_format", "YUV420SP_U8"});
}

TEST(AippConfigTest, ReservedKeysAreAcceptedOnlyWhenOff) {
  const char* off[] = {"resize: false",     "resize_output_w: 0",      "resize_output_h: 0",
                       "rotation_angle: 0", "single_line_mode: false", "cpadding_value: 0.0"};
  for (const char* line : off) {
    SCOPED_TRACE(line);
    EXPECT_TRUE(Parse(RgbBlock(StrCat("  ", line, "\n"))).ok());
  }
  const char* on[] = {"resize: true",          "resize_output_w: 224",   "resize_output_h: 224",
                      "rotation_angle: 1",     "single_line_mode: true", "cpadding_value: 1.5",
                      "support_rotation: true"};
  for (const char* line : on) {
    SCOPED_TRACE(line);
    std::string key(line, std::string(line).find(':'));
    ExpectParseError(RgbBlock(StrCat("  ", line, "\n")),
                     {"aipp.cfg:4: " + key + ": ", "reserved", "not supported", "only"});
  }
  EXPECT_TRUE(
      Parse("aipp_op {\n aipp_mode: dynamic\n max_src_image_size: 100\n support_rotation: false\n}")
          .ok());
}

TEST(AippConfigTest, RelatedInputNameIsRefusedForOnnxModels) {
  ExpectParseError(RgbBlock("  related_input_name: \"data\"\n"),
                   {"aipp.cfg:4: related_input_name", "caffe", "related_input_rank"});
  EXPECT_TRUE(Parse(RgbBlock("  related_input_name: \"\"\n")).ok());
}

TEST(AippConfigTest, StaticOnlyKeysInADynamicBlockAreRefusedUnlessDefault) {
  ExpectParseError(
      "aipp_op {\n  aipp_mode: dynamic\n  max_src_image_size: 100\n  csc_switch: true\n}\n",
      {"aipp.cfg:4: csc_switch", "static aipp only", "dynamic"});
  // A copy of CANN's template keeps static keys at their defaults; that is accepted.
  EXPECT_TRUE(Parse("aipp_op {\n  aipp_mode: dynamic\n  max_src_image_size: 100\n"
                    "  crop: false\n  matrix_r0c0: 298\n  var_reci_chn_0: 1.0\n}\n")
                  .ok());
}

TEST(AippConfigTest, MaxSrcImageSizeInAStaticBlockIsRefused) {
  ExpectParseError(RgbBlock("  max_src_image_size: 150528\n"),
                   {"aipp.cfg:4: max_src_image_size", "dynamic aipp only"});
}

TEST(AippConfigTest, DynamicBlockNeedsAPositiveMaxSrcImageSize) {
  ExpectParseError("aipp_op {\n  aipp_mode: dynamic\n}\n",
                   {"aipp.cfg:1: max_src_image_size", "> 0", "[1, 4294967295]"});
  ExpectParseError("aipp_op {\n  aipp_mode: dynamic\n  max_src_image_size: 0\n}\n",
                   {"aipp.cfg:3: max_src_image_size", "> 0"});
  ExpectParseError("aipp_op {\n  aipp_mode: dynamic\n  max_src_image_size: 4294967296\n}\n",
                   {"aipp.cfg:3: max_src_image_size", "out of range", "[0, 4294967295]"});
}

TEST(AippConfigTest, Yuv420spNeedsEvenSourceSizesAndCropOffsets) {
  const std::string head = "aipp_op {\n  aipp_mode: static\n  input_format: YUV420SP_U8\n";
  ExpectParseError(head + "  src_image_size_w: 225\n  src_image_size_h: 224\n}\n",
                   {"aipp.cfg:4: src_image_size_w", "225", "even", "YUV420SP_U8"});
  ExpectParseError(head + "  src_image_size_w: 224\n  src_image_size_h: 223\n}\n",
                   {"aipp.cfg:5: src_image_size_h", "223", "even"});
  ExpectParseError(head +
                       "  src_image_size_w: 256\n  src_image_size_h: 256\n  crop: true\n"
                       "  load_start_pos_w: 3\n}\n",
                   {"aipp.cfg:7: load_start_pos_w", "3", "even"});
  // The same odd sizes are fine for RGB.
  EXPECT_TRUE(Parse(RgbBlock("  src_image_size_w: 225\n  src_image_size_h: 223\n  crop: true\n"
                             "  load_start_pos_w: 3\n  crop_size_w: 100\n"))
                  .ok());
}

TEST(AippConfigTest, ZeroSourceSizeIsAllowedOnlyWithCropAndPaddingOff) {
  EXPECT_TRUE(Parse(RgbBlock("")).ok());
  ExpectParseError(RgbBlock("  crop: true\n  src_image_size_h: 256\n"),
                   {"aipp.cfg:1: src_image_size_w", "only with crop and padding off"});
  ExpectParseError(RgbBlock("  padding: true\n  src_image_size_w: 0\n  src_image_size_h: 200\n"),
                   {"aipp.cfg:5: src_image_size_w", "[2, 4096]"});
}

TEST(AippConfigTest, ZeroCropSizeIsRefusedTogetherWithPadding) {
  ExpectParseError(RgbBlock("  src_image_size_w: 256\n  src_image_size_h: 256\n  crop: true\n"
                            "  padding: true\n  crop_size_w: 200\n"),
                   {"crop_size_h", "only without padding"});
}

TEST(AippConfigTest, CropWindowOutsideAKnownSourceIsRefusedAtParse) {
  ExpectParseError(RgbBlock("  src_image_size_w: 256\n  src_image_size_h: 256\n  crop: true\n"
                            "  load_start_pos_w: 40\n  crop_size_w: 224\n"),
                   {"aipp.cfg:8:",
                    "load_start_pos_w 40 + crop_size_w 224 = 264 > "
                    "src_image_size_w 256"});
}

TEST(AippConfigTest, SyntaxErrorsNameTheirLine) {
  ExpectParseError("aipp_op {\n  aipp_mode: static\n", {"aipp.cfg:1:", "not closed", "'}'"});
  ExpectParseError("aipp_op {\n  aipp_mode static\n}", {"aipp.cfg:2: aipp_mode", "expected ':'"});
  ExpectParseError("aipp_op {\n  aipp_mode:\n}", {"aipp.cfg:2: aipp_mode", "expected a value"});
  ExpectParseError("aipp_mode: static\n", {"aipp.cfg:1:", "outside an aipp_op block"});
  ExpectParseError("[aipp_op]\n", {"aipp.cfg:1:", "expected 'aipp_op {'"});
  ExpectParseError("aipp_op\n\naipp_mode: static\n", {"aipp.cfg:3:", "expected '{'"});
  ExpectParseError("aipp_op {\n  aipp_op {\n", {"aipp.cfg:2:", "cannot be nested"});
  ExpectParseError("aipp_op {\n  aipp_mode: \"static\n}", {"aipp.cfg:2:", "unterminated"});
  ExpectParseError("aipp_op {\n  aipp_mode: { }\n}", {"aipp.cfg:2:", "expected a value"});
  ExpectParseError("aipp_op {\n  : static\n}", {"aipp.cfg:2:", "expected a key or '}'"});
  ExpectParseError("# nothing here\n\n", {"aipp.cfg", "no aipp_op block"});
  ExpectParseError("", {"aipp.cfg", "no aipp_op block"});
}

// ---------------------------------------------------------------------------------------------
// Checks against the model's inputs

TEST(AippConfigTest, VpcResnet50SampleFitsA1x3x224x224Input) {
  auto configs = Parse(kVpcResnet50);
  ASSERT_TRUE(configs.ok());
  Status s = ValidateAippForModel(*configs, {{1, 3, 224, 224}}, {"data"});
  EXPECT_TRUE(s.ok()) << s.message();
  // A dynamic batch is fine.
  s = ValidateAippForModel(*configs, {{-1, 3, 224, 224}}, {"data"});
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(AippConfigTest, RelatedInputRankBeyondTheInputsIsRefused) {
  auto configs = Parse(RgbBlock("  related_input_rank: 2\n"));
  ASSERT_TRUE(configs.ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 3, 8, 8}, {1, 4}}, {"image", "im_info"}),
              {"aipp.cfg:4:", "related_input_rank 2", "2 input(s)", "0 'image'", "1 'im_info'",
               "allowed [0, 1]"});
}

TEST(AippConfigTest, TwoBlocksForTheSameInputAreRefused) {
  auto configs = Parse(RgbBlock("") + RgbBlock("  related_input_rank: 0\n"));
  ASSERT_TRUE(configs.ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 3, 8, 8}, {1, 3, 8, 8}}, {"a", "b"}),
              {"aipp.cfg:8:", "blocks 0 and 1", "input 'a' (rank 0)"});
}

TEST(AippConfigTest, TwoBlocksForTwoInputsAreAccepted) {
  auto configs = Parse(RgbBlock("") + RgbBlock("  related_input_rank: 1\n"));
  ASSERT_TRUE(configs.ok());
  Status s = ValidateAippForModel(*configs, {{1, 3, 8, 8}, {1, 3, 16, 16}}, {"a", "b"});
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(AippConfigTest, InputMustBeFourDimensional) {
  auto configs = Parse(RgbBlock(""));
  ASSERT_TRUE(configs.ok());
  ExpectError(ValidateAippForModel(*configs, {{3, 224, 224}}, {"x"}),
              {"input 'x' (rank 0", "[3,224,224]", "4-d"});
}

TEST(AippConfigTest, ChannelCountMustMatchTheInputFormat) {
  struct Case {
    const char* format;
    int64_t channels;
    bool ok;
  };
  const Case cases[] = {
      {"YUV420SP_U8", 3, true},  {"YUV420SP_U8", 1, false}, {"RGB888_U8", 3, true},
      {"RGB888_U8", 1, false},   {"RGB888_U8", 4, false},   {"XRGB8888_U8", 4, true},
      {"XRGB8888_U8", 3, false}, {"YUV400_U8", 1, true},    {"YUV400_U8", 3, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(StrCat(c.format, " C=", c.channels));
    auto configs = Parse(StrCat("aipp_op {\n aipp_mode: static\n input_format: ", c.format,
                                "\n ax_swap_switch: true\n}\n"));
    ASSERT_TRUE(configs.ok()) << configs.status().message();
    Status s = ValidateAippForModel(*configs, {{1, c.channels, 224, 224}}, {"img"});
    if (c.ok) {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      ExpectError(s, {"aipp.cfg:3:", "input 'img' (rank 0", StrCat("C = ", c.channels), c.format});
    }
  }
}

TEST(AippConfigTest, StaticAippNeedsAFixedHeightAndWidth) {
  auto configs = Parse(RgbBlock(""));
  ASSERT_TRUE(configs.ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 3, -1, -1}}, {"x"}),
              {"[1,3,-1,-1]", "fixed H and W", "--input_shape"});
}

TEST(AippConfigTest, ZeroSourceSizeTakesTheInputsSize) {
  auto configs = Parse(RgbBlock(""));
  ASSERT_TRUE(configs.ok());
  EXPECT_TRUE(ValidateAippForModel(*configs, {{1, 3, 300, 500}}, {"x"}).ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 3, 300, 5000}}, {"x"}),
              {"src_image_size_w 0 (the input's W = 5000)", "[2, 4096]"});
  auto yuv = Parse("aipp_op {\n aipp_mode: static\n input_format: YUV420SP_U8\n}\n");
  ASSERT_TRUE(yuv.ok());
  ExpectError(ValidateAippForModel(*yuv, {{1, 3, 224, 225}}, {"x"}),
              {"aipp.cfg:1:", "the input's W = 225", "even"});
}

TEST(AippConfigTest, SourceSizeWithoutCropMustEqualTheInputSize) {
  auto configs = Parse(RgbBlock("  src_image_size_w: 256\n  src_image_size_h: 224\n"));
  ASSERT_TRUE(configs.ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 3, 224, 224}}, {"x"}),
              {"aipp.cfg:4:", "width is 256", "input's W is 224"});
}

TEST(AippConfigTest, CropWindowMustLieInsideTheSourceImage) {
  const std::string body =
      "  src_image_size_w: 256\n  src_image_size_h: 256\n  crop: true\n"
      "  load_start_pos_h: 16\n";
  auto inside = Parse(RgbBlock(body + "  load_start_pos_w: 32\n"));
  ASSERT_TRUE(inside.ok()) << inside.status().message();
  // crop_size 0 takes the input's 224: 32 + 224 = 256 fits; 33 + 224 does not.
  EXPECT_TRUE(ValidateAippForModel(*inside, {{1, 3, 224, 224}}, {"x"}).ok());
  auto outside = Parse(RgbBlock(body + "  load_start_pos_w: 33\n"));
  ASSERT_TRUE(outside.ok()) << outside.status().message();
  ExpectError(ValidateAippForModel(*outside, {{1, 3, 224, 224}}, {"x"}),
              {"input 'x' (rank 0", "load_start_pos_w 33", "crop_size_w 0 (the input's W = 224)",
               "= 257 > src_image_size_w 256"});
}

TEST(AippConfigTest, CropPlusPaddingMustEqualTheInputSize) {
  const std::string body =
      "  src_image_size_w: 256\n  src_image_size_h: 256\n  crop: true\n"
      "  crop_size_w: 200\n  crop_size_h: 220\n  padding: true\n"
      "  top_padding_size: 2\n  bottom_padding_size: 2\n  right_padding_size: 12\n";
  auto fits = Parse(RgbBlock(body + "  left_padding_size: 12\n"));
  ASSERT_TRUE(fits.ok()) << fits.status().message();
  Status s = ValidateAippForModel(*fits, {{1, 3, 224, 224}}, {"x"});
  EXPECT_TRUE(s.ok()) << s.message();
  auto short_by_two = Parse(RgbBlock(body + "  left_padding_size: 10\n"));
  ASSERT_TRUE(short_by_two.ok());
  ExpectError(
      ValidateAippForModel(*short_by_two, {{1, 3, 224, 224}}, {"x"}),
      {"aipp.cfg:13:", "width is 222",
       "crop_size_w 200 + left_padding_size 10 + right_padding_size 12", "input's W is 224"});
  // The height (220 + 2 + 2 = 224) is checked too, against a 1x3x224x222 input.
  ExpectError(ValidateAippForModel(*short_by_two, {{1, 3, 226, 222}}, {"x"}),
              {"height is 224", "input's H is 226"});
}

TEST(AippConfigTest, DynamicAippNeedsOneThreeOrFourChannels) {
  auto configs = Parse("aipp_op {\n aipp_mode: dynamic\n max_src_image_size: 150528\n}\n");
  ASSERT_TRUE(configs.ok());
  for (int64_t c : {1, 3, 4}) {
    EXPECT_TRUE(ValidateAippForModel(*configs, {{1, c, 224, 224}}, {"x"}).ok()) << c;
  }
  // Dynamic AIPP sets the image size at run time, so a dynamic H and W is fine.
  EXPECT_TRUE(ValidateAippForModel(*configs, {{1, 3, -1, -1}}, {"x"}).ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 2, 224, 224}}, {"x"}), {"C = 2", "1, 3 or 4"});
}

TEST(AippConfigTest, ConfigsBuiltInCodeGetTheSameChecks) {
  AippConfig c;
  c.aipp_mode = AippMode::kDynamic;  // max_src_image_size left at 0
  ExpectError(ValidateAippForModel({c}, {{1, 3, 8, 8}}, {"x"}),
              {"aipp_op block 0: max_src_image_size", "> 0"});
  AippConfig d;
  d.aipp_mode = AippMode::kStatic;
  d.input_format = AippInputFormat::kRgb888U8;
  d.matrix[0][0] = 40000;
  ExpectError(ValidateAippForModel({d}, {{1, 3, 8, 8}}, {"x"}),
              {"aipp_op block 0: matrix_r0c0: 40000 is out of range"});
  d.matrix[0][0] = 298;
  d.resize = true;
  ExpectError(ValidateAippForModel({d}, {{1, 3, 8, 8}}, {"x"}), {"resize", "reserved"});
  ExpectError(ValidateAippForModel({AippConfig()}, {{1, 3, 8, 8}}, {"x"}), {"no aipp_mode"});
}

TEST(AippConfigTest, MismatchedNamesAndDimsAreAnInternalError) {
  auto configs = Parse(RgbBlock(""));
  ASSERT_TRUE(configs.ok());
  ExpectError(ValidateAippForModel(*configs, {{1, 3, 8, 8}}, {}), {"input names"},
              code::kInternalError);
}

TEST(AippConfigTest, NoConfigsValidateAgainstAnyModel) {
  EXPECT_TRUE(ValidateAippForModel({}, {{1}}, {"x"}).ok());
}

// ---------------------------------------------------------------------------------------------
// The .om encoding

TEST(AippConfigTest, StaticBlockIsEncodedWithEveryTemplateKeyInOrder) {
  auto configs = Parse(kVpcResnet50);
  ASSERT_TRUE(configs.ok());
  Pairs pairs = AippToKeyValues(*configs);
  const std::vector<std::string> keys = {"aipp_mode",
                                         "related_input_rank",
                                         "input_format",
                                         "src_image_size_w",
                                         "src_image_size_h",
                                         "crop",
                                         "load_start_pos_w",
                                         "load_start_pos_h",
                                         "crop_size_w",
                                         "crop_size_h",
                                         "padding",
                                         "left_padding_size",
                                         "right_padding_size",
                                         "top_padding_size",
                                         "bottom_padding_size",
                                         "padding_value",
                                         "csc_switch",
                                         "rbuv_swap_switch",
                                         "ax_swap_switch",
                                         "matrix_r0c0",
                                         "matrix_r0c1",
                                         "matrix_r0c2",
                                         "matrix_r1c0",
                                         "matrix_r1c1",
                                         "matrix_r1c2",
                                         "matrix_r2c0",
                                         "matrix_r2c1",
                                         "matrix_r2c2",
                                         "output_bias_0",
                                         "output_bias_1",
                                         "output_bias_2",
                                         "input_bias_0",
                                         "input_bias_1",
                                         "input_bias_2",
                                         "mean_chn_0",
                                         "mean_chn_1",
                                         "mean_chn_2",
                                         "mean_chn_3",
                                         "min_chn_0",
                                         "min_chn_1",
                                         "min_chn_2",
                                         "min_chn_3",
                                         "var_reci_chn_0",
                                         "var_reci_chn_1",
                                         "var_reci_chn_2",
                                         "var_reci_chn_3",
                                         "raw_rgbir_to_f16_n"};
  ASSERT_EQ(pairs.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(pairs[i].first, "0." + keys[i]);
  EXPECT_EQ(Find(pairs, "0.aipp_mode"), "static");
  EXPECT_EQ(Find(pairs, "0.input_format"), "YUV420SP_U8");
  EXPECT_EQ(Find(pairs, "0.src_image_size_w"), "224");
  EXPECT_EQ(Find(pairs, "0.crop"), "false");
  EXPECT_EQ(Find(pairs, "0.csc_switch"), "true");
  EXPECT_EQ(Find(pairs, "0.matrix_r0c2"), "359");
  EXPECT_EQ(Find(pairs, "0.matrix_r1c1"), "-88");
  EXPECT_EQ(Find(pairs, "0.output_bias_0"), "16");
  EXPECT_EQ(Find(pairs, "0.min_chn_0"), "123");
  EXPECT_EQ(Find(pairs, "0.var_reci_chn_2"), "1");
  EXPECT_EQ(Find(pairs, "0.raw_rgbir_to_f16_n"), "8");
  EXPECT_EQ(Find(pairs, "0.resize"), "<absent>");  // reserved keys are never written
  EXPECT_EQ(Find(pairs, "0.related_input_name"), "<absent>");
}

TEST(AippConfigTest, DynamicBlockIsEncodedWithItsThreeKeys) {
  auto configs =
      Parse(RgbBlock("") +
            "aipp_op {\n aipp_mode: dynamic\n related_input_rank: 1\n max_src_image_size: 7\n}\n");
  ASSERT_TRUE(configs.ok());
  Pairs pairs = AippToKeyValues(*configs);
  Pairs second(std::find_if(pairs.begin(), pairs.end(),
                            [](const auto& p) { return p.first.rfind("1.", 0) == 0; }),
               pairs.end());
  EXPECT_EQ(second, (Pairs{{"1.aipp_mode", "dynamic"},
                           {"1.related_input_rank", "1"},
                           {"1.max_src_image_size", "7"}}));
}

TEST(AippConfigTest, FloatsAreEncodedAsTextThatReadsBackToTheSameFloat) {
  auto configs = Parse(
      RgbBlock("  min_chn_0: 123.675\n  min_chn_1: 116.28\n  var_reci_chn_0: 0.0171247538316637\n"
               "  var_reci_chn_1: 0.0175070028011204\n  padding_value: -0.5\n"));
  ASSERT_TRUE(configs.ok());
  Pairs pairs = AippToKeyValues(*configs);
  EXPECT_EQ(Find(pairs, "0.min_chn_0"), "123.675");
  EXPECT_EQ(Find(pairs, "0.min_chn_1"), "116.28");
  EXPECT_EQ(Find(pairs, "0.padding_value"), "-0.5");
  EXPECT_EQ(std::strtof(Find(pairs, "0.var_reci_chn_0").c_str(), nullptr), 0.0171247538316637f);
  EXPECT_EQ(std::strtof(Find(pairs, "0.var_reci_chn_1").c_str(), nullptr), 0.0175070028011204f);
}

TEST(AippConfigTest, KeyValueEncodingRoundTripsInAnyOrder) {
  auto configs = Parse(std::string(kVpcResnet50) +
                       RgbBlock("  related_input_rank: 1\n  min_chn_0: 123.675\n"
                                "  var_reci_chn_0: 0.0171247538316637\n  crop: true\n"
                                "  src_image_size_w: 300\n  src_image_size_h: 300\n"
                                "  load_start_pos_w: 10\n  crop_size_w: 224\n  padding: true\n"
                                "  crop_size_h: 200\n  top_padding_size: 12\n"
                                "  bottom_padding_size: 12\n  padding_value: 7.5\n") +
                       "aipp_op { aipp_mode: dynamic related_input_rank: 2 "
                       "max_src_image_size: 1000 }\n");
  ASSERT_TRUE(configs.ok()) << configs.status().message();
  Pairs pairs = AippToKeyValues(*configs);
  std::reverse(pairs.begin(), pairs.end());
  auto decoded = AippFromKeyValues(pairs);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ASSERT_EQ(decoded->size(), 3u);
  const AippConfig& a = (*decoded)[0];
  EXPECT_EQ(a.aipp_mode, AippMode::kStatic);
  EXPECT_EQ(a.input_format, AippInputFormat::kYuv420SpU8);
  EXPECT_TRUE(a.csc_switch);
  EXPECT_EQ(a.matrix, (*configs)[0].matrix);
  EXPECT_EQ(a.input_bias, (std::array<int32_t, 3>{0, 128, 128}));
  const AippConfig& b = (*decoded)[1];
  EXPECT_EQ(b.related_input_rank, 1);
  EXPECT_EQ(b.min_chn[0], 123.675f);
  EXPECT_EQ(b.var_reci_chn[0], (*configs)[1].var_reci_chn[0]);
  EXPECT_TRUE(b.crop);
  EXPECT_TRUE(b.padding);
  EXPECT_EQ(b.load_start_pos_w, 10);
  EXPECT_EQ(b.crop_size_h, 200);
  EXPECT_EQ(b.bottom_padding_size, 12);
  EXPECT_EQ(b.padding_value, 7.5f);
  const AippConfig& c = (*decoded)[2];
  EXPECT_EQ(c.aipp_mode, AippMode::kDynamic);
  EXPECT_EQ(c.related_input_rank, 2);
  EXPECT_EQ(c.max_src_image_size, 1000);
  std::reverse(pairs.begin(), pairs.end());
  EXPECT_EQ(AippToKeyValues(*decoded), pairs);
}

TEST(AippConfigTest, MalformedEncodingsAreRefused) {
  ExpectError(AippFromKeyValues({{"aipp_mode", "static"}}).status(), {"<block>.<name>"},
              code::kParseModel);
  ExpectError(AippFromKeyValues({{"x.aipp_mode", "static"}}).status(), {"<block>.<name>"},
              code::kParseModel);
  ExpectError(AippFromKeyValues({{"0.brightness", "1"}}).status(), {"unknown"}, code::kParseModel);
  ExpectError(AippFromKeyValues({{"0.aipp_mode", "static"}, {"0.crop", "maybe"}}).status(),
              {"0.crop", "not a boolean"}, code::kParseModel);
  ExpectError(AippFromKeyValues({{"0.aipp_mode", "static"}, {"0.aipp_mode", "static"}}).status(),
              {"twice"}, code::kParseModel);
  ExpectError(AippFromKeyValues({{"1.aipp_mode", "static"}}).status(), {"block 0 is missing"},
              code::kParseModel);
  ExpectError(AippFromKeyValues({{"0.crop", "true"}}).status(), {"no aipp_mode"},
              code::kParseModel);
  auto empty = AippFromKeyValues({});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace kiln::compiler

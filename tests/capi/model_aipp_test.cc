// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Static AIPP through the C API (docs/aipp.md): mnist-8 compiled with a YUV400_U8 block takes
// the raw uint8 digit, reports the image as its input (type, format, dims, size), reports its
// AIPP (aclmdlGetAippType, aclmdlGetFirstAippInfo) and classifies as the ONNX test data says.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/capi/model_test_util.h"

namespace kiln::model_test {
namespace {

// mnist-8 with its 1x1x28x28 float input fed by YUV400 AIPP: (v - 0 - 0.5) * 1 on integer
// pixels, so a digit whose floats are integers 0..255 gives back its float input minus 0.5;
// with min_chn 0 it is the float input itself.
std::string CompileWithAipp(const std::string& name, const std::string& onnx,
                            const std::string& block) {
  const std::string cfg = ScratchDir() + "/" + name + ".cfg";
  std::ofstream(cfg) << "aipp_op {\n" << block << "}\n";
  compiler::CompileOptions options;
  options.model = onnx;
  options.output = ScratchDir() + "/" + name + ".om";
  options.aipp_config = cfg;
  auto report = atc::Compile(options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? report->output_path : "";
}

std::string AippMnistOm(const std::string& name, float min_chn) {
  return CompileWithAipp(name, MnistOnnx(),
                         "  aipp_mode: static\n  input_format: YUV400_U8\n  min_chn_0: " +
                             std::to_string(min_chn) + "\n");
}

// y = Identity(x), x float [1, 3, 4, 6].
std::string WriteIdentityModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("identity");
  onnx::NodeProto* node = g->add_node();
  node->set_op_type("Identity");
  node->add_input("x");
  node->add_output("y");
  for (auto* v : {g->add_input(), g->add_output()}) {
    v->set_name(v == &g->input(0) ? "x" : "y");
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {1, 3, 4, 6}) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  const std::string path = ScratchDir() + "/identity_1x3x4x6.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(model.SerializeToOstream(&out)) << path;
  return path;
}

TEST_F(ModelApiTest, AippTheInputIsTheImageAndTheModelClassifiesIt) {
  KILN_REQUIRE_MNIST();
  LoadedModel model(AippMnistOm("mnist_aipp", 0.0f));
  aclmdlDesc* d = model.desc();
  EXPECT_EQ(aclmdlGetInputDataType(d, 0), ACL_UINT8);
  EXPECT_EQ(aclmdlGetInputFormat(d, 0), ACL_FORMAT_NHWC);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 0), 28u * 28u);
  for (auto get : {&aclmdlGetInputDims, &aclmdlGetInputDimsV2}) {
    aclmdlIODims dims;
    ASSERT_EQ(get(d, 0, &dims), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              (std::vector<int64_t>{1, 28, 28, 1}));
  }
  for (int set = 0; set < 3; ++set) {
    MnistCase c = LoadMnistCase(set);
    std::vector<uint8_t> pixels;
    for (float v : c.input) pixels.push_back(static_cast<uint8_t>(v));  // integers 0..255
    IoDatasets io({pixels.size()}, {kMnistOutputBytes});
    io.input(0).Write(pixels.data(), pixels.size());
    ASSERT_EQ(aclmdlExecute(model.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}))
        << "test_data_set_" << set;
  }
}

// NV12: V2 gives the stored [1, 6, 6, 1] (its product is the size), V1 the image [1, 4, 6, 3].
// V2 gives the stored buffer (its product is the size), V1 the image [1, 4, 6, 3] with the
// channels AIPP makes, for each format whose stored rows or bytes per pixel differ.
TEST_F(ModelApiTest, AippImageInputDimsAsCannReportsThem) {
  struct Case {
    const char* format;
    std::vector<int64_t> v2;
    aclAippInputFormat acl;
  };
  for (const Case& c : {Case{"YUV420SP_U8", {1, 6, 6, 1}, ACL_YUV420SP_U8},
                        Case{"YUV422SP_U8", {1, 8, 6, 1}, ACL_YUV422SP_U8},
                        Case{"YUYV_U8", {1, 4, 6, 2}, ACL_YUYV_U8},
                        Case{"RGB888_U8", {1, 4, 6, 3}, ACL_RGB888_U8}}) {
    LoadedModel model(CompileWithAipp(std::string("img_") + c.format, WriteIdentityModel(),
                                      std::string("  aipp_mode: static\n  input_format: ") +
                                          c.format + "\n  csc_switch: true\n"));
    aclmdlDesc* d = model.desc();
    int64_t bytes = 1;
    for (int64_t v : c.v2) bytes *= v;
    EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 0), static_cast<size_t>(bytes)) << c.format;
    aclmdlIODims v1, v2;
    ASSERT_EQ(aclmdlGetInputDims(d, 0, &v1), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclmdlGetInputDimsV2(d, 0, &v2), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(std::vector<int64_t>(v1.dims, v1.dims + v1.dimCount),
              (std::vector<int64_t>{1, 4, 6, 3}))
        << c.format;
    EXPECT_EQ(std::vector<int64_t>(v2.dims, v2.dims + v2.dimCount), c.v2) << c.format;
    aclAippInfo info;
    ASSERT_EQ(aclmdlGetFirstAippInfo(model.id(), 0, &info), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(info.inputFormat, c.acl);
    EXPECT_EQ(info.srcImageSizeW, 6);
    EXPECT_EQ(info.srcImageSizeH, 4);
    EXPECT_EQ(info.cscSwitch, 1);
  }
}

TEST_F(ModelApiTest, AippTypeAndInfoReportTheCompiledBlock) {
  KILN_REQUIRE_MNIST();
  LoadedModel model(AippMnistOm("mnist_aipp_info", 2.5f));
  aclmdlInputAippType type = ACL_DYNAMIC_AIPP_NODE;
  size_t attached = 0;
  ASSERT_EQ(aclmdlGetAippType(model.id(), 0, &type, &attached), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(type, ACL_DATA_WITH_STATIC_AIPP);
  EXPECT_EQ(attached, static_cast<size_t>(ACL_INVALID_NODE_INDEX));

  aclAippInfo info;
  ASSERT_EQ(aclmdlGetFirstAippInfo(model.id(), 0, &info), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(info.inputFormat, ACL_YUV400_U8);
  EXPECT_EQ(info.srcImageSizeW, 28);  // 0 in the file: the input's
  EXPECT_EQ(info.srcImageSizeH, 28);
  EXPECT_EQ(info.cropSwitch, 0);
  EXPECT_EQ(info.cscSwitch, 0);
  EXPECT_EQ(info.matrixR0C0, 298);  // the template's defaults, recorded
  EXPECT_EQ(info.inputBias1, 128);
  EXPECT_EQ(info.minChn0, 2.5f);
  EXPECT_EQ(info.varReciChn0, 1.0f);
  EXPECT_EQ(info.srcDatatype, ACL_FLOAT);
  EXPECT_EQ(info.srcDimNum, 4u);
  ASSERT_EQ(info.shapeCount, 1u);
  const aclmdlIODims& src = info.outDims[0].srcDims;
  EXPECT_EQ(std::vector<int64_t>(src.dims, src.dims + src.dimCount),
            (std::vector<int64_t>{1, 1, 28, 28}));
  EXPECT_EQ(info.outDims[0].srcSize, 28u * 28u * 4u);
  EXPECT_EQ(info.aippExtend, nullptr);
}

TEST_F(ModelApiTest, AippModelsWithoutAippAndBadArgumentsGetTheDocumentedCodes) {
  KILN_REQUIRE_MNIST();
  LoadedModel plain(MnistOm());
  aclmdlInputAippType type = ACL_DATA_WITH_STATIC_AIPP;
  size_t attached = 0;
  ASSERT_EQ(aclmdlGetAippType(plain.id(), 0, &type, &attached), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(type, ACL_DATA_WITHOUT_AIPP);
  aclAippInfo info;
  EXPECT_EQ(aclmdlGetFirstAippInfo(plain.id(), 0, &info),
            static_cast<aclError>(ACL_ERROR_GE_AIPP_NOT_EXIST));
  EXPECT_TRUE(Contains(RecentErrMsg(), "has no aipp")) << RecentErrMsg();

  EXPECT_EQ(aclmdlGetAippType(plain.id(), 1, &type, &attached), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "out of range")) << RecentErrMsg();
  EXPECT_EQ(aclmdlGetAippType(plain.id(), 0, nullptr, &attached), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetAippType(plain.id(), 0, &type, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetFirstAippInfo(plain.id(), 0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(aclmdlGetAippType(plain.id() + 1000, 0, &type, &attached), ACL_SUCCESS);
  EXPECT_NE(aclmdlGetFirstAippInfo(plain.id() + 1000, 0, &info), ACL_SUCCESS);
}

}  // namespace
}  // namespace kiln::model_test

namespace kiln::model_test {
namespace {

// mnist-8 with dynamic AIPP: its input becomes 960 bytes of images, and the parameters of each
// run say where in a 32x30 gray frame the 28x28 digit is.
std::vector<uint8_t> Frame(const MnistCase& c, int left, int top) {
  std::vector<uint8_t> frame(32 * 30, 255);
  for (int y = 0; y < 28; ++y) {
    for (int x = 0; x < 28; ++x) {
      frame[(top + y) * 32 + left + x] = static_cast<uint8_t>(c.input[y * 28 + x]);
    }
  }
  return frame;
}

aclmdlAIPP* CropSet(int left, int top) {
  aclmdlAIPP* set = aclmdlCreateAIPP(1);
  EXPECT_NE(set, nullptr) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetAIPPInputFormat(set, ACL_YUV400_U8), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetAIPPSrcImageSize(set, 32, 30), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetAIPPCropParams(set, 1, left, top, 28, 28, 0), ACL_SUCCESS) << RecentErrMsg();
  return set;
}

TEST_F(ModelApiTest, AippDynamicParametersCropEachRun) {
  KILN_REQUIRE_MNIST();
  LoadedModel model(CompileWithAipp("mnist_dynamic", MnistOnnx(),
                                    "  aipp_mode: dynamic\n  max_src_image_size: 960\n"));
  aclmdlDesc* d = model.desc();
  ASSERT_EQ(aclmdlGetNumInputs(d), 2u);
  EXPECT_STREQ(aclmdlGetInputNameByIndex(d, 1), ACL_DYNAMIC_AIPP_NAME);
  size_t block = 0;
  ASSERT_EQ(aclmdlGetAippDataSize(1, &block), ACL_SUCCESS);
  EXPECT_EQ(block, 64u + 96u);  // CANN's header and one image's record
  EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 1), block);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 0), 960u);
  aclmdlInputAippType type;
  size_t attached = 0;
  ASSERT_EQ(aclmdlGetAippType(model.id(), 0, &type, &attached), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(type, ACL_DATA_WITH_DYNAMIC_AIPP);
  EXPECT_EQ(attached, 1u);
  ASSERT_EQ(aclmdlGetAippType(model.id(), 1, &type, &attached), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(type, ACL_DYNAMIC_AIPP_NODE);
  // Before a run only what the model reads is known (CANN: srcFormat .. outDims).
  aclAippInfo info;
  ASSERT_EQ(aclmdlGetFirstAippInfo(model.id(), 0, &info), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(info.srcDatatype, ACL_FLOAT);
  EXPECT_EQ(info.shapeCount, 1u);
  EXPECT_EQ(std::vector<int64_t>(info.outDims[0].srcDims.dims,
                                 info.outDims[0].srcDims.dims + info.outDims[0].srcDims.dimCount),
            (std::vector<int64_t>{1, 1, 28, 28}));
  EXPECT_EQ(info.srcImageSizeW, 0);

  const MnistCase c = LoadMnistCase(1);
  IoDatasets io({960, block}, {kMnistOutputBytes});
  int run = 0;
  for (const auto& [left, top] : {std::pair{0, 0}, std::pair{4, 2}}) {
    const std::vector<uint8_t> frame = Frame(c, left, top);
    io.input(0).Write(frame.data(), frame.size());
    aclmdlAIPP* set = CropSet(left, top);
    // One run through each setter of the parameter input.
    if (run++ == 0) {
      ASSERT_EQ(aclmdlSetInputAIPP(model.id(), io.in(), 1, set), ACL_SUCCESS) << RecentErrMsg();
    } else {
      ASSERT_EQ(aclmdlSetAIPPByInputIndex(model.id(), io.in(), 0, set), ACL_SUCCESS)
          << RecentErrMsg();
    }
    ASSERT_EQ(aclmdlDestroyAIPP(set), ACL_SUCCESS);
    ASSERT_EQ(aclmdlExecute(model.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}))
        << "digit at (" << left << ", " << top << ")";
  }

  // A window that does not fit the model is refused when set, naming the image, as in CANN.
  aclmdlAIPP* wrong = CropSet(0, 0);
  ASSERT_EQ(aclmdlSetAIPPCropParams(wrong, 1, 0, 0, 27, 28, 0), ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetInputAIPP(model.id(), io.in(), 1, wrong), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "image 0: crop and padding give 27x28")) << RecentErrMsg();
  ASSERT_EQ(aclmdlDestroyAIPP(wrong), ACL_SUCCESS);
  // Parameters written into the buffer by other means are checked when the model runs: the run
  // fails (a kernel failure, 507011) naming the node and the image; the model stays usable.
  std::vector<uint8_t> bad(block, 0);
  io.input(1).Write(bad.data(), bad.size());
  EXPECT_EQ(aclmdlExecute(model.id(), io.in(), io.out()),
            static_cast<aclError>(ACL_ERROR_RT_MODEL_EXECUTE));
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclmdlCreateAIPP's batchSize")) << RecentErrMsg();
  aclmdlAIPP* again = CropSet(4, 2);
  ASSERT_EQ(aclmdlSetInputAIPP(model.id(), io.in(), 1, again), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclmdlExecute(model.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  ASSERT_EQ(aclmdlDestroyAIPP(again), ACL_SUCCESS);
}

TEST_F(ModelApiTest, AippDynamicSettersRefuseBadValuesWithTheDocumentedCodes) {
  EXPECT_EQ(aclmdlCreateAIPP(0), nullptr);
  EXPECT_EQ(aclmdlCreateAIPP(128), nullptr);
  size_t size = 0;
  EXPECT_EQ(aclmdlGetAippDataSize(0, &size), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetAippDataSize(2, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclmdlGetAippDataSize(2, &size), ACL_SUCCESS);
  EXPECT_EQ(size, 64u + 2 * 96u);
  aclmdlAIPP* set = aclmdlCreateAIPP(2);
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(aclmdlSetAIPPInputFormat(set, ACL_RAW10), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "ACL_YUYV_U8")) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetAIPPSrcImageSize(set, 1, 10), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPCropParams(set, 2, 0, 0, 8, 8, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPCropParams(set, 1, 0, 0, 8, 8, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "batchIndex 2 is out of range")) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetAIPPPaddingParams(set, 1, 33, 0, 0, 0, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPDtcPixelMean(set, 0, 0, 256, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPDtcPixelMin(set, 0, -1.0f, 0, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPPixelVarReci(set, 1e6f, 1, 1, 1, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPScfParams(set, 1, 64, 64, 32, 32, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(aclmdlSetAIPPScfParams(set, 0, 0, 0, 0, 0, 1), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetAIPPCscParams(set, 1, 256, 0, 359, 256, -88, -183, 256, 454, 0, 0, 0, 0, 0,
                                   128, 128),
            ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetAIPPRbuvSwapSwitch(set, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPAxSwapSwitch(set, 1), ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetAIPPInputFormat(nullptr, ACL_RGB888_U8), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclmdlDestroyAIPP(set), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyAIPP(set), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPInputFormat(set, ACL_RGB888_U8), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "not a live aclmdlAIPP")) << RecentErrMsg();

  // Against a model: a set of the wrong batch, a buffer too small, an input without aipp.
  KILN_REQUIRE_MNIST();
  LoadedModel model(CompileWithAipp("mnist_dynamic2", MnistOnnx(),
                                    "  aipp_mode: dynamic\n  max_src_image_size: 784\n"));
  aclmdlAIPP* two = aclmdlCreateAIPP(2);
  IoDatasets small({784, 100}, {kMnistOutputBytes});
  EXPECT_EQ(aclmdlSetInputAIPP(model.id(), small.in(), 1, two), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "the set is for 2 image(s)")) << RecentErrMsg();
  aclmdlAIPP* one = aclmdlCreateAIPP(1);
  EXPECT_EQ(aclmdlSetInputAIPP(model.id(), small.in(), 1, one),
            static_cast<aclError>(ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID));
  EXPECT_EQ(aclmdlSetInputAIPP(model.id(), small.in(), 0, one), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPByInputIndex(model.id(), small.in(), 1, one), ACL_ERROR_INVALID_PARAM);
  // A format and size the model cannot take, refused when set.
  IoDatasets io({784, 160}, {kMnistOutputBytes});
  ASSERT_EQ(aclmdlSetAIPPInputFormat(one, ACL_RGB888_U8), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPSrcImageSize(one, 28, 28), ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetInputAIPP(model.id(), io.in(), 1, one), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "RGB888_U8 makes 3 channel(s); the model input has 1"))
      << RecentErrMsg();
  ASSERT_EQ(aclmdlSetAIPPInputFormat(one, ACL_YUV400_U8), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPSrcImageSize(one, 30, 28), ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetInputAIPP(model.id(), io.in(), 1, one), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "need 840 bytes; the image input has 784"))
      << RecentErrMsg();
  aclmdlDestroyAIPP(two);
  aclmdlDestroyAIPP(one);
}

}  // namespace
}  // namespace kiln::model_test

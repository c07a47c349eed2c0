// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Which real models the CUDA device takes, checked without a GPU: each is compiled for `sm_90`
// and loaded onto a stand-in device of backend "cuda" (null_driver.h: guarded host memory), so
// the loader prepares the CUDA kernel of every node exactly as on a GPU and refuses the model
// at its first node without one (545001, naming op and node). The models the kernels cover must
// load — a kernel that starts declining them fails here — and the rest are listed with the node
// that stops them (docs/cuda.md, "Model coverage"). Nothing runs: outputs are cuda_*_test's
// business on a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "atc/atc.h"
#include "compiler/compile.h"
#include "tests/hal/null_driver.h"

namespace kiln::hal::testing {
namespace {

namespace fs = std::filesystem;

std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg ? msg : "";
}

// The first site-packages folder of the project's .venv (scripts/setup.sh), or "".
fs::path SitePackages() {
  const fs::path lib = fs::path(KILN_SOURCE_DIR) / ".venv" / "lib";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(lib, ec)) {
    const fs::path site = entry.path() / "site-packages";
    if (fs::is_directory(site)) return site;
  }
  return {};
}

struct Model {
  std::string name;
  fs::path path;
  bool covered;  // the CUDA kernels take every node (must load)
  std::map<std::string, std::vector<int64_t>> shapes = {};  // --input_shape
};

// The architectures no package ships, written by scripts/gen_models.py (seeded weights) into
// the build tree once; "" when the project's .venv is missing.
fs::path GeneratedModels() {
  const fs::path python = fs::path(KILN_SOURCE_DIR) / ".venv" / "bin" / "python";
  const fs::path out = fs::path(KILN_BINARY_DIR) / "models";
  if (!fs::exists(python)) return {};
  const std::string cmd = python.string() + " " + KILN_SOURCE_DIR +
                          "/scripts/gen_models.py --out " + out.string() +
                          " --only resnet50,mobilenetv2,bert,bert_dynamic > /dev/null";
  return std::system(cmd.c_str()) == 0 ? out : fs::path();
}

std::vector<Model> PublicModels() {
  const fs::path tree = fs::path(KILN_SOURCE_DIR) / "tests" / "data" / "models";
  const fs::path site = SitePackages();
  const fs::path light = site / "onnx" / "backend" / "test" / "data" / "light";
  const fs::path generated = GeneratedModels();
  const std::map<std::string, std::vector<int64_t>> image = {{"input", {1, 3, 224, 224}}};
  const std::map<std::string, std::vector<int64_t>> text = {
      {"input_ids", {1, 128}}, {"attention_mask", {1, 128}}, {"token_type_ids", {1, 128}}};
  std::vector<Model> models = {
      {"mnist-8", tree / "mnist-8" / "model.onnx", true},
      {"light_resnet50", light / "light_resnet50.onnx", true},
      {"light_squeezenet", light / "light_squeezenet.onnx", true},
      {"light_shufflenet", light / "light_shufflenet.onnx", true},
      {"light_vgg19", light / "light_vgg19.onnx", true},
      {"light_densenet121", light / "light_densenet121.onnx", true},
      {"light_inception_v1", light / "light_inception_v1.onnx", true},
      {"light_inception_v2", light / "light_inception_v2.onnx", true},
      {"light_bvlc_alexnet", light / "light_bvlc_alexnet.onnx", true},
      {"light_zfnet512", light / "light_zfnet512.onnx", true},
      {"resnet50_v1.5", generated / "resnet50_v1.5.onnx", true, image},
      {"mobilenetv2", generated / "mobilenetv2.onnx", true, image},
      {"bert_encoder", generated / "bert_encoder.onnx", true, text},
      {"bert_encoder_dynamic", generated / "bert_encoder_dynamic.onnx", true, text},
      {"yunet_320", tree / "yunet" / "yunet_n_320_320.onnx", true},
      {"yolov8n", site / "nudenet" / "320n.onnx", true},
      {"ppocr_det", site / "rapidocr_onnxruntime" / "models" / "ch_PP-OCRv4_det_infer.onnx", true},
      {"ppocr_cls",
       site / "rapidocr_onnxruntime" / "models" / "ch_ppocr_mobile_v2.0_cls_infer.onnx", true},
      {"ppocr_rec", site / "rapidocr_onnxruntime" / "models" / "ch_PP-OCRv4_rec_infer.onnx", true},
      {"silero_vad", site / "silero_vad" / "data" / "silero_vad.onnx", true},
  };
  return models;
}

class CudaModelCoverageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { RegisterDriver(CreateStandInDriver("cuda", "sm_90")); }
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << RecentErrMsg();
    char dir[] = "/tmp/kiln-cuda-coverage-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    fs::remove_all(dir_);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << RecentErrMsg();
  }
  fs::path dir_;
};

TEST_F(CudaModelCoverageTest, TheCoveredModelsLoadAndTheOthersNameTheirFirstMissingKernel) {
  const char* soc = aclrtGetSocName();
  ASSERT_NE(soc, nullptr);
  ASSERT_EQ(std::string(soc), "sm_90") << "device 0 is not the stand-in";
  int loaded = 0, tried = 0;
  for (const Model& m : PublicModels()) {
    if (!fs::exists(m.path)) {
      // The in-tree model must be there; the packages' come with scripts/setup.sh.
      EXPECT_FALSE(m.covered && m.name == "mnist-8") << m.path;
      std::cout << "  skipped " << m.name << ": " << m.path << " is not installed\n";
      continue;
    }
    ++tried;
    compiler::CompileOptions opt;
    opt.model = m.path.string();
    opt.output = (dir_ / m.name).string();
    opt.target = "sm_90";
    opt.input_shapes = m.shapes;
    auto report = atc::Compile(opt);
    ASSERT_TRUE(report.ok()) << m.name << ": " << report.status().message();
    uint32_t id = 0;
    const aclError ret = aclmdlLoadFromFile(report->output_path.c_str(), &id);
    if (ret == ACL_SUCCESS) {
      ++loaded;
      std::cout << "  loads   " << m.name << "\n";
      EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS) << RecentErrMsg();
      continue;
    }
    const std::string why = RecentErrMsg();
    std::cout << "  refused " << m.name << ": " << why.substr(0, why.find('\n')) << "\n";
    EXPECT_FALSE(m.covered) << m.name << " no longer loads on the CUDA device: " << why;
    // Refused at load, naming what stops it (an op without a CUDA kernel, or one the kernel
    // declines), and nothing else went wrong.
    EXPECT_EQ(ret, ACL_ERROR_GE_LOAD_MODEL) << m.name << ": " << why;
    EXPECT_NE(why.find("cuda"), std::string::npos) << why;
  }
  std::cout << "CUDA model coverage: " << loaded << " of " << tried << " models load\n";
}

}  // namespace
}  // namespace kiln::hal::testing

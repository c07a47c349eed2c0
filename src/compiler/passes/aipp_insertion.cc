// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aipp_insertion: each static AIPP block becomes a com.kiln Aipp node (ir/ops/image.cc) between
// the raw image the application passes and the tensor the model reads.
#include "compiler/passes/aipp_insertion.h"

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "base/str_cat.h"
#include "compiler/passes/pattern_util.h"
#include "ir/ops/image.h"

namespace kiln::compiler {
namespace {

struct Planned {
  const AippConfig* config;
  ir::Value* input;
  ir::AttrMap attrs;
  ir::Shape image;  // the input's new shape
};

class AippInsertion : public Pass {
 public:
  explicit AippInsertion(std::vector<AippConfig> configs) : configs_(std::move(configs)) {}

  const char* name() const override { return "aipp_insertion"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    std::vector<Planned> plans;
    for (size_t b = 0; b < configs_.size(); ++b) {
      if (configs_[b].aipp_mode != AippMode::kStatic) continue;
      KILN_ASSIGN_OR_RETURN(Planned p, Plan(graph, configs_[b], b));
      plans.push_back(std::move(p));
    }
    for (Planned& p : plans) {
      ir::Value* in = p.input;
      ir::Value* model_in = graph.AddUniqueValue(in->name() + "_kiln_aipp", in->type());
      for (ir::Node* reader : graph.Uses(in)) {
        for (size_t i = 0; i < reader->inputs().size(); ++i) {
          if (reader->input(i) == in) reader->set_input(i, model_in);
        }
      }
      in->type() = ir::TensorType{ir::DataType::kUint8, p.image};
      // Added unnamed (no ONNX node is its origin), then named after the input.
      KILN_ASSIGN_OR_RETURN(ir::Node * node,
                            graph.AddNode("Aipp", "com.kiln", "", 1, {in}, {model_in}));
      node->set_name(in->name() + "_kiln_aipp");
      for (auto& [key, value] : p.attrs) node->set_attr(key, std::move(value));
      graph.nodes().splice(graph.nodes().begin(), graph.nodes(), std::prev(graph.nodes().end()));
      ctx.log.push_back(StrCat(name(), ": input '", in->name(), "' takes a ",
                               AippInputFormatName(p.config->input_format), " image ",
                               p.image.ToString(), "; ", node->Label(), " makes ",
                               model_in->type().shape.ToString()));
    }
    return !plans.empty();
  }

 private:
  static Result<Planned> Plan(const ir::Graph& graph, const AippConfig& c, size_t block) {
    const auto& inputs = graph.inputs();
    const size_t rank = static_cast<size_t>(c.related_input_rank);
    if (rank >= inputs.size()) {
      return Error(code::kInvalidParam, "aipp_op block ", block, ": related_input_rank ", rank,
                   " but the model has ", inputs.size(), " input(s)");
    }
    ir::Value* in = inputs[rank];
    auto fail = [&](auto&&... what) {
      return Error(code::kInvalidParam, "aipp_op block ", block, " for input '", in->name(),
                   "' (rank ", rank, "): ", what...);
    };
    const ir::DataType dtype = in->dtype();
    if (dtype != ir::DataType::kFloat32 && dtype != ir::DataType::kFloat16 &&
        dtype != ir::DataType::kUint8) {
      return fail("the input is ", ir::Name(dtype),
                  "; aipp produces float32, float16 or uint8 inputs");
    }
    if (c.csc_switch && c.input_format == AippInputFormat::kYuv400U8) {
      return fail("csc_switch is true but YUV400_U8 has one channel; set csc_switch: false");
    }
    if (pattern::IsCapturedBySubgraph(graph, in)) {
      return fail("a subgraph reads the input by name; aipp cannot stand in front of it");
    }
    const ir::Shape& s = in->shape();
    if (!s.rank_known() || s.rank() != 4 || !s[2].known() || !s[3].known()) {
      return fail("the input must be 4-D NCHW with a known H and W, got ", s.ToString());
    }
    const int64_t h = s[2].value, w = s[3].value;
    const int64_t src_w = c.src_image_size_w > 0 ? c.src_image_size_w : w;
    const int64_t src_h = c.src_image_size_h > 0 ? c.src_image_size_h : h;
    Planned p{&c, in, {}, {}};
    p.attrs["input_format"] = std::string(AippInputFormatName(c.input_format));
    p.attrs["src_image_size"] = std::vector<int64_t>{src_w, src_h};
    if (c.crop) {
      p.attrs["crop"] = std::vector<int64_t>{c.load_start_pos_w, c.load_start_pos_h,
                                             c.crop_size_w > 0 ? c.crop_size_w : w,
                                             c.crop_size_h > 0 ? c.crop_size_h : h};
    }
    if (c.padding) {
      p.attrs["padding"] = std::vector<int64_t>{c.top_padding_size, c.bottom_padding_size,
                                                c.left_padding_size, c.right_padding_size};
      p.attrs["padding_value"] = c.padding_value;
    }
    if (c.csc_switch) {
      std::vector<int64_t> m;
      for (const auto& row : c.matrix) m.insert(m.end(), row.begin(), row.end());
      p.attrs["csc_matrix"] = m;
      p.attrs["csc_input_bias"] = std::vector<int64_t>(c.input_bias.begin(), c.input_bias.end());
      p.attrs["csc_output_bias"] = std::vector<int64_t>(c.output_bias.begin(), c.output_bias.end());
    }
    p.attrs["rbuv_swap"] = int64_t{c.rbuv_swap_switch};
    p.attrs["ax_swap"] = int64_t{c.ax_swap_switch};
    p.attrs["mean_chn"] = std::vector<int64_t>(c.mean_chn.begin(), c.mean_chn.end());
    p.attrs["min_chn"] = std::vector<float>(c.min_chn.begin(), c.min_chn.end());
    p.attrs["var_reci_chn"] = std::vector<float>(c.var_reci_chn.begin(), c.var_reci_chn.end());
    p.attrs["to"] = static_cast<int64_t>(dtype);
    const bool yuv420 = c.input_format == AippInputFormat::kYuv420SpU8;
    const int64_t channels = c.input_format == AippInputFormat::kXrgb8888U8 ? 4
                             : c.input_format == AippInputFormat::kRgb888U8 ? 3
                                                                            : 1;
    p.image = ir::Shape({s[0], ir::Dim::Known(yuv420 ? src_h * 3 / 2 : src_h),
                         ir::Dim::Known(src_w), ir::Dim::Known(channels)});
    return p;
  }

  std::vector<AippConfig> configs_;
};

}  // namespace

std::unique_ptr<Pass> CreateAippInsertionPass(std::vector<AippConfig> configs) {
  return std::make_unique<AippInsertion>(std::move(configs));
}

}  // namespace kiln::compiler

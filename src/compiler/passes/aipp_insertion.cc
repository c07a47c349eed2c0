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

#include "base/aipp.h"
#include "base/str_cat.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

struct Planned {
  const AippConfig* config;
  ir::Value* input;
  ir::AttrMap attrs;
  ir::Shape image;           // the input's new shape
  int64_t params_bytes = 0;  // dynamic: the parameter input's size (0: static)
};

// The parameter input dynamic AIPP adds (ACL_DYNAMIC_AIPP_NAME in acl_mdl.h).
constexpr const char* kDynamicAippInput = "ascend_dynamic_aipp_data";

class AippInsertion : public Pass {
 public:
  explicit AippInsertion(std::vector<AippConfig> configs) : configs_(std::move(configs)) {}

  const char* name() const override { return "aipp_insertion"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    std::vector<Planned> plans;
    int dynamic = 0;
    for (size_t b = 0; b < configs_.size(); ++b) {
      const bool is_dynamic = configs_[b].aipp_mode == AippMode::kDynamic;
      if (is_dynamic && ++dynamic > 1) {
        return Error(code::kFeatureUnsupported, "aipp_op block ", b,
                     ": a second dynamic block; Kiln executes dynamic aipp on one input");
      }
      KILN_ASSIGN_OR_RETURN(
          Planned p, is_dynamic ? PlanDynamic(graph, configs_[b], b) : Plan(graph, configs_[b], b));
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
      std::vector<ir::Value*> inputs = {in};
      if (p.params_bytes > 0) {
        KILN_ASSIGN_OR_RETURN(
            ir::Value * params,
            graph.AddValue(kDynamicAippInput,
                           ir::TensorType{ir::DataType::kUint8, ir::Shape::Of({p.params_bytes})}));
        graph.inputs().push_back(params);
        inputs.push_back(params);
      }
      // Added unnamed (no ONNX node is its origin), then named after the input.
      KILN_ASSIGN_OR_RETURN(ir::Node * node,
                            graph.AddNode(p.params_bytes > 0 ? "DynamicAipp" : "Aipp", "com.kiln",
                                          "", 1, inputs, {model_in}));
      node->set_name(in->name() + "_kiln_aipp");
      for (auto& [key, value] : p.attrs) node->set_attr(key, std::move(value));
      graph.nodes().splice(graph.nodes().begin(), graph.nodes(), std::prev(graph.nodes().end()));
      ctx.log.push_back(StrCat(name(), ": input '", in->name(), "' takes ",
                               p.params_bytes > 0 ? "images set at run time"
                                                  : AippInputFormatName(p.config->input_format),
                               " ", p.image.ToString(), "; ", node->Label(), " makes ",
                               model_in->type().shape.ToString()));
    }
    return !plans.empty();
  }

 private:
  // "aipp_op block <b> for input '<name>' (rank <r>): <what>" with kInvalidParam.
  template <typename... Args>
  static Status BlockError(const AippConfig& c, size_t block, const ir::Value* in, Args&&... what) {
    return Error(code::kInvalidParam, "aipp_op block ", block, " for input '", in->name(),
                 "' (rank ", c.related_input_rank, "): ", std::forward<Args>(what)...);
  }

  // The input block `block` names, checked for what every AIPP block needs: a type AIPP produces
  // and no subgraph reading it by name.
  static Result<ir::Value*> BlockInput(const ir::Graph& graph, const AippConfig& c, size_t block) {
    const auto& inputs = graph.inputs();
    const size_t rank = static_cast<size_t>(c.related_input_rank);
    if (rank >= inputs.size()) {
      return Error(code::kInvalidParam, "aipp_op block ", block, ": related_input_rank ", rank,
                   " but the model has ", inputs.size(), " input(s)");
    }
    ir::Value* in = inputs[rank];
    const ir::DataType dtype = in->dtype();
    if (dtype != ir::DataType::kFloat32 && dtype != ir::DataType::kFloat16 &&
        dtype != ir::DataType::kUint8) {
      return BlockError(c, block, in, "the input is ", ir::Name(dtype),
                        "; aipp produces float32, float16 or uint8 inputs");
    }
    if (pattern::IsCapturedBySubgraph(graph, in)) {
      return BlockError(c, block, in,
                        "a subgraph reads the input by name; aipp cannot stand in front of it");
    }
    for (const ir::Value* out : graph.outputs()) {
      if (out == in) {
        return BlockError(c, block, in,
                          "the input is also a model output; aipp cannot stand in front of it");
      }
    }
    return in;
  }

  static Result<Planned> Plan(const ir::Graph& graph, const AippConfig& c, size_t block) {
    KILN_ASSIGN_OR_RETURN(ir::Value * in, BlockInput(graph, c, block));
    auto fail = [&](auto&&... what) { return BlockError(c, block, in, what...); };
    const ir::DataType dtype = in->dtype();
    if (c.csc_switch && c.input_format == AippInputFormat::kYuv400U8) {
      return fail("csc_switch is true but YUV400_U8 has one channel; set csc_switch: false");
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
    const aipp::Format* format = aipp::FindFormat(AippInputFormatName(c.input_format));
    if (format == nullptr) return fail("input_format is not one Kiln executes");
    p.image = ir::Shape({s[0], ir::Dim::Known(format->rows(src_h)), ir::Dim::Known(src_w),
                         ir::Dim::Known(format->image_channels)});
    return p;
  }

  // Dynamic: the input becomes the images' bytes, uint8 [max_src_image_size]; the parameters
  // come in the added input (base/aipp.h's block for N images).
  static Result<Planned> PlanDynamic(const ir::Graph& graph, const AippConfig& c, size_t block) {
    KILN_ASSIGN_OR_RETURN(ir::Value * in, BlockInput(graph, c, block));
    auto fail = [&](auto&&... what) { return BlockError(c, block, in, what...); };
    const ir::DataType dtype = in->dtype();
    if (graph.FindValue(kDynamicAippInput) != nullptr) {
      return fail("the model already has a value named '", kDynamicAippInput,
                  "', the input dynamic aipp adds; rename it in the model");
    }
    const std::vector<int64_t> dims = in->shape().Sizes();
    if (dims.size() != 4 || dims[0] < 1 || dims[0] > aipp::kMaxDynamicBatch || dims[2] < 1 ||
        dims[3] < 1) {
      return fail("dynamic aipp needs a 4-D NCHW input with a fixed batch of at most ",
                  aipp::kMaxDynamicBatch, " and a fixed H and W, got ", in->shape().ToString());
    }
    Planned p{&c, in, {}, ir::Shape::Of({c.max_src_image_size})};
    p.attrs["shape"] = dims;
    p.attrs["to"] = static_cast<int64_t>(dtype);
    p.params_bytes = static_cast<int64_t>(aipp::DynamicBlockSize(static_cast<size_t>(dims[0])));
    return p;
  }

  std::vector<AippConfig> configs_;
};

}  // namespace

std::unique_ptr<Pass> CreateAippInsertionPass(std::vector<AippConfig> configs) {
  return std::make_unique<AippInsertion>(std::move(configs));
}

}  // namespace kiln::compiler

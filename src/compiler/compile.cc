// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/compile.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <unordered_set>

#include "base/regular_file.h"
#include "compiler/aipp_config.h"
#include "compiler/memory_planner.h"
#include "compiler/om_builder.h"
#include "compiler/passes/aipp_insertion.h"
#include "compiler/passes/output_selection.h"
#include "compiler/passes/passes.h"
#include "format/om_file.h"
#include "format/target.h"
#include "ir/op_schema.h"
#include "kernels/precision.h"

namespace kiln::compiler {
namespace {

constexpr uint64_t kMaxConfigBytes = 16 << 20;  // an AIPP config is a few hundred bytes

class PhaseTimer {
 public:
  PhaseTimer(CompileReport& report, const CompileOptions& options)
      : report_(report), on_phase_(options.on_phase) {}
  // Records a phase that ran before the timer started (the front end's import).
  void Record(const char* phase, double ms) {
    report_.phases_ms.push_back({phase, ms});
    if (on_phase_) on_phase_(phase, ms);
  }
  void Done(const char* phase) {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - start_).count();
    report_.phases_ms.push_back({phase, ms});
    if (on_phase_) on_phase_(phase, ms);
    start_ = now;
  }

 private:
  CompileReport& report_;
  const std::function<void(const std::string&, double)>& on_phase_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The passes after shape binding (which runs once, before shape inference and AIPP insertion:
// --input_shape names the model's inputs as the ONNX file has them).
void AddDefaultPasses(PassManager& pm, const CompileOptions& options) {
  // Outputs are chosen and typed before the fusions, so "node:index" names ONNX nodes.
  pm.Add(CreateOutputSelectionPass(options.out_nodes));
  pm.Add(CreateIoDtypePass(options.io_dtypes));
  pm.Add(CreateQdqFusionPass());
  pm.Add(CreateConstantFoldingPass());
  pm.Add(CreateDeadCodeEliminationPass());
  pm.Add(CreateSumToAddPass());
  pm.Add(CreateConvBnFoldPass());
  pm.Add(CreateLayerNormFusionPass());
  pm.Add(CreateGeluFusionPass());
  pm.Add(CreateActivationFusionPass());
  pm.Add(CreateBiasActivationFusionPass());
  pm.Add(CreateResidualAddFusionPass());
  pm.Add(CreateBiasActivationFusionPass());  // the activation after a residual FusedConv
  pm.Add(CreatePostAffineFusionPass());
  pm.Add(CreateTransposeCancellationPass());
  // channels_last and arithmetic_chain shape the graph for the CPU's kernels (oneDNN's NHWC and
  // blocked layouts; one pass over memory for a chain of arithmetic); a CUDA target's kernels
  // take the ONNX layouts and ops (docs/cuda.md).
  if (format::TargetBackend(options.target) != "cuda") {
    pm.Add(CreateAttentionFusionPass());  // after transpose_cancellation merged Kᵀ's transposes
    pm.Add(CreateQkvPackingPass());       // on attention_fusion's Attention
    pm.Add(CreateBatchNormAffinePass());  // before channels_last, which keeps its chains NHWC
    pm.Add(CreateChannelShuffleFusionPass());  // before channels_last, which keeps it NHWC
    pm.Add(CreateChannelsLastPass());
    pm.Add(CreateArithmeticChainPass());    // after channels_last: it flags arithmetic kept NHWC
    pm.Add(CreateMatMulBf16StoragePass());  // after the fusions that make FusedMatMul
  }
  pm.Add(CreateConstantFoldingPass());
  pm.Add(CreateDeadCodeEliminationPass());
}

// Reads, parses and validates the --insert_op_conf file against the model's inputs.
Result<std::vector<AippConfig>> CheckAipp(const std::string& path, const ir::Graph& graph) {
  KILN_ASSIGN_OR_RETURN(const std::string text,
                        ReadFlagFile(path, "--insert_op_conf file", kMaxConfigBytes));
  KILN_ASSIGN_OR_RETURN(auto configs, ParseAippConfig(text, path));
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::string> names;
  for (const ir::Value* v : graph.inputs()) {
    dims.push_back(v->shape().Sizes());
    names.push_back(v->name());
  }
  KILN_RETURN_IF_ERROR(ValidateAippForModel(configs, dims, names), "");
  return configs;
}

std::string ModelName(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

}  // namespace

Result<std::map<std::string, std::vector<int64_t>>> ParseInputShape(const std::string& text) {
  std::map<std::string, std::vector<int64_t>> shapes;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    size_t colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return Error(code::kInvalidParam, "--input_shape item '", item,
                   "' is not name:dim,dim,... (e.g. input:1,3,224,224)");
    }
    std::vector<int64_t> dims;
    std::string list = item.substr(colon + 1);
    size_t p = 0;
    while (p <= list.size() && !list.empty()) {
      size_t comma = list.find(',', p);
      if (comma == std::string::npos) comma = list.size();
      std::string d = list.substr(p, comma - p);
      char* stop = nullptr;
      long long v = std::strtoll(d.c_str(), &stop, 10);
      if (d.empty() || (*stop != '\0' && *stop != '~') || v < -1) {
        return Error(code::kInvalidParam, "--input_shape item '", item, "': '", d,
                     "' is not a dim (a size, -1, or a range such as 1~8)");
      }
      if (*stop == '~') {
        char* stop2 = nullptr;
        long long hi = std::strtoll(stop + 1, &stop2, 10);
        if (*stop2 != '\0' || hi < v || v < 1) {
          return Error(code::kInvalidParam, "--input_shape item '", item, "': range '", d,
                       "' must be low~high with 1 <= low <= high");
        }
        v = -1;  // a range is a dynamic dim; its bounds are recorded with the options
      }
      dims.push_back(v);
      p = comma + 1;
      if (comma == list.size()) break;
    }
    shapes[item.substr(0, colon)] = dims;
  }
  return shapes;
}

bool IsTarget(const std::string& name) { return format::IsTarget(name); }

std::string HostTarget() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "cpu-avx512";
  if (__builtin_cpu_supports("avx2")) return "cpu-avx2";
  return "cpu";
}

namespace {

// Checks the nodes of `graph` (bodies first), adding every problem to `problems`. Readers of a
// value downstream of a problem are reported only when their own op is unsupported.
void CheckNodes(const ir::OpRegistry& registry, ir::Graph& graph,
                std::vector<const ir::Graph*>& outer, std::vector<NodeProblem>& problems) {
  if (!outer.empty()) ir::TypeCaptures(graph, outer);
  outer.push_back(&graph);
  std::unordered_set<const ir::Value*> blocked;
  for (auto& node : graph.nodes()) {
    for (auto& [name, attr] : node->attrs()) {
      if (auto* body = std::get_if<std::shared_ptr<ir::Graph>>(&attr); body && *body) {
        CheckNodes(registry, **body, outer, problems);
      }
    }
    bool upstream_failed = std::any_of(node->inputs().begin(), node->inputs().end(),
                                       [&](const ir::Value* v) { return blocked.count(v) != 0; });
    Status st;
    if (!upstream_failed) {
      st = ir::InferNode(registry, *node);
    } else if (const ir::OpSchema* schema = registry.Find(node->domain(), node->op_type());
               schema == nullptr || node->opset() < schema->since_version) {
      st = ir::InferNode(registry, *node);  // an unsupported op whatever its inputs are
    }
    if (!st.ok()) {
      problems.push_back({node->name(), node->op_type(), node->opset(), st.code(), st.message()});
    }
    if (upstream_failed || !st.ok()) blocked.insert(node->outputs().begin(), node->outputs().end());
  }
  outer.pop_back();
}

}  // namespace

std::vector<NodeProblem> PreCheckGraph(ir::Graph& graph) {
  std::vector<NodeProblem> problems;
  std::vector<const ir::Graph*> outer;
  CheckNodes(ir::OpRegistry::Global(), graph, outer, problems);
  return problems;
}

// The options stored in the .om: as given, plus the matrix precision a --precision_mode (or
// --precision_mode_v2) asks for on `target` when it is not fp32 (kernels/precision.h: the fp16
// modes give fp16 on a CUDA target only), which the runtime reads; an unknown mode is an error.
Result<std::vector<std::pair<std::string, std::string>>> RecordedOptions(
    const std::vector<std::pair<std::string, std::string>>& given, const std::string& target) {
  auto record = given;
  const bool fp16_device = format::TargetBackend(target) == "cuda";
  for (const auto& [key, value] : given) {
    if (key != "precision_mode") continue;
    KILN_ASSIGN_OR_RETURN(kernels::MatrixPrecision p,
                          kernels::MatrixPrecisionForAtcMode(value, fp16_device));
    if (p != kernels::MatrixPrecision::kFp32) {
      record.emplace_back(kernels::kMatrixPrecisionOption, kernels::Name(p));
    }
  }
  return record;
}

Result<std::vector<uint8_t>> CompileGraphToOm(SourceModel model, const CompileOptions& options,
                                              CompileReport& report) {
  PhaseTimer timer(report, options);
  if (model.graph == nullptr) return Error(code::kInvalidParam, "CompileGraph: no graph");
  KILN_ASSIGN_OR_RETURN(auto record, RecordedOptions(options.record, options.target));
  timer.Record("import", model.import_ms);
  ir::Graph& graph = *model.graph;
  report.onnx_nodes = graph.nodes().size();
  const auto& registry = ir::OpRegistry::Global();
  PassContext ctx;
  ctx.registry = &registry;
  ctx.disabled = options.disabled_passes;
  for (const auto& [key, value] : record) {
    if (key == kernels::kMatrixPrecisionOption) {
      ctx.matrix_bf16 = kernels::ParseMatrixPrecision(value) == kernels::MatrixPrecision::kBf16;
    }
  }
  PassManager pm;
  AddDefaultPasses(pm, options);
  // Bind shapes before inference so --input_shape decides every inferred dim; once, since an
  // AIPP input is no longer the shape --input_shape gives.
  KILN_ASSIGN_OR_RETURN(bool bound, CreateShapeBindingPass(options.input_shapes)->Run(graph, ctx));
  (void)bound;
  KILN_RETURN_IF_ERROR(graph.TopologicalSort(), "");
  KILN_RETURN_IF_ERROR(ir::InferGraph(registry, graph), "");
  timer.Done("shape inference");
  std::vector<std::pair<std::string, std::string>> aipp;
  std::set<std::string> nhwc_inputs;  // the static AIPP inputs: raw NHWC images
  if (!options.aipp_config.empty()) {
    KILN_ASSIGN_OR_RETURN(std::vector<AippConfig> configs, CheckAipp(options.aipp_config, graph));
    aipp = AippToKeyValues(configs);
    for (const AippConfig& c : configs) {
      const size_t rank = static_cast<size_t>(c.related_input_rank);
      if (c.aipp_mode == AippMode::kStatic && rank < graph.inputs().size()) {
        nhwc_inputs.insert(graph.inputs()[rank]->name());
      }
    }
    // Static AIPP runs as the graph's first node: the passes see (and fuse behind) it.
    KILN_ASSIGN_OR_RETURN(bool inserted,
                          CreateAippInsertionPass(std::move(configs))->Run(graph, ctx));
    if (inserted) KILN_RETURN_IF_ERROR(ir::InferGraph(registry, graph), "");
  }
  KILN_RETURN_IF_ERROR(pm.Run(graph, ctx), "");
  report.pass_log = ctx.log;
  report.compiled_nodes = graph.nodes().size();
  timer.Done("optimisation");
  OmBuildInfo info;
  MemoryPlan plan;
  if (options.gears.enabled()) {
    // The passes ran once, on the graph with the -1 dims kept; each gear re-binds the inputs
    // and re-infers that same graph, so every gear's tensors are the .om's tensors.
    if (graph.FindValue(kGearInputName) != nullptr) {
      return Error(code::kInvalidParam, "the model has a value named '", kGearInputName,
                   "', the name of the gear input ", GearFlagName(options.gears.kind),
                   " adds; rename it in the model");
    }
    KILN_ASSIGN_OR_RETURN(GearPlans gears, PlanGears(graph, options.gears, registry));
    plan = std::move(gears.shared);
    info.gear_kind = options.gears.kind;
    info.gear_dims = options.gears.SlotNames();
    info.max_bytes = std::move(gears.max_bytes);
    report.gear_kind = options.gears.kind;
    for (const GearResult& g : gears.gears) {
      report.gears.push_back({g.values, g.work_size, g.naive_size});
    }
    info.gears = std::move(gears.gears);
  } else {
    KILN_ASSIGN_OR_RETURN(plan, PlanMemory(graph));
  }
  report.work_size = plan.work_size;
  report.weight_size = plan.weight_size;
  report.naive_size = plan.naive_size;
  timer.Done("memory planning");
  info.model_name = ModelName(options.model);
  info.target = options.target.empty() ? HostTarget() : options.target;
  info.source = options.model + (model.producer.empty() ? "" : " (" + model.producer + ")");
  info.options = std::move(record);
  info.aipp = std::move(aipp);
  info.nhwc_inputs = std::move(nhwc_inputs);
  KILN_ASSIGN_OR_RETURN(auto bytes, BuildOm(graph, plan, info));
  // Read the result back as the runtime will: a writer bug must not reach a user's disk.
  KILN_ASSIGN_OR_RETURN(
      format::OmView view,
      format::VerifyOm(bytes.data(), bytes.size(), format::kFormatMajor, format::kFormatMinor));
  report.weight_size = view.weights_size;  // includes the weights of If/Loop bodies
  timer.Done("serialise");
  return bytes;
}

Result<CompileReport> CompileGraph(SourceModel model, const CompileOptions& options) {
  CompileReport report;
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                        CompileGraphToOm(std::move(model), options, report));
  PhaseTimer timer(report, options);
  report.output_path = options.output;
  if (report.output_path.size() < 3 ||
      report.output_path.compare(report.output_path.size() - 3, 3, ".om") != 0) {
    report.output_path += ".om";
  }
  KILN_RETURN_IF_ERROR(format::WriteFile(report.output_path, bytes), "");
  timer.Done("write");
  return report;
}

Result<std::string> ReadFlagFile(const std::string& path, const std::string& what,
                                 uint64_t max_bytes) {
  KILN_ASSIGN_OR_RETURN(RegularFile file,
                        RegularFile::Open(path, what, code::kInvalidFile, max_bytes));
  return file.ReadText();
}

Result<std::vector<std::string>> ReadFusionSwitchFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(const std::string text,
                        ReadFlagFile(path, "--fusion_switch_file", kMaxConfigBytes));
  std::vector<std::string> off;
  auto trim = [](std::string t) {
    t.erase(0, t.find_first_not_of(" \t\r"));
    t.erase(t.find_last_not_of(" \t\r") + 1);
    return t;
  };
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(colon + 1)) == "off") off.push_back(trim(line.substr(0, colon)));
  }
  return off;
}

}  // namespace kiln::compiler

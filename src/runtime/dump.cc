// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/dump.h"

#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>

#include "base/log.h"
#include "kernels/util.h"
#include "runtime/json_text.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;
using kernels::DataType;
using kernels::Dims;
using kernels::TensorView;

// numpy's descr for a Kiln type ("" when numpy has none: strings, undefined).
const char* Descr(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat64:
      return "<f8";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kBFloat16:
      return "<u2";
    case DataType::kUint8:
      return "|u1";
    case DataType::kInt8:
      return "|i1";
    case DataType::kUint16:
      return "<u2";
    case DataType::kInt16:
      return "<i2";
    case DataType::kUint32:
      return "<u4";
    case DataType::kInt32:
      return "<i4";
    case DataType::kUint64:
      return "<u8";
    case DataType::kInt64:
      return "<i8";
    case DataType::kBool:
      return "|b1";
    default:
      return "";
  }
}

// dump_data "stats": count, NaN and Inf counts, and min/max/mean/std over the finite values.
std::string Stats(const TensorView& v) {
  const int64_t n = v.num_elements();
  int64_t nan = 0, inf = 0, finite = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0, sq = 0;
  kernels::DispatchAny(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(v.data);
    auto at = [&](int64_t i) { return static_cast<double>(kernels::Load(p, i)); };
    for (int64_t i = 0; i < n; ++i) {
      const double x = at(i);
      if (std::isnan(x)) {
        ++nan;
      } else if (std::isinf(x)) {
        ++inf;
      } else {
        ++finite;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        sum += x;
      }
    }
    const double mean = finite ? sum / static_cast<double>(finite) : 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double x = at(i);
      if (std::isfinite(x)) sq += (x - mean) * (x - mean);
    }
  });
  JsonText s;
  s.Open('{').Key("count").Value(n).Key("nan").Value(nan).Key("inf").Value(inf);
  const double values[] = {lo, hi, finite > 0 ? sum / static_cast<double>(finite) : 0.0,
                           finite > 0 ? std::sqrt(sq / static_cast<double>(finite)) : 0.0};
  const char* names[] = {"min", "max", "mean", "std"};
  for (int k = 0; k < 4; ++k) {
    s.Key(names[k]);
    if (finite > 0) {
      s.Value(values[k]);
    } else {
      s.Null();
    }
  }
  return s.Close('}').str();
}

// The tensor's bytes in N,C,H,W order and its own dtype: a copy transposed from N,H,W,C storage
// when `nhwc` (N, C/b, H, W, b with a channel `block` b), each element widened from bfloat16
// storage when `bf16` too (a float32 tensor stored so: channels_last's NHWC ones, or
// matmul_bf16_storage's plain ones).
std::string LogicalBytes(const TensorView& v, bool nhwc, bool bf16, int64_t block = 0) {
  const size_t bytes = v.bytes();
  std::string out(bytes, '\0');
  if (bytes == 0) return out;
  const auto* src = static_cast<const char*>(v.data);
  if (!nhwc || v.dims.size() != 4) {
    if (!bf16) {
      std::memcpy(out.data(), src, bytes);
      return out;
    }
    for (size_t i = 0; i < bytes / sizeof(float); ++i) {  // a float32 tensor stored bf16
      uint16_t stored;
      std::memcpy(&stored, src + i * 2, 2);
      const float value = kernels::BFloat16ToFloat(stored);
      std::memcpy(out.data() + i * sizeof(float), &value, sizeof value);
    }
    return out;
  }
  const int64_t N = v.dims[0], C = v.dims[1], H = v.dims[2], W = v.dims[3];
  const int64_t b = block > 0 && C % block == 0 ? block : C;  // one channel: stored as NCHW
  const size_t e = ir::SizeOf(v.dtype);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w)
        for (int64_t c = 0; c < C; ++c) {
          const int64_t from = (n * C + c - c % b) * H * W + (h * W + w) * b + c % b;
          char* to = out.data() + (((n * C + c) * H + h) * W + w) * e;
          if (bf16) {
            uint16_t stored;
            std::memcpy(&stored, src + from * 2, 2);
            const float value = kernels::BFloat16ToFloat(stored);
            std::memcpy(to, &value, sizeof value);
          } else {
            std::memcpy(to, src + from * e, e);
          }
        }
  return out;
}

// A node name as a file name: path separators and other odd characters become '_'.
std::string FileSafe(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(0, "_");
  return out;
}

std::string TimeFolder() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return buf;
}

}  // namespace

std::string NpyHeader(DataType dtype, const Dims& dims) {
  std::string shape = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    shape += std::to_string(dims[i]) + (dims.size() == 1 ? "," : i + 1 < dims.size() ? ", " : "");
  }
  shape += ")";
  std::string dict = std::string("{'descr': '") + Descr(dtype) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>((dict.size() >> 8) & 0xff);
  return header + dict;
}

const DumpModel* DumpSession::Find(const std::string& model_name) const {
  for (const DumpModel& m : options.models) {
    if (m.model_name == model_name) return &m;
  }
  return nullptr;
}

uint64_t DumpSession::NextExecution(uint32_t model_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return executions_[model_id]++;
}

Dumper& Dumper::Get() {
  static auto* dumper = new Dumper();
  return *dumper;
}

Status Dumper::Install(const DumpOptions& options) {
  // A fresh time-stamped folder: a second session in the same second gets "_1", "_2", ...
  const std::string base = (fs::path(options.path) / TimeFolder()).string();
  std::string root = base;
  std::error_code ec;
  fs::create_directories(options.path, ec);
  // create_directory is false when the folder exists: two processes never share one.
  for (int k = 1; !ec && !fs::create_directory(root, ec); ++k) {
    root = base + "_" + std::to_string(k);
  }
  if (ec) {
    return Error(code::kWriteFile, "dump: cannot create '", root, "': ", ec.message());
  }
  session_ = std::make_shared<const DumpSession>(options, root);
  on_.store(true, std::memory_order_release);
  KILN_LOG(kAscendCl, kInfo, "data dump on, writing under '", root, "'");
  return Status::Ok();
}

Status Dumper::StartFromConfig(const DumpOptions& options) {
  std::lock_guard<std::mutex> lock(mu_);
  KILN_RETURN_IF_ERROR(Install(options), "");
  from_config_ = true;
  return Status::Ok();
}

void Dumper::StopAutomatic() {
  std::lock_guard<std::mutex> lock(mu_);
  on_.store(false, std::memory_order_release);
  session_.reset();
  from_config_ = false;
  api_initialized_ = false;
}

bool Dumper::from_config() const {
  std::lock_guard<std::mutex> lock(mu_);
  return from_config_;
}

Status Dumper::Init() {
  std::lock_guard<std::mutex> lock(mu_);
  if (from_config_) {
    return Error(code::kDumpAlreadyRun,
                 "the dump was already configured by acl.json's \"dump\" block at aclInit");
  }
  if (api_initialized_) {
    return Error(code::kRepeatInitialize,
                 "aclmdlInitDump was already called (call aclmdlFinalizeDump first)");
  }
  api_initialized_ = true;
  return Status::Ok();
}

Status Dumper::CanSetLocked() const {
  if (from_config_) {
    return Error(code::kDumpAlreadyRun,
                 "the dump was already configured by acl.json's \"dump\" block at aclInit");
  }
  if (!api_initialized_) return Error(code::kDumpNotRun, "aclmdlInitDump was not called");
  return Status::Ok();
}

Status Dumper::CanSet() const {
  std::lock_guard<std::mutex> lock(mu_);
  return CanSetLocked();
}

Status Dumper::Set(const DumpOptions& options) {
  std::lock_guard<std::mutex> lock(mu_);
  KILN_RETURN_IF_ERROR(CanSetLocked(), "");
  return Install(options);
}

Status Dumper::Finalize() {
  std::lock_guard<std::mutex> lock(mu_);
  if (from_config_) {
    return Error(code::kDumpAlreadyRun,
                 "the dump was configured by acl.json's \"dump\" block; it ends at aclFinalize");
  }
  if (!api_initialized_) return Error(code::kDumpNotRun, "aclmdlInitDump was not called");
  api_initialized_ = false;
  on_.store(false, std::memory_order_release);
  session_.reset();  // executions in flight keep theirs and finish their files
  return Status::Ok();
}

std::shared_ptr<const DumpSession> Dumper::SessionFor(const std::string& model_name,
                                                      const std::string& file_stem,
                                                      std::string* matched) const {
  if (!on_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (!session_) return nullptr;
  for (const std::string* name : {&model_name, &file_stem}) {
    if (!name->empty() && session_->Find(*name) != nullptr) {
      *matched = *name;
      return session_;
    }
  }
  return nullptr;
}

DumpObserver::DumpObserver(std::shared_ptr<const DumpSession> session,
                           const GraphProgram* main_graph, std::string model_name,
                           uint32_t model_id, uint32_t device, uint64_t execution,
                           hal::Execution* exec)
    : session_(std::move(session)),
      exec_(exec),
      main_graph_(main_graph),
      model_name_(std::move(model_name)),
      model_id_(model_id),
      execution_(execution) {
  selection_ = session_->Find(model_name_);
  dir_ = (fs::path(session_->root) / std::to_string(device) / FileSafe(model_name_) /
          std::to_string(model_id_) / std::to_string(execution_))
             .string();
}

bool DumpObserver::Selected(const NodeInfo& node) const {
  if (selection_ == nullptr) return false;
  if (selection_->all_layers) return true;
  for (const std::string& layer : selection_->layers) {
    if (layer == node.name) return true;
    for (const std::string& o : node.origins) {
      if (layer == o) return true;
    }
  }
  return false;
}

std::string DumpObserver::Stem(const GraphProgram& graph, const NodeInfo& node) {
  std::string base = FileSafe(node.name.empty() ? node.op_type : node.name);
  if (&graph != main_graph_) base = FileSafe(graph.name) + "." + base;
  // A body run again (Loop, Scan) gets ".1", ".2", ...; never a stem given out already (a node
  // may itself be named "a.1").
  std::string stem = base;
  for (int& seen = runs_[base]; issued_.count(stem) > 0;)
    stem = base + "." + std::to_string(++seen);
  issued_.insert(stem);
  return stem;
}

void DumpObserver::Write(const GraphProgram& graph, const NodeInfo& node, const char* kind,
                         const std::vector<const TensorView*>& tensors,
                         const std::vector<int32_t>& ids, const std::string& stem,
                         std::string* json) {
  if (!dir_made_) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec && error_.ok()) {
      error_ = Error(code::kWriteFile, "dump: cannot create '", dir_, "': ", ec.message());
    }
    dir_made_ = true;
  }
  const bool inputs = std::strcmp(kind, "input") == 0;
  const uint32_t nhwc = inputs ? node.nhwc_inputs : node.nhwc_outputs;
  const uint32_t bf16 = inputs ? node.bf16_inputs : node.bf16_outputs;
  JsonText list;
  list.Open('[');
  for (size_t i = 0; i < tensors.size(); ++i) {
    list.Open('{').Key("index").Value(static_cast<uint64_t>(i));
    const int32_t t = i < ids.size() ? ids[i] : -1;
    const TensorView* v = tensors[i];
    if (t < 0 || v == nullptr) {
      list.Key("tensor").Null();
      list.Key("absent").Value(
          std::string(inputs ? "optional input not given" : "optional output not used"));
      list.Close('}');
      continue;
    }
    // Device memory the host cannot address is read through the run's execution first.
    std::string staged;
    TensorView on_host;
    if (exec_ != nullptr && !exec_->host_addressable() && v->bytes() != 0) {
      staged.resize(v->bytes());
      exec_->Copy(staged.data(), v->data, staged.size());
      on_host = *v;
      on_host.data = staged.data();
      v = &on_host;
    }
    const TensorInfo& info = graph.tensors[t];
    list.Key("tensor").Value(info.name);
    list.Key("dtype").Value(std::string(ir::Name(v->dtype)));
    list.Key("shape").Dims(v->dims);
    if (info.place == TensorPlace::kWeight) list.Key("constant").Value(true);
    // A bf16-stored tensor is read through its float32 copy in logical order (NHWC ones:
    // channels_last; plain ones: matmul_bf16_storage).
    const bool stored_bf16 = i < 32 && ((bf16 >> i) & 1u) && v->dtype == DataType::kFloat32;
    std::string logical;
    TensorView widened;
    if (stored_bf16) {
      logical = LogicalBytes(*v, ((nhwc >> i) & 1u) != 0, true);
      widened = *v;
      widened.data = logical.data();
    }
    if (session_->options.stats) {
      list.Key("stats").Raw(Stats(stored_bf16 ? widened : *v));
    } else if (*Descr(v->dtype) == '\0') {
      list.Key("absent").Value(std::string("no .npy form for ") + ir::Name(v->dtype));
    } else {
      const std::string file = stem + "." + kind + "." + std::to_string(i) + ".npy";
      std::ofstream out(fs::path(dir_) / file, std::ios::binary);
      const std::string header = NpyHeader(v->dtype, v->dims);
      const std::string data = stored_bf16
                                   ? logical
                                   : LogicalBytes(*v, i < 32 && ((nhwc >> i) & 1u), false,
                                                  node.all_block != 0 ? node.all_block
                                                  : i != 0 ? (inputs && i == 3 ? node.z_block : 0)
                                                  : inputs ? node.x_block
                                                           : node.y_block);
      out.write(header.data(), static_cast<std::streamsize>(header.size()));
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      out.close();
      if (!out && error_.ok()) {
        error_ =
            Error(code::kWriteFile, "dump: cannot write '", (fs::path(dir_) / file).string(), "'");
      }
      list.Key("file").Value(file);
    }
    list.Close('}');
  }
  *json = list.Close(']').str();
}

// An observer never throws into the executor: what went wrong is the dump's error, logged at
// Finish, and the execution stands.
void DumpObserver::Threw(const std::exception& e) {
  if (error_.ok()) error_ = Error(code::kWriteFile, "dump of model ", model_id_, ": ", e.what());
}

void DumpObserver::BeforeNode(const GraphProgram& graph, const NodeInfo& node,
                              const std::vector<const TensorView*>& inputs) {
  try {
    if (!Selected(node)) return;
    std::string stem = Stem(graph, node);
    std::string json = "[]";
    // Before the kernel runs: an in-place kernel may overwrite an input.
    if (session_->options.inputs) {
      if (node.released_constants) node.kernel->RestoreConstants();  // its weights, written back
      Write(graph, node, "input", inputs, node.inputs, stem, &json);
    }
    pending_.emplace_back(std::move(stem), std::move(json));  // both or neither
  } catch (const std::exception& e) {
    Threw(e);
  }
}

void DumpObserver::AfterNode(const GraphProgram& graph, const NodeInfo& node,
                             const std::vector<const TensorView*>& inputs,
                             const std::vector<const TensorView*>& outputs) {
  try {
    (void)inputs;
    if (!Selected(node) || pending_.empty()) return;
    auto [stem, inputs_json] = std::move(pending_.back());
    pending_.pop_back();
    std::string outputs_json = "[]";
    if (session_->options.outputs) {
      Write(graph, node, "output", outputs, node.outputs, stem, &outputs_json);
    }
    JsonText e;
    e.Open('{').Key("node").Value(node.name).Key("op_type").Value(node.op_type);
    e.Key("onnx_nodes").Strings(node.origins).Key("graph").Value(graph.name);
    e.Key("file_stem").Value(stem);
    if (node.origins.size() > 1) {
      e.Key("fused").Value(std::string(
          "one compiled node from several ONNX nodes: only the group's outputs exist as tensors"));
    }
    e.Key("inputs").Raw(inputs_json).Key("outputs").Raw(outputs_json).Close('}');
    nodes_json_.push_back(e.str());
  } catch (const std::exception& e) {
    Threw(e);
  }
}

Status DumpObserver::Finish() {
  try {
    const char* mode = session_->options.inputs && session_->options.outputs ? "all"
                       : session_->options.inputs                            ? "input"
                                                                             : "output";
    JsonText index;
    index.Open('{');
    index.Line().Key("model_name").Value(model_name_).Key("model_id").Value(model_id_);
    index.Key("graph").Value(main_graph_->name);  // the main graph; body nodes name their own
    index.Key("execution").Value(execution_);
    index.Line().Key("dump_mode").Value(std::string(mode));
    index.Key("dump_data").Value(std::string(session_->options.stats ? "stats" : "tensor"));
    index.Line().Key("layout").Value(
        std::string("each tensor in its dims order (channels-last storage transposed back)"));
    if (nodes_json_.empty() && !dir_made_) {
      // Nothing selected ran: say so in the index rather than leave no trace.
      index.Line().Key("note").Value(
          std::string("no node of this model matched the dump_list layers"));
      std::error_code ec;
      fs::create_directories(dir_, ec);
    }
    index.Line().Key("nodes").Open('[');
    for (const std::string& n : nodes_json_) index.Line().Raw(n);
    index.Line().Close(']').Line().Close('}');
    std::ofstream out(fs::path(dir_) / "index.json", std::ios::binary);
    out << index.str() << "\n";
    out.close();
    if (!out && error_.ok()) {
      error_ = Error(code::kWriteFile, "dump: cannot write '", dir_, "/index.json'");
    }
  } catch (const std::exception& e) {
    Threw(e);
  }
  if (!error_.ok()) KILN_LOG(kAscendCl, kError, error_.message());
  return error_;
}

}  // namespace kiln::runtime

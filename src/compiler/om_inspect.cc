// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/om_inspect.h"

#include <vector>

#include "base/regular_file.h"
#include "format/om_file.h"
#include "format/om_generated.h"
#include "format/om_json.h"
#include "format/sniff.h"

namespace kiln::compiler {
namespace {

Result<format::OmView> OpenOm(const std::string& path, std::vector<uint8_t>& storage) {
  KILN_ASSIGN_OR_RETURN(RegularFile file, RegularFile::Open(path, ".om file", code::kInvalidFile));
  KILN_ASSIGN_OR_RETURN(storage, file.ReadBytes());
  auto kind = format::Sniff(storage.data(), storage.size());
  if (kind != format::FileKind::kKilnOm) {
    return Error(code::kGeModelDataSizeInvalid, "'", path, "' is a ", format::KindName(kind),
                 " file, not a Kiln .om: ", format::AdviceFor(kind));
  }
  auto view =
      format::VerifyOm(storage.data(), storage.size(), format::kFormatMajor, format::kFormatMinor);
  if (!view.ok()) {
    Status st = view.status();
    return std::move(st).Annotate("'" + path + "'");
  }
  return view;
}

std::string Dims(const flatbuffers::Vector<int64_t>* dims) {
  std::string s = "[";
  if (dims) {
    for (uint32_t i = 0; i < dims->size(); ++i) {
      if (i) s += ",";
      s += std::to_string(dims->Get(i));
    }
  }
  return s + "]";
}

std::string TensorLine(const char* role, const om::TensorDesc& t) {
  return StrCat(role, " ", t.name() ? t.name()->str() : "", ": dtype ", t.dtype(), ", dims ",
                Dims(t.dims()), "\n");
}

}  // namespace

Result<std::string> OmFileToJson(const std::string& path) {
  std::vector<uint8_t> storage;
  KILN_ASSIGN_OR_RETURN(format::OmView view, OpenOm(path, storage));
  return format::OmToJson(view);
}

Result<std::string> DescribeOmFile(const std::string& path) {
  std::vector<uint8_t> storage;
  KILN_ASSIGN_OR_RETURN(format::OmView view, OpenOm(path, storage));
  const auto& h = *view.header;
  const om::Model* m = om::GetModel(view.graph);
  std::string s = "============ Basic Information ============\n";
  s += StrCat("om format version: ", h.format_major, ".", h.format_minor, "\n");
  s += StrCat("compiler version: ", h.compiler_version, "\n");
  s += StrCat("min runtime version: ", h.min_runtime_major, ".", h.min_runtime_minor, "\n");
  s += StrCat("target: ", h.target, "\n");
  s += StrCat("model name: ", m->name() ? m->name()->str() : "", "\n");
  s += StrCat("source: ", m->source() ? m->source()->str() : "", "\n");
  s += StrCat("file size: ", h.file_size, "\n");
  s += "============ Resource Information ============\n";
  s += StrCat("memory_size (work): ", m->work_size(), "\n");
  s += StrCat("weight_size: ", m->weight_size(), "\n");
  if (m->gears() && m->gears()->size()) {
    s += StrCat("dynamic gears (", om::EnumNameGearKind(m->gear_kind()), "):");
    if (m->gear_dims()) {
      for (auto d : *m->gear_dims()) s += " " + d->str();
    }
    s += "\n";
    for (auto gear : *m->gears()) {
      std::string values;
      for (auto v : *gear->values()) values += (values.empty() ? "" : ",") + std::to_string(v);
      s += StrCat("  gear ", values, ": work size ", gear->work_size(), "\n");
    }
  }
  const om::Graph* g = m->graphs()->Get(0);
  s += StrCat("node count: ", g->nodes() ? g->nodes()->size() : 0, "\n");
  s += "============ Input / Output ============\n";
  // VerifyOm checked every index against the tensor list.
  if (g->inputs()) {
    for (auto idx : *g->inputs()) {
      s += TensorLine("input ", *g->tensors()->Get(static_cast<uint32_t>(idx)));
    }
  }
  if (g->outputs()) {
    for (auto idx : *g->outputs()) {
      s += TensorLine("output", *g->tensors()->Get(static_cast<uint32_t>(idx)));
    }
  }
  if (m->options() && m->options()->size()) {
    s += "============ Compile Options ============\n";
    for (auto kv : *m->options()) {
      s += StrCat(kv->key() ? kv->key()->str() : "", ": ", kv->value() ? kv->value()->str() : "",
                  "\n");
    }
  }
  return s;
}

}  // namespace kiln::compiler

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "format/om_file.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "format/om_generated.h"

namespace kiln::format {
namespace {

size_t AlignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

void CopyString(char* dst, size_t cap, const std::string& s) {
  std::memset(dst, 0, cap);
  std::memcpy(dst, s.data(), std::min(s.size(), cap - 1));
}

// Whether the elements of a vector of 8-byte values lie on 8-byte boundaries of the section
// (at `base`, itself 8-byte aligned). FlatBuffers 2.0's verifier checks only the 4-byte length
// before them; a crafted file can shift them, and reading them then is undefined behaviour.
bool Aligned8(const flatbuffers::Vector<int64_t>* v, const uint8_t* base) {
  return v == nullptr || v->size() == 0 ||
         (reinterpret_cast<const uint8_t*>(v->data()) - base) % 8 == 0;
}

// Indices and placements inside the graph section must be in range: the FlatBuffers verifier
// checks structure only, and a file's checksums can be recomputed by whoever crafted it.
Status CheckModel(const om::Model& m, uint64_t weights_size, const uint8_t* base) {
  const int bad = code::kGeModelDataSizeInvalid;
  const Status misaligned = Error(bad, "a vector of 64-bit values is misaligned");
  const auto* graphs = m.graphs();
  if (graphs == nullptr || graphs->size() == 0) return Error(bad, "the model has no graph");
  const int64_t n_graphs = graphs->size();
  for (uint32_t g = 0; g < graphs->size(); ++g) {
    const om::Graph* graph = graphs->Get(g);
    const int64_t n = graph->tensors() ? graph->tensors()->size() : 0;
    auto in_range = [&](int64_t i, bool optional) {
      return (optional && i == -1) || (i >= 0 && i < n);
    };
    auto check_list = [&](const flatbuffers::Vector<int32_t>* v, bool optional,
                          const char* what) -> Status {
      if (v == nullptr) return Status::Ok();
      for (int32_t i : *v) {
        if (!in_range(i, optional)) {
          return Error(bad, "graph ", g, ": ", what, " names tensor ", i, " of ", n);
        }
      }
      return Status::Ok();
    };
    KILN_RETURN_IF_ERROR(check_list(graph->inputs(), false, "an input"), "");
    KILN_RETURN_IF_ERROR(check_list(graph->outputs(), false, "an output"), "");
    if (graph->nodes()) {
      for (const om::Node* node : *graph->nodes()) {
        KILN_RETURN_IF_ERROR(check_list(node->inputs(), true, "a node input"), "");
        KILN_RETURN_IF_ERROR(check_list(node->outputs(), true, "a node output"), "");
        if (!node->attrs()) continue;
        for (const om::Attr* a : *node->attrs()) {
          if (!Aligned8(a->ints(), base)) return misaligned;
          if (!in_range(a->tensor(), true) || a->graph() < -1 || a->graph() >= n_graphs) {
            return Error(bad, "graph ", g, ": an attribute names a tensor or graph out of range");
          }
        }
      }
    }
    if (graph->tensors()) {
      for (const om::TensorDesc* t : *graph->tensors()) {
        if (!Aligned8(t->dims(), base)) return misaligned;
        if (!in_range(t->alias_of(), true)) {
          return Error(bad, "graph ", g, ": in-place alias ", t->alias_of(), " out of range");
        }
        uint64_t end;
        bool overflow = __builtin_add_overflow(t->offset(), t->bytes(), &end);
        // Kernels read tensors in place as arrays of their element type: every planned offset
        // is 64-byte aligned (the compiler's plan), and one that is not is refused.
        if ((t->kind() == om::TensorKind::Constant ||
             (t->kind() == om::TensorKind::Activation && t->offset() != UINT64_MAX)) &&
            t->offset() % kWeightsAlignment != 0) {
          return Error(bad, "graph ", g, ": tensor at offset ", t->offset(),
                       " is not 64-byte aligned");
        }
        if (t->kind() == om::TensorKind::Constant && (overflow || end > weights_size)) {
          return Error(bad, "constant tensor at weights offset ", t->offset(), " (", t->bytes(),
                       " bytes) lies outside the ", weights_size, "-byte weights section");
        }
        if (g == 0 && t->kind() == om::TensorKind::Activation && t->offset() != UINT64_MAX &&
            t->alias_of() < 0 && (overflow || end > m.work_size())) {
          return Error(bad, "activation at workspace offset ", t->offset(), " (", t->bytes(),
                       " bytes) lies outside the ", m.work_size(), "-byte workspace");
        }
      }
    }
  }
  if (m.gears()) {
    const int64_t n_main = graphs->Get(0)->tensors() ? graphs->Get(0)->tensors()->size() : 0;
    for (const om::GearPlan* gear : *m.gears()) {
      if (gear->values() == nullptr) return Error(bad, "a gear has no values");
      if (!Aligned8(gear->values(), base)) return misaligned;
      if (!gear->tensor_dims()) continue;
      for (const om::TensorDims* td : *gear->tensor_dims()) {
        if (!Aligned8(td->dims(), base)) return misaligned;
        if (td->tensor() < 0 || td->tensor() >= n_main) {
          return Error(bad, "a gear names tensor ", td->tensor(), " of ", n_main);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

uint32_t Crc32(const uint8_t* data, size_t size) { return libdeflate_crc32(0, data, size); }

uint32_t Crc32Combine(uint32_t first, uint32_t second, uint64_t second_size) {
  return static_cast<uint32_t>(crc32_combine64(first, second, static_cast<z_off64_t>(second_size)));
}

uint32_t HeaderChecksum(const OmHeader& h) {
  OmHeader copy = h;
  copy.header_crc32 = 0;
  return Crc32(reinterpret_cast<const uint8_t*>(&copy), sizeof copy);
}

std::vector<uint8_t> SerializeOm(const OmWriteInfo& info, const uint8_t* graph, size_t graph_size,
                                 const uint8_t* weights, size_t weights_size) {
  size_t graph_offset = kHeaderSize;
  size_t weights_offset = AlignUp(graph_offset + graph_size, kWeightsAlignment);
  size_t total = weights_offset + weights_size;
  std::vector<uint8_t> out(total, 0);
  OmHeader h{};
  std::memcpy(h.magic, kOmMagic, sizeof h.magic);
  h.format_major = kFormatMajor;
  h.format_minor = kFormatMinor;
  h.header_size = kHeaderSize;
  CopyString(h.compiler_version, sizeof h.compiler_version, info.compiler_version);
  h.min_runtime_major = info.min_runtime_major;
  h.min_runtime_minor = info.min_runtime_minor;
  CopyString(h.target, sizeof h.target, info.target);
  h.flags = info.flags;
  h.file_size = total;
  h.section_count = 2;
  h.sections[0] = {static_cast<uint32_t>(SectionKind::kGraph), 0, graph_offset, graph_size};
  h.sections[1] = {static_cast<uint32_t>(SectionKind::kWeights), 0, weights_offset, weights_size};
  if (graph_size) std::memcpy(out.data() + graph_offset, graph, graph_size);
  if (weights_size) std::memcpy(out.data() + weights_offset, weights, weights_size);
  h.payload_crc32 = Crc32(out.data() + kHeaderSize, total - kHeaderSize);
  h.header_crc32 = HeaderChecksum(h);
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

Status WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(code::kWriteFile, "cannot create '", tmp, "': ", std::strerror(errno));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Error(code::kWriteFile, "cannot write '", tmp, "': ", std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error(code::kWriteFile, "cannot write '", path, "': ", std::strerror(err));
  }
  return Status::Ok();
}

Result<OmView> VerifyOm(const uint8_t* data, size_t size, uint16_t runtime_major,
                        uint16_t runtime_minor, std::optional<uint32_t> payload_crc32) {
  const int bad = code::kGeModelDataSizeInvalid;
  if (data == nullptr || size < kHeaderSize) {
    return Error(bad, "the file has ", size, " bytes, less than the ", kHeaderSize,
                 "-byte .om header");
  }
  OmHeader h;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.magic, kOmMagic, sizeof h.magic) != 0) {
    return Error(bad, "the file does not start with the Kiln .om magic");
  }
  if (HeaderChecksum(h) != h.header_crc32) {
    return Error(bad, "the .om header (bytes 0-255) is corrupt: its checksum does not match");
  }
  if (h.format_major != kFormatMajor) {
    return Error(code::kDeserializeModel, "the file is .om format ", h.format_major, ".",
                 h.format_minor, "; this runtime reads format ", kFormatMajor,
                 ".x: recompile the model with this version's kiln atc");
  }
  if (h.min_runtime_major > runtime_major ||
      (h.min_runtime_major == runtime_major && h.min_runtime_minor > runtime_minor)) {
    return Error(code::kDeserializeModel, "the file needs runtime ", h.min_runtime_major, ".",
                 h.min_runtime_minor, " or newer; this runtime is ", runtime_major, ".",
                 runtime_minor);
  }
  if (h.header_size != kHeaderSize || h.file_size != size) {
    return Error(bad, "the header says the file has ", h.file_size, " bytes, but it has ", size,
                 " (truncated or padded?)");
  }
  const uint32_t payload =
      payload_crc32 ? *payload_crc32 : Crc32(data + kHeaderSize, size - kHeaderSize);
  if (payload != h.payload_crc32) {
    return Error(bad, "the .om payload (bytes ", kHeaderSize, "-", size,
                 ") is corrupt: its checksum does not match");
  }
  OmView view;
  view.header = reinterpret_cast<const OmHeader*>(data);
  if (h.section_count > kMaxSections) {
    return Error(bad, "the header lists ", h.section_count, " sections; at most ", kMaxSections);
  }
  for (uint32_t i = 0; i < h.section_count; ++i) {
    const SectionEntry& s = h.sections[i];
    if (s.offset < kHeaderSize || s.offset > size || s.size > size - s.offset) {
      return Error(bad, "section ", i, " (offset ", s.offset, ", ", s.size,
                   " bytes) lies outside the file");
    }
    if (s.kind == static_cast<uint32_t>(SectionKind::kGraph)) {
      if (s.offset % 8 != 0) {
        return Error(bad, "the graph section at offset ", s.offset, " is not 8-byte aligned");
      }
      view.graph = data + s.offset;
      view.graph_size = s.size;
    } else if (s.kind == static_cast<uint32_t>(SectionKind::kWeights)) {
      if (s.offset % kWeightsAlignment != 0) {
        return Error(bad, "the weights section at offset ", s.offset, " is not 64-byte aligned");
      }
      view.weights = data + s.offset;
      view.weights_size = s.size;
    }
  }
  if (view.graph == nullptr) return Error(bad, "the file has no graph section");
  flatbuffers::Verifier verifier(view.graph, view.graph_size);
  if (!om::VerifyModelBuffer(verifier)) {
    return Error(bad, "the graph section (offset ", view.graph - data, ", ", view.graph_size,
                 " bytes) is not a valid Kiln graph");
  }
  KILN_RETURN_IF_ERROR(CheckModel(*om::GetModel(view.graph), view.weights_size, view.graph),
                       "the graph section is inconsistent");
  return view;
}

}  // namespace kiln::format

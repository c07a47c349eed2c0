// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The .om container (docs/om-format.md): a fixed little-endian header, then sections —
// a FlatBuffers graph section (om.fbs) and a raw weights section aligned to 64 bytes so it can
// be mapped rather than copied. One writer and one reader/verifier, shared by the compiler and
// the runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace kiln::format {

inline constexpr char kOmMagic[8] = {'K', 'I', 'L', 'N', 'O', 'M', '\r', '\n'};
inline constexpr uint16_t kFormatMajor = 1;
inline constexpr uint16_t kFormatMinor = 0;
inline constexpr size_t kHeaderSize = 256;
inline constexpr size_t kWeightsAlignment = 64;
inline constexpr size_t kMaxSections = 4;

enum class SectionKind : uint32_t { kGraph = 1, kWeights = 2 };

struct SectionEntry {
  uint32_t kind;
  uint32_t reserved;
  uint64_t offset;  // from the start of the file
  uint64_t size;
};

// The fixed header, exactly as stored (little-endian hosts only).
struct OmHeader {
  char magic[8];
  uint16_t format_major;
  uint16_t format_minor;
  uint32_t header_size;
  char compiler_version[16];   // NUL-terminated "0.1.0"
  uint16_t min_runtime_major;  // a runtime older than this must refuse the file
  uint16_t min_runtime_minor;
  uint32_t section_count;
  char target[32];  // "cpu-avx512", "cuda", ...
  uint64_t flags;
  uint64_t file_size;
  uint32_t payload_crc32;  // CRC-32 of every byte after the header
  uint32_t header_crc32;   // CRC-32 of the header with this field zero
  SectionEntry sections[kMaxSections];
  uint8_t reserved[256 - 8 - 4 - 4 - 16 - 4 - 4 - 32 - 8 - 8 - 4 - 4 - kMaxSections * 24];
};
static_assert(sizeof(OmHeader) == kHeaderSize, "the .om header is 256 bytes");

struct OmWriteInfo {
  std::string compiler_version;
  uint16_t min_runtime_major = kFormatMajor;
  uint16_t min_runtime_minor = 0;
  std::string target;
  uint64_t flags = 0;
};

// The CRC-32 (the gzip/zlib polynomial) of `size` bytes.
uint32_t Crc32(const uint8_t* data, size_t size);
// The CRC-32 of two adjacent ranges from theirs (zlib's crc32_combine): pieces of a file can be
// checked by several threads.
uint32_t Crc32Combine(uint32_t first, uint32_t second, uint64_t second_size);

// The CRC-32 of `header` with its header_crc32 field taken as zero.
uint32_t HeaderChecksum(const OmHeader& header);

// Serializes a complete .om file from the graph FlatBuffer and the weights bytes.
std::vector<uint8_t> SerializeOm(const OmWriteInfo& info, const uint8_t* graph, size_t graph_size,
                                 const uint8_t* weights, size_t weights_size);

// Writes bytes to `path` atomically (temporary file, then rename). kWriteFile on failure.
Status WriteFile(const std::string& path, const std::vector<uint8_t>& bytes);

// A verified view of an .om held in memory (not owned).
struct OmView {
  const OmHeader* header = nullptr;
  const uint8_t* graph = nullptr;  // FlatBuffer, verified
  size_t graph_size = 0;
  const uint8_t* weights = nullptr;
  size_t weights_size = 0;
};

// Verifies header, version rule, checksums, section bounds and the FlatBuffer, in that order,
// before anything else reads the file. `data` must be 8-byte aligned (the FlatBuffer holds
// 64-bit values; Model::Load copies a caller's unaligned bytes first). `runtime_major/minor` is the
// reader's version. Errors say what is wrong and where (offsets) — the runtime maps them to
// AscendCL load codes. `payload_crc32`, when given, is the CRC-32 of the bytes after the header
// as the caller computed it while reading them (ModelFile::ReadAll), checked instead of a
// second pass over them.
Result<OmView> VerifyOm(const uint8_t* data, size_t size, uint16_t runtime_major,
                        uint16_t runtime_minor,
                        std::optional<uint32_t> payload_crc32 = std::nullopt);

}  // namespace kiln::format

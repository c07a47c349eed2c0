// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/model_file.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "base/error_codes.h"
#include "format/om_file.h"

namespace kiln::runtime {

Result<ModelFile> ModelFile::Open(const char* path) {
  if (path == nullptr) return Error(code::kInvalidParam, "modelPath is NULL");
  KILN_ASSIGN_OR_RETURN(RegularFile file,
                        RegularFile::Open(path, "model file", code::kGeModelPathInvalid));
  if (file.size() == 0) return Error(code::kGeModelPathInvalid, "model file '", path, "' is empty");
  return ModelFile(std::move(file));
}

Status ModelFile::ReadAll(uint8_t* into, hal::Device* device,
                          std::optional<uint32_t>* payload_crc32) const {
  constexpr size_t kPiece = size_t{8} << 20;  // four 2 MiB huge pages
  const size_t size = this->size();
  if (device == nullptr || size < 2 * kPiece) return file_.ReadAll(into);
  const size_t pieces = (size + kPiece - 1) / kPiece;
  std::vector<uint32_t> crcs(pieces);  // of each piece's bytes after the header
  std::mutex mu;
  Status first = Status::Ok();  // the failure of the lowest piece that failed
  size_t first_piece = pieces;
  auto read_pieces = [&]() -> Status {
    device->ForEachPreparation(pieces, [&](size_t i) {
      const size_t begin = i * kPiece, end = std::min(begin + kPiece, size);
      Status read = file_.ReadRange(into + begin, begin, end - begin);
      if (read.ok()) {
        const size_t from = std::max(begin, format::kHeaderSize);
        if (payload_crc32 != nullptr) crcs[i] = format::Crc32(into + from, end - from);
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (i < first_piece) {
        first_piece = i;
        first = std::move(read);
      }
    });
    return first;
  };
  KILN_RETURN_IF_ERROR(device->RunPreparation(read_pieces), "");
  if (payload_crc32 != nullptr) {
    uint32_t crc = crcs[0];
    for (size_t i = 1; i < pieces; ++i) {
      crc = format::Crc32Combine(crc, crcs[i], std::min(kPiece, size - i * kPiece));
    }
    *payload_crc32 = crc;
  }
  return Status::Ok();
}

}  // namespace kiln::runtime

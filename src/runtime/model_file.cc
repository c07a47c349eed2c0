// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/model_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "base/error_codes.h"

namespace kiln::runtime {

Result<ModelFile> ModelFile::Open(const char* path) {
  if (path == nullptr) return Error(code::kInvalidParam, "modelPath is NULL");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error(code::kGeModelPathInvalid, "model file '", path, "' ",
                 std::filesystem::exists(path, ec) ? "is not a regular file" : "does not exist");
  }
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error(code::kGeModelPathInvalid, "cannot open model file '", path,
                 "' (missing or unreadable)");
  }
  struct stat st {};
  ModelFile file(fd, 0, path);
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error(code::kGeModelPathInvalid, "model file '", path, "' is not a regular file");
  }
  if (st.st_size <= 0) return Error(code::kGeModelPathInvalid, "model file '", path, "' is empty");
  file.size_ = static_cast<size_t>(st.st_size);
  return file;
}

ModelFile::ModelFile(ModelFile&& other) noexcept
    : fd_(other.fd_), size_(other.size_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

ModelFile::~ModelFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status ModelFile::ReadAll(uint8_t* into) {
  size_t got = 0;
  while (got < size_) {
    const ssize_t n = ::read(fd_, into + got, size_ - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got != size_) {
    return Error(code::kGeModelPathInvalid, "cannot read model file '", path_, "' (", got, " of ",
                 size_, " bytes read)");
  }
  return Status::Ok();
}

}  // namespace kiln::runtime

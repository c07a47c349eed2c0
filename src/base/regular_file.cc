// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace kiln {

Result<RegularFile> RegularFile::Open(const std::string& path, const std::string& what,
                                      int error_code, uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    return Error(error_code, what, " '", path, "' ",
                 err == ENOENT ? std::string("does not exist")
                               : StrCat("cannot be opened: ", std::strerror(err)));
  }
  return Adopt(fd, path, what, error_code, max_bytes);
}

Result<RegularFile> RegularFile::Adopt(int fd, const std::string& path, const std::string& what,
                                       int error_code, uint64_t max_bytes) {
  RegularFile file(fd, 0, path, what, error_code);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error(error_code, what, " '", path, "' is not a regular file",
                 S_ISDIR(st.st_mode) ? " (a folder)" : "");
  }
  file.size_ = static_cast<uint64_t>(st.st_size);
  if (file.size_ > max_bytes) {
    return Error(error_code, what, " '", path, "' holds ", file.size_, " bytes; at most ",
                 max_bytes, " are read");
  }
  // Reads block from here on (O_NONBLOCK only kept the open from waiting).
  (void)::fcntl(fd, F_SETFL, O_RDONLY);
  return file;
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      path_(std::move(other.path_)),
      what_(std::move(other.what_)),
      code_(other.code_) {}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> RegularFile::ReadUpTo(void* into, size_t n, uint64_t offset) const {
  size_t got = 0;
  while (got < n) {
    const ssize_t r =
        ::pread(fd_, static_cast<char*>(into) + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      return Error(code_, "cannot read ", what_, " '", path_, "': ", std::strerror(errno));
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

Status RegularFile::ReadAll(void* into) const {
  return ReadRange(into, 0, static_cast<size_t>(size_));
}

Status RegularFile::ReadRange(void* into, uint64_t offset, size_t n) const {
  if (offset > size_ || n > size_ - offset) {
    return Error(code_, "cannot read bytes ", offset, " to ", offset + n, " of ", what_, " '",
                 path_, "': it has ", size_);
  }
  KILN_ASSIGN_OR_RETURN(const size_t got, ReadUpTo(into, n, offset));
  if (got != n) {
    return Error(code_, "cannot read ", what_, " '", path_, "' (", offset + got, " of ", size_,
                 " bytes read)");
  }
  return Status::Ok();
}

Result<std::string> RegularFile::ReadText() const {
  std::string text(static_cast<size_t>(size_), '\0');
  KILN_ASSIGN_OR_RETURN(const size_t got, ReadUpTo(text.data(), text.size()));
  text.resize(got);
  return text;
}

Result<std::vector<uint8_t>> RegularFile::ReadBytes() const {
  std::vector<uint8_t> bytes(static_cast<size_t>(size_));
  KILN_ASSIGN_OR_RETURN(const size_t got, ReadUpTo(bytes.data(), bytes.size()));
  bytes.resize(got);
  return bytes;
}

}  // namespace kiln

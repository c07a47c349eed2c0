// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "frontend/onnx/mapped_file.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace kiln::frontend::onnx {
namespace {

// `relative` opened read-only beneath the directory `dir_fd` by the kernel's own resolution
// (openat2 RESOLVE_BENEATH: no absolute path, no "..", no symlink leading out); -1 with errno
// set, ENOSYS where the kernel has no openat2 (before Linux 5.6, or a seccomp filter).
int OpenAt2Beneath(int dir_fd, const std::string& relative) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof how));
#else
  errno = ENOSYS;
  return -1;
#endif
}

// The same without openat2: both paths resolved (realpath, symlinks followed), the file's
// inside the directory's, then opened by its resolved path without following a last symlink.
int OpenResolvedBeneath(const std::string& dir, const std::string& relative) {
  char dir_real[PATH_MAX], file_real[PATH_MAX];
  const std::string path = dir + "/" + relative;
  if (realpath(dir.c_str(), dir_real) == nullptr) return -1;
  if (realpath(path.c_str(), file_real) == nullptr) return -1;
  const std::string root = std::string(dir_real) == "/" ? "/" : std::string(dir_real) + "/";
  if (std::strncmp(file_real, root.c_str(), root.size()) != 0) {
    errno = EXDEV;
    return -1;
  }
  return ::open(file_real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
}

}  // namespace

Result<std::shared_ptr<MappedFile>> MappedFile::Map(const RegularFile& checked,
                                                    const std::string& path) {
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->size_ = static_cast<size_t>(checked.size());
  if (file->size_ > 0) {
    void* p = mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, checked.fd(), 0);
    if (p == MAP_FAILED) {
      return Error(code::kInvalidFile, "cannot map '", path, "': ", std::strerror(errno));
    }
    file->data_ = static_cast<const uint8_t*>(p);
  }
  return file;  // the mapping outlives the descriptor
}

Result<std::shared_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(RegularFile checked,
                        RegularFile::Open(path, "ONNX file", code::kInvalidFile));
  return Map(checked, path);
}

Result<std::shared_ptr<MappedFile>> MappedFile::OpenBeneath(const std::string& dir,
                                                            const std::string& relative) {
  const std::string path = dir + "/" + relative;
  int fd = -1;
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fd = OpenAt2Beneath(dir_fd, relative);
    const int err = errno;
    ::close(dir_fd);
    errno = err;
  }
  if (dir_fd >= 0 && fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    fd = OpenResolvedBeneath(dir, relative);
  }
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP) {
      return Error(code::kInvalidFile, "'", path, "' resolves outside '", dir,
                   "' (through a symbolic link or '..'): external data must lie in the "
                   "model's directory");
    }
    return Error(code::kInvalidFile, "cannot open '", path, "': ", std::strerror(errno));
  }
  KILN_ASSIGN_OR_RETURN(RegularFile checked,
                        RegularFile::Adopt(fd, path, "external data file", code::kInvalidFile));
  return Map(checked, path);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace kiln::frontend::onnx

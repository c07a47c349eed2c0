// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A file a user names — a model, a config, a tensor file — read the one safe way: opened with
// O_NONBLOCK (a FIFO cannot hold the open), checked on the descriptor that was opened (fstat,
// never the name first: a regular file, not a FIFO, a device such as /dev/zero, a directory or
// a socket; no larger than the caller allows), then read whole. Every error carries the
// caller's code and names the file and what it is ("acl.json", "--insert_op_conf file", ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace kiln {

class RegularFile {
 public:
  static constexpr uint64_t kNoLimit = UINT64_MAX;

  // Opens `path`. `what` names the file in messages; `error_code` is the code of every error;
  // `max_bytes` bounds its size.
  static Result<RegularFile> Open(const std::string& path, const std::string& what, int error_code,
                                  uint64_t max_bytes = kNoLimit);
  // The same checks on a descriptor the caller opened read-only (e.g. with openat2, to resolve
  // beneath a folder); this object owns it from here (closed on failure too).
  static Result<RegularFile> Adopt(int fd, const std::string& path, const std::string& what,
                                   int error_code, uint64_t max_bytes = kNoLimit);
  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&&) = delete;
  ~RegularFile();

  uint64_t size() const { return size_; }
  int fd() const { return fd_; }  // for mmap; owned by this object
  // Reads the whole file (size() bytes, as fstat said at Open) into `into`; an error on a short
  // read (the file shrank meanwhile).
  Status ReadAll(void* into) const;
  // Reads bytes [offset, offset + n) of the file into `into`; an error on a short read. Reads of
  // disjoint ranges may run on several threads at once.
  Status ReadRange(void* into, uint64_t offset, size_t n) const;
  // The whole file as text or bytes (what it holds now: a file that shrank gives what is left).
  Result<std::string> ReadText() const;
  Result<std::vector<uint8_t>> ReadBytes() const;

 private:
  RegularFile(int fd, uint64_t size, std::string path, std::string what, int code)
      : fd_(fd), size_(size), path_(std::move(path)), what_(std::move(what)), code_(code) {}
  // Reads up to `n` bytes from `offset` on into `into`; the count read.
  Result<size_t> ReadUpTo(void* into, size_t n, uint64_t offset = 0) const;

  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_, what_;
  int code_ = 0;
};

}  // namespace kiln

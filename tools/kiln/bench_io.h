// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The tensor files the tools read and write (`kiln bench`'s inputs and outputs, `kiln prof
// --om`'s inputs): raw .bin, numpy .npy (format 1.0–3.0, C order, little-endian) and text. Pure
// file handling; no AscendCL calls beyond the dtype enum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace kiln::tools::bench {

// Result of a file operation: empty `error` on success, else a message naming the file.
struct IoError {
  std::string error;
  bool ok() const { return error.empty(); }
};

// One input file's contents. For .npy, `dtype` and `dims` come from its header; for .bin they
// are unknown (ACL_DT_UNDEFINED, empty) and `bytes` is the whole file.
struct TensorFile {
  std::vector<char> bytes;
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::vector<int64_t> dims;
  bool has_header = false;  // .npy
};

// Reads a .bin (raw) or .npy file, chosen by extension (.npy) or by the numpy magic bytes.
IoError ReadTensorFile(const std::string& path, TensorFile* out);

// The .bin/.npy files directly inside `dir`, sorted by name. Error when it has none.
IoError ListTensorFiles(const std::string& dir, std::vector<std::string>* files);

// "float32", "int64", ... for messages and the JSON summary ("dtype 27" for others).
std::string DtypeName(aclDataType dtype);

// The numpy descr of an AscendCL dtype ("<f4", "|u1", ...); "" when numpy has no such type.
std::string NpyDescr(aclDataType dtype);

// Writes `bytes` (dtype, dims) as raw bytes, as .npy, or as text: one line per row of the last
// dimension, values separated by spaces (float16/bfloat16 converted to decimal).
IoError WriteBin(const std::string& path, const void* data, size_t bytes);
IoError WriteNpy(const std::string& path, const void* data, size_t bytes, aclDataType dtype,
                 const std::vector<int64_t>& dims);
IoError WriteTxt(const std::string& path, const void* data, size_t bytes, aclDataType dtype,
                 const std::vector<int64_t>& dims);

// "a.b/c/d.npy" -> "d"; the name outputs of an input sample are named after.
std::string StemOf(const std::string& path);

// Fills `bytes` for a random input: floating types uniform in [-1, 1), integer and bool types 0
// (so that index inputs stay in range); deterministic for a seed. `random` false: all zeros.
void FillPureData(std::vector<char>& bytes, aclDataType dtype, bool random, uint64_t seed);

}  // namespace kiln::tools::bench

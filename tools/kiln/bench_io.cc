// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/bench_io.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "compiler/compile.h"

namespace kiln::tools::bench {
namespace {

namespace fs = std::filesystem;

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicLen = 6;

struct DescrEntry {
  aclDataType dtype;
  const char* descr;
};

// numpy's spelling of each dtype numpy has ("<" little-endian, "|" single byte).
constexpr DescrEntry kDescrs[] = {
    {ACL_FLOAT, "<f4"},     {ACL_FLOAT16, "<f2"},     {ACL_DOUBLE, "<f8"}, {ACL_INT8, "|i1"},
    {ACL_UINT8, "|u1"},     {ACL_INT16, "<i2"},       {ACL_UINT16, "<u2"}, {ACL_INT32, "<i4"},
    {ACL_UINT32, "<u4"},    {ACL_INT64, "<i8"},       {ACL_UINT64, "<u8"}, {ACL_BOOL, "|b1"},
    {ACL_COMPLEX64, "<c8"}, {ACL_COMPLEX128, "<c16"},
};

IoError Fail(const std::string& path, const std::string& what) { return {path + ": " + what}; }

aclDataType DtypeOfDescr(std::string descr) {
  // numpy writes "<i1" as "|i1" and the native byte order as "<" on x86-64; accept "=" too.
  if (!descr.empty() && descr[0] == '=') descr[0] = '<';
  if (descr.size() == 3 && descr[2] == '1' && descr[0] == '<') descr[0] = '|';
  for (const auto& e : kDescrs) {
    if (descr == e.descr) return e.dtype;
  }
  return ACL_DT_UNDEFINED;
}

// The value of `key` in numpy's header dict ("{'descr': '<f4', 'fortran_order': False, ...}").
std::string DictValue(const std::string& header, const std::string& key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  at = header.find(':', at);
  if (at == std::string::npos) return "";
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at >= header.size()) return "";
  if (header[at] == '\'') {
    const size_t end = header.find('\'', at + 1);
    return end == std::string::npos ? "" : header.substr(at + 1, end - at - 1);
  }
  if (header[at] == '(') {
    const size_t end = header.find(')', at);
    return end == std::string::npos ? "" : header.substr(at, end - at + 1);
  }
  const size_t end = header.find_first_of(",}", at);
  return header.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

IoError ParseNpy(const std::string& path, std::vector<char>& file, TensorFile* out) {
  if (file.size() < kNpyMagicLen + 4) return Fail(path, "truncated .npy header");
  const int major = static_cast<unsigned char>(file[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return Fail(path, "truncated .npy header");
    for (int k = 3; k >= 0; --k)
      header_len = (header_len << 8) | static_cast<unsigned char>(file[8 + k]);
    offset = 12;
  } else {
    return Fail(path, "unsupported .npy format version " + std::to_string(major));
  }
  if (offset + header_len > file.size()) return Fail(path, "truncated .npy header");
  const std::string header(file.data() + offset, header_len);
  const std::string descr = DictValue(header, "descr");
  out->dtype = DtypeOfDescr(descr);
  if (out->dtype == ACL_DT_UNDEFINED) {
    return Fail(path, "unsupported .npy dtype '" + descr +
                          "' (little-endian bool, int, uint, float and complex are supported)");
  }
  const std::string shape = DictValue(header, "shape");
  if (shape.empty() || shape.front() != '(') return Fail(path, "the .npy header has no shape");
  out->dims.clear();
  for (size_t i = 1; i < shape.size();) {
    char* end = nullptr;
    const long long d = std::strtoll(shape.c_str() + i, &end, 10);
    if (end == shape.c_str() + i) {
      ++i;
      continue;
    }
    out->dims.push_back(d);
    i = static_cast<size_t>(end - shape.c_str());
  }
  size_t count = 1;
  for (int64_t d : out->dims) count *= static_cast<size_t>(d);
  if (DictValue(header, "fortran_order") == "True" && out->dims.size() > 1) {
    return Fail(path, "Fortran-order .npy arrays are not supported (save with C order)");
  }
  const size_t data_bytes = file.size() - offset - header_len;
  const size_t want = count * aclDataTypeSize(out->dtype);
  if (data_bytes != want) {
    return Fail(path, "the .npy header says " + std::to_string(want) +
                          " bytes of data, the file has " + std::to_string(data_bytes));
  }
  out->bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(offset + header_len), file.end());
  out->has_header = true;
  return {};
}

IoError WriteAll(const std::string& path, const std::string& head, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Fail(path, "cannot create the file");
  out.write(head.data(), static_cast<std::streamsize>(head.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) return Fail(path, "write failed");
  return {};
}

float Bf16ToFloat(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Element `i` of `data` as text.
std::string ElementText(const char* data, size_t i, aclDataType dtype) {
  char text[64];
  auto get = [&](auto v) {
    std::memcpy(&v, data + i * sizeof v, sizeof v);
    return v;
  };
  switch (dtype) {
    case ACL_FLOAT:
      std::snprintf(text, sizeof text, "%.9g", static_cast<double>(get(float{})));
      break;
    case ACL_DOUBLE:
      std::snprintf(text, sizeof text, "%.17g", get(double{}));
      break;
    case ACL_FLOAT16:
      std::snprintf(text, sizeof text, "%.6g",
                    static_cast<double>(aclFloat16ToFloat(get(uint16_t{}))));
      break;
    case ACL_BF16:
      std::snprintf(text, sizeof text, "%.6g", static_cast<double>(Bf16ToFloat(get(uint16_t{}))));
      break;
    case ACL_INT8:
      std::snprintf(text, sizeof text, "%d", get(int8_t{}));
      break;
    case ACL_UINT8:
    case ACL_BOOL:
      std::snprintf(text, sizeof text, "%u", get(uint8_t{}));
      break;
    case ACL_INT16:
      std::snprintf(text, sizeof text, "%d", get(int16_t{}));
      break;
    case ACL_UINT16:
      std::snprintf(text, sizeof text, "%u", get(uint16_t{}));
      break;
    case ACL_INT32:
      std::snprintf(text, sizeof text, "%" PRId32, get(int32_t{}));
      break;
    case ACL_UINT32:
      std::snprintf(text, sizeof text, "%" PRIu32, get(uint32_t{}));
      break;
    case ACL_INT64:
      std::snprintf(text, sizeof text, "%" PRId64, get(int64_t{}));
      break;
    case ACL_UINT64:
      std::snprintf(text, sizeof text, "%" PRIu64, get(uint64_t{}));
      break;
    default:
      return "?";
  }
  return text;
}

}  // namespace

IoError ReadTensorFile(const std::string& path, TensorFile* out) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Fail(path, "no such file");
  if (fs::is_directory(path, ec)) return Fail(path, "is a folder, expected a .bin or .npy file");
  // Read as a regular file only (a FIFO or /dev/zero would read forever).
  auto text = compiler::ReadFlagFile(path, "--input file");
  if (!text.ok()) return Fail(path, text.status().message());
  std::vector<char> file(text->begin(), text->end());
  *out = TensorFile{};
  const bool magic =
      file.size() >= kNpyMagicLen && std::memcmp(file.data(), kNpyMagic, kNpyMagicLen) == 0;
  if (fs::path(path).extension() == ".npy" && !magic) {
    return Fail(path, "not a numpy .npy file (no \\x93NUMPY magic)");
  }
  if (magic) return ParseNpy(path, file, out);
  out->bytes = std::move(file);
  return {};
}

IoError ListTensorFiles(const std::string& dir, std::vector<std::string>* files) {
  files->clear();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".bin" || ext == ".npy")) {
      files->push_back(entry.path().string());
    }
  }
  if (ec) return Fail(dir, "cannot list the folder: " + ec.message());
  if (files->empty()) return Fail(dir, "the folder holds no .bin or .npy file");
  std::sort(files->begin(), files->end());
  return {};
}

std::string DtypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return "float32";
    case ACL_FLOAT16:
      return "float16";
    case ACL_BF16:
      return "bfloat16";
    case ACL_DOUBLE:
      return "float64";
    case ACL_INT8:
      return "int8";
    case ACL_UINT8:
      return "uint8";
    case ACL_INT16:
      return "int16";
    case ACL_UINT16:
      return "uint16";
    case ACL_INT32:
      return "int32";
    case ACL_UINT32:
      return "uint32";
    case ACL_INT64:
      return "int64";
    case ACL_UINT64:
      return "uint64";
    case ACL_BOOL:
      return "bool";
    default:
      return "dtype " + std::to_string(static_cast<int>(dtype));
  }
}

std::string NpyDescr(aclDataType dtype) {
  for (const auto& e : kDescrs) {
    if (e.dtype == dtype) return e.descr;
  }
  return "";
}

IoError WriteBin(const std::string& path, const void* data, size_t bytes) {
  return WriteAll(path, "", data, bytes);
}

IoError WriteNpy(const std::string& path, const void* data, size_t bytes, aclDataType dtype,
                 const std::vector<int64_t>& dims) {
  std::string descr = NpyDescr(dtype);
  if (dtype == ACL_BF16) descr = "<u2";  // numpy has no bfloat16: its raw bit patterns
  if (descr.empty()) {
    return Fail(path, "numpy has no dtype for AscendCL data type " +
                          std::to_string(static_cast<int>(dtype)) + ": use --outfmt BIN");
  }
  std::string shape = "(";
  for (size_t k = 0; k < dims.size(); ++k) shape += (k ? ", " : "") + std::to_string(dims[k]);
  shape += dims.size() == 1 ? ",)" : ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + dict + padding spaces + '\n' is a multiple of 64.
  const size_t unpadded = kNpyMagicLen + 4 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string head(kNpyMagic, kNpyMagicLen);
  head += '\x01';
  head += '\x00';
  head += static_cast<char>(dict.size() & 0xff);
  head += static_cast<char>((dict.size() >> 8) & 0xff);
  return WriteAll(path, head + dict, data, bytes);
}

IoError WriteTxt(const std::string& path, const void* data, size_t bytes, aclDataType dtype,
                 const std::vector<int64_t>& dims) {
  const size_t size = aclDataTypeSize(dtype);
  const char zero[16] = {};
  if (size == 0 || ElementText(zero, 0, dtype) == "?") {
    return Fail(path, "AscendCL data type " + std::to_string(static_cast<int>(dtype)) +
                          " cannot be written as text: use --outfmt BIN");
  }
  const size_t count = bytes / size;
  const size_t row = dims.empty() || dims.back() <= 0 ? count : static_cast<size_t>(dims.back());
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    text += ElementText(static_cast<const char*>(data), i, dtype);
    text += (row == 0 || (i + 1) % row == 0) ? '\n' : ' ';
  }
  return WriteAll(path, text, nullptr, 0);
}

std::string StemOf(const std::string& path) { return fs::path(path).stem().string(); }

void FillPureData(std::vector<char>& bytes, aclDataType dtype, bool random, uint64_t seed) {
  std::fill(bytes.begin(), bytes.end(), 0);
  if (!random) return;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const size_t size = aclDataTypeSize(dtype);
  if (size == 0) return;
  const size_t count = bytes.size() / size;
  char* p = bytes.data();
  for (size_t i = 0; i < count; ++i) {
    const float v = uniform(rng);
    if (dtype == ACL_FLOAT) {
      std::memcpy(p + i * 4, &v, 4);
    } else if (dtype == ACL_DOUBLE) {
      const double d = v;
      std::memcpy(p + i * 8, &d, 8);
    } else if (dtype == ACL_FLOAT16) {
      const aclFloat16 h = aclFloatToFloat16(v);
      std::memcpy(p + i * 2, &h, 2);
    } else if (dtype == ACL_BF16) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const uint16_t b = static_cast<uint16_t>(bits >> 16);
      std::memcpy(p + i * 2, &b, 2);
    } else {
      return;  // integer and bool inputs stay 0
    }
  }
}

}  // namespace kiln::tools::bench

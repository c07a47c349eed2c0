// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "format/sniff.h"

#include <cstring>

#include "format/om_file.h"

namespace kiln::format {

FileKind Sniff(const uint8_t* data, size_t size) {
  if (data == nullptr || size == 0) return FileKind::kEmpty;
  if (size >= sizeof kOmMagic && std::memcmp(data, kOmMagic, sizeof kOmMagic) == 0) {
    return FileKind::kKilnOm;
  }
  if (size >= 4 && std::memcmp(data, "IMOD", 4) == 0) return FileKind::kHuaweiOm;  // 0x444F4D49
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0) return FileKind::kGguf;
  if (size >= 8 && std::memcmp(data + 4, "TFL3", 4) == 0) return FileKind::kTflite;
  // ONNX ModelProto: starts with field 1 (ir_version, varint: 0x08) and, within the first
  // bytes, a producer string or graph field; checking the first tag plus a plausible version is
  // enough to tell it from the formats above.
  if (size >= 2 && data[0] == 0x08 && data[1] >= 1 && data[1] <= 20) return FileKind::kOnnx;
  return FileKind::kUnknown;
}

const char* KindName(FileKind kind) {
  switch (kind) {
    case FileKind::kKilnOm:
      return "Kiln .om";
    case FileKind::kHuaweiOm:
      return "Huawei OM";
    case FileKind::kOnnx:
      return "ONNX";
    case FileKind::kGguf:
      return "GGUF";
    case FileKind::kTflite:
      return "TFLite";
    case FileKind::kEmpty:
      return "empty";
    case FileKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string AdviceFor(FileKind kind) {
  switch (kind) {
    case FileKind::kKilnOm:
      return "";
    case FileKind::kHuaweiOm:
      return "this is a Huawei OM, built by Huawei ATC for an Ascend SoC: convert the ONNX with "
             "`kiln atc --framework=5 --model=<model.onnx> --output=<name>`";
    case FileKind::kOnnx:
      return "this is an ONNX model: convert it with `kiln atc --framework=5 --model=<file> "
             "--output=<name>`";
    case FileKind::kGguf:
      return "no runtime for model format 'gguf' in Kiln";
    case FileKind::kTflite:
      return "this is a TFLite model: export it to ONNX (e.g. with tf2onnx), then run kiln atc";
    case FileKind::kEmpty:
      return "the file is empty";
    case FileKind::kUnknown:
      break;
  }
  return "the file is not a model format Kiln knows: compile an ONNX model with kiln atc";
}

}  // namespace kiln::format

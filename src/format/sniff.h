// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::format {

enum class FileKind { kKilnOm, kHuaweiOm, kOnnx, kGguf, kTflite, kEmpty, kUnknown };

// Recognises a model file by its first bytes.
FileKind Sniff(const uint8_t* data, size_t size);

// "Kiln .om", "Huawei OM", "ONNX", "GGUF", "TFLite", "empty", "unknown".
const char* KindName(FileKind kind);

// What to tell a user who gave a file of this kind to the .om loader.
std::string AdviceFor(FileKind kind);

}  // namespace kiln::format

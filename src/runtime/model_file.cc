// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/model_file.h"

#include <utility>

#include "base/error_codes.h"

namespace kiln::runtime {

Result<ModelFile> ModelFile::Open(const char* path) {
  if (path == nullptr) return Error(code::kInvalidParam, "modelPath is NULL");
  KILN_ASSIGN_OR_RETURN(RegularFile file,
                        RegularFile::Open(path, "model file", code::kGeModelPathInvalid));
  if (file.size() == 0) return Error(code::kGeModelPathInvalid, "model file '", path, "' is empty");
  return ModelFile(std::move(file));
}

}  // namespace kiln::runtime

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What each static AIPP input format is (ir/ops/image.cc, docs/aipp.md): the one table the Aipp
// op's definition, its kernel and the compiler's AIPP checks read.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::ir {

struct AippFormat {
  const char* name;        // CANN's spelling: YUV420SP_U8, XRGB8888_U8, RGB888_U8, YUV400_U8
  int64_t image_channels;  // bytes per pixel of the stored image (of the Y plane for YUV420SP)
  int64_t model_channels;  // channels AIPP hands to the model (C of its NCHW input)
  bool yuv420 = false;     // a Y plane of src_h rows, then an interleaved UV plane of src_h / 2
  // Rows of the stored image [N, rows, src_w, image_channels] for a source of `src_h` rows.
  int64_t rows(int64_t src_h) const { return yuv420 ? src_h * 3 / 2 : src_h; }
};

// The format named `name`; null for a name that is not one.
const AippFormat* FindAippFormat(const std::string& name);

}  // namespace kiln::ir

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The picture operations of DVPP's VPC (docs/dvpp.md): crop, resize and paste in one pass, colour
// conversion, pyramid down, borders, histograms and per-component look-up tables. Each has a
// Check (run when the application calls, so a bad request is an error code at once) and a Run
// (run on the stream, on pictures the Check accepted).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "media/convert.h"
#include "media/picture.h"

namespace kiln::media {

inline constexpr double kMaxUpscale = 16.0;    // DVPP's VPC: output / input per side <= 16
inline constexpr double kMaxDownscale = 32.0;  // and >= 1/32

// Crop `crop` from `in`, resize it to `paste`'s size, write it at `paste` in `out`; the rest of
// `out` is left as it was. Any handled format in, any out.
Status CheckCropResizePaste(const Picture& in, const Rect& crop, const Picture& out,
                            const Rect& paste);
void RunCropResizePaste(const Picture& in, const Rect& crop, const Picture& out, const Rect& paste,
                        Filter filter);

// The whole picture to another format of the same size.
Status CheckConvertColor(const Picture& in, const Picture& out);

// Gaussian pyramid down (5x5 [1 4 6 4 1]^2 / 256, reflect-101 borders, as OpenCV's pyrDown) of
// the luma of `in` into a YUV 4:0:0 picture of ceil(w/2) x ceil(h/2).
Status CheckPyrDown(const Picture& in, const Picture& out);
void RunPyrDown(const Picture& in, const Picture& out);

enum class Border { kConstant = 0, kReplicate = 1, kReflect = 2, kReflect101 = 3 };
struct BorderSpec {
  Border type = Border::kConstant;
  uint32_t top = 0, bottom = 0, left = 0, right = 0;
  std::array<double, 4> value{};  // constant: per component (Y, U, V or R, G, B, A)
};
// Borders around a w x h picture of `f` keep to its chroma grid: even borders and sizes where
// chroma is shared.
Status CheckBorderGrid(const FormatInfo& f, const BorderSpec& spec, uint32_t w, uint32_t h);
// `in` with borders added, into `out` (same format, size grown by the borders).
Status CheckMakeBorder(const Picture& in, const Picture& out, const BorderSpec& spec);
void RunMakeBorder(const Picture& in, const Picture& out, const BorderSpec& spec);

inline constexpr uint32_t kHistBins = 256;
// Per-component histograms: Y, U, V (chroma samples counted once each) or R, G, B.
std::vector<std::vector<uint32_t>> CalcHist(const Picture& in);

using Lut = std::array<std::array<uint8_t, 256>, 3>;
// Maps each component through its table (Y, U, V or R, G, B; alpha kept); same format and size.
Status CheckRemap(const Picture& in, const Picture& out);
void RunRemap(const Picture& in, const Picture& out, const Lut& lut);

}  // namespace kiln::media

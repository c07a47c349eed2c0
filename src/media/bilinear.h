// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Bilinear resize of 8-bit images with pixel centres aligned (a destination pixel x samples the
// source at (x + 0.5) * sw / dw - 0.5, clamped at the edges): OpenCV's INTER_LINEAR, with its
// 11-bit fixed-point weights. libyuv's bilinear aligns corners instead when it upscales
// ((sw - 1) / (dw - 1)), which moves every pixel of an enlarged picture by up to half a source
// pixel against what OpenCV, Pillow and DVPP users expect; an exact 2x upscale this way is also
// JPEG's centred chroma upsampling.
#pragma once

#include <cstdint>

namespace kiln::media {

// `channels` interleaved 8-bit channels per pixel; rows of w * channels bytes, no padding.
void BilinearResize(const uint8_t* src, uint32_t sw, uint32_t sh, uint8_t* dst, uint32_t dw,
                    uint32_t dh, int channels);

}  // namespace kiln::media

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The few image operations the OCR pipeline needs, on 8-bit RGB images in memory: binary PPM
// input, bilinear resize, perspective crop, rotations, padding, and the conversion to the
// models' normalised planar float input. No image library: PPM keeps the demo dependency-free.
#ifndef KILN_EXAMPLES_OCR_IMAGE_H_
#define KILN_EXAMPLES_OCR_IMAGE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ocr {

// Interleaved RGB, row-major, 3 bytes a pixel.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;

  Image() = default;
  Image(int w, int h, uint8_t fill = 0)
      : width(w), height(h), rgb(static_cast<size_t>(w) * h * 3, fill) {}
  const uint8_t* At(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
  uint8_t* At(int x, int y) { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
};

struct PointF {
  float x = 0;
  float y = 0;
};

// Reads a binary PPM (P6, maxval 1..255, '#' comments allowed). On failure returns false and
// says why in *error.
bool ReadPpm(const std::string& path, Image* image, std::string* error);
bool WritePpm(const std::string& path, const Image& image, std::string* error);

// Bilinear resize with OpenCV's INTER_LINEAR pixel-centre convention (what RapidOCR uses).
Image ResizeBilinear(const Image& src, int width, int height);

// The quad corners (top-left, top-right, bottom-right, bottom-left) mapped onto a width x height
// rectangle by a perspective transform, bilinear, border replicated (RapidOCR's
// get_rotate_crop_image, which uses cv2.warpPerspective).
Image CropQuad(const Image& src, const std::array<PointF, 4>& quad, int width, int height);

Image Rotate180(const Image& src);
// Counter-clockwise by 90 degrees (numpy.rot90).
Image Rotate90Ccw(const Image& src);
// Adds `top` and `bottom` rows of black (cv2.copyMakeBorder with BORDER_CONSTANT 0).
Image PadVertical(const Image& src, int top, int bottom);

// Writes the image into a planar float tensor [3, out_height, out_width] in the models' channel
// order (BGR: the PaddleOCR models were trained on OpenCV images), each value
// (v / 255 - 0.5) / 0.5; columns and rows beyond the image are 0 (the models' padding).
void ToPlanarBgr(const Image& src, int out_width, int out_height, float* out);

}  // namespace ocr

#endif  // KILN_EXAMPLES_OCR_IMAGE_H_

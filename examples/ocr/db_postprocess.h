// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Differentiable Binarization post-processing: from the detector's text probability map to
// text line quads, as RapidOCR / PaddleOCR do it (DBPostProcess, filter_tag_det_res,
// sorted_boxes), with connected components and a minimum-area rectangle in place of OpenCV's
// findContours / minAreaRect and the exact rectangle offset in place of pyclipper's unclip;
// nearly level rectangles are snapped to the axes (DbParams::axis_snap_degrees).
#ifndef KILN_EXAMPLES_OCR_DB_POSTPROCESS_H_
#define KILN_EXAMPLES_OCR_DB_POSTPROCESS_H_

#include <array>
#include <vector>

#include "image.h"

namespace ocr {

struct DbParams {
  float thresh = 0.3f;        // a map pixel is text when its probability exceeds this
  float box_thresh = 0.5f;    // a region is kept when its mean probability reaches this
  float unclip_ratio = 1.6f;  // the region grows by area * ratio / perimeter on each side
  int max_candidates = 1000;  // regions looked at, at most
  bool use_dilation = true;   // dilate the binary map with a 2x2 kernel first
  // A region whose minimum-area rectangle is tilted by less than this many degrees gets its
  // axis-aligned bounding box instead: for level text the small tilt comes from the glyphs'
  // shape (ascenders at one end, descenders at the other), and an axis-aligned crop copies
  // pixels where a tilted one resamples them. 0 keeps RapidOCR's rotated rectangles.
  float axis_snap_degrees = 1.0f;
};

struct TextBox {
  std::array<PointF, 4> pts;  // top-left, top-right, bottom-right, bottom-left; whole pixels
  float score = 0;            // mean probability inside the region's rectangle
};

// prob is the [map_height, map_width] probability map; boxes come back in the coordinates of a
// dest_width x dest_height image (the detector's input before its resize), clipped to it,
// boxes with a side of 3 pixels or less dropped, in reading order (top to bottom, then left to
// right for boxes whose tops are within 10 pixels).
std::vector<TextBox> DbPostprocess(const float* prob, int map_width, int map_height, int dest_width,
                                   int dest_height, const DbParams& params);

}  // namespace ocr

#endif  // KILN_EXAMPLES_OCR_DB_POSTPROCESS_H_

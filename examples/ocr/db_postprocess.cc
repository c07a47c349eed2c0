// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "db_postprocess.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ocr {
namespace {

struct Pt {
  double x = 0;
  double y = 0;
};

double Cross(const Pt& o, const Pt& a, const Pt& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Andrew's monotone chain; the points are sorted in place. Collinear points are dropped.
std::vector<Pt> ConvexHull(std::vector<Pt> pts) {
  std::sort(pts.begin(), pts.end(),
            [](const Pt& a, const Pt& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  pts.erase(std::unique(pts.begin(), pts.end(),
                        [](const Pt& a, const Pt& b) { return a.x == b.x && a.y == b.y; }),
            pts.end());
  if (pts.size() < 3) return pts;
  std::vector<Pt> hull(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && Cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && Cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  hull.resize(k - 1);
  return hull;
}

// The minimum-area enclosing rectangle (rotating calipers over the hull's edges): its four
// corners in polygon order and its shorter side.
std::array<Pt, 4> MinAreaRect(const std::vector<Pt>& hull, double* short_side) {
  std::array<Pt, 4> best{};
  *short_side = 0;
  if (hull.empty()) return best;
  if (hull.size() == 1) {
    best.fill(hull[0]);
    return best;
  }
  double best_area = -1;
  for (size_t i = 0; i < hull.size(); ++i) {
    const Pt& a = hull[i];
    const Pt& b = hull[(i + 1) % hull.size()];
    const double len = std::hypot(b.x - a.x, b.y - a.y);
    if (len == 0) continue;
    const Pt e{(b.x - a.x) / len, (b.y - a.y) / len};
    const Pt n{-e.y, e.x};
    double u0 = 1e30, u1 = -1e30, v0 = 1e30, v1 = -1e30;
    for (const Pt& p : hull) {
      const double u = p.x * e.x + p.y * e.y;
      const double v = p.x * n.x + p.y * n.y;
      u0 = std::min(u0, u), u1 = std::max(u1, u), v0 = std::min(v0, v), v1 = std::max(v1, v);
    }
    const double area = (u1 - u0) * (v1 - v0);
    if (best_area < 0 || area < best_area) {
      best_area = area;
      *short_side = std::min(u1 - u0, v1 - v0);
      auto corner = [&](double u, double v) { return Pt{e.x * u + n.x * v, e.y * u + n.y * v}; };
      best = {corner(u0, v0), corner(u1, v0), corner(u1, v1), corner(u0, v1)};
    }
  }
  return best;
}

// RapidOCR's get_mini_boxes order: sorted by x, then the left pair and right pair by y.
std::array<Pt, 4> MiniBoxOrder(std::array<Pt, 4> p) {
  std::stable_sort(p.begin(), p.end(), [](const Pt& a, const Pt& b) { return a.x < b.x; });
  const int i1 = p[1].y > p[0].y ? 0 : 1, i4 = 1 - i1;
  const int i2 = p[3].y > p[2].y ? 2 : 3, i3 = 5 - i2;
  return {p[i1], p[i2], p[i3], p[i4]};
}

// Mean probability over the box's polygon (RapidOCR's box_score_fast).
double BoxScore(const float* prob, int w, int h, const std::array<Pt, 4>& box) {
  double fx0 = box[0].x, fx1 = box[0].x, fy0 = box[0].y, fy1 = box[0].y;
  for (const Pt& p : box) {
    fx0 = std::min(fx0, p.x), fx1 = std::max(fx1, p.x);
    fy0 = std::min(fy0, p.y), fy1 = std::max(fy1, p.y);
  }
  const int xmin = std::clamp(static_cast<int>(std::floor(fx0)), 0, w - 1);
  const int xmax = std::clamp(static_cast<int>(std::ceil(fx1)), 0, w - 1);
  const int ymin = std::clamp(static_cast<int>(std::floor(fy0)), 0, h - 1);
  const int ymax = std::clamp(static_cast<int>(std::ceil(fy1)), 0, h - 1);
  // The polygon's corners truncated to whole pixels, as cv2.fillPoly receives them.
  std::array<Pt, 4> q;
  for (int i = 0; i < 4; ++i) {
    q[i] = {std::trunc(box[i].x - xmin) + xmin, std::trunc(box[i].y - ymin) + ymin};
  }
  double sum = 0;
  size_t count = 0;
  for (int y = ymin; y <= ymax; ++y) {
    for (int x = xmin; x <= xmax; ++x) {
      const Pt p{static_cast<double>(x), static_cast<double>(y)};
      bool pos = false, neg = false;
      for (int i = 0; i < 4; ++i) {
        const double c = Cross(q[i], q[(i + 1) % 4], p);
        pos |= c > 1e-9;
        neg |= c < -1e-9;
      }
      if (pos && neg) continue;
      sum += prob[static_cast<size_t>(y) * w + x];
      ++count;
    }
  }
  return count ? sum / count : 0.0;
}

// Grows the rectangle by `distance` on every side: what pyclipper's rounded offset followed by
// minAreaRect gives for a rectangle.
std::array<Pt, 4> Unclip(const std::array<Pt, 4>& r, double distance, double* short_side) {
  const Pt c{(r[0].x + r[2].x) / 2, (r[0].y + r[2].y) / 2};
  const double w = std::hypot(r[1].x - r[0].x, r[1].y - r[0].y);
  const double h = std::hypot(r[3].x - r[0].x, r[3].y - r[0].y);
  Pt u{1, 0}, v{0, 1};
  if (w > 0) u = {(r[1].x - r[0].x) / w, (r[1].y - r[0].y) / w};
  if (h > 0) v = {(r[3].x - r[0].x) / h, (r[3].y - r[0].y) / h};
  const double a = w / 2 + distance, b = h / 2 + distance;
  *short_side = 2 * std::min(a, b);
  auto corner = [&](double su, double sv) {
    return Pt{c.x + su * a * u.x + sv * b * v.x, c.y + su * a * u.y + sv * b * v.y};
  };
  return {corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)};
}

// RapidOCR's order_points_clockwise: top-left, top-right, bottom-right, bottom-left.
std::array<PointF, 4> OrderClockwise(std::array<PointF, 4> p) {
  std::stable_sort(p.begin(), p.end(), [](const PointF& a, const PointF& b) { return a.x < b.x; });
  auto by_y = [](const PointF& a, const PointF& b) { return a.y < b.y; };
  std::stable_sort(p.begin(), p.begin() + 2, by_y);
  std::stable_sort(p.begin() + 2, p.end(), by_y);
  return {p[0], p[2], p[3], p[1]};
}

}  // namespace

std::vector<TextBox> DbPostprocess(const float* prob, int map_width, int map_height, int dest_width,
                                   int dest_height, const DbParams& params) {
  const int w = map_width, h = map_height;
  const size_t n = static_cast<size_t>(w) * h;
  std::vector<uint8_t> mask(n);
  for (size_t i = 0; i < n; ++i) mask[i] = prob[i] > params.thresh;
  if (params.use_dilation) {
    // cv2.dilate with a 2x2 kernel anchored at its centre: a pixel is set when it or its left,
    // upper or upper-left neighbour is.
    std::vector<uint8_t> grown(n);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        uint8_t v = 0;
        for (int dy = -1; dy <= 0 && !v; ++dy) {
          for (int dx = -1; dx <= 0 && !v; ++dx) {
            const int yy = y + dy, xx = x + dx;
            if (yy >= 0 && xx >= 0) v = mask[static_cast<size_t>(yy) * w + xx];
          }
        }
        grown[static_cast<size_t>(y) * w + x] = v;
      }
    }
    mask.swap(grown);
  }

  // 8-connected components, each reduced to the leftmost and rightmost pixel of every row
  // (enough for the convex hull).
  std::vector<int32_t> label(n, -1);
  std::vector<std::vector<Pt>> regions;
  std::vector<size_t> stack;
  for (size_t start = 0; start < n && static_cast<int>(regions.size()) < params.max_candidates;
       ++start) {
    if (!mask[start] || label[start] >= 0) continue;
    const int id = static_cast<int>(regions.size());
    std::vector<int> row_min(h, w), row_max(h, -1);
    label[start] = id;
    stack.assign(1, start);
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
      row_min[y] = std::min(row_min[y], x);
      row_max[y] = std::max(row_max[y], x);
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int yy = y + dy, xx = x + dx;
          if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
          const size_t j = static_cast<size_t>(yy) * w + xx;
          if (mask[j] && label[j] < 0) {
            label[j] = id;
            stack.push_back(j);
          }
        }
      }
    }
    std::vector<Pt> pts;
    for (int y = 0; y < h; ++y) {
      if (row_max[y] < 0) continue;
      pts.push_back({static_cast<double>(row_min[y]), static_cast<double>(y)});
      if (row_max[y] != row_min[y]) pts.push_back({static_cast<double>(row_max[y]), double(y)});
    }
    regions.push_back(std::move(pts));
  }

  const int min_size = 3;
  std::vector<TextBox> boxes;
  for (const std::vector<Pt>& region : regions) {
    double sside = 0;
    std::array<Pt, 4> rect = MiniBoxOrder(MinAreaRect(ConvexHull(region), &sside));
    if (sside < min_size) continue;
    const double score = BoxScore(prob, w, h, rect);
    if (score < params.box_thresh) continue;
    const double degrees =
        std::atan2(rect[1].y - rect[0].y, rect[1].x - rect[0].x) * 180.0 / 3.14159265358979;
    if (std::fabs(degrees - 90.0 * std::round(degrees / 90.0)) < params.axis_snap_degrees) {
      double x0 = region[0].x, x1 = x0, y0 = region[0].y, y1 = y0;
      for (const Pt& p : region) {
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
      }
      rect = {Pt{x0, y0}, Pt{x1, y0}, Pt{x1, y1}, Pt{x0, y1}};
    }
    double area = 0, perimeter = 0;
    for (int i = 0; i < 4; ++i) {
      const Pt& a = rect[i];
      const Pt& b = rect[(i + 1) % 4];
      area += a.x * b.y - b.x * a.y;
      perimeter += std::hypot(b.x - a.x, b.y - a.y);
    }
    const double distance = std::fabs(area) / 2 * params.unclip_ratio / perimeter;
    const std::array<Pt, 4> grown = MiniBoxOrder(Unclip(rect, distance, &sside));
    if (sside < min_size + 2) continue;

    // Into the destination image: rounded like np.round, clipped, then RapidOCR's
    // filter_tag_det_res (clockwise order, clip to the last pixel, drop thin boxes).
    std::array<PointF, 4> pts;
    for (int i = 0; i < 4; ++i) {
      const double x = std::nearbyint(grown[i].x / w * dest_width);
      const double y = std::nearbyint(grown[i].y / h * dest_height);
      pts[i].x = static_cast<float>(std::clamp(x, 0.0, static_cast<double>(dest_width - 1)));
      pts[i].y = static_cast<float>(std::clamp(y, 0.0, static_cast<double>(dest_height - 1)));
    }
    pts = OrderClockwise(pts);
    const int box_w = static_cast<int>(std::hypot(pts[0].x - pts[1].x, pts[0].y - pts[1].y));
    const int box_h = static_cast<int>(std::hypot(pts[0].x - pts[3].x, pts[0].y - pts[3].y));
    if (box_w <= 3 || box_h <= 3) continue;
    boxes.push_back({pts, static_cast<float>(score)});
  }

  // RapidOCR's sorted_boxes: by top-left corner, then boxes on one line left to right.
  std::stable_sort(boxes.begin(), boxes.end(), [](const TextBox& a, const TextBox& b) {
    return a.pts[0].y < b.pts[0].y || (a.pts[0].y == b.pts[0].y && a.pts[0].x < b.pts[0].x);
  });
  for (size_t i = 0; i + 1 < boxes.size(); ++i) {
    for (size_t j = i + 1; j-- > 0;) {
      if (std::fabs(boxes[j + 1].pts[0].y - boxes[j].pts[0].y) < 10 &&
          boxes[j + 1].pts[0].x < boxes[j].pts[0].x) {
        std::swap(boxes[j], boxes[j + 1]);
      } else {
        break;
      }
    }
  }
  return boxes;
}

}  // namespace ocr

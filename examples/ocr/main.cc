// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// kiln_ocr: PP-OCRv4 text detection, direction classification and recognition through the
// public AscendCL API. Loads three .om files compiled by `kiln atc` from the models RapidOCR
// ships, reads a binary PPM, and prints every text line with its box, confidence and the
// latency of each stage. docs/ocr-demo.md describes the pipeline and the options.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl_model.h"
#include "ctc_decode.h"
#include "db_postprocess.h"
#include "image.h"

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Options {
  std::string image;
  std::string det = "det.om", cls = "cls.om", rec = "rec.om", keys = "ppocr_keys.txt";
  int det_limit = 960;
  ocr::DbParams db;
  float cls_thresh = 0.9f;
  float text_score = 0.5f;
  bool use_cls = true;
  int runs = 1;
  bool text_only = false;
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: kiln_ocr [options] IMAGE.ppm\n"
               "  --models DIR        DIR/det.om, DIR/cls.om, DIR/rec.om, DIR/ppocr_keys.txt\n"
               "  --det/--cls/--rec/--keys FILE   one of them elsewhere\n"
               "  --det-limit N       longest side of the detector input (default 960)\n"
               "  --thresh F          text pixel threshold (default 0.3)\n"
               "  --box-thresh F      box mean score threshold (default 0.5)\n"
               "  --unclip-ratio F    box growth (default 1.6)\n"
               "  --snap-degrees F    axis-align boxes tilted less than this (default 1; 0: off)\n"
               "  --cls-thresh F      rotate by 180 above this score (default 0.9)\n"
               "  --text-score F      drop lines below this confidence (default 0.5)\n"
               "  --no-cls            skip the direction classifier\n"
               "  --runs N            run the pipeline N times, report each run (default 1)\n"
               "  --text-only         print only the recognised lines\n");
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kiln_ocr: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&](const char* name) {
      const char* v = value(name);
      char* end = nullptr;
      const double d = std::strtod(v, &end);
      if (end == v || *end != '\0') {
        std::fprintf(stderr, "kiln_ocr: %s takes a number, not '%s'\n", name, v);
        std::exit(2);
      }
      return d;
    };
    if (a == "--models") {
      const std::string dir = value("--models");
      o->det = dir + "/det.om", o->cls = dir + "/cls.om", o->rec = dir + "/rec.om";
      o->keys = dir + "/ppocr_keys.txt";
    } else if (a == "--det") {
      o->det = value("--det");
    } else if (a == "--cls") {
      o->cls = value("--cls");
    } else if (a == "--rec") {
      o->rec = value("--rec");
    } else if (a == "--keys") {
      o->keys = value("--keys");
    } else if (a == "--det-limit") {
      o->det_limit = static_cast<int>(number("--det-limit"));
    } else if (a == "--thresh") {
      o->db.thresh = static_cast<float>(number("--thresh"));
    } else if (a == "--box-thresh") {
      o->db.box_thresh = static_cast<float>(number("--box-thresh"));
    } else if (a == "--unclip-ratio") {
      o->db.unclip_ratio = static_cast<float>(number("--unclip-ratio"));
    } else if (a == "--snap-degrees") {
      o->db.axis_snap_degrees = static_cast<float>(number("--snap-degrees"));
    } else if (a == "--cls-thresh") {
      o->cls_thresh = static_cast<float>(number("--cls-thresh"));
    } else if (a == "--text-score") {
      o->text_score = static_cast<float>(number("--text-score"));
    } else if (a == "--no-cls") {
      o->use_cls = false;
    } else if (a == "--runs") {
      o->runs = static_cast<int>(number("--runs"));
    } else if (a == "--text-only") {
      o->text_only = true;
    } else if (a == "-h" || a == "--help") {
      Usage(stdout);
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "kiln_ocr: unknown option %s\n", a.c_str());
      Usage(stderr);
      return false;
    } else if (o->image.empty()) {
      o->image = a;
    } else {
      std::fprintf(stderr, "kiln_ocr: one image only (got '%s' and '%s')\n", o->image.c_str(),
                   a.c_str());
      return false;
    }
  }
  if (o->image.empty()) {
    Usage(stderr);
    return false;
  }
  if (o->det_limit < 32 || o->runs < 1) {
    std::fprintf(stderr, "kiln_ocr: --det-limit must be >= 32 and --runs >= 1\n");
    return false;
  }
  return true;
}

struct Line {
  ocr::TextBox box;
  std::string text;
  float confidence = 0;
  bool rotated = false;  // the classifier turned the crop by 180 degrees
  float cls_score = 0;   // the classifier's score for its label
};

struct Timings {
  double det = 0, det_model = 0, cls = 0, cls_model = 0, rec = 0, rec_model = 0, total = 0;
};

struct Result {
  int det_width = 0, det_height = 0;
  std::vector<Line> lines;
  Timings t;
};

class Pipeline {
 public:
  Pipeline(const Options& o, ocr::AclModel* det, ocr::AclModel* cls, ocr::AclModel* rec,
           const ocr::CtcDictionary* dict)
      : o_(o), det_(det), cls_(cls), rec_(rec), dict_(dict) {}

  bool Run(const ocr::Image& image, Result* r, std::string* error) {
    const auto start = Clock::now();
    std::vector<ocr::Image> crops;
    if (!Detect(image, r, &crops, error)) return false;
    const auto cls_start = Clock::now();
    if (o_.use_cls) {
      for (size_t i = 0; i < crops.size(); ++i) {
        if (!Classify(&crops[i], &r->lines[i], &r->t, error)) return false;
      }
    }
    r->t.cls = MsSince(cls_start);
    const auto rec_start = Clock::now();
    for (size_t i = 0; i < crops.size(); ++i) {
      if (!Recognize(crops[i], &r->lines[i], &r->t, error)) return false;
    }
    // RapidOCR's text_score filter.
    r->lines.erase(std::remove_if(r->lines.begin(), r->lines.end(),
                                  [&](const Line& l) { return l.confidence < o_.text_score; }),
                   r->lines.end());
    r->t.rec = MsSince(rec_start);
    r->t.total = MsSince(start);
    return true;
  }

 private:
  bool Detect(const ocr::Image& input, Result* r, std::vector<ocr::Image>* crops,
              std::string* error) {
    const auto start = Clock::now();
    // RapidOCR's letterbox for short or very wide images: black rows above and below.
    ocr::Image image = input;
    int pad_top = 0;
    if (input.height <= 30 || input.width > 8 * input.height) {
      const int new_h = std::max(input.width / 8, 30) * 2;
      pad_top = std::abs(new_h - input.height) / 2;
      image = ocr::PadVertical(input, pad_top, pad_top);
    }
    // PaddleOCR's det_limit_type "max": scale down so the longest side fits the limit, then
    // round both sides to multiples of 32.
    const int h = image.height, w = image.width;
    double ratio = 1.0;
    if (std::max(h, w) > o_.det_limit) ratio = static_cast<double>(o_.det_limit) / std::max(h, w);
    int rh = std::max(32, static_cast<int>(std::round(static_cast<int>(h * ratio) / 32.0)) * 32);
    int rw = std::max(32, static_cast<int>(std::round(static_cast<int>(w * ratio) / 32.0)) * 32);
    // A detector compiled with a fixed size: fit the image into it, pad the rest.
    const std::vector<int64_t>& dims = det_->input_dims();
    int in_h = rh, in_w = rw;
    if (dims[2] > 0 && dims[3] > 0) {
      in_h = static_cast<int>(dims[2]), in_w = static_cast<int>(dims[3]);
      const double fit =
          std::min({1.0, static_cast<double>(in_h) / rh, static_cast<double>(in_w) / rw});
      rh = std::max(1, static_cast<int>(rh * fit)), rw = std::max(1, static_cast<int>(rw * fit));
    } else if (dims[2] > 0 || dims[3] > 0) {
      *error = "the detector must have both H and W dynamic (-1) or both fixed";
      return false;
    }
    r->det_width = in_w, r->det_height = in_h;
    std::vector<float> tensor(static_cast<size_t>(3) * in_h * in_w);
    ocr::ToPlanarBgr(ocr::ResizeBilinear(image, rw, rh), in_w, in_h, tensor.data());

    std::vector<float> prob;
    std::vector<int64_t> out_dims;
    const auto model_start = Clock::now();
    if (!det_->Run(tensor, {1, 3, in_h, in_w}, static_cast<size_t>(in_h) * in_w, &prob, &out_dims,
                   error)) {
      return false;
    }
    r->t.det_model += MsSince(model_start);
    if (out_dims.size() != 4 || out_dims[0] != 1 || out_dims[1] != 1 || out_dims[2] != in_h ||
        out_dims[3] != in_w) {
      *error = "the detector's output is not [1,1," + std::to_string(in_h) + "," +
               std::to_string(in_w) + "]";
      return false;
    }
    // Only the part of the map that covers the image (a fixed-size detector pads).
    std::vector<float> map(static_cast<size_t>(rh) * rw);
    for (int y = 0; y < rh; ++y) {
      std::copy_n(&prob[static_cast<size_t>(y) * in_w], rw, &map[static_cast<size_t>(y) * rw]);
    }
    std::vector<ocr::TextBox> boxes = ocr::DbPostprocess(map.data(), rw, rh, w, h, o_.db);

    for (ocr::TextBox& box : boxes) {
      // RapidOCR's get_rotate_crop_image.
      const auto& p = box.pts;
      auto dist = [](ocr::PointF a, ocr::PointF b) { return std::hypot(a.x - b.x, a.y - b.y); };
      const int cw = static_cast<int>(std::max(dist(p[0], p[1]), dist(p[2], p[3])));
      const int ch = static_cast<int>(std::max(dist(p[0], p[3]), dist(p[1], p[2])));
      if (cw < 1 || ch < 1) continue;
      ocr::Image crop = ocr::CropQuad(image, box.pts, cw, ch);
      if (crop.height >= 1.5 * crop.width) crop = ocr::Rotate90Ccw(crop);
      crops->push_back(std::move(crop));
      // Back into the input image's coordinates.
      for (ocr::PointF& q : box.pts) {
        q.y = std::min(std::max(q.y - pad_top, 0.0f), static_cast<float>(input.height));
      }
      Line line;
      line.box = box;
      r->lines.push_back(line);
    }
    r->t.det = MsSince(start);
    return true;
  }

  bool Classify(ocr::Image* crop, Line* line, Timings* t, std::string* error) {
    const std::vector<int64_t>& dims = cls_->input_dims();
    const int in_h = dims[2] > 0 ? static_cast<int>(dims[2]) : 48;
    const int in_w = dims[3] > 0 ? static_cast<int>(dims[3]) : 192;
    const int rw =
        std::min(in_w, static_cast<int>(std::ceil(in_h * crop->width / double(crop->height))));
    std::vector<float> tensor(static_cast<size_t>(3) * in_h * in_w);
    ocr::ToPlanarBgr(ocr::ResizeBilinear(*crop, std::max(rw, 1), in_h), in_w, in_h, tensor.data());
    std::vector<float> out;
    std::vector<int64_t> out_dims;
    const auto start = Clock::now();
    if (!cls_->Run(tensor, {1, 3, in_h, in_w}, 2, &out, &out_dims, error)) return false;
    t->cls_model += MsSince(start);
    if (out.size() != 2) {
      *error = "the classifier's output has " + std::to_string(out.size()) + " values, not 2";
      return false;
    }
    const int label = out[1] > out[0] ? 1 : 0;  // labels "0" and "180"
    line->cls_score = out[label];
    if (label == 1 && out[label] > o_.cls_thresh) {
      *crop = ocr::Rotate180(*crop);
      line->rotated = true;
    }
    return true;
  }

  bool Recognize(const ocr::Image& crop, Line* line, Timings* t, std::string* error) {
    const std::vector<int64_t>& dims = rec_->input_dims();
    const int in_h = dims[2] > 0 ? static_cast<int>(dims[2]) : 48;
    const double wh = crop.width / static_cast<double>(crop.height);
    // RapidOCR with one line a batch: at least 320 wide, wider for longer lines; a recogniser
    // compiled with a fixed width squeezes longer lines into it.
    int in_w = static_cast<int>(in_h * std::max(320.0 / 48.0, wh));
    if (dims[3] > 0) in_w = static_cast<int>(dims[3]);
    const int rw = std::min(in_w, static_cast<int>(std::ceil(in_h * wh)));
    std::vector<float> tensor(static_cast<size_t>(3) * in_h * in_w);
    ocr::ToPlanarBgr(ocr::ResizeBilinear(crop, std::max(rw, 1), in_h), in_w, in_h, tensor.data());
    std::vector<float> out;
    std::vector<int64_t> out_dims;
    const auto start = Clock::now();
    // The time steps are the width / 8; in_w of them is a safe bound.
    if (!rec_->Run(tensor, {1, 3, in_h, in_w}, static_cast<size_t>(in_w) * dict_->NumClasses(),
                   &out, &out_dims, error)) {
      return false;
    }
    t->rec_model += MsSince(start);
    if (out_dims.size() != 3 || out_dims[0] != 1 ||
        out_dims[2] != static_cast<int64_t>(dict_->NumClasses())) {
      *error = "the recogniser's output is not [1, steps, " + std::to_string(dict_->NumClasses()) +
               "] (the dictionary's classes)";
      return false;
    }
    const ocr::CtcDictionary::Text text =
        dict_->Decode(out.data(), static_cast<size_t>(out_dims[1]));
    line->text = text.text;
    line->confidence = text.confidence;
    return true;
  }

  const Options& o_;
  ocr::AclModel* det_;
  ocr::AclModel* cls_;
  ocr::AclModel* rec_;
  const ocr::CtcDictionary* dict_;
};

void PrintLines(const Options& o, const ocr::Image& image, const Result& r) {
  if (o.text_only) {
    for (const Line& l : r.lines) std::printf("%s\n", l.text.c_str());
    return;
  }
  std::printf("image %s: %dx%d, detector input %dx%d\n", o.image.c_str(), image.width, image.height,
              r.det_width, r.det_height);
  for (size_t i = 0; i < r.lines.size(); ++i) {
    const Line& l = r.lines[i];
    const auto& p = l.box.pts;
    std::printf("line %zu: \"%s\"\n  confidence %.3f  box [[%g,%g],[%g,%g],[%g,%g],[%g,%g]]", i + 1,
                l.text.c_str(), l.confidence, p[0].x, p[0].y, p[1].x, p[1].y, p[2].x, p[2].y,
                p[3].x, p[3].y);
    std::printf("  det score %.3f", l.box.score);
    if (o.use_cls) std::printf("  angle %s (%.3f)", l.rotated ? "180" : "0", l.cls_score);
    std::printf("\n");
  }
  if (r.lines.empty()) std::printf("no text found\n");
}

void PrintLatency(const Result& r) {
  const Timings& t = r.t;
  std::printf(
      "det %.1f ms (model %.1f), cls %.1f ms (model %.1f), rec %.1f ms (model %.1f), "
      "total %.1f ms\n",
      t.det, t.det_model, t.cls, t.cls_model, t.rec, t.rec_model, t.total);
}

#define MAIN_ACL_CHECK(call)                                                           \
  do {                                                                                 \
    const aclError code_ = (call);                                                     \
    if (code_ != ACL_SUCCESS) {                                                        \
      std::fprintf(stderr, "kiln_ocr: %s\n", ocr::AclErrorText(#call, code_).c_str()); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

int RunWithDevice(const Options& o, const ocr::Image& image, const ocr::CtcDictionary& dict) {
  std::string error;
  const auto load_start = Clock::now();
  std::unique_ptr<ocr::AclModel> det = ocr::AclModel::Load(o.det, &error);
  std::unique_ptr<ocr::AclModel> cls;
  if (det && o.use_cls) cls = ocr::AclModel::Load(o.cls, &error);
  std::unique_ptr<ocr::AclModel> rec;
  if (det && (cls || !o.use_cls)) rec = ocr::AclModel::Load(o.rec, &error);
  if (!rec) {
    std::fprintf(stderr, "kiln_ocr: %s\n", error.c_str());
    return 1;
  }
  const double load_ms = MsSince(load_start);
  if (!o.text_only) std::printf("models loaded in %.1f ms\n", load_ms);
  Pipeline pipeline(o, det.get(), cls.get(), rec.get(), &dict);
  std::vector<Result> results(o.runs);
  for (int run = 0; run < o.runs; ++run) {
    if (!pipeline.Run(image, &results[run], &error)) {
      std::fprintf(stderr, "kiln_ocr: %s\n", error.c_str());
      return 1;
    }
  }
  PrintLines(o, image, results.back());
  if (o.text_only) return 0;
  for (int run = 0; run < o.runs; ++run) {
    if (o.runs > 1) {
      std::printf("latency, run %d: ", run + 1);
    } else {
      std::printf("latency: ");
    }
    PrintLatency(results[run]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) return 2;
  std::string error;
  ocr::Image image;
  ocr::CtcDictionary dict;
  if (!ocr::ReadPpm(o.image, &image, &error) || !dict.Load(o.keys, &error)) {
    std::fprintf(stderr, "kiln_ocr: %s\n", error.c_str());
    return 1;
  }
  MAIN_ACL_CHECK(aclInit(nullptr));
  MAIN_ACL_CHECK(aclrtSetDevice(0));
  const int rc = RunWithDevice(o, image, dict);
  MAIN_ACL_CHECK(aclrtResetDevice(0));
  MAIN_ACL_CHECK(aclFinalize());
  return rc;
}

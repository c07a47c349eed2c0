// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// DVPP's VPC calls as stream tasks (docs/dvpp.md, "VPC"): crop / resize / paste in all their
// single and batch forms, colour conversion, pyramid down, borders, histogram and look-up
// tables. Each call checks its handles, pictures, regions and memory at once (an error code,
// nothing queued) and queues the pixel work on the stream.
#include <numeric>

#include "capi/dvpp_objects.h"
#include "capi/error.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
namespace dvpp = kiln::capi::dvpp;
namespace media = kiln::media;
using kiln::Result;
using kiln::Status;

namespace {

// One crop -> resize -> paste, checked. With a border, `paste` is the output less its borders,
// and the border is grown around it (acldvppVpcBatchCropResizeMakeBorderAsync).
struct Job {
  media::Picture in, out;
  media::Rect crop, paste;
  bool has_border = false;
  media::BorderSpec border;
};

media::Rect Whole(const media::Picture& p) { return media::Rect{0, 0, p.width, p.height}; }

// The picture of a live description, checked and in device memory.
Result<media::Picture> Pic(const acldvppPicDesc* desc, const char* what) {
  KILN_ASSIGN_OR_RETURN(auto d, dvpp::LivePicDesc(desc, what));
  media::Picture pic = d->Get();
  KILN_RETURN_IF_ERROR(media::CheckPicture(what, pic).status(), "");
  KILN_RETURN_IF_ERROR(dvpp::CheckPictureMemory(what, pic), "");
  return pic;
}

// Fills a description's unset (0) width, height and strides for an output the size of `like`.
void FillUnset(const acldvppPicDesc* desc, uint32_t w, uint32_t h) {
  std::shared_ptr<dvpp::PicDesc> d = dvpp::PicDescs().Find(desc);
  if (d == nullptr) return;
  std::lock_guard<std::mutex> lock(d->mu);
  media::Picture& p = d->pic;
  if (p.width == 0) p.width = w;
  if (p.height == 0) p.height = h;
  const media::FormatInfo* f = media::FindFormat(p.format);
  if (f != nullptr && p.width_stride == 0) {
    p.width_stride =
        media::AlignUp(static_cast<uint32_t>(media::RowBytes(*f, p.width)), media::kStrideAlign);
  }
  if (p.height_stride == 0) p.height_stride = media::AlignUp(p.height, 2);
}

// The checks every whole-picture call makes: a channel with VPC, a checked input in device
// memory, then the output with its unset fields filled for a w x h result (size_of(input)).
template <typename SizeOf>
Status InputAndOutput(const acldvppChannelDesc* channel, const acldvppPicDesc* input,
                      acldvppPicDesc* output, SizeOf size_of, media::Picture* in,
                      media::Picture* out) {
  KILN_RETURN_IF_ERROR(dvpp::UsableChannel(channel, DVPP_CHNMODE_VPC, "DVPP_CHNMODE_VPC").status(),
                       "");
  KILN_ASSIGN_OR_RETURN(*in, Pic(input, "inputDesc"));
  const media::Rect size = size_of(*in);
  FillUnset(output, size.w, size.h);
  KILN_ASSIGN_OR_RETURN(*out, Pic(output, "outputDesc"));
  return Status::Ok();
}

Status CheckJob(const Job& job) {
  return media::CheckCropResizePaste(job.in, job.crop, job.out, job.paste);
}

void RunJob(const Job& job, media::Filter filter) {
  if (!job.has_border) {
    media::RunCropResizePaste(job.in, job.crop, job.out, job.paste, filter);
    return;
  }
  // Resize into a picture the size of the output less its borders, then grow it into the output.
  const media::BorderSpec& b = job.border;
  const media::FormatInfo& f = *media::FindFormat(job.out.format);
  media::Picture inner;
  inner.format = job.out.format;
  inner.width = job.paste.w;
  inner.height = job.paste.h;
  inner.width_stride =
      media::AlignUp(static_cast<uint32_t>(media::RowBytes(f, inner.width)), media::kStrideAlign);
  inner.height_stride = media::AlignUp(inner.height, 2);
  inner.size = media::PictureBytes(f, inner.width_stride, inner.height_stride);
  std::vector<uint8_t> buffer(inner.size);
  inner.data = buffer.data();
  media::RunCropResizePaste(job.in, job.crop, inner, Whole(inner), filter);
  media::RunMakeBorder(inner, job.out, b);
}

// Queues `jobs` (checked) as one task.
aclError Submit(const char* api, aclrtStream stream, std::vector<Job> jobs, media::Filter filter,
                std::vector<std::shared_ptr<dvpp::PicDesc>> outputs) {
  return Report(api, dvpp::Enqueue(stream, api, std::move(outputs),
                                   [jobs = std::move(jobs), filter]() -> Status {
                                     for (const Job& job : jobs) RunJob(job, filter);
                                     return Status::Ok();
                                   }));
}

// The single-picture crop/resize/paste calls. Null crop: the whole input; null paste: the
// whole output; null resize config: bilinear.
aclError CropResizePaste(const char* api, acldvppChannelDesc* channel, acldvppPicDesc* input,
                         acldvppPicDesc* output, acldvppRoiConfig* crop, acldvppRoiConfig* paste,
                         acldvppResizeConfig* resize, bool need_crop, bool need_paste,
                         aclrtStream stream) {
  KILN_CAPI(api, {
    auto ch = dvpp::UsableChannel(channel, DVPP_CHNMODE_VPC, "DVPP_CHNMODE_VPC");
    if (!ch.ok()) return Report(api, ch.status());
    Job job;
    auto in = Pic(input, "inputDesc");
    if (!in.ok()) return Report(api, in.status());
    auto out = Pic(output, "outputDesc");
    if (!out.ok()) return Report(api, out.status());
    job.in = *in;
    job.out = *out;
    job.crop = Whole(job.in);
    job.paste = Whole(job.out);
    if (need_crop) {
      auto r = dvpp::RoiRect(crop, "cropArea");
      if (!r.ok()) return Report(api, r.status());
      job.crop = *r;
    }
    if (need_paste) {
      auto r = dvpp::RoiRect(paste, "pasteArea");
      if (!r.ok()) return Report(api, r.status());
      job.paste = *r;
    }
    media::Filter filter = media::Filter::kBilinear;
    if (resize != nullptr) {
      auto f = dvpp::ResizeFilter(resize);
      if (!f.ok()) return Report(api, f.status());
      filter = *f;
    }
    Status st = CheckJob(job);
    if (!st.ok()) return Report(api, st);
    return Submit(api, stream, {job}, filter, {dvpp::PicDescs().Find(output)});
  });
}

// The batch forms: source i gives roiNums[i] crops; crop j goes to destination picture j.
aclError BatchCrop(const char* api, acldvppChannelDesc* channel, acldvppBatchPicDesc* src,
                   uint32_t* roiNums, uint32_t size, acldvppBatchPicDesc* dst,
                   acldvppRoiConfig* crops[], acldvppRoiConfig* pastes[],
                   acldvppBorderConfig* borders[], acldvppResizeConfig* resize,
                   aclrtStream stream) {
  KILN_CAPI(api, {
    auto ch = dvpp::UsableChannel(channel, DVPP_CHNMODE_VPC, "DVPP_CHNMODE_VPC");
    if (!ch.ok()) return Report(api, ch.status());
    auto sources = dvpp::BatchPicDescs().Live(api, src);
    if (sources == nullptr) return ACL_ERROR_INVALID_PARAM;
    std::shared_ptr<dvpp::BatchPicDesc> dests = dvpp::BatchPicDescs().Find(dst);
    if (dests == nullptr) {
      return InvalidParam(api, "dstBatchPicDescs ", kiln::PtrStr(dst),
                          " is NULL or not a live acldvppBatchPicDesc");
    }
    if (roiNums == nullptr || crops == nullptr)
      return InvalidParam(api, "roiNums or cropAreas is NULL");
    if (size == 0 || size > sources->members.size()) {
      return InvalidParam(api, "size ", size, " is not a number of source pictures (the batch has ",
                          sources->members.size(), ")");
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < size; ++i) total += roiNums[i];
    if (total == 0 || total > dests->members.size()) {
      return InvalidParam(api, "the roiNums add up to ", total, ", but the destination batch has ",
                          dests->members.size(), " pictures");
    }
    media::Filter filter = media::Filter::kBilinear;
    if (resize != nullptr) {
      auto f = dvpp::ResizeFilter(resize);
      if (!f.ok()) return Report(api, f.status());
      filter = *f;
    }
    std::vector<Job> jobs;
    uint32_t j = 0;
    for (uint32_t i = 0; i < size; ++i) {
      auto in = Pic(sources->members[i], "source picture");
      if (!in.ok())
        return Report(api, kiln::Status(in.status()).Annotate(kiln::StrCat("source ", i)));
      for (uint32_t k = 0; k < roiNums[i]; ++k, ++j) {
        Job job;
        job.in = *in;
        auto out = Pic(dests->members[j], "destination picture");
        if (!out.ok())
          return Report(api, kiln::Status(out.status()).Annotate(kiln::StrCat("destination ", j)));
        job.out = *out;
        auto crop = dvpp::RoiRect(crops[j], "cropAreas[j]");
        if (!crop.ok())
          return Report(api, kiln::Status(crop.status()).Annotate(kiln::StrCat("crop ", j)));
        job.crop = *crop;
        job.paste = Whole(job.out);
        if (pastes != nullptr) {
          auto paste = dvpp::RoiRect(pastes[j], "pasteAreas[j]");
          if (!paste.ok())
            return Report(api, kiln::Status(paste.status()).Annotate(kiln::StrCat("paste ", j)));
          job.paste = *paste;
        }
        if (borders != nullptr) {
          std::shared_ptr<dvpp::BorderConfig> cfg = dvpp::BorderConfigs().Find(borders[j]);
          if (cfg == nullptr) {
            return InvalidParam(api, "borderCfgs[", j,
                                "] is NULL or not a live acldvppBorderConfig");
          }
          const media::BorderSpec& bs = cfg->spec;
          if (uint64_t{bs.left} + bs.right >= job.out.width ||
              uint64_t{bs.top} + bs.bottom >= job.out.height) {
            return InvalidParam(api, "borderCfgs[", j, "]: borders top ", bs.top, ", bottom ",
                                bs.bottom, ", left ", bs.left, ", right ", bs.right,
                                " leave nothing of the ", job.out.width, "x", job.out.height,
                                " output");
          }
          kiln::Status grid = media::CheckBorderGrid(*media::FindFormat(job.out.format), bs,
                                                     job.out.width - bs.left - bs.right,
                                                     job.out.height - bs.top - bs.bottom);
          if (!grid.ok()) return Report(api, std::move(grid).Annotate(kiln::StrCat("crop ", j)));
          job.has_border = true;
          job.border = bs;
          // The crop is resized into the output less its borders.
          job.paste = media::Rect{bs.left, bs.top, job.out.width - bs.left - bs.right,
                                  job.out.height - bs.top - bs.bottom};
        }
        Status st = CheckJob(job);
        if (!st.ok()) return Report(api, std::move(st).Annotate(kiln::StrCat("crop ", j)));
        jobs.push_back(job);
      }
    }
    std::vector<std::shared_ptr<dvpp::PicDesc>> outputs;
    for (uint32_t k = 0; k < j; ++k) outputs.push_back(dvpp::PicDescs().Find(dests->members[k]));
    return Submit(api, stream, std::move(jobs), filter, std::move(outputs));
  });
}

}  // namespace

extern "C" {

aclError acldvppVpcResizeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                               acldvppPicDesc* outputDesc, acldvppResizeConfig* resizeConfig,
                               aclrtStream stream) {
  if (resizeConfig == nullptr) {
    return InvalidParam("acldvppVpcResizeAsync", "resizeConfig is NULL");
  }
  return CropResizePaste("acldvppVpcResizeAsync", channelDesc, inputDesc, outputDesc, nullptr,
                         nullptr, resizeConfig, false, false, stream);
}

aclError acldvppVpcCropAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                             acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                             aclrtStream stream) {
  return CropResizePaste("acldvppVpcCropAsync", channelDesc, inputDesc, outputDesc, cropArea,
                         nullptr, nullptr, true, false, stream);
}

aclError acldvppVpcCropResizeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                   acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                   acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  if (resizeConfig == nullptr) {
    return InvalidParam("acldvppVpcCropResizeAsync", "resizeConfig is NULL");
  }
  return CropResizePaste("acldvppVpcCropResizeAsync", channelDesc, inputDesc, outputDesc, cropArea,
                         nullptr, resizeConfig, true, false, stream);
}

aclError acldvppVpcCropAndPasteAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                     acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                     acldvppRoiConfig* pasteArea, aclrtStream stream) {
  return CropResizePaste("acldvppVpcCropAndPasteAsync", channelDesc, inputDesc, outputDesc,
                         cropArea, pasteArea, nullptr, true, true, stream);
}

aclError acldvppVpcCropResizePasteAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                        acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                        acldvppRoiConfig* pasteArea,
                                        acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  if (resizeConfig == nullptr) {
    return InvalidParam("acldvppVpcCropResizePasteAsync", "resizeConfig is NULL");
  }
  return CropResizePaste("acldvppVpcCropResizePasteAsync", channelDesc, inputDesc, outputDesc,
                         cropArea, pasteArea, resizeConfig, true, true, stream);
}

aclError acldvppVpcBatchCropAsync(acldvppChannelDesc* channelDesc,
                                  acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
                                  uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs,
                                  acldvppRoiConfig* cropAreas[], aclrtStream stream) {
  return BatchCrop("acldvppVpcBatchCropAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                   dstBatchPicDescs, cropAreas, nullptr, nullptr, nullptr, stream);
}

aclError acldvppVpcBatchCropResizeAsync(acldvppChannelDesc* channelDesc,
                                        acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
                                        uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs,
                                        acldvppRoiConfig* cropAreas[],
                                        acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  if (resizeConfig == nullptr) {
    return InvalidParam("acldvppVpcBatchCropResizeAsync", "resizeConfig is NULL");
  }
  return BatchCrop("acldvppVpcBatchCropResizeAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                   dstBatchPicDescs, cropAreas, nullptr, nullptr, resizeConfig, stream);
}

aclError acldvppVpcBatchCropAndPasteAsync(acldvppChannelDesc* channelDesc,
                                          acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
                                          uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs,
                                          acldvppRoiConfig* cropAreas[],
                                          acldvppRoiConfig* pasteAreas[], aclrtStream stream) {
  if (pasteAreas == nullptr) {
    return InvalidParam("acldvppVpcBatchCropAndPasteAsync", "pasteAreas is NULL");
  }
  return BatchCrop("acldvppVpcBatchCropAndPasteAsync", channelDesc, srcBatchPicDescs, roiNums, size,
                   dstBatchPicDescs, cropAreas, pasteAreas, nullptr, nullptr, stream);
}

aclError acldvppVpcBatchCropResizePasteAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppRoiConfig* pasteAreas[], acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  const char* api = "acldvppVpcBatchCropResizePasteAsync";
  if (pasteAreas == nullptr || resizeConfig == nullptr) {
    return InvalidParam(api, "pasteAreas or resizeConfig is NULL");
  }
  return BatchCrop(api, channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs, cropAreas,
                   pasteAreas, nullptr, resizeConfig, stream);
}

aclError acldvppVpcBatchCropResizeMakeBorderAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppBorderConfig* borderCfgs[], acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  const char* api = "acldvppVpcBatchCropResizeMakeBorderAsync";
  if (borderCfgs == nullptr || resizeConfig == nullptr) {
    return InvalidParam(api, "borderCfgs or resizeConfig is NULL");
  }
  return BatchCrop(api, channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs, cropAreas,
                   nullptr, borderCfgs, resizeConfig, stream);
}

aclError acldvppVpcConvertColorAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                     acldvppPicDesc* outputDesc, aclrtStream stream) {
  const char* api = "acldvppVpcConvertColorAsync";
  KILN_CAPI(api, {
    media::Picture in, out;
    Status st = InputAndOutput(channelDesc, inputDesc, outputDesc, Whole, &in, &out);
    if (st.ok()) st = media::CheckConvertColor(in, out);
    if (!st.ok()) return Report(api, st);
    Job job;
    job.in = in;
    job.out = out;
    job.crop = Whole(in);
    job.paste = Whole(out);
    return Submit(api, stream, {job}, media::Filter::kBilinear,
                  {dvpp::PicDescs().Find(outputDesc)});
  });
}

aclError acldvppVpcPyrDownAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                acldvppPicDesc* outputDesc, void* reserve, aclrtStream stream) {
  const char* api = "acldvppVpcPyrDownAsync";
  KILN_CAPI(api, {
    if (reserve != nullptr) return InvalidParam(api, "reserve must be NULL");
    media::Picture in, out;
    Status st = InputAndOutput(
        channelDesc, inputDesc, outputDesc,
        [](const media::Picture& p) {
          return media::Rect{0, 0, media::CeilDiv(p.width, 2), media::CeilDiv(p.height, 2)};
        },
        &in, &out);
    if (st.ok()) st = media::CheckPyrDown(in, out);
    if (!st.ok()) return Report(api, st);
    return Report(
        api, dvpp::Enqueue(stream, api, dvpp::PicDescs().Find(outputDesc), [in, out]() -> Status {
          media::RunPyrDown(in, out);
          return Status::Ok();
        }));
  });
}

aclError acldvppVpcMakeBorderAsync(const acldvppChannelDesc* channelDesc,
                                   const acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
                                   const acldvppBorderConfig* borderConfig, aclrtStream stream) {
  const char* api = "acldvppVpcMakeBorderAsync";
  KILN_CAPI(api, {
    std::shared_ptr<dvpp::BorderConfig> cfg = dvpp::BorderConfigs().Live(api, borderConfig);
    if (cfg == nullptr) return ACL_ERROR_INVALID_PARAM;
    const media::BorderSpec spec = cfg->spec;
    media::Picture in, out;
    Status st = InputAndOutput(
        channelDesc, inputDesc, outputDesc,
        [&](const media::Picture& p) {
          return media::Rect{0, 0, p.width + spec.left + spec.right,
                             p.height + spec.top + spec.bottom};
        },
        &in, &out);
    if (st.ok()) st = media::CheckMakeBorder(in, out, spec);
    if (!st.ok()) return Report(api, st);
    return Report(api, dvpp::Enqueue(stream, api, dvpp::PicDescs().Find(outputDesc),
                                     [in, out, spec]() -> Status {
                                       media::RunMakeBorder(in, out, spec);
                                       return Status::Ok();
                                     }));
  });
}

aclError acldvppVpcEqualizeHistAsync(const acldvppChannelDesc* channelDesc,
                                     const acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
                                     const acldvppLutMap* lutMap, aclrtStream stream) {
  const char* api = "acldvppVpcEqualizeHistAsync";
  KILN_CAPI(api, {
    std::shared_ptr<dvpp::LutMap> map = dvpp::LutMaps().Live(api, lutMap);
    if (map == nullptr) return ACL_ERROR_INVALID_PARAM;
    media::Picture in, out;
    Status st = InputAndOutput(channelDesc, inputDesc, outputDesc, Whole, &in, &out);
    if (st.ok()) st = media::CheckRemap(in, out);
    if (!st.ok()) return Report(api, st);
    return Report(api, dvpp::Enqueue(stream, api, dvpp::PicDescs().Find(outputDesc),
                                     [in, out, lut = map->lut]() -> Status {
                                       media::RunRemap(in, out, lut);
                                       return Status::Ok();
                                     }));
  });
}

aclError acldvppVpcCalcHistAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* srcPicDesc,
                                 acldvppHist* hist, void* reserve, aclrtStream stream) {
  const char* api = "acldvppVpcCalcHistAsync";
  KILN_CAPI(api, {
    if (reserve != nullptr) return InvalidParam(api, "reserve must be NULL");
    auto ch = dvpp::UsableChannel(channelDesc, DVPP_CHNMODE_VPC, "DVPP_CHNMODE_VPC");
    if (!ch.ok()) return Report(api, ch.status());
    std::shared_ptr<dvpp::Hist> h = dvpp::Hists().Live(api, hist);
    if (h == nullptr) return ACL_ERROR_INVALID_PARAM;
    auto in = Pic(srcPicDesc, "srcPicDesc");
    if (!in.ok()) return Report(api, in.status());
    return Report(api, dvpp::Enqueue(stream, api, nullptr, [in = *in, h]() -> Status {
                    std::vector<std::vector<uint32_t>> counts = media::CalcHist(in);
                    std::lock_guard<std::mutex> lock(h->mu);
                    h->dims = static_cast<uint32_t>(counts.size());
                    for (size_t d = 0; d < counts.size(); ++d) {
                      std::copy(counts[d].begin(), counts[d].end(), h->bins[d].begin());
                    }
                    h->ret_code = 0;
                    return Status::Ok();
                  }));
  });
}

}  // extern "C"

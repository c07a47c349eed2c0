// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The objects behind the DVPP handles (acl/ops/acl_dvpp.h) and what the DVPP calls share:
// reading a picture description, checking that a picture lies in device memory, finding a usable
// channel, and putting a media task on a stream.
#pragma once

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/ops/acl_dvpp.h"
#include "capi/handle_table.h"
#include "media/picture.h"
#include "media/vpc.h"

namespace kiln::capi::dvpp {

// Application threads set it; a stream task writes an output's fields when it runs.
struct PicDesc {
  media::Picture Get() const {
    std::lock_guard<std::mutex> lock(mu);
    return pic;
  }
  mutable std::mutex mu;
  media::Picture pic;
  uint32_t ret_code = 0;
  bool in_batch = false;  // owned by an acldvppBatchPicDesc
};

struct BatchPicDesc {
  std::vector<acldvppPicDesc*> members;
};

struct ChannelDesc {
  std::mutex mu;
  uint32_t mode = 0;  // acldvppChannelMode bits; 0 = all
  uint64_t id = 0;
  bool created = false;
};

struct RoiConfig {
  uint32_t left = 0, right = 0, top = 0, bottom = 0;
};
struct ResizeConfig {
  uint32_t interpolation = 0;
};
struct JpegeConfig {
  uint32_t level = 0;
};
struct BorderConfig {
  media::BorderSpec spec;
};
struct LutMap {
  LutMap();  // identity
  media::Lut lut;
};
struct Hist {
  Hist();
  std::mutex mu;
  std::array<std::vector<uint32_t>, 3>
      bins;  // fixed storage: acldvppGetHistData hands out pointers
  uint32_t dims = 3;
  uint32_t ret_code = 0;
};

HandleTable<acldvppPicDesc, PicDesc>& PicDescs();
HandleTable<acldvppBatchPicDesc, BatchPicDesc>& BatchPicDescs();
HandleTable<acldvppChannelDesc, ChannelDesc>& ChannelDescs();
HandleTable<acldvppRoiConfig, RoiConfig>& RoiConfigs();
HandleTable<acldvppResizeConfig, ResizeConfig>& ResizeConfigs();
HandleTable<acldvppJpegeConfig, JpegeConfig>& JpegeConfigs();
HandleTable<acldvppBorderConfig, BorderConfig>& BorderConfigs();
HandleTable<acldvppLutMap, LutMap>& LutMaps();
HandleTable<acldvppHist, Hist>& Hists();

// A live channel created with acldvppCreateChannel whose mode includes `mode_bit`.
Result<std::shared_ptr<ChannelDesc>> UsableChannel(const acldvppChannelDesc* desc,
                                                   uint32_t mode_bit, const char* what);
// The description's current picture; `what` names it in errors.
Result<std::shared_ptr<PicDesc>> LivePicDesc(const acldvppPicDesc* desc, const char* what);
// `bytes` from `data` lie in one device allocation (the only memory DVPP reads and writes).
Status CheckDeviceData(const char* what, const void* data, uint64_t bytes);
// A picture checked by media::CheckPicture whose bytes are device memory.
Status CheckPictureMemory(const char* what, const media::Picture& p);
// A region from a ROI config (inclusive corners).
Result<media::Rect> RoiRect(const acldvppRoiConfig* roi, const char* what);
// The filter a resize config asks for (null: the default).
Result<media::Filter> ResizeFilter(const acldvppResizeConfig* config);

// Runs `work` on `stream` (NULL: the default stream) as a DVPP task; a failed Status marks the
// output description's ret code (when given) and is the stream's failure.
Status Enqueue(aclrtStream stream, std::string detail, std::shared_ptr<PicDesc> output,
               std::function<Status()> work);
// The same with every output description of a batch.
Status Enqueue(aclrtStream stream, std::string detail,
               std::vector<std::shared_ptr<PicDesc>> outputs, std::function<Status()> work);

}  // namespace kiln::capi::dvpp

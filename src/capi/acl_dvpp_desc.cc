// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// DVPP descriptions and configs (acl/ops/acl_dvpp.h): channels, pictures, batches, regions,
// resize, JPEG-encode, border, look-up-table and histogram objects, and what the DVPP calls
// share (capi/dvpp_objects.h). Setters on a NULL or dead handle return ACL_ERROR_INVALID_PARAM;
// getters return 0 (the documented default).
#include <atomic>
#include <numeric>

#include "capi/dvpp_objects.h"
#include "capi/error.h"
#include "capi/handle_calls.h"
#include "runtime/profiler.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;
namespace dvpp = kiln::capi::dvpp;

namespace kiln::capi::dvpp {

HandleTable<acldvppPicDesc, PicDesc>& PicDescs() {
  return GlobalTable<acldvppPicDesc, PicDesc>("picDesc", "acldvppPicDesc");
}
HandleTable<acldvppBatchPicDesc, BatchPicDesc>& BatchPicDescs() {
  return GlobalTable<acldvppBatchPicDesc, BatchPicDesc>("batchPicDesc", "acldvppBatchPicDesc");
}
HandleTable<acldvppChannelDesc, ChannelDesc>& ChannelDescs() {
  return GlobalTable<acldvppChannelDesc, ChannelDesc>("channelDesc", "acldvppChannelDesc");
}
HandleTable<acldvppRoiConfig, RoiConfig>& RoiConfigs() {
  return GlobalTable<acldvppRoiConfig, RoiConfig>("roiConfig", "acldvppRoiConfig");
}
HandleTable<acldvppResizeConfig, ResizeConfig>& ResizeConfigs() {
  return GlobalTable<acldvppResizeConfig, ResizeConfig>("resizeConfig", "acldvppResizeConfig");
}
HandleTable<acldvppJpegeConfig, JpegeConfig>& JpegeConfigs() {
  return GlobalTable<acldvppJpegeConfig, JpegeConfig>("jpegeConfig", "acldvppJpegeConfig");
}
HandleTable<acldvppBorderConfig, BorderConfig>& BorderConfigs() {
  return GlobalTable<acldvppBorderConfig, BorderConfig>("borderConfig", "acldvppBorderConfig");
}
HandleTable<acldvppLutMap, LutMap>& LutMaps() {
  return GlobalTable<acldvppLutMap, LutMap>("lutMap", "acldvppLutMap");
}
HandleTable<acldvppHist, Hist>& Hists() {
  return GlobalTable<acldvppHist, Hist>("hist", "acldvppHist");
}

LutMap::LutMap() {
  for (auto& table : lut) std::iota(table.begin(), table.end(), 0);
}

Hist::Hist() {
  for (auto& b : bins) b.assign(media::kHistBins, 0);
}

Result<std::shared_ptr<ChannelDesc>> UsableChannel(const acldvppChannelDesc* desc,
                                                   uint32_t mode_bit, const char* what) {
  if (desc == nullptr) return Error(code::kInvalidParam, "channelDesc is NULL");
  std::shared_ptr<ChannelDesc> ch = ChannelDescs().Find(desc);
  if (ch == nullptr) return Error(code::kInvalidParam, ChannelDescs().NotLive(desc));
  std::lock_guard<std::mutex> lock(ch->mu);
  if (!ch->created) {
    return Error(code::kInvalidParam, "channelDesc ", PtrStr(desc),
                 " has no channel: call acldvppCreateChannel first");
  }
  if (ch->mode != 0 && (ch->mode & mode_bit) == 0) {
    return Error(code::kInvalidParam, "channel ", ch->id, " was created with mode ", ch->mode,
                 ", which does not include ", what, " (acldvppSetChannelDescMode)");
  }
  return ch;
}

Result<std::shared_ptr<PicDesc>> LivePicDesc(const acldvppPicDesc* desc, const char* what) {
  if (desc == nullptr) return Error(code::kInvalidParam, what, " is NULL");
  std::shared_ptr<PicDesc> p = PicDescs().Find(desc);
  if (p == nullptr) {
    return Error(code::kInvalidParam, what, " ", PtrStr(desc),
                 " is not a live acldvppPicDesc (destroyed already?)");
  }
  return p;
}

Status CheckDeviceData(const char* what, const void* data, uint64_t bytes) {
  if (data == nullptr) return Error(code::kInvalidParam, what, " data is NULL");
  runtime::PointerInfo info = Runtime::Get().Classify(data);
  if (info.kind != runtime::MemoryKind::kDevice) {
    return Error(code::kInvalidParam, what, " data ", PtrStr(data),
                 " is not device memory: DVPP reads and writes memory from acldvppMalloc");
  }
  if (bytes > info.bytes_from) {
    return Error(code::kInvalidParam, what, " data ", PtrStr(data), ": its ", bytes,
                 " bytes overrun the allocation, which has ", info.bytes_from,
                 " bytes from that address");
  }
  return Status::Ok();
}

Status CheckPictureMemory(const char* what, const media::Picture& p) {
  const media::FormatInfo& f = *media::FindFormat(p.format);
  return CheckDeviceData(what, p.data, media::PictureBytes(f, p.width_stride, p.height_stride));
}

Result<media::Rect> RoiRect(const acldvppRoiConfig* roi, const char* what) {
  if (roi == nullptr) return Error(code::kInvalidParam, what, " is NULL");
  std::shared_ptr<RoiConfig> r = RoiConfigs().Find(roi);
  if (r == nullptr) {
    return Error(code::kInvalidParam, what, " ", PtrStr(roi),
                 " is not a live acldvppRoiConfig (destroyed already?)");
  }
  if (r->right < r->left || r->bottom < r->top) {
    return Error(code::kInvalidParam, what, " left ", r->left, ", right ", r->right, ", top ",
                 r->top, ", bottom ", r->bottom, " is empty (right and bottom are inclusive)");
  }
  return media::Rect{r->left, r->top, r->right - r->left + 1, r->bottom - r->top + 1};
}

Result<media::Filter> ResizeFilter(const acldvppResizeConfig* config) {
  if (config == nullptr) return Error(code::kInvalidParam, "resizeConfig is NULL");
  std::shared_ptr<ResizeConfig> c = ResizeConfigs().Find(config);
  if (c == nullptr) return Error(code::kInvalidParam, ResizeConfigs().NotLive(config));
  switch (c->interpolation) {
    case 0:
    case 1:
      return media::Filter::kBilinear;
    case 2:
      return media::Filter::kNearest;
  }
  return Error(code::kInvalidParam, "resize interpolation ", c->interpolation,
               " is not supported (0 or 1: bilinear, 2: nearest neighbour)");
}

Status Enqueue(aclrtStream stream, std::string detail, std::shared_ptr<PicDesc> output,
               std::function<Status()> work) {
  std::vector<std::shared_ptr<PicDesc>> outputs;
  if (output != nullptr) outputs.push_back(std::move(output));
  return Enqueue(stream, std::move(detail), std::move(outputs), std::move(work));
}

Status Enqueue(aclrtStream stream, std::string detail,
               std::vector<std::shared_ptr<PicDesc>> outputs, std::function<Status()> work) {
  KILN_ASSIGN_OR_RETURN(auto s, Runtime::Get().ResolveStream(stream));
  s->queue().Submit(
      runtime::TimedTask(runtime::TaskKind::kDvpp, *s, std::move(detail),
                         [outputs = std::move(outputs), work = std::move(work)]() -> Status {
                           Status st = work();
                           for (const auto& output : outputs) {
                             std::lock_guard<std::mutex> lock(output->mu);
                             output->ret_code = st.ok() ? 0 : static_cast<uint32_t>(st.code());
                           }
                           return st;
                         }));
  return Status::Ok();
}

}  // namespace kiln::capi::dvpp

namespace {

using kiln::capi::CreateHandle;
using kiln::capi::DestroyHandle;
using kiln::capi::GetFromHandle;
using kiln::capi::GetFromHandleLocked;
using kiln::capi::SetOnHandle;
using kiln::capi::SetOnHandleLocked;

// Sets one field of a picture description.
template <typename F>
aclError SetPic(const char* api, acldvppPicDesc* desc, F&& set) {
  return SetOnHandleLocked(api, dvpp::PicDescs(), desc, [&](dvpp::PicDesc& p) -> aclError {
    set(p);
    return ACL_SUCCESS;
  });
}

template <typename R, typename F>
R GetPic(const acldvppPicDesc* desc, R fallback, F&& get) {
  return GetFromHandleLocked(dvpp::PicDescs(), desc, fallback, get);
}

std::atomic<uint64_t> g_next_channel{0};

// The most pictures a batch description holds (DVPP's batch calls take up to 256 regions; the
// limit keeps a wrong size from allocating gigabytes of descriptions).
constexpr uint32_t kMaxBatch = 4096;

}  // namespace

extern "C" {

// ---- channels ----

acldvppChannelDesc* acldvppCreateChannelDesc() {
  return CreateHandle("acldvppCreateChannelDesc", dvpp::ChannelDescs());
}

aclError acldvppDestroyChannelDesc(acldvppChannelDesc* channelDesc) {
  return DestroyHandle("acldvppDestroyChannelDesc", dvpp::ChannelDescs(), channelDesc);
}

uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc* channelDesc) {
  return GetFromHandle(dvpp::ChannelDescs(), channelDesc, uint64_t{0}, [](dvpp::ChannelDesc& c) {
    std::lock_guard<std::mutex> lock(c.mu);
    return c.id;
  });
}

aclError acldvppSetChannelDescMode(acldvppChannelDesc* channelDesc, uint32_t mode) {
  const char* api = "acldvppSetChannelDescMode";
  return SetOnHandle(api, dvpp::ChannelDescs(), channelDesc, [&](dvpp::ChannelDesc& c) -> aclError {
    constexpr uint32_t kAll = DVPP_CHNMODE_VPC | DVPP_CHNMODE_JPEGD | DVPP_CHNMODE_JPEGE;
    if ((mode & ~kAll) != 0) {
      return InvalidParam(api, "mode ", mode,
                          " is not a set of DVPP_CHNMODE_VPC, DVPP_CHNMODE_JPEGD and"
                          " DVPP_CHNMODE_JPEGE");
    }
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.created) return InvalidParam(api, "the channel exists already: set its mode before");
    c.mode = mode;
    return ACL_SUCCESS;
  });
}

aclError acldvppCreateChannel(acldvppChannelDesc* channelDesc) {
  const char* api = "acldvppCreateChannel";
  return SetOnHandle(api, dvpp::ChannelDescs(), channelDesc, [&](dvpp::ChannelDesc& c) -> aclError {
    auto s = Runtime::Get().ResolveStream(nullptr);  // a channel belongs to the current context
    if (!s.ok()) return Report(api, s.status());
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.created) return InvalidParam(api, "channelDesc has a channel already (", c.id, ")");
    c.created = true;
    c.id = g_next_channel.fetch_add(1);
    return ACL_SUCCESS;
  });
}

aclError acldvppDestroyChannel(acldvppChannelDesc* channelDesc) {
  const char* api = "acldvppDestroyChannel";
  return SetOnHandle(api, dvpp::ChannelDescs(), channelDesc, [&](dvpp::ChannelDesc& c) -> aclError {
    std::lock_guard<std::mutex> lock(c.mu);
    if (!c.created) return InvalidParam(api, "channelDesc has no channel to destroy");
    c.created = false;
    return ACL_SUCCESS;
  });
}

// ---- picture descriptions ----

acldvppPicDesc* acldvppCreatePicDesc() {
  return CreateHandle("acldvppCreatePicDesc", dvpp::PicDescs());
}

aclError acldvppDestroyPicDesc(acldvppPicDesc* picDesc) {
  const char* api = "acldvppDestroyPicDesc";
  KILN_CAPI(api, {
    std::shared_ptr<dvpp::PicDesc> p = dvpp::PicDescs().Live(api, picDesc);
    if (p == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (p->in_batch) {
      return InvalidParam(api, "picDesc belongs to an acldvppBatchPicDesc: destroy the batch");
    }
    dvpp::PicDescs().Remove(picDesc);
    return ACL_SUCCESS;
  });
}

aclError acldvppSetPicDescData(acldvppPicDesc* picDesc, void* dataDev) {
  return SetPic("acldvppSetPicDescData", picDesc,
                [&](dvpp::PicDesc& p) { p.pic.data = static_cast<uint8_t*>(dataDev); });
}
aclError acldvppSetPicDescSize(acldvppPicDesc* picDesc, uint32_t size) {
  return SetPic("acldvppSetPicDescSize", picDesc, [&](dvpp::PicDesc& p) { p.pic.size = size; });
}
aclError acldvppSetPicDescFormat(acldvppPicDesc* picDesc, acldvppPixelFormat format) {
  return SetPic("acldvppSetPicDescFormat", picDesc,
                [&](dvpp::PicDesc& p) { p.pic.format = kiln::capi::EnumInt(format); });
}
aclError acldvppSetPicDescWidth(acldvppPicDesc* picDesc, uint32_t width) {
  return SetPic("acldvppSetPicDescWidth", picDesc, [&](dvpp::PicDesc& p) { p.pic.width = width; });
}
aclError acldvppSetPicDescHeight(acldvppPicDesc* picDesc, uint32_t height) {
  return SetPic("acldvppSetPicDescHeight", picDesc,
                [&](dvpp::PicDesc& p) { p.pic.height = height; });
}
aclError acldvppSetPicDescWidthStride(acldvppPicDesc* picDesc, uint32_t widthStride) {
  return SetPic("acldvppSetPicDescWidthStride", picDesc,
                [&](dvpp::PicDesc& p) { p.pic.width_stride = widthStride; });
}
aclError acldvppSetPicDescHeightStride(acldvppPicDesc* picDesc, uint32_t heightStride) {
  return SetPic("acldvppSetPicDescHeightStride", picDesc,
                [&](dvpp::PicDesc& p) { p.pic.height_stride = heightStride; });
}
aclError acldvppSetPicDescRetCode(acldvppPicDesc* picDesc, uint32_t retCode) {
  return SetPic("acldvppSetPicDescRetCode", picDesc,
                [&](dvpp::PicDesc& p) { p.ret_code = retCode; });
}

void* acldvppGetPicDescData(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, static_cast<void*>(nullptr),
                [](dvpp::PicDesc& p) { return static_cast<void*>(p.pic.data); });
}
uint32_t acldvppGetPicDescSize(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, uint32_t{0},
                [](dvpp::PicDesc& p) { return static_cast<uint32_t>(p.pic.size); });
}
acldvppPixelFormat acldvppGetPicDescFormat(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, PIXEL_FORMAT_YUV_400,
                [](dvpp::PicDesc& p) { return static_cast<acldvppPixelFormat>(p.pic.format); });
}
uint32_t acldvppGetPicDescWidth(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, uint32_t{0}, [](dvpp::PicDesc& p) { return p.pic.width; });
}
uint32_t acldvppGetPicDescHeight(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, uint32_t{0}, [](dvpp::PicDesc& p) { return p.pic.height; });
}
uint32_t acldvppGetPicDescWidthStride(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, uint32_t{0}, [](dvpp::PicDesc& p) { return p.pic.width_stride; });
}
uint32_t acldvppGetPicDescHeightStride(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, uint32_t{0}, [](dvpp::PicDesc& p) { return p.pic.height_stride; });
}
uint32_t acldvppGetPicDescRetCode(const acldvppPicDesc* picDesc) {
  return GetPic(picDesc, uint32_t{0}, [](dvpp::PicDesc& p) { return p.ret_code; });
}

// ---- batches ----

acldvppBatchPicDesc* acldvppCreateBatchPicDesc(uint32_t batchSize) {
  const char* api = "acldvppCreateBatchPicDesc";
  if (batchSize == 0 || batchSize > kMaxBatch) {
    InvalidParam(api, "batchSize ", batchSize, " is invalid: a batch holds 1 to ", kMaxBatch,
                 " pictures");
    return nullptr;
  }
  auto batch = std::make_shared<dvpp::BatchPicDesc>();
  try {
    batch->members.reserve(batchSize);
    for (uint32_t i = 0; i < batchSize; ++i) {
      auto pic = std::make_shared<dvpp::PicDesc>();
      pic->in_batch = true;
      batch->members.push_back(dvpp::PicDescs().Add(std::move(pic)));
    }
    return dvpp::BatchPicDescs().Add(batch);
  } catch (...) {
    for (acldvppPicDesc* member : batch->members) dvpp::PicDescs().Remove(member);
    Report(api, kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

acldvppPicDesc* acldvppGetPicDesc(acldvppBatchPicDesc* batchPicDesc, uint32_t index) {
  const char* api = "acldvppGetPicDesc";
  std::shared_ptr<dvpp::BatchPicDesc> b = dvpp::BatchPicDescs().Live(api, batchPicDesc);
  if (b == nullptr) return nullptr;
  if (index >= b->members.size()) {
    InvalidParam(api, "index ", index, " is out of range: the batch holds ", b->members.size());
    return nullptr;
  }
  return b->members[index];
}

aclError acldvppDestroyBatchPicDesc(acldvppBatchPicDesc* batchPicDesc) {
  const char* api = "acldvppDestroyBatchPicDesc";
  KILN_CAPI(api, {
    if (batchPicDesc == nullptr) return InvalidParam(api, "batchPicDesc is NULL");
    std::shared_ptr<dvpp::BatchPicDesc> b = dvpp::BatchPicDescs().Remove(batchPicDesc);
    if (b == nullptr) return InvalidParam(api, dvpp::BatchPicDescs().NotLive(batchPicDesc));
    for (acldvppPicDesc* member : b->members) dvpp::PicDescs().Remove(member);
    return ACL_SUCCESS;
  });
}

// ---- regions ----

acldvppRoiConfig* acldvppCreateRoiConfig(uint32_t left, uint32_t right, uint32_t top,
                                         uint32_t bottom) {
  return CreateHandle("acldvppCreateRoiConfig", dvpp::RoiConfigs(),
                      std::make_shared<dvpp::RoiConfig>(dvpp::RoiConfig{left, right, top, bottom}));
}
aclError acldvppDestroyRoiConfig(acldvppRoiConfig* roiConfig) {
  return DestroyHandle("acldvppDestroyRoiConfig", dvpp::RoiConfigs(), roiConfig);
}
aclError acldvppSetRoiConfigLeft(acldvppRoiConfig* config, uint32_t left) {
  return SetOnHandle("acldvppSetRoiConfigLeft", dvpp::RoiConfigs(), config,
                     [&](dvpp::RoiConfig& r) {
                       r.left = left;
                       return ACL_SUCCESS;
                     });
}
aclError acldvppSetRoiConfigRight(acldvppRoiConfig* config, uint32_t right) {
  return SetOnHandle("acldvppSetRoiConfigRight", dvpp::RoiConfigs(), config,
                     [&](dvpp::RoiConfig& r) {
                       r.right = right;
                       return ACL_SUCCESS;
                     });
}
aclError acldvppSetRoiConfigTop(acldvppRoiConfig* config, uint32_t top) {
  return SetOnHandle("acldvppSetRoiConfigTop", dvpp::RoiConfigs(), config, [&](dvpp::RoiConfig& r) {
    r.top = top;
    return ACL_SUCCESS;
  });
}
aclError acldvppSetRoiConfigBottom(acldvppRoiConfig* config, uint32_t bottom) {
  return SetOnHandle("acldvppSetRoiConfigBottom", dvpp::RoiConfigs(), config,
                     [&](dvpp::RoiConfig& r) {
                       r.bottom = bottom;
                       return ACL_SUCCESS;
                     });
}
aclError acldvppSetRoiConfig(acldvppRoiConfig* config, uint32_t left, uint32_t right, uint32_t top,
                             uint32_t bottom) {
  return SetOnHandle("acldvppSetRoiConfig", dvpp::RoiConfigs(), config, [&](dvpp::RoiConfig& r) {
    r = dvpp::RoiConfig{left, right, top, bottom};
    return ACL_SUCCESS;
  });
}

// ---- resize and JPEG-encode configs ----

acldvppResizeConfig* acldvppCreateResizeConfig() {
  return CreateHandle("acldvppCreateResizeConfig", dvpp::ResizeConfigs());
}
aclError acldvppDestroyResizeConfig(acldvppResizeConfig* resizeConfig) {
  return DestroyHandle("acldvppDestroyResizeConfig", dvpp::ResizeConfigs(), resizeConfig);
}
aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig* resizeConfig,
                                             uint32_t interpolation) {
  const char* api = "acldvppSetResizeConfigInterpolation";
  return SetOnHandle(
      api, dvpp::ResizeConfigs(), resizeConfig, [&](dvpp::ResizeConfig& c) -> aclError {
        if (interpolation > 2) {
          return InvalidParam(api, "interpolation ", interpolation,
                              " is not supported (0 or 1: bilinear, 2: nearest neighbour)");
        }
        c.interpolation = interpolation;
        return ACL_SUCCESS;
      });
}
uint32_t acldvppGetResizeConfigInterpolation(const acldvppResizeConfig* resizeConfig) {
  return GetFromHandle(dvpp::ResizeConfigs(), resizeConfig, uint32_t{0},
                       [](dvpp::ResizeConfig& c) { return c.interpolation; });
}

acldvppJpegeConfig* acldvppCreateJpegeConfig() {
  return CreateHandle("acldvppCreateJpegeConfig", dvpp::JpegeConfigs());
}
aclError acldvppDestroyJpegeConfig(acldvppJpegeConfig* jpegeConfig) {
  return DestroyHandle("acldvppDestroyJpegeConfig", dvpp::JpegeConfigs(), jpegeConfig);
}
aclError acldvppSetJpegeConfigLevel(acldvppJpegeConfig* jpegeConfig, uint32_t level) {
  const char* api = "acldvppSetJpegeConfigLevel";
  return SetOnHandle(api, dvpp::JpegeConfigs(), jpegeConfig, [&](dvpp::JpegeConfig& c) -> aclError {
    if (level > 100) return InvalidParam(api, "level ", level, " is outside [0, 100]");
    c.level = level;
    return ACL_SUCCESS;
  });
}
uint32_t acldvppGetJpegeConfigLevel(const acldvppJpegeConfig* jpegeConfig) {
  return GetFromHandle(dvpp::JpegeConfigs(), jpegeConfig, uint32_t{0},
                       [](dvpp::JpegeConfig& c) { return c.level; });
}

// ---- borders ----

acldvppBorderConfig* acldvppCreateBorderConfig() {
  return CreateHandle("acldvppCreateBorderConfig", dvpp::BorderConfigs());
}
aclError acldvppDestroyBorderConfig(acldvppBorderConfig* borderConfig) {
  return DestroyHandle("acldvppDestroyBorderConfig", dvpp::BorderConfigs(), borderConfig);
}
aclError acldvppSetBorderConfigValue(acldvppBorderConfig* borderConfig, uint32_t index,
                                     double value) {
  const char* api = "acldvppSetBorderConfigValue";
  return SetOnHandle(
      api, dvpp::BorderConfigs(), borderConfig, [&](dvpp::BorderConfig& c) -> aclError {
        if (index >= c.spec.value.size()) {
          return InvalidParam(api, "index ", index, " is out of range: a border has 4 values");
        }
        if (!(value >= 0 && value <= 255)) {
          return InvalidParam(api, "value ", value, " is outside [0, 255]");
        }
        c.spec.value[index] = value;
        return ACL_SUCCESS;
      });
}
aclError acldvppSetBorderConfigBorderType(acldvppBorderConfig* borderConfig,
                                          acldvppBorderType borderType) {
  const char* api = "acldvppSetBorderConfigBorderType";
  return SetOnHandle(
      api, dvpp::BorderConfigs(), borderConfig, [&](dvpp::BorderConfig& c) -> aclError {
        int type = kiln::capi::EnumInt(borderType);
        if (type < BORDER_CONSTANT || type > BORDER_REFLECT_101) {
          return InvalidParam(api, "borderType ", type, " is not an acldvppBorderType");
        }
        c.spec.type = static_cast<kiln::media::Border>(type);
        return ACL_SUCCESS;
      });
}
#define KILN_BORDER_SIDE(Side, field)                                                        \
  aclError acldvppSetBorderConfig##Side(acldvppBorderConfig* borderConfig, uint32_t field) { \
    return SetOnHandle("acldvppSetBorderConfig" #Side, dvpp::BorderConfigs(), borderConfig,  \
                       [&](dvpp::BorderConfig& c) {                                          \
                         c.spec.field = field;                                               \
                         return ACL_SUCCESS;                                                 \
                       });                                                                   \
  }                                                                                          \
  uint32_t acldvppGetBorderConfig##Side(const acldvppBorderConfig* borderConfig) {           \
    return GetFromHandle(dvpp::BorderConfigs(), borderConfig, uint32_t{0},                   \
                         [](dvpp::BorderConfig& c) { return c.spec.field; });                \
  }
KILN_BORDER_SIDE(Top, top)
KILN_BORDER_SIDE(Bottom, bottom)
KILN_BORDER_SIDE(Left, left)
KILN_BORDER_SIDE(Right, right)
#undef KILN_BORDER_SIDE
double acldvppGetBorderConfigValue(const acldvppBorderConfig* borderConfig, uint32_t index) {
  return GetFromHandle(dvpp::BorderConfigs(), borderConfig, -1.0, [&](dvpp::BorderConfig& c) {
    return index < c.spec.value.size() ? c.spec.value[index] : -1.0;
  });
}
acldvppBorderType acldvppGetBorderConfigBorderType(const acldvppBorderConfig* borderConfig) {
  return GetFromHandle(
      dvpp::BorderConfigs(), borderConfig, BORDER_CONSTANT,
      [](dvpp::BorderConfig& c) { return static_cast<acldvppBorderType>(c.spec.type); });
}

// ---- look-up tables and histograms ----

acldvppLutMap* acldvppCreateLutMap() {
  return CreateHandle("acldvppCreateLutMap", dvpp::LutMaps());
}
aclError acldvppDestroyLutMap(acldvppLutMap* lutMap) {
  return DestroyHandle("acldvppDestroyLutMap", dvpp::LutMaps(), lutMap);
}
uint32_t acldvppGetLutMapDims(const acldvppLutMap* lutMap) {
  return GetFromHandle(dvpp::LutMaps(), lutMap, uint32_t{0},
                       [](dvpp::LutMap& m) { return static_cast<uint32_t>(m.lut.size()); });
}
aclError acldvppGetLutMapData(const acldvppLutMap* lutMap, uint32_t dim, uint8_t** data,
                              uint32_t* len) {
  const char* api = "acldvppGetLutMapData";
  return SetOnHandle(api, dvpp::LutMaps(), lutMap, [&](dvpp::LutMap& m) -> aclError {
    if (data == nullptr || len == nullptr) return InvalidParam(api, "data or len is NULL");
    if (dim >= m.lut.size()) {
      return InvalidParam(api, "dim ", dim, " is out of range: the map has ", m.lut.size());
    }
    *data = m.lut[dim].data();
    *len = static_cast<uint32_t>(m.lut[dim].size());
    return ACL_SUCCESS;
  });
}

acldvppHist* acldvppCreateHist() { return CreateHandle("acldvppCreateHist", dvpp::Hists()); }
aclError acldvppDestroyHist(acldvppHist* hist) {
  return DestroyHandle("acldvppDestroyHist", dvpp::Hists(), hist);
}
uint32_t acldvppGetHistDims(acldvppHist* hist) {
  return GetFromHandle(dvpp::Hists(), hist, uint32_t{0}, [](dvpp::Hist& h) {
    std::lock_guard<std::mutex> lock(h.mu);
    return h.dims;
  });
}
aclError acldvppGetHistData(acldvppHist* hist, uint32_t dim, uint32_t** data, uint16_t* len) {
  const char* api = "acldvppGetHistData";
  return SetOnHandle(api, dvpp::Hists(), hist, [&](dvpp::Hist& h) -> aclError {
    if (data == nullptr || len == nullptr) return InvalidParam(api, "data or len is NULL");
    std::lock_guard<std::mutex> lock(h.mu);
    if (dim >= h.dims) return InvalidParam(api, "dim ", dim, " is out of range: dims ", h.dims);
    *data = h.bins[dim].data();
    *len = static_cast<uint16_t>(h.bins[dim].size());
    return ACL_SUCCESS;
  });
}
uint32_t acldvppGetHistRetCode(acldvppHist* hist) {
  return GetFromHandle(dvpp::Hists(), hist, uint32_t{0}, [](dvpp::Hist& h) {
    std::lock_guard<std::mutex> lock(h.mu);
    return h.ret_code;
  });
}
aclError acldvppClearHist(acldvppHist* hist) {
  return SetOnHandle("acldvppClearHist", dvpp::Hists(), hist, [](dvpp::Hist& h) {
    std::lock_guard<std::mutex> lock(h.mu);
    for (auto& b : h.bins) std::fill(b.begin(), b.end(), 0);
    h.ret_code = 0;
    return ACL_SUCCESS;
  });
}

}  // extern "C"

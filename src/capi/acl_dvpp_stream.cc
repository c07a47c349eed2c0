// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Compressed-stream descriptions, the video frame configs, and the callback stream VDEC and
// VENC channels run on (capi/dvpp_video.h).
#include "capi/dvpp_video.h"

#include <pthread.h>

#include "capi/error.h"
#include "capi/handle_calls.h"
#include "media/picture.h"
#include "runtime/profiler.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;
namespace dvpp = kiln::capi::dvpp;

namespace kiln::capi::dvpp {

HandleTable<acldvppStreamDesc, StreamDesc>& StreamDescs() {
  return GlobalTable<acldvppStreamDesc, StreamDesc>("streamDesc", "acldvppStreamDesc");
}
HandleTable<aclvdecFrameConfig, VdecFrameConfig>& VdecFrameConfigs() {
  return GlobalTable<aclvdecFrameConfig, VdecFrameConfig>("vdecFrameConfig", "aclvdecFrameConfig");
}
HandleTable<aclvencFrameConfig, VencFrameConfig>& VencFrameConfigs() {
  return GlobalTable<aclvencFrameConfig, VencFrameConfig>("config", "aclvencFrameConfig");
}

Status CheckVideoPictureFormat(int format, const char* what) {
  if (format == PIXEL_FORMAT_YUV_SEMIPLANAR_420 || format == PIXEL_FORMAT_YVU_SEMIPLANAR_420) {
    return Status::Ok();
  }
  return Error(code::kInvalidParam, media::FormatName(format), " is not a ", what,
               " format (YUV or YVU semi-planar 4:2:0)");
}

void CallbackStream::RunSlot(void* slot) {
  auto* s = static_cast<Slot*>(slot);
  for (auto& callback : s->box) callback();
  s->done.store(true, std::memory_order_release);
}

Result<std::shared_ptr<CallbackStream>> CallbackStream::Open(uint64_t thread_id) {
  if (thread_id == 0) {
    return Error(code::kInvalidParam,
                 "the channel has no report thread: set the pthread_t of a thread that calls "
                 "aclrtProcessReport (Set*ChannelDescThreadId)");
  }
  std::shared_ptr<CallbackStream> cs(new CallbackStream());
  KILN_ASSIGN_OR_RETURN(void* handle, Runtime::Get().CreateStream(0, 0));
  auto s = Runtime::Get().ResolveStream(handle);
  Status st = s.ok() ? Runtime::Get().reports().Subscribe(thread_id, **s) : s.status();
  if (!st.ok()) {
    (void)Runtime::Get().DestroyStream(handle, false);
    return st;
  }
  cs->handle_ = handle;
  cs->stream_ = *s;
  cs->thread_ = thread_id;
  cs->closed_ = false;
  return cs;
}

CallbackStream::~CallbackStream() { (void)Close(); }

Status CallbackStream::Submit(std::function<Status(Mailbox&)> work, std::string detail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Error(code::kInvalidParam, "the channel is being destroyed");
  KILN_ASSIGN_OR_RETURN(auto gate, Runtime::Get().NewInternalEvent(stream_->device()));
  while (!slots_.empty() && slots_.front()->done.load(std::memory_order_acquire)) {
    slots_.pop_front();
  }
  slots_.push_back(std::make_unique<Slot>());
  Slot* slot = slots_.back().get();
  stream_->queue().Submit(
      runtime::TimedTask(runtime::TaskKind::kDvpp, *stream_, std::move(detail),
                         [slot, work = std::move(work)] { return work(slot->box); }));
  return Runtime::Get().reports().Launch(&CallbackStream::RunSlot, slot, std::move(gate), stream_);
}

bool CallbackStream::OnReportThread() const {
  return pthread_equal(pthread_self(), static_cast<pthread_t>(thread_)) != 0;
}

Status CallbackStream::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Status::Ok();
    if (OnReportThread()) {
      return Error(code::kInvalidParam,
                   "the channel is destroyed from its own report thread, which must run the "
                   "callbacks the destruction waits for: destroy it from another thread");
    }
    closed_ = true;  // no Submit after this; those before it are all queued
  }
  Status st = stream_->queue().Synchronize(-1);
  // A callback's gate holds only the work after it: one more (empty) task waits for the last
  // callback to have run before the subscription ends.
  stream_->queue().Submit([] { return Status::Ok(); });
  Status last = stream_->queue().Synchronize(-1);
  if (st.ok()) st = last;
  (void)Runtime::Get().reports().Unsubscribe(thread_, *stream_);
  (void)Runtime::Get().DestroyStream(handle_, false);
  slots_.clear();  // nothing runs them any more
  return st;
}

}  // namespace kiln::capi::dvpp

namespace {

template <typename F>
aclError SetStream(const char* api, acldvppStreamDesc* desc, F&& set) {
  return kiln::capi::SetOnHandleLocked(api, dvpp::StreamDescs(), desc,
                                       [&](dvpp::StreamDesc& d) -> aclError {
                                         set(d);
                                         return ACL_SUCCESS;
                                       });
}

template <typename R, typename F>
R GetStream(const acldvppStreamDesc* desc, R fallback, F&& get) {
  return kiln::capi::GetFromHandleLocked(dvpp::StreamDescs(), desc, fallback, get);
}

}  // namespace

extern "C" {

acldvppStreamDesc* acldvppCreateStreamDesc() {
  return kiln::capi::CreateHandle("acldvppCreateStreamDesc", dvpp::StreamDescs());
}
aclError acldvppDestroyStreamDesc(acldvppStreamDesc* streamDesc) {
  return kiln::capi::DestroyHandle("acldvppDestroyStreamDesc", dvpp::StreamDescs(), streamDesc);
}
aclError acldvppSetStreamDescData(acldvppStreamDesc* streamDesc, void* dataDev) {
  return SetStream("acldvppSetStreamDescData", streamDesc,
                   [&](dvpp::StreamDesc& d) { d.data = static_cast<uint8_t*>(dataDev); });
}
aclError acldvppSetStreamDescSize(acldvppStreamDesc* streamDesc, uint32_t size) {
  return SetStream("acldvppSetStreamDescSize", streamDesc,
                   [&](dvpp::StreamDesc& d) { d.size = size; });
}
aclError acldvppSetStreamDescFormat(acldvppStreamDesc* streamDesc, acldvppStreamFormat format) {
  return SetStream("acldvppSetStreamDescFormat", streamDesc,
                   [&](dvpp::StreamDesc& d) { d.format = kiln::capi::EnumInt(format); });
}
aclError acldvppSetStreamDescTimestamp(acldvppStreamDesc* streamDesc, uint64_t timestamp) {
  return SetStream("acldvppSetStreamDescTimestamp", streamDesc,
                   [&](dvpp::StreamDesc& d) { d.timestamp = timestamp; });
}
aclError acldvppSetStreamDescRetCode(acldvppStreamDesc* streamDesc, uint32_t retCode) {
  return SetStream("acldvppSetStreamDescRetCode", streamDesc,
                   [&](dvpp::StreamDesc& d) { d.ret_code = retCode; });
}
aclError acldvppSetStreamDescEos(acldvppStreamDesc* streamDesc, uint8_t eos) {
  return SetStream("acldvppSetStreamDescEos", streamDesc,
                   [&](dvpp::StreamDesc& d) { d.eos = eos; });
}
void* acldvppGetStreamDescData(const acldvppStreamDesc* streamDesc) {
  return GetStream(streamDesc, static_cast<void*>(nullptr),
                   [](dvpp::StreamDesc& d) { return static_cast<void*>(d.data); });
}
uint32_t acldvppGetStreamDescSize(const acldvppStreamDesc* streamDesc) {
  return GetStream(streamDesc, uint32_t{0}, [](dvpp::StreamDesc& d) { return d.size; });
}
acldvppStreamFormat acldvppGetStreamDescFormat(const acldvppStreamDesc* streamDesc) {
  return GetStream(streamDesc, H265_MAIN_LEVEL,
                   [](dvpp::StreamDesc& d) { return static_cast<acldvppStreamFormat>(d.format); });
}
uint64_t acldvppGetStreamDescTimestamp(const acldvppStreamDesc* streamDesc) {
  return GetStream(streamDesc, uint64_t{0}, [](dvpp::StreamDesc& d) { return d.timestamp; });
}
uint32_t acldvppGetStreamDescRetCode(const acldvppStreamDesc* streamDesc) {
  return GetStream(streamDesc, uint32_t{0}, [](dvpp::StreamDesc& d) { return d.ret_code; });
}
uint8_t acldvppGetStreamDescEos(const acldvppStreamDesc* streamDesc) {
  return GetStream(streamDesc, uint8_t{0}, [](dvpp::StreamDesc& d) { return d.eos; });
}

aclvdecFrameConfig* aclvdecCreateFrameConfig() {
  return kiln::capi::CreateHandle("aclvdecCreateFrameConfig", dvpp::VdecFrameConfigs());
}
aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig* vdecFrameConfig) {
  return kiln::capi::DestroyHandle("aclvdecDestroyFrameConfig", dvpp::VdecFrameConfigs(),
                                   vdecFrameConfig);
}

aclvencFrameConfig* aclvencCreateFrameConfig() {
  return kiln::capi::CreateHandle("aclvencCreateFrameConfig", dvpp::VencFrameConfigs());
}
aclError aclvencDestroyFrameConfig(aclvencFrameConfig* config) {
  return kiln::capi::DestroyHandle("aclvencDestroyFrameConfig", dvpp::VencFrameConfigs(), config);
}
aclError aclvencSetFrameConfigForceIFrame(aclvencFrameConfig* config, uint8_t forceIFrame) {
  const char* api = "aclvencSetFrameConfigForceIFrame";
  KILN_CAPI(api, {
    auto c = dvpp::VencFrameConfigs().Live(api, config);
    if (c == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (forceIFrame > 1)
      return InvalidParam(api, "forceIFrame ", int{forceIFrame}, " is not 0 or 1");
    c->force_i_frame = forceIFrame;
    return ACL_SUCCESS;
  });
}
aclError aclvencSetFrameConfigEos(aclvencFrameConfig* config, uint8_t eos) {
  const char* api = "aclvencSetFrameConfigEos";
  KILN_CAPI(api, {
    auto c = dvpp::VencFrameConfigs().Live(api, config);
    if (c == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (eos > 1) return InvalidParam(api, "eos ", int{eos}, " is not 0 or 1");
    c->eos = eos;
    return ACL_SUCCESS;
  });
}
uint8_t aclvencGetFrameConfigForceIFrame(const aclvencFrameConfig* config) {
  auto c = dvpp::VencFrameConfigs().Find(config);
  return c == nullptr ? 0 : c->force_i_frame;
}
uint8_t aclvencGetFrameConfigEos(const aclvencFrameConfig* config) {
  auto c = dvpp::VencFrameConfigs().Find(config);
  return c == nullptr ? 0 : c->eos;
}

}  // extern "C"

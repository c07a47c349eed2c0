// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// VDEC: H.264 / H.265 elementary streams to YUV420SP frames (docs/dvpp.md, "Video"). A channel
// decodes on its own stream, in the order frames are sent. Each send queues an entry (input,
// output picture, user data); each decoded frame, in display order, fills the oldest entry's
// picture and calls the channel's callback with it on the report thread. A send with the
// stream description's eos flag set flushes the decoder; entries no frame came for are then
// called back with the output's ret code set.
#include <deque>

#include "capi/dvpp_video.h"
#include "capi/error.h"
#include "capi/handle_calls.h"
#include "media/video.h"
#include "runtime/runtime.h"

using kiln::Result;
using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::Report;
namespace dvpp = kiln::capi::dvpp;
namespace media = kiln::media;

namespace {

constexpr uint32_t kMaxChannelId = 255;
constexpr uint32_t kNoFrame = kiln::code::kFailure;  // ret code of an entry no frame came for

struct Entry {
  acldvppStreamDesc* input;
  acldvppPicDesc* output;  // null: a skipped frame (decoded, not returned)
  void* user_data;
};

// A created channel: the decoder, its stream, and the entries waiting for frames (used only by
// the channel's tasks, which run one at a time).
struct Channel {
  std::unique_ptr<media::VideoDecoder> decoder;
  std::shared_ptr<dvpp::CallbackStream> stream;
  aclvdecCallback callback = nullptr;
  int out_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  std::deque<Entry> pending;
};

struct VdecChannelDesc {
  std::mutex mu;
  uint32_t channel_id = 0;
  uint64_t thread_id = 0;
  aclvdecCallback callback = nullptr;
  int en_type = H265_MAIN_LEVEL;
  int out_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  uint32_t out_width = 0, out_height = 0, ref_frame_num = 0, bit_depth = 0, out_mode = 0;
  std::shared_ptr<Channel> channel;
};

kiln::capi::HandleTable<aclvdecChannelDesc, VdecChannelDesc>& Descs() {
  return kiln::capi::GlobalTable<aclvdecChannelDesc, VdecChannelDesc>("channelDesc",
                                                                      "aclvdecChannelDesc");
}

// Writes `frame` into the entry's picture: the description's strides when valid, else width
// aligned to 16 and height to 2 (DVPP's VDEC output). The ret code says how it went.
uint32_t WriteFrame(const media::Yuv& frame, int format, acldvppPicDesc* output) {
  std::shared_ptr<dvpp::PicDesc> d = dvpp::PicDescs().Find(output);
  if (d == nullptr) return kiln::code::kInvalidParam;  // destroyed meanwhile
  std::lock_guard<std::mutex> lock(d->mu);
  media::Picture p = d->pic;
  p.format = format;
  p.width = frame.y.w;
  p.height = frame.y.h;
  const media::FormatInfo& f = *media::FindFormat(format);
  if (p.width_stride < media::RowBytes(f, p.width) || p.width_stride % media::kStrideAlign != 0 ||
      p.height_stride < p.height || p.height_stride % 2 != 0) {
    p.width_stride = media::AlignUp(p.width, media::kStrideAlign);
    p.height_stride = media::AlignUp(p.height, 2);
  }
  uint32_t rc = kiln::code::kSuccess;
  Status st = media::CheckPicture("the output picture", p).status();
  if (st.ok()) st = dvpp::CheckPictureMemory("the output picture", p);
  if (st.ok()) {
    media::WriteYuv(frame, p, f, media::Rect{0, 0, p.width, p.height});
    d->pic = p;
  } else {
    rc = static_cast<uint32_t>(st.code());
  }
  d->ret_code = rc;
  return rc;
}

// Completes the oldest entry (with `frame`, or with `rc` when there is none) and leaves its
// callback in `box`.
void Complete(Channel& ch, const media::Yuv* frame, uint32_t rc, dvpp::Mailbox& box) {
  if (ch.pending.empty()) return;  // a frame beyond the entries: nowhere to put it
  Entry e = ch.pending.front();
  ch.pending.pop_front();
  if (e.output != nullptr) {
    if (frame != nullptr) {
      WriteFrame(*frame, ch.out_format, e.output);
    } else if (auto d = dvpp::PicDescs().Find(e.output)) {
      std::lock_guard<std::mutex> lock(d->mu);
      d->ret_code = rc;
    }
  }
  aclvdecCallback cb = ch.callback;
  box.push_back([cb, e] { cb(e.input, e.output, e.user_data); });
}

// Decodes one input (or, at eos, flushes) and calls back the entries the frames complete.
void RunDecode(Channel& ch, const uint8_t* data, uint32_t size, bool eos, const Entry* entry,
               dvpp::Mailbox& box) {
  if (entry != nullptr) ch.pending.push_back(*entry);
  std::vector<media::Yuv> frames;
  Status st = eos ? ch.decoder->Flush(&frames) : ch.decoder->Decode(data, size, &frames);
  for (const media::Yuv& f : frames) Complete(ch, &f, 0, box);
  // A corrupt piece: the oldest entry gets the error; the decoder goes on with the next.
  if (!st.ok()) Complete(ch, nullptr, static_cast<uint32_t>(st.code()), box);
  if (eos) {
    while (!ch.pending.empty()) Complete(ch, nullptr, kNoFrame, box);
  }
}

template <typename F>
aclError SetDesc(const char* api, aclvdecChannelDesc* desc, F&& set) {
  return kiln::capi::SetOnHandleLocked(api, Descs(), desc, set);
}

template <typename R, typename F>
R GetDesc(const aclvdecChannelDesc* desc, R fallback, F&& get) {
  return kiln::capi::GetFromHandleLocked(Descs(), desc, fallback, get);
}

// The created channel behind `desc`.
Result<std::shared_ptr<Channel>> LiveChannel(const aclvdecChannelDesc* desc) {
  if (desc == nullptr) return kiln::Error(kiln::code::kInvalidParam, "channelDesc is NULL");
  std::shared_ptr<VdecChannelDesc> d = Descs().Find(desc);
  if (d == nullptr) return kiln::Error(kiln::code::kInvalidParam, Descs().NotLive(desc));
  std::lock_guard<std::mutex> lock(d->mu);
  if (d->channel == nullptr) {
    return kiln::Error(kiln::code::kInvalidParam,
                       "the channel is not created: call aclvdecCreateChannel first");
  }
  return d->channel;
}

// Sends one input: checks it now, decodes it on the channel's stream.
aclError Send(const char* api, aclvdecChannelDesc* channelDesc, acldvppStreamDesc* input,
              acldvppPicDesc* output, bool skipped, void* userData) {
  KILN_CAPI(api, {
    auto ch = LiveChannel(channelDesc);
    if (!ch.ok()) return Report(api, ch.status());
    std::shared_ptr<dvpp::StreamDesc> in = dvpp::StreamDescs().Live(api, input);
    if (in == nullptr) return ACL_ERROR_INVALID_PARAM;
    uint8_t* data;
    uint32_t size;
    bool eos;
    {
      std::lock_guard<std::mutex> lock(in->mu);
      data = in->data;
      size = in->size;
      eos = in->eos != 0;
    }
    Entry entry{input, output, userData};
    if (!eos || size != 0) {
      if (size == 0) return InvalidParam(api, "the input stream description's size is 0");
      Status st = dvpp::CheckDeviceData("the input stream", data, size);
      if (!st.ok()) return Report(api, st);
      if (!skipped) {
        auto out = dvpp::LivePicDesc(output, "output");
        if (!out.ok()) return Report(api, out.status());
        media::Picture pic = (*out)->Get();
        st = dvpp::CheckDeviceData("the output picture", pic.data, pic.size);
        if (!st.ok()) return Report(api, st);
      }
    }
    std::shared_ptr<Channel> c = *ch;
    const bool has_entry = !eos || size != 0;
    return Report(api, c->stream->Submit(
                           [c, data, size, eos, entry, has_entry, skipped](dvpp::Mailbox& box) {
                             Entry e = entry;
                             if (skipped) e.output = nullptr;
                             if (has_entry) RunDecode(*c, data, size, false, &e, box);
                             if (eos) RunDecode(*c, nullptr, 0, true, nullptr, box);
                             return Status::Ok();
                           },
                           eos ? "video decode (end of stream)" : "video decode"));
  });
}

}  // namespace

extern "C" {

aclvdecChannelDesc* aclvdecCreateChannelDesc() {
  try {
    return Descs().Add(std::make_shared<VdecChannelDesc>());
  } catch (...) {
    Report("aclvdecCreateChannelDesc", kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc* channelDesc) {
  const char* api = "aclvdecDestroyChannelDesc";
  KILN_CAPI(api, {
    std::shared_ptr<VdecChannelDesc> d = Descs().Live(api, channelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    {
      std::lock_guard<std::mutex> lock(d->mu);
      if (d->channel != nullptr) {
        return InvalidParam(api, "the channel still exists: aclvdecDestroyChannel first");
      }
    }
    Descs().Remove(channelDesc);
    return ACL_SUCCESS;
  });
}

aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc* channelDesc, uint32_t channelId) {
  const char* api = "aclvdecSetChannelDescChannelId";
  return SetDesc(api, channelDesc, [&](VdecChannelDesc& d) -> aclError {
    if (channelId > kMaxChannelId) {
      return InvalidParam(api, "channelId ", channelId, " is outside [0, ", kMaxChannelId, "]");
    }
    d.channel_id = channelId;
    return ACL_SUCCESS;
  });
}
aclError aclvdecSetChannelDescThreadId(aclvdecChannelDesc* channelDesc, uint64_t threadId) {
  return SetDesc("aclvdecSetChannelDescThreadId", channelDesc, [&](VdecChannelDesc& d) {
    d.thread_id = threadId;
    return ACL_SUCCESS;
  });
}
aclError aclvdecSetChannelDescCallback(aclvdecChannelDesc* channelDesc, aclvdecCallback callback) {
  const char* api = "aclvdecSetChannelDescCallback";
  return SetDesc(api, channelDesc, [&](VdecChannelDesc& d) -> aclError {
    if (callback == nullptr) return InvalidParam(api, "callback is NULL");
    d.callback = callback;
    return ACL_SUCCESS;
  });
}
aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc* channelDesc, acldvppStreamFormat enType) {
  const char* api = "aclvdecSetChannelDescEnType";
  return SetDesc(api, channelDesc, [&](VdecChannelDesc& d) -> aclError {
    auto f = media::FindStreamFormat(kiln::capi::EnumInt(enType));
    if (!f.ok()) return Report(api, f.status());
    d.en_type = kiln::capi::EnumInt(enType);
    return ACL_SUCCESS;
  });
}
aclError aclvdecSetChannelDescOutPicFormat(aclvdecChannelDesc* channelDesc,
                                           acldvppPixelFormat outPicFormat) {
  const char* api = "aclvdecSetChannelDescOutPicFormat";
  return SetDesc(api, channelDesc, [&](VdecChannelDesc& d) -> aclError {
    int f = kiln::capi::EnumInt(outPicFormat);
    kiln::Status st = dvpp::CheckVideoPictureFormat(f, "VDEC output");
    if (!st.ok()) return Report(api, st);
    d.out_format = f;
    return ACL_SUCCESS;
  });
}
#define KILN_VDEC_FIELD(Name, field)                                                      \
  aclError aclvdecSetChannelDesc##Name(aclvdecChannelDesc* channelDesc, uint32_t value) { \
    return SetDesc("aclvdecSetChannelDesc" #Name, channelDesc, [&](VdecChannelDesc& d) {  \
      d.field = value;                                                                    \
      return ACL_SUCCESS;                                                                 \
    });                                                                                   \
  }                                                                                       \
  uint32_t aclvdecGetChannelDesc##Name(const aclvdecChannelDesc* channelDesc) {           \
    return GetDesc(channelDesc, uint32_t{0}, [](VdecChannelDesc& d) { return d.field; }); \
  }
KILN_VDEC_FIELD(OutPicWidth, out_width)
KILN_VDEC_FIELD(OutPicHeight, out_height)
KILN_VDEC_FIELD(RefFrameNum, ref_frame_num)
KILN_VDEC_FIELD(BitDepth, bit_depth)
KILN_VDEC_FIELD(OutMode, out_mode)
#undef KILN_VDEC_FIELD

uint32_t aclvdecGetChannelDescChannelId(const aclvdecChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VdecChannelDesc& d) { return d.channel_id; });
}
uint64_t aclvdecGetChannelDescThreadId(const aclvdecChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint64_t{0}, [](VdecChannelDesc& d) { return d.thread_id; });
}
aclvdecCallback aclvdecGetChannelDescCallback(const aclvdecChannelDesc* channelDesc) {
  return GetDesc(channelDesc, static_cast<aclvdecCallback>(nullptr),
                 [](VdecChannelDesc& d) { return d.callback; });
}
acldvppStreamFormat aclvdecGetChannelDescEnType(const aclvdecChannelDesc* channelDesc) {
  return GetDesc(channelDesc, H265_MAIN_LEVEL,
                 [](VdecChannelDesc& d) { return static_cast<acldvppStreamFormat>(d.en_type); });
}
acldvppPixelFormat aclvdecGetChannelDescOutPicFormat(const aclvdecChannelDesc* channelDesc) {
  return GetDesc(channelDesc, PIXEL_FORMAT_YUV_SEMIPLANAR_420,
                 [](VdecChannelDesc& d) { return static_cast<acldvppPixelFormat>(d.out_format); });
}

aclError aclvdecCreateChannel(aclvdecChannelDesc* channelDesc) {
  const char* api = "aclvdecCreateChannel";
  return SetDesc(api, channelDesc, [&](VdecChannelDesc& d) -> aclError {
    if (d.channel != nullptr) return InvalidParam(api, "the channel exists already");
    if (d.callback == nullptr) {
      return InvalidParam(api, "the channel has no callback (aclvdecSetChannelDescCallback)");
    }
    auto format = media::FindStreamFormat(d.en_type);
    if (!format.ok()) return Report(api, format.status());
    auto decoder = media::VideoDecoder::Open(format->codec);
    if (!decoder.ok()) return Report(api, decoder.status());
    auto stream = dvpp::CallbackStream::Open(d.thread_id);
    if (!stream.ok()) return Report(api, stream.status());
    auto ch = std::make_shared<Channel>();
    ch->decoder = std::move(*decoder);
    ch->stream = std::move(*stream);
    ch->callback = d.callback;
    ch->out_format = d.out_format;
    d.channel = std::move(ch);
    return ACL_SUCCESS;
  });
}

aclError aclvdecDestroyChannel(aclvdecChannelDesc* channelDesc) {
  const char* api = "aclvdecDestroyChannel";
  KILN_CAPI(api, {
    std::shared_ptr<VdecChannelDesc> d = Descs().Live(api, channelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    std::shared_ptr<Channel> ch;
    {
      std::lock_guard<std::mutex> lock(d->mu);
      if (d->channel != nullptr && d->channel->stream->OnReportThread()) {
        return InvalidParam(api,
                            "called from the channel's report thread, which must stay free "
                            "to run the callbacks this waits for");
      }
      ch = std::move(d->channel);
    }
    if (ch == nullptr) return InvalidParam(api, "the channel is not created");
    // Frames still held (no end of stream sent) are flushed and called back first.
    Status st = ch->stream->Submit(
        [ch](dvpp::Mailbox& box) {
          RunDecode(*ch, nullptr, 0, true, nullptr, box);
          return Status::Ok();
        },
        "video decode (channel destroyed)");
    Status closed = ch->stream->Close();
    return Report(api, st.ok() ? closed : st);
  });
}

aclError aclvdecSendFrame(aclvdecChannelDesc* channelDesc, acldvppStreamDesc* input,
                          acldvppPicDesc* output, aclvdecFrameConfig* config, void* userData) {
  (void)config;  // CANN's VDEC frame config has no settable field
  return Send("aclvdecSendFrame", channelDesc, input, output, false, userData);
}

aclError aclvdecSendSkippedFrame(aclvdecChannelDesc* channelDesc, acldvppStreamDesc* input,
                                 aclvdecFrameConfig* config, void* userData) {
  (void)config;
  return Send("aclvdecSendSkippedFrame", channelDesc, input, nullptr, true, userData);
}

}  // extern "C"

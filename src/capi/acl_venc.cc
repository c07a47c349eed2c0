// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// VENC: YUV420SP frames to H.264 / H.265 (docs/dvpp.md, "Video"). A channel encodes on its own
// stream, in the order frames are sent; each frame's bitstream is copied into the channel's
// output buffer (the application's, when it set one, else one the channel allocates in device
// memory and grows) and handed to the callback on the report thread in a stream description the
// channel owns, valid during the callback; the next frame waits for it. A send whose frame
// config has eos set flushes.
#include "capi/dvpp_video.h"
#include "capi/error.h"
#include "capi/handle_calls.h"
#include "media/video.h"
#include "runtime/runtime.h"

using kiln::Result;
using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;
namespace dvpp = kiln::capi::dvpp;
namespace media = kiln::media;

namespace {

constexpr uint32_t kRcCbr = 2;
constexpr uint32_t kMaxSrcRate = 240, kMaxKeyFrameInterval = 65536, kMaxBitRateKbps = 1000000;

struct Channel {
  std::unique_ptr<media::VideoEncoder> encoder;
  std::shared_ptr<dvpp::CallbackStream> stream;
  aclvencCallback callback = nullptr;
  int en_type = 0;
  int pic_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  uint32_t width = 0, height = 0;
  std::shared_ptr<kiln::runtime::MemoryPool> pool;  // the device the channel was created on
  uint8_t* buffer = nullptr;                        // where packets are handed out
  uint32_t buffer_size = 0;
  bool own_buffer = false;
  uint64_t frames = 0;
  ~Channel() {
    if (own_buffer && buffer != nullptr) (void)pool->Free(buffer);
  }
};

struct VencChannelDesc {
  std::mutex mu;
  uint64_t thread_id = 0;
  aclvencCallback callback = nullptr;
  int en_type = H265_MAIN_LEVEL;
  int pic_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  uint32_t width = 0, height = 0, key_frame_interval = 0, rc_mode = 0, src_rate = 0,
           max_bit_rate = 0, max_ip_prop = 0, buf_size = 0;
  void* buf_addr = nullptr;
  std::shared_ptr<Channel> channel;
};

kiln::capi::HandleTable<aclvencChannelDesc, VencChannelDesc>& Descs() {
  return kiln::capi::GlobalTable<aclvencChannelDesc, VencChannelDesc>("channelDesc",
                                                                      "aclvencChannelDesc");
}

// A stream description handle the channel owns: gone after the callback, or with the mailbox
// when the callback never runs.
struct OwnedStreamDesc {
  explicit OwnedStreamDesc(std::shared_ptr<dvpp::StreamDesc> desc)
      : handle(dvpp::StreamDescs().Add(std::move(desc))) {}
  ~OwnedStreamDesc() { dvpp::StreamDescs().Remove(handle); }
  acldvppStreamDesc* handle;
};

// Leaves the callback of `desc` in `box`.
void Post(Channel& ch, std::shared_ptr<dvpp::StreamDesc> desc, acldvppPicDesc* input,
          void* user_data, dvpp::Mailbox& box) {
  auto owned = std::make_shared<OwnedStreamDesc>(std::move(desc));
  aclvencCallback cb = ch.callback;
  box.push_back([cb, input, owned, user_data] {
    cb(input, owned->handle, user_data);
    dvpp::StreamDescs().Remove(owned->handle);
  });
}

// Calls back a frame that produced no bitstream because of `rc`.
void Fail(Channel& ch, uint32_t rc, acldvppPicDesc* input, void* user_data, dvpp::Mailbox& box) {
  auto desc = std::make_shared<dvpp::StreamDesc>();
  desc->format = ch.en_type;
  desc->timestamp = ch.frames++;
  desc->ret_code = rc;
  Post(ch, std::move(desc), input, user_data, box);
}

// Puts `bytes` (one frame's bitstream) into the output buffer (grown if the channel owns it)
// and leaves the callback with a stream description of it in `box`.
Status Deliver(Channel& ch, const std::vector<uint8_t>& bytes, acldvppPicDesc* input,
               void* user_data, dvpp::Mailbox& box) {
  if (bytes.size() > ch.buffer_size) {
    if (!ch.own_buffer) {
      return kiln::Error(kiln::code::kInvalidParam, "video encode: a ", bytes.size(),
                         "-byte frame does not fit the channel's ", ch.buffer_size,
                         "-byte output buffer (aclvencSetChannelDescBufSize)");
    }
    KILN_ASSIGN_OR_RETURN(void* bigger, ch.pool->Allocate(bytes.size() * 2, false));
    if (ch.buffer != nullptr) (void)ch.pool->Free(ch.buffer);
    ch.buffer = static_cast<uint8_t*>(bigger);
    ch.buffer_size = static_cast<uint32_t>(bytes.size() * 2);
  }
  std::copy(bytes.begin(), bytes.end(), ch.buffer);
  auto desc = std::make_shared<dvpp::StreamDesc>();
  desc->data = ch.buffer;
  desc->size = static_cast<uint32_t>(bytes.size());
  desc->format = ch.en_type;
  desc->timestamp = ch.frames++;
  Post(ch, std::move(desc), input, user_data, box);
  return Status::Ok();
}

// Encodes one picture (and, at eos, flushes); the frame's packets go out as one bitstream. A
// frame that fails is called back with an empty stream description whose ret code says why.
Status RunEncode(Channel& ch, const media::Picture* pic, bool force_i, bool eos,
                 acldvppPicDesc* input, void* user_data, dvpp::Mailbox& box) {
  std::vector<std::vector<uint8_t>> packets;
  Status st;
  if (pic != nullptr) {
    const media::FormatInfo& f = *media::FindFormat(pic->format);
    media::Yuv img = media::ReadYuv(*pic, f, media::Rect{0, 0, pic->width, pic->height});
    st = ch.encoder->Encode(img, force_i, &packets);
  }
  if (st.ok() && eos) st = ch.encoder->Flush(&packets);
  if (st.ok() && !packets.empty()) {
    std::vector<uint8_t> bytes;
    for (const auto& p : packets) bytes.insert(bytes.end(), p.begin(), p.end());
    st = Deliver(ch, bytes, input, user_data, box);
  }
  if (!st.ok() && pic != nullptr) Fail(ch, static_cast<uint32_t>(st.code()), input, user_data, box);
  return Status::Ok();
}

template <typename F>
aclError SetDesc(const char* api, aclvencChannelDesc* desc, F&& set) {
  return kiln::capi::SetOnHandleLocked(api, Descs(), desc, set);
}

template <typename R, typename F>
R GetDesc(const aclvencChannelDesc* desc, R fallback, F&& get) {
  return kiln::capi::GetFromHandleLocked(Descs(), desc, fallback, get);
}

// The uint32 fields ACL_VENC_*_UINT32 name, and the pointer of ACL_VENC_BUF_ADDR_PTR.
uint32_t* Field32(VencChannelDesc& d, int type) {
  switch (type) {
    case ACL_VENC_PIXEL_FORMAT_UINT32:
      return reinterpret_cast<uint32_t*>(&d.pic_format);
    case ACL_VENC_ENCODE_TYPE_UINT32:
      return reinterpret_cast<uint32_t*>(&d.en_type);
    case ACL_VENC_PIC_WIDTH_UINT32:
      return &d.width;
    case ACL_VENC_PIC_HEIGHT_UINT32:
      return &d.height;
    case ACL_VENC_KEY_FRAME_INTERVAL_UINT32:
      return &d.key_frame_interval;
    case ACL_VENC_BUF_SIZE_UINT32:
      return &d.buf_size;
    case ACL_VENC_RC_MODE_UINT32:
      return &d.rc_mode;
    case ACL_VENC_SRC_RATE_UINT32:
      return &d.src_rate;
    case ACL_VENC_MAX_BITRATE_UINT32:
      return &d.max_bit_rate;
    case ACL_VENC_MAX_IP_PROP_UINT32:
      return &d.max_ip_prop;
  }
  return nullptr;
}

// The description's settings a channel can encode with; every setter path (the named setters
// and aclvencSetChannelDescParam) ends here before a channel is made.
kiln::Status CheckSettings(const VencChannelDesc& d) {
  KILN_RETURN_IF_ERROR(dvpp::CheckVideoPictureFormat(d.pic_format, "VENC input"), "");
  if (d.rc_mode > kRcCbr) {
    return kiln::Error(kiln::code::kInvalidParam, "rcMode ", d.rc_mode,
                       " is not 0, 1 (VBR) or 2 (CBR)");
  }
  if (d.src_rate > kMaxSrcRate || d.key_frame_interval > kMaxKeyFrameInterval ||
      d.max_bit_rate > kMaxBitRateKbps) {
    return kiln::Error(kiln::code::kInvalidParam, "srcRate ", d.src_rate, ", keyFrameInterval ",
                       d.key_frame_interval, ", maxBitRate ", d.max_bit_rate, ": the limits are ",
                       kMaxSrcRate, " frames/s, ", kMaxKeyFrameInterval, " frames and ",
                       kMaxBitRateKbps, " kbit/s");
  }
  return media::FindStreamFormat(d.en_type).status();
}

}  // namespace

extern "C" {

aclvencChannelDesc* aclvencCreateChannelDesc() {
  try {
    return Descs().Add(std::make_shared<VencChannelDesc>());
  } catch (...) {
    Report("aclvencCreateChannelDesc", kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclvencDestroyChannelDesc(aclvencChannelDesc* channelDesc) {
  const char* api = "aclvencDestroyChannelDesc";
  KILN_CAPI(api, {
    std::shared_ptr<VencChannelDesc> d = Descs().Live(api, channelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    {
      std::lock_guard<std::mutex> lock(d->mu);
      if (d->channel != nullptr) {
        return InvalidParam(api, "the channel still exists: aclvencDestroyChannel first");
      }
    }
    Descs().Remove(channelDesc);
    return ACL_SUCCESS;
  });
}

aclError aclvencSetChannelDescThreadId(aclvencChannelDesc* channelDesc, uint64_t threadId) {
  return SetDesc("aclvencSetChannelDescThreadId", channelDesc, [&](VencChannelDesc& d) {
    d.thread_id = threadId;
    return ACL_SUCCESS;
  });
}
aclError aclvencSetChannelDescCallback(aclvencChannelDesc* channelDesc, aclvencCallback callback) {
  const char* api = "aclvencSetChannelDescCallback";
  return SetDesc(api, channelDesc, [&](VencChannelDesc& d) -> aclError {
    if (callback == nullptr) return InvalidParam(api, "callback is NULL");
    d.callback = callback;
    return ACL_SUCCESS;
  });
}
aclError aclvencSetChannelDescEnType(aclvencChannelDesc* channelDesc, acldvppStreamFormat enType) {
  const char* api = "aclvencSetChannelDescEnType";
  return SetDesc(api, channelDesc, [&](VencChannelDesc& d) -> aclError {
    auto f = media::FindStreamFormat(kiln::capi::EnumInt(enType));
    if (!f.ok()) return Report(api, f.status());
    d.en_type = kiln::capi::EnumInt(enType);
    return ACL_SUCCESS;
  });
}
aclError aclvencSetChannelDescPicFormat(aclvencChannelDesc* channelDesc,
                                        acldvppPixelFormat picFormat) {
  const char* api = "aclvencSetChannelDescPicFormat";
  return SetDesc(api, channelDesc, [&](VencChannelDesc& d) -> aclError {
    int f = kiln::capi::EnumInt(picFormat);
    kiln::Status st = dvpp::CheckVideoPictureFormat(f, "VENC input");
    if (!st.ok()) return Report(api, st);
    d.pic_format = f;
    return ACL_SUCCESS;
  });
}
aclError aclvencSetChannelDescBufAddr(aclvencChannelDesc* channelDesc, void* bufAddr) {
  return SetDesc("aclvencSetChannelDescBufAddr", channelDesc, [&](VencChannelDesc& d) {
    d.buf_addr = bufAddr;
    return ACL_SUCCESS;
  });
}
aclError aclvencSetChannelDescRcMode(aclvencChannelDesc* channelDesc, uint32_t rcMode) {
  const char* api = "aclvencSetChannelDescRcMode";
  return SetDesc(api, channelDesc, [&](VencChannelDesc& d) -> aclError {
    if (rcMode > kRcCbr)
      return InvalidParam(api, "rcMode ", rcMode, " is not 0, 1 (VBR) or 2 (CBR)");
    d.rc_mode = rcMode;
    return ACL_SUCCESS;
  });
}
#define KILN_VENC_FIELD(Name, field)                                                      \
  aclError aclvencSetChannelDesc##Name(aclvencChannelDesc* channelDesc, uint32_t value) { \
    return SetDesc("aclvencSetChannelDesc" #Name, channelDesc, [&](VencChannelDesc& d) {  \
      d.field = value;                                                                    \
      return ACL_SUCCESS;                                                                 \
    });                                                                                   \
  }
KILN_VENC_FIELD(PicWidth, width)
KILN_VENC_FIELD(PicHeight, height)
KILN_VENC_FIELD(KeyFrameInterval, key_frame_interval)
KILN_VENC_FIELD(BufSize, buf_size)
KILN_VENC_FIELD(SrcRate, src_rate)
KILN_VENC_FIELD(MaxBitRate, max_bit_rate)
#undef KILN_VENC_FIELD

aclError aclvencSetChannelDescParam(aclvencChannelDesc* channelDesc,
                                    aclvencChannelDescParamType paramType, size_t length,
                                    const void* param) {
  const char* api = "aclvencSetChannelDescParam";
  return SetDesc(api, channelDesc, [&](VencChannelDesc& d) -> aclError {
    if (param == nullptr) return InvalidParam(api, "param is NULL");
    const int type = kiln::capi::EnumInt(paramType);
    if (type == ACL_VENC_THREAD_ID_UINT64 || type == ACL_VENC_CALLBACK_PTR ||
        type == ACL_VENC_BUF_ADDR_PTR) {
      if (length != 8) return InvalidParam(api, "paramType ", type, " takes 8 bytes, not ", length);
      uint64_t v;
      std::memcpy(&v, param, 8);
      if (type == ACL_VENC_THREAD_ID_UINT64) d.thread_id = v;
      if (type == ACL_VENC_CALLBACK_PTR) std::memcpy(&d.callback, param, sizeof d.callback);
      if (type == ACL_VENC_BUF_ADDR_PTR) std::memcpy(&d.buf_addr, param, sizeof d.buf_addr);
      return ACL_SUCCESS;
    }
    uint32_t* field = Field32(d, type);
    if (field == nullptr)
      return InvalidParam(api, "paramType ", type, " is not an aclvencChannelDescParamType");
    if (length != 4) return InvalidParam(api, "paramType ", type, " takes 4 bytes, not ", length);
    const uint32_t old = *field;
    std::memcpy(field, param, 4);
    kiln::Status st = CheckSettings(d);  // the named setters' checks, for this path too
    if (!st.ok()) {
      *field = old;
      return Report(api, st);
    }
    return ACL_SUCCESS;
  });
}

aclError aclvencGetChannelDescParam(const aclvencChannelDesc* channelDesc,
                                    aclvencChannelDescParamType paramType, size_t length,
                                    size_t* paramRetSize, void* param) {
  const char* api = "aclvencGetChannelDescParam";
  KILN_CAPI(api, {
    std::shared_ptr<VencChannelDesc> d = Descs().Live(api, channelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (param == nullptr || paramRetSize == nullptr)
      return InvalidParam(api, "param or paramRetSize is NULL");
    std::lock_guard<std::mutex> lock(d->mu);
    const int type = kiln::capi::EnumInt(paramType);
    const void* src = nullptr;
    size_t n = 8;
    if (type == ACL_VENC_THREAD_ID_UINT64) src = &d->thread_id;
    if (type == ACL_VENC_CALLBACK_PTR) src = &d->callback;
    if (type == ACL_VENC_BUF_ADDR_PTR) src = &d->buf_addr;
    if (src == nullptr) {
      src = Field32(*d, type);
      n = 4;
    }
    if (src == nullptr)
      return InvalidParam(api, "paramType ", type, " is not an aclvencChannelDescParamType");
    if (length < n)
      return InvalidParam(api, "paramType ", type, " needs ", n, " bytes; length is ", length);
    std::memcpy(param, src, n);
    *paramRetSize = n;
    return ACL_SUCCESS;
  });
}

void* aclvencGetChannelDescBufAddr(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, static_cast<void*>(nullptr),
                 [](VencChannelDesc& d) { return d.buf_addr; });
}
uint32_t aclvencGetChannelDescBufSize(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.buf_size; });
}
uint32_t aclvencGetChannelDescChannelId(const aclvencChannelDesc* channelDesc) {
  (void)channelDesc;
  return 0;  // CANN's VENC has no channel-id setter; every channel reads 0
}
uint64_t aclvencGetChannelDescThreadId(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint64_t{0}, [](VencChannelDesc& d) { return d.thread_id; });
}
aclvencCallback aclvencGetChannelDescCallback(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, static_cast<aclvencCallback>(nullptr),
                 [](VencChannelDesc& d) { return d.callback; });
}
acldvppStreamFormat aclvencGetChannelDescEnType(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, H265_MAIN_LEVEL,
                 [](VencChannelDesc& d) { return static_cast<acldvppStreamFormat>(d.en_type); });
}
acldvppPixelFormat aclvencGetChannelDescPicFormat(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, PIXEL_FORMAT_YUV_SEMIPLANAR_420,
                 [](VencChannelDesc& d) { return static_cast<acldvppPixelFormat>(d.pic_format); });
}
uint32_t aclvencGetChannelDescPicWidth(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.width; });
}
uint32_t aclvencGetChannelDescPicHeight(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.height; });
}
uint32_t aclvencGetChannelDescKeyFrameInterval(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.key_frame_interval; });
}
uint32_t aclvencGetChannelDescRcMode(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.rc_mode; });
}
uint32_t aclvencGetChannelDescSrcRate(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.src_rate; });
}
uint32_t aclvencGetChannelDescMaxBitRate(const aclvencChannelDesc* channelDesc) {
  return GetDesc(channelDesc, uint32_t{0}, [](VencChannelDesc& d) { return d.max_bit_rate; });
}

aclError aclvencCreateChannel(aclvencChannelDesc* channelDesc) {
  const char* api = "aclvencCreateChannel";
  return SetDesc(api, channelDesc, [&](VencChannelDesc& d) -> aclError {
    if (d.channel != nullptr) return InvalidParam(api, "the channel exists already");
    if (d.callback == nullptr) {
      return InvalidParam(api, "the channel has no callback (aclvencSetChannelDescCallback)");
    }
    kiln::Status settings = CheckSettings(d);
    if (!settings.ok()) return Report(api, settings);
    if (d.buf_addr != nullptr) {
      kiln::Status st = dvpp::CheckDeviceData("the output buffer", d.buf_addr, d.buf_size);
      if (d.buf_size == 0)
        st = kiln::Error(kiln::code::kInvalidParam, "the output buffer's size is 0");
      if (!st.ok()) return Report(api, st);
    }
    media::EncoderConfig config;
    auto format = media::FindStreamFormat(d.en_type);
    if (!format.ok()) return Report(api, format.status());
    config.format = *format;
    config.width = d.width;
    config.height = d.height;
    config.key_frame_interval = d.key_frame_interval;
    config.rc_mode = d.rc_mode;
    config.src_rate = d.src_rate;
    config.max_bitrate_kbps = d.max_bit_rate;
    auto encoder = media::VideoEncoder::Open(config);
    if (!encoder.ok()) return Report(api, encoder.status());
    auto device = Runtime::Get().CurrentDeviceRef();
    if (!device.ok()) return Report(api, device.status());
    auto stream = dvpp::CallbackStream::Open(d.thread_id);
    if (!stream.ok()) return Report(api, stream.status());
    auto ch = std::make_shared<Channel>();
    ch->encoder = std::move(*encoder);
    ch->stream = std::move(*stream);
    ch->callback = d.callback;
    ch->en_type = d.en_type;
    ch->pic_format = d.pic_format;
    ch->width = d.width;
    ch->height = d.height;
    ch->pool = device->pool;
    ch->buffer = static_cast<uint8_t*>(d.buf_addr);
    ch->buffer_size = d.buf_addr != nullptr ? d.buf_size : 0;
    ch->own_buffer = d.buf_addr == nullptr;
    d.channel = std::move(ch);
    return ACL_SUCCESS;
  });
}

aclError aclvencDestroyChannel(aclvencChannelDesc* channelDesc) {
  const char* api = "aclvencDestroyChannel";
  KILN_CAPI(api, {
    std::shared_ptr<VencChannelDesc> d = Descs().Live(api, channelDesc);
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
    return Report(api, ch->stream->Close());
  });
}

aclError aclvencSendFrame(aclvencChannelDesc* channelDesc, acldvppPicDesc* input, void* reserve,
                          aclvencFrameConfig* config, void* userdata) {
  const char* api = "aclvencSendFrame";
  KILN_CAPI(api, {
    (void)reserve;
    std::shared_ptr<VencChannelDesc> d = Descs().Live(api, channelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    std::shared_ptr<Channel> ch;
    {
      std::lock_guard<std::mutex> lock(d->mu);
      ch = d->channel;
    }
    if (ch == nullptr)
      return InvalidParam(api, "the channel is not created: call aclvencCreateChannel first");
    auto cfg = dvpp::VencFrameConfigs().Live(api, config);
    if (cfg == nullptr) return ACL_ERROR_INVALID_PARAM;
    const bool eos = cfg->eos != 0, force_i = cfg->force_i_frame != 0;
    std::shared_ptr<media::Picture> pic;
    if (!eos || input != nullptr) {
      auto desc = dvpp::LivePicDesc(input, "input");
      if (!desc.ok()) return Report(api, desc.status());
      pic = std::make_shared<media::Picture>((*desc)->Get());
      auto checked = media::CheckPicture("input", *pic);
      if (!checked.ok()) return Report(api, checked.status());
      kiln::Status st = dvpp::CheckPictureMemory("input", *pic);
      if (!st.ok()) return Report(api, st);
      if (pic->format != ch->pic_format || pic->width != ch->width || pic->height != ch->height) {
        return InvalidParam(api, "input: a ", pic->width, "x", pic->height, " ",
                            media::FormatName(pic->format), " picture; the channel encodes ",
                            ch->width, "x", ch->height, " ", media::FormatName(ch->pic_format));
      }
    }
    return Report(api, ch->stream->Submit(
                           [ch, pic, force_i, eos, input, userdata](dvpp::Mailbox& box) {
                             return RunEncode(*ch, pic.get(), force_i, eos, input, userdata, box);
                           },
                           eos ? "video encode (end of stream)" : "video encode"));
  });
}

}  // extern "C"

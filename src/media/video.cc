// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/video.h"

#include <cstring>
#include <string>

#include "media/av_library.h"

namespace kiln::media {
namespace {

// The loaded table, once an Open has loaded it (every object below comes from an Open).
const AvApi& A() { return **Av(); }

// libavcodec logs at "info" by default: libx264's statistics when an encoder closes, and the
// parsers' and decoders' complaints about what DVPP reports itself (a corrupt piece is its
// entry's ret code; the HEVC parser even complains about the zero byte a 4-byte start code
// leaves at a piece's end). An application using DVPP expects none of that on stderr: only
// fatal messages stay. A level the application chose is kept.
void QuietLogs() {
  static const bool once = [] {
    if (A().av_log_get_level() == AV_LOG_INFO) A().av_log_set_level(AV_LOG_FATAL);
    return true;
  }();
  (void)once;
}

std::string AvError(int rc) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  A().av_strerror(rc, text, sizeof text);
  return text;
}

struct CodecContextDeleter {
  void operator()(AVCodecContext* c) const { A().avcodec_free_context(&c); }
};
struct ParserDeleter {
  void operator()(AVCodecParserContext* p) const { A().av_parser_close(p); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { A().av_packet_free(&p); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { A().av_frame_free(&f); }
};

// An 8-bit 4:2:0 AVFrame as planes.
Result<Yuv> FromFrame(const AVFrame& f) {
  if (f.format != AV_PIX_FMT_YUV420P && f.format != AV_PIX_FMT_YUVJ420P) {
    return Error(code::kFeatureUnsupported, "the video decodes to ",
                 A().av_get_pix_fmt_name(static_cast<AVPixelFormat>(f.format)),
                 "; DVPP's decoder writes 8-bit 4:2:0 streams only");
  }
  Yuv img;
  img.sub_x = img.sub_y = 2;
  const auto w = static_cast<uint32_t>(f.width), h = static_cast<uint32_t>(f.height);
  img.y = Plane(w, h);
  img.u = Plane(CeilDiv(w, 2), CeilDiv(h, 2));
  img.v = Plane(img.u.w, img.u.h);
  Plane* planes[3] = {&img.y, &img.u, &img.v};
  for (int c = 0; c < 3; ++c) {
    for (uint32_t y = 0; y < planes[c]->h; ++y) {
      std::memcpy(planes[c]->row(y), f.data[c] + static_cast<ptrdiff_t>(y) * f.linesize[c],
                  planes[c]->w);
    }
  }
  return img;
}

}  // namespace

Result<StreamFormat> FindStreamFormat(int value) {
  switch (value) {
    case 0:
      return StreamFormat{VideoCodec::kH265, nullptr};
    case 1:
      return StreamFormat{VideoCodec::kH264, "baseline"};
    case 2:
      return StreamFormat{VideoCodec::kH264, "main"};
    case 3:
      return StreamFormat{VideoCodec::kH264, "high"};
  }
  return Error(code::kInvalidParam, "stream format ", value,
               " is not an acldvppStreamFormat (0 H265_MAIN_LEVEL ... 3 H264_HIGH_LEVEL)");
}

// ---- decoder ----

// A start code (3 bytes) and a NAL unit header (1 byte for H.264, 2 for H.265) at least.
constexpr int kMinNalPacket = 4;

struct VideoDecoder::Impl {
  std::unique_ptr<AVCodecContext, CodecContextDeleter> ctx;
  std::unique_ptr<AVCodecParserContext, ParserDeleter> parser;
  std::unique_ptr<AVPacket, PacketDeleter> packet;
  std::unique_ptr<AVFrame, FrameDeleter> frame;
  std::vector<uint8_t> padded;  // the piece being decoded, with libavcodec's padding

  // Sends `pkt` (null: drain) and collects the frames that come out.
  Status Send(AVPacket* pkt, std::vector<Yuv>* frames) {
    int rc = A().avcodec_send_packet(ctx.get(), pkt);
    if (rc < 0 && rc != AVERROR_EOF) {
      return Error(code::kFailure, "video decode: the stream is corrupt (", AvError(rc), ")");
    }
    while (true) {
      rc = A().avcodec_receive_frame(ctx.get(), frame.get());
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return Status::Ok();
      if (rc < 0) return Error(code::kFailure, "video decode failed: ", AvError(rc));
      Result<Yuv> img = FromFrame(*frame);
      A().av_frame_unref(frame.get());
      if (!img.ok()) return img.status();
      frames->push_back(std::move(*img));
    }
  }

  // Runs the parser over `size` bytes (size 0: the end of the piece) and decodes its packets.
  Status Parse(const uint8_t* data, int size, std::vector<Yuv>* frames) {
    do {
      int used = A().av_parser_parse2(parser.get(), ctx.get(), &packet->data, &packet->size, data,
                                      size, AV_NOPTS_VALUE, AV_NOPTS_VALUE, 0);
      if (used < 0) return Error(code::kFailure, "video decode: cannot parse the stream");
      data += used;
      size -= used;
      // A piece's end can leave the parser a byte or two (trailing zeros before the next start
      // code): too short to hold a NAL unit, and the HEVC decoder complains about each.
      if (packet->size >= kMinNalPacket) KILN_RETURN_IF_ERROR(Send(packet.get(), frames), "");
    } while (size > 0);
    return Status::Ok();
  }
};

VideoDecoder::VideoDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VideoDecoder::~VideoDecoder() = default;

Result<std::unique_ptr<VideoDecoder>> VideoDecoder::Open(VideoCodec codec) {
  KILN_RETURN_IF_ERROR(Av().status(), "video decode");
  QuietLogs();
  const AVCodecID id = codec == VideoCodec::kH264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_HEVC;
  const AVCodec* dec = A().avcodec_find_decoder(id);
  if (dec == nullptr) {
    return Error(code::kFeatureUnsupported, "this libavcodec has no ",
                 codec == VideoCodec::kH264 ? "H.264" : "H.265", " decoder");
  }
  auto impl = std::make_unique<Impl>();
  impl->ctx.reset(A().avcodec_alloc_context3(dec));
  impl->parser.reset(A().av_parser_init(id));
  impl->packet.reset(A().av_packet_alloc());
  impl->frame.reset(A().av_frame_alloc());
  if (!impl->ctx || !impl->parser || !impl->packet || !impl->frame) {
    return Error(code::kBadAlloc, "video decode: out of memory");
  }
  impl->ctx->thread_count = 1;  // frame threads would delay every output by a frame per thread
  impl->ctx->flags |= AV_CODEC_FLAG_LOW_DELAY;
  int rc = A().avcodec_open2(impl->ctx.get(), dec, nullptr);
  if (rc < 0) return Error(code::kFailure, "video decode: cannot open the decoder: ", AvError(rc));
  return std::unique_ptr<VideoDecoder>(new VideoDecoder(std::move(impl)));
}

Status VideoDecoder::Decode(const uint8_t* data, size_t size, std::vector<Yuv>* frames) {
  if (size > INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE) {
    return Error(code::kInvalidParam, "video decode: a 2 GiB frame");
  }
  // libavcodec reads up to AV_INPUT_BUFFER_PADDING_SIZE bytes past the data (zeroed): a copy
  // with that padding, since the application's buffer ends where it ends.
  impl_->padded.assign(data, data + size);
  impl_->padded.resize(size + AV_INPUT_BUFFER_PADDING_SIZE, 0);
  KILN_RETURN_IF_ERROR(impl_->Parse(impl_->padded.data(), static_cast<int>(size), frames), "");
  // The piece ends a frame: let the parser give up the one it holds.
  return impl_->Parse(nullptr, 0, frames);
}

Status VideoDecoder::Flush(std::vector<Yuv>* frames) {
  KILN_RETURN_IF_ERROR(impl_->Parse(nullptr, 0, frames), "");
  KILN_RETURN_IF_ERROR(impl_->Send(nullptr, frames), "");
  A().avcodec_flush_buffers(impl_->ctx.get());  // ready for a next stream
  return Status::Ok();
}

// ---- encoder ----

struct VideoEncoder::Impl {
  std::unique_ptr<AVCodecContext, CodecContextDeleter> ctx;
  std::unique_ptr<AVPacket, PacketDeleter> packet;
  std::unique_ptr<AVFrame, FrameDeleter> frame;
  int64_t next_pts = 0;

  Status Send(AVFrame* f, std::vector<std::vector<uint8_t>>* packets) {
    int rc = A().avcodec_send_frame(ctx.get(), f);
    if (rc < 0 && rc != AVERROR_EOF)
      return Error(code::kFailure, "video encode failed: ", AvError(rc));
    while (true) {
      rc = A().avcodec_receive_packet(ctx.get(), packet.get());
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return Status::Ok();
      if (rc < 0) return Error(code::kFailure, "video encode failed: ", AvError(rc));
      packets->emplace_back(packet->data, packet->data + packet->size);
      A().av_packet_unref(packet.get());
    }
  }
};

VideoEncoder::VideoEncoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VideoEncoder::~VideoEncoder() = default;

Result<std::unique_ptr<VideoEncoder>> VideoEncoder::Open(const EncoderConfig& c) {
  KILN_RETURN_IF_ERROR(Av().status(), "video encode");
  QuietLogs();
  const bool h264 = c.format.codec == VideoCodec::kH264;
  const AVCodec* enc = A().avcodec_find_encoder_by_name(h264 ? "libx264" : "libx265");
  if (enc == nullptr) {
    return Error(code::kFeatureUnsupported, "this libavcodec has no ", h264 ? "libx264" : "libx265",
                 " encoder");
  }
  if (c.width < 16 || c.height < 16 || c.width > kMaxSide || c.height > kMaxSide ||
      c.width % 2 != 0 || c.height % 2 != 0) {
    return Error(code::kInvalidParam, "video encode: ", c.width, "x", c.height,
                 " is not a picture size the encoder takes (even sides from 16 to ", kMaxSide, ")");
  }
  auto impl = std::make_unique<Impl>();
  impl->ctx.reset(A().avcodec_alloc_context3(enc));
  impl->packet.reset(A().av_packet_alloc());
  impl->frame.reset(A().av_frame_alloc());
  if (!impl->ctx || !impl->packet || !impl->frame) {
    return Error(code::kBadAlloc, "video encode: out of memory");
  }
  AVCodecContext* ctx = impl->ctx.get();
  ctx->width = static_cast<int>(c.width);
  ctx->height = static_cast<int>(c.height);
  ctx->pix_fmt = AV_PIX_FMT_YUV420P;
  const int fps = c.src_rate == 0 ? 30 : static_cast<int>(c.src_rate);
  ctx->time_base = AVRational{1, fps};
  ctx->framerate = AVRational{fps, 1};
  ctx->thread_count = 1;
  ctx->max_b_frames = 0;
  if (c.key_frame_interval != 0) ctx->gop_size = static_cast<int>(c.key_frame_interval);
  if (c.max_bitrate_kbps != 0 && c.rc_mode != 0) {
    ctx->bit_rate = int64_t{c.max_bitrate_kbps} * 1000;
    ctx->rc_max_rate = ctx->bit_rate;
    ctx->rc_buffer_size = static_cast<int>(ctx->bit_rate);
    if (c.rc_mode == 2) ctx->rc_min_rate = ctx->bit_rate;
  }
  // Every frame out as it goes in (no lookahead, no B-frames), quietly.
  A().av_opt_set(ctx->priv_data, "preset", "veryfast", 0);
  A().av_opt_set(ctx->priv_data, "tune", "zerolatency", 0);
  // A forced key frame is an IDR picture (a random-access point), as DVPP's is.
  A().av_opt_set(ctx->priv_data, "forced-idr", "1", 0);
  if (h264) {
    A().av_opt_set(ctx->priv_data, "profile", c.format.h264_profile, 0);
  } else {
    // Closed GOPs: a key frame is an IDR picture, not an open-GOP CRA. One thread, as for
    // libx264 (thread_count): a channel's frames go one at a time, and x265's own pool would
    // add threads per channel.
    A().av_opt_set(ctx->priv_data, "x265-params",
                   "log-level=error:open-gop=0:pools=none:frame-threads=1", 0);
  }
  int rc = A().avcodec_open2(ctx, enc, nullptr);
  if (rc < 0) return Error(code::kFailure, "video encode: cannot open the encoder: ", AvError(rc));
  AVFrame* f = impl->frame.get();
  f->format = ctx->pix_fmt;
  f->width = ctx->width;
  f->height = ctx->height;
  rc = A().av_frame_get_buffer(f, 0);
  if (rc < 0) return Error(code::kBadAlloc, "video encode: ", AvError(rc));
  return std::unique_ptr<VideoEncoder>(new VideoEncoder(std::move(impl)));
}

Status VideoEncoder::Encode(const Yuv& img, bool force_key_frame,
                            std::vector<std::vector<uint8_t>>* packets) {
  AVFrame* f = impl_->frame.get();
  if (img.sub_x != 2 || img.sub_y != 2) {
    return Error(code::kInvalidParam, "video encode takes 4:2:0 pictures");
  }
  if (img.y.w != static_cast<uint32_t>(f->width) || img.y.h != static_cast<uint32_t>(f->height)) {
    return Error(code::kInvalidParam, "video encode: the picture is ", img.y.w, "x", img.y.h,
                 ", the channel encodes ", f->width, "x", f->height);
  }
  int rc = A().av_frame_make_writable(f);
  if (rc < 0) return Error(code::kBadAlloc, "video encode: ", AvError(rc));
  const Plane* planes[3] = {&img.y, &img.u, &img.v};
  for (int c = 0; c < 3; ++c) {
    for (uint32_t y = 0; y < planes[c]->h; ++y) {
      std::memcpy(f->data[c] + static_cast<ptrdiff_t>(y) * f->linesize[c], planes[c]->row(y),
                  planes[c]->w);
    }
  }
  f->pts = impl_->next_pts++;
  f->pict_type = force_key_frame ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
  return impl_->Send(f, packets);
}

Status VideoEncoder::Flush(std::vector<std::vector<uint8_t>>* packets) {
  return impl_->Send(nullptr, packets);
}

}  // namespace kiln::media

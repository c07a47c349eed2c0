// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of DVPP video (aclvdec*, aclvenc*; docs/dvpp.md "Video"). The oracle is
// libavcodec driven directly by the test: it encodes generated frames to H.264 for aclvdec to
// decode, and decodes what aclvenc writes. Frames must come back one for one, in order, and
// within a PSNR that lossy coding of these smooth test frames clears by a wide margin.
#include <gtest/gtest.h>
#include <pthread.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
}

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define ENABLE_DVPP_INTERFACE
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

namespace {

constexpr uint32_t kW = 160, kH = 96, kFrames = 24;
constexpr double kMinPsnr = 32.0;  // measured 40-48 dB on these frames at the encoders' defaults

// Frame i: a diagonal gradient with a bright square moving right, chroma drifting.
std::vector<uint8_t> MakeNv12(uint32_t i) {
  std::vector<uint8_t> f(kW * kH * 3 / 2);
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      bool square = x >= 10 + 4 * i && x < 40 + 4 * i && y >= 30 && y < 60;
      f[y * kW + x] = static_cast<uint8_t>(square ? 220 : 40 + (x + y) / 2);
    }
  for (uint32_t y = 0; y < kH / 2; ++y)
    for (uint32_t x = 0; x < kW / 2; ++x) {
      f[kW * kH + y * kW + 2 * x] = static_cast<uint8_t>(100 + x / 4 + i);
      f[kW * kH + y * kW + 2 * x + 1] = static_cast<uint8_t>(150 - y / 4);
    }
  return f;
}

double Psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * a.size() / se);
}

// ---- the oracle: libavcodec, straight ----

std::vector<std::vector<uint8_t>> OracleEncode(const char* encoder) {
  const AVCodec* codec = avcodec_find_encoder_by_name(encoder);
  AVCodecContext* ctx = avcodec_alloc_context3(codec);
  ctx->width = kW;
  ctx->height = kH;
  ctx->pix_fmt = AV_PIX_FMT_YUV420P;
  ctx->time_base = AVRational{1, 25};
  ctx->max_b_frames = 0;
  av_opt_set(ctx->priv_data, "preset", "medium", 0);  // not Kiln's settings
  EXPECT_EQ(avcodec_open2(ctx, codec, nullptr), 0);
  AVFrame* frame = av_frame_alloc();
  frame->format = ctx->pix_fmt;
  frame->width = kW;
  frame->height = kH;
  EXPECT_EQ(av_frame_get_buffer(frame, 0), 0);
  AVPacket* pkt = av_packet_alloc();
  std::vector<std::vector<uint8_t>> packets;
  auto drain = [&] {
    while (avcodec_receive_packet(ctx, pkt) == 0) {
      packets.emplace_back(pkt->data, pkt->data + pkt->size);
      av_packet_unref(pkt);
    }
  };
  for (uint32_t i = 0; i < kFrames; ++i) {
    std::vector<uint8_t> nv12 = MakeNv12(i);
    av_frame_make_writable(frame);
    for (uint32_t y = 0; y < kH; ++y)
      std::memcpy(frame->data[0] + y * frame->linesize[0], &nv12[y * kW], kW);
    for (uint32_t y = 0; y < kH / 2; ++y)
      for (uint32_t x = 0; x < kW / 2; ++x) {
        frame->data[1][y * frame->linesize[1] + x] = nv12[kW * kH + y * kW + 2 * x];
        frame->data[2][y * frame->linesize[2] + x] = nv12[kW * kH + y * kW + 2 * x + 1];
      }
    frame->pts = i;
    EXPECT_EQ(avcodec_send_frame(ctx, frame), 0);
    drain();
  }
  avcodec_send_frame(ctx, nullptr);
  drain();
  av_packet_free(&pkt);
  av_frame_free(&frame);
  avcodec_free_context(&ctx);
  return packets;
}

// Decodes a whole elementary stream; each frame as NV12.
std::vector<std::vector<uint8_t>> OracleDecode(AVCodecID id, const std::vector<uint8_t>& stream) {
  const AVCodec* codec = avcodec_find_decoder(id);
  AVCodecContext* ctx = avcodec_alloc_context3(codec);
  EXPECT_EQ(avcodec_open2(ctx, codec, nullptr), 0);
  AVCodecParserContext* parser = av_parser_init(id);
  AVPacket* pkt = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  std::vector<std::vector<uint8_t>> frames;
  auto drain = [&] {
    while (avcodec_receive_frame(ctx, frame) == 0) {
      std::vector<uint8_t> nv12(kW * kH * 3 / 2);
      for (uint32_t y = 0; y < kH; ++y)
        std::memcpy(&nv12[y * kW], frame->data[0] + y * frame->linesize[0], kW);
      for (uint32_t y = 0; y < kH / 2; ++y)
        for (uint32_t x = 0; x < kW / 2; ++x) {
          nv12[kW * kH + y * kW + 2 * x] = frame->data[1][y * frame->linesize[1] + x];
          nv12[kW * kH + y * kW + 2 * x + 1] = frame->data[2][y * frame->linesize[2] + x];
        }
      frames.push_back(std::move(nv12));
    }
  };
  const uint8_t* data = stream.data();
  int left = static_cast<int>(stream.size());
  while (left > 0) {
    int used = av_parser_parse2(parser, ctx, &pkt->data, &pkt->size, data, left, AV_NOPTS_VALUE,
                                AV_NOPTS_VALUE, 0);
    data += used;
    left -= used;
    if (pkt->size > 0 && avcodec_send_packet(ctx, pkt) == 0) drain();
  }
  av_parser_parse2(parser, ctx, &pkt->data, &pkt->size, nullptr, 0, AV_NOPTS_VALUE, AV_NOPTS_VALUE,
                   0);
  if (pkt->size > 0 && avcodec_send_packet(ctx, pkt) == 0) drain();
  avcodec_send_packet(ctx, nullptr);
  drain();
  av_frame_free(&frame);
  av_packet_free(&pkt);
  av_parser_close(parser);
  avcodec_free_context(&ctx);
  return frames;
}

// ---- the application side ----

std::atomic<bool> g_stop{false};
void* ReportLoop(void*) {
  while (!g_stop) (void)aclrtProcessReport(20);
  return nullptr;
}

struct Collected {
  std::mutex mu;
  std::vector<std::vector<uint8_t>> frames;  // vdec: NV12 read back; venc: packets
  std::vector<uint32_t> ret_codes;
  std::vector<void*> user_data;
  std::vector<pthread_t> threads;
};
Collected* g_out = nullptr;

void OnDecoded(acldvppStreamDesc* input, acldvppPicDesc* output, void* user_data) {
  (void)input;
  std::lock_guard<std::mutex> lock(g_out->mu);
  g_out->threads.push_back(pthread_self());
  g_out->user_data.push_back(user_data);
  g_out->ret_codes.push_back(output ? acldvppGetPicDescRetCode(output) : 12345u);
  std::vector<uint8_t> nv12(kW * kH * 3 / 2, 0);
  if (output != nullptr && acldvppGetPicDescRetCode(output) == 0) {
    const uint32_t ws = acldvppGetPicDescWidthStride(output),
                   hs = acldvppGetPicDescHeightStride(output);
    std::vector<uint8_t> raw(acldvppGetPicDescSize(output));
    aclrtMemcpy(raw.data(), raw.size(), acldvppGetPicDescData(output), raw.size(),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (uint32_t y = 0; y < kH; ++y) std::memcpy(&nv12[y * kW], &raw[y * ws], kW);
    for (uint32_t y = 0; y < kH / 2; ++y)
      std::memcpy(&nv12[kW * kH + y * kW], &raw[ws * hs + y * ws], kW);
  }
  g_out->frames.push_back(std::move(nv12));
}

void OnEncoded(acldvppPicDesc* input, acldvppStreamDesc* output, void* user_data) {
  (void)input;
  std::lock_guard<std::mutex> lock(g_out->mu);
  g_out->threads.push_back(pthread_self());
  g_out->user_data.push_back(user_data);
  std::vector<uint8_t> packet(acldvppGetStreamDescSize(output));
  EXPECT_EQ(aclrtMemcpy(packet.data(), packet.size(), acldvppGetStreamDescData(output),
                        packet.size(), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  g_out->frames.push_back(std::move(packet));
}

void OnEncodedWithRetCode(acldvppPicDesc* input, acldvppStreamDesc* output, void* user_data) {
  (void)input;
  std::lock_guard<std::mutex> lock(g_out->mu);
  g_out->user_data.push_back(user_data);
  g_out->ret_codes.push_back(acldvppGetStreamDescRetCode(output));
  g_out->frames.emplace_back(acldvppGetStreamDescSize(output));
}

class VideoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    g_out = &out_;
    g_stop = false;
    ASSERT_EQ(pthread_create(&reporter_, nullptr, ReportLoop, nullptr), 0);
  }
  void TearDown() override {
    g_stop = true;
    pthread_join(reporter_, nullptr);
    for (void* p : buffers_) EXPECT_EQ(acldvppFree(p), ACL_SUCCESS);
    for (acldvppPicDesc* d : pics_) EXPECT_EQ(acldvppDestroyPicDesc(d), ACL_SUCCESS);
    for (acldvppStreamDesc* d : streams_) EXPECT_EQ(acldvppDestroyStreamDesc(d), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  void* Dev(const std::vector<uint8_t>& bytes, size_t capacity = 0) {
    void* p = nullptr;
    EXPECT_EQ(acldvppMalloc(&p, std::max(bytes.size(), capacity)), ACL_SUCCESS);
    if (!bytes.empty()) {
      EXPECT_EQ(aclrtMemcpy(p, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_SUCCESS);
    }
    buffers_.push_back(p);
    return p;
  }
  acldvppPicDesc* Nv12Desc(void* data, uint32_t size) {
    acldvppPicDesc* d = acldvppCreatePicDesc();
    acldvppSetPicDescData(d, data);
    acldvppSetPicDescSize(d, size);
    acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
    acldvppSetPicDescWidth(d, kW);
    acldvppSetPicDescHeight(d, kH);
    acldvppSetPicDescWidthStride(d, kW);
    acldvppSetPicDescHeightStride(d, kH);
    pics_.push_back(d);
    return d;
  }
  acldvppStreamDesc* StreamDesc(void* data, uint32_t size, uint8_t eos = 0) {
    acldvppStreamDesc* d = acldvppCreateStreamDesc();
    acldvppSetStreamDescData(d, data);
    acldvppSetStreamDescSize(d, size);
    acldvppSetStreamDescEos(d, eos);
    streams_.push_back(d);
    return d;
  }
  aclvdecChannelDesc* Decoder(acldvppStreamFormat format) {
    aclvdecChannelDesc* ch = aclvdecCreateChannelDesc();
    EXPECT_EQ(aclvdecSetChannelDescThreadId(ch, reporter_), ACL_SUCCESS);
    EXPECT_EQ(aclvdecSetChannelDescCallback(ch, OnDecoded), ACL_SUCCESS);
    EXPECT_EQ(aclvdecSetChannelDescEnType(ch, format), ACL_SUCCESS);
    EXPECT_EQ(aclvdecSetChannelDescOutPicFormat(ch, PIXEL_FORMAT_YUV_SEMIPLANAR_420), ACL_SUCCESS);
    EXPECT_EQ(aclvdecCreateChannel(ch), ACL_SUCCESS);
    return ch;
  }
  // Sends every packet with its own output picture, then the end of stream; destroys the channel.
  void DecodeAll(aclvdecChannelDesc* ch, const std::vector<std::vector<uint8_t>>& packets) {
    for (size_t i = 0; i < packets.size(); ++i) {
      void* in = Dev(packets[i]);
      void* out = Dev({}, kW * kH * 3 / 2);
      ASSERT_EQ(
          aclvdecSendFrame(ch, StreamDesc(in, static_cast<uint32_t>(packets[i].size())),
                           Nv12Desc(out, kW * kH * 3 / 2), nullptr, reinterpret_cast<void*>(i + 1)),
          ACL_SUCCESS);
    }
    ASSERT_EQ(aclvdecSendFrame(ch, StreamDesc(nullptr, 0, 1), nullptr, nullptr, nullptr),
              ACL_SUCCESS);
    ASSERT_EQ(aclvdecDestroyChannel(ch), ACL_SUCCESS);
    ASSERT_EQ(aclvdecDestroyChannelDesc(ch), ACL_SUCCESS);
  }
  std::vector<std::vector<uint8_t>> EncodeAll(acldvppStreamFormat format) {
    aclvencChannelDesc* ch = aclvencCreateChannelDesc();
    EXPECT_EQ(aclvencSetChannelDescThreadId(ch, reporter_), ACL_SUCCESS);
    EXPECT_EQ(aclvencSetChannelDescCallback(ch, OnEncoded), ACL_SUCCESS);
    EXPECT_EQ(aclvencSetChannelDescEnType(ch, format), ACL_SUCCESS);
    EXPECT_EQ(aclvencSetChannelDescPicFormat(ch, PIXEL_FORMAT_YUV_SEMIPLANAR_420), ACL_SUCCESS);
    EXPECT_EQ(aclvencSetChannelDescPicWidth(ch, kW), ACL_SUCCESS);
    EXPECT_EQ(aclvencSetChannelDescPicHeight(ch, kH), ACL_SUCCESS);
    EXPECT_EQ(aclvencSetChannelDescKeyFrameInterval(ch, 12), ACL_SUCCESS);
    EXPECT_EQ(aclvencCreateChannel(ch), ACL_SUCCESS);
    aclvencFrameConfig* config = aclvencCreateFrameConfig();
    for (uint32_t i = 0; i < kFrames; ++i) {
      void* in = Dev(MakeNv12(i));
      EXPECT_EQ(aclvencSendFrame(ch, Nv12Desc(in, kW * kH * 3 / 2), nullptr, config,
                                 reinterpret_cast<void*>(uintptr_t{i} + 1)),
                ACL_SUCCESS);
    }
    EXPECT_EQ(aclvencSetFrameConfigEos(config, 1), ACL_SUCCESS);
    EXPECT_EQ(aclvencSendFrame(ch, nullptr, nullptr, config, nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclvencDestroyChannel(ch), ACL_SUCCESS);
    EXPECT_EQ(aclvencDestroyChannelDesc(ch), ACL_SUCCESS);
    EXPECT_EQ(aclvencDestroyFrameConfig(config), ACL_SUCCESS);
    std::vector<std::vector<uint8_t>> packets;
    std::lock_guard<std::mutex> lock(out_.mu);
    packets.swap(out_.frames);
    return packets;
  }

  pthread_t reporter_{};
  Collected out_;
  std::vector<void*> buffers_;
  std::vector<acldvppPicDesc*> pics_;
  std::vector<acldvppStreamDesc*> streams_;
};

TEST_F(VideoTest, DecodesAnH264StreamFrameForFrameOnTheReportThread) {
  std::vector<std::vector<uint8_t>> packets = OracleEncode("libx264");
  ASSERT_EQ(packets.size(), kFrames);
  DecodeAll(Decoder(H264_MAIN_LEVEL), packets);
  std::lock_guard<std::mutex> lock(out_.mu);
  ASSERT_EQ(out_.frames.size(), kFrames);
  for (uint32_t i = 0; i < kFrames; ++i) {
    EXPECT_EQ(out_.ret_codes[i], 0u) << i;
    EXPECT_EQ(out_.user_data[i], reinterpret_cast<void*>(uintptr_t{i} + 1));
    EXPECT_TRUE(pthread_equal(out_.threads[i], reporter_));
    EXPECT_GT(Psnr(out_.frames[i], MakeNv12(i)), kMinPsnr) << "frame " << i;
  }
}

TEST_F(VideoTest, EncodesH264ThatAnotherDecoderReadsBack) {
  std::vector<std::vector<uint8_t>> packets = EncodeAll(H264_HIGH_LEVEL);
  ASSERT_EQ(packets.size(), kFrames);  // one callback per frame
  {
    std::lock_guard<std::mutex> lock(out_.mu);
    for (uint32_t i = 0; i < kFrames; ++i) {
      EXPECT_EQ(out_.user_data[i], reinterpret_cast<void*>(uintptr_t{i} + 1));
      EXPECT_TRUE(pthread_equal(out_.threads[i], reporter_));
    }
  }
  std::vector<uint8_t> stream;
  for (const auto& p : packets) stream.insert(stream.end(), p.begin(), p.end());
  std::vector<std::vector<uint8_t>> frames = OracleDecode(AV_CODEC_ID_H264, stream);
  ASSERT_EQ(frames.size(), kFrames);
  for (uint32_t i = 0; i < kFrames; ++i) EXPECT_GT(Psnr(frames[i], MakeNv12(i)), kMinPsnr) << i;
}

TEST_F(VideoTest, H265RoundTripsThroughVencAndVdec) {
  std::vector<std::vector<uint8_t>> packets = EncodeAll(H265_MAIN_LEVEL);
  ASSERT_EQ(packets.size(), kFrames);
  {
    std::lock_guard<std::mutex> lock(out_.mu);
    out_.user_data.clear();
    out_.threads.clear();
  }
  DecodeAll(Decoder(H265_MAIN_LEVEL), packets);
  std::lock_guard<std::mutex> lock(out_.mu);
  ASSERT_EQ(out_.frames.size(), kFrames);
  for (uint32_t i = 0; i < kFrames; ++i) {
    EXPECT_EQ(out_.ret_codes[i], 0u);
    EXPECT_GT(Psnr(out_.frames[i], MakeNv12(i)), kMinPsnr) << i;
  }
}

TEST_F(VideoTest, ChannelsRefuseWhatTheyCannotRunAndSurviveGarbage) {
  aclvdecChannelDesc* ch = aclvdecCreateChannelDesc();
  EXPECT_EQ(aclvdecSetChannelDescCallback(ch, OnDecoded), ACL_SUCCESS);
  EXPECT_EQ(aclvdecCreateChannel(ch), ACL_ERROR_INVALID_PARAM);  // no report thread
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("report thread"), std::string::npos);
  EXPECT_EQ(aclvdecSetChannelDescEnType(ch, static_cast<acldvppStreamFormat>(7)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclvdecSetChannelDescOutPicFormat(ch, PIXEL_FORMAT_RGB_888), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclvdecSetChannelDescThreadId(ch, reporter_), ACL_SUCCESS);
  EXPECT_EQ(aclvdecSetChannelDescEnType(ch, H264_MAIN_LEVEL), ACL_SUCCESS);
  void* junk_dev = Dev(std::vector<uint8_t>(500, 0x5A));
  acldvppStreamDesc* junk = StreamDesc(junk_dev, 500);
  void* out = Dev({}, kW * kH * 3 / 2);
  EXPECT_EQ(aclvdecSendFrame(ch, junk, Nv12Desc(out, kW * kH * 3 / 2), nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);  // not created yet
  ASSERT_EQ(aclvdecCreateChannel(ch), ACL_SUCCESS);
  std::vector<uint8_t> host(16);
  EXPECT_EQ(aclvdecSendFrame(ch, StreamDesc(host.data(), 16), Nv12Desc(out, kW * kH * 3 / 2),
                             nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);                                 // host memory
  EXPECT_EQ(aclvdecDestroyChannelDesc(ch), ACL_ERROR_INVALID_PARAM);  // channel still there
  // Garbage: the entry is called back with a non-zero ret code; the process goes on.
  ASSERT_EQ(aclvdecSendFrame(ch, junk, Nv12Desc(out, kW * kH * 3 / 2), nullptr, nullptr),
            ACL_SUCCESS);
  ASSERT_EQ(aclvdecSendFrame(ch, StreamDesc(nullptr, 0, 1), nullptr, nullptr, nullptr),
            ACL_SUCCESS);
  ASSERT_EQ(aclvdecDestroyChannel(ch), ACL_SUCCESS);
  EXPECT_EQ(aclvdecDestroyChannel(ch), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclvdecDestroyChannelDesc(ch), ACL_SUCCESS);
  std::lock_guard<std::mutex> lock(out_.mu);
  ASSERT_EQ(out_.ret_codes.size(), 1u);
  EXPECT_NE(out_.ret_codes[0], 0u);

  aclvencChannelDesc* enc = aclvencCreateChannelDesc();
  EXPECT_EQ(aclvencSetChannelDescCallback(enc, OnEncoded), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescThreadId(enc, reporter_), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescPicWidth(enc, 15), ACL_SUCCESS);  // odd: no encoder takes it
  EXPECT_EQ(aclvencSetChannelDescPicHeight(enc, kH), ACL_SUCCESS);
  EXPECT_EQ(aclvencCreateChannel(enc), ACL_ERROR_INVALID_PARAM);
  uint32_t width = kW;
  EXPECT_EQ(aclvencSetChannelDescParam(enc, ACL_VENC_PIC_WIDTH_UINT32, 4, &width), ACL_SUCCESS);
  EXPECT_EQ(aclvencGetChannelDescPicWidth(enc), kW);
  size_t got = 0;
  uint32_t value = 0;
  EXPECT_EQ(aclvencGetChannelDescParam(enc, ACL_VENC_PIC_HEIGHT_UINT32, 4, &got, &value),
            ACL_SUCCESS);
  EXPECT_EQ(got, 4u);
  EXPECT_EQ(value, kH);
  EXPECT_EQ(aclvencSetChannelDescParam(enc, ACL_VENC_PIC_WIDTH_UINT32, 2, &width),
            ACL_ERROR_INVALID_PARAM);
  // The generic setter checks what the named ones check: a 4:2:2 input format is refused.
  uint32_t yuv422 = PIXEL_FORMAT_YUV_SEMIPLANAR_422;
  EXPECT_EQ(aclvencSetChannelDescParam(enc, ACL_VENC_PIXEL_FORMAT_UINT32, 4, &yuv422),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclvencGetChannelDescPicFormat(enc), PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  uint32_t rate = 100000;
  EXPECT_EQ(aclvencSetChannelDescParam(enc, ACL_VENC_SRC_RATE_UINT32, 4, &rate),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclvencDestroyChannelDesc(enc), ACL_SUCCESS);

  // A channel created on a thread with no context fails with a code (no stream to run on).
  aclvdecChannelDesc* orphan = aclvdecCreateChannelDesc();
  EXPECT_EQ(aclvdecSetChannelDescCallback(orphan, OnDecoded), ACL_SUCCESS);
  EXPECT_EQ(aclvdecSetChannelDescThreadId(orphan, reporter_), ACL_SUCCESS);
  aclError created = ACL_SUCCESS;
  std::thread([&] { created = aclvdecCreateChannel(orphan); }).join();
  EXPECT_NE(created, ACL_SUCCESS);
  EXPECT_EQ(aclvdecDestroyChannelDesc(orphan), ACL_SUCCESS);
}

TEST_F(VideoTest, AFrameThatDoesNotFitTheApplicationsBufferIsCalledBackWithItsRetCode) {
  void* small = Dev({}, 16);
  aclvencChannelDesc* ch = aclvencCreateChannelDesc();
  EXPECT_EQ(aclvencSetChannelDescThreadId(ch, reporter_), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescCallback(ch, OnEncodedWithRetCode), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescEnType(ch, H264_MAIN_LEVEL), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescPicWidth(ch, kW), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescPicHeight(ch, kH), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescBufAddr(ch, small), ACL_SUCCESS);
  EXPECT_EQ(aclvencSetChannelDescBufSize(ch, 16), ACL_SUCCESS);
  ASSERT_EQ(aclvencCreateChannel(ch), ACL_SUCCESS);
  aclvencFrameConfig* config = aclvencCreateFrameConfig();
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(aclvencSendFrame(ch, Nv12Desc(Dev(MakeNv12(i)), kW * kH * 3 / 2), nullptr, config,
                               reinterpret_cast<void*>(uintptr_t{i} + 1)),
              ACL_SUCCESS);
  }
  EXPECT_EQ(aclvencDestroyChannel(ch), ACL_SUCCESS);
  EXPECT_EQ(aclvencDestroyChannelDesc(ch), ACL_SUCCESS);
  EXPECT_EQ(aclvencDestroyFrameConfig(config), ACL_SUCCESS);
  std::lock_guard<std::mutex> lock(out_.mu);
  ASSERT_EQ(out_.ret_codes.size(), 3u);  // every frame is called back, none with data
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out_.ret_codes[i], static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM)) << i;
    EXPECT_EQ(out_.user_data[i], reinterpret_cast<void*>(uintptr_t{i} + 1));
    EXPECT_TRUE(out_.frames[i].empty());
  }
}

}  // namespace

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// H.264 / H.265 decode and encode on FFmpeg's libavcodec (decoders h264 and hevc; encoders
// libx264 and libx265) for the DVPP video API (docs/dvpp.md, "Video"). Frames cross as 8-bit
// 4:2:0 planar YUV (media/convert.h's Yuv).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "media/convert.h"
#include "media/picture.h"

namespace kiln::media {

enum class VideoCodec { kH264, kH265 };

// acldvppStreamFormat: H265_MAIN_LEVEL (0), H264_BASELINE_LEVEL (1), H264_MAIN_LEVEL (2),
// H264_HIGH_LEVEL (3).
struct StreamFormat {
  VideoCodec codec = VideoCodec::kH265;
  const char* h264_profile = nullptr;  // "baseline", "main", "high"
};
Result<StreamFormat> FindStreamFormat(int value);

class VideoDecoder {
 public:
  static Result<std::unique_ptr<VideoDecoder>> Open(VideoCodec codec);
  ~VideoDecoder();
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  // Decodes one piece of the elementary stream, taken to end on a frame boundary (DVPP's
  // VDEC gets a frame per call; a piece with several frames is split by the parser). The
  // frames the decoder completes are appended to `frames`, in display order.
  Status Decode(const uint8_t* data, size_t size, std::vector<Yuv>* frames);
  // End of stream: the frames the decoder still holds.
  Status Flush(std::vector<Yuv>* frames);

 private:
  struct Impl;
  explicit VideoDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct EncoderConfig {
  StreamFormat format;
  uint32_t width = 0, height = 0;
  uint32_t key_frame_interval = 0;  // 0: the encoder's default
  uint32_t rc_mode = 0;             // 0 default (constant quality), 1 VBR, 2 CBR
  uint32_t src_rate = 0;            // frames per second; 0: 30
  uint32_t max_bitrate_kbps = 0;    // VBR / CBR target; 0: the encoder's default
};

class VideoEncoder {
 public:
  static Result<std::unique_ptr<VideoEncoder>> Open(const EncoderConfig& config);
  ~VideoEncoder();
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  // Encodes `img` (the configured size, 4:2:0); appends the packets it completes (with no
  // lookahead and no B-frames, one per frame).
  Status Encode(const Yuv& img, bool force_key_frame, std::vector<std::vector<uint8_t>>* packets);
  Status Flush(std::vector<std::vector<uint8_t>>* packets);

 private:
  struct Impl;
  explicit VideoEncoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::media

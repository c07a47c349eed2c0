// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of the DVPP media API (acl/ops/acl_dvpp.h, docs/dvpp.md): DVPP memory,
// descriptions and their defaults, channels and modes, and every stream task on cases worked by
// hand (pixel replication, full-range BT.601, a Gaussian impulse response, borders, histograms,
// a PNG written byte by byte here). tests/python/test_dvpp.py holds the same operations against
// Pillow and OpenCV on real images.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#define ENABLE_DVPP_INTERFACE
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

namespace {

std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg ? msg : "";
}

// A picture in DVPP memory with its description.
struct DevPic {
  void* data = nullptr;
  uint32_t size = 0;
  acldvppPicDesc* desc = nullptr;
};

class DvppTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    channel_ = acldvppCreateChannelDesc();
    ASSERT_NE(channel_, nullptr);
    ASSERT_EQ(acldvppCreateChannel(channel_), ACL_SUCCESS);
  }
  void TearDown() override {
    for (DevPic& p : pics_) {
      EXPECT_EQ(acldvppDestroyPicDesc(p.desc), ACL_SUCCESS);
      EXPECT_EQ(acldvppFree(p.data), ACL_SUCCESS);
    }
    EXPECT_EQ(acldvppDestroyChannel(channel_), ACL_SUCCESS);
    EXPECT_EQ(acldvppDestroyChannelDesc(channel_), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }

  // Describes `bytes` (copied to DVPP memory) as a picture.
  DevPic Picture(acldvppPixelFormat format, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs,
                 const std::vector<uint8_t>& bytes) {
    DevPic p;
    p.size = static_cast<uint32_t>(bytes.size());
    EXPECT_EQ(acldvppMalloc(&p.data, p.size), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(p.data, p.size, bytes.data(), p.size, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    p.desc = acldvppCreatePicDesc();
    EXPECT_EQ(acldvppSetPicDescData(p.desc, p.data), ACL_SUCCESS);
    EXPECT_EQ(acldvppSetPicDescSize(p.desc, p.size), ACL_SUCCESS);
    EXPECT_EQ(acldvppSetPicDescFormat(p.desc, format), ACL_SUCCESS);
    EXPECT_EQ(acldvppSetPicDescWidth(p.desc, w), ACL_SUCCESS);
    EXPECT_EQ(acldvppSetPicDescHeight(p.desc, h), ACL_SUCCESS);
    EXPECT_EQ(acldvppSetPicDescWidthStride(p.desc, ws), ACL_SUCCESS);
    EXPECT_EQ(acldvppSetPicDescHeightStride(p.desc, hs), ACL_SUCCESS);
    pics_.push_back(p);
    return p;
  }

  std::vector<uint8_t> Read(const DevPic& p) {
    std::vector<uint8_t> out(p.size);
    EXPECT_EQ(aclrtMemcpy(out.data(), p.size, p.data, p.size, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    return out;
  }

  // Host bytes copied into DVPP memory (compressed input).
  void* Upload(const std::vector<uint8_t>& bytes) {
    void* dev = nullptr;
    EXPECT_EQ(acldvppMalloc(&dev, bytes.size()), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(dev, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    return dev;
  }

  aclrtStream stream_ = nullptr;
  acldvppChannelDesc* channel_ = nullptr;
  std::vector<DevPic> pics_;
};

// An NV12 picture (stride 16 x even rows) from Y and interleaved UV rows.
std::vector<uint8_t> Nv12(uint32_t ws, uint32_t hs, uint8_t y, uint8_t u, uint8_t v) {
  std::vector<uint8_t> bytes(ws * hs * 3 / 2, y);
  for (size_t i = ws * hs; i < bytes.size(); i += 2) {
    bytes[i] = u;
    bytes[i + 1] = v;
  }
  return bytes;
}

// A PNG written here (stored zlib blocks through zlib's compress at level 0): `rows` are
// filter-type-0 scanlines of `channels` bytes per pixel.
std::vector<uint8_t> MakePng(uint32_t w, uint32_t h, int color_type, int channels,
                             const std::vector<uint8_t>& pixels) {
  auto be32 = [](std::vector<uint8_t>* out, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<uint8_t>(v >> s));
  };
  auto chunk = [&](std::vector<uint8_t>* out, const char* type, const std::vector<uint8_t>& data) {
    be32(out, static_cast<uint32_t>(data.size()));
    std::vector<uint8_t> body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    out->insert(out->end(), body.begin(), body.end());
    be32(out, static_cast<uint32_t>(crc32(0, body.data(), static_cast<uInt>(body.size()))));
  };
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  be32(&ihdr, w);
  be32(&ihdr, h);
  ihdr.insert(ihdr.end(), {8, static_cast<uint8_t>(color_type), 0, 0, 0});
  chunk(&png, "IHDR", ihdr);
  std::vector<uint8_t> raw;
  for (uint32_t y = 0; y < h; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), pixels.begin() + y * w * channels,
               pixels.begin() + (y + 1) * w * channels);
  }
  uLongf len = compressBound(static_cast<uLong>(raw.size()));
  std::vector<uint8_t> z(len);
  EXPECT_EQ(compress2(z.data(), &len, raw.data(), static_cast<uLong>(raw.size()), 0), Z_OK);
  z.resize(len);
  chunk(&png, "IDAT", z);
  chunk(&png, "IEND", {});
  return png;
}

// ---------------------------------------------------------------------------------------------
// Memory and descriptions

TEST_F(DvppTest, MallocGivesDeviceMemoryThatOnlyDvppFreeReleases) {
  void* dvpp = nullptr;
  ASSERT_EQ(acldvppMalloc(&dvpp, 100), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dvpp) % 64, 0u);
  // ALIGN_UP(100, 32) + 32 = 160 bytes are usable.
  std::vector<uint8_t> host(160, 1);
  EXPECT_EQ(aclrtMemcpy(dvpp, 160, host.data(), 160, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  void* plain = nullptr;
  ASSERT_EQ(aclrtMalloc(&plain, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  RecentErrMsg();
  EXPECT_EQ(acldvppFree(plain), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("acldvppMalloc"), std::string::npos);
  EXPECT_EQ(aclrtFree(plain), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(dvpp), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(dvpp), ACL_ERROR_INVALID_PARAM);  // twice
  // A DVPP block released by aclrtFree is no longer one: acldvppFree does not take its address
  // (which aclrtMalloc may hand out again) afterwards.
  ASSERT_EQ(acldvppMalloc(&dvpp, 64), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(dvpp), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(dvpp), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppMalloc(nullptr, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppMalloc(&dvpp, 0), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DvppTest, PicDescKeepsEveryFieldAndDefaultsToZero) {
  acldvppPicDesc* d = acldvppCreatePicDesc();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(acldvppGetPicDescFormat(d), PIXEL_FORMAT_YUV_400);
  EXPECT_EQ(acldvppGetPicDescWidth(d), 0u);
  EXPECT_EQ(acldvppGetPicDescData(d), nullptr);
  int anchor = 0;
  EXPECT_EQ(acldvppSetPicDescData(d, &anchor), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescSize(d, 1234), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescFormat(d, PIXEL_FORMAT_BGR_888), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescWidth(d, 33), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescHeight(d, 17), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescWidthStride(d, 112), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescHeightStride(d, 18), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetPicDescRetCode(d, 9), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescData(d), &anchor);
  EXPECT_EQ(acldvppGetPicDescSize(d), 1234u);
  EXPECT_EQ(acldvppGetPicDescFormat(d), PIXEL_FORMAT_BGR_888);
  EXPECT_EQ(acldvppGetPicDescWidth(d), 33u);
  EXPECT_EQ(acldvppGetPicDescHeight(d), 17u);
  EXPECT_EQ(acldvppGetPicDescWidthStride(d), 112u);
  EXPECT_EQ(acldvppGetPicDescHeightStride(d), 18u);
  EXPECT_EQ(acldvppGetPicDescRetCode(d), 9u);
  EXPECT_EQ(acldvppDestroyPicDesc(d), ACL_SUCCESS);
  // A dead or NULL description: setters fail with the code, getters give the defaults.
  EXPECT_EQ(acldvppSetPicDescWidth(d, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppSetPicDescWidth(nullptr, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppGetPicDescWidth(d), 0u);
  EXPECT_EQ(acldvppGetPicDescSize(nullptr), 0u);
  EXPECT_EQ(acldvppDestroyPicDesc(d), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DvppTest, BatchOwnsItsPictureDescriptions) {
  EXPECT_EQ(acldvppCreateBatchPicDesc(0), nullptr);
  EXPECT_EQ(acldvppCreateBatchPicDesc(4097), nullptr);  // a wrong size allocates nothing
  EXPECT_EQ(acldvppCreateBatchPicDesc(UINT32_MAX), nullptr);
  acldvppBatchPicDesc* batch = acldvppCreateBatchPicDesc(3);
  ASSERT_NE(batch, nullptr);
  acldvppPicDesc* second = acldvppGetPicDesc(batch, 1);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, acldvppGetPicDesc(batch, 0));
  EXPECT_EQ(acldvppGetPicDesc(batch, 3), nullptr);
  EXPECT_EQ(acldvppSetPicDescWidth(second, 64), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescWidth(second), 64u);
  EXPECT_EQ(acldvppDestroyPicDesc(second), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyBatchPicDesc(batch), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescWidth(second), 0u);  // gone with its batch
  EXPECT_EQ(acldvppDestroyBatchPicDesc(batch), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DvppTest, ConfigsKeepTheirValuesAndRefuseOutOfRangeOnes) {
  acldvppRoiConfig* roi = acldvppCreateRoiConfig(2, 9, 4, 11);
  ASSERT_NE(roi, nullptr);
  EXPECT_EQ(acldvppSetRoiConfig(roi, 0, 15, 0, 7), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetRoiConfigLeft(nullptr, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyRoiConfig(roi), ACL_SUCCESS);

  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  EXPECT_EQ(acldvppGetResizeConfigInterpolation(resize), 0u);
  EXPECT_EQ(acldvppSetResizeConfigInterpolation(resize, 2), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetResizeConfigInterpolation(resize), 2u);
  EXPECT_EQ(acldvppSetResizeConfigInterpolation(resize, 7), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyResizeConfig(resize), ACL_SUCCESS);

  acldvppJpegeConfig* jpege = acldvppCreateJpegeConfig();
  EXPECT_EQ(acldvppSetJpegeConfigLevel(jpege, 90), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetJpegeConfigLevel(jpege), 90u);
  EXPECT_EQ(acldvppSetJpegeConfigLevel(jpege, 101), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyJpegeConfig(jpege), ACL_SUCCESS);

  acldvppBorderConfig* border = acldvppCreateBorderConfig();
  EXPECT_EQ(acldvppSetBorderConfigValue(border, 2, 17.0), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetBorderConfigValue(border, 2), 17.0);
  EXPECT_EQ(acldvppGetBorderConfigValue(border, 4), -1.0);
  EXPECT_EQ(acldvppSetBorderConfigValue(border, 4, 1.0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppSetBorderConfigBorderType(border, BORDER_REFLECT_101), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetBorderConfigBorderType(border), BORDER_REFLECT_101);
  EXPECT_EQ(acldvppSetBorderConfigBorderType(border, static_cast<acldvppBorderType>(9)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppSetBorderConfigLeft(border, 6), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetBorderConfigLeft(border), 6u);
  EXPECT_EQ(acldvppGetBorderConfigTop(border), 0u);
  EXPECT_EQ(acldvppDestroyBorderConfig(border), ACL_SUCCESS);

  acldvppLutMap* lut = acldvppCreateLutMap();
  EXPECT_EQ(acldvppGetLutMapDims(lut), 3u);
  uint8_t* table = nullptr;
  uint32_t len = 0;
  EXPECT_EQ(acldvppGetLutMapData(lut, 1, &table, &len), ACL_SUCCESS);
  ASSERT_EQ(len, 256u);
  EXPECT_EQ(table[200], 200);  // identity when created
  EXPECT_EQ(acldvppGetLutMapData(lut, 3, &table, &len), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyLutMap(lut), ACL_SUCCESS);
}

TEST_F(DvppTest, ChannelMustBeCreatedAndItsModeMustCoverTheCall) {
  DevPic in = Picture(PIXEL_FORMAT_YUV_400, 16, 2, 16, 2, std::vector<uint8_t>(32, 5));
  DevPic out = Picture(PIXEL_FORMAT_YUV_400, 16, 2, 16, 2, std::vector<uint8_t>(32, 0));
  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  RecentErrMsg();
  EXPECT_EQ(acldvppVpcResizeAsync(ch, in.desc, out.desc, resize, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("acldvppCreateChannel"), std::string::npos);
  EXPECT_EQ(acldvppSetChannelDescMode(ch, DVPP_CHNMODE_JPEGD), ACL_SUCCESS);
  EXPECT_EQ(acldvppSetChannelDescMode(ch, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppCreateChannel(ch), ACL_SUCCESS);
  EXPECT_EQ(acldvppCreateChannel(ch), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(acldvppGetChannelDescChannelId(ch), acldvppGetChannelDescChannelId(channel_));
  EXPECT_EQ(acldvppVpcResizeAsync(ch, in.desc, out.desc, resize, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("DVPP_CHNMODE_VPC"), std::string::npos);
  EXPECT_EQ(acldvppDestroyChannel(ch), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyChannel(ch), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyChannelDesc(ch), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyResizeConfig(resize), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// VPC

TEST_F(DvppTest, NearestResizeOfNv12ReplicatesEachPixelAndChromaPair) {
  // 4x4 NV12, Y = 10 * (row * 4 + column), chroma pairs (U, V) = (100 + i, 200 + i).
  std::vector<uint8_t> src(16 * 4 * 3 / 2, 0);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) src[y * 16 + x] = static_cast<uint8_t>(10 * (y * 4 + x));
  for (int cy = 0; cy < 2; ++cy)
    for (int cx = 0; cx < 2; ++cx) {
      src[64 + cy * 16 + cx * 2] = static_cast<uint8_t>(100 + cy * 2 + cx);
      src[64 + cy * 16 + cx * 2 + 1] = static_cast<uint8_t>(200 + cy * 2 + cx);
    }
  DevPic in = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 4, 4, 16, 4, src);
  DevPic out = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 8, 8, 16, 8, std::vector<uint8_t>(192, 0));
  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  ASSERT_EQ(acldvppSetResizeConfigInterpolation(resize, 2), ACL_SUCCESS);
  ASSERT_EQ(acldvppVpcResizeAsync(channel_, in.desc, out.desc, resize, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  std::vector<uint8_t> got = Read(out);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      ASSERT_EQ(got[y * 16 + x], 10 * ((y / 2) * 4 + x / 2)) << y << "," << x;
  for (int cy = 0; cy < 4; ++cy)
    for (int cx = 0; cx < 4; ++cx) {
      ASSERT_EQ(got[128 + cy * 16 + cx * 2], 100 + (cy / 2) * 2 + cx / 2);
      ASSERT_EQ(got[128 + cy * 16 + cx * 2 + 1], 200 + (cy / 2) * 2 + cx / 2);
    }
  EXPECT_EQ(acldvppGetPicDescRetCode(out.desc), 0u);
  EXPECT_EQ(acldvppDestroyResizeConfig(resize), ACL_SUCCESS);
}

TEST_F(DvppTest, ResizeRefusesRatiosOutsideDvppsRangeAndBadLayouts) {
  DevPic in = Picture(PIXEL_FORMAT_YUV_400, 2, 2, 16, 2, std::vector<uint8_t>(32, 1));
  DevPic big = Picture(PIXEL_FORMAT_YUV_400, 34, 2, 48, 2, std::vector<uint8_t>(96, 0));
  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  RecentErrMsg();
  EXPECT_EQ(acldvppVpcResizeAsync(channel_, in.desc, big.desc, resize, stream_),
            ACL_ERROR_INVALID_PARAM);  // 17 times wider
  EXPECT_NE(RecentErrMsg().find("range"), std::string::npos);
  // A width stride that is not a multiple of 16, and a size short of the strides.
  ASSERT_EQ(acldvppSetPicDescWidthStride(big.desc, 40), ACL_SUCCESS);
  EXPECT_EQ(acldvppVpcResizeAsync(channel_, in.desc, big.desc, resize, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("width stride 40"), std::string::npos);
  ASSERT_EQ(acldvppSetPicDescWidthStride(big.desc, 48), ACL_SUCCESS);
  ASSERT_EQ(acldvppSetPicDescSize(big.desc, 95), ACL_SUCCESS);
  EXPECT_EQ(acldvppVpcResizeAsync(channel_, in.desc, big.desc, resize, stream_),
            ACL_ERROR_INVALID_PARAM);
  // Host memory is not DVPP memory.
  std::vector<uint8_t> host(32, 0);
  ASSERT_EQ(acldvppSetPicDescData(in.desc, host.data()), ACL_SUCCESS);
  EXPECT_EQ(acldvppVpcResizeAsync(channel_, in.desc, in.desc, resize, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("not device memory"), std::string::npos);
  ASSERT_EQ(acldvppSetPicDescData(in.desc, in.data), ACL_SUCCESS);
  ASSERT_EQ(acldvppSetPicDescFormat(in.desc, PIXEL_FORMAT_RGB_BAYER_8BPP), ACL_SUCCESS);
  EXPECT_EQ(acldvppVpcResizeAsync(channel_, in.desc, in.desc, resize, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("pixel format 50"), std::string::npos);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);  // nothing was queued
  EXPECT_EQ(acldvppDestroyResizeConfig(resize), ACL_SUCCESS);
}

TEST_F(DvppTest, CropAndPasteWritesOnlyThePasteArea) {
  // RGB 16x4 with pixel (x, y) = (x, y, 50); crop columns 4..7 rows 0..1 to (8, 2) of a grey
  // 16x4 output.
  std::vector<uint8_t> src(48 * 4, 0);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 16; ++x) {
      src[y * 48 + x * 3] = static_cast<uint8_t>(x);
      src[y * 48 + x * 3 + 1] = static_cast<uint8_t>(y);
      src[y * 48 + x * 3 + 2] = 50;
    }
  DevPic in = Picture(PIXEL_FORMAT_RGB_888, 16, 4, 48, 4, src);
  DevPic out = Picture(PIXEL_FORMAT_RGB_888, 16, 4, 48, 4, std::vector<uint8_t>(48 * 4, 7));
  acldvppRoiConfig* crop = acldvppCreateRoiConfig(4, 7, 0, 1);
  acldvppRoiConfig* paste = acldvppCreateRoiConfig(8, 11, 2, 3);
  ASSERT_EQ(acldvppVpcCropAndPasteAsync(channel_, in.desc, out.desc, crop, paste, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  std::vector<uint8_t> got = Read(out);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 16; ++x) {
      const uint8_t* px = &got[y * 48 + x * 3];
      if (x >= 8 && x < 12 && y >= 2) {
        EXPECT_EQ(px[0], x - 4) << x << "," << y;
        EXPECT_EQ(px[1], y - 2);
        EXPECT_EQ(px[2], 50);
      } else {
        EXPECT_EQ(px[0], 7) << x << "," << y;
      }
    }
  EXPECT_EQ(acldvppDestroyRoiConfig(crop), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyRoiConfig(paste), ACL_SUCCESS);
}

TEST_F(DvppTest, CropOfYuv420MustStartOnTheChromaGrid) {
  DevPic in = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 16, 4, 16, 4, Nv12(16, 4, 1, 2, 3));
  DevPic out = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 4, 2, 16, 2, Nv12(16, 2, 0, 0, 0));
  acldvppRoiConfig* crop = acldvppCreateRoiConfig(1, 4, 0, 1);  // odd left
  RecentErrMsg();
  EXPECT_EQ(acldvppVpcCropAsync(channel_, in.desc, out.desc, crop, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("must be even"), std::string::npos);
  ASSERT_EQ(acldvppSetRoiConfig(crop, 2, 5, 0, 1), ACL_SUCCESS);
  EXPECT_EQ(acldvppVpcCropAsync(channel_, in.desc, out.desc, crop, stream_), ACL_SUCCESS);
  ASSERT_EQ(acldvppSetRoiConfig(crop, 2, 17, 0, 1), ACL_SUCCESS);  // past the right edge
  EXPECT_EQ(acldvppVpcCropAsync(channel_, in.desc, out.desc, crop, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  std::vector<uint8_t> got = Read(out);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[32], 2);
  EXPECT_EQ(got[33], 3);
  EXPECT_EQ(acldvppDestroyRoiConfig(crop), ACL_SUCCESS);
}

TEST_F(DvppTest, ConvertColorUsesFullRangeBt601) {
  // (Y, U, V) = (76, 85, 255) is nearly pure red, (128, 128, 128) mid grey, in JFIF's matrix:
  // R = Y + 1.402 (V - 128), G = Y - 0.344136 (U - 128) - 0.714136 (V - 128), B = Y + 1.772 (U -
  // 128).
  struct Case {
    uint8_t y, u, v;
  } cases[] = {{76, 85, 255}, {128, 128, 128}, {200, 60, 90}};
  for (const Case& c : cases) {
    DevPic in = Picture(PIXEL_FORMAT_YVU_SEMIPLANAR_420, 16, 2, 16, 2, Nv12(16, 2, c.y, c.v, c.u));
    DevPic out = Picture(PIXEL_FORMAT_BGR_888, 0, 0, 0, 0, std::vector<uint8_t>(48 * 2, 0));
    ASSERT_EQ(acldvppVpcConvertColorAsync(channel_, in.desc, out.desc, stream_), ACL_SUCCESS);
    EXPECT_EQ(acldvppGetPicDescWidth(out.desc), 16u);  // filled from the input
    EXPECT_EQ(acldvppGetPicDescWidthStride(out.desc), 48u);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    std::vector<uint8_t> got = Read(out);
    auto clamp = [](double v) { return std::fmin(255.0, std::fmax(0.0, v)); };
    const double r = clamp(c.y + 1.402 * (c.v - 128));
    const double g = clamp(c.y - 0.344136 * (c.u - 128) - 0.714136 * (c.v - 128));
    const double b = clamp(c.y + 1.772 * (c.u - 128));
    for (int px = 0; px < 32; ++px) {
      ASSERT_NEAR(got[px * 3 + 0], b, 2.0) << int(c.y);
      ASSERT_NEAR(got[px * 3 + 1], g, 2.0);
      ASSERT_NEAR(got[px * 3 + 2], r, 2.0);
    }
  }
}

TEST_F(DvppTest, PyrDownOfAnImpulseIsTheBinomialKernel) {
  // 12x12 zeros with 255 at (4, 4), away from the borders: output (i, j) reads rows and columns
  // 2i-2 .. 2i+2 with weights k = [1 4 6 4 1] / 16 each way, so (2, 2) = 255 * 36 / 256,
  // (1, 2) = 255 * 6 / 256, (1, 1) = 255 / 256 and (0, 0) = 0.
  std::vector<uint8_t> src(16 * 12, 0);
  src[4 * 16 + 4] = 255;
  DevPic in = Picture(PIXEL_FORMAT_YUV_400, 12, 12, 16, 12, src);
  DevPic out = Picture(PIXEL_FORMAT_YUV_400, 0, 0, 0, 0, std::vector<uint8_t>(16 * 6, 9));
  ASSERT_EQ(acldvppVpcPyrDownAsync(channel_, in.desc, out.desc, nullptr, stream_), ACL_SUCCESS);
  ASSERT_EQ(acldvppGetPicDescWidth(out.desc), 6u);
  ASSERT_EQ(acldvppGetPicDescHeight(out.desc), 6u);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  std::vector<uint8_t> got = Read(out);
  EXPECT_EQ(got[2 * 16 + 2], 36);  // 35.86
  EXPECT_EQ(got[1 * 16 + 2], 6);   // 5.98
  EXPECT_EQ(got[2 * 16 + 1], 6);
  EXPECT_EQ(got[1 * 16 + 1], 1);  // 0.996
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[5 * 16 + 5], 0);
  int unused = 0;
  EXPECT_EQ(acldvppVpcPyrDownAsync(channel_, in.desc, out.desc, &unused, stream_),
            ACL_ERROR_INVALID_PARAM);
}

TEST_F(DvppTest, MakeBorderFillsConstantAndMirrorsLikeOpenCv) {
  // RGB 2x1: pixels (10, 20, 30) and (40, 50, 60); left 2 / right 1 / top 1 / bottom 0.
  std::vector<uint8_t> src(16 * 2, 0);
  const uint8_t px[6] = {10, 20, 30, 40, 50, 60};
  std::memcpy(src.data(), px, 6);
  std::memcpy(src.data() + 16, px, 6);  // a second, identical row (height stride 2)
  DevPic in = Picture(PIXEL_FORMAT_RGB_888, 2, 1, 16, 2, src);
  acldvppBorderConfig* border = acldvppCreateBorderConfig();
  ASSERT_EQ(acldvppSetBorderConfigLeft(border, 2), ACL_SUCCESS);
  ASSERT_EQ(acldvppSetBorderConfigRight(border, 1), ACL_SUCCESS);
  ASSERT_EQ(acldvppSetBorderConfigTop(border, 1), ACL_SUCCESS);
  struct Case {
    acldvppBorderType type;
    int row1[5];  // the red values of the input row with its borders
  } cases[] = {{BORDER_CONSTANT, {9, 9, 10, 40, 9}},
               {BORDER_REPLICATE, {10, 10, 10, 40, 40}},
               {BORDER_REFLECT, {40, 10, 10, 40, 40}},
               {BORDER_REFLECT_101, {10, 40, 10, 40, 10}}};
  for (const Case& c : cases) {
    ASSERT_EQ(acldvppSetBorderConfigBorderType(border, c.type), ACL_SUCCESS);
    ASSERT_EQ(acldvppSetBorderConfigValue(border, 0, 9.0), ACL_SUCCESS);
    DevPic out = Picture(PIXEL_FORMAT_RGB_888, 5, 2, 16, 2, std::vector<uint8_t>(32, 0));
    ASSERT_EQ(acldvppVpcMakeBorderAsync(channel_, in.desc, out.desc, border, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    std::vector<uint8_t> got = Read(out);
    for (int x = 0; x < 5; ++x) EXPECT_EQ(got[16 + x * 3], c.row1[x]) << c.type << " x " << x;
    // The top row: constant fill, or the image row mirrored (a 1-row image mirrors to itself).
    EXPECT_EQ(got[2 * 3], c.type == BORDER_CONSTANT ? 9 : 10) << c.type;
  }
  EXPECT_EQ(acldvppDestroyBorderConfig(border), ACL_SUCCESS);
}

TEST_F(DvppTest, CalcHistCountsLumaAndEachChromaSample) {
  // 16x2 NV12: Y = 3 on the first row, 4 on the second; 8 chroma pairs (U, V) = (7, 9).
  std::vector<uint8_t> src = Nv12(16, 2, 3, 7, 9);
  std::fill(src.begin() + 16, src.begin() + 32, 4);
  DevPic in = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 16, 2, 16, 2, src);
  acldvppHist* hist = acldvppCreateHist();
  ASSERT_EQ(acldvppVpcCalcHistAsync(channel_, in.desc, hist, nullptr, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(acldvppGetHistDims(hist), 3u);
  uint32_t* bins = nullptr;
  uint16_t len = 0;
  ASSERT_EQ(acldvppGetHistData(hist, 0, &bins, &len), ACL_SUCCESS);
  ASSERT_EQ(len, 256);
  EXPECT_EQ(bins[3], 16u);
  EXPECT_EQ(bins[4], 16u);
  ASSERT_EQ(acldvppGetHistData(hist, 2, &bins, &len), ACL_SUCCESS);
  EXPECT_EQ(bins[9], 8u);
  EXPECT_EQ(acldvppGetHistRetCode(hist), 0u);
  EXPECT_EQ(acldvppClearHist(hist), ACL_SUCCESS);
  EXPECT_EQ(bins[9], 0u);
  EXPECT_EQ(acldvppGetHistData(hist, 3, &bins, &len), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppDestroyHist(hist), ACL_SUCCESS);
}

TEST_F(DvppTest, EqualizeHistMapsEachComponentThroughItsTable) {
  std::vector<uint8_t> src(48 * 2);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i);
  DevPic in = Picture(PIXEL_FORMAT_RGB_888, 16, 2, 48, 2, src);
  DevPic out = Picture(PIXEL_FORMAT_RGB_888, 16, 2, 48, 2, std::vector<uint8_t>(96, 0));
  acldvppLutMap* lut = acldvppCreateLutMap();
  for (uint32_t d = 0; d < 3; ++d) {
    uint8_t* table = nullptr;
    uint32_t len = 0;
    ASSERT_EQ(acldvppGetLutMapData(lut, d, &table, &len), ACL_SUCCESS);
    for (uint32_t i = 0; i < len; ++i) table[i] = static_cast<uint8_t>(d == 1 ? 255 - i : i / 2);
  }
  ASSERT_EQ(acldvppVpcEqualizeHistAsync(channel_, in.desc, out.desc, lut, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  std::vector<uint8_t> got = Read(out);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], i % 3 == 1 ? 255 - src[i] : src[i] / 2) << i;
  }
  EXPECT_EQ(acldvppDestroyLutMap(lut), ACL_SUCCESS);
}

TEST_F(DvppTest, BatchCropCutsEachRegionIntoItsDestination) {
  std::vector<uint8_t> src(16 * 2);
  for (int i = 0; i < 32; ++i) src[i] = static_cast<uint8_t>(i);
  acldvppBatchPicDesc* sources = acldvppCreateBatchPicDesc(1);
  acldvppBatchPicDesc* dests = acldvppCreateBatchPicDesc(2);
  void* in_data = Upload(src);
  acldvppPicDesc* in = acldvppGetPicDesc(sources, 0);
  acldvppSetPicDescData(in, in_data);
  acldvppSetPicDescSize(in, 32);
  acldvppSetPicDescFormat(in, PIXEL_FORMAT_YUV_400);
  acldvppSetPicDescWidth(in, 16);
  acldvppSetPicDescHeight(in, 2);
  acldvppSetPicDescWidthStride(in, 16);
  acldvppSetPicDescHeightStride(in, 2);
  void* out_data[2] = {};
  for (uint32_t i = 0; i < 2; ++i) {
    out_data[i] = Upload(std::vector<uint8_t>(32, 0));
    acldvppPicDesc* out = acldvppGetPicDesc(dests, i);
    acldvppSetPicDescData(out, out_data[i]);
    acldvppSetPicDescSize(out, 32);
    acldvppSetPicDescFormat(out, PIXEL_FORMAT_YUV_400);
    acldvppSetPicDescWidth(out, 2);
    acldvppSetPicDescHeight(out, 2);
    acldvppSetPicDescWidthStride(out, 16);
    acldvppSetPicDescHeightStride(out, 2);
  }
  acldvppRoiConfig* crops[2] = {acldvppCreateRoiConfig(0, 1, 0, 1),
                                acldvppCreateRoiConfig(6, 7, 0, 1)};
  uint32_t roi_nums[1] = {2};
  ASSERT_EQ(acldvppVpcBatchCropAsync(channel_, sources, roi_nums, 1, dests, crops, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int i = 0; i < 2; ++i) {
    std::vector<uint8_t> got(32);
    ASSERT_EQ(aclrtMemcpy(got.data(), 32, out_data[i], 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    const int left = i == 0 ? 0 : 6;
    EXPECT_EQ(got[0], left);
    EXPECT_EQ(got[1], left + 1);
    EXPECT_EQ(got[16], 16 + left);
    EXPECT_EQ(got[17], 16 + left + 1);
  }
  uint32_t too_many[1] = {3};  // more crops than destinations
  EXPECT_EQ(acldvppVpcBatchCropAsync(channel_, sources, too_many, 1, dests, crops, stream_),
            ACL_ERROR_INVALID_PARAM);
  for (acldvppRoiConfig* c : crops) EXPECT_EQ(acldvppDestroyRoiConfig(c), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyBatchPicDesc(sources), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyBatchPicDesc(dests), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(in_data), ACL_SUCCESS);
  for (void* p : out_data) EXPECT_EQ(acldvppFree(p), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// JPEG and PNG

TEST_F(DvppTest, JpegOfAFlatPictureEncodesAndDecodesBackToItsValues) {
  DevPic src = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 64, 48, 64, 48, Nv12(64, 48, 100, 90, 160));
  acldvppJpegeConfig* config = acldvppCreateJpegeConfig();
  ASSERT_EQ(acldvppSetJpegeConfigLevel(config, 95), ACL_SUCCESS);
  uint32_t cap = 0;
  ASSERT_EQ(acldvppJpegPredictEncSize(src.desc, config, &cap), ACL_SUCCESS);
  ASSERT_GT(cap, 100u);
  void* jpeg = nullptr;
  ASSERT_EQ(acldvppMalloc(&jpeg, cap), ACL_SUCCESS);
  uint32_t size = cap;
  ASSERT_EQ(acldvppJpegEncodeAsync(channel_, src.desc, jpeg, &size, config, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_LT(size, cap);
  std::vector<uint8_t> bytes(size);
  ASSERT_EQ(aclrtMemcpy(bytes.data(), size, jpeg, size, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  ASSERT_EQ(bytes[0], 0xFF);
  ASSERT_EQ(bytes[1], 0xD8);  // SOI

  uint32_t w = 0, h = 0;
  int32_t comps = 0;
  acldvppJpegFormat css = ACL_JPEG_CSS_UNKNOWN;
  ASSERT_EQ(acldvppJpegGetImageInfoV2(bytes.data(), size, &w, &h, &comps, &css), ACL_SUCCESS);
  EXPECT_EQ(w, 64u);
  EXPECT_EQ(h, 48u);
  EXPECT_EQ(comps, 3);
  EXPECT_EQ(css, ACL_JPEG_CSS_420);
  uint32_t dec_size = 0;
  ASSERT_EQ(
      acldvppJpegPredictDecSize(bytes.data(), size, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dec_size),
      ACL_SUCCESS);
  EXPECT_EQ(dec_size, 128u * 48 * 3 / 2);  // width stride 128, height stride 48

  DevPic out =
      Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 0, 0, 0, 0, std::vector<uint8_t>(dec_size, 0));
  ASSERT_EQ(acldvppJpegDecodeAsync(channel_, jpeg, size, out.desc, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescWidth(out.desc), 64u);
  EXPECT_EQ(acldvppGetPicDescHeight(out.desc), 48u);
  EXPECT_EQ(acldvppGetPicDescWidthStride(out.desc), 128u);
  EXPECT_EQ(acldvppGetPicDescHeightStride(out.desc), 48u);
  EXPECT_EQ(acldvppGetPicDescRetCode(out.desc), 0u);
  std::vector<uint8_t> got = Read(out);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) ASSERT_NEAR(got[y * 128 + x], 100, 1) << x << "," << y;
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x) {
      ASSERT_NEAR(got[128 * 48 + y * 128 + 2 * x], 90, 1);
      ASSERT_NEAR(got[128 * 48 + y * 128 + 2 * x + 1], 160, 1);
    }
  EXPECT_EQ(acldvppDestroyJpegeConfig(config), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(jpeg), ACL_SUCCESS);
}

TEST_F(DvppTest, GarbageIsNotAJpegAndItsDecodeFailsTheStreamNotTheProcess) {
  std::vector<uint8_t> junk(300);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<uint8_t>(i * 37 + 11);
  uint32_t w = 0, h = 0;
  int32_t comps = 0;
  RecentErrMsg();
  EXPECT_EQ(acldvppJpegGetImageInfo(junk.data(), 300, &w, &h, &comps), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("not a JPEG"), std::string::npos);
  EXPECT_EQ(acldvppJpegGetImageInfo(nullptr, 300, &w, &h, &comps), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppPngGetImageInfo(junk.data(), 300, &w, &h, &comps), ACL_ERROR_INVALID_PARAM);

  void* dev = Upload(junk);
  DevPic out = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 0, 0, 0, 0, std::vector<uint8_t>(4096, 0));
  ASSERT_EQ(acldvppJpegDecodeAsync(channel_, dev, 300, out.desc, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppGetPicDescRetCode(out.desc), static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));
  // The stream goes on: a DVPP task after the failure runs.
  acldvppHist* hist = acldvppCreateHist();
  DevPic grey = Picture(PIXEL_FORMAT_YUV_400, 16, 2, 16, 2, std::vector<uint8_t>(32, 5));
  ASSERT_EQ(acldvppVpcCalcHistAsync(channel_, grey.desc, hist, nullptr, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  uint32_t* bins = nullptr;
  uint16_t len = 0;
  ASSERT_EQ(acldvppGetHistData(hist, 0, &bins, &len), ACL_SUCCESS);
  EXPECT_EQ(bins[5], 32u);
  EXPECT_EQ(acldvppDestroyHist(hist), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(dev), ACL_SUCCESS);
}

TEST_F(DvppTest, PngDecodeGivesTheExactPixelsInTheAskedFormat) {
  // 3x2 RGB: a row of red, green, blue and a row of (1, 2, 3), (4, 5, 6), (7, 8, 9).
  const std::vector<uint8_t> rgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<uint8_t> png = MakePng(3, 2, 2, 3, rgb);
  uint32_t w = 0, h = 0;
  int32_t comps = 0;
  ASSERT_EQ(acldvppPngGetImageInfo(png.data(), static_cast<uint32_t>(png.size()), &w, &h, &comps),
            ACL_SUCCESS);
  EXPECT_EQ(w, 3u);
  EXPECT_EQ(h, 2u);
  EXPECT_EQ(comps, 3);
  uint32_t dec_size = 0;
  ASSERT_EQ(acldvppPngPredictDecSize(png.data(), static_cast<uint32_t>(png.size()),
                                     PIXEL_FORMAT_BGR_888, &dec_size),
            ACL_SUCCESS);
  EXPECT_EQ(dec_size, 128u * 16);
  EXPECT_EQ(acldvppPngPredictDecSize(png.data(), static_cast<uint32_t>(png.size()),
                                     PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dec_size),
            ACL_ERROR_INVALID_PARAM);
  void* dev = Upload(png);
  DevPic out = Picture(PIXEL_FORMAT_BGR_888, 0, 0, 0, 0, std::vector<uint8_t>(128 * 16, 0));
  ASSERT_EQ(
      acldvppPngDecodeAsync(channel_, dev, static_cast<uint32_t>(png.size()), out.desc, stream_),
      ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescWidthStride(out.desc), 128u);
  std::vector<uint8_t> got = Read(out);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(got[y * 128 + x * 3 + c], rgb[y * 9 + x * 3 + (2 - c)]);

  // RGBA, asked for as PIXEL_FORMAT_UNKNOWN: the decoder writes RGBA_8888 and says so.
  const std::vector<uint8_t> rgba = {10, 20, 30, 40, 50, 60, 70, 80};
  std::vector<uint8_t> png2 = MakePng(2, 1, 6, 4, rgba);
  void* dev2 = Upload(png2);
  DevPic out2 = Picture(PIXEL_FORMAT_UNKNOWN, 0, 0, 0, 0, std::vector<uint8_t>(128 * 16, 0));
  ASSERT_EQ(
      acldvppPngDecodeAsync(channel_, dev2, static_cast<uint32_t>(png2.size()), out2.desc, stream_),
      ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescFormat(out2.desc), PIXEL_FORMAT_RGBA_8888);
  std::vector<uint8_t> got2 = Read(out2);
  EXPECT_EQ(std::vector<uint8_t>(got2.begin(), got2.begin() + 8), rgba);
  EXPECT_EQ(acldvppFree(dev), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(dev2), ACL_SUCCESS);
}

TEST_F(DvppTest, DecodeWritesWhereTheCallFoundTheOutputAndReusesStridesThatHoldThePicture) {
  // A 64x48 flat JPEG (encoded here), decoded twice through one description: the second time
  // the description still has the 128x48 strides the first decode published, and a 32x16 image
  // fits them; the description is re-pointed at host memory right after the call, which must
  // not move the decode.
  DevPic src = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 64, 48, 64, 48, Nv12(64, 48, 90, 100, 110));
  acldvppJpegeConfig* config = acldvppCreateJpegeConfig();
  uint32_t cap = 0;
  ASSERT_EQ(acldvppJpegPredictEncSize(src.desc, config, &cap), ACL_SUCCESS);
  void* jpeg = nullptr;
  ASSERT_EQ(acldvppMalloc(&jpeg, cap), ACL_SUCCESS);
  uint32_t size = cap;
  ASSERT_EQ(acldvppJpegEncodeAsync(channel_, src.desc, jpeg, &size, config, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  DevPic out = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 0, 0, 0, 0,
                       std::vector<uint8_t>(128 * 48 * 3 / 2, 0));
  ASSERT_EQ(acldvppJpegDecodeAsync(channel_, jpeg, size, out.desc, stream_), ACL_SUCCESS);
  std::vector<uint8_t> host(out.size, 0);
  ASSERT_EQ(acldvppSetPicDescData(out.desc, host.data()), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(host[0], 0);  // untouched
  EXPECT_NEAR(Read(out)[0], 90, 1);
  EXPECT_EQ(acldvppGetPicDescData(out.desc),
            host.data());  // the description keeps what it was told
  ASSERT_EQ(acldvppSetPicDescData(out.desc, out.data), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescWidthStride(out.desc), 128u);
  // A larger picture than the strides hold falls back to DVPP's strides (and must then fit).
  DevPic big =
      Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 160, 48, 160, 48, Nv12(160, 48, 50, 128, 128));
  uint32_t big_cap = 0;
  ASSERT_EQ(acldvppJpegPredictEncSize(big.desc, config, &big_cap), ACL_SUCCESS);
  void* big_jpeg = nullptr;
  ASSERT_EQ(acldvppMalloc(&big_jpeg, big_cap), ACL_SUCCESS);
  uint32_t big_size = big_cap;
  ASSERT_EQ(acldvppJpegEncodeAsync(channel_, big.desc, big_jpeg, &big_size, config, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  DevPic roomy = Picture(PIXEL_FORMAT_YUV_SEMIPLANAR_420, 0, 0, 128, 48,
                         std::vector<uint8_t>(256 * 48 * 3 / 2, 0));
  ASSERT_EQ(acldvppJpegDecodeAsync(channel_, big_jpeg, big_size, roomy.desc, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescWidthStride(roomy.desc), 256u);  // 160 aligned up to 128
  EXPECT_NEAR(Read(roomy)[159], 50, 1);
  EXPECT_EQ(acldvppDestroyJpegeConfig(config), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(jpeg), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(big_jpeg), ACL_SUCCESS);
}

TEST_F(DvppTest, BatchBordersKeepToTheChromaGrid) {
  acldvppBatchPicDesc* sources = acldvppCreateBatchPicDesc(1);
  acldvppBatchPicDesc* dests = acldvppCreateBatchPicDesc(1);
  void* in = Upload(Nv12(16, 4, 1, 2, 3));
  void* out = Upload(Nv12(32, 8, 0, 0, 0));
  auto fill = [](acldvppPicDesc* d, void* data, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs) {
    acldvppSetPicDescData(d, data);
    acldvppSetPicDescSize(d, ws * hs * 3 / 2);
    acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
    acldvppSetPicDescWidth(d, w);
    acldvppSetPicDescHeight(d, h);
    acldvppSetPicDescWidthStride(d, ws);
    acldvppSetPicDescHeightStride(d, hs);
  };
  fill(acldvppGetPicDesc(sources, 0), in, 16, 4, 16, 4);
  fill(acldvppGetPicDesc(dests, 0), out, 21, 8, 32, 8);
  acldvppRoiConfig* crops[1] = {acldvppCreateRoiConfig(0, 15, 0, 3)};
  acldvppBorderConfig* borders[1] = {acldvppCreateBorderConfig()};
  ASSERT_EQ(acldvppSetBorderConfigRight(borders[0], 3), ACL_SUCCESS);  // odd, on 4:2:0
  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  uint32_t roi_nums[1] = {1};
  RecentErrMsg();
  EXPECT_EQ(acldvppVpcBatchCropResizeMakeBorderAsync(channel_, sources, roi_nums, 1, dests, crops,
                                                     borders, resize, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("even sizes"), std::string::npos);
  // Even borders around an even inner size: accepted, and the border is the constant 0.
  ASSERT_EQ(acldvppSetBorderConfigRight(borders[0], 4), ACL_SUCCESS);
  fill(acldvppGetPicDesc(dests, 0), out, 20, 8, 32, 8);
  ASSERT_EQ(acldvppVpcBatchCropResizeMakeBorderAsync(channel_, sources, roi_nums, 1, dests, crops,
                                                     borders, resize, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(acldvppGetPicDescRetCode(acldvppGetPicDesc(dests, 0)), 0u);
  std::vector<uint8_t> got(32 * 8 * 3 / 2);
  ASSERT_EQ(aclrtMemcpy(got.data(), got.size(), out, got.size(), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[19], 0);
  EXPECT_EQ(acldvppDestroyResizeConfig(resize), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyRoiConfig(crops[0]), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyBorderConfig(borders[0]), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyBatchPicDesc(sources), ACL_SUCCESS);
  EXPECT_EQ(acldvppDestroyBatchPicDesc(dests), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(in), ACL_SUCCESS);
  EXPECT_EQ(acldvppFree(out), ACL_SUCCESS);
}

}  // namespace

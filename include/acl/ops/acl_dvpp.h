/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL media API (DVPP V1): DVPP memory, channels, picture descriptions, JPEG and PNG
 * decode, JPEG encode, and the VPC picture operations (crop, resize, paste, colour conversion,
 * pyramid down, borders, histograms), stream-ordered like every other async call.
 *
 * Source-compatible with CANN's acl/ops/acl_dvpp.h for the functions declared here: the same
 * names, types and enum values. As in CANN, a program defines ENABLE_DVPP_INTERFACE before
 * including it, and links libacl_dvpp.so (with libascendcl.so). Kiln runs the operations on the
 * host (libjpeg-turbo, libpng, libyuv); docs/dvpp.md gives the rules each call checks and the
 * choices made where CANN's documentation leaves them open. Video decode and encode (aclvdec*,
 * aclvenc*) run on FFmpeg's libavcodec; their callbacks come on the report thread the channel
 * names, as host callbacks do.
 */

#if !defined(ENABLE_DVPP_INTERFACE)
#error "acl/ops/acl_dvpp.h: define ENABLE_DVPP_INTERFACE to use the DVPP functions"
#endif

#ifndef INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_
#define INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct acldvppPicDesc acldvppPicDesc;
typedef struct acldvppBatchPicDesc acldvppBatchPicDesc;
typedef struct acldvppRoiConfig acldvppRoiConfig;
typedef struct acldvppResizeConfig acldvppResizeConfig;
typedef struct acldvppBorderConfig acldvppBorderConfig;
typedef struct acldvppLutMap acldvppLutMap;
typedef struct acldvppChannelDesc acldvppChannelDesc;
typedef struct acldvppJpegeConfig acldvppJpegeConfig;
typedef struct aclvdecChannelDesc aclvdecChannelDesc;
typedef struct acldvppStreamDesc acldvppStreamDesc;
typedef struct aclvdecFrameConfig aclvdecFrameConfig;
typedef struct aclvencChannelDesc aclvencChannelDesc;
typedef struct aclvencFrameConfig aclvencFrameConfig;
typedef struct acldvppHist acldvppHist;
typedef void (*aclvdecCallback)(acldvppStreamDesc* input, acldvppPicDesc* output, void* userData);
typedef void (*aclvencCallback)(acldvppPicDesc* input, acldvppStreamDesc* output, void* userdata);

/* Pixel formats. docs/dvpp.md lists the ones Kiln reads and writes (0 to 17); the others are
 * refused with ACL_ERROR_INVALID_PARAM. */
enum acldvppPixelFormat {
  PIXEL_FORMAT_YUV_400 = 0,
  PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1,
  PIXEL_FORMAT_YVU_SEMIPLANAR_420 = 2,
  PIXEL_FORMAT_YUV_SEMIPLANAR_422 = 3,
  PIXEL_FORMAT_YVU_SEMIPLANAR_422 = 4,
  PIXEL_FORMAT_YUV_SEMIPLANAR_444 = 5,
  PIXEL_FORMAT_YVU_SEMIPLANAR_444 = 6,
  PIXEL_FORMAT_YUYV_PACKED_422 = 7,
  PIXEL_FORMAT_UYVY_PACKED_422 = 8,
  PIXEL_FORMAT_YVYU_PACKED_422 = 9,
  PIXEL_FORMAT_VYUY_PACKED_422 = 10,
  PIXEL_FORMAT_YUV_PACKED_444 = 11,
  PIXEL_FORMAT_RGB_888 = 12,
  PIXEL_FORMAT_BGR_888 = 13,
  PIXEL_FORMAT_ARGB_8888 = 14,
  PIXEL_FORMAT_ABGR_8888 = 15,
  PIXEL_FORMAT_RGBA_8888 = 16,
  PIXEL_FORMAT_BGRA_8888 = 17,
  PIXEL_FORMAT_YUV_SEMI_PLANNER_420_10BIT = 18,
  PIXEL_FORMAT_YVU_SEMI_PLANNER_420_10BIT = 19,
  PIXEL_FORMAT_YVU_PLANAR_420 = 20,
  PIXEL_FORMAT_YVU_PLANAR_422,
  PIXEL_FORMAT_YVU_PLANAR_444,
  PIXEL_FORMAT_RGB_444 = 23,
  PIXEL_FORMAT_BGR_444,
  PIXEL_FORMAT_ARGB_4444,
  PIXEL_FORMAT_ABGR_4444,
  PIXEL_FORMAT_RGBA_4444,
  PIXEL_FORMAT_BGRA_4444,
  PIXEL_FORMAT_RGB_555,
  PIXEL_FORMAT_BGR_555,
  PIXEL_FORMAT_RGB_565,
  PIXEL_FORMAT_BGR_565,
  PIXEL_FORMAT_ARGB_1555,
  PIXEL_FORMAT_ABGR_1555,
  PIXEL_FORMAT_RGBA_1555,
  PIXEL_FORMAT_BGRA_1555,
  PIXEL_FORMAT_ARGB_8565,
  PIXEL_FORMAT_ABGR_8565,
  PIXEL_FORMAT_RGBA_8565,
  PIXEL_FORMAT_BGRA_8565,
  PIXEL_FORMAT_RGB_BAYER_8BPP = 50,
  PIXEL_FORMAT_RGB_BAYER_10BPP,
  PIXEL_FORMAT_RGB_BAYER_12BPP,
  PIXEL_FORMAT_RGB_BAYER_14BPP,
  PIXEL_FORMAT_RGB_BAYER_16BPP,
  PIXEL_FORMAT_BGR_888_PLANAR = 70,
  PIXEL_FORMAT_HSV_888_PACKAGE,
  PIXEL_FORMAT_HSV_888_PLANAR,
  PIXEL_FORMAT_LAB_888_PACKAGE,
  PIXEL_FORMAT_LAB_888_PLANAR,
  PIXEL_FORMAT_S8C1,
  PIXEL_FORMAT_S8C2_PACKAGE,
  PIXEL_FORMAT_S8C2_PLANAR,
  PIXEL_FORMAT_S16C1,
  PIXEL_FORMAT_U8C1,
  PIXEL_FORMAT_U16C1,
  PIXEL_FORMAT_S32C1,
  PIXEL_FORMAT_U32C1,
  PIXEL_FORMAT_U64C1,
  PIXEL_FORMAT_S64C1,
  PIXEL_FORMAT_YUV_SEMIPLANAR_440 = 1000,
  PIXEL_FORMAT_YVU_SEMIPLANAR_440,
  PIXEL_FORMAT_FLOAT32,
  PIXEL_FORMAT_BUTT,
  PIXEL_FORMAT_UNKNOWN = 10000
};

enum acldvppStreamFormat {
  H265_MAIN_LEVEL = 0,
  H264_BASELINE_LEVEL,
  H264_MAIN_LEVEL,
  H264_HIGH_LEVEL
};

/* Channel modes, a bit set; 0 (the default) is all of them. */
enum acldvppChannelMode { DVPP_CHNMODE_VPC = 1, DVPP_CHNMODE_JPEGD = 2, DVPP_CHNMODE_JPEGE = 4 };

enum acldvppBorderType {
  BORDER_CONSTANT = 0,
  BORDER_REPLICATE,
  BORDER_REFLECT,
  BORDER_REFLECT_101
};

enum aclvencChannelDescParamType {
  ACL_VENC_THREAD_ID_UINT64 = 0,
  ACL_VENC_CALLBACK_PTR,
  ACL_VENC_PIXEL_FORMAT_UINT32,
  ACL_VENC_ENCODE_TYPE_UINT32,
  ACL_VENC_PIC_WIDTH_UINT32,
  ACL_VENC_PIC_HEIGHT_UINT32,
  ACL_VENC_KEY_FRAME_INTERVAL_UINT32,
  ACL_VENC_BUF_ADDR_PTR,
  ACL_VENC_BUF_SIZE_UINT32,
  ACL_VENC_RC_MODE_UINT32,
  ACL_VENC_SRC_RATE_UINT32,
  ACL_VENC_MAX_BITRATE_UINT32,
  ACL_VENC_MAX_IP_PROP_UINT32
};

enum acldvppJpegFormat {
  ACL_JPEG_CSS_444 = 0,
  ACL_JPEG_CSS_422,
  ACL_JPEG_CSS_420,
  ACL_JPEG_CSS_GRAY,
  ACL_JPEG_CSS_440,
  ACL_JPEG_CSS_411,
  ACL_JPEG_CSS_UNKNOWN = 1000
};

/* CANN's header names these types without `enum`, which only C++ allows; the typedefs make the
 * same declarations valid C. */
typedef enum acldvppPixelFormat acldvppPixelFormat;
typedef enum acldvppStreamFormat acldvppStreamFormat;
typedef enum acldvppChannelMode acldvppChannelMode;
typedef enum acldvppBorderType acldvppBorderType;
typedef enum aclvencChannelDescParamType aclvencChannelDescParamType;
typedef enum acldvppJpegFormat acldvppJpegFormat;

/* DVPP memory: device memory of the current context's device, size aligned up to 32 plus 32
 * bytes; free it with acldvppFree. */
ACL_FUNC_VISIBILITY aclError acldvppMalloc(void** devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError acldvppFree(void* devPtr);

/* Channels. */
ACL_FUNC_VISIBILITY acldvppChannelDesc* acldvppCreateChannelDesc();
ACL_FUNC_VISIBILITY aclError acldvppDestroyChannelDesc(acldvppChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetChannelDescMode(acldvppChannelDesc* channelDesc,
                                                       uint32_t mode);
ACL_FUNC_VISIBILITY aclError acldvppCreateChannel(acldvppChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError acldvppDestroyChannel(acldvppChannelDesc* channelDesc);

/* Picture descriptions. Getters return 0 (PIXEL_FORMAT_YUV_400, NULL) for a NULL or dead
 * description. */
ACL_FUNC_VISIBILITY acldvppPicDesc* acldvppCreatePicDesc();
ACL_FUNC_VISIBILITY aclError acldvppDestroyPicDesc(acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescData(acldvppPicDesc* picDesc, void* dataDev);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescSize(acldvppPicDesc* picDesc, uint32_t size);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescFormat(acldvppPicDesc* picDesc,
                                                     acldvppPixelFormat format);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescWidth(acldvppPicDesc* picDesc, uint32_t width);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescHeight(acldvppPicDesc* picDesc, uint32_t height);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescWidthStride(acldvppPicDesc* picDesc,
                                                          uint32_t widthStride);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescHeightStride(acldvppPicDesc* picDesc,
                                                           uint32_t heightStride);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescRetCode(acldvppPicDesc* picDesc, uint32_t retCode);
ACL_FUNC_VISIBILITY void* acldvppGetPicDescData(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescSize(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat acldvppGetPicDescFormat(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescWidth(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescHeight(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescWidthStride(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescHeightStride(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescRetCode(const acldvppPicDesc* picDesc);

/* Batches of picture descriptions (owned by the batch: destroy the batch, not its members). */
ACL_FUNC_VISIBILITY acldvppBatchPicDesc* acldvppCreateBatchPicDesc(uint32_t batchSize);
ACL_FUNC_VISIBILITY acldvppPicDesc* acldvppGetPicDesc(acldvppBatchPicDesc* batchPicDesc,
                                                      uint32_t index);
ACL_FUNC_VISIBILITY aclError acldvppDestroyBatchPicDesc(acldvppBatchPicDesc* batchPicDesc);

/* Regions: inclusive pixel coordinates (right and bottom are the last column and row). */
ACL_FUNC_VISIBILITY acldvppRoiConfig* acldvppCreateRoiConfig(uint32_t left, uint32_t right,
                                                             uint32_t top, uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppDestroyRoiConfig(acldvppRoiConfig* roiConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigLeft(acldvppRoiConfig* config, uint32_t left);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigRight(acldvppRoiConfig* config, uint32_t right);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigTop(acldvppRoiConfig* config, uint32_t top);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigBottom(acldvppRoiConfig* config, uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfig(acldvppRoiConfig* config, uint32_t left,
                                                 uint32_t right, uint32_t top, uint32_t bottom);

/* Resize: interpolation 0 (default) and 1 bilinear, 2 nearest neighbour. */
ACL_FUNC_VISIBILITY acldvppResizeConfig* acldvppCreateResizeConfig();
ACL_FUNC_VISIBILITY aclError acldvppDestroyResizeConfig(acldvppResizeConfig* resizeConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig* resizeConfig,
                                                                 uint32_t interpolation);
ACL_FUNC_VISIBILITY uint32_t
acldvppGetResizeConfigInterpolation(const acldvppResizeConfig* resizeConfig);

/* JPEG encode: level 1..100 (0, the default, encodes as 100). */
ACL_FUNC_VISIBILITY acldvppJpegeConfig* acldvppCreateJpegeConfig();
ACL_FUNC_VISIBILITY aclError acldvppDestroyJpegeConfig(acldvppJpegeConfig* jpegeConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetJpegeConfigLevel(acldvppJpegeConfig* jpegeConfig,
                                                        uint32_t level);
ACL_FUNC_VISIBILITY uint32_t acldvppGetJpegeConfigLevel(const acldvppJpegeConfig* jpegeConfig);

/* Borders. */
ACL_FUNC_VISIBILITY acldvppBorderConfig* acldvppCreateBorderConfig();
ACL_FUNC_VISIBILITY aclError acldvppDestroyBorderConfig(acldvppBorderConfig* borderConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigValue(acldvppBorderConfig* borderConfig,
                                                         uint32_t index, double value);
ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigBorderType(acldvppBorderConfig* borderConfig,
                                                              acldvppBorderType borderType);
ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigTop(acldvppBorderConfig* borderConfig,
                                                       uint32_t top);
ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigBottom(acldvppBorderConfig* borderConfig,
                                                          uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigLeft(acldvppBorderConfig* borderConfig,
                                                        uint32_t left);
ACL_FUNC_VISIBILITY aclError acldvppSetBorderConfigRight(acldvppBorderConfig* borderConfig,
                                                         uint32_t right);
ACL_FUNC_VISIBILITY double acldvppGetBorderConfigValue(const acldvppBorderConfig* borderConfig,
                                                       uint32_t index);
ACL_FUNC_VISIBILITY acldvppBorderType
acldvppGetBorderConfigBorderType(const acldvppBorderConfig* borderConfig);
ACL_FUNC_VISIBILITY uint32_t acldvppGetBorderConfigTop(const acldvppBorderConfig* borderConfig);
ACL_FUNC_VISIBILITY uint32_t acldvppGetBorderConfigBottom(const acldvppBorderConfig* borderConfig);
ACL_FUNC_VISIBILITY uint32_t acldvppGetBorderConfigLeft(const acldvppBorderConfig* borderConfig);
ACL_FUNC_VISIBILITY uint32_t acldvppGetBorderConfigRight(const acldvppBorderConfig* borderConfig);

/* Look-up tables for acldvppVpcEqualizeHistAsync: 3 tables of 256 entries, identity when
 * created. */
ACL_FUNC_VISIBILITY acldvppLutMap* acldvppCreateLutMap();
ACL_FUNC_VISIBILITY aclError acldvppDestroyLutMap(acldvppLutMap* lutMap);
ACL_FUNC_VISIBILITY uint32_t acldvppGetLutMapDims(const acldvppLutMap* lutMap);
ACL_FUNC_VISIBILITY aclError acldvppGetLutMapData(const acldvppLutMap* lutMap, uint32_t dim,
                                                  uint8_t** data, uint32_t* len);

/* Histograms: one of 256 bins per component. */
ACL_FUNC_VISIBILITY acldvppHist* acldvppCreateHist();
ACL_FUNC_VISIBILITY aclError acldvppDestroyHist(acldvppHist* hist);
ACL_FUNC_VISIBILITY uint32_t acldvppGetHistDims(acldvppHist* hist);
ACL_FUNC_VISIBILITY aclError acldvppGetHistData(acldvppHist* hist, uint32_t dim, uint32_t** data,
                                                uint16_t* len);
ACL_FUNC_VISIBILITY uint32_t acldvppGetHistRetCode(acldvppHist* hist);
ACL_FUNC_VISIBILITY aclError acldvppClearHist(acldvppHist* hist);

/* Image information from host memory. */
ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfo(const void* data, uint32_t size,
                                                     uint32_t* width, uint32_t* height,
                                                     int32_t* components);
ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfoV2(const void* data, uint32_t size,
                                                       uint32_t* width, uint32_t* height,
                                                       int32_t* components,
                                                       acldvppJpegFormat* format);
ACL_FUNC_VISIBILITY aclError acldvppJpegPredictEncSize(const acldvppPicDesc* inputDesc,
                                                       const acldvppJpegeConfig* config,
                                                       uint32_t* size);
ACL_FUNC_VISIBILITY aclError acldvppJpegPredictDecSize(const void* data, uint32_t dataSize,
                                                       acldvppPixelFormat outputPixelFormat,
                                                       uint32_t* decSize);
ACL_FUNC_VISIBILITY aclError acldvppPngGetImageInfo(const void* data, uint32_t dataSize,
                                                    uint32_t* width, uint32_t* height,
                                                    int32_t* components);
ACL_FUNC_VISIBILITY aclError acldvppPngPredictDecSize(const void* data, uint32_t dataSize,
                                                      acldvppPixelFormat outputPixelFormat,
                                                      uint32_t* decSize);

/* Stream tasks. Arguments are checked when called; the work runs in stream order, and a failure
 * there is the stream's (aclrtSynchronizeStream returns it) and the output's ret code. */
ACL_FUNC_VISIBILITY aclError acldvppJpegDecodeAsync(acldvppChannelDesc* channelDesc,
                                                    const void* data, uint32_t size,
                                                    acldvppPicDesc* outputDesc, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppJpegEncodeAsync(acldvppChannelDesc* channelDesc,
                                                    acldvppPicDesc* inputDesc, const void* data,
                                                    uint32_t* size, acldvppJpegeConfig* config,
                                                    aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppPngDecodeAsync(acldvppChannelDesc* channelDesc,
                                                   const void* data, uint32_t size,
                                                   acldvppPicDesc* outputDesc, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcResizeAsync(acldvppChannelDesc* channelDesc,
                                                   acldvppPicDesc* inputDesc,
                                                   acldvppPicDesc* outputDesc,
                                                   acldvppResizeConfig* resizeConfig,
                                                   aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCropAsync(acldvppChannelDesc* channelDesc,
                                                 acldvppPicDesc* inputDesc,
                                                 acldvppPicDesc* outputDesc,
                                                 acldvppRoiConfig* cropArea, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCropResizeAsync(
    acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
    acldvppRoiConfig* cropArea, acldvppResizeConfig* resizeConfig, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropAsync(acldvppChannelDesc* channelDesc,
                                                      acldvppBatchPicDesc* srcBatchPicDescs,
                                                      uint32_t* roiNums, uint32_t size,
                                                      acldvppBatchPicDesc* dstBatchPicDescs,
                                                      acldvppRoiConfig* cropAreas[],
                                                      aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizeAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppResizeConfig* resizeConfig, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCropAndPasteAsync(
    acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
    acldvppRoiConfig* cropArea, acldvppRoiConfig* pasteArea, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCropResizePasteAsync(
    acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
    acldvppRoiConfig* cropArea, acldvppRoiConfig* pasteArea, acldvppResizeConfig* resizeConfig,
    aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropAndPasteAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppRoiConfig* pasteAreas[], aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizePasteAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppRoiConfig* pasteAreas[], acldvppResizeConfig* resizeConfig, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizeMakeBorderAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppBorderConfig* borderCfgs[], acldvppResizeConfig* resizeConfig, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcConvertColorAsync(acldvppChannelDesc* channelDesc,
                                                         acldvppPicDesc* inputDesc,
                                                         acldvppPicDesc* outputDesc,
                                                         aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcPyrDownAsync(acldvppChannelDesc* channelDesc,
                                                    acldvppPicDesc* inputDesc,
                                                    acldvppPicDesc* outputDesc, void* reserve,
                                                    aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcEqualizeHistAsync(const acldvppChannelDesc* channelDesc,
                                                         const acldvppPicDesc* inputDesc,
                                                         acldvppPicDesc* outputDesc,
                                                         const acldvppLutMap* lutMap,
                                                         aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcMakeBorderAsync(const acldvppChannelDesc* channelDesc,
                                                       const acldvppPicDesc* inputDesc,
                                                       acldvppPicDesc* outputDesc,
                                                       const acldvppBorderConfig* borderConfig,
                                                       aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCalcHistAsync(acldvppChannelDesc* channelDesc,
                                                     acldvppPicDesc* srcPicDesc, acldvppHist* hist,
                                                     void* reserve, aclrtStream stream);

/* Compressed-stream descriptions (video decode input, video encode output). */
ACL_FUNC_VISIBILITY acldvppStreamDesc* acldvppCreateStreamDesc();
ACL_FUNC_VISIBILITY aclError acldvppDestroyStreamDesc(acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescData(acldvppStreamDesc* streamDesc, void* dataDev);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescSize(acldvppStreamDesc* streamDesc, uint32_t size);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescFormat(acldvppStreamDesc* streamDesc,
                                                        acldvppStreamFormat format);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescTimestamp(acldvppStreamDesc* streamDesc,
                                                           uint64_t timestamp);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescRetCode(acldvppStreamDesc* streamDesc,
                                                         uint32_t retCode);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescEos(acldvppStreamDesc* streamDesc, uint8_t eos);
ACL_FUNC_VISIBILITY void* acldvppGetStreamDescData(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetStreamDescSize(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat
acldvppGetStreamDescFormat(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint64_t acldvppGetStreamDescTimestamp(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetStreamDescRetCode(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint8_t acldvppGetStreamDescEos(const acldvppStreamDesc* streamDesc);

/* Video decode (H.264 / H.265 -> YUV420SP frames). */
ACL_FUNC_VISIBILITY aclvdecChannelDesc* aclvdecCreateChannelDesc();
ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc* channelDesc,
                                                            uint32_t channelId);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescThreadId(aclvdecChannelDesc* channelDesc,
                                                           uint64_t threadId);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescCallback(aclvdecChannelDesc* channelDesc,
                                                           aclvdecCallback callback);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc* channelDesc,
                                                         acldvppStreamFormat enType);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicFormat(aclvdecChannelDesc* channelDesc,
                                                               acldvppPixelFormat outPicFormat);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicWidth(aclvdecChannelDesc* channelDesc,
                                                              uint32_t outPicWidth);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicHeight(aclvdecChannelDesc* channelDesc,
                                                               uint32_t outPicHeight);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescRefFrameNum(aclvdecChannelDesc* channelDesc,
                                                              uint32_t refFrameNum);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescBitDepth(aclvdecChannelDesc* channelDesc,
                                                           uint32_t bitDepth);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutMode(aclvdecChannelDesc* channelDesc,
                                                          uint32_t outMode);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescChannelId(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint64_t aclvdecGetChannelDescThreadId(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclvdecCallback
aclvdecGetChannelDescCallback(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat
aclvdecGetChannelDescEnType(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat
aclvdecGetChannelDescOutPicFormat(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvdecGetChannelDescOutPicWidth(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvdecGetChannelDescOutPicHeight(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescBitDepth(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvdecGetChannelDescRefFrameNum(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescOutMode(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclvdecFrameConfig* aclvdecCreateFrameConfig();
ACL_FUNC_VISIBILITY aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig* vdecFrameConfig);
ACL_FUNC_VISIBILITY aclError aclvdecCreateChannel(aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannel(aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecSendFrame(aclvdecChannelDesc* channelDesc,
                                              acldvppStreamDesc* input, acldvppPicDesc* output,
                                              aclvdecFrameConfig* config, void* userData);
ACL_FUNC_VISIBILITY aclError aclvdecSendSkippedFrame(aclvdecChannelDesc* channelDesc,
                                                     acldvppStreamDesc* input,
                                                     aclvdecFrameConfig* config, void* userData);

/* Video encode (YUV420SP frames -> H.264 / H.265). */
ACL_FUNC_VISIBILITY aclvencChannelDesc* aclvencCreateChannelDesc();
ACL_FUNC_VISIBILITY aclError aclvencDestroyChannelDesc(aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescThreadId(aclvencChannelDesc* channelDesc,
                                                           uint64_t threadId);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescCallback(aclvencChannelDesc* channelDesc,
                                                           aclvencCallback callback);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescEnType(aclvencChannelDesc* channelDesc,
                                                         acldvppStreamFormat enType);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescPicFormat(aclvencChannelDesc* channelDesc,
                                                            acldvppPixelFormat picFormat);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescPicWidth(aclvencChannelDesc* channelDesc,
                                                           uint32_t picWidth);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescPicHeight(aclvencChannelDesc* channelDesc,
                                                            uint32_t picHeight);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescKeyFrameInterval(aclvencChannelDesc* channelDesc,
                                                                   uint32_t keyFrameInterval);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescBufAddr(aclvencChannelDesc* channelDesc,
                                                          void* bufAddr);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescBufSize(aclvencChannelDesc* channelDesc,
                                                          uint32_t bufSize);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescRcMode(aclvencChannelDesc* channelDesc,
                                                         uint32_t rcMode);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescSrcRate(aclvencChannelDesc* channelDesc,
                                                          uint32_t srcRate);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescMaxBitRate(aclvencChannelDesc* channelDesc,
                                                             uint32_t maxBitRate);
ACL_FUNC_VISIBILITY aclError aclvencSetChannelDescParam(aclvencChannelDesc* channelDesc,
                                                        aclvencChannelDescParamType paramType,
                                                        size_t length, const void* param);
ACL_FUNC_VISIBILITY void* aclvencGetChannelDescBufAddr(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescBufSize(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescChannelId(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint64_t aclvencGetChannelDescThreadId(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclvencCallback
aclvencGetChannelDescCallback(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat
aclvencGetChannelDescEnType(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat
aclvencGetChannelDescPicFormat(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescPicWidth(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescPicHeight(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvencGetChannelDescKeyFrameInterval(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescRcMode(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescSrcRate(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvencGetChannelDescMaxBitRate(const aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvencGetChannelDescParam(const aclvencChannelDesc* channelDesc,
                                                        aclvencChannelDescParamType paramType,
                                                        size_t length, size_t* paramRetSize,
                                                        void* param);
ACL_FUNC_VISIBILITY aclvencFrameConfig* aclvencCreateFrameConfig();
ACL_FUNC_VISIBILITY aclError aclvencDestroyFrameConfig(aclvencFrameConfig* config);
ACL_FUNC_VISIBILITY aclError aclvencSetFrameConfigForceIFrame(aclvencFrameConfig* config,
                                                              uint8_t forceIFrame);
ACL_FUNC_VISIBILITY aclError aclvencSetFrameConfigEos(aclvencFrameConfig* config, uint8_t eos);
ACL_FUNC_VISIBILITY uint8_t aclvencGetFrameConfigForceIFrame(const aclvencFrameConfig* config);
ACL_FUNC_VISIBILITY uint8_t aclvencGetFrameConfigEos(const aclvencFrameConfig* config);
ACL_FUNC_VISIBILITY aclError aclvencCreateChannel(aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvencDestroyChannel(aclvencChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvencSendFrame(aclvencChannelDesc* channelDesc,
                                              acldvppPicDesc* input, void* reserve,
                                              aclvencFrameConfig* config, void* userdata);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_ */

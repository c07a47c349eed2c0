/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/* acl/ops/acl_dvpp.h compiles as C99 with -Wall -Wextra -pedantic -Werror, holds CANN's enum
 * values, and its functions link from libacl_dvpp.so + libascendcl.so, as a CANN program links
 * them. (exports_check.py holds the full list of declared functions against the library.) */

#include <stdio.h>

#define ENABLE_DVPP_INTERFACE
#include "acl/ops/acl_dvpp.h"

#define KILN_STATIC_CHECK(cond, name) typedef char kiln_static_check_##name[(cond) ? 1 : -1]

KILN_STATIC_CHECK(PIXEL_FORMAT_YUV_SEMIPLANAR_420 == 1 && PIXEL_FORMAT_YVU_SEMIPLANAR_420 == 2,
                  yuv420sp);
KILN_STATIC_CHECK(PIXEL_FORMAT_YUV_PACKED_444 == 11 && PIXEL_FORMAT_RGB_888 == 12 &&
                      PIXEL_FORMAT_BGRA_8888 == 17,
                  packed);
KILN_STATIC_CHECK(PIXEL_FORMAT_YVU_PLANAR_420 == 20 && PIXEL_FORMAT_YVU_PLANAR_422 == 21 &&
                      PIXEL_FORMAT_BGRA_8565 == 40,
                  planar_and_16_bit);
KILN_STATIC_CHECK(PIXEL_FORMAT_RGB_BAYER_16BPP == 54 && PIXEL_FORMAT_BGR_888_PLANAR == 70 &&
                      PIXEL_FORMAT_S64C1 == 84,
                  bayer_and_planar);
KILN_STATIC_CHECK(PIXEL_FORMAT_YUV_SEMIPLANAR_440 == 1000 && PIXEL_FORMAT_FLOAT32 == 1002 &&
                      PIXEL_FORMAT_UNKNOWN == 10000,
                  tail);
KILN_STATIC_CHECK(H265_MAIN_LEVEL == 0 && H264_HIGH_LEVEL == 3, stream_format);
KILN_STATIC_CHECK(DVPP_CHNMODE_VPC == 1 && DVPP_CHNMODE_JPEGD == 2 && DVPP_CHNMODE_JPEGE == 4,
                  mode);
KILN_STATIC_CHECK(BORDER_CONSTANT == 0 && BORDER_REFLECT_101 == 3, border);
KILN_STATIC_CHECK(ACL_VENC_MAX_IP_PROP_UINT32 == 12, venc_params);
KILN_STATIC_CHECK(ACL_JPEG_CSS_411 == 5 && ACL_JPEG_CSS_UNKNOWN == 1000, jpeg_css);

int main(void) {
  /* A few addresses, so the link proves the libraries a CANN program names are enough. */
  typedef void (*Fn)(void);
  Fn volatile fns[] = {(Fn)&acldvppMalloc, (Fn)&acldvppJpegDecodeAsync,
                       (Fn)&acldvppVpcBatchCropResizeMakeBorderAsync, (Fn)&acldvppPngDecodeAsync};
  size_t i;
  for (i = 0; i < sizeof fns / sizeof fns[0]; ++i) {
    if (fns[i] == NULL) return 1;
  }
  printf("acl_dvpp.h: ok\n");
  return 0;
}

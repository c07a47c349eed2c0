// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0

// C99 conformance check for the AscendCL headers. It compiles warning-free with
// -std=c99 -Wall -Wextra -pedantic, uses every error code in a `switch` (runtime codes, which
// are macros) or with `==` (ACL and GE codes, which are `static const` objects and so not
// constant expressions in C), uses every enum type, and takes the address of every declared
// function so that linking it against the library proves each symbol is exported.
//
// Expected numbers are those of the AscendCL reference (docs/ascendcl-reference.md sections 1 and
// 2, cross-checked against the published CANN headers).

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

// C99 has no _Static_assert; a negative array size stops compilation instead.
#define KILN_STATIC_CHECK(cond, name) typedef char kiln_static_check_##name[(cond) ? 1 : -1]

KILN_STATIC_CHECK(ACL_FLOAT16 == 1, float16_is_1);
KILN_STATIC_CHECK(ACL_BF16 == 27, bf16_is_27);
KILN_STATIC_CHECK(ACL_FRACTAL_Z_3D == 33, fractal_z_3d_is_33);
KILN_STATIC_CHECK(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT == 507046, stream_sync_timeout);
KILN_STATIC_CHECK(ACL_ERROR_RT_AICPU_EXCEPTION == 507018, aicpu_exception);
KILN_STATIC_CHECK(ACL_ERROR_RT_DEV_SETUP_ERROR == 507033, dev_setup_error);
KILN_STATIC_CHECK(sizeof(aclFloat16) == 2, float16_is_two_bytes);
KILN_STATIC_CHECK(sizeof(aclError) == sizeof(int), error_is_int);
KILN_STATIC_CHECK(sizeof(aclrtStream) == sizeof(void*), stream_is_pointer);
KILN_STATIC_CHECK(ACL_UNKNOWN_RANK == 0xFFFFFFFFFFFFFFFEULL, unknown_rank);
KILN_STATIC_CHECK(ACL_TENSOR_SHAPE_RANGE_NUM == 2 && ACL_TENSOR_VALUE_RANGE_NUM == 2, ranges);
KILN_STATIC_CHECK(ACL_MAJOR_VERSION == 1 && ACL_MINOR_VERSION == 17 && ACL_PATCH_VERSION == 0,
                  interface_version);
KILN_STATIC_CHECK(ACL_PKG_VERSION_MAX_SIZE == 128 && ACL_PKG_VERSION_PARTS_MAX_SIZE == 64,
                  pkg_version_sizes);
KILN_STATIC_CHECK(sizeof(aclCANNPackageVersion) == 2 * 128 + 4 * 64, pkg_version_layout);
KILN_STATIC_CHECK(offsetof(aclrtUtilizationInfo, utilizationExtend) == 16, utilization_layout);
KILN_STATIC_CHECK(ACL_EVENT_SYNC == 0x1U && ACL_EVENT_CAPTURE_STREAM_PROGRESS == 0x2U &&
                      ACL_EVENT_TIME_LINE == 0x8U && ACL_EVENT_DEVICE_USE_ONLY == 0x10U &&
                      ACL_EVENT_EXTERNAL == 0x20U && ACL_EVENT_IPC == 0x40U,
                  event_flags);
KILN_STATIC_CHECK(ACL_STREAM_FAST_LAUNCH == 0x1U && ACL_STREAM_FAST_SYNC == 0x2U &&
                      ACL_STREAM_PERSISTENT == 0x4U && ACL_STREAM_HUGE == 0x8U &&
                      ACL_STREAM_CPU_SCHEDULE == 0x10U && ACL_STREAM_DEVICE_USE_ONLY == 0x20U,
                  stream_flags);
KILN_STATIC_CHECK(ACL_CONTINUE_ON_FAILURE == 0U && ACL_STOP_ON_FAILURE == 1U, failure_modes);

// Every enumerator, with its value from the reference or, for the newest ones, the CANN headers.
KILN_STATIC_CHECK(ACL_DT_UNDEFINED == -1, acl_dt_undefined);
KILN_STATIC_CHECK(ACL_FLOAT == 0, acl_float);
KILN_STATIC_CHECK(ACL_FLOAT16 == 1, acl_float16);
KILN_STATIC_CHECK(ACL_INT8 == 2, acl_int8);
KILN_STATIC_CHECK(ACL_INT32 == 3, acl_int32);
KILN_STATIC_CHECK(ACL_UINT8 == 4, acl_uint8);
KILN_STATIC_CHECK(ACL_INT16 == 6, acl_int16);
KILN_STATIC_CHECK(ACL_UINT16 == 7, acl_uint16);
KILN_STATIC_CHECK(ACL_UINT32 == 8, acl_uint32);
KILN_STATIC_CHECK(ACL_INT64 == 9, acl_int64);
KILN_STATIC_CHECK(ACL_UINT64 == 10, acl_uint64);
KILN_STATIC_CHECK(ACL_DOUBLE == 11, acl_double);
KILN_STATIC_CHECK(ACL_BOOL == 12, acl_bool);
KILN_STATIC_CHECK(ACL_STRING == 13, acl_string);
KILN_STATIC_CHECK(ACL_COMPLEX64 == 16, acl_complex64);
KILN_STATIC_CHECK(ACL_COMPLEX128 == 17, acl_complex128);
KILN_STATIC_CHECK(ACL_BF16 == 27, acl_bf16);
KILN_STATIC_CHECK(ACL_INT4 == 29, acl_int4);
KILN_STATIC_CHECK(ACL_UINT1 == 30, acl_uint1);
KILN_STATIC_CHECK(ACL_COMPLEX32 == 33, acl_complex32);
KILN_STATIC_CHECK(ACL_HIFLOAT8 == 34, acl_hifloat8);
KILN_STATIC_CHECK(ACL_FLOAT8_E5M2 == 35, acl_float8_e5m2);
KILN_STATIC_CHECK(ACL_FLOAT8_E4M3FN == 36, acl_float8_e4m3fn);
KILN_STATIC_CHECK(ACL_FLOAT8_E8M0 == 37, acl_float8_e8m0);
KILN_STATIC_CHECK(ACL_FLOAT6_E3M2 == 38, acl_float6_e3m2);
KILN_STATIC_CHECK(ACL_FLOAT6_E2M3 == 39, acl_float6_e2m3);
KILN_STATIC_CHECK(ACL_FLOAT4_E2M1 == 40, acl_float4_e2m1);
KILN_STATIC_CHECK(ACL_FLOAT4_E1M2 == 41, acl_float4_e1m2);
KILN_STATIC_CHECK(ACL_HIFLOAT4 == 42, acl_hifloat4);
KILN_STATIC_CHECK(ACL_HIFLOAT4_SCALE == 43, acl_hifloat4_scale);
KILN_STATIC_CHECK(ACL_FORMAT_UNDEFINED == -1, acl_format_undefined);
KILN_STATIC_CHECK(ACL_FORMAT_NCHW == 0, acl_format_nchw);
KILN_STATIC_CHECK(ACL_FORMAT_NHWC == 1, acl_format_nhwc);
KILN_STATIC_CHECK(ACL_FORMAT_ND == 2, acl_format_nd);
KILN_STATIC_CHECK(ACL_FORMAT_NC1HWC0 == 3, acl_format_nc1hwc0);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_Z == 4, acl_format_fractal_z);
KILN_STATIC_CHECK(ACL_FORMAT_NC1HWC0_C04 == 12, acl_format_nc1hwc0_c04);
KILN_STATIC_CHECK(ACL_FORMAT_HWCN == 16, acl_format_hwcn);
KILN_STATIC_CHECK(ACL_FORMAT_NDHWC == 27, acl_format_ndhwc);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_NZ == 29, acl_format_fractal_nz);
KILN_STATIC_CHECK(ACL_FORMAT_NCDHW == 30, acl_format_ncdhw);
KILN_STATIC_CHECK(ACL_FORMAT_NDC1HWC0 == 32, acl_format_ndc1hwc0);
KILN_STATIC_CHECK(ACL_FRACTAL_Z_3D == 33, acl_fractal_z_3d);
KILN_STATIC_CHECK(ACL_FORMAT_NC == 35, acl_format_nc);
KILN_STATIC_CHECK(ACL_FORMAT_NCL == 47, acl_format_ncl);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_NZ_C0_16 == 50, acl_format_fractal_nz_c0_16);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_NZ_C0_32 == 51, acl_format_fractal_nz_c0_32);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_NZ_C0_2 == 52, acl_format_fractal_nz_c0_2);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_NZ_C0_4 == 53, acl_format_fractal_nz_c0_4);
KILN_STATIC_CHECK(ACL_FORMAT_FRACTAL_NZ_C0_8 == 54, acl_format_fractal_nz_c0_8);
KILN_STATIC_CHECK(ACL_DEBUG == 0, acl_debug);
KILN_STATIC_CHECK(ACL_INFO == 1, acl_info);
KILN_STATIC_CHECK(ACL_WARNING == 2, acl_warning);
KILN_STATIC_CHECK(ACL_ERROR == 3, acl_error);
KILN_STATIC_CHECK(ACL_MEMTYPE_DEVICE == 0, acl_memtype_device);
KILN_STATIC_CHECK(ACL_MEMTYPE_HOST == 1, acl_memtype_host);
KILN_STATIC_CHECK(ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT == 2, acl_memtype_host_compile_independent);
KILN_STATIC_CHECK(ACL_OPT_DETERMINISTIC == 0, acl_opt_deterministic);
KILN_STATIC_CHECK(ACL_OPT_ENABLE_DEBUG_KERNEL == 1, acl_opt_enable_debug_kernel);
KILN_STATIC_CHECK(ACL_OPT_STRONG_CONSISTENCY == 2, acl_opt_strong_consistency);
KILN_STATIC_CHECK(ACL_OPT_ENABLE_KERNEL_EARLY_START == 3, acl_opt_enable_kernel_early_start);
KILN_STATIC_CHECK(ACL_CANN_ATTR_UNDEFINED == -1, acl_cann_attr_undefined);
KILN_STATIC_CHECK(ACL_CANN_ATTR_INF_NAN == 0, acl_cann_attr_inf_nan);
KILN_STATIC_CHECK(ACL_CANN_ATTR_BF16 == 1, acl_cann_attr_bf16);
KILN_STATIC_CHECK(ACL_CANN_ATTR_JIT_COMPILE == 2, acl_cann_attr_jit_compile);
KILN_STATIC_CHECK(ACL_DEVICE_INFO_UNDEFINED == -1, acl_device_info_undefined);
KILN_STATIC_CHECK(ACL_DEVICE_INFO_AI_CORE_NUM == 0, acl_device_info_ai_core_num);
KILN_STATIC_CHECK(ACL_DEVICE_INFO_VECTOR_CORE_NUM == 1, acl_device_info_vector_core_num);
KILN_STATIC_CHECK(ACL_DEVICE_INFO_L2_SIZE == 2, acl_device_info_l2_size);
KILN_STATIC_CHECK(ACL_DEVICE == 0, acl_device);
KILN_STATIC_CHECK(ACL_HOST == 1, acl_host);
KILN_STATIC_CHECK(ACL_TS_ID_AICORE == 0, acl_ts_id_aicore);
KILN_STATIC_CHECK(ACL_TS_ID_AIVECTOR == 1, acl_ts_id_aivector);
KILN_STATIC_CHECK(ACL_TS_ID_RESERVED == 2, acl_ts_id_reserved);
KILN_STATIC_CHECK(ACL_EVENT_STATUS_COMPLETE == 0, acl_event_status_complete);
KILN_STATIC_CHECK(ACL_EVENT_STATUS_NOT_READY == 1, acl_event_status_not_ready);
KILN_STATIC_CHECK(ACL_EVENT_STATUS_RESERVED == 2, acl_event_status_reserved);
KILN_STATIC_CHECK(ACL_EVENT_RECORDED_STATUS_NOT_READY == 0, acl_event_recorded_status_not_ready);
KILN_STATIC_CHECK(ACL_EVENT_RECORDED_STATUS_COMPLETE == 1, acl_event_recorded_status_complete);
KILN_STATIC_CHECK(ACL_EVENT_WAIT_STATUS_COMPLETE == 0, acl_event_wait_status_complete);
KILN_STATIC_CHECK(ACL_EVENT_WAIT_STATUS_NOT_READY == 1, acl_event_wait_status_not_ready);
KILN_STATIC_CHECK(ACL_EVENT_WAIT_STATUS_RESERVED == 0xFFFF, acl_event_wait_status_reserved);
KILN_STATIC_CHECK(ACL_STREAM_STATUS_COMPLETE == 0, acl_stream_status_complete);
KILN_STATIC_CHECK(ACL_STREAM_STATUS_NOT_READY == 1, acl_stream_status_not_ready);
KILN_STATIC_CHECK(ACL_STREAM_STATUS_RESERVED == 0xFFFF, acl_stream_status_reserved);
KILN_STATIC_CHECK(ACL_CALLBACK_NO_BLOCK == 0, acl_callback_no_block);
KILN_STATIC_CHECK(ACL_CALLBACK_BLOCK == 1, acl_callback_block);
KILN_STATIC_CHECK(ACL_MEMCPY_HOST_TO_HOST == 0, acl_memcpy_host_to_host);
KILN_STATIC_CHECK(ACL_MEMCPY_HOST_TO_DEVICE == 1, acl_memcpy_host_to_device);
KILN_STATIC_CHECK(ACL_MEMCPY_DEVICE_TO_HOST == 2, acl_memcpy_device_to_host);
KILN_STATIC_CHECK(ACL_MEMCPY_DEVICE_TO_DEVICE == 3, acl_memcpy_device_to_device);
KILN_STATIC_CHECK(ACL_MEMCPY_DEFAULT == 4, acl_memcpy_default);
KILN_STATIC_CHECK(ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE == 5, acl_memcpy_host_to_buf_to_device);
KILN_STATIC_CHECK(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE == 6, acl_memcpy_inner_device_to_device);
KILN_STATIC_CHECK(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE == 7, acl_memcpy_inter_device_to_device);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_HUGE_FIRST == 0, acl_mem_malloc_huge_first);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_HUGE_ONLY == 1, acl_mem_malloc_huge_only);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_NORMAL_ONLY == 2, acl_mem_malloc_normal_only);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_HUGE_FIRST_P2P == 3, acl_mem_malloc_huge_first_p2p);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_HUGE_ONLY_P2P == 4, acl_mem_malloc_huge_only_p2p);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_NORMAL_ONLY_P2P == 5, acl_mem_malloc_normal_only_p2p);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_HUGE1G_ONLY == 6, acl_mem_malloc_huge1g_only);
KILN_STATIC_CHECK(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P == 7, acl_mem_malloc_huge1g_only_p2p);
KILN_STATIC_CHECK(ACL_MEM_TYPE_LOW_BAND_WIDTH == 0x0100, acl_mem_type_low_band_width);
KILN_STATIC_CHECK(ACL_MEM_TYPE_HIGH_BAND_WIDTH == 0x1000, acl_mem_type_high_band_width);
KILN_STATIC_CHECK(ACL_MEM_ACCESS_USER_SPACE_READONLY == 0x100000,
                  acl_mem_access_user_space_readonly);
KILN_STATIC_CHECK(ACL_DDR_MEM == 0, acl_ddr_mem);
KILN_STATIC_CHECK(ACL_HBM_MEM == 1, acl_hbm_mem);
KILN_STATIC_CHECK(ACL_DDR_MEM_HUGE == 2, acl_ddr_mem_huge);
KILN_STATIC_CHECK(ACL_DDR_MEM_NORMAL == 3, acl_ddr_mem_normal);
KILN_STATIC_CHECK(ACL_HBM_MEM_HUGE == 4, acl_hbm_mem_huge);
KILN_STATIC_CHECK(ACL_HBM_MEM_NORMAL == 5, acl_hbm_mem_normal);
KILN_STATIC_CHECK(ACL_DDR_MEM_P2P_HUGE == 6, acl_ddr_mem_p2p_huge);
KILN_STATIC_CHECK(ACL_DDR_MEM_P2P_NORMAL == 7, acl_ddr_mem_p2p_normal);
KILN_STATIC_CHECK(ACL_HBM_MEM_P2P_HUGE == 8, acl_hbm_mem_p2p_huge);
KILN_STATIC_CHECK(ACL_HBM_MEM_P2P_NORMAL == 9, acl_hbm_mem_p2p_normal);
KILN_STATIC_CHECK(ACL_HBM_MEM_HUGE1G == 10, acl_hbm_mem_huge1g);
KILN_STATIC_CHECK(ACL_HBM_MEM_P2P_HUGE1G == 11, acl_hbm_mem_p2p_huge1g);
KILN_STATIC_CHECK(ACL_MEM_NORMAL == 12, acl_mem_normal);
KILN_STATIC_CHECK(ACL_MEM_HUGE == 13, acl_mem_huge);
KILN_STATIC_CHECK(ACL_MEM_HUGE1G == 14, acl_mem_huge1g);
KILN_STATIC_CHECK(ACL_MEM_P2P_NORMAL == 15, acl_mem_p2p_normal);
KILN_STATIC_CHECK(ACL_MEM_P2P_HUGE == 16, acl_mem_p2p_huge);
KILN_STATIC_CHECK(ACL_MEM_P2P_HUGE1G == 17, acl_mem_p2p_huge1g);
KILN_STATIC_CHECK(ACL_GROUP_AICORE_INT == 0, acl_group_aicore_int);
KILN_STATIC_CHECK(ACL_GROUP_AIV_INT == 1, acl_group_aiv_int);
KILN_STATIC_CHECK(ACL_GROUP_AIC_INT == 2, acl_group_aic_int);
KILN_STATIC_CHECK(ACL_GROUP_SDMANUM_INT == 3, acl_group_sdmanum_int);
KILN_STATIC_CHECK(ACL_GROUP_ASQNUM_INT == 4, acl_group_asqnum_int);
KILN_STATIC_CHECK(ACL_GROUP_GROUPID_INT == 5, acl_group_groupid_int);
KILN_STATIC_CHECK(ACL_RT_OVERFLOW_MODE_SATURATION == 0, acl_rt_overflow_mode_saturation);
KILN_STATIC_CHECK(ACL_RT_OVERFLOW_MODE_INFNAN == 1, acl_rt_overflow_mode_infnan);
KILN_STATIC_CHECK(ACL_RT_OVERFLOW_MODE_UNDEF == 2, acl_rt_overflow_mode_undef);
KILN_STATIC_CHECK(ACL_RT_STREAM_WORK_ADDR_PTR == 0, acl_rt_stream_work_addr_ptr);
KILN_STATIC_CHECK(ACL_RT_STREAM_WORK_SIZE == 1, acl_rt_stream_work_size);
KILN_STATIC_CHECK(ACL_RT_STREAM_FLAG == 2, acl_rt_stream_flag);
KILN_STATIC_CHECK(ACL_RT_STREAM_PRIORITY == 3, acl_rt_stream_priority);
KILN_STATIC_CHECK(ACL_RT_DEVICE_STATUS_NORMAL == 0, acl_rt_device_status_normal);
KILN_STATIC_CHECK(ACL_RT_DEVICE_STATUS_ABNORMAL == 1, acl_rt_device_status_abnormal);
KILN_STATIC_CHECK(ACL_RT_DEVICE_STATUS_END == 0xFFFF, acl_rt_device_status_end);
KILN_STATIC_CHECK(ACL_RT_THREAD_LEVEL == 0, acl_rt_thread_level);
KILN_STATIC_CHECK(ACL_PKG_NAME_CANN == 0, acl_pkg_name_cann);
KILN_STATIC_CHECK(ACL_PKG_NAME_RUNTIME == 1, acl_pkg_name_runtime);
KILN_STATIC_CHECK(ACL_PKG_NAME_COMPILER == 2, acl_pkg_name_compiler);
KILN_STATIC_CHECK(ACL_PKG_NAME_HCCL == 3, acl_pkg_name_hccl);
KILN_STATIC_CHECK(ACL_PKG_NAME_TOOLKIT == 4, acl_pkg_name_toolkit);
KILN_STATIC_CHECK(ACL_PKG_NAME_OPP == 5, acl_pkg_name_opp);
KILN_STATIC_CHECK(ACL_PKG_NAME_OPP_KERNEL == 6, acl_pkg_name_opp_kernel);
KILN_STATIC_CHECK(ACL_PKG_NAME_DRIVER == 7, acl_pkg_name_driver);

// One switch per enum type, naming every enumerator: -Wswitch (in -Wall) flags an enumerator
// the header adds or drops.
static int Use_aclDataType(aclDataType value) {
  switch (value) {
    case ACL_DT_UNDEFINED:
      return 0;
    case ACL_FLOAT:
      return 1;
    case ACL_FLOAT16:
      return 2;
    case ACL_INT8:
      return 3;
    case ACL_INT32:
      return 4;
    case ACL_UINT8:
      return 5;
    case ACL_INT16:
      return 6;
    case ACL_UINT16:
      return 7;
    case ACL_UINT32:
      return 8;
    case ACL_INT64:
      return 9;
    case ACL_UINT64:
      return 10;
    case ACL_DOUBLE:
      return 11;
    case ACL_BOOL:
      return 12;
    case ACL_STRING:
      return 13;
    case ACL_COMPLEX64:
      return 14;
    case ACL_COMPLEX128:
      return 15;
    case ACL_BF16:
      return 16;
    case ACL_INT4:
      return 17;
    case ACL_UINT1:
      return 18;
    case ACL_COMPLEX32:
      return 19;
    case ACL_HIFLOAT8:
      return 20;
    case ACL_FLOAT8_E5M2:
      return 21;
    case ACL_FLOAT8_E4M3FN:
      return 22;
    case ACL_FLOAT8_E8M0:
      return 23;
    case ACL_FLOAT6_E3M2:
      return 24;
    case ACL_FLOAT6_E2M3:
      return 25;
    case ACL_FLOAT4_E2M1:
      return 26;
    case ACL_FLOAT4_E1M2:
      return 27;
    case ACL_HIFLOAT4:
      return 28;
    case ACL_HIFLOAT4_SCALE:
      return 29;
  }
  return -1;
}

static int Use_aclFormat(aclFormat value) {
  switch (value) {
    case ACL_FORMAT_UNDEFINED:
      return 0;
    case ACL_FORMAT_NCHW:
      return 1;
    case ACL_FORMAT_NHWC:
      return 2;
    case ACL_FORMAT_ND:
      return 3;
    case ACL_FORMAT_NC1HWC0:
      return 4;
    case ACL_FORMAT_FRACTAL_Z:
      return 5;
    case ACL_FORMAT_NC1HWC0_C04:
      return 6;
    case ACL_FORMAT_HWCN:
      return 7;
    case ACL_FORMAT_NDHWC:
      return 8;
    case ACL_FORMAT_FRACTAL_NZ:
      return 9;
    case ACL_FORMAT_NCDHW:
      return 10;
    case ACL_FORMAT_NDC1HWC0:
      return 11;
    case ACL_FRACTAL_Z_3D:
      return 12;
    case ACL_FORMAT_NC:
      return 13;
    case ACL_FORMAT_NCL:
      return 14;
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
      return 15;
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
      return 16;
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
      return 17;
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
      return 18;
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
      return 19;
  }
  return -1;
}

static int Use_aclLogLevel(aclLogLevel value) {
  switch (value) {
    case ACL_DEBUG:
      return 0;
    case ACL_INFO:
      return 1;
    case ACL_WARNING:
      return 2;
    case ACL_ERROR:
      return 3;
  }
  return -1;
}

static int Use_aclMemType(aclMemType value) {
  switch (value) {
    case ACL_MEMTYPE_DEVICE:
      return 0;
    case ACL_MEMTYPE_HOST:
      return 1;
    case ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT:
      return 2;
  }
  return -1;
}

static int Use_aclSysParamOpt(aclSysParamOpt value) {
  switch (value) {
    case ACL_OPT_DETERMINISTIC:
      return 0;
    case ACL_OPT_ENABLE_DEBUG_KERNEL:
      return 1;
    case ACL_OPT_STRONG_CONSISTENCY:
      return 2;
    case ACL_OPT_ENABLE_KERNEL_EARLY_START:
      return 3;
  }
  return -1;
}

static int Use_aclCannAttr(aclCannAttr value) {
  switch (value) {
    case ACL_CANN_ATTR_UNDEFINED:
      return 0;
    case ACL_CANN_ATTR_INF_NAN:
      return 1;
    case ACL_CANN_ATTR_BF16:
      return 2;
    case ACL_CANN_ATTR_JIT_COMPILE:
      return 3;
  }
  return -1;
}

static int Use_aclDeviceInfo(aclDeviceInfo value) {
  switch (value) {
    case ACL_DEVICE_INFO_UNDEFINED:
      return 0;
    case ACL_DEVICE_INFO_AI_CORE_NUM:
      return 1;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
      return 2;
    case ACL_DEVICE_INFO_L2_SIZE:
      return 3;
  }
  return -1;
}

static int Use_aclrtRunMode(aclrtRunMode value) {
  switch (value) {
    case ACL_DEVICE:
      return 0;
    case ACL_HOST:
      return 1;
  }
  return -1;
}

static int Use_aclrtTsId(aclrtTsId value) {
  switch (value) {
    case ACL_TS_ID_AICORE:
      return 0;
    case ACL_TS_ID_AIVECTOR:
      return 1;
    case ACL_TS_ID_RESERVED:
      return 2;
  }
  return -1;
}

static int Use_aclrtEventStatus(aclrtEventStatus value) {
  switch (value) {
    case ACL_EVENT_STATUS_COMPLETE:
      return 0;
    case ACL_EVENT_STATUS_NOT_READY:
      return 1;
    case ACL_EVENT_STATUS_RESERVED:
      return 2;
  }
  return -1;
}

static int Use_aclrtEventRecordedStatus(aclrtEventRecordedStatus value) {
  switch (value) {
    case ACL_EVENT_RECORDED_STATUS_NOT_READY:
      return 0;
    case ACL_EVENT_RECORDED_STATUS_COMPLETE:
      return 1;
  }
  return -1;
}

static int Use_aclrtEventWaitStatus(aclrtEventWaitStatus value) {
  switch (value) {
    case ACL_EVENT_WAIT_STATUS_COMPLETE:
      return 0;
    case ACL_EVENT_WAIT_STATUS_NOT_READY:
      return 1;
    case ACL_EVENT_WAIT_STATUS_RESERVED:
      return 2;
  }
  return -1;
}

static int Use_aclrtStreamStatus(aclrtStreamStatus value) {
  switch (value) {
    case ACL_STREAM_STATUS_COMPLETE:
      return 0;
    case ACL_STREAM_STATUS_NOT_READY:
      return 1;
    case ACL_STREAM_STATUS_RESERVED:
      return 2;
  }
  return -1;
}

static int Use_aclrtCallbackBlockType(aclrtCallbackBlockType value) {
  switch (value) {
    case ACL_CALLBACK_NO_BLOCK:
      return 0;
    case ACL_CALLBACK_BLOCK:
      return 1;
  }
  return -1;
}

static int Use_aclrtMemcpyKind(aclrtMemcpyKind value) {
  switch (value) {
    case ACL_MEMCPY_HOST_TO_HOST:
      return 0;
    case ACL_MEMCPY_HOST_TO_DEVICE:
      return 1;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return 2;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      return 3;
    case ACL_MEMCPY_DEFAULT:
      return 4;
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
      return 5;
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
      return 6;
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE:
      return 7;
  }
  return -1;
}

static int Use_aclrtMemMallocPolicy(aclrtMemMallocPolicy value) {
  switch (value) {
    case ACL_MEM_MALLOC_HUGE_FIRST:
      return 0;
    case ACL_MEM_MALLOC_HUGE_ONLY:
      return 1;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
      return 2;
    case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
      return 3;
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
      return 4;
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
      return 5;
    case ACL_MEM_MALLOC_HUGE1G_ONLY:
      return 6;
    case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
      return 7;
    case ACL_MEM_TYPE_LOW_BAND_WIDTH:
      return 8;
    case ACL_MEM_TYPE_HIGH_BAND_WIDTH:
      return 9;
    case ACL_MEM_ACCESS_USER_SPACE_READONLY:
      return 10;
  }
  return -1;
}

static int Use_aclrtMemAttr(aclrtMemAttr value) {
  switch (value) {
    case ACL_DDR_MEM:
      return 0;
    case ACL_HBM_MEM:
      return 1;
    case ACL_DDR_MEM_HUGE:
      return 2;
    case ACL_DDR_MEM_NORMAL:
      return 3;
    case ACL_HBM_MEM_HUGE:
      return 4;
    case ACL_HBM_MEM_NORMAL:
      return 5;
    case ACL_DDR_MEM_P2P_HUGE:
      return 6;
    case ACL_DDR_MEM_P2P_NORMAL:
      return 7;
    case ACL_HBM_MEM_P2P_HUGE:
      return 8;
    case ACL_HBM_MEM_P2P_NORMAL:
      return 9;
    case ACL_HBM_MEM_HUGE1G:
      return 10;
    case ACL_HBM_MEM_P2P_HUGE1G:
      return 11;
    case ACL_MEM_NORMAL:
      return 12;
    case ACL_MEM_HUGE:
      return 13;
    case ACL_MEM_HUGE1G:
      return 14;
    case ACL_MEM_P2P_NORMAL:
      return 15;
    case ACL_MEM_P2P_HUGE:
      return 16;
    case ACL_MEM_P2P_HUGE1G:
      return 17;
  }
  return -1;
}

static int Use_aclrtGroupAttr(aclrtGroupAttr value) {
  switch (value) {
    case ACL_GROUP_AICORE_INT:
      return 0;
    case ACL_GROUP_AIV_INT:
      return 1;
    case ACL_GROUP_AIC_INT:
      return 2;
    case ACL_GROUP_SDMANUM_INT:
      return 3;
    case ACL_GROUP_ASQNUM_INT:
      return 4;
    case ACL_GROUP_GROUPID_INT:
      return 5;
  }
  return -1;
}

static int Use_aclrtFloatOverflowMode(aclrtFloatOverflowMode value) {
  switch (value) {
    case ACL_RT_OVERFLOW_MODE_SATURATION:
      return 0;
    case ACL_RT_OVERFLOW_MODE_INFNAN:
      return 1;
    case ACL_RT_OVERFLOW_MODE_UNDEF:
      return 2;
  }
  return -1;
}

static int Use_aclrtStreamConfigAttr(aclrtStreamConfigAttr value) {
  switch (value) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
      return 0;
    case ACL_RT_STREAM_WORK_SIZE:
      return 1;
    case ACL_RT_STREAM_FLAG:
      return 2;
    case ACL_RT_STREAM_PRIORITY:
      return 3;
  }
  return -1;
}

static int Use_aclrtDeviceStatus(aclrtDeviceStatus value) {
  switch (value) {
    case ACL_RT_DEVICE_STATUS_NORMAL:
      return 0;
    case ACL_RT_DEVICE_STATUS_ABNORMAL:
      return 1;
    case ACL_RT_DEVICE_STATUS_END:
      return 2;
  }
  return -1;
}

static int Use_aclrtLastErrLevel(aclrtLastErrLevel value) {
  switch (value) {
    case ACL_RT_THREAD_LEVEL:
      return 0;
  }
  return -1;
}

static int Use_aclCANNPackageName(aclCANNPackageName value) {
  switch (value) {
    case ACL_PKG_NAME_CANN:
      return 0;
    case ACL_PKG_NAME_RUNTIME:
      return 1;
    case ACL_PKG_NAME_COMPILER:
      return 2;
    case ACL_PKG_NAME_HCCL:
      return 3;
    case ACL_PKG_NAME_TOOLKIT:
      return 4;
    case ACL_PKG_NAME_OPP:
      return 5;
    case ACL_PKG_NAME_OPP_KERNEL:
      return 6;
    case ACL_PKG_NAME_DRIVER:
      return 7;
  }
  return -1;
}

static int CheckEnums(void) {
  int failures = 0;
  failures += Use_aclDataType(ACL_HIFLOAT4_SCALE) == 29 ? 0 : 1;
  failures += Use_aclFormat(ACL_FORMAT_FRACTAL_NZ_C0_8) == 19 ? 0 : 1;
  failures += Use_aclLogLevel(ACL_ERROR) == 3 ? 0 : 1;
  failures += Use_aclMemType(ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT) == 2 ? 0 : 1;
  failures += Use_aclSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START) == 3 ? 0 : 1;
  failures += Use_aclCannAttr(ACL_CANN_ATTR_JIT_COMPILE) == 3 ? 0 : 1;
  failures += Use_aclDeviceInfo(ACL_DEVICE_INFO_L2_SIZE) == 3 ? 0 : 1;
  failures += Use_aclrtRunMode(ACL_HOST) == 1 ? 0 : 1;
  failures += Use_aclrtTsId(ACL_TS_ID_RESERVED) == 2 ? 0 : 1;
  failures += Use_aclrtEventStatus(ACL_EVENT_STATUS_RESERVED) == 2 ? 0 : 1;
  failures += Use_aclrtEventRecordedStatus(ACL_EVENT_RECORDED_STATUS_COMPLETE) == 1 ? 0 : 1;
  failures += Use_aclrtEventWaitStatus(ACL_EVENT_WAIT_STATUS_RESERVED) == 2 ? 0 : 1;
  failures += Use_aclrtStreamStatus(ACL_STREAM_STATUS_RESERVED) == 2 ? 0 : 1;
  failures += Use_aclrtCallbackBlockType(ACL_CALLBACK_BLOCK) == 1 ? 0 : 1;
  failures += Use_aclrtMemcpyKind(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) == 7 ? 0 : 1;
  failures += Use_aclrtMemMallocPolicy(ACL_MEM_ACCESS_USER_SPACE_READONLY) == 10 ? 0 : 1;
  failures += Use_aclrtMemAttr(ACL_MEM_P2P_HUGE1G) == 17 ? 0 : 1;
  failures += Use_aclrtGroupAttr(ACL_GROUP_GROUPID_INT) == 5 ? 0 : 1;
  failures += Use_aclrtFloatOverflowMode(ACL_RT_OVERFLOW_MODE_UNDEF) == 2 ? 0 : 1;
  failures += Use_aclrtStreamConfigAttr(ACL_RT_STREAM_PRIORITY) == 3 ? 0 : 1;
  failures += Use_aclrtDeviceStatus(ACL_RT_DEVICE_STATUS_END) == 2 ? 0 : 1;
  failures += Use_aclrtLastErrLevel(ACL_RT_THREAD_LEVEL) == 0 ? 0 : 1;
  failures += Use_aclCANNPackageName(ACL_PKG_NAME_DRIVER) == 7 ? 0 : 1;
  return failures;
}

// Runtime codes are macros, so they label cases directly. A duplicated value would not compile.
static const char* RtCodeName(int code) {
  switch (code) {
    case ACL_RT_SUCCESS:
      return "ACL_RT_SUCCESS";
    case ACL_ERROR_RT_PARAM_INVALID:
      return "ACL_ERROR_RT_PARAM_INVALID";
    case ACL_ERROR_RT_INVALID_DEVICEID:
      return "ACL_ERROR_RT_INVALID_DEVICEID";
    case ACL_ERROR_RT_CONTEXT_NULL:
      return "ACL_ERROR_RT_CONTEXT_NULL";
    case ACL_ERROR_RT_STREAM_CONTEXT:
      return "ACL_ERROR_RT_STREAM_CONTEXT";
    case ACL_ERROR_RT_MODEL_CONTEXT:
      return "ACL_ERROR_RT_MODEL_CONTEXT";
    case ACL_ERROR_RT_STREAM_MODEL:
      return "ACL_ERROR_RT_STREAM_MODEL";
    case ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID:
      return "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID";
    case ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL:
      return "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL";
    case ACL_ERROR_RT_ADDR_UNALIGNED:
      return "ACL_ERROR_RT_ADDR_UNALIGNED";
    case ACL_ERROR_RT_FILE_OPEN:
      return "ACL_ERROR_RT_FILE_OPEN";
    case ACL_ERROR_RT_FILE_WRITE:
      return "ACL_ERROR_RT_FILE_WRITE";
    case ACL_ERROR_RT_STREAM_SUBSCRIBE:
      return "ACL_ERROR_RT_STREAM_SUBSCRIBE";
    case ACL_ERROR_RT_THREAD_SUBSCRIBE:
      return "ACL_ERROR_RT_THREAD_SUBSCRIBE";
    case ACL_ERROR_RT_GROUP_NOT_SET:
      return "ACL_ERROR_RT_GROUP_NOT_SET";
    case ACL_ERROR_RT_GROUP_NOT_CREATE:
      return "ACL_ERROR_RT_GROUP_NOT_CREATE";
    case ACL_ERROR_RT_STREAM_NO_CB_REG:
      return "ACL_ERROR_RT_STREAM_NO_CB_REG";
    case ACL_ERROR_RT_INVALID_MEMORY_TYPE:
      return "ACL_ERROR_RT_INVALID_MEMORY_TYPE";
    case ACL_ERROR_RT_INVALID_HANDLE:
      return "ACL_ERROR_RT_INVALID_HANDLE";
    case ACL_ERROR_RT_INVALID_MALLOC_TYPE:
      return "ACL_ERROR_RT_INVALID_MALLOC_TYPE";
    case ACL_ERROR_RT_WAIT_TIMEOUT:
      return "ACL_ERROR_RT_WAIT_TIMEOUT";
    case ACL_ERROR_RT_TASK_TIMEOUT:
      return "ACL_ERROR_RT_TASK_TIMEOUT";
    case ACL_ERROR_RT_SYSPARAMOPT_NOT_SET:
      return "ACL_ERROR_RT_SYSPARAMOPT_NOT_SET";
    case ACL_ERROR_RT_DEVICE_TASK_ABORT:
      return "ACL_ERROR_RT_DEVICE_TASK_ABORT";
    case ACL_ERROR_RT_STREAM_ABORT:
      return "ACL_ERROR_RT_STREAM_ABORT";
    case ACL_ERROR_RT_CAPTURE_DEPENDENCY:
      return "ACL_ERROR_RT_CAPTURE_DEPENDENCY";
    case ACL_ERROR_RT_STREAM_UNJOINED:
      return "ACL_ERROR_RT_STREAM_UNJOINED";
    case ACL_ERROR_RT_MODEL_CAPTURED:
      return "ACL_ERROR_RT_MODEL_CAPTURED";
    case ACL_ERROR_RT_STREAM_CAPTURED:
      return "ACL_ERROR_RT_STREAM_CAPTURED";
    case ACL_ERROR_RT_EVENT_CAPTURED:
      return "ACL_ERROR_RT_EVENT_CAPTURED";
    case ACL_ERROR_RT_STREAM_NOT_CAPTURED:
      return "ACL_ERROR_RT_STREAM_NOT_CAPTURED";
    case ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT:
      return "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT";
    case ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT:
      return "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT";
    case ACL_ERROR_STREAM_CAPTURE_CONFLICT:
      return "ACL_ERROR_STREAM_CAPTURE_CONFLICT";
    case ACL_ERROR_STREAM_TASK_GROUP_STATUS:
      return "ACL_ERROR_STREAM_TASK_GROUP_STATUS";
    case ACL_ERROR_STREAM_TASK_GROUP_INTR:
      return "ACL_ERROR_STREAM_TASK_GROUP_INTR";
    case ACL_ERROR_RT_TASK_ABORT_STOP:
      return "ACL_ERROR_RT_TASK_ABORT_STOP";
    case ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED:
      return "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED";
    case ACL_ERROR_RT_MODEL_RUNNING:
      return "ACL_ERROR_RT_MODEL_RUNNING";
    case ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD:
      return "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD";
    case ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY:
      return "ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY";
    case ACL_ERROR_RT_MODEL_UPDATE_FAILED:
      return "ACL_ERROR_RT_MODEL_UPDATE_FAILED";
    case ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC:
      return "ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC";
    case ACL_ERROR_RT_SYMBOL_NOT_FOUND:
      return "ACL_ERROR_RT_SYMBOL_NOT_FOUND";
    case ACL_ERROR_RT_INVALID_SYMBOL:
      return "ACL_ERROR_RT_INVALID_SYMBOL";
    case ACL_ERROR_RT_INVALID_DEVICE_FUNCTION:
      return "ACL_ERROR_RT_INVALID_DEVICE_FUNCTION";
    case ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING:
      return "ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING";
    case ACL_ERROR_RT_FEATURE_NOT_SUPPORT:
      return "ACL_ERROR_RT_FEATURE_NOT_SUPPORT";
    case ACL_ERROR_RT_MEMORY_ALLOCATION:
      return "ACL_ERROR_RT_MEMORY_ALLOCATION";
    case ACL_ERROR_RT_MEMORY_FREE:
      return "ACL_ERROR_RT_MEMORY_FREE";
    case ACL_ERROR_RT_AICORE_OVER_FLOW:
      return "ACL_ERROR_RT_AICORE_OVER_FLOW";
    case ACL_ERROR_RT_NO_DEVICE:
      return "ACL_ERROR_RT_NO_DEVICE";
    case ACL_ERROR_RT_RESOURCE_ALLOC_FAIL:
      return "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL";
    case ACL_ERROR_RT_NO_PERMISSION:
      return "ACL_ERROR_RT_NO_PERMISSION";
    case ACL_ERROR_RT_NO_EVENT_RESOURCE:
      return "ACL_ERROR_RT_NO_EVENT_RESOURCE";
    case ACL_ERROR_RT_NO_STREAM_RESOURCE:
      return "ACL_ERROR_RT_NO_STREAM_RESOURCE";
    case ACL_ERROR_RT_NO_NOTIFY_RESOURCE:
      return "ACL_ERROR_RT_NO_NOTIFY_RESOURCE";
    case ACL_ERROR_RT_NO_MODEL_RESOURCE:
      return "ACL_ERROR_RT_NO_MODEL_RESOURCE";
    case ACL_ERROR_RT_NO_CDQ_RESOURCE:
      return "ACL_ERROR_RT_NO_CDQ_RESOURCE";
    case ACL_ERROR_RT_OVER_LIMIT:
      return "ACL_ERROR_RT_OVER_LIMIT";
    case ACL_ERROR_RT_QUEUE_EMPTY:
      return "ACL_ERROR_RT_QUEUE_EMPTY";
    case ACL_ERROR_RT_QUEUE_FULL:
      return "ACL_ERROR_RT_QUEUE_FULL";
    case ACL_ERROR_RT_REPEATED_INIT:
      return "ACL_ERROR_RT_REPEATED_INIT";
    case ACL_ERROR_RT_AIVEC_OVER_FLOW:
      return "ACL_ERROR_RT_AIVEC_OVER_FLOW";
    case ACL_ERROR_RT_OVER_FLOW:
      return "ACL_ERROR_RT_OVER_FLOW";
    case ACL_ERROR_RT_DEVICE_OOM:
      return "ACL_ERROR_RT_DEVICE_OOM";
    case ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP:
      return "ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP";
    case ACL_ERROR_RT_TIMEOUT:
      return "ACL_ERROR_RT_TIMEOUT";
    case ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED:
      return "ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED";
    case ACL_ERROR_RT_INTERNAL_ERROR:
      return "ACL_ERROR_RT_INTERNAL_ERROR";
    case ACL_ERROR_RT_TS_ERROR:
      return "ACL_ERROR_RT_TS_ERROR";
    case ACL_ERROR_RT_STREAM_TASK_FULL:
      return "ACL_ERROR_RT_STREAM_TASK_FULL";
    case ACL_ERROR_RT_STREAM_TASK_EMPTY:
      return "ACL_ERROR_RT_STREAM_TASK_EMPTY";
    case ACL_ERROR_RT_STREAM_NOT_COMPLETE:
      return "ACL_ERROR_RT_STREAM_NOT_COMPLETE";
    case ACL_ERROR_RT_END_OF_SEQUENCE:
      return "ACL_ERROR_RT_END_OF_SEQUENCE";
    case ACL_ERROR_RT_EVENT_NOT_COMPLETE:
      return "ACL_ERROR_RT_EVENT_NOT_COMPLETE";
    case ACL_ERROR_RT_CONTEXT_RELEASE_ERROR:
      return "ACL_ERROR_RT_CONTEXT_RELEASE_ERROR";
    case ACL_ERROR_RT_SOC_VERSION:
      return "ACL_ERROR_RT_SOC_VERSION";
    case ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT:
      return "ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT";
    case ACL_ERROR_RT_LOST_HEARTBEAT:
      return "ACL_ERROR_RT_LOST_HEARTBEAT";
    case ACL_ERROR_RT_MODEL_EXECUTE:
      return "ACL_ERROR_RT_MODEL_EXECUTE";
    case ACL_ERROR_RT_REPORT_TIMEOUT:
      return "ACL_ERROR_RT_REPORT_TIMEOUT";
    case ACL_ERROR_RT_SYS_DMA:
      return "ACL_ERROR_RT_SYS_DMA";
    case ACL_ERROR_RT_AICORE_TIMEOUT:
      return "ACL_ERROR_RT_AICORE_TIMEOUT";
    case ACL_ERROR_RT_AICORE_EXCEPTION:
      return "ACL_ERROR_RT_AICORE_EXCEPTION";
    case ACL_ERROR_RT_AICORE_TRAP_EXCEPTION:
      return "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION";
    case ACL_ERROR_RT_AICPU_TIMEOUT:
      return "ACL_ERROR_RT_AICPU_TIMEOUT";
    case ACL_ERROR_RT_AICPU_EXCEPTION:
      return "ACL_ERROR_RT_AICPU_EXCEPTION";
    case ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR:
      return "ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR";
    case ACL_ERROR_RT_AICPU_MODEL_RSP_ERR:
      return "ACL_ERROR_RT_AICPU_MODEL_RSP_ERR";
    case ACL_ERROR_RT_PROFILING_ERROR:
      return "ACL_ERROR_RT_PROFILING_ERROR";
    case ACL_ERROR_RT_IPC_ERROR:
      return "ACL_ERROR_RT_IPC_ERROR";
    case ACL_ERROR_RT_MODEL_ABORT_NORMAL:
      return "ACL_ERROR_RT_MODEL_ABORT_NORMAL";
    case ACL_ERROR_RT_KERNEL_UNREGISTERING:
      return "ACL_ERROR_RT_KERNEL_UNREGISTERING";
    case ACL_ERROR_RT_RINGBUFFER_NOT_INIT:
      return "ACL_ERROR_RT_RINGBUFFER_NOT_INIT";
    case ACL_ERROR_RT_RINGBUFFER_NO_DATA:
      return "ACL_ERROR_RT_RINGBUFFER_NO_DATA";
    case ACL_ERROR_RT_KERNEL_LOOKUP:
      return "ACL_ERROR_RT_KERNEL_LOOKUP";
    case ACL_ERROR_RT_KERNEL_DUPLICATE:
      return "ACL_ERROR_RT_KERNEL_DUPLICATE";
    case ACL_ERROR_RT_DEBUG_REGISTER_FAIL:
      return "ACL_ERROR_RT_DEBUG_REGISTER_FAIL";
    case ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL:
      return "ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL";
    case ACL_ERROR_RT_LABEL_CONTEXT:
      return "ACL_ERROR_RT_LABEL_CONTEXT";
    case ACL_ERROR_RT_PROGRAM_USE_OUT:
      return "ACL_ERROR_RT_PROGRAM_USE_OUT";
    case ACL_ERROR_RT_DEV_SETUP_ERROR:
      return "ACL_ERROR_RT_DEV_SETUP_ERROR";
    case ACL_ERROR_RT_VECTOR_CORE_TIMEOUT:
      return "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT";
    case ACL_ERROR_RT_VECTOR_CORE_EXCEPTION:
      return "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION";
    case ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION:
      return "ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION";
    case ACL_ERROR_RT_CDQ_BATCH_ABNORMAL:
      return "ACL_ERROR_RT_CDQ_BATCH_ABNORMAL";
    case ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR:
      return "ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR";
    case ACL_ERROR_RT_DIE_SET_ERROR:
      return "ACL_ERROR_RT_DIE_SET_ERROR";
    case ACL_ERROR_RT_INVALID_DIEID:
      return "ACL_ERROR_RT_INVALID_DIEID";
    case ACL_ERROR_RT_DIE_MODE_NOT_SET:
      return "ACL_ERROR_RT_DIE_MODE_NOT_SET";
    case ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW:
      return "ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW";
    case ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW:
      return "ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW";
    case ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW:
      return "ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW";
    case ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW:
      return "ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW";
    case ACL_ERROR_RT_STREAM_SYNC_TIMEOUT:
      return "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT";
    case ACL_ERROR_RT_EVENT_SYNC_TIMEOUT:
      return "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT";
    case ACL_ERROR_RT_FFTS_PLUS_TIMEOUT:
      return "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT";
    case ACL_ERROR_RT_FFTS_PLUS_EXCEPTION:
      return "ACL_ERROR_RT_FFTS_PLUS_EXCEPTION";
    case ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION:
      return "ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION";
    case ACL_ERROR_RT_SEND_MSG:
      return "ACL_ERROR_RT_SEND_MSG";
    case ACL_ERROR_RT_COPY_DATA:
      return "ACL_ERROR_RT_COPY_DATA";
    case ACL_ERROR_RT_DEVICE_MEM_ERROR:
      return "ACL_ERROR_RT_DEVICE_MEM_ERROR";
    case ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR:
      return "ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR";
    case ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR:
      return "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR";
    case ACL_ERROR_RT_LINK_ERROR:
      return "ACL_ERROR_RT_LINK_ERROR";
    case ACL_ERROR_RT_SUSPECT_REMOTE_ERROR:
      return "ACL_ERROR_RT_SUSPECT_REMOTE_ERROR";
    case ACL_ERROR_RT_DRV_INTERNAL_ERROR:
      return "ACL_ERROR_RT_DRV_INTERNAL_ERROR";
    case ACL_ERROR_RT_AICPU_INTERNAL_ERROR:
      return "ACL_ERROR_RT_AICPU_INTERNAL_ERROR";
    case ACL_ERROR_RT_SOCKET_CLOSE:
      return "ACL_ERROR_RT_SOCKET_CLOSE";
    case ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR:
      return "ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR";
    case ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED:
      return "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED";
    case ACL_ERROR_RT_COMM_OP_RETRY_FAIL:
      return "ACL_ERROR_RT_COMM_OP_RETRY_FAIL";
    case ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT:
      return "ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT";
    case ACL_ERROR_SNAPSHOT_LOCK_FAILED:
      return "ACL_ERROR_SNAPSHOT_LOCK_FAILED";
    case ACL_ERROR_SNAPSHOT_UNLOCK_FAILED:
      return "ACL_ERROR_SNAPSHOT_UNLOCK_FAILED";
    case ACL_ERROR_SNAPSHOT_BACKUP_FAILED:
      return "ACL_ERROR_SNAPSHOT_BACKUP_FAILED";
    case ACL_ERROR_SNAPSHOT_RESTORE_FAILED:
      return "ACL_ERROR_SNAPSHOT_RESTORE_FAILED";
    case ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
      return "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
    case ACL_ERROR_HOST_MEMORY_NOT_REGISTERED:
      return "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED";
    case ACL_ERROR_SNAPSHOT_CALLBACK_FAILED:
      return "ACL_ERROR_SNAPSHOT_CALLBACK_FAILED";
    case ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED:
      return "ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED";
    case ACL_ERROR_RT_L3_PORT_ERROR:
      return "ACL_ERROR_RT_L3_PORT_ERROR";
    case ACL_ERROR_RT_CCU_TIMEOUT:
      return "ACL_ERROR_RT_CCU_TIMEOUT";
    case ACL_ERROR_RT_CCU_EXCEPTION:
      return "ACL_ERROR_RT_CCU_EXCEPTION";
  }
  return NULL;
}

typedef struct KilnCode {
  const char* name;
  long long value;
  long long expected;
} KilnCode;

static int CheckRuntimeCodes(void) {
  static const KilnCode kCodes[] = {
      {"ACL_RT_SUCCESS", ACL_RT_SUCCESS, 0},
      {"ACL_ERROR_RT_PARAM_INVALID", ACL_ERROR_RT_PARAM_INVALID, 107000},
      {"ACL_ERROR_RT_INVALID_DEVICEID", ACL_ERROR_RT_INVALID_DEVICEID, 107001},
      {"ACL_ERROR_RT_CONTEXT_NULL", ACL_ERROR_RT_CONTEXT_NULL, 107002},
      {"ACL_ERROR_RT_STREAM_CONTEXT", ACL_ERROR_RT_STREAM_CONTEXT, 107003},
      {"ACL_ERROR_RT_MODEL_CONTEXT", ACL_ERROR_RT_MODEL_CONTEXT, 107004},
      {"ACL_ERROR_RT_STREAM_MODEL", ACL_ERROR_RT_STREAM_MODEL, 107005},
      {"ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID", ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, 107006},
      {"ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL", ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, 107007},
      {"ACL_ERROR_RT_ADDR_UNALIGNED", ACL_ERROR_RT_ADDR_UNALIGNED, 107008},
      {"ACL_ERROR_RT_FILE_OPEN", ACL_ERROR_RT_FILE_OPEN, 107009},
      {"ACL_ERROR_RT_FILE_WRITE", ACL_ERROR_RT_FILE_WRITE, 107010},
      {"ACL_ERROR_RT_STREAM_SUBSCRIBE", ACL_ERROR_RT_STREAM_SUBSCRIBE, 107011},
      {"ACL_ERROR_RT_THREAD_SUBSCRIBE", ACL_ERROR_RT_THREAD_SUBSCRIBE, 107012},
      {"ACL_ERROR_RT_GROUP_NOT_SET", ACL_ERROR_RT_GROUP_NOT_SET, 107013},
      {"ACL_ERROR_RT_GROUP_NOT_CREATE", ACL_ERROR_RT_GROUP_NOT_CREATE, 107014},
      {"ACL_ERROR_RT_STREAM_NO_CB_REG", ACL_ERROR_RT_STREAM_NO_CB_REG, 107015},
      {"ACL_ERROR_RT_INVALID_MEMORY_TYPE", ACL_ERROR_RT_INVALID_MEMORY_TYPE, 107016},
      {"ACL_ERROR_RT_INVALID_HANDLE", ACL_ERROR_RT_INVALID_HANDLE, 107017},
      {"ACL_ERROR_RT_INVALID_MALLOC_TYPE", ACL_ERROR_RT_INVALID_MALLOC_TYPE, 107018},
      {"ACL_ERROR_RT_WAIT_TIMEOUT", ACL_ERROR_RT_WAIT_TIMEOUT, 107019},
      {"ACL_ERROR_RT_TASK_TIMEOUT", ACL_ERROR_RT_TASK_TIMEOUT, 107020},
      {"ACL_ERROR_RT_SYSPARAMOPT_NOT_SET", ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021},
      {"ACL_ERROR_RT_DEVICE_TASK_ABORT", ACL_ERROR_RT_DEVICE_TASK_ABORT, 107022},
      {"ACL_ERROR_RT_STREAM_ABORT", ACL_ERROR_RT_STREAM_ABORT, 107023},
      {"ACL_ERROR_RT_CAPTURE_DEPENDENCY", ACL_ERROR_RT_CAPTURE_DEPENDENCY, 107024},
      {"ACL_ERROR_RT_STREAM_UNJOINED", ACL_ERROR_RT_STREAM_UNJOINED, 107025},
      {"ACL_ERROR_RT_MODEL_CAPTURED", ACL_ERROR_RT_MODEL_CAPTURED, 107026},
      {"ACL_ERROR_RT_STREAM_CAPTURED", ACL_ERROR_RT_STREAM_CAPTURED, 107027},
      {"ACL_ERROR_RT_EVENT_CAPTURED", ACL_ERROR_RT_EVENT_CAPTURED, 107028},
      {"ACL_ERROR_RT_STREAM_NOT_CAPTURED", ACL_ERROR_RT_STREAM_NOT_CAPTURED, 107029},
      {"ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT", ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, 107030},
      {"ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT", ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, 107031},
      {"ACL_ERROR_STREAM_CAPTURE_CONFLICT", ACL_ERROR_STREAM_CAPTURE_CONFLICT, 107032},
      {"ACL_ERROR_STREAM_TASK_GROUP_STATUS", ACL_ERROR_STREAM_TASK_GROUP_STATUS, 107033},
      {"ACL_ERROR_STREAM_TASK_GROUP_INTR", ACL_ERROR_STREAM_TASK_GROUP_INTR, 107034},
      {"ACL_ERROR_RT_TASK_ABORT_STOP", ACL_ERROR_RT_TASK_ABORT_STOP, 107035},
      {"ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED", ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, 107036},
      {"ACL_ERROR_RT_MODEL_RUNNING", ACL_ERROR_RT_MODEL_RUNNING, 107037},
      {"ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD", ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
       107038},
      {"ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY", ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, 107039},
      {"ACL_ERROR_RT_MODEL_UPDATE_FAILED", ACL_ERROR_RT_MODEL_UPDATE_FAILED, 107040},
      {"ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC", ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, 107041},
      {"ACL_ERROR_RT_SYMBOL_NOT_FOUND", ACL_ERROR_RT_SYMBOL_NOT_FOUND, 107042},
      {"ACL_ERROR_RT_INVALID_SYMBOL", ACL_ERROR_RT_INVALID_SYMBOL, 107043},
      {"ACL_ERROR_RT_INVALID_DEVICE_FUNCTION", ACL_ERROR_RT_INVALID_DEVICE_FUNCTION, 107044},
      {"ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING", ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING, 107045},
      {"ACL_ERROR_RT_FEATURE_NOT_SUPPORT", ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000},
      {"ACL_ERROR_RT_MEMORY_ALLOCATION", ACL_ERROR_RT_MEMORY_ALLOCATION, 207001},
      {"ACL_ERROR_RT_MEMORY_FREE", ACL_ERROR_RT_MEMORY_FREE, 207002},
      {"ACL_ERROR_RT_AICORE_OVER_FLOW", ACL_ERROR_RT_AICORE_OVER_FLOW, 207003},
      {"ACL_ERROR_RT_NO_DEVICE", ACL_ERROR_RT_NO_DEVICE, 207004},
      {"ACL_ERROR_RT_RESOURCE_ALLOC_FAIL", ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, 207005},
      {"ACL_ERROR_RT_NO_PERMISSION", ACL_ERROR_RT_NO_PERMISSION, 207006},
      {"ACL_ERROR_RT_NO_EVENT_RESOURCE", ACL_ERROR_RT_NO_EVENT_RESOURCE, 207007},
      {"ACL_ERROR_RT_NO_STREAM_RESOURCE", ACL_ERROR_RT_NO_STREAM_RESOURCE, 207008},
      {"ACL_ERROR_RT_NO_NOTIFY_RESOURCE", ACL_ERROR_RT_NO_NOTIFY_RESOURCE, 207009},
      {"ACL_ERROR_RT_NO_MODEL_RESOURCE", ACL_ERROR_RT_NO_MODEL_RESOURCE, 207010},
      {"ACL_ERROR_RT_NO_CDQ_RESOURCE", ACL_ERROR_RT_NO_CDQ_RESOURCE, 207011},
      {"ACL_ERROR_RT_OVER_LIMIT", ACL_ERROR_RT_OVER_LIMIT, 207012},
      {"ACL_ERROR_RT_QUEUE_EMPTY", ACL_ERROR_RT_QUEUE_EMPTY, 207013},
      {"ACL_ERROR_RT_QUEUE_FULL", ACL_ERROR_RT_QUEUE_FULL, 207014},
      {"ACL_ERROR_RT_REPEATED_INIT", ACL_ERROR_RT_REPEATED_INIT, 207015},
      {"ACL_ERROR_RT_AIVEC_OVER_FLOW", ACL_ERROR_RT_AIVEC_OVER_FLOW, 207016},
      {"ACL_ERROR_RT_OVER_FLOW", ACL_ERROR_RT_OVER_FLOW, 207017},
      {"ACL_ERROR_RT_DEVICE_OOM", ACL_ERROR_RT_DEVICE_OOM, 207018},
      {"ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP", ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP,
       207019},
      {"ACL_ERROR_RT_TIMEOUT", ACL_ERROR_RT_TIMEOUT, 207020},
      {"ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED", ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, 207021},
      {"ACL_ERROR_RT_INTERNAL_ERROR", ACL_ERROR_RT_INTERNAL_ERROR, 507000},
      {"ACL_ERROR_RT_TS_ERROR", ACL_ERROR_RT_TS_ERROR, 507001},
      {"ACL_ERROR_RT_STREAM_TASK_FULL", ACL_ERROR_RT_STREAM_TASK_FULL, 507002},
      {"ACL_ERROR_RT_STREAM_TASK_EMPTY", ACL_ERROR_RT_STREAM_TASK_EMPTY, 507003},
      {"ACL_ERROR_RT_STREAM_NOT_COMPLETE", ACL_ERROR_RT_STREAM_NOT_COMPLETE, 507004},
      {"ACL_ERROR_RT_END_OF_SEQUENCE", ACL_ERROR_RT_END_OF_SEQUENCE, 507005},
      {"ACL_ERROR_RT_EVENT_NOT_COMPLETE", ACL_ERROR_RT_EVENT_NOT_COMPLETE, 507006},
      {"ACL_ERROR_RT_CONTEXT_RELEASE_ERROR", ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007},
      {"ACL_ERROR_RT_SOC_VERSION", ACL_ERROR_RT_SOC_VERSION, 507008},
      {"ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT", ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, 507009},
      {"ACL_ERROR_RT_LOST_HEARTBEAT", ACL_ERROR_RT_LOST_HEARTBEAT, 507010},
      {"ACL_ERROR_RT_MODEL_EXECUTE", ACL_ERROR_RT_MODEL_EXECUTE, 507011},
      {"ACL_ERROR_RT_REPORT_TIMEOUT", ACL_ERROR_RT_REPORT_TIMEOUT, 507012},
      {"ACL_ERROR_RT_SYS_DMA", ACL_ERROR_RT_SYS_DMA, 507013},
      {"ACL_ERROR_RT_AICORE_TIMEOUT", ACL_ERROR_RT_AICORE_TIMEOUT, 507014},
      {"ACL_ERROR_RT_AICORE_EXCEPTION", ACL_ERROR_RT_AICORE_EXCEPTION, 507015},
      {"ACL_ERROR_RT_AICORE_TRAP_EXCEPTION", ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, 507016},
      {"ACL_ERROR_RT_AICPU_TIMEOUT", ACL_ERROR_RT_AICPU_TIMEOUT, 507017},
      {"ACL_ERROR_RT_AICPU_EXCEPTION", ACL_ERROR_RT_AICPU_EXCEPTION, 507018},
      {"ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR", ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR, 507019},
      {"ACL_ERROR_RT_AICPU_MODEL_RSP_ERR", ACL_ERROR_RT_AICPU_MODEL_RSP_ERR, 507020},
      {"ACL_ERROR_RT_PROFILING_ERROR", ACL_ERROR_RT_PROFILING_ERROR, 507021},
      {"ACL_ERROR_RT_IPC_ERROR", ACL_ERROR_RT_IPC_ERROR, 507022},
      {"ACL_ERROR_RT_MODEL_ABORT_NORMAL", ACL_ERROR_RT_MODEL_ABORT_NORMAL, 507023},
      {"ACL_ERROR_RT_KERNEL_UNREGISTERING", ACL_ERROR_RT_KERNEL_UNREGISTERING, 507024},
      {"ACL_ERROR_RT_RINGBUFFER_NOT_INIT", ACL_ERROR_RT_RINGBUFFER_NOT_INIT, 507025},
      {"ACL_ERROR_RT_RINGBUFFER_NO_DATA", ACL_ERROR_RT_RINGBUFFER_NO_DATA, 507026},
      {"ACL_ERROR_RT_KERNEL_LOOKUP", ACL_ERROR_RT_KERNEL_LOOKUP, 507027},
      {"ACL_ERROR_RT_KERNEL_DUPLICATE", ACL_ERROR_RT_KERNEL_DUPLICATE, 507028},
      {"ACL_ERROR_RT_DEBUG_REGISTER_FAIL", ACL_ERROR_RT_DEBUG_REGISTER_FAIL, 507029},
      {"ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL", ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL, 507030},
      {"ACL_ERROR_RT_LABEL_CONTEXT", ACL_ERROR_RT_LABEL_CONTEXT, 507031},
      {"ACL_ERROR_RT_PROGRAM_USE_OUT", ACL_ERROR_RT_PROGRAM_USE_OUT, 507032},
      {"ACL_ERROR_RT_DEV_SETUP_ERROR", ACL_ERROR_RT_DEV_SETUP_ERROR, 507033},
      {"ACL_ERROR_RT_VECTOR_CORE_TIMEOUT", ACL_ERROR_RT_VECTOR_CORE_TIMEOUT, 507034},
      {"ACL_ERROR_RT_VECTOR_CORE_EXCEPTION", ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, 507035},
      {"ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION", ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION, 507036},
      {"ACL_ERROR_RT_CDQ_BATCH_ABNORMAL", ACL_ERROR_RT_CDQ_BATCH_ABNORMAL, 507037},
      {"ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR", ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR, 507038},
      {"ACL_ERROR_RT_DIE_SET_ERROR", ACL_ERROR_RT_DIE_SET_ERROR, 507039},
      {"ACL_ERROR_RT_INVALID_DIEID", ACL_ERROR_RT_INVALID_DIEID, 507040},
      {"ACL_ERROR_RT_DIE_MODE_NOT_SET", ACL_ERROR_RT_DIE_MODE_NOT_SET, 507041},
      {"ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW", ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW, 507042},
      {"ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW", ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW, 507043},
      {"ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW", ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW,
       507044},
      {"ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW", ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW,
       507045},
      {"ACL_ERROR_RT_STREAM_SYNC_TIMEOUT", ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046},
      {"ACL_ERROR_RT_EVENT_SYNC_TIMEOUT", ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047},
      {"ACL_ERROR_RT_FFTS_PLUS_TIMEOUT", ACL_ERROR_RT_FFTS_PLUS_TIMEOUT, 507048},
      {"ACL_ERROR_RT_FFTS_PLUS_EXCEPTION", ACL_ERROR_RT_FFTS_PLUS_EXCEPTION, 507049},
      {"ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION", ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION, 507050},
      {"ACL_ERROR_RT_SEND_MSG", ACL_ERROR_RT_SEND_MSG, 507051},
      {"ACL_ERROR_RT_COPY_DATA", ACL_ERROR_RT_COPY_DATA, 507052},
      {"ACL_ERROR_RT_DEVICE_MEM_ERROR", ACL_ERROR_RT_DEVICE_MEM_ERROR, 507053},
      {"ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR", ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR, 507054},
      {"ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR", ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR, 507055},
      {"ACL_ERROR_RT_LINK_ERROR", ACL_ERROR_RT_LINK_ERROR, 507056},
      {"ACL_ERROR_RT_SUSPECT_REMOTE_ERROR", ACL_ERROR_RT_SUSPECT_REMOTE_ERROR, 507057},
      {"ACL_ERROR_RT_DRV_INTERNAL_ERROR", ACL_ERROR_RT_DRV_INTERNAL_ERROR, 507899},
      {"ACL_ERROR_RT_AICPU_INTERNAL_ERROR", ACL_ERROR_RT_AICPU_INTERNAL_ERROR, 507900},
      {"ACL_ERROR_RT_SOCKET_CLOSE", ACL_ERROR_RT_SOCKET_CLOSE, 507901},
      {"ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR", ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR, 507902},
      {"ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED", ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, 507903},
      {"ACL_ERROR_RT_COMM_OP_RETRY_FAIL", ACL_ERROR_RT_COMM_OP_RETRY_FAIL, 507904},
      {"ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT", ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT, 507905},
      {"ACL_ERROR_SNAPSHOT_LOCK_FAILED", ACL_ERROR_SNAPSHOT_LOCK_FAILED, 507906},
      {"ACL_ERROR_SNAPSHOT_UNLOCK_FAILED", ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, 507907},
      {"ACL_ERROR_SNAPSHOT_BACKUP_FAILED", ACL_ERROR_SNAPSHOT_BACKUP_FAILED, 507908},
      {"ACL_ERROR_SNAPSHOT_RESTORE_FAILED", ACL_ERROR_SNAPSHOT_RESTORE_FAILED, 507909},
      {"ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED", ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
       507910},
      {"ACL_ERROR_HOST_MEMORY_NOT_REGISTERED", ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, 507911},
      {"ACL_ERROR_SNAPSHOT_CALLBACK_FAILED", ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, 507912},
      {"ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED", ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED,
       507913},
      {"ACL_ERROR_RT_L3_PORT_ERROR", ACL_ERROR_RT_L3_PORT_ERROR, 507914},
      {"ACL_ERROR_RT_CCU_TIMEOUT", ACL_ERROR_RT_CCU_TIMEOUT, 507915},
      {"ACL_ERROR_RT_CCU_EXCEPTION", ACL_ERROR_RT_CCU_EXCEPTION, 507916},
      {"ACL_ERROR_RT_DEVIDE_OOM", ACL_ERROR_RT_DEVIDE_OOM, 207018},
      {"ACL_ERROR_RT_DEVICE_MTE_ERROR", ACL_ERROR_RT_DEVICE_MTE_ERROR, 507053},
  };
  int failures = 0;
  size_t i;
  for (i = 0; i < sizeof(kCodes) / sizeof(kCodes[0]); ++i) {
    const char* name = RtCodeName((int)kCodes[i].value);
    if (kCodes[i].value != kCodes[i].expected || name == NULL) {
      fprintf(stderr, "%s: %lld, expected %lld\n", kCodes[i].name, kCodes[i].value,
              kCodes[i].expected);
      ++failures;
    }
  }
  // The two older spellings alias current codes.
  failures += ACL_ERROR_RT_DEVIDE_OOM == ACL_ERROR_RT_DEVICE_OOM ? 0 : 1;
  failures += ACL_ERROR_RT_DEVICE_MTE_ERROR == ACL_ERROR_RT_DEVICE_MEM_ERROR ? 0 : 1;
  failures += ACL_RT_SUCCESS == ACL_SUCCESS ? 0 : 1;
  return failures;
}

// ACL and GE codes are `static const` objects: not constant expressions in C, so they are
// compared with `==` (the aggregate has automatic storage, which C99 lets take such values).
static int CheckAclAndGeCodes(void) {
  const KilnCode codes[] = {
      {"ACL_SUCCESS", ACL_SUCCESS, 0},
      {"ACL_ERROR_NONE", ACL_ERROR_NONE, 0},
      {"ACL_ERROR_INVALID_EXCEPTION_INFO", ACL_ERROR_INVALID_EXCEPTION_INFO, -1},
      {"ACL_ERROR_INVALID_PARAM", ACL_ERROR_INVALID_PARAM, 100000},
      {"ACL_ERROR_UNINITIALIZE", ACL_ERROR_UNINITIALIZE, 100001},
      {"ACL_ERROR_REPEAT_INITIALIZE", ACL_ERROR_REPEAT_INITIALIZE, 100002},
      {"ACL_ERROR_INVALID_FILE", ACL_ERROR_INVALID_FILE, 100003},
      {"ACL_ERROR_WRITE_FILE", ACL_ERROR_WRITE_FILE, 100004},
      {"ACL_ERROR_INVALID_FILE_SIZE", ACL_ERROR_INVALID_FILE_SIZE, 100005},
      {"ACL_ERROR_PARSE_FILE", ACL_ERROR_PARSE_FILE, 100006},
      {"ACL_ERROR_FILE_MISSING_ATTR", ACL_ERROR_FILE_MISSING_ATTR, 100007},
      {"ACL_ERROR_FILE_ATTR_INVALID", ACL_ERROR_FILE_ATTR_INVALID, 100008},
      {"ACL_ERROR_INVALID_DUMP_CONFIG", ACL_ERROR_INVALID_DUMP_CONFIG, 100009},
      {"ACL_ERROR_INVALID_PROFILING_CONFIG", ACL_ERROR_INVALID_PROFILING_CONFIG, 100010},
      {"ACL_ERROR_INVALID_MODEL_ID", ACL_ERROR_INVALID_MODEL_ID, 100011},
      {"ACL_ERROR_DESERIALIZE_MODEL", ACL_ERROR_DESERIALIZE_MODEL, 100012},
      {"ACL_ERROR_PARSE_MODEL", ACL_ERROR_PARSE_MODEL, 100013},
      {"ACL_ERROR_READ_MODEL_FAILURE", ACL_ERROR_READ_MODEL_FAILURE, 100014},
      {"ACL_ERROR_MODEL_SIZE_INVALID", ACL_ERROR_MODEL_SIZE_INVALID, 100015},
      {"ACL_ERROR_MODEL_MISSING_ATTR", ACL_ERROR_MODEL_MISSING_ATTR, 100016},
      {"ACL_ERROR_MODEL_INPUT_NOT_MATCH", ACL_ERROR_MODEL_INPUT_NOT_MATCH, 100017},
      {"ACL_ERROR_MODEL_OUTPUT_NOT_MATCH", ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, 100018},
      {"ACL_ERROR_MODEL_NOT_DYNAMIC", ACL_ERROR_MODEL_NOT_DYNAMIC, 100019},
      {"ACL_ERROR_OP_TYPE_NOT_MATCH", ACL_ERROR_OP_TYPE_NOT_MATCH, 100020},
      {"ACL_ERROR_OP_INPUT_NOT_MATCH", ACL_ERROR_OP_INPUT_NOT_MATCH, 100021},
      {"ACL_ERROR_OP_OUTPUT_NOT_MATCH", ACL_ERROR_OP_OUTPUT_NOT_MATCH, 100022},
      {"ACL_ERROR_OP_ATTR_NOT_MATCH", ACL_ERROR_OP_ATTR_NOT_MATCH, 100023},
      {"ACL_ERROR_OP_NOT_FOUND", ACL_ERROR_OP_NOT_FOUND, 100024},
      {"ACL_ERROR_OP_LOAD_FAILED", ACL_ERROR_OP_LOAD_FAILED, 100025},
      {"ACL_ERROR_UNSUPPORTED_DATA_TYPE", ACL_ERROR_UNSUPPORTED_DATA_TYPE, 100026},
      {"ACL_ERROR_FORMAT_NOT_MATCH", ACL_ERROR_FORMAT_NOT_MATCH, 100027},
      {"ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED", ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED, 100028},
      {"ACL_ERROR_KERNEL_NOT_FOUND", ACL_ERROR_KERNEL_NOT_FOUND, 100029},
      {"ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED", ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED,
       100030},
      {"ACL_ERROR_KERNEL_ALREADY_REGISTERED", ACL_ERROR_KERNEL_ALREADY_REGISTERED, 100031},
      {"ACL_ERROR_INVALID_QUEUE_ID", ACL_ERROR_INVALID_QUEUE_ID, 100032},
      {"ACL_ERROR_REPEAT_SUBSCRIBE", ACL_ERROR_REPEAT_SUBSCRIBE, 100033},
      {"ACL_ERROR_STREAM_NOT_SUBSCRIBE", ACL_ERROR_STREAM_NOT_SUBSCRIBE, 100034},
      {"ACL_ERROR_THREAD_NOT_SUBSCRIBE", ACL_ERROR_THREAD_NOT_SUBSCRIBE, 100035},
      {"ACL_ERROR_WAIT_CALLBACK_TIMEOUT", ACL_ERROR_WAIT_CALLBACK_TIMEOUT, 100036},
      {"ACL_ERROR_REPEAT_FINALIZE", ACL_ERROR_REPEAT_FINALIZE, 100037},
      {"ACL_ERROR_NOT_STATIC_AIPP", ACL_ERROR_NOT_STATIC_AIPP, 100038},
      {"ACL_ERROR_COMPILING_STUB_MODE", ACL_ERROR_COMPILING_STUB_MODE, 100039},
      {"ACL_ERROR_GROUP_NOT_SET", ACL_ERROR_GROUP_NOT_SET, 100040},
      {"ACL_ERROR_GROUP_NOT_CREATE", ACL_ERROR_GROUP_NOT_CREATE, 100041},
      {"ACL_ERROR_PROF_ALREADY_RUN", ACL_ERROR_PROF_ALREADY_RUN, 100042},
      {"ACL_ERROR_PROF_NOT_RUN", ACL_ERROR_PROF_NOT_RUN, 100043},
      {"ACL_ERROR_DUMP_ALREADY_RUN", ACL_ERROR_DUMP_ALREADY_RUN, 100044},
      {"ACL_ERROR_DUMP_NOT_RUN", ACL_ERROR_DUMP_NOT_RUN, 100045},
      {"ACL_ERROR_PROF_REPEAT_SUBSCRIBE", ACL_ERROR_PROF_REPEAT_SUBSCRIBE, 148046},
      {"ACL_ERROR_PROF_API_CONFLICT", ACL_ERROR_PROF_API_CONFLICT, 148047},
      {"ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG,
       148048},
      {"ACL_ERROR_INVALID_OPP_PATH", ACL_ERROR_INVALID_OPP_PATH, 148049},
      {"ACL_ERROR_OP_UNSUPPORTED_DYNAMIC", ACL_ERROR_OP_UNSUPPORTED_DYNAMIC, 148050},
      {"ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED", ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED, 148051},
      {"ACL_ERROR_UNSUPPORTED_JPEG", ACL_ERROR_UNSUPPORTED_JPEG, 148052},
      {"ACL_ERROR_INVALID_BUNDLE_MODEL_ID", ACL_ERROR_INVALID_BUNDLE_MODEL_ID, 148053},
      {"ACL_ERROR_BAD_ALLOC", ACL_ERROR_BAD_ALLOC, 200000},
      {"ACL_ERROR_API_NOT_SUPPORT", ACL_ERROR_API_NOT_SUPPORT, 200001},
      {"ACL_ERROR_INVALID_DEVICE", ACL_ERROR_INVALID_DEVICE, 200002},
      {"ACL_ERROR_MEMORY_ADDRESS_UNALIGNED", ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, 200003},
      {"ACL_ERROR_RESOURCE_NOT_MATCH", ACL_ERROR_RESOURCE_NOT_MATCH, 200004},
      {"ACL_ERROR_INVALID_RESOURCE_HANDLE", ACL_ERROR_INVALID_RESOURCE_HANDLE, 200005},
      {"ACL_ERROR_FEATURE_UNSUPPORTED", ACL_ERROR_FEATURE_UNSUPPORTED, 200006},
      {"ACL_ERROR_PROF_MODULES_UNSUPPORTED", ACL_ERROR_PROF_MODULES_UNSUPPORTED, 200007},
      {"ACL_ERROR_STORAGE_OVER_LIMIT", ACL_ERROR_STORAGE_OVER_LIMIT, 300000},
      {"ACL_ERROR_INTERNAL_ERROR", ACL_ERROR_INTERNAL_ERROR, 500000},
      {"ACL_ERROR_FAILURE", ACL_ERROR_FAILURE, 500001},
      {"ACL_ERROR_GE_FAILURE", ACL_ERROR_GE_FAILURE, 500002},
      {"ACL_ERROR_RT_FAILURE", ACL_ERROR_RT_FAILURE, 500003},
      {"ACL_ERROR_DRV_FAILURE", ACL_ERROR_DRV_FAILURE, 500004},
      {"ACL_ERROR_PROFILING_FAILURE", ACL_ERROR_PROFILING_FAILURE, 500005},
      {"ACL_ERROR_GE_PARAM_INVALID", ACL_ERROR_GE_PARAM_INVALID, 145000LL},
      {"ACL_ERROR_GE_EXEC_NOT_INIT", ACL_ERROR_GE_EXEC_NOT_INIT, 145001LL},
      {"ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID", ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID, 145002LL},
      {"ACL_ERROR_GE_EXEC_MODEL_ID_INVALID", ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, 145003LL},
      {"ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID", ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID,
       145006LL},
      {"ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID", ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID, 145007LL},
      {"ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID", ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID,
       145008LL},
      {"ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED", ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED, 145009LL},
      {"ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID", ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID,
       145011LL},
      {"ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID", ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID,
       145012LL},
      {"ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID", ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
       145013LL},
      {"ACL_ERROR_GE_AIPP_BATCH_EMPTY", ACL_ERROR_GE_AIPP_BATCH_EMPTY, 145014LL},
      {"ACL_ERROR_GE_AIPP_NOT_EXIST", ACL_ERROR_GE_AIPP_NOT_EXIST, 145015LL},
      {"ACL_ERROR_GE_AIPP_MODE_INVALID", ACL_ERROR_GE_AIPP_MODE_INVALID, 145016LL},
      {"ACL_ERROR_GE_OP_TASK_TYPE_INVALID", ACL_ERROR_GE_OP_TASK_TYPE_INVALID, 145017LL},
      {"ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID", ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID, 145018LL},
      {"ACL_ERROR_GE_PLGMGR_PATH_INVALID", ACL_ERROR_GE_PLGMGR_PATH_INVALID, 145019LL},
      {"ACL_ERROR_GE_FORMAT_INVALID", ACL_ERROR_GE_FORMAT_INVALID, 145020LL},
      {"ACL_ERROR_GE_SHAPE_INVALID", ACL_ERROR_GE_SHAPE_INVALID, 145021LL},
      {"ACL_ERROR_GE_DATATYPE_INVALID", ACL_ERROR_GE_DATATYPE_INVALID, 145022LL},
      {"ACL_ERROR_GE_MEMORY_ALLOCATION", ACL_ERROR_GE_MEMORY_ALLOCATION, 245000LL},
      {"ACL_ERROR_GE_MEMORY_OPERATE_FAILED", ACL_ERROR_GE_MEMORY_OPERATE_FAILED, 245001LL},
      {"ACL_ERROR_GE_DEVICE_MEMORY_OPERATE_FAILED", ACL_ERROR_GE_DEVICE_MEMORY_OPERATE_FAILED,
       245002LL},
      {"ACL_ERROR_GE_SUBHEALTHY", ACL_ERROR_GE_SUBHEALTHY, 345102LL},
      {"ACL_ERROR_GE_USER_RAISE_EXCEPTION", ACL_ERROR_GE_USER_RAISE_EXCEPTION, 345103LL},
      {"ACL_ERROR_GE_DATA_NOT_ALIGNED", ACL_ERROR_GE_DATA_NOT_ALIGNED, 345104LL},
      {"ACL_ERROR_GE_INTERNAL_ERROR", ACL_ERROR_GE_INTERNAL_ERROR, 545000LL},
      {"ACL_ERROR_GE_LOAD_MODEL", ACL_ERROR_GE_LOAD_MODEL, 545001LL},
      {"ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED",
       ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED, 545002LL},
      {"ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED",
       ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED, 545003LL},
      {"ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED", ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED,
       545004LL},
      {"ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED",
       ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, 545005LL},
      {"ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA", ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA, 545006LL},
      {"ACL_ERROR_GE_COMMAND_HANDLE", ACL_ERROR_GE_COMMAND_HANDLE, 545007LL},
      {"ACL_ERROR_GE_GET_TENSOR_INFO", ACL_ERROR_GE_GET_TENSOR_INFO, 545008LL},
      {"ACL_ERROR_GE_UNLOAD_MODEL", ACL_ERROR_GE_UNLOAD_MODEL, 545009LL},
      {"ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT", ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT, 545601LL},
      {"ACL_ERROR_GE_REDEPLOYING", ACL_ERROR_GE_REDEPLOYING, 545602LL},
  };
  int failures = 0;
  size_t i;
  for (i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i) {
    if (codes[i].value != codes[i].expected) {
      fprintf(stderr, "%s: %lld, expected %lld\n", codes[i].name, codes[i].value,
              codes[i].expected);
      ++failures;
    }
  }
  return failures;
}

// The address of every declared function. The array has external linkage so it survives
// optimisation and the link step must resolve every entry. void (*)(void) is the generic function
// pointer type: casts to it do not trigger -Wcast-function-type.
typedef void (*KilnAnyFunction)(void);
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
const KilnAnyFunction kKilnAclFunctions[] = {
    (KilnAnyFunction)aclFloat16ToFloat,
    (KilnAnyFunction)aclFloatToFloat16,
    (KilnAnyFunction)aclCreateDataBuffer,
    (KilnAnyFunction)aclDestroyDataBuffer,
    (KilnAnyFunction)aclUpdateDataBuffer,
    (KilnAnyFunction)aclGetDataBufferAddr,
    (KilnAnyFunction)aclGetDataBufferSize,
    (KilnAnyFunction)aclGetDataBufferSizeV2,
    (KilnAnyFunction)aclDataTypeSize,
    (KilnAnyFunction)aclCreateTensorDesc,
    (KilnAnyFunction)aclDestroyTensorDesc,
    (KilnAnyFunction)aclSetTensorShapeRange,
    (KilnAnyFunction)aclSetTensorValueRange,
    (KilnAnyFunction)aclGetTensorDescType,
    (KilnAnyFunction)aclGetTensorDescFormat,
    (KilnAnyFunction)aclGetTensorDescSize,
    (KilnAnyFunction)aclGetTensorDescElementCount,
    (KilnAnyFunction)aclGetTensorDescNumDims,
    (KilnAnyFunction)aclGetTensorDescDim,
    (KilnAnyFunction)aclGetTensorDescDimV2,
    (KilnAnyFunction)aclGetTensorDescDimRange,
    (KilnAnyFunction)aclSetTensorDescName,
    (KilnAnyFunction)aclGetTensorDescName,
    (KilnAnyFunction)aclTransTensorDescFormat,
    (KilnAnyFunction)aclSetTensorStorageFormat,
    (KilnAnyFunction)aclSetTensorStorageShape,
    (KilnAnyFunction)aclSetTensorFormat,
    (KilnAnyFunction)aclSetTensorShape,
    (KilnAnyFunction)aclSetTensorOriginFormat,
    (KilnAnyFunction)aclSetTensorOriginShape,
    (KilnAnyFunction)aclGetTensorDescByIndex,
    (KilnAnyFunction)aclGetTensorDescAddress,
    (KilnAnyFunction)aclSetTensorDynamicInput,
    (KilnAnyFunction)aclSetTensorConst,
    (KilnAnyFunction)aclSetTensorPlaceMent,
    (KilnAnyFunction)aclAppLog,
    (KilnAnyFunction)aclrtGetSocName,
    (KilnAnyFunction)aclGetCannAttributeList,
    (KilnAnyFunction)aclGetCannAttribute,
    (KilnAnyFunction)aclGetDeviceCapability,
    (KilnAnyFunction)aclInit,
    (KilnAnyFunction)aclFinalize,
    (KilnAnyFunction)aclFinalizeReference,
    (KilnAnyFunction)aclrtGetVersion,
    (KilnAnyFunction)aclGetRecentErrMsg,
    (KilnAnyFunction)aclsysGetCANNVersion,
    (KilnAnyFunction)aclsysGetVersionStr,
    (KilnAnyFunction)aclsysGetVersionNum,
    (KilnAnyFunction)aclrtPeekAtLastError,
    (KilnAnyFunction)aclrtGetLastError,
    (KilnAnyFunction)aclrtSetDevice,
    (KilnAnyFunction)aclrtResetDevice,
    (KilnAnyFunction)aclrtResetDeviceForce,
    (KilnAnyFunction)aclrtGetDevice,
    (KilnAnyFunction)aclrtGetDeviceCount,
    (KilnAnyFunction)aclrtGetRunMode,
    (KilnAnyFunction)aclrtSynchronizeDevice,
    (KilnAnyFunction)aclrtSynchronizeDeviceWithTimeout,
    (KilnAnyFunction)aclrtSetTsDevice,
    (KilnAnyFunction)aclrtGetDeviceUtilizationRate,
    (KilnAnyFunction)aclrtQueryDeviceStatus,
    (KilnAnyFunction)aclrtDeviceCanAccessPeer,
    (KilnAnyFunction)aclrtDeviceEnablePeerAccess,
    (KilnAnyFunction)aclrtDeviceDisablePeerAccess,
    (KilnAnyFunction)aclrtCreateContext,
    (KilnAnyFunction)aclrtDestroyContext,
    (KilnAnyFunction)aclrtSetCurrentContext,
    (KilnAnyFunction)aclrtGetCurrentContext,
    (KilnAnyFunction)aclrtCtxSetSysParamOpt,
    (KilnAnyFunction)aclrtCtxGetSysParamOpt,
    (KilnAnyFunction)aclrtCreateStream,
    (KilnAnyFunction)aclrtCreateStreamWithConfig,
    (KilnAnyFunction)aclrtDestroyStream,
    (KilnAnyFunction)aclrtDestroyStreamForce,
    (KilnAnyFunction)aclrtSynchronizeStream,
    (KilnAnyFunction)aclrtSynchronizeStreamWithTimeout,
    (KilnAnyFunction)aclrtStreamQuery,
    (KilnAnyFunction)aclrtStreamWaitEvent,
    (KilnAnyFunction)aclrtSetStreamFailureMode,
    (KilnAnyFunction)aclrtCreateEvent,
    (KilnAnyFunction)aclrtCreateEventWithFlag,
    (KilnAnyFunction)aclrtCreateEventExWithFlag,
    (KilnAnyFunction)aclrtDestroyEvent,
    (KilnAnyFunction)aclrtRecordEvent,
    (KilnAnyFunction)aclrtResetEvent,
    (KilnAnyFunction)aclrtQueryEvent,
    (KilnAnyFunction)aclrtQueryEventStatus,
    (KilnAnyFunction)aclrtQueryEventWaitStatus,
    (KilnAnyFunction)aclrtSynchronizeEvent,
    (KilnAnyFunction)aclrtSynchronizeEventWithTimeout,
    (KilnAnyFunction)aclrtEventElapsedTime,
    (KilnAnyFunction)aclrtEventGetTimestamp,
    (KilnAnyFunction)aclrtMalloc,
    (KilnAnyFunction)aclrtMallocAlign32,
    (KilnAnyFunction)aclrtMallocCached,
    (KilnAnyFunction)aclrtMemFlush,
    (KilnAnyFunction)aclrtMemInvalidate,
    (KilnAnyFunction)aclrtFree,
    (KilnAnyFunction)aclrtMallocHost,
    (KilnAnyFunction)aclrtFreeHost,
    (KilnAnyFunction)aclrtMemset,
    (KilnAnyFunction)aclrtMemsetAsync,
    (KilnAnyFunction)aclrtMemcpy,
    (KilnAnyFunction)aclrtMemcpyAsync,
    (KilnAnyFunction)aclrtMemcpy2d,
    (KilnAnyFunction)aclrtMemcpy2dAsync,
    (KilnAnyFunction)aclrtGetMemInfo,
    (KilnAnyFunction)aclrtSubscribeReport,
    (KilnAnyFunction)aclrtUnSubscribeReport,
    (KilnAnyFunction)aclrtProcessReport,
    (KilnAnyFunction)aclrtLaunchCallback,
    (KilnAnyFunction)aclrtLaunchHostFunc,
    (KilnAnyFunction)aclrtSetOpWaitTimeout,
    (KilnAnyFunction)aclrtSetOpExecuteTimeOut,
    (KilnAnyFunction)aclrtSetExceptionInfoCallback,
    (KilnAnyFunction)aclrtGetTaskIdFromExceptionInfo,
    (KilnAnyFunction)aclrtGetStreamIdFromExceptionInfo,
    (KilnAnyFunction)aclrtGetThreadIdFromExceptionInfo,
    (KilnAnyFunction)aclrtGetDeviceIdFromExceptionInfo,
    (KilnAnyFunction)aclrtGetErrorCodeFromExceptionInfo,
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

// Exercises the typedefs and macros a typical application uses; referenced from main but never
// called, so the test has no runtime side effects.
static void CallbackForTest(void* userData) { (void)userData; }
static void HostFuncForTest(void* args) { (void)args; }
static void ExceptionCallbackForTest(aclrtExceptionInfo* info) {
  (void)aclrtGetErrorCodeFromExceptionInfo(info);
}

void KilnTestTypicalUse(void);
void KilnTestTypicalUse(void) {
  aclrtContext context = NULL;
  aclrtStream stream = NULL;
  aclrtEvent event = NULL;
  aclDataBuffer* buffer = NULL;
  aclTensorDesc* desc = NULL;
  aclmdlDataset* dataset = NULL;
  aclmdlDesc* model_desc = NULL;
  aclmdlAIPP* aipp = NULL;
  aclmdlConfigHandle* config = NULL;
  aclmdlExecConfigHandle* exec_config = NULL;
  aclprofConfig* prof_config = NULL;
  aclprofStepInfo* step_info = NULL;
  aclprofSubscribeConfig* subscribe_config = NULL;
  aclrtCallback callback = CallbackForTest;
  aclrtHostFunc host_func = HostFuncForTest;
  aclrtExceptionInfoCallback exception_callback = ExceptionCallbackForTest;
  aclCANNPackageVersion version;
  aclrtUtilizationInfo utilization;
  int64_t dims[2] = {1, 3};
  int64_t ranges[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {3, 3}};
  void* dev = NULL;
  aclError ret;

  (void)dataset;
  (void)model_desc;
  (void)aipp;
  (void)config;
  (void)exec_config;
  (void)prof_config;
  (void)step_info;
  (void)subscribe_config;
  memset(&utilization, 0, sizeof(utilization));
  ret = aclInit(NULL);
  if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE) return;
  ACL_APP_LOG(ACL_INFO, "no arguments");
  ACL_APP_LOG(ACL_ERROR, "init returned %d", ret);
  (void)aclrtSetDevice(0);
  (void)aclrtCreateContext(&context, 0);
  (void)aclrtCreateStream(&stream);
  (void)aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  (void)aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  buffer = aclCreateDataBuffer(dev, 64);
  desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_NCHW);
  (void)aclSetTensorShapeRange(desc, 2, ranges);
  (void)aclrtSetExceptionInfoCallback(exception_callback);
  (void)aclrtSubscribeReport(0, stream);
  (void)aclrtLaunchCallback(callback, NULL, ACL_CALLBACK_BLOCK, stream);
  (void)aclrtLaunchHostFunc(stream, host_func, NULL);
  (void)aclsysGetVersionStr((char*)"runtime", version.version);
  (void)aclrtGetDeviceUtilizationRate(0, &utilization);
  aclDestroyTensorDesc(desc);
  (void)aclDestroyDataBuffer(buffer);
  (void)aclrtFree(dev);
  (void)aclrtDestroyEvent(event);
  (void)aclrtDestroyStream(stream);
  (void)aclrtDestroyContext(context);
  (void)aclrtResetDevice(0);
  (void)aclFinalize();
}

int main(void) {
  int failures = 0;
  size_t i;
  const size_t function_count = sizeof(kKilnAclFunctions) / sizeof(kKilnAclFunctions[0]);
  void (*typical_use)(void) = KilnTestTypicalUse;

  failures += CheckEnums();
  failures += CheckRuntimeCodes();
  failures += CheckAclAndGeCodes();
  failures += (ACL_SUCCESS == 0 && ACL_ERROR_NONE == ACL_SUCCESS) ? 0 : 1;
  failures += ACL_ERROR_INVALID_PARAM == 100000 ? 0 : 1;
  failures += ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID == 145002U ? 0 : 1;
  failures += typical_use != NULL ? 0 : 1;
  if (function_count != 120) {
    fprintf(stderr, "function table has %zu entries, expected 120\n", function_count);
    ++failures;
  }
  for (i = 0; i < function_count; ++i) {
    if (kKilnAclFunctions[i] == NULL) ++failures;
  }
  if (failures != 0) {
    fprintf(stderr, "%d header check(s) failed\n", failures);
    return 1;
  }
  return 0;
}

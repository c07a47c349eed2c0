/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL base definitions: handle typedefs, ACL-layer error codes, data types, formats, and the
 * data-buffer and tensor-descriptor functions.
 *
 * Source-compatible with CANN's acl/acl_base.h (ACL interface 1.17). All functions are thread-safe
 * unless a comment says otherwise; objects created here are owned by the caller until passed to
 * the matching Destroy function.
 */

#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "error_codes/ge_error_codes.h"
#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Kiln builds with hidden default visibility, so the exported API must be marked on GCC and Clang
 * whether or not FUNC_VISIBILITY is defined (CANN only marks it when FUNC_VISIBILITY is set).
 */
#if defined(_MSC_VER)
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __declspec(dllexport)
#else
#define ACL_FUNC_VISIBILITY
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#define ACL_DEPRECATED __declspec(deprecated)
#define ACL_DEPRECATED_MESSAGE(message) __declspec(deprecated(message))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif

/* Handles. A NULL stream means the default stream of the current context. */
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
typedef int aclError;
/* IEEE 754 binary16 bit pattern; convert with aclFloat16ToFloat / aclFloatToFloat16. */
typedef uint16_t aclFloat16;

/* Opaque objects, created and destroyed only through the API. */
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclTensorDesc aclTensorDesc;
typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlAIPP aclmdlAIPP;
typedef struct aclmdlConfigHandle aclmdlConfigHandle;
typedef struct aclmdlExecConfigHandle aclmdlExecConfigHandle;
typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofStepInfo aclprofStepInfo;
typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;

/*
 * ACL-layer error codes. These are `static const int` as in CANN: constant expressions in C++
 * (usable as `case` labels), plain read-only objects in C (compare them with `==`).
 */
static const int ACL_SUCCESS = 0;
/* Deprecated spelling of ACL_SUCCESS. */
static const int ACL_ERROR_NONE = 0;
/* Returned by exception-info getters when the info pointer is not valid. */
static const int ACL_ERROR_INVALID_EXCEPTION_INFO = -1;

/* 1000xx / 1480xx: errors the caller can fix. */
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_WRITE_FILE = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE = 100005;
static const int ACL_ERROR_PARSE_FILE = 100006;
static const int ACL_ERROR_FILE_MISSING_ATTR = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID = 100008;
static const int ACL_ERROR_INVALID_DUMP_CONFIG = 100009;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG = 100010;
static const int ACL_ERROR_INVALID_MODEL_ID = 100011;
static const int ACL_ERROR_DESERIALIZE_MODEL = 100012;
static const int ACL_ERROR_PARSE_MODEL = 100013;
static const int ACL_ERROR_READ_MODEL_FAILURE = 100014;
static const int ACL_ERROR_MODEL_SIZE_INVALID = 100015;
static const int ACL_ERROR_MODEL_MISSING_ATTR = 100016;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC = 100019;
static const int ACL_ERROR_OP_TYPE_NOT_MATCH = 100020;
static const int ACL_ERROR_OP_INPUT_NOT_MATCH = 100021;
static const int ACL_ERROR_OP_OUTPUT_NOT_MATCH = 100022;
static const int ACL_ERROR_OP_ATTR_NOT_MATCH = 100023;
static const int ACL_ERROR_OP_NOT_FOUND = 100024;
static const int ACL_ERROR_OP_LOAD_FAILED = 100025;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026;
static const int ACL_ERROR_FORMAT_NOT_MATCH = 100027;
static const int ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED = 100028;
static const int ACL_ERROR_KERNEL_NOT_FOUND = 100029;
static const int ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED = 100030;
static const int ACL_ERROR_KERNEL_ALREADY_REGISTERED = 100031;
static const int ACL_ERROR_INVALID_QUEUE_ID = 100032;
static const int ACL_ERROR_REPEAT_SUBSCRIBE = 100033;
/* Deprecated: the runtime now returns ACL_ERROR_RT_STREAM_NO_CB_REG. */
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE = 100034;
/* Deprecated: the runtime now returns ACL_ERROR_RT_THREAD_SUBSCRIBE. */
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035;
/* Deprecated: the runtime now returns ACL_ERROR_RT_REPORT_TIMEOUT. */
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
/* Deprecated: the model layer now returns ACL_ERROR_GE_AIPP_NOT_EXIST. */
static const int ACL_ERROR_NOT_STATIC_AIPP = 100038;
static const int ACL_ERROR_COMPILING_STUB_MODE = 100039;
/* Deprecated: the runtime now returns ACL_ERROR_RT_GROUP_NOT_SET. */
static const int ACL_ERROR_GROUP_NOT_SET = 100040;
/* Deprecated: the runtime now returns ACL_ERROR_RT_GROUP_NOT_CREATE. */
static const int ACL_ERROR_GROUP_NOT_CREATE = 100041;
static const int ACL_ERROR_PROF_ALREADY_RUN = 100042;
static const int ACL_ERROR_PROF_NOT_RUN = 100043;
static const int ACL_ERROR_DUMP_ALREADY_RUN = 100044;
static const int ACL_ERROR_DUMP_NOT_RUN = 100045;
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE = 148046;
static const int ACL_ERROR_PROF_API_CONFLICT = 148047;
static const int ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG = 148048;
static const int ACL_ERROR_INVALID_OPP_PATH = 148049;
static const int ACL_ERROR_OP_UNSUPPORTED_DYNAMIC = 148050;
static const int ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED = 148051;
static const int ACL_ERROR_UNSUPPORTED_JPEG = 148052;
static const int ACL_ERROR_INVALID_BUNDLE_MODEL_ID = 148053;

/* 2000xx: resource shortage or an unsupported feature. */
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
/* Deprecated: the runtime now returns ACL_ERROR_RT_INVALID_DEVICEID. */
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED = 200007;

/* 300000: a storage limit was reached. */
static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

/* 50000x: internal failures. Unrecognised internal statuses map to ACL_ERROR_INTERNAL_ERROR. */
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;

/* Number of int64_t values (min, max) per entry of aclSetTensorShapeRange's range array. */
#define ACL_TENSOR_SHAPE_RANGE_NUM 2
/* Number of int64_t values (min, max) per entry of aclSetTensorValueRange's range array. */
#define ACL_TENSOR_VALUE_RANGE_NUM 2
/* aclGetTensorDescNumDims result for a tensor of unknown rank (dims == {-2}). */
#define ACL_UNKNOWN_RANK 0xFFFFFFFFFFFFFFFE

/* Element types. Values are part of the ABI; gaps are unassigned. */
typedef enum aclDataType {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
  ACL_INT4 = 29,
  ACL_UINT1 = 30,
  ACL_COMPLEX32 = 33,
  ACL_HIFLOAT8 = 34,
  ACL_FLOAT8_E5M2 = 35,
  ACL_FLOAT8_E4M3FN = 36,
  ACL_FLOAT8_E8M0 = 37,
  ACL_FLOAT6_E3M2 = 38,
  ACL_FLOAT6_E2M3 = 39,
  ACL_FLOAT4_E2M1 = 40,
  ACL_FLOAT4_E1M2 = 41,
  ACL_HIFLOAT4 = 42,
  ACL_HIFLOAT4_SCALE = 43
} aclDataType;

/* Tensor layouts. Values are part of the ABI; note ACL_FRACTAL_Z_3D has no FORMAT_ infix. */
typedef enum aclFormat {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
  ACL_FORMAT_NC = 35,
  ACL_FORMAT_NCL = 47,
  ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
  ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
  ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
  ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
  ACL_FORMAT_FRACTAL_NZ_C0_8 = 54
} aclFormat;

/* Severity of an application log record written with aclAppLog. */
typedef enum aclLogLevel {
  ACL_DEBUG = 0,
  ACL_INFO = 1,
  ACL_WARNING = 2,
  ACL_ERROR = 3
} aclLogLevel;

/* Where a tensor's data lives (aclSetTensorPlaceMent). */
typedef enum aclMemType {
  ACL_MEMTYPE_DEVICE = 0,
  ACL_MEMTYPE_HOST = 1,
  ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2
} aclMemType;

/* Per-context system options (aclrtCtxSetSysParamOpt / aclrtCtxGetSysParamOpt). */
typedef enum aclSysParamOpt {
  /* 0 off, 1 deterministic, 2 strong consistency, 3 batch consistency. */
  ACL_OPT_DETERMINISTIC = 0,
  ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
  /* Deprecated: set ACL_OPT_DETERMINISTIC to 2 instead. */
  ACL_OPT_STRONG_CONSISTENCY = 2,
  ACL_OPT_ENABLE_KERNEL_EARLY_START = 3
} aclSysParamOpt;

/* Optional CANN capabilities (aclGetCannAttributeList / aclGetCannAttribute). */
typedef enum aclCannAttr {
  ACL_CANN_ATTR_UNDEFINED = -1,
  ACL_CANN_ATTR_INF_NAN = 0,
  ACL_CANN_ATTR_BF16 = 1,
  ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

/* Device capabilities (aclGetDeviceCapability). */
typedef enum aclDeviceInfo {
  ACL_DEVICE_INFO_UNDEFINED = -1,
  ACL_DEVICE_INFO_AI_CORE_NUM = 0,
  ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
  ACL_DEVICE_INFO_L2_SIZE = 2
} aclDeviceInfo;

/**
 * @ingroup AscendCL
 * @brief Widen a half-precision value to float.
 *
 * @param value [IN]  binary16 bit pattern
 *
 * @retval the value as a float
 */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);

/**
 * @ingroup AscendCL
 * @brief Narrow a float to half precision.
 *
 * @param value [IN]  value to convert
 *
 * @retval the converted binary16 bit pattern
 */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/**
 * @ingroup AscendCL
 * @brief Wrap caller-owned memory in a new data buffer.
 *
 * @par Function
 *  The buffer only records the address and size; it never frees the memory. A model output
 *  buffer may be created with (NULL, 0) so that execution allocates the output.
 *
 * @param data [IN]  start of the memory (device memory for model inputs and outputs), may be NULL
 * @param size [IN]  size of the memory in bytes
 *
 * @retval the new buffer, owned by the caller (release with aclDestroyDataBuffer)
 * @retval NULL if memory for the buffer object could not be allocated
 *
 * @see aclDestroyDataBuffer | aclrtMalloc
 */
ACL_FUNC_VISIBILITY aclDataBuffer* aclCreateDataBuffer(void* data, size_t size);

/**
 * @ingroup AscendCL
 * @brief Destroy a data buffer object.
 *
 * @par Function
 *  Frees the wrapper only; the memory it points to stays owned by the caller.
 *
 * @param dataBuffer [IN]  buffer from aclCreateDataBuffer
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (ACL_ERROR_INVALID_PARAM for NULL)
 *
 * @see aclCreateDataBuffer
 */
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer);

/**
 * @ingroup AscendCL
 * @brief Point an existing data buffer at different memory.
 *
 * @par Function
 *  The previously wrapped memory is not freed; fetch it first with aclGetDataBufferAddr if the
 *  caller still needs to release it.
 *
 * @param dataBuffer [OUT]  buffer to update
 * @param data [IN]         new memory, owned by the caller
 * @param size [IN]         size of the new memory in bytes
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (ACL_ERROR_INVALID_PARAM for a NULL buffer)
 */
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data,
                                                 size_t size);

/**
 * @ingroup AscendCL
 * @brief Get the memory address a data buffer wraps.
 *
 * @param dataBuffer [IN]  data buffer
 *
 * @retval the wrapped address; NULL if dataBuffer is NULL
 */
ACL_FUNC_VISIBILITY void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer);

/**
 * @ingroup AscendCL
 * @brief Get the size of a data buffer, truncated to 32 bits.
 *
 * @param dataBuffer [IN]  data buffer
 *
 * @retval size in bytes; 0 if dataBuffer is NULL
 */
ACL_DEPRECATED_MESSAGE("aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead")
ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer);

/**
 * @ingroup AscendCL
 * @brief Get the size of a data buffer.
 *
 * @param dataBuffer [IN]  data buffer
 *
 * @retval size in bytes; 0 if dataBuffer is NULL
 */
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer);

/**
 * @ingroup AscendCL
 * @brief Get the storage size of one element of a data type.
 *
 * @param dataType [IN]  data type
 *
 * @retval bytes per element; 0 for ACL_DT_UNDEFINED and unknown values
 */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/**
 * @ingroup AscendCL
 * @brief Create a tensor descriptor.
 *
 * @param dataType [IN]  element type
 * @param numDims [IN]   number of dimensions; 0 for a scalar
 * @param dims [IN]      numDims extents (-1 marks a dynamic dim, a single -2 an unknown rank);
 *                       may be NULL when numDims is 0
 * @param format [IN]    layout
 *
 * @retval the new descriptor, owned by the caller (release with aclDestroyTensorDesc)
 * @retval NULL if an argument is invalid or memory could not be allocated
 */
ACL_FUNC_VISIBILITY aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims,
                                                       const int64_t* dims, aclFormat format);

/**
 * @ingroup AscendCL
 * @brief Destroy a tensor descriptor. NULL is ignored.
 *
 * @param desc [IN]  descriptor from aclCreateTensorDesc
 */
ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Set the allowed range of every dimension.
 *
 * @param desc [OUT]      tensor descriptor
 * @param dimsCount [IN]  number of rows in dimsRange
 * @param dimsRange [IN]  one {min, max} pair per dimension
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorShapeRange(
    aclTensorDesc* desc, size_t dimsCount, int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]);

/**
 * @ingroup AscendCL
 * @brief Set the range of values the tensor may hold.
 *
 * @param desc [OUT]       tensor descriptor
 * @param valueCount [IN]  number of rows in valueRange
 * @param valueRange [IN]  {min, max} pairs
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorValueRange(
    aclTensorDesc* desc, size_t valueCount, int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM]);

/**
 * @ingroup AscendCL
 * @brief Get the element type of a tensor descriptor.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval the element type; ACL_DT_UNDEFINED if desc is NULL
 */
ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Get the layout of a tensor descriptor.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval the layout; ACL_FORMAT_UNDEFINED if desc is NULL
 */
ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Get the size in bytes of the data a tensor descriptor describes.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval element count times element size; 0 if desc is NULL
 */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescSize(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Get the number of elements a tensor descriptor describes.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval the product of the dims (1 for a scalar); 0 if desc is NULL
 */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescElementCount(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Get the rank of a tensor descriptor.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval the number of dims; 0 if desc is NULL
 * @retval ACL_UNKNOWN_RANK if the rank is unknown (dims == {-2})
 */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Get one dimension of a tensor descriptor.
 *
 * @param desc [IN]   tensor descriptor
 * @param index [IN]  dimension index, from 0
 *
 * @retval the extent of the dimension
 * @retval -1 if desc is NULL or index is out of range
 */
ACL_DEPRECATED_MESSAGE("aclGetTensorDescDim is deprecated, use aclGetTensorDescDimV2 instead")
ACL_FUNC_VISIBILITY int64_t aclGetTensorDescDim(const aclTensorDesc* desc, size_t index);

/**
 * @ingroup AscendCL
 * @brief Get one dimension of a tensor descriptor.
 *
 * @param desc [IN]      tensor descriptor
 * @param index [IN]     dimension index, from 0
 * @param dimSize [OUT]  extent of the dimension (-1 if dynamic)
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (ACL_ERROR_INVALID_PARAM for NULL pointers or a bad index)
 */
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index,
                                                   int64_t* dimSize);

/**
 * @ingroup AscendCL
 * @brief Get the allowed range of one dimension.
 *
 * @param desc [IN]         tensor descriptor
 * @param index [IN]        dimension index, from 0
 * @param dimRangeNum [IN]  number of int64_t slots in dimRange (at least 2)
 * @param dimRange [OUT]    receives {min, max}
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimRange(const aclTensorDesc* desc, size_t index,
                                                      size_t dimRangeNum, int64_t* dimRange);

/**
 * @ingroup AscendCL
 * @brief Set the name of a tensor descriptor (the string is copied).
 *
 * @param desc [OUT]  tensor descriptor; NULL is ignored
 * @param name [IN]   NUL-terminated name
 */
ACL_FUNC_VISIBILITY void aclSetTensorDescName(aclTensorDesc* desc, const char* name);

/**
 * @ingroup AscendCL
 * @brief Get the name of a tensor descriptor.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval the name, owned by the descriptor and valid until it changes or is destroyed
 * @retval "" if desc is NULL or has no name
 */
ACL_FUNC_VISIBILITY const char* aclGetTensorDescName(aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Create a copy of a tensor descriptor converted to another layout.
 *
 * @param srcDesc [IN]    source descriptor (left unchanged)
 * @param dstFormat [IN]  layout of the new descriptor
 * @param dstDesc [OUT]   receives the new descriptor, owned by the caller
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclTransTensorDescFormat(const aclTensorDesc* srcDesc,
                                                      aclFormat dstFormat, aclTensorDesc** dstDesc);

/**
 * @ingroup AscendCL
 * @brief Set the storage layout of a tensor descriptor.
 *
 * @param desc [OUT]   tensor descriptor
 * @param format [IN]  storage layout
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_DEPRECATED_MESSAGE("aclSetTensorStorageFormat is deprecated, use aclSetTensorFormat instead")
ACL_FUNC_VISIBILITY aclError aclSetTensorStorageFormat(aclTensorDesc* desc, aclFormat format);

/**
 * @ingroup AscendCL
 * @brief Set the storage shape of a tensor descriptor.
 *
 * @param desc [OUT]    tensor descriptor
 * @param numDims [IN]  number of dimensions
 * @param dims [IN]     numDims extents
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_DEPRECATED_MESSAGE("aclSetTensorStorageShape is deprecated, use aclSetTensorShape instead")
ACL_FUNC_VISIBILITY aclError aclSetTensorStorageShape(aclTensorDesc* desc, int numDims,
                                                      const int64_t* dims);

/**
 * @ingroup AscendCL
 * @brief Set the layout of a tensor descriptor.
 *
 * @param desc [OUT]   tensor descriptor
 * @param format [IN]  layout
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format);

/**
 * @ingroup AscendCL
 * @brief Set the shape of a tensor descriptor.
 *
 * @param desc [OUT]    tensor descriptor
 * @param numDims [IN]  number of dimensions
 * @param dims [IN]     numDims extents
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorShape(aclTensorDesc* desc, int numDims,
                                               const int64_t* dims);

/**
 * @ingroup AscendCL
 * @brief Set the original (framework-side) layout of a tensor descriptor.
 *
 * @param desc [OUT]   tensor descriptor
 * @param format [IN]  original layout
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorOriginFormat(aclTensorDesc* desc, aclFormat format);

/**
 * @ingroup AscendCL
 * @brief Set the original (framework-side) shape of a tensor descriptor.
 *
 * @param desc [OUT]    tensor descriptor
 * @param numDims [IN]  number of dimensions
 * @param dims [IN]     numDims extents
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorOriginShape(aclTensorDesc* desc, int numDims,
                                                     const int64_t* dims);

/**
 * @ingroup AscendCL
 * @brief Get one element of an array of tensor descriptors.
 *
 * @param desc [IN]   first element of the array
 * @param index [IN]  element index, from 0
 *
 * @retval the descriptor at index, owned by the array
 * @retval NULL if desc is NULL
 */
ACL_FUNC_VISIBILITY aclTensorDesc* aclGetTensorDescByIndex(aclTensorDesc* desc, size_t index);

/**
 * @ingroup AscendCL
 * @brief Get the data address attached to a tensor descriptor.
 *
 * @param desc [IN]  tensor descriptor
 *
 * @retval the address; NULL if desc is NULL or has no data attached
 */
ACL_FUNC_VISIBILITY void* aclGetTensorDescAddress(const aclTensorDesc* desc);

/**
 * @ingroup AscendCL
 * @brief Name the dynamic input group a tensor belongs to.
 *
 * @param desc [OUT]             tensor descriptor
 * @param dynamicInputName [IN]  NUL-terminated group name (copied)
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorDynamicInput(aclTensorDesc* desc,
                                                      const char* dynamicInputName);

/**
 * @ingroup AscendCL
 * @brief Mark a tensor as constant and attach its host data.
 *
 * @param desc [OUT]       tensor descriptor
 * @param dataBuffer [IN]  host memory holding the value (copied)
 * @param length [IN]      size of dataBuffer in bytes
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer,
                                               size_t length);

/**
 * @ingroup AscendCL
 * @brief Say whether a tensor's data is in device or host memory.
 *
 * @param desc [OUT]    tensor descriptor
 * @param memType [IN]  ACL_MEMTYPE_DEVICE, ACL_MEMTYPE_HOST or ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType);

/**
 * @ingroup AscendCL
 * @brief Write an application log record (module APP) to the runtime log.
 *
 * @par Function
 *  Records below the configured log level are dropped. Prefer the ACL_APP_LOG macro, which fills
 *  in func, file and line.
 *
 * @param logLevel [IN]  severity
 * @param func [IN]      calling function name
 * @param file [IN]      source file name
 * @param line [IN]      source line
 * @param fmt [IN]       printf-style format
 * @param ... [IN]       format arguments
 */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char* func, const char* file,
                                   uint32_t line, const char* fmt, ...);

/*
 * ACL_APP_LOG(level, fmt, ...) logs with the caller's function, file and line. Written with a
 * bare `...` so a call with no format arguments is valid ISO C99 / C++11.
 */
#define ACL_APP_LOG(level, ...) aclAppLog((level), __func__, __FILE__, __LINE__, __VA_ARGS__)

/**
 * @ingroup AscendCL
 * @brief Get the name of the SoC the runtime drives.
 *
 * @retval a NUL-terminated string owned by the runtime
 * @retval NULL on failure
 */
ACL_FUNC_VISIBILITY const char* aclrtGetSocName(void);

/**
 * @ingroup AscendCL
 * @brief List the optional CANN attributes this installation supports.
 *
 * @param cannAttrList [OUT]  receives a pointer to a static array owned by the runtime
 * @param num [OUT]           receives the number of entries
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num);

/**
 * @ingroup AscendCL
 * @brief Ask whether one optional CANN attribute is supported.
 *
 * @param cannAttr [IN]  attribute to query
 * @param value [OUT]    1 if supported, 0 if not
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value);

/**
 * @ingroup AscendCL
 * @brief Get one capability value of a device.
 *
 * @param deviceId [IN]    device id
 * @param deviceInfo [IN]  capability to query
 * @param value [OUT]      capability value
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo,
                                                    int64_t* value);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */

/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL model API: load a .om compiled by `kiln atc`, describe its inputs and outputs,
 * build datasets, execute synchronously or on a stream, and select dynamic gears.
 *
 * Source-compatible with CANN's acl/acl_mdl.h for the functions declared here. A model is
 * loaded into the current context's device; model ids are process-wide. Loading refuses files
 * that are not Kiln .om files (a Huawei OM, ONNX, GGUF, TFLite ...) with a message naming the
 * format (docs/capi.md, "Models").
 */

#ifndef INC_EXTERNAL_ACL_ACL_MODEL_H_
#define INC_EXTERNAL_ACL_ACL_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128
#define ACL_DIM_ENDPOINTS 2
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF

#define ACL_MDL_LOAD_FROM_FILE 1
#define ACL_MDL_LOAD_FROM_FILE_WITH_MEM 2
#define ACL_MDL_LOAD_FROM_MEM 3
#define ACL_MDL_LOAD_FROM_MEM_WITH_MEM 4
#define ACL_MDL_LOAD_FROM_FILE_WITH_Q 5
#define ACL_MDL_LOAD_FROM_MEM_WITH_Q 6

#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"
#define ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES "_datadump_original_op_names"

/* A tensor's name and dims; dimCount 0 is a scalar, a dynamic dim is -1. */
typedef struct aclmdlIODims {
  char name[ACL_MAX_TENSOR_NAME_LEN];
  size_t dimCount;
  int64_t dims[ACL_MAX_DIM_CNT];
} aclmdlIODims;

typedef struct aclmdlIODimsRange {
  size_t rangeCount;
  int64_t range[ACL_MAX_DIM_CNT][ACL_DIM_ENDPOINTS];
} aclmdlIODimsRange;

/* The batch sizes of a model compiled with --dynamic_batch_size. */
typedef struct aclmdlBatch {
  size_t batchCount;
  uint64_t batch[ACL_MAX_BATCH_NUM];
} aclmdlBatch;

/* The (height, width) pairs of a model compiled with --dynamic_image_size. */
typedef struct aclmdlHW {
  size_t hwCount;
  uint64_t hw[ACL_MAX_HW_NUM][2];
} aclmdlHW;

/* ---- AIPP (docs/aipp.md) ------------------------------------------------------------------ */

typedef struct aclAippExtendInfo aclAippExtendInfo; /* reserved: always NULL */

/* The image format of an AIPP input (CANN's om numbers). Kiln executes all but NC1HWC0DI_* and
 * RAW*. */
typedef enum {
  ACL_YUV420SP_U8 = 1,
  ACL_XRGB8888_U8,
  ACL_RGB888_U8,
  ACL_YUV400_U8,
  ACL_NC1HWC0DI_FP16,
  ACL_NC1HWC0DI_S8,
  ACL_ARGB8888_U8,
  ACL_YUYV_U8,
  ACL_YUV422SP_U8,
  ACL_AYUV444_U8,
  ACL_RAW10,
  ACL_RAW12,
  ACL_RAW16,
  ACL_RAW24,
  ACL_AIPP_RESERVED = 0xffff,
} aclAippInputFormat;

typedef enum {
  ACL_DATA_WITHOUT_AIPP = 0,
  ACL_DATA_WITH_STATIC_AIPP,
  ACL_DATA_WITH_DYNAMIC_AIPP,
  ACL_DYNAMIC_AIPP_NODE
} aclmdlInputAippType;

/* One shape of an AIPP input: the tensor the model reads (srcDims) and what AIPP hands it. */
typedef struct aclAippDims {
  aclmdlIODims srcDims;
  size_t srcSize;
  aclmdlIODims aippOutdims;
  size_t aippOutSize;
} aclAippDims;

/* A static AIPP configuration as compiled into the model (aclmdlGetFirstAippInfo). */
typedef struct aclAippInfo {
  aclAippInputFormat inputFormat;
  int32_t srcImageSizeW;
  int32_t srcImageSizeH;
  int8_t cropSwitch;
  int32_t loadStartPosW;
  int32_t loadStartPosH;
  int32_t cropSizeW;
  int32_t cropSizeH;
  int8_t resizeSwitch;
  int32_t resizeOutputW;
  int32_t resizeOutputH;
  int8_t paddingSwitch;
  int32_t leftPaddingSize;
  int32_t rightPaddingSize;
  int32_t topPaddingSize;
  int32_t bottomPaddingSize;
  int8_t cscSwitch;
  int8_t rbuvSwapSwitch;
  int8_t axSwapSwitch;
  int8_t singleLineMode;
  int32_t matrixR0C0;
  int32_t matrixR0C1;
  int32_t matrixR0C2;
  int32_t matrixR1C0;
  int32_t matrixR1C1;
  int32_t matrixR1C2;
  int32_t matrixR2C0;
  int32_t matrixR2C1;
  int32_t matrixR2C2;
  int32_t outputBias0;
  int32_t outputBias1;
  int32_t outputBias2;
  int32_t inputBias0;
  int32_t inputBias1;
  int32_t inputBias2;
  int32_t meanChn0;
  int32_t meanChn1;
  int32_t meanChn2;
  int32_t meanChn3;
  float minChn0;
  float minChn1;
  float minChn2;
  float minChn3;
  float varReciChn0;
  float varReciChn1;
  float varReciChn2;
  float varReciChn3;
  aclFormat srcFormat;
  aclDataType srcDatatype;
  size_t srcDimNum;
  size_t shapeCount;
  aclAippDims outDims[ACL_MAX_SHAPE_COUNT];
  aclAippExtendInfo* aippExtend;
} aclAippInfo;

/* ---- Load, query, unload ------------------------------------------------------------------ */

/*
 * Loads the .om at modelPath with runtime-managed work and weight memory. Returns
 * ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID (145002) for a path that cannot be read or an empty
 * file, ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID (145006) for a file that is not a Kiln .om
 * (the message names what it is), ACL_ERROR_GE_LOAD_MODEL (545001) for an .om this runtime
 * cannot run (version, unsupported kernel), ACL_ERROR_RT_MEMORY_ALLOCATION (207001) when the
 * device pool is exhausted.
 */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId);
/* As aclmdlLoadFromFile from a copy of the file in host memory (the runtime keeps its own). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void* model, size_t modelSize,
                                               uint32_t* modelId);
/*
 * As aclmdlLoadFromFile with caller-owned device memory: workPtr/workSize for activations,
 * weightPtr/weightSize for weights (aclmdlQuerySize tells the sizes). A NULL pointer means
 * runtime-managed for that part. The memory must stay valid until aclmdlUnload; work memory
 * may be shared by models executed one after another.
 */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId,
                                                       void* workPtr, size_t workSize,
                                                       void* weightPtr, size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize,
                                                      uint32_t* modelId, void* workPtr,
                                                      size_t workSize, void* weightPtr,
                                                      size_t weightSize);
/* Device bytes the model needs for activations (largest gear) and weights. */
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char* fileName, size_t* workSize,
                                             size_t* weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize,
                                                    size_t* workSize, size_t* weightSize);
/* Unloads; waits for the model's executions in flight. */
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);

/* ---- Model description ------------------------------------------------------------------- */

ACL_FUNC_VISIBILITY aclmdlDesc* aclmdlCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc);
/* Fills modelDesc from a loaded model (a copy: it stays valid after aclmdlUnload). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId);

/* A model compiled with gears has one extra input, ACL_DYNAMIC_TENSOR_NAME, last. */
ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc);
/* Bytes of input/output `index` (the largest gear's for dynamic models); 0 on a bad index. */
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index,
                                                aclmdlIODims* dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index,
                                                  aclmdlIODims* dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index,
                                                 aclmdlIODims* dims);
/* The output's dims in the gear last selected on this model (the largest before any). */
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index,
                                                    aclmdlIODims* dims);
ACL_FUNC_VISIBILITY const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc,
                                                          size_t index);
ACL_FUNC_VISIBILITY const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc,
                                                           size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc,
                                                       const char* name, size_t* index);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputIndexByName(const aclmdlDesc* modelDesc,
                                                        const char* name, size_t* index);

/*
 * The AIPP of input `index` of a loaded model: ACL_DATA_WITH_STATIC_AIPP for an input compiled
 * with a static block of --insert_op_conf (it takes the raw image), ACL_DATA_WITH_DYNAMIC_AIPP
 * for one with a dynamic block (dynamicAttachedDataIndex: its ascend_dynamic_aipp_data input,
 * which is ACL_DYNAMIC_AIPP_NODE), else ACL_DATA_WITHOUT_AIPP; dynamicAttachedDataIndex is
 * ACL_INVALID_NODE_INDEX but for dynamic AIPP. ACL_ERROR_INVALID_PARAM for a NULL pointer or an
 * index past the inputs; the model-id errors of aclmdlGetDesc for an id that is not loaded.
 */
ACL_FUNC_VISIBILITY aclError aclmdlGetAippType(uint32_t modelId, size_t index,
                                               aclmdlInputAippType* type,
                                               size_t* dynamicAttachedDataIndex);
/*
 * The static AIPP configuration of input `index` as the model executes it (defaults resolved),
 * with one outDims entry (the tensor the model reads); for a dynamic AIPP input only srcFormat,
 * srcDatatype, srcDimNum, shapeCount and outDims. ACL_ERROR_GE_AIPP_NOT_EXIST (145015) when the
 * input has no AIPP.
 */
ACL_FUNC_VISIBILITY aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index,
                                                    aclAippInfo* aippInfo);

/*
 * Dynamic AIPP (aipp_mode: dynamic; docs/aipp.md "Dynamic AIPP"): the model has one more input,
 * ascend_dynamic_aipp_data, whose buffer aclmdlSetInputAIPP fills from a parameter set. A set
 * holds one image format, source size, CSC and swaps, and per image (batchIndex < batchSize)
 * crop, padding and normalisation. Setters return ACL_ERROR_INVALID_PARAM (100000) for a NULL
 * or destroyed set, a batchIndex past the set, a switch that is not 0 or 1 or a value out of
 * range; a resize (scfSwitch 1) is ACL_ERROR_FEATURE_UNSUPPORTED. What depends on the image and
 * the model (crop inside the source, crop plus padding equal to the model's H and W, the
 * format's channels) is checked when the model runs, failing it with 100000 naming the image.
 */
ACL_FUNC_VISIBILITY aclmdlAIPP* aclmdlCreateAIPP(uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyAIPP(const aclmdlAIPP* aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t* size);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPInputFormat(aclmdlAIPP* aippParmsSet,
                                                      aclAippInputFormat inputFormat);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCscParams(
    aclmdlAIPP* aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0, int16_t cscMatrixR0C1,
    int16_t cscMatrixR0C2, int16_t cscMatrixR1C0, int16_t cscMatrixR1C1, int16_t cscMatrixR1C2,
    int16_t cscMatrixR2C0, int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
    uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
    uint8_t cscInputBiasR1, uint8_t cscInputBiasR2);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP* aippParmsSet,
                                                         int8_t rbuvSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP* aippParmsSet,
                                                       int8_t axSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP* aippParmsSet,
                                                       int32_t srcImageSizeW,
                                                       int32_t srcImageSizeH);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPScfParams(aclmdlAIPP* aippParmsSet, int8_t scfSwitch,
                                                    int32_t scfInputSizeW, int32_t scfInputSizeH,
                                                    int32_t scfOutputSizeW, int32_t scfOutputSizeH,
                                                    uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCropParams(aclmdlAIPP* aippParmsSet, int8_t cropSwitch,
                                                     int32_t cropStartPosW, int32_t cropStartPosH,
                                                     int32_t cropSizeW, int32_t cropSizeH,
                                                     uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError
aclmdlSetAIPPPaddingParams(aclmdlAIPP* aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
                           int32_t paddingSizeBottom, int32_t paddingSizeLeft,
                           int32_t paddingSizeRight, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMean(
    aclmdlAIPP* aippParmsSet, int16_t dtcPixelMeanChn0, int16_t dtcPixelMeanChn1,
    int16_t dtcPixelMeanChn2, int16_t dtcPixelMeanChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP* aippParmsSet,
                                                      float dtcPixelMinChn0, float dtcPixelMinChn1,
                                                      float dtcPixelMinChn2, float dtcPixelMinChn3,
                                                      uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPixelVarReci(
    aclmdlAIPP* aippParmsSet, float dtcPixelVarReciChn0, float dtcPixelVarReciChn1,
    float dtcPixelVarReciChn2, float dtcPixelVarReciChn3, uint64_t batchIndex);
/* index: the model's ascend_dynamic_aipp_data input. 145012 for a buffer smaller than
 * aclmdlGetAippDataSize(batchSize); 100000 for a set whose batchSize is not the model's N. */
ACL_FUNC_VISIBILITY aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset* dataset,
                                                size_t index, const aclmdlAIPP* aippParmsSet);
/* index: the data input dynamic AIPP feeds; writes its parameter input's buffer. */
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset* dataset,
                                                       size_t index,
                                                       const aclmdlAIPP* aippParmsSet);

/* ---- Gears (dynamic batch, image size, dims) ----------------------------------------------- */

ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch);
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index,
                                                aclmdlHW* hw);
/* index is unused and must be (size_t)-1. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc* modelDesc,
                                                            size_t index, size_t* gearCount);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicDims(const aclmdlDesc* modelDesc, size_t index,
                                                       aclmdlIODims* dims, size_t gearCount);
/*
 * Select the gear for the next execution with `dataset`: index is the ACL_DYNAMIC_TENSOR_NAME
 * input, whose buffer receives the gear values. A value that is not a compiled gear →
 * ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID (145013) for a batch, ACL_ERROR_INVALID_PARAM for
 * HW and dims; batch 0, a
 * missing buffer at index or a NULL buffer address → ACL_ERROR_INVALID_PARAM (100000); a buffer
 * too small for the gear values → ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID (145012); a model
 * compiled without that kind of gear → ACL_ERROR_MODEL_NOT_DYNAMIC (100019).
 */
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset,
                                                       size_t index, uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset,
                                                    size_t index, uint64_t height, uint64_t width);
ACL_FUNC_VISIBILITY aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset* dataset,
                                                       size_t index, const aclmdlIODims* dims);

/* ---- Datasets ------------------------------------------------------------------------------ */

ACL_FUNC_VISIBILITY aclmdlDataset* aclmdlCreateDataset(void);
/* Destroys the dataset (and the tensor descs it owns), not its data buffers. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset* dataset);
/* Appends; the buffer order is the model's input (or output) order. */
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset,
                                                    aclDataBuffer* dataBuffer);
ACL_FUNC_VISIBILITY size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset);
ACL_FUNC_VISIBILITY aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset,
                                                          size_t index);
/*
 * Dynamic shapes: set the real dims of input `index` before executing (the dataset takes a
 * copy); after an execution, the output dataset holds a desc per output with its actual dims.
 */
ACL_FUNC_VISIBILITY aclError aclmdlSetDatasetTensorDesc(aclmdlDataset* dataset,
                                                        aclTensorDesc* tensorDesc, size_t index);
ACL_FUNC_VISIBILITY aclTensorDesc* aclmdlGetDatasetTensorDesc(const aclmdlDataset* dataset,
                                                              size_t index);

/* ---- Execution ----------------------------------------------------------------------------- */

/*
 * Runs the model on the current context's device and returns when its outputs are written.
 * One loaded model may be executed from several threads at once (each execution gets its own
 * workspace). Failures: ACL_ERROR_INVALID_PARAM for datasets that do not match the model
 * (count, size), ACL_ERROR_RT_MODEL_EXECUTE (507011) for a kernel error, the message naming the
 * ONNX node.
 */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input,
                                           aclmdlDataset* output);
/* Enqueues the execution on `stream` (NULL: the default stream); the datasets and their
 * buffers must stay valid until the stream has run it. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input,
                                                aclmdlDataset* output, aclrtStream stream);

/* ---- Data dump ----------------------------------------------------------------------------- */

/*
 * Dump initialisation (after aclInit, before loading the models to dump). With aclmdlSetDump
 * and aclmdlFinalizeDump it writes the selected nodes' tensors to files; the three may be called
 * again in one process with other configs. Failures: ACL_ERROR_UNINITIALIZE without aclInit,
 * ACL_ERROR_DUMP_ALREADY_RUN when acl.json's "dump" block turned dumping on at aclInit,
 * ACL_ERROR_REPEAT_INITIALIZE when called twice without aclmdlFinalizeDump.
 */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
/*
 * Sets the dump config from a JSON file of acl.json's form ({"dump": {"dump_path": DIR,
 * "dump_list": [{"model_name": NAME, "layer": [...]}], "dump_mode": "output", ...}}); it applies
 * to the executions that follow. Failures: ACL_ERROR_UNINITIALIZE, ACL_ERROR_DUMP_ALREADY_RUN,
 * ACL_ERROR_DUMP_NOT_RUN without aclmdlInitDump, ACL_ERROR_INVALID_PARAM for a NULL path,
 * ACL_ERROR_INVALID_FILE / ACL_ERROR_PARSE_FILE for a file that cannot be read or parsed,
 * ACL_ERROR_INVALID_DUMP_CONFIG for a bad key (the message names it).
 */
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char* dumpCfgPath);
/*
 * Ends the dump started by aclmdlInitDump: executions started after it dump nothing; one still
 * running (aclmdlExecuteAsync: synchronize its stream first) writes its files as it ends.
 * Failures: ACL_ERROR_UNINITIALIZE, ACL_ERROR_DUMP_ALREADY_RUN, ACL_ERROR_DUMP_NOT_RUN.
 */
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_MODEL_H_ */

/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL single-operator execution: run one operator on a stream, from a single-op model that
 * `kiln atc --singleop=op_list.json` compiled (aclopSetModelDir / aclopLoad) or that
 * aclopCompile made in this process (acl_op_compiler.h).
 *
 * Source-compatible with CANN's acl/acl_op.h. An execution is matched to a model by its operator
 * type, every input and output desc (data type, format, dims, const value) and its attributes,
 * exactly: nothing is filled in by default (docs/single-ops.md; the operator table is in
 * docs/ops.md, "Single operators"). The functions live in libascendcl.so.
 */

#ifndef INC_EXTERNAL_ACL_ACL_OP_H_
#define INC_EXTERNAL_ACL_ACL_OP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopHandle aclopHandle;
typedef struct aclopAttr aclopAttr;
typedef struct aclopKernelDesc aclopKernelDesc;

typedef void (*aclDataDeallocator)(void* data, size_t length);

static const int ACL_COMPILE_FLAG_BIN_SELECTOR = 1;

typedef enum aclEngineType {
  ACL_ENGINE_SYS,
  ACL_ENGINE_AICORE,
  ACL_ENGINE_VECTOR,
} aclopEngineType;
typedef enum aclEngineType aclEngineType;

/*
 * Reads every single-op model (*.om) under modelDir and up to three levels of sub-folders.
 * Once per process: a second call gives ACL_ERROR_REPEAT_INITIALIZE. A folder that cannot be
 * read gives ACL_ERROR_READ_MODEL_FAILURE; a file that is not a single-op model is skipped.
 */
ACL_FUNC_VISIBILITY aclError aclopSetModelDir(const char* modelDir);
/* Registers one single-op model from memory (the bytes are copied). */
ACL_FUNC_VISIBILITY aclError aclopLoad(const void* model, size_t modelSize);

/* Attributes: a name → typed value map; setting a name again replaces its value. */
ACL_FUNC_VISIBILITY aclopAttr* aclopCreateAttr(void);
ACL_FUNC_VISIBILITY void aclopDestroyAttr(const aclopAttr* attr);
ACL_FUNC_VISIBILITY aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName,
                                              uint8_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName,
                                             int64_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName,
                                               float attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrString(aclopAttr* attr, const char* attrName,
                                                const char* attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName,
                                                  aclDataType attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListDataType(aclopAttr* attr, const char* attrName,
                                                      int numValues, const aclDataType values[]);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName,
                                                  int numValues, const uint8_t* values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName,
                                                 int numValues, const int64_t* values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName,
                                                   int numValues, const float* values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName,
                                                    int numValues, const char** values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListListInt(aclopAttr* attr, const char* attrName,
                                                     int numLists, const int* numValues,
                                                     const int64_t* const values[]);

/*
 * Runs opType on stream. No matching model: ACL_ERROR_OP_NOT_FOUND for an operator type no
 * model has, otherwise ACL_ERROR_OP_INPUT_NOT_MATCH / ACL_ERROR_OP_OUTPUT_NOT_MATCH /
 * ACL_ERROR_OP_ATTR_NOT_MATCH for the first part that differs from the closest model (the message
 * names it). An unused optional input: desc ACL_DT_UNDEFINED / ACL_FORMAT_UNDEFINED, buffer
 * (NULL, 0).
 */
ACL_DEPRECATED_MESSAGE("aclopExecute is deprecated, use aclopExecuteV2 instead")
ACL_FUNC_VISIBILITY aclError aclopExecute(const char* opType, int numInputs,
                                          const aclTensorDesc* const inputDesc[],
                                          const aclDataBuffer* const inputs[], int numOutputs,
                                          const aclTensorDesc* const outputDesc[],
                                          aclDataBuffer* const outputs[], const aclopAttr* attr,
                                          aclrtStream stream);
/* As aclopExecute; the output descs get the outputs' real dims (a dynamic-shape model makes the
 * call wait for its result). */
ACL_FUNC_VISIBILITY aclError aclopExecuteV2(const char* opType, int numInputs,
                                            aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                                            int numOutputs, aclTensorDesc* outputDesc[],
                                            aclDataBuffer* outputs[], aclopAttr* attr,
                                            aclrtStream stream);

/* A handle matches once and then runs with buffers only (static shapes). */
ACL_FUNC_VISIBILITY aclError aclopCreateHandle(const char* opType, int numInputs,
                                               const aclTensorDesc* const inputDesc[],
                                               int numOutputs,
                                               const aclTensorDesc* const outputDesc[],
                                               const aclopAttr* opAttr, aclopHandle** handle);
ACL_FUNC_VISIBILITY void aclopDestroyHandle(aclopHandle* handle);
ACL_FUNC_VISIBILITY aclError aclopExecWithHandle(aclopHandle* handle, int numInputs,
                                                 const aclDataBuffer* const inputs[],
                                                 int numOutputs, aclDataBuffer* const outputs[],
                                                 aclrtStream stream);

/* The operator "Cast" with attr dst_type = dstDesc's data type (and truncate when the loaded Cast
 * models carry it). */
ACL_FUNC_VISIBILITY aclError aclopCast(const aclTensorDesc* srcDesc, const aclDataBuffer* srcBuffer,
                                       const aclTensorDesc* dstDesc, aclDataBuffer* dstBuffer,
                                       uint8_t truncate, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclopCreateHandleForCast(aclTensorDesc* srcDesc,
                                                      aclTensorDesc* dstDesc, uint8_t truncate,
                                                      aclopHandle** handle);

/*
 * Custom kernel binaries (Ascend device code): not supported on Kiln's devices; each returns
 * ACL_ERROR_API_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclopCreateKernel(const char* opType, const char* kernelId,
                                               const char* kernelName, void* binData, int binSize,
                                               aclopEngineType enginetype,
                                               aclDataDeallocator deallocator);
typedef aclError (*aclopCompileFunc)(int numInputs, const aclTensorDesc* const inputDesc[],
                                     int numOutputs, const aclTensorDesc* const outputDesc[],
                                     const aclopAttr* opAttr, aclopKernelDesc* aclopKernelDesc);
ACL_FUNC_VISIBILITY aclError aclopRegisterCompileFunc(const char* opType, aclopCompileFunc func);
ACL_FUNC_VISIBILITY aclError aclopUnregisterCompileFunc(const char* opType);
ACL_FUNC_VISIBILITY aclError aclopSetKernelArgs(aclopKernelDesc* kernelDesc, const char* kernelId,
                                                uint32_t blockDim, const void* args,
                                                uint32_t argSize);
ACL_FUNC_VISIBILITY aclError aclopSetKernelWorkspaceSizes(aclopKernelDesc* kernelDesc,
                                                          int numWorkspaces,
                                                          size_t* workspaceSizes);
ACL_FUNC_VISIBILITY aclError aclopUpdateParams(const char* opType, int numInputs,
                                               const aclTensorDesc* const inputDesc[],
                                               int numOutputs,
                                               const aclTensorDesc* const outputDesc[],
                                               const aclopAttr* attr);
/* Accepted and recorded; Kiln keeps no per-process operator queue to bound. */
ACL_FUNC_VISIBILITY aclError aclopSetMaxOpQueueNum(uint64_t maxOpNum);

/*
 * Fills outputDesc (data type, format, dims; -1 dims with their range where they depend on
 * values it does not have) from the input descs, the values of const inputs and the attributes,
 * by the operator's shape rule; needs no compiled model.
 */
ACL_FUNC_VISIBILITY aclError aclopInferShape(const char* opType, int numInputs,
                                             aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                                             int numOutputs, aclTensorDesc* outputDesc[],
                                             aclopAttr* attr);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_H_ */

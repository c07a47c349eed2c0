/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * Runtime error codes that AscendCL functions pass through unchanged (the CANN "RTS" family).
 *
 * They are plain macros, as in CANN headers from mid-2023 on, so that they are integer constant
 * expressions in C as well as C++ and can label `case`s of a `switch`. Each one is wrapped in
 * `#ifndef` so this header can share a translation unit with another copy of CANN's
 * `rt_error_codes.h` (for instance `runtime/rt_error_codes.h`) without redefinition diagnostics.
 *
 * Numbering: 1xxxxx are errors the caller can fix, 2xxxxx are resource shortages or unsupported
 * features, 5xxxxx are internal failures.
 */

#ifndef INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_

/* success */
#ifndef ACL_RT_SUCCESS
#define ACL_RT_SUCCESS 0
#endif

/* 1xxxxx: caller or environment errors the application can fix. */
/* a parameter is invalid */
#ifndef ACL_ERROR_RT_PARAM_INVALID
#define ACL_ERROR_RT_PARAM_INVALID 107000
#endif
/* the device id is out of range */
#ifndef ACL_ERROR_RT_INVALID_DEVICEID
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#endif
/* no current context; call aclrtSetDevice or aclrtSetCurrentContext */
#ifndef ACL_ERROR_RT_CONTEXT_NULL
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#endif
/* the stream does not belong to the current context */
#ifndef ACL_ERROR_RT_STREAM_CONTEXT
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#endif
/* the model does not belong to the current context */
#ifndef ACL_ERROR_RT_MODEL_CONTEXT
#define ACL_ERROR_RT_MODEL_CONTEXT 107004
#endif
/* the stream is not bound to the model */
#ifndef ACL_ERROR_RT_STREAM_MODEL
#define ACL_ERROR_RT_STREAM_MODEL 107005
#endif
/* the event carries no valid timestamp */
#ifndef ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID 107006
#endif
/* the end event was recorded before the start event */
#ifndef ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL
#define ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL 107007
#endif
/* the memory address is not suitably aligned */
#ifndef ACL_ERROR_RT_ADDR_UNALIGNED
#define ACL_ERROR_RT_ADDR_UNALIGNED 107008
#endif
/* a file could not be opened */
#ifndef ACL_ERROR_RT_FILE_OPEN
#define ACL_ERROR_RT_FILE_OPEN 107009
#endif
/* a file could not be written */
#ifndef ACL_ERROR_RT_FILE_WRITE
#define ACL_ERROR_RT_FILE_WRITE 107010
#endif
/* the stream is already subscribed, or subscription failed */
#ifndef ACL_ERROR_RT_STREAM_SUBSCRIBE
#define ACL_ERROR_RT_STREAM_SUBSCRIBE 107011
#endif
/* the calling thread is not subscribed to any stream */
#ifndef ACL_ERROR_RT_THREAD_SUBSCRIBE
#define ACL_ERROR_RT_THREAD_SUBSCRIBE 107012
#endif
/* no resource group has been set */
#ifndef ACL_ERROR_RT_GROUP_NOT_SET
#define ACL_ERROR_RT_GROUP_NOT_SET 107013
#endif
/* the resource group has not been created */
#ifndef ACL_ERROR_RT_GROUP_NOT_CREATE
#define ACL_ERROR_RT_GROUP_NOT_CREATE 107014
#endif
/* no callback thread is subscribed to the stream */
#ifndef ACL_ERROR_RT_STREAM_NO_CB_REG
#define ACL_ERROR_RT_STREAM_NO_CB_REG 107015
#endif
/* the memory type is invalid */
#ifndef ACL_ERROR_RT_INVALID_MEMORY_TYPE
#define ACL_ERROR_RT_INVALID_MEMORY_TYPE 107016
#endif
/* the handle is invalid */
#ifndef ACL_ERROR_RT_INVALID_HANDLE
#define ACL_ERROR_RT_INVALID_HANDLE 107017
#endif
/* the allocation policy is invalid */
#ifndef ACL_ERROR_RT_INVALID_MALLOC_TYPE
#define ACL_ERROR_RT_INVALID_MALLOC_TYPE 107018
#endif
/* a wait timed out */
#ifndef ACL_ERROR_RT_WAIT_TIMEOUT
#define ACL_ERROR_RT_WAIT_TIMEOUT 107019
#endif
/* a task timed out */
#ifndef ACL_ERROR_RT_TASK_TIMEOUT
#define ACL_ERROR_RT_TASK_TIMEOUT 107020
#endif
/* the system parameter option has never been set */
#ifndef ACL_ERROR_RT_SYSPARAMOPT_NOT_SET
#define ACL_ERROR_RT_SYSPARAMOPT_NOT_SET 107021
#endif
/* tasks on the device are being aborted */
#ifndef ACL_ERROR_RT_DEVICE_TASK_ABORT
#define ACL_ERROR_RT_DEVICE_TASK_ABORT 107022
#endif
/* the stream is being aborted */
#ifndef ACL_ERROR_RT_STREAM_ABORT
#define ACL_ERROR_RT_STREAM_ABORT 107023
#endif
/* a stream-capture dependency is invalid */
#ifndef ACL_ERROR_RT_CAPTURE_DEPENDENCY
#define ACL_ERROR_RT_CAPTURE_DEPENDENCY 107024
#endif
/* a captured stream was not joined back */
#ifndef ACL_ERROR_RT_STREAM_UNJOINED
#define ACL_ERROR_RT_STREAM_UNJOINED 107025
#endif
/* the model is being captured */
#ifndef ACL_ERROR_RT_MODEL_CAPTURED
#define ACL_ERROR_RT_MODEL_CAPTURED 107026
#endif
/* the stream is being captured */
#ifndef ACL_ERROR_RT_STREAM_CAPTURED
#define ACL_ERROR_RT_STREAM_CAPTURED 107027
#endif
/* the event is being captured */
#ifndef ACL_ERROR_RT_EVENT_CAPTURED
#define ACL_ERROR_RT_EVENT_CAPTURED 107028
#endif
/* the stream is not being captured */
#ifndef ACL_ERROR_RT_STREAM_NOT_CAPTURED
#define ACL_ERROR_RT_STREAM_NOT_CAPTURED 107029
#endif
/* the operation is not allowed while capturing */
#ifndef ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
#define ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT 107030
#endif
/* an implicit dependency on the default stream during capture */
#ifndef ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT
#define ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT 107031
#endif
/* streams that depend on each other cannot start capturing together */
#ifndef ACL_ERROR_STREAM_CAPTURE_CONFLICT
#define ACL_ERROR_STREAM_CAPTURE_CONFLICT 107032
#endif
/* the task group is in the wrong state */
#ifndef ACL_ERROR_STREAM_TASK_GROUP_STATUS
#define ACL_ERROR_STREAM_TASK_GROUP_STATUS 107033
#endif
/* the task group was interrupted */
#ifndef ACL_ERROR_STREAM_TASK_GROUP_INTR
#define ACL_ERROR_STREAM_TASK_GROUP_INTR 107034
#endif
/* task abort stopped before post-processing */
#ifndef ACL_ERROR_RT_TASK_ABORT_STOP
#define ACL_ERROR_RT_TASK_ABORT_STOP 107035
#endif
/* capture was not started on this stream */
#ifndef ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED
#define ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED 107036
#endif
/* the model is still running */
#ifndef ACL_ERROR_RT_MODEL_RUNNING
#define ACL_ERROR_RT_MODEL_RUNNING 107037
#endif
/* capture ended on a different thread from the one that began it */
#ifndef ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD
#define ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD 107038
#endif
/* the caller's array is too small */
#ifndef ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY
#define ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY 107039
#endif
/* updating the captured model failed */
#ifndef ACL_ERROR_RT_MODEL_UPDATE_FAILED
#define ACL_ERROR_RT_MODEL_UPDATE_FAILED 107040
#endif
/* an asynchronous call would block while capturing */
#ifndef ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC
#define ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC 107041
#endif
/* the symbol was not found */
#ifndef ACL_ERROR_RT_SYMBOL_NOT_FOUND
#define ACL_ERROR_RT_SYMBOL_NOT_FOUND 107042
#endif
/* the device symbol is invalid */
#ifndef ACL_ERROR_RT_INVALID_SYMBOL
#define ACL_ERROR_RT_INVALID_SYMBOL 107043
#endif
/* the device function is invalid */
#ifndef ACL_ERROR_RT_INVALID_DEVICE_FUNCTION
#define ACL_ERROR_RT_INVALID_DEVICE_FUNCTION 107044
#endif
/* a sub-graph is still being captured */
#ifndef ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING
#define ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING 107045
#endif

/* 2xxxxx: resource shortage or a feature the device does not offer. */
/* the feature is not supported */
#ifndef ACL_ERROR_RT_FEATURE_NOT_SUPPORT
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#endif
/* device memory allocation failed */
#ifndef ACL_ERROR_RT_MEMORY_ALLOCATION
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#endif
/* device memory release failed */
#ifndef ACL_ERROR_RT_MEMORY_FREE
#define ACL_ERROR_RT_MEMORY_FREE 207002
#endif
/* AI Core arithmetic overflow */
#ifndef ACL_ERROR_RT_AICORE_OVER_FLOW
#define ACL_ERROR_RT_AICORE_OVER_FLOW 207003
#endif
/* no device is available */
#ifndef ACL_ERROR_RT_NO_DEVICE
#define ACL_ERROR_RT_NO_DEVICE 207004
#endif
/* a runtime resource could not be allocated */
#ifndef ACL_ERROR_RT_RESOURCE_ALLOC_FAIL
#define ACL_ERROR_RT_RESOURCE_ALLOC_FAIL 207005
#endif
/* permission denied */
#ifndef ACL_ERROR_RT_NO_PERMISSION
#define ACL_ERROR_RT_NO_PERMISSION 207006
#endif
/* no event resources left */
#ifndef ACL_ERROR_RT_NO_EVENT_RESOURCE
#define ACL_ERROR_RT_NO_EVENT_RESOURCE 207007
#endif
/* no stream resources left */
#ifndef ACL_ERROR_RT_NO_STREAM_RESOURCE
#define ACL_ERROR_RT_NO_STREAM_RESOURCE 207008
#endif
/* no notify resources left */
#ifndef ACL_ERROR_RT_NO_NOTIFY_RESOURCE
#define ACL_ERROR_RT_NO_NOTIFY_RESOURCE 207009
#endif
/* no model resources left */
#ifndef ACL_ERROR_RT_NO_MODEL_RESOURCE
#define ACL_ERROR_RT_NO_MODEL_RESOURCE 207010
#endif
/* no CDQ resources left */
#ifndef ACL_ERROR_RT_NO_CDQ_RESOURCE
#define ACL_ERROR_RT_NO_CDQ_RESOURCE 207011
#endif
/* a limit was exceeded */
#ifndef ACL_ERROR_RT_OVER_LIMIT
#define ACL_ERROR_RT_OVER_LIMIT 207012
#endif
/* the queue is empty */
#ifndef ACL_ERROR_RT_QUEUE_EMPTY
#define ACL_ERROR_RT_QUEUE_EMPTY 207013
#endif
/* the queue is full */
#ifndef ACL_ERROR_RT_QUEUE_FULL
#define ACL_ERROR_RT_QUEUE_FULL 207014
#endif
/* already initialised */
#ifndef ACL_ERROR_RT_REPEATED_INIT
#define ACL_ERROR_RT_REPEATED_INIT 207015
#endif
/* AI Vector arithmetic overflow */
#ifndef ACL_ERROR_RT_AIVEC_OVER_FLOW
#define ACL_ERROR_RT_AIVEC_OVER_FLOW 207016
#endif
/* arithmetic overflow */
#ifndef ACL_ERROR_RT_OVER_FLOW
#define ACL_ERROR_RT_OVER_FLOW 207017
#endif
/* the device is out of memory */
#ifndef ACL_ERROR_RT_DEVICE_OOM
#define ACL_ERROR_RT_DEVICE_OOM 207018
#endif
/* this operator cannot be updated */
#ifndef ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP 207019
#endif
/* a driver call timed out */
#ifndef ACL_ERROR_RT_TIMEOUT
#define ACL_ERROR_RT_TIMEOUT 207020
#endif
/* the link type is not supported */
#ifndef ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED
#define ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED 207021
#endif

/* 5xxxxx: internal software or hardware errors. */
/* runtime internal error */
#ifndef ACL_ERROR_RT_INTERNAL_ERROR
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#endif
/* task scheduler internal error */
#ifndef ACL_ERROR_RT_TS_ERROR
#define ACL_ERROR_RT_TS_ERROR 507001
#endif
/* the stream's task queue is full */
#ifndef ACL_ERROR_RT_STREAM_TASK_FULL
#define ACL_ERROR_RT_STREAM_TASK_FULL 507002
#endif
/* the stream's task queue is empty */
#ifndef ACL_ERROR_RT_STREAM_TASK_EMPTY
#define ACL_ERROR_RT_STREAM_TASK_EMPTY 507003
#endif
/* the stream has not completed */
#ifndef ACL_ERROR_RT_STREAM_NOT_COMPLETE
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE 507004
#endif
/* end of sequence */
#ifndef ACL_ERROR_RT_END_OF_SEQUENCE
#define ACL_ERROR_RT_END_OF_SEQUENCE 507005
#endif
/* the event has not completed */
#ifndef ACL_ERROR_RT_EVENT_NOT_COMPLETE
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE 507006
#endif
/* releasing the context failed */
#ifndef ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
#define ACL_ERROR_RT_CONTEXT_RELEASE_ERROR 507007
#endif
/* the SoC version could not be determined or is wrong */
#ifndef ACL_ERROR_RT_SOC_VERSION
#define ACL_ERROR_RT_SOC_VERSION 507008
#endif
/* the task type is not supported */
#ifndef ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT
#define ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT 507009
#endif
/* the task scheduler stopped responding */
#ifndef ACL_ERROR_RT_LOST_HEARTBEAT
#define ACL_ERROR_RT_LOST_HEARTBEAT 507010
#endif
/* model execution failed */
#ifndef ACL_ERROR_RT_MODEL_EXECUTE
#define ACL_ERROR_RT_MODEL_EXECUTE 507011
#endif
/* no callback report arrived within the timeout */
#ifndef ACL_ERROR_RT_REPORT_TIMEOUT
#define ACL_ERROR_RT_REPORT_TIMEOUT 507012
#endif
/* DMA error */
#ifndef ACL_ERROR_RT_SYS_DMA
#define ACL_ERROR_RT_SYS_DMA 507013
#endif
/* an AI Core task timed out */
#ifndef ACL_ERROR_RT_AICORE_TIMEOUT
#define ACL_ERROR_RT_AICORE_TIMEOUT 507014
#endif
/* an AI Core task failed */
#ifndef ACL_ERROR_RT_AICORE_EXCEPTION
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015
#endif
/* an AI Core task trapped */
#ifndef ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
#define ACL_ERROR_RT_AICORE_TRAP_EXCEPTION 507016
#endif
/* an AI CPU task timed out */
#ifndef ACL_ERROR_RT_AICPU_TIMEOUT
#define ACL_ERROR_RT_AICPU_TIMEOUT 507017
#endif
/* an AI CPU task failed */
#ifndef ACL_ERROR_RT_AICPU_EXCEPTION
#define ACL_ERROR_RT_AICPU_EXCEPTION 507018
#endif
/* the AI CPU rejected a data-dump request */
#ifndef ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR
#define ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR 507019
#endif
/* the AI CPU rejected a model request */
#ifndef ACL_ERROR_RT_AICPU_MODEL_RSP_ERR
#define ACL_ERROR_RT_AICPU_MODEL_RSP_ERR 507020
#endif
/* profiling error */
#ifndef ACL_ERROR_RT_PROFILING_ERROR
#define ACL_ERROR_RT_PROFILING_ERROR 507021
#endif
/* inter-process communication error */
#ifndef ACL_ERROR_RT_IPC_ERROR
#define ACL_ERROR_RT_IPC_ERROR 507022
#endif
/* the model was aborted on request */
#ifndef ACL_ERROR_RT_MODEL_ABORT_NORMAL
#define ACL_ERROR_RT_MODEL_ABORT_NORMAL 507023
#endif
/* the kernel is being unregistered */
#ifndef ACL_ERROR_RT_KERNEL_UNREGISTERING
#define ACL_ERROR_RT_KERNEL_UNREGISTERING 507024
#endif
/* the ring buffer is not initialised */
#ifndef ACL_ERROR_RT_RINGBUFFER_NOT_INIT
#define ACL_ERROR_RT_RINGBUFFER_NOT_INIT 507025
#endif
/* the ring buffer holds no data */
#ifndef ACL_ERROR_RT_RINGBUFFER_NO_DATA
#define ACL_ERROR_RT_RINGBUFFER_NO_DATA 507026
#endif
/* kernel lookup failed */
#ifndef ACL_ERROR_RT_KERNEL_LOOKUP
#define ACL_ERROR_RT_KERNEL_LOOKUP 507027
#endif
/* the kernel is registered twice */
#ifndef ACL_ERROR_RT_KERNEL_DUPLICATE
#define ACL_ERROR_RT_KERNEL_DUPLICATE 507028
#endif
/* debug registration failed */
#ifndef ACL_ERROR_RT_DEBUG_REGISTER_FAIL
#define ACL_ERROR_RT_DEBUG_REGISTER_FAIL 507029
#endif
/* debug unregistration failed */
#ifndef ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL
#define ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL 507030
#endif
/* the label does not belong to the current context */
#ifndef ACL_ERROR_RT_LABEL_CONTEXT
#define ACL_ERROR_RT_LABEL_CONTEXT 507031
#endif
/* too many programs are registered */
#ifndef ACL_ERROR_RT_PROGRAM_USE_OUT
#define ACL_ERROR_RT_PROGRAM_USE_OUT 507032
#endif
/* the device failed to start */
#ifndef ACL_ERROR_RT_DEV_SETUP_ERROR
#define ACL_ERROR_RT_DEV_SETUP_ERROR 507033
#endif
/* a Vector Core task timed out */
#ifndef ACL_ERROR_RT_VECTOR_CORE_TIMEOUT
#define ACL_ERROR_RT_VECTOR_CORE_TIMEOUT 507034
#endif
/* a Vector Core task failed */
#ifndef ACL_ERROR_RT_VECTOR_CORE_EXCEPTION
#define ACL_ERROR_RT_VECTOR_CORE_EXCEPTION 507035
#endif
/* a Vector Core task trapped */
#ifndef ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION 507036
#endif
/* CDQ batch allocation failed */
#ifndef ACL_ERROR_RT_CDQ_BATCH_ABNORMAL
#define ACL_ERROR_RT_CDQ_BATCH_ABNORMAL 507037
#endif
/* the die mode cannot be changed */
#ifndef ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR
#define ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR 507038
#endif
/* a die cannot be selected in single-die mode */
#ifndef ACL_ERROR_RT_DIE_SET_ERROR
#define ACL_ERROR_RT_DIE_SET_ERROR 507039
#endif
/* the die id is invalid */
#ifndef ACL_ERROR_RT_INVALID_DIEID
#define ACL_ERROR_RT_INVALID_DIEID 507040
#endif
/* the die mode is not set */
#ifndef ACL_ERROR_RT_DIE_MODE_NOT_SET
#define ACL_ERROR_RT_DIE_MODE_NOT_SET 507041
#endif
/* an AI Core task read out of bounds */
#ifndef ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW
#define ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW 507042
#endif
/* an AI Core task wrote out of bounds */
#ifndef ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW
#define ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW 507043
#endif
/* a Vector Core task read out of bounds */
#ifndef ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW 507044
#endif
/* a Vector Core task wrote out of bounds */
#ifndef ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW 507045
#endif
/* stream synchronisation timed out */
#ifndef ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046
#endif
/* event synchronisation timed out */
#ifndef ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
#define ACL_ERROR_RT_EVENT_SYNC_TIMEOUT 507047
#endif
/* an FFTS+ task timed out */
#ifndef ACL_ERROR_RT_FFTS_PLUS_TIMEOUT
#define ACL_ERROR_RT_FFTS_PLUS_TIMEOUT 507048
#endif
/* an FFTS+ task failed */
#ifndef ACL_ERROR_RT_FFTS_PLUS_EXCEPTION
#define ACL_ERROR_RT_FFTS_PLUS_EXCEPTION 507049
#endif
/* an FFTS+ task trapped */
#ifndef ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION
#define ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION 507050
#endif
/* sending a message to the device failed */
#ifndef ACL_ERROR_RT_SEND_MSG
#define ACL_ERROR_RT_SEND_MSG 507051
#endif
/* copying data failed */
#ifndef ACL_ERROR_RT_COPY_DATA
#define ACL_ERROR_RT_COPY_DATA 507052
#endif
/* uncorrectable device memory error */
#ifndef ACL_ERROR_RT_DEVICE_MEM_ERROR
#define ACL_ERROR_RT_DEVICE_MEM_ERROR 507053
#endif
/* multi-bit ECC error in HBM */
#ifndef ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR
#define ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR 507054
#endif
/* suspected device memory error */
#ifndef ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR
#define ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR 507055
#endif
/* link error */
#ifndef ACL_ERROR_RT_LINK_ERROR
#define ACL_ERROR_RT_LINK_ERROR 507056
#endif
/* suspected error on the remote side */
#ifndef ACL_ERROR_RT_SUSPECT_REMOTE_ERROR
#define ACL_ERROR_RT_SUSPECT_REMOTE_ERROR 507057
#endif
/* driver internal error */
#ifndef ACL_ERROR_RT_DRV_INTERNAL_ERROR
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR 507899
#endif
/* AI CPU internal error */
#ifndef ACL_ERROR_RT_AICPU_INTERNAL_ERROR
#define ACL_ERROR_RT_AICPU_INTERNAL_ERROR 507900
#endif
/* the host-device link was closed */
#ifndef ACL_ERROR_RT_SOCKET_CLOSE
#define ACL_ERROR_RT_SOCKET_CLOSE 507901
#endif
/* the AI CPU rejected an info-load request */
#ifndef ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR
#define ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR 507902
#endif
/* the capture was invalidated */
#ifndef ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED 507903
#endif
/* retrying a collective operation failed */
#ifndef ACL_ERROR_RT_COMM_OP_RETRY_FAIL
#define ACL_ERROR_RT_COMM_OP_RETRY_FAIL 507904
#endif
/* taking the snapshot lock timed out */
#ifndef ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT
#define ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT 507905
#endif
/* taking the snapshot lock failed */
#ifndef ACL_ERROR_SNAPSHOT_LOCK_FAILED
#define ACL_ERROR_SNAPSHOT_LOCK_FAILED 507906
#endif
/* releasing the snapshot lock failed */
#ifndef ACL_ERROR_SNAPSHOT_UNLOCK_FAILED
#define ACL_ERROR_SNAPSHOT_UNLOCK_FAILED 507907
#endif
/* snapshot backup failed */
#ifndef ACL_ERROR_SNAPSHOT_BACKUP_FAILED
#define ACL_ERROR_SNAPSHOT_BACKUP_FAILED 507908
#endif
/* snapshot restore failed */
#ifndef ACL_ERROR_SNAPSHOT_RESTORE_FAILED
#define ACL_ERROR_SNAPSHOT_RESTORE_FAILED 507909
#endif
/* the host memory range is already registered */
#ifndef ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
#define ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED 507910
#endif
/* the host memory range is not registered */
#ifndef ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
#define ACL_ERROR_HOST_MEMORY_NOT_REGISTERED 507911
#endif
/* a snapshot callback failed */
#ifndef ACL_ERROR_SNAPSHOT_CALLBACK_FAILED
#define ACL_ERROR_SNAPSHOT_CALLBACK_FAILED 507912
#endif
/* registering a snapshot callback failed */
#ifndef ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED
#define ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED 507913
#endif
/* L3 port error */
#ifndef ACL_ERROR_RT_L3_PORT_ERROR
#define ACL_ERROR_RT_L3_PORT_ERROR 507914
#endif
/* a CCU task timed out */
#ifndef ACL_ERROR_RT_CCU_TIMEOUT
#define ACL_ERROR_RT_CCU_TIMEOUT 507915
#endif
/* a CCU task failed */
#ifndef ACL_ERROR_RT_CCU_EXCEPTION
#define ACL_ERROR_RT_CCU_EXCEPTION 507916
#endif

/* Older spellings kept so code written against earlier CANN headers still compiles. */
/* misspelt name of ACL_ERROR_RT_DEVICE_OOM in older CANN headers */
#ifndef ACL_ERROR_RT_DEVIDE_OOM
#define ACL_ERROR_RT_DEVIDE_OOM 207018
#endif
/* earlier name of ACL_ERROR_RT_DEVICE_MEM_ERROR */
#ifndef ACL_ERROR_RT_DEVICE_MTE_ERROR
#define ACL_ERROR_RT_DEVICE_MTE_ERROR 507053
#endif

#endif /* INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_ */

/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * CANN's graph-engine status type and codes (graph/ge_error_codes.h), for the GE C++ API Kiln
 * provides (docs/ge-api.md).
 */
#ifndef INC_EXTERNAL_GRAPH_GE_ERROR_CODES_H_
#define INC_EXTERNAL_GRAPH_GE_ERROR_CODES_H_

#include <stdint.h>

#if defined(__GNUC__)
#define GE_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define GE_FUNC_VISIBILITY
#endif

#ifdef __cplusplus
namespace ge {
using graphStatus = uint32_t;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_NOT_CHANGED = 1343242304;
const graphStatus GRAPH_PARAM_INVALID = 50331649;
}  // namespace ge
#endif

#endif /* INC_EXTERNAL_GRAPH_GE_ERROR_CODES_H_ */

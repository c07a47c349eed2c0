// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The option keys of CANN's graph-engine build API (ge/ge_api_types.h, namespace ge::ir_option)
// that Kiln reads (docs/ge-api.md); other keys are accepted and ignored.
#ifndef INC_EXTERNAL_GE_GE_API_TYPES_H_
#define INC_EXTERNAL_GE_GE_API_TYPES_H_

namespace ge {
namespace ir_option {
// aclgrphBuildInitialize
static const char* const SOC_VERSION = "ge.socVersion";
static const char* const PRECISION_MODE = "ge.exec.precision_mode";
static const char* const PRECISION_MODE_V2 = "ge.exec.precision_mode_v2";
static const char* const OP_SELECT_IMPL_MODE = "ge.opSelectImplmode";
static const char* const OPTYPELIST_FOR_IMPLMODE = "ge.optypelistForImplmode";
// aclgrphBuildModel
static const char* const INPUT_SHAPE = "input_shape";
static const char* const INPUT_FORMAT = "input_format";
static const char* const OUT_NODES = "ge.outputNodeName";
}  // namespace ir_option
}  // namespace ge

#endif  // INC_EXTERNAL_GE_GE_API_TYPES_H_

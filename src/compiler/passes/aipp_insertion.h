// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aipp_insertion: static AIPP (--insert_op_conf) as a com.kiln Aipp node in front of the input
// each block names (docs/aipp.md "Execution").
#pragma once

#include <memory>
#include <vector>

#include "compiler/aipp_config.h"
#include "compiler/pass.h"

namespace kiln::compiler {

// Dynamic blocks (one per model): the input becomes the images' bytes, uint8
// [max_src_image_size], and a last model input "ascend_dynamic_aipp_data" (uint8, the block of
// base/aipp.h for the input's N) carries the parameters aclmdlSetInputAIPP writes; a
// com.kiln DynamicAipp node makes the model's tensor from both. It needs a fixed N (at most 127),
// H and W.
// For each static block, the input it names becomes the raw
// uint8 image the block describes — NHWC [N, rows, src_w, c]: YUV420SP_U8 rows = 1.5 * src_h,
// c = 1; YUV400_U8 c = 1; RGB888_U8 c = 3; XRGB8888_U8 c = 4; N as the input had it — and keeps
// its name (what the application binds to); an Aipp node named "<input>_kiln_aipp" computes the
// tensor the model read, "<input>_kiln_aipp", from it. Every default the file left (a source size
// or crop size of 0) is resolved against the input's dims. The configs must have passed
// ValidateAippForModel for this graph. kInvalidParam, naming the block and the input, for an input
// whose type AIPP cannot produce (float32, float16 and uint8 only), csc_switch on a YUV400_U8
// block (one channel), or an input a subgraph reads by name. Checks every block before changing
// the graph.
std::unique_ptr<Pass> CreateAippInsertionPass(std::vector<AippConfig> configs);

}  // namespace kiln::compiler

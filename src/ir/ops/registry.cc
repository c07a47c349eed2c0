// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The one place that registers every op family.
#include "ir/op_schema.h"

namespace kiln::ir {

void RegisterElementwiseOps(OpRegistry& registry);
void RegisterNnOps(OpRegistry& registry);
void RegisterTensorOps(OpRegistry& registry);
void RegisterReduceOps(OpRegistry& registry);
void RegisterControlFlowOps(OpRegistry& registry);
void RegisterFusedOps(OpRegistry& registry);
void RegisterQuantizeOps(OpRegistry& registry);
void RegisterQLinearOps(OpRegistry& registry);
void RegisterAttentionOps(OpRegistry& registry);
void RegisterSamplingOps(OpRegistry& registry);
void RegisterSignalOps(OpRegistry& registry);
void RegisterStateSpaceOps(OpRegistry& registry);
void RegisterImageOps(OpRegistry& registry);

void RegisterAllOps(OpRegistry& registry) {
  RegisterElementwiseOps(registry);
  RegisterNnOps(registry);
  RegisterTensorOps(registry);
  RegisterReduceOps(registry);
  RegisterControlFlowOps(registry);
  RegisterFusedOps(registry);
  RegisterQuantizeOps(registry);
  RegisterQLinearOps(registry);
  RegisterAttentionOps(registry);
  RegisterSamplingOps(registry);
  RegisterSignalOps(registry);
  RegisterStateSpaceOps(registry);
  RegisterImageOps(registry);
}

}  // namespace kiln::ir

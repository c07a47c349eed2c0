// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/reference/families.h"

namespace kiln::kernels {

void RegisterAttentionKernels(KernelRegistry& r) {}

}  // namespace kiln::kernels

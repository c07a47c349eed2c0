// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Giving the pages of host memory back to the system while keeping the address range: a model
// whose kernels keep their weights in packed copies of their own need not keep the originals
// resident (runtime/program.cc).
#pragma once

#include <cstddef>

namespace kiln {

// Releases the whole pages inside [data, data + bytes) of private anonymous memory (a heap or
// mmap block): they stop counting as resident and read back as zeros; writing to them faults in
// fresh pages. The partial pages at either end are kept. Returns the bytes released (0 when the
// range holds no whole page or the system refuses).
size_t DiscardWholePages(void* data, size_t bytes);

}  // namespace kiln

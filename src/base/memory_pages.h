// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Giving the pages of host memory back to the system while keeping the address range: a model
// whose kernels keep their weights in packed copies of their own need not keep the originals
// resident (runtime/program.cc). Asking how much of a block is resident: a scratch arena moves
// onto huge pages once its runs have touched all of it (backends/cpu/kernels/dnnl_common.cc).
#pragma once

#include <cstddef>

namespace kiln {

// Releases the whole pages inside [data, data + bytes) of private anonymous memory (a heap or
// mmap block): they stop counting as resident and read back as zeros; writing to them faults in
// fresh pages. The partial pages at either end are kept. Returns the bytes released (0 when the
// range holds no whole page or the system refuses).
size_t DiscardWholePages(void* data, size_t bytes);

// What of [data, data + bytes) is resident now (mincore), counted two ways: `pages`, the bytes of
// its resident pages; `regions`, the bytes of the `region`-aligned regions of it (2 MiB: a huge
// page's) that hold at least one resident page, what would be resident were each region one
// page. Both 0 when the system cannot say. `region` is a multiple of the page size.
struct Residency {
  size_t pages = 0;
  size_t regions = 0;
};
Residency ResidentBytes(const void* data, size_t bytes, size_t region);

}  // namespace kiln

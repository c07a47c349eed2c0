// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// How the CPU backend's own kernels get vector code without requiring a particular CPU: hot
// leaf loops (plain functions over float pointers, not templates) carry KILN_CPU_CLONES, so GCC
// compiles them for AVX-512, AVX2 and the x86-64 baseline and the loader picks the best the
// machine has (ifunc). Write the loops so GCC vectorises them: unit stride, restrict pointers,
// no calls except inline arithmetic.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define KILN_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KILN_CPU_CLONES
#endif

#define KILN_RESTRICT __restrict__

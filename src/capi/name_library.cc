// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The libraries CANN programs link beside libascendcl.so — libacl_dvpp.so (acldvpp*, aclvdec*,
// aclvenc*), libacl_op_compiler.so (aclopCompile*, aclSetCompileopt), libacl_cblas.so
// (aclblas*) — hold no code of their own: Kiln keeps those functions in libascendcl.so beside the
// streams, memory and models they use. Each is built from this file and linked with
// --no-as-needed against libascendcl.so, so a program that loads it loads them (docs/capi.md,
// "Libraries"). libgraph.so and libfmk_onnx_parser.so are the same for the graph-engine C++ API,
// which lives in libge_compiler.so (docs/ge-api.md).

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// libacl_dvpp.so holds no code of its own: CANN programs link -lacl_dvpp for the acldvpp*
// functions, which Kiln keeps in libascendcl.so beside the streams and memory they use. This
// library is linked with --no-as-needed against libascendcl.so, so a program that loads it
// loads them (docs/dvpp.md, "Linking").

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

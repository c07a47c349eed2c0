// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
// kiln.hpp from the install: device memory round trip through a stream, and an error as
// kiln::AclError.
#include <cstdio>
#include <vector>

#include "kiln/kiln.hpp"

int main() {
  kiln::Runtime runtime;
  kiln::Device device(0);
  kiln::Stream stream;
  std::vector<float> in = {1, 2, 3, 4}, out(4);
  kiln::DeviceBuffer buffer(in.size() * sizeof(float));
  buffer.copy_from(kiln::Span<const float>(in));
  stream.synchronize();
  buffer.copy_to(kiln::Span<float>(out));
  if (out != in) return 1;
  try {
    kiln::Model missing("/no/such.om");
    return 1;
  } catch (const kiln::AclError& e) {
    if (e.code() == 0) return 1;
  }
  std::printf("consumer_cpp: OK\n");
  return 0;
}

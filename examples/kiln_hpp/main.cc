// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// kiln_hpp_classify: a model run through include/kiln/kiln.hpp, the header-only C++17 layer
// (docs/cpp.md) — no handle to release by hand, errors as exceptions.
//
//   kiln_hpp_classify MODEL.om [INPUT.bin]
//
// Feeds INPUT.bin (the model's first input, raw; default: zeros), runs the model on a stream ten
// times, and prints the mean time per run (events) and the top-5 of its first output (float32).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <numeric>
#include <vector>

#include "kiln/kiln.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.om [INPUT.bin]\n", argv[0]);
    return 2;
  }
  try {
    kiln::Runtime runtime;
    kiln::Device device(0);
    kiln::Stream stream;
    kiln::Model model(argv[1]);
    std::vector<char> input(model.input_size(0));
    if (argc > 2) {
      std::ifstream in(argv[2], std::ios::binary);
      std::vector<char> file((std::istreambuf_iterator<char>(in)), {});
      if (file.size() != input.size()) {
        std::fprintf(stderr, "%s has %zu bytes; the model's input takes %zu\n", argv[2],
                     file.size(), input.size());
        return 1;
      }
      input = std::move(file);
    }
    kiln::DeviceBuffer in(model.input_size(0)), out(model.output_size(0));
    in.copy_from(kiln::Span<const char>(input));
    kiln::Event start, end;
    constexpr int kRuns = 10;
    start.record(stream);
    for (int i = 0; i < kRuns; ++i) model.execute({&in}, {&out}, stream);
    end.record(stream);
    stream.synchronize();
    std::vector<float> scores(model.output_size(0) / sizeof(float));
    out.copy_to(kiln::Span<float>(scores));
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min<size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    std::printf("%.3f ms per run; top-%zu:", end.elapsed_since(start) / kRuns, k);
    for (size_t i = 0; i < k; ++i) std::printf(" %zu (%.4f)", order[i], scores[order[i]]);
    std::printf("\n");
    return 0;
  } catch (const kiln::AclError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

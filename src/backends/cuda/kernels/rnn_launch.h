// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA LSTM launcher (rnn.cu), callable from plain C++: one node's run, float32, ONNX
// semantics with the default activations (Sigmoid, Tanh, Tanh).
#pragma once

#include <cstdint>

namespace kiln::cuda {

// One LSTM run: device pointers (null for an omitted optional input or an unused output) and
// dims. Gates are ordered i, o, f, c along W's, R's and B's rows; P's are i, o, f.
struct LstmArgs {
  const float* x = nullptr;       // [seq, batch, input] ([batch, seq, input] batch first)
  const float* w = nullptr;       // [dirs, 4 * hidden, input]
  const float* r = nullptr;       // [dirs, 4 * hidden, hidden]
  const float* bias = nullptr;    // [dirs, 8 * hidden]: W's biases, then R's; or null
  const int32_t* lens = nullptr;  // [batch] sequence lengths; null: every one is seq
  const float* h0 = nullptr;      // initial_h in the states' layout, or null (zeros)
  const float* c0 = nullptr;      // initial_c in the states' layout, or null (zeros)
  const float* p = nullptr;       // [dirs, 3 * hidden] peepholes, or null
  float* y = nullptr;             // [seq, dirs, batch, hidden] ([batch, seq, dirs, hidden])
  float* y_h = nullptr;           // states: [dirs, batch, hidden] ([batch, dirs, hidden])
  float* y_c = nullptr;           // the same layout as y_h
  float* scratch = nullptr;       // LstmScratchFloats(...) floats (none when seq <= 1)
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int64_t dirs = 1;           // 2 for bidirectional (direction 1 the reverse one)
  bool reverse = false;       // direction "reverse"
  bool batch_first = false;   // layout 1
  bool input_forget = false;  // f = 1 - i
  bool has_clip = false;
  float clip = 0;  // gate pre-activations clamped to [-clip, clip] when has_clip
};

// Device scratch a run needs: the hidden and cell states of every (direction, batch row), twice
// (one step reads one copy and writes the other); none for a single step.
inline int64_t LstmScratchFloats(int64_t seq, int64_t dirs, int64_t batch, int64_t hidden) {
  return seq > 1 ? 4 * dirs * batch * hidden : 0;
}

// Enqueues the run on `stream`: one launch per time step (both directions in it), or one fill
// of Y_h and Y_c with zeros for an empty sequence. Sequence lengths outside [0, seq] are clamped
// into it on the device.
int LaunchLstm(const LstmArgs& a, void* stream);

}  // namespace kiln::cuda

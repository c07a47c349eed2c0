// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "hal/host_event.h"
#include "hal/queue.h"

namespace kiln::cuda {

// A stream on a GPU: one host worker thread, with the GPU current on it, runs the queue's items
// in order (docs/cuda.md, decision 3). An item's GPU work has finished when the item returns —
// an execution synchronises its CUDA stream at End, copies and fills are synchronous — so an
// event record completes on the host when the worker reaches it (hal::HostEvent), and a wait
// parks the worker, not a GPU stream. A worker thread per queue, not a shared pool: a GPU item
// blocks its thread while the GPU runs, which must not hold up other streams' items.
class CudaQueue final : public hal::Queue {
 public:
  explicit CudaQueue(int ordinal);
  ~CudaQueue() override;  // drops what has not started, waits for the running item

  void Submit(hal::Work work) override;
  void RecordEvent(std::shared_ptr<hal::Event> event) override;
  void WaitEvent(std::shared_ptr<hal::Event> event) override;
  Status Synchronize(int32_t timeout_ms) override;
  bool Idle() const override;
  void SetStopOnFailure(bool stop) override;
  void DiscardPending() override;

 private:
  using Item = hal::HostQueueItem;
  // What the worker and an event's waiter share; outlives the queue while either holds it.
  struct State {
    std::mutex mu;
    std::condition_variable work_cv;  // items, a completed wait, a discard or the end
    std::condition_variable done_cv;  // finished moved
    std::deque<Item> items;
    uint64_t submitted = 0, finished = 0;
    uint64_t epoch = 0;  // bumped by a discard: a parked wait gives up
    bool stop = false;
    bool stop_on_failure = false, failed = false;
    Status first_error;
  };
  static void Run(std::shared_ptr<State> state, int ordinal);
  void Push(Item item);

  std::shared_ptr<State> state_;
  std::thread worker_;
};

}  // namespace kiln::cuda

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The objects behind the video handles of acl/ops/acl_dvpp.h (stream descriptions, frame
// configs, VDEC and VENC channel descriptions) and the stream a video channel runs on: its
// tasks decode or encode in order, and each result reaches the application's callback on the
// report thread the channel names, before the channel goes on (docs/dvpp.md, "Video").
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "capi/dvpp_objects.h"
#include "runtime/objects.h"

namespace kiln::capi::dvpp {

struct StreamDesc {
  mutable std::mutex mu;
  uint8_t* data = nullptr;
  uint32_t size = 0;
  int format = 0;  // acldvppStreamFormat
  uint64_t timestamp = 0;
  uint32_t ret_code = 0;
  uint8_t eos = 0;
};

struct VdecFrameConfig {};
struct VencFrameConfig {
  uint8_t force_i_frame = 0;
  uint8_t eos = 0;
};

HandleTable<acldvppStreamDesc, StreamDesc>& StreamDescs();

// The pictures VDEC writes and VENC reads: YUV or YVU semi-planar 4:2:0. `what` names the side.
Status CheckVideoPictureFormat(int format, const char* what);
HandleTable<aclvdecFrameConfig, VdecFrameConfig>& VdecFrameConfigs();
HandleTable<aclvencFrameConfig, VencFrameConfig>& VencFrameConfigs();

// The callbacks one task leaves for the report thread, in order.
using Mailbox = std::vector<std::function<void()>>;

// A stream of the current context whose report thread is `thread_id`. Each Submit queues a task
// and, behind it, the hand-over of what the task put in its mailbox: the report thread runs those
// callbacks, and the stream waits for them before its next task, so a callback sees the task's
// results before the next task can touch them. The mailboxes belong to the CallbackStream (a
// hand-over that never runs, because the stream was reset, frees nothing it holds).
class CallbackStream {
 public:
  static Result<std::shared_ptr<CallbackStream>> Open(uint64_t thread_id);
  ~CallbackStream();
  // Queues `work` and its hand-over as one (from any thread); refused once Close has begun.
  Status Submit(std::function<Status(Mailbox&)> work, std::string detail);
  // True on the thread the callbacks run on.
  bool OnReportThread() const;
  // Waits for every task and callback, then ends the subscription and the stream. Refused on
  // the report thread itself, which must stay free to run the callbacks Close waits for.
  Status Close();

 private:
  struct Slot {
    Mailbox box;
    std::atomic<bool> done{false};
  };
  static void RunSlot(void* slot);
  CallbackStream() = default;

  std::mutex mu_;  // Submit's task + hand-over pairs, and the state below
  void* handle_ = nullptr;
  std::shared_ptr<runtime::Stream> stream_;
  uint64_t thread_ = 0;
  bool closed_ = true;                       // until Open has a stream
  std::deque<std::unique_ptr<Slot>> slots_;  // handed over or waiting, oldest first
};

}  // namespace kiln::capi::dvpp

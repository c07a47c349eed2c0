// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The fixed-size record aclprofModelSubscribe writes to the application's pipe, one per
// executed operator, and the aclprofGetOp* functions read back (docs/tools.md, "Model
// subscription"). Names longer than the fields are cut (ACL_PROF_MAX_OP_*_LEN, as CANN's).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace kiln::runtime {

struct SubscriptionRecord {
  static constexpr uint32_t kMagic = 0x4652504B;  // "KPRF"
  uint32_t magic = kMagic;
  uint32_t model_id = 0;
  uint64_t start_us = 0;  // steady clock, µs; 0 when the subscription takes no time info
  uint64_t end_us = 0;
  uint32_t flag = 0;  // aclprofSubscribeOpFlag: ACL_SUBSCRIBE_OP, or _SUBGRAPH in a body
  uint32_t thread = 0;
  char op_type[65] = {};   // ACL_PROF_MAX_OP_TYPE_LEN
  char op_name[257] = {};  // ACL_PROF_MAX_OP_NAME_LEN
  char thread_text[22] = {};
};
static_assert(sizeof(SubscriptionRecord) % 8 == 0, "records stay aligned back to back");

inline SubscriptionRecord MakeSubscriptionRecord(const std::string& op_type,
                                                 const std::string& op_name, uint32_t model_id,
                                                 uint32_t thread, bool in_body) {
  SubscriptionRecord r;
  r.model_id = model_id;
  r.thread = thread;
  r.flag = in_body ? 1 : 0;
  std::strncpy(r.op_type, op_type.c_str(), sizeof r.op_type - 1);
  std::strncpy(r.op_name, op_name.c_str(), sizeof r.op_name - 1);
  std::snprintf(r.thread_text, sizeof r.thread_text, "%u", thread);
  return r;
}

}  // namespace kiln::runtime

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.prof: the profiling API (acl_prof.h) under pyACL's names and return conventions —
// collection (init/create_config/start/stop/finalize), model subscription and the op-record
// getters (op_info is the address of the bytes read from the subscription pipe, e.g.
// acl.util.bytes_to_ptr(data), and its length), msproftx stamps and step info.
#include <string>
#include <tuple>
#include <vector>

#include "acl/acl_prof.h"
#include "python/src/bindings.h"

namespace kiln::python {
namespace {

// The C getters read op_info; an address that is not mapped memory is rejected first.
bool OpInfoMapped(const char* api, uintptr_t info, size_t len) {
  return CheckMapped(api, "op_info", info, len) == ACL_SUCCESS;
}

using TextLenFn = aclError (*)(const void*, size_t, uint32_t, size_t*);
using TextFn = aclError (*)(const void*, size_t, uint32_t, char*, size_t);

template <TextLenFn F>
py::tuple TextLen(const char* api, Ptr info, Size len, U32 index) {
  size_t n = 0;
  if (!OpInfoMapped(api, info, len)) return py::make_tuple(0, ACL_ERROR_INVALID_PARAM);
  aclError ret = F(FromPtr<const void>(info), len, index, &n);
  return py::make_tuple(n, ret);
}

template <TextFn F>
py::tuple Text(const char* api, Ptr info, Size len, U32 index, Size out_len) {
  if (!OpInfoMapped(api, info, len)) return py::make_tuple("", ACL_ERROR_INVALID_PARAM);
  if (static_cast<size_t>(out_len) > (1u << 20)) {
    return py::make_tuple(
        "", Reject(api, "the name length " + std::to_string(out_len) + " is beyond 1 MiB"));
  }
  std::vector<char> buf(static_cast<size_t>(out_len) + 1, '\0');
  aclError ret = F(FromPtr<const void>(info), len, index, buf.data(), out_len);
  return py::make_tuple(ret == ACL_SUCCESS ? std::string(buf.data()) : std::string(), ret);
}

using U64Fn = uint64_t (*)(const void*, size_t, uint32_t);

template <U64Fn F>
uint64_t Number(const char* api, Ptr info, Size len, U32 index) {
  if (!OpInfoMapped(api, info, len)) return 0;
  return F(FromPtr<const void>(info), len, index);
}

}  // namespace

void RegisterProf(py::module_& prof) {
  // Collection.
  prof.def(
      "init", [](const std::string& path) { return aclprofInit(path.c_str(), path.size()); },
      py::arg("profiler_result_path"), "aclprofInit: ret");
  prof.def("finalize", &aclprofFinalize, GIL(), "aclprofFinalize: ret (writes a started run)");
  prof.def(
      "create_config",
      [](std::vector<uint32_t> devices, int aicore_metrics, Ptr aicore_events, U64 data_types) {
        aclprofConfig* c = aclprofCreateConfig(
            devices.empty() ? nullptr : devices.data(), static_cast<uint32_t>(devices.size()),
            static_cast<aclprofAicoreMetrics>(aicore_metrics),
            FromPtr<const aclprofAicoreEvents>(aicore_events), data_types);
        return ToPtr(c);
      },
      py::arg("device_id_list"), py::arg("aicore_metrics"), py::arg("aicore_events"),
      py::arg("data_type_config"), "aclprofCreateConfig: config handle (0 on error)");
  prof.def(
      "destroy_config",
      [](Ptr config) { return aclprofDestroyConfig(FromPtr<const aclprofConfig>(config)); },
      py::arg("prof_config"), "aclprofDestroyConfig: ret");
  prof.def(
      "set_config",
      [](int type, const std::string& value) {
        return aclprofSetConfig(static_cast<aclprofConfigType>(type), value.c_str(), value.size());
      },
      py::arg("config_type"), py::arg("config"), "aclprofSetConfig: ret");
  prof.def(
      "start", [](Ptr config) { return aclprofStart(FromPtr<const aclprofConfig>(config)); },
      py::arg("prof_config"), "aclprofStart: ret");
  prof.def(
      "stop", [](Ptr config) { return aclprofStop(FromPtr<const aclprofConfig>(config)); }, GIL(),
      py::arg("prof_config"), "aclprofStop: ret (writes the run's files)");

  // Model subscription.
  prof.def(
      "create_subscribe_config",
      [](int time_info, int aicore_metrics, int fd) {
        return ToPtr(aclprofCreateSubscribeConfig(static_cast<int8_t>(time_info),
                                                  static_cast<aclprofAicoreMetrics>(aicore_metrics),
                                                  &fd));
      },
      py::arg("time_info_switch"), py::arg("aicore_metrics"), py::arg("fd"),
      "aclprofCreateSubscribeConfig (fd: the pipe's write end): handle (0 on error)");
  prof.def(
      "destroy_subscribe_config",
      [](Ptr config) {
        return aclprofDestroySubscribeConfig(FromPtr<const aclprofSubscribeConfig>(config));
      },
      py::arg("prof_subscribe_config"), "aclprofDestroySubscribeConfig: ret");
  prof.def(
      "model_subscribe",
      [](U32 model_id, Ptr config) {
        return aclprofModelSubscribe(model_id, FromPtr<const aclprofSubscribeConfig>(config));
      },
      py::arg("model_id"), py::arg("prof_subscribe_config"), "aclprofModelSubscribe: ret");
  prof.def(
      "model_un_subscribe", [](U32 model_id) { return aclprofModelUnSubscribe(model_id); }, GIL(),
      py::arg("model_id"), "aclprofModelUnSubscribe: ret");
  prof.def(
      "get_op_desc_size",
      [] {
        size_t n = 0;
        aclError ret = aclprofGetOpDescSize(&n);
        return std::make_tuple(n, ret);
      },
      "aclprofGetOpDescSize: (size, ret)");
  prof.def(
      "get_op_num",
      [](Ptr info, Size len) {
        uint32_t n = 0;
        if (!OpInfoMapped("acl.prof.get_op_num", info, len)) {
          return std::make_tuple(n, static_cast<aclError>(ACL_ERROR_INVALID_PARAM));
        }
        aclError ret = aclprofGetOpNum(FromPtr<const void>(info), len, &n);
        return std::make_tuple(n, ret);
      },
      py::arg("op_info"), py::arg("op_info_len"), "aclprofGetOpNum: (op_number, ret)");
  prof.def(
      "get_op_type_len",
      [](Ptr info, Size len, U32 index) {
        return TextLen<aclprofGetOpTypeLen>("acl.prof.get_op_type_len", info, len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"),
      "aclprofGetOpTypeLen: (length with the NUL, ret)");
  prof.def(
      "get_op_type",
      [](Ptr info, Size len, U32 index, Size type_len) {
        return Text<aclprofGetOpType>("acl.prof.get_op_type", info, len, index, type_len);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"), py::arg("op_type_len"),
      "aclprofGetOpType: (op_type, ret)");
  prof.def(
      "get_op_name_len",
      [](Ptr info, Size len, U32 index) {
        return TextLen<aclprofGetOpNameLen>("acl.prof.get_op_name_len", info, len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"),
      "aclprofGetOpNameLen: (length with the NUL, ret)");
  prof.def(
      "get_op_name",
      [](Ptr info, Size len, U32 index, Size name_len) {
        return Text<aclprofGetOpName>("acl.prof.get_op_name", info, len, index, name_len);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"), py::arg("op_name_len"),
      "aclprofGetOpName: (op_name, ret)");
  prof.def(
      "get_op_start",
      [](Ptr info, Size len, U32 index) {
        return Number<aclprofGetOpStart>("acl.prof.get_op_start", info, len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"),
      "aclprofGetOpStart: start time in us (0 on error)");
  prof.def(
      "get_op_end",
      [](Ptr info, Size len, U32 index) {
        return Number<aclprofGetOpEnd>("acl.prof.get_op_end", info, len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"),
      "aclprofGetOpEnd: end time in us (0 on error)");
  prof.def(
      "get_op_duration",
      [](Ptr info, Size len, U32 index) {
        return Number<aclprofGetOpDuration>("acl.prof.get_op_duration", info, len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"),
      "aclprofGetOpDuration: duration in us (0 on error)");
  prof.def(
      "get_model_id",
      [](Ptr info, Size len, U32 index) -> size_t {
        if (!OpInfoMapped("acl.prof.get_model_id", info, len)) return 0;
        return aclprofGetModelId(FromPtr<const void>(info), len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"), "aclprofGetModelId: int");
  prof.def(
      "get_op_flag",
      [](Ptr info, Size len, U32 index) -> int {
        if (!OpInfoMapped("acl.prof.get_op_flag", info, len)) return ACL_SUBSCRIBE_NONE;
        return aclprofGetOpFlag(FromPtr<const void>(info), len, index);
      },
      py::arg("op_info"), py::arg("op_info_len"), py::arg("index"), "aclprofGetOpFlag: int");

  // msproftx.
  prof.def(
      "create_stamp", [] { return ToPtr(aclprofCreateStamp()); },
      "aclprofCreateStamp: stamp handle (0 on error)");
  prof.def(
      "destroy_stamp", [](Ptr stamp) { aclprofDestroyStamp(FromPtr<void>(stamp)); },
      py::arg("stamp"), "aclprofDestroyStamp: None");
  prof.def(
      "set_stamp_trace_message",
      [](Ptr stamp, const std::string& msg, U32 msg_len) {
        // The C function stops at msg_len bytes or the NUL the string ends with.
        return aclprofSetStampTraceMessage(FromPtr<void>(stamp), msg.c_str(), msg_len);
      },
      py::arg("stamp"), py::arg("msg"), py::arg("msg_len"), "aclprofSetStampTraceMessage: ret");
  prof.def(
      "mark", [](Ptr stamp) { return aclprofMark(FromPtr<void>(stamp)); }, py::arg("stamp"),
      "aclprofMark: ret");
  prof.def(
      "push", [](Ptr stamp) { return aclprofPush(FromPtr<void>(stamp)); }, py::arg("stamp"),
      "aclprofPush: ret");
  prof.def("pop", &aclprofPop, "aclprofPop: ret");
  prof.def(
      "range_start",
      [](Ptr stamp) {
        uint32_t id = 0;
        aclError ret = aclprofRangeStart(FromPtr<void>(stamp), &id);
        return std::make_tuple(id, ret);
      },
      py::arg("stamp"), "aclprofRangeStart: (range_id, ret)");
  prof.def(
      "range_stop", [](U32 id) { return aclprofRangeStop(id); }, py::arg("range_id"),
      "aclprofRangeStop: ret");

  // Step info.
  prof.def(
      "create_step_info", [] { return ToPtr(aclprofCreateStepInfo()); },
      "aclprofCreateStepInfo: handle (0 on error)");
  prof.def(
      "get_step_timestamp",
      [](Ptr info, int tag, Ptr stream) {
        return aclprofGetStepTimestamp(FromPtr<aclprofStepInfo>(info),
                                       static_cast<aclprofStepTag>(tag), FromPtr<void>(stream));
      },
      py::arg("step_info"), py::arg("tag"), py::arg("stream"), "aclprofGetStepTimestamp: ret");
  prof.def(
      "destroy_step_info", [](Ptr info) { aclprofDestroyStepInfo(FromPtr<aclprofStepInfo>(info)); },
      py::arg("step_info"), "aclprofDestroyStepInfo: None");
}

}  // namespace kiln::python

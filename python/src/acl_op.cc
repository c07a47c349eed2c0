// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.op: single-operator execution (acl/acl_op.h) as pyACL spells it: single-op models
// (set_model_dir, load), attributes, execute / execute_v2, handles, cast, infer_shape and the
// custom-kernel group. Descs, buffers, attributes and handles are ints; lists of descs and of
// buffers are lists of ints, and the counts the C library gets are the buffer lists' lengths (a
// desc list of another length is refused here, where pyACL would let the C library read past
// it). On a CPU device every buffer's memory is checked to be mapped before the runtime reads or
// writes it, as acl.mdl.execute checks its datasets. Loads, executions, handle and shape calls
// release the GIL.
#include <climits>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "python/src/bindings.h"

namespace kiln::python {
namespace {

using U8 = Masked<uint8_t>;  // pyACL's "B" (bools, truncate)

// A list of handles as the C arrays take them, with a NULL after the last entry, so that an
// empty list is a valid array too (as pyACL builds them).
template <typename T>
std::vector<T*> Array(const std::vector<Ptr>& list) {
  std::vector<T*> out;
  out.reserve(list.size() + 1);
  for (Ptr p : list) out.push_back(FromPtr<T>(p));
  out.push_back(nullptr);
  return out;
}

int Count(size_t n) { return n > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(n); }

// A desc list and its buffer list must pair up: the C library reads as many descs as there are
// buffers.
aclError CheckPairs(const char* api, const char* descs, size_t num_descs, const char* buffers,
                    size_t num_buffers) {
  if (num_descs == num_buffers) return ACL_SUCCESS;
  return Reject(api, std::string(descs) + " has " + std::to_string(num_descs) + " entries but " +
                         buffers + " has " + std::to_string(num_buffers));
}

// On a CPU device (device memory is host memory) the memory of every buffer must be mapped
// before the runtime touches it. NULL and dead handles are left to the C library's own code.
aclError CheckBuffers(const char* api, const char* what, const std::vector<Ptr>& buffers) {
  if (!DeviceMemoryIsHost()) return ACL_SUCCESS;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] == 0) continue;
    if (aclError e = CheckBufferMapped(api, what, i, FromPtr<aclDataBuffer>(buffers[i]));
        e != ACL_SUCCESS) {
      return e;
    }
  }
  return ACL_SUCCESS;
}

// The checks of execute / execute_v2: desc lists that pair up with their buffer lists, and
// mapped buffer memory.
aclError CheckExecute(const char* api, const std::vector<Ptr>& input_desc,
                      const std::vector<Ptr>& inputs, const std::vector<Ptr>& output_desc,
                      const std::vector<Ptr>& outputs) {
  aclError ret = CheckPairs(api, "input_desc", input_desc.size(), "inputs", inputs.size());
  if (ret == ACL_SUCCESS) {
    ret = CheckPairs(api, "output_desc", output_desc.size(), "outputs", outputs.size());
  }
  if (ret == ACL_SUCCESS) ret = CheckBuffers(api, "input", inputs);
  if (ret == ACL_SUCCESS) ret = CheckBuffers(api, "output", outputs);
  return ret;
}

// numpy.ndarray, looked up when first needed (numpy is optional for the module).
bool IsNdarray(const py::handle& obj) {
  py::module_ sys = py::module_::import("sys");
  py::dict modules = sys.attr("modules");
  if (!modules.contains("numpy")) return false;  // no array can exist without numpy loaded
  return py::isinstance(obj, modules["numpy"].attr("ndarray"));
}

// The values of a list attribute: a list (or tuple) of numbers, or, with pyACL's warning, a numpy
// array (converted by value, whatever its dtype; pyACL reinterprets its memory).
template <typename T>
std::vector<T> ListValues(const char* api, py::handle values, const char* what) {
  py::object seq = py::reinterpret_borrow<py::object>(values);
  if (IsNdarray(values)) {
    if (PyErr_WarnEx(PyExc_Warning, "argument 3 only support the format of list in the future.",
                     1) != 0) {
      throw py::error_already_set();
    }
    seq = seq.attr("ravel")().attr("tolist")();
  }
  if (!py::isinstance<py::list>(seq) && !py::isinstance<py::tuple>(seq)) {
    throw py::type_error(std::string(api) + ": values must be a list of " + what);
  }
  try {
    return seq.cast<std::vector<T>>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(api) + ": values must be a list of " + what);
  }
}

// set_attr_list_bool / list_int / list_float(attr, name, values) -> ret.
template <typename T, typename C, aclError (*F)(aclopAttr*, const char*, int, const C*)>
void DefListSetter(py::module_& m, const char* name, const char* api, const char* what) {
  m.def(
      name,
      [api, what](Ptr attr, std::string attr_name, py::object values) {
        std::vector<T> list = ListValues<T>(api, values, what);
        std::vector<C> c_values(list.begin(), list.end());
        c_values.emplace_back();  // never an empty array
        return F(FromPtr<aclopAttr>(attr), attr_name.c_str(), Count(list.size()), c_values.data());
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("values"));
}

// The Python functions of register_compile_func by operator type (guarded by the GIL), and the
// one update_params is running on this thread: the C library calls the compile function back
// from inside aclopUpdateParams, without the operator type.
auto& g_compile_funcs = *new std::map<std::string, py::object>();  // never destroyed
thread_local PyObject* tls_compile_func = nullptr;

aclError CompileFuncTrampoline(int num_inputs, const aclTensorDesc* const input_desc[],
                               int num_outputs, const aclTensorDesc* const output_desc[],
                               const aclopAttr* attr, aclopKernelDesc* kernel_desc) {
  PyObject* func = tls_compile_func;
  if (func == nullptr || MustNotEnterPython()) return ACL_SUCCESS;  // as pyACL: nothing to call
  aclError ret = ACL_SUCCESS;
  WithGil([&] {
    py::object f = py::reinterpret_borrow<py::object>(func);
    try {
      py::list inputs, outputs;
      for (int i = 0; i < num_inputs; ++i) inputs.append(ToPtr(input_desc[i]));
      for (int i = 0; i < num_outputs; ++i) outputs.append(ToPtr(output_desc[i]));
      f(num_inputs, inputs, num_outputs, outputs, ToPtr(attr), ToPtr(kernel_desc));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("acl.op compile function");
      ret = ACL_ERROR_FAILURE;
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      PyErr_WriteUnraisable(f.ptr());
      ret = ACL_ERROR_FAILURE;
    }
  });
  return ret;
}

// create_kernel's deallocator (pyACL's): device memory freed as the run mode allocates it.
void FreeKernelBinary(void* data, size_t /*length*/) {
  if (data == nullptr) return;
  aclrtRunMode mode = ACL_DEVICE;
  if (aclrtGetRunMode(&mode) != ACL_SUCCESS) return;
  if (mode == ACL_DEVICE) {
    aclrtFree(data);
  } else {
    aclrtFreeHost(data);
  }
}

void RegisterModelsAndAttrs(py::module_& m) {
  m.def(
      "set_model_dir",
      [](std::string dir) {
        ReleaseGil release;
        return aclopSetModelDir(dir.c_str());
      },
      py::arg("model_dir"), "aclopSetModelDir: ret (once per process)");
  m.def(
      "load",
      [](Ptr model, Size size) {
        if (aclError e = CheckMapped("acl.op.load", "model", model, size)) return e;
        ReleaseGil release;
        return aclopLoad(FromPtr(model), size);
      },
      py::arg("model"), py::arg("model_size"), "aclopLoad: ret; model is host memory");

  m.def(
      "create_attr", [] { return ToPtr(aclopCreateAttr()); },
      "aclopCreateAttr: attr (0 on failure)");
  m.def(
      "destroy_attr", [](Ptr attr) { aclopDestroyAttr(FromPtr<aclopAttr>(attr)); }, py::arg("attr"),
      "aclopDestroyAttr: None");
  m.def(
      "set_attr_bool",
      [](Ptr attr, std::string name, U8 value) {
        return aclopSetAttrBool(FromPtr<aclopAttr>(attr), name.c_str(), value);
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("attr_value"));
  m.def(
      "set_attr_int",
      [](Ptr attr, std::string name, int64_t value) {
        return aclopSetAttrInt(FromPtr<aclopAttr>(attr), name.c_str(), value);
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("attr_value"));
  m.def(
      "set_attr_float",
      [](Ptr attr, std::string name, float value) {
        return aclopSetAttrFloat(FromPtr<aclopAttr>(attr), name.c_str(), value);
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("attr_value"));
  m.def(
      "set_attr_string",
      [](Ptr attr, std::string name, std::string value) {
        return aclopSetAttrString(FromPtr<aclopAttr>(attr), name.c_str(), value.c_str());
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("attr_value"));
  DefListSetter<U8, uint8_t, &aclopSetAttrListBool>(m, "set_attr_list_bool",
                                                    "acl.op.set_attr_list_bool", "bools (ints)");
  DefListSetter<int64_t, int64_t, &aclopSetAttrListInt>(m, "set_attr_list_int",
                                                        "acl.op.set_attr_list_int", "ints");
  DefListSetter<float, float, &aclopSetAttrListFloat>(m, "set_attr_list_float",
                                                      "acl.op.set_attr_list_float", "floats");
  m.def(
      "set_attr_list_string",
      [](Ptr attr, std::string name, std::vector<std::string> values) {
        std::vector<const char*> c_values;
        for (const auto& v : values) c_values.push_back(v.c_str());
        c_values.push_back(nullptr);
        return aclopSetAttrListString(FromPtr<aclopAttr>(attr), name.c_str(), Count(values.size()),
                                      c_values.data());
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("values"));
  m.def(
      "set_attr_list_list_int",
      [](Ptr attr, std::string name, py::object values) {
        const char* api = "acl.op.set_attr_list_list_int";
        if (!py::isinstance<py::list>(values) && !py::isinstance<py::tuple>(values)) {
          throw py::type_error(std::string(api) + ": values must be a list of lists of ints");
        }
        std::vector<std::vector<int64_t>> lists;
        for (py::handle item : values) {
          lists.push_back(ListValues<int64_t>(api, item, "lists of ints"));
        }
        std::vector<int> counts;
        std::vector<const int64_t*> rows;
        for (auto& l : lists) {
          counts.push_back(Count(l.size()));
          l.emplace_back();  // never an empty array
          rows.push_back(l.data());
        }
        counts.push_back(0);
        rows.push_back(nullptr);
        return aclopSetAttrListListInt(FromPtr<aclopAttr>(attr), name.c_str(), Count(lists.size()),
                                       counts.data(), rows.data());
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("values"));
  m.def(
      "set_attr_data_type",
      [](Ptr attr, std::string name, int dtype) {
        aclError ret = aclopSetAttrDataType(FromPtr<aclopAttr>(attr), name.c_str(),
                                            static_cast<aclDataType>(dtype));
        return std::make_tuple(attr.value, ret);
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("attr_value"),
      "aclopSetAttrDataType: (attr, ret)");
  m.def(
      "set_attr_list_data_type",
      [](Ptr attr, std::string name, std::vector<int> values) {
        std::vector<aclDataType> c_values;
        for (int v : values) c_values.push_back(static_cast<aclDataType>(v));
        c_values.push_back(ACL_DT_UNDEFINED);  // never an empty array
        aclError ret = aclopSetAttrListDataType(FromPtr<aclopAttr>(attr), name.c_str(),
                                                Count(values.size()), c_values.data());
        return std::make_tuple(attr.value, ret);
      },
      py::arg("attr"), py::arg("attr_name"), py::arg("values"),
      "aclopSetAttrListDataType: (attr, ret)");
}

void RegisterExecution(py::module_& m) {
  m.def(
      "execute",
      [](std::string op_type, std::vector<Ptr> input_desc, std::vector<Ptr> inputs,
         std::vector<Ptr> output_desc, std::vector<Ptr> outputs, Ptr attr, Ptr stream) {
        if (aclError e = CheckExecute("acl.op.execute", input_desc, inputs, output_desc, outputs)) {
          return e;
        }
        auto in_desc = Array<const aclTensorDesc>(input_desc);
        auto in_bufs = Array<const aclDataBuffer>(inputs);
        auto out_desc = Array<const aclTensorDesc>(output_desc);
        auto out_bufs = Array<aclDataBuffer>(outputs);
        ReleaseGil release;
        return aclopExecute(op_type.c_str(), Count(inputs.size()), in_desc.data(), in_bufs.data(),
                            Count(outputs.size()), out_desc.data(), out_bufs.data(),
                            FromPtr<const aclopAttr>(attr), FromPtr(stream));
      },
      py::arg("op_type"), py::arg("input_desc"), py::arg("inputs"), py::arg("output_desc"),
      py::arg("outputs"), py::arg("attr"), py::arg("stream"), "aclopExecute (deprecated): ret");
  m.def(
      "execute_v2",
      [](std::string op_type, std::vector<Ptr> input_desc, std::vector<Ptr> inputs,
         std::vector<Ptr> output_desc, std::vector<Ptr> outputs, Ptr attr, Ptr stream) {
        if (aclError e =
                CheckExecute("acl.op.execute_v2", input_desc, inputs, output_desc, outputs)) {
          return e;
        }
        auto in_desc = Array<aclTensorDesc>(input_desc);
        auto in_bufs = Array<aclDataBuffer>(inputs);
        auto out_desc = Array<aclTensorDesc>(output_desc);
        auto out_bufs = Array<aclDataBuffer>(outputs);
        ReleaseGil release;
        return aclopExecuteV2(op_type.c_str(), Count(inputs.size()), in_desc.data(), in_bufs.data(),
                              Count(outputs.size()), out_desc.data(), out_bufs.data(),
                              FromPtr<aclopAttr>(attr), FromPtr(stream));
      },
      py::arg("op_type"), py::arg("input_desc"), py::arg("inputs"), py::arg("output_desc"),
      py::arg("outputs"), py::arg("attr"), py::arg("stream"),
      "aclopExecuteV2: ret; the output descs get the outputs' dims");
  m.def(
      "create_handle",
      [](std::string op_type, std::vector<Ptr> input_desc, std::vector<Ptr> output_desc, Ptr attr) {
        auto in_desc = Array<const aclTensorDesc>(input_desc);
        auto out_desc = Array<const aclTensorDesc>(output_desc);
        aclopHandle* handle = nullptr;
        aclError ret;
        {
          ReleaseGil release;
          ret = aclopCreateHandle(op_type.c_str(), Count(input_desc.size()), in_desc.data(),
                                  Count(output_desc.size()), out_desc.data(),
                                  FromPtr<const aclopAttr>(attr), &handle);
        }
        return std::make_tuple(ToPtr(handle), ret);
      },
      py::arg("op_type"), py::arg("input_desc"), py::arg("output_desc"), py::arg("attr"),
      "aclopCreateHandle: (handle, ret)");
  m.def(
      "destroy_handle", [](Ptr handle) { aclopDestroyHandle(FromPtr<aclopHandle>(handle)); }, GIL(),
      py::arg("handle"), "aclopDestroyHandle: None");
  m.def(
      "execute_with_handle",
      [](Ptr handle, std::vector<Ptr> inputs, std::vector<Ptr> outputs, Ptr stream) {
        const char* api = "acl.op.execute_with_handle";
        if (aclError e = CheckBuffers(api, "input", inputs)) return e;
        if (aclError e = CheckBuffers(api, "output", outputs)) return e;
        auto in_bufs = Array<const aclDataBuffer>(inputs);
        auto out_bufs = Array<aclDataBuffer>(outputs);
        ReleaseGil release;
        return aclopExecWithHandle(FromPtr<aclopHandle>(handle), Count(inputs.size()),
                                   in_bufs.data(), Count(outputs.size()), out_bufs.data(),
                                   FromPtr(stream));
      },
      py::arg("handle"), py::arg("inputs"), py::arg("outputs"), py::arg("stream"),
      "aclopExecWithHandle: ret");
  m.def(
      "cast",
      [](Ptr src_desc, Ptr src_buffer, Ptr dst_desc, Ptr dst_buffer, U8 truncate, Ptr stream) {
        const char* api = "acl.op.cast";
        if (aclError e = CheckBuffers(api, "source", {src_buffer})) return e;
        if (aclError e = CheckBuffers(api, "destination", {dst_buffer})) return e;
        ReleaseGil release;
        return aclopCast(FromPtr<const aclTensorDesc>(src_desc),
                         FromPtr<const aclDataBuffer>(src_buffer),
                         FromPtr<const aclTensorDesc>(dst_desc), FromPtr<aclDataBuffer>(dst_buffer),
                         truncate, FromPtr(stream));
      },
      py::arg("src_desc"), py::arg("src_buffer"), py::arg("dst_desc"), py::arg("dst_buffer"),
      py::arg("truncate"), py::arg("stream"), "aclopCast: ret");
  m.def(
      "create_handle_for_cast",
      [](Ptr src_desc, Ptr dst_desc, U8 truncate) {
        aclopHandle* handle = nullptr;
        aclError ret;
        {
          ReleaseGil release;
          ret = aclopCreateHandleForCast(FromPtr<aclTensorDesc>(src_desc),
                                         FromPtr<aclTensorDesc>(dst_desc), truncate, &handle);
        }
        return std::make_tuple(ToPtr(handle), ret);
      },
      py::arg("src_desc"), py::arg("dst_desc"), py::arg("truncate"),
      "aclopCreateHandleForCast: (handle, ret)");
  m.def(
      "infer_shape",
      [](std::string op_type, std::vector<Ptr> input_desc, std::vector<Ptr> inputs, int num_outputs,
         std::vector<Ptr> output_desc, Ptr attr) {
        const char* api = "acl.op.infer_shape";
        if (aclError e =
                CheckPairs(api, "input_desc", input_desc.size(), "inputs", inputs.size())) {
          return e;
        }
        if (num_outputs > 0 && static_cast<size_t>(num_outputs) > output_desc.size()) {
          return Reject(api, "num_outputs " + std::to_string(num_outputs) +
                                 " but output_desc has " + std::to_string(output_desc.size()) +
                                 " entries");
        }
        if (aclError e = CheckBuffers(api, "input", inputs)) return e;
        auto in_desc = Array<aclTensorDesc>(input_desc);
        auto in_bufs = Array<aclDataBuffer>(inputs);
        auto out_desc = Array<aclTensorDesc>(output_desc);
        ReleaseGil release;
        return aclopInferShape(op_type.c_str(), Count(inputs.size()), in_desc.data(),
                               in_bufs.data(), num_outputs, out_desc.data(),
                               FromPtr<aclopAttr>(attr));
      },
      py::arg("op_type"), py::arg("input_desc"), py::arg("inputs"), py::arg("num_outputs"),
      py::arg("output_desc"), py::arg("attr"),
      "aclopInferShape: ret; fills the output descs in place");
  m.def(
      "set_max_op_queue_num", [](U64 n) { return aclopSetMaxOpQueueNum(n); }, py::arg("max_op_num"),
      "aclopSetMaxOpQueueNum: ret");
}

// The custom-kernel group (Ascend kernel binaries), with pyACL's arguments.
void RegisterKernels(py::module_& m) {
  m.def(
      "register_compile_func",
      [](std::string op_type, py::object func) {
        if (!PyCallable_Check(func.ptr())) {
          throw py::type_error("acl.op.register_compile_func: func must be callable");
        }
        aclError ret = aclopRegisterCompileFunc(op_type.c_str(), &CompileFuncTrampoline);
        if (ret == ACL_SUCCESS) g_compile_funcs[op_type] = func;
        return ret;
      },
      py::arg("op_type"), py::arg("func"),
      "aclopRegisterCompileFunc: ret; func(num_inputs, input_desc, num_outputs, output_desc, "
      "attr, kernel_desc) is called during update_params");
  m.def(
      "unregister_compile_func",
      [](std::string op_type) {
        g_compile_funcs.erase(op_type);
        return aclopUnregisterCompileFunc(op_type.c_str());
      },
      py::arg("op_type"), "aclopUnregisterCompileFunc: ret");
  m.def(
      "create_kernel",
      [](std::string op_type, std::string kernel_id, std::string kernel_name, Ptr bin_data,
         int bin_size, int engine_type, int deallocator) {
        if (bin_size > 0 && DeviceMemoryIsHost()) {
          aclError e = CheckMapped("acl.op.create_kernel", "bin_data", bin_data,
                                   static_cast<size_t>(bin_size));
          if (e != ACL_SUCCESS) return e;
        }
        return aclopCreateKernel(op_type.c_str(), kernel_id.c_str(), kernel_name.c_str(),
                                 FromPtr(bin_data), bin_size,
                                 static_cast<aclopEngineType>(engine_type),
                                 deallocator != 0 ? &FreeKernelBinary : nullptr);
      },
      py::arg("op_type"), py::arg("kernel_id"), py::arg("kernel_name"), py::arg("bin_data"),
      py::arg("bin_size"), py::arg("engine_type"), py::arg("deallocator"),
      "aclopCreateKernel: ret; deallocator != 0 frees bin_data with acl.rt.free / free_host");
  m.def(
      "set_kernel_args",
      [](Ptr kernel_desc, std::string kernel_id, U32 block_dim, Ptr args, U32 arg_size) {
        if (aclError e = CheckMapped("acl.op.set_kernel_args", "args", args, arg_size)) return e;
        return aclopSetKernelArgs(FromPtr<aclopKernelDesc>(kernel_desc), kernel_id.c_str(),
                                  block_dim, FromPtr(args), arg_size);
      },
      py::arg("kernel_desc"), py::arg("kernel_id"), py::arg("block_dim"), py::arg("args"),
      py::arg("arg_size"), "aclopSetKernelArgs: ret");
  m.def(
      "set_kernel_workspace_sizes",
      [](Ptr kernel_desc, int num_workspaces, Ptr workspace_sizes) {
        if (num_workspaces > 0) {
          aclError e =
              CheckMapped("acl.op.set_kernel_workspace_sizes", "workspace_sizes", workspace_sizes,
                          static_cast<size_t>(num_workspaces) * sizeof(size_t));
          if (e != ACL_SUCCESS) return e;
        }
        return aclopSetKernelWorkspaceSizes(FromPtr<aclopKernelDesc>(kernel_desc), num_workspaces,
                                            FromPtr<size_t>(workspace_sizes));
      },
      py::arg("kernel_desc"), py::arg("num_workspaces"), py::arg("workspace_sizes"),
      "aclopSetKernelWorkspaceSizes: ret; workspace_sizes is the address of num_workspaces "
      "size_t values");
  m.def(
      "update_params",
      [](std::string op_type, std::vector<Ptr> input_desc, std::vector<Ptr> output_desc, Ptr attr) {
        auto in_desc = Array<const aclTensorDesc>(input_desc);
        auto out_desc = Array<const aclTensorDesc>(output_desc);
        // The function registered for op_type, kept alive for the call.
        py::object func;
        auto it = g_compile_funcs.find(op_type);
        if (it != g_compile_funcs.end()) func = it->second;
        PyObject* previous = tls_compile_func;
        tls_compile_func = func ? func.ptr() : nullptr;
        aclError ret;
        {
          ReleaseGil release;
          ret = aclopUpdateParams(op_type.c_str(), Count(input_desc.size()), in_desc.data(),
                                  Count(output_desc.size()), out_desc.data(),
                                  FromPtr<const aclopAttr>(attr));
        }
        tls_compile_func = previous;
        return ret;
      },
      py::arg("op_type"), py::arg("input_desc"), py::arg("output_desc"), py::arg("attr"),
      "aclopUpdateParams: ret");
}

}  // namespace

void RegisterOp(py::module_& op) {
  RegisterModelsAndAttrs(op);
  RegisterExecution(op);
  RegisterKernels(op);
}

}  // namespace kiln::python

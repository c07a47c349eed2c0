// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.util: pointer helpers between numpy/bytes and the C API's raw addresses, and native
// threads for acl.rt.process_report loops (their id is the pthread_t that
// aclrtSubscribeReport matches against pthread_self()). numpy is reached through its Python API
// only, so the module works with numpy 1.x and 2.x alike.
#include <pthread.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "python/src/bindings.h"

namespace kiln::python {
namespace {

py::module_ Numpy() { return py::module_::import("numpy"); }

// NumPy type number (NPY_FLOAT32 = 11, ...) -> numpy.dtype, from numpy itself.
py::object DtypeFromNum(int num) {
  // Built once and kept for the process: a static py::object must not be destroyed after the
  // interpreter has gone.
  static py::dict* table = [] {
    auto* t = new py::dict();
    py::module_ np = Numpy();
    std::string codes = py::str(np.attr("typecodes")["All"]);
    for (char c : codes) {
      py::object dt = np.attr("dtype")(std::string(1, c));
      (*t)[dt.attr("num")] = dt;
    }
    return t;
  }();
  py::int_ key(num);
  if (!table->contains(key)) {
    throw py::value_error("acl.util.ptr_to_numpy: unknown numpy type number " +
                          std::to_string(num));
  }
  return (*table)[key];
}

struct NativeThread {
  pthread_t id{};
  py::object func;
  py::object args;
  bool raised = false;
  std::string error;
};

std::mutex g_threads_mu;
// Never destroyed: a thread never stopped keeps Python objects that must not be released after
// the interpreter has finalised.
auto& g_threads = *new std::map<uint64_t, std::shared_ptr<NativeThread>>();

void* ThreadMain(void* arg) {
  auto* t = static_cast<NativeThread*>(arg);
  py::gil_scoped_acquire gil;
  try {
    t->func(t->args);
  } catch (py::error_already_set& e) {
    t->raised = true;
    t->error = e.what();
  }
  return nullptr;
}

uint64_t NumpyAddress(const py::object& array) {
  py::tuple data = array.attr("__array_interface__")["data"];
  return data[0].cast<uint64_t>();
}

}  // namespace

void RegisterUtil(py::module_& util) {
  util.def(
      "numpy_to_ptr",
      [](py::object array) {
        if (!array.attr("flags")["C_CONTIGUOUS"].cast<bool>()) {
          PyErr_WarnEx(PyExc_UserWarning,
                       "acl.util.numpy_to_ptr: the array is not C-contiguous; the address is "
                       "of its first element (use numpy_contiguous_to_ptr)",
                       1);
        }
        return NumpyAddress(array);
      },
      py::arg("array"), "address of the array's data (no copy; keep the array alive)");
  util.def(
      "numpy_contiguous_to_ptr",
      [](py::object array) {
        py::object c = Numpy().attr("ascontiguousarray")(array);
        return py::make_tuple(NumpyAddress(c), c);
      },
      py::arg("array"), "(ptr, contiguous_array): keep the returned array alive");
  util.def(
      "ptr_to_numpy",
      [](Ptr ptr, py::object shape, int npy_type) {
        py::object dtype = DtypeFromNum(npy_type);
        std::vector<int64_t> dims;
        if (py::isinstance<py::int_>(shape)) {
          dims.push_back(shape.cast<int64_t>());
        } else {
          dims = shape.cast<std::vector<int64_t>>();
        }
        size_t count = 1;
        for (int64_t d : dims) {
          if (d < 0) throw py::value_error("acl.util.ptr_to_numpy: negative dim in shape");
          count *= static_cast<size_t>(d);
        }
        const size_t bytes = count * dtype.attr("itemsize").cast<size_t>();
        py::tuple shape_tuple = py::cast(dims);
        if (bytes == 0) return Numpy().attr("empty")(shape_tuple, dtype);
        if (ptr == 0) throw py::value_error("acl.util.ptr_to_numpy: ptr is 0");
        // A writable view of the memory: no copy, valid only while the memory is.
        py::object view = py::reinterpret_steal<py::object>(PyMemoryView_FromMemory(
            FromPtr<char>(ptr), static_cast<Py_ssize_t>(bytes), PyBUF_WRITE));
        if (!view) throw py::error_already_set();
        return Numpy().attr("frombuffer")(view, dtype).attr("reshape")(shape_tuple);
      },
      py::arg("ptr"), py::arg("shape"), py::arg("npy_type"),
      "a numpy view (no copy) of `shape` elements of NumPy type number npy_type at ptr");
  util.def(
      "bytes_to_ptr", [](py::bytes data) { return ToPtr(PyBytes_AsString(data.ptr())); },
      py::arg("data"), "address of the bytes object's buffer (no copy; keep the object alive)");
  util.def(
      "ptr_to_bytes",
      [](Ptr ptr, size_t size) {
        if (ptr == 0 && size != 0) throw py::value_error("acl.util.ptr_to_bytes: ptr is 0");
        return py::bytes(FromPtr<const char>(ptr), size);
      },
      py::arg("ptr"), py::arg("size"), "a new bytes object copied from host memory");
  util.def(
      "start_thread",
      [](py::object func, py::object args) {
        auto t = std::make_shared<NativeThread>();
        t->func = std::move(func);
        t->args = std::move(args);
        int rc = pthread_create(&t->id, nullptr, &ThreadMain, t.get());
        if (rc != 0) return std::make_tuple(uint64_t{0}, ACL_ERROR_FAILURE);
        const auto tid = static_cast<uint64_t>(t->id);
        std::lock_guard<std::mutex> lock(g_threads_mu);
        g_threads[tid] = std::move(t);
        return std::make_tuple(tid, ACL_SUCCESS);
      },
      py::arg("func"), py::arg("args"),
      "(thread_id, ret): a native thread running func(args); thread_id is its pthread_t");
  util.def(
      "stop_thread",
      [](uint64_t tid) {
        std::shared_ptr<NativeThread> t;
        {
          std::lock_guard<std::mutex> lock(g_threads_mu);
          auto it = g_threads.find(tid);
          if (it == g_threads.end()) return ACL_ERROR_INVALID_PARAM;
          t = it->second;
          g_threads.erase(it);
        }
        int rc;
        {
          py::gil_scoped_release release;
          rc = pthread_join(t->id, nullptr);
        }
        if (rc != 0) return ACL_ERROR_FAILURE;
        if (t->raised) {
          throw std::runtime_error("acl.util.start_thread function raised: " + t->error);
        }
        return ACL_SUCCESS;
      },
      py::arg("thread_id"), "ret: joins the thread; RuntimeError if its function raised");
}

}  // namespace kiln::python

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.util: pointer helpers between numpy/bytes and the C API's raw addresses, and native
// threads for acl.rt.process_report loops (their id is the pthread_t that
// aclrtSubscribeReport matches against pthread_self()). numpy is reached through its Python API
// only, so the module works with numpy 1.x and 2.x alike. As in pyACL, numpy_to_ptr,
// numpy_contiguous_to_ptr and ptr_to_numpy warn (category Warning) that they are deprecated in
// favour of bytes_to_ptr / ptr_to_bytes; addresses given to ptr_to_* must be mapped memory.
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
  std::string error;  // pyACL's text: "exception=<type>,msg=...;" per failure
};

std::mutex g_threads_mu;
// Never destroyed: a thread never stopped keeps its record, which must not be released after
// the interpreter has finalised.
auto& g_threads = *new std::map<uint64_t, std::shared_ptr<NativeThread>>();

void RunThreadFunction(NativeThread* t);

void* ThreadMain(void* arg) {
  auto* t = static_cast<NativeThread*>(arg);
  if (MustNotEnterPython()) return nullptr;
  WithGil([t] { RunThreadFunction(t); });
  return nullptr;
}

// The body of ThreadMain, with the GIL held.
void RunThreadFunction(NativeThread* t) {
  try {
    // As pyACL: func(args), or func() when args is None.
    if (t->args.is_none()) {
      t->func();
    } else {
      t->func(t->args);
    }
  } catch (py::error_already_set& e) {
    t->raised = true;
    std::string type = py::str(e.type().attr("__name__"));
    std::string text = py::str(e.value());
    t->error += "exception=" + type + ",msg=thread call failed: " + text + ";";
    // Printed with its traceback, as pyACL does (PyErr_Display), since the thread has no caller.
    e.restore();
    PyObject *ptype = nullptr, *pvalue = nullptr, *ptb = nullptr;
    PyErr_Fetch(&ptype, &pvalue, &ptb);
    PyErr_NormalizeException(&ptype, &pvalue, &ptb);
    if (ptype != nullptr) PyErr_Display(ptype, pvalue, ptb);
    Py_XDECREF(ptype);
    Py_XDECREF(pvalue);
    Py_XDECREF(ptb);
  } catch (const std::exception& e) {
    t->raised = true;
    t->error += std::string("exception=RuntimeError,msg=thread call failed: ") + e.what() + ";";
  }
  // The function and its argument are released as soon as it returns, whether or not
  // stop_thread is ever called.
  t->func = py::object();
  t->args = py::object();
}

bool IsNdarray(const py::handle& obj) { return py::isinstance(obj, Numpy().attr("ndarray")); }

uint64_t NumpyAddress(const py::handle& array) {
  py::tuple data = array.attr("__array_interface__")["data"];
  return data[0].cast<uint64_t>();
}

// pyACL's deprecation warning (category Warning, so it is shown by default).
void Warn(const char* text) {
  if (PyErr_WarnEx(PyExc_Warning, text, 1) != 0) throw py::error_already_set();
}

void CheckHostRange(const char* api, uintptr_t ptr, size_t bytes) {
  if (ptr == 0 && bytes != 0) throw py::value_error(std::string(api) + ": ptr is 0");
  if (!HostRangeMapped(ptr, bytes)) {
    throw py::value_error(std::string(api) + ": " + std::to_string(bytes) +
                          " bytes at ptr are not mapped memory of this process");
  }
}

}  // namespace

void RegisterUtil(py::module_& util) {
  util.def(
      "numpy_to_ptr",
      [](py::object array) {
        Warn(
            "acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr "
            "instead.");
        if (!IsNdarray(array)) throw py::value_error("needs an ndarray as argument");
        if (!array.attr("flags")["C_CONTIGUOUS"].cast<bool>()) {
          Warn("The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead.");
        }
        return NumpyAddress(array);
      },
      py::arg("array"), "address of the array's data (no copy; keep the array alive)");
  util.def(
      "numpy_contiguous_to_ptr",
      [](py::object array) {
        Warn(
            "acl.util.numpy_contiguous_to_ptr will be deprecated. Please use "
            "acl.util.bytes_to_ptr instead.");
        if (!IsNdarray(array)) throw py::value_error("needs an ndarray as argument");
        py::object flags = array.attr("flags");
        py::object c = array;
        if (!flags["C_CONTIGUOUS"].cast<bool>() || !flags["ALIGNED"].cast<bool>()) {
          c = array.attr("copy")("C");  // a C-ordered copy, of the same shape (0-d stays 0-d)
        }
        return py::make_tuple(NumpyAddress(c), c);
      },
      py::arg("array"), "(ptr, contiguous_array): keep the returned array alive");
  util.def(
      "ptr_to_numpy",
      [](Ptr ptr, py::object shape, int npy_type) {
        Warn(
            "acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes "
            "instead.");
        py::object dtype = DtypeFromNum(npy_type);
        std::vector<int64_t> dims;
        try {
          if (py::isinstance<py::int_>(shape)) {
            dims.push_back(shape.cast<int64_t>());
          } else {
            dims = shape.cast<std::vector<int64_t>>();
          }
        } catch (const py::cast_error&) {
          throw py::type_error("acl.util.ptr_to_numpy: shape must be a tuple of ints");
        }
        size_t count = 1;
        for (int64_t d : dims) {
          if (d < 0) throw py::value_error("acl.util.ptr_to_numpy: negative dim in shape");
          if (__builtin_mul_overflow(count, static_cast<size_t>(d), &count)) {
            throw py::value_error("acl.util.ptr_to_numpy: shape is too large");
          }
        }
        size_t bytes = 0;
        if (__builtin_mul_overflow(count, dtype.attr("itemsize").cast<size_t>(), &bytes) ||
            bytes > static_cast<size_t>(PY_SSIZE_T_MAX)) {
          throw py::value_error("acl.util.ptr_to_numpy: shape is too large");
        }
        py::tuple shape_tuple = py::cast(dims);
        if (bytes == 0) return Numpy().attr("empty")(shape_tuple, dtype);
        CheckHostRange("acl.util.ptr_to_numpy", ptr, bytes);
        // A writable view of the memory: no copy, valid only while the memory is.
        py::object view = py::reinterpret_steal<py::object>(PyMemoryView_FromMemory(
            FromPtr<char>(ptr), static_cast<Py_ssize_t>(bytes), PyBUF_WRITE));
        if (!view) throw py::error_already_set();
        return Numpy().attr("frombuffer")(view, dtype).attr("reshape")(shape_tuple);
      },
      py::arg("ptr"), py::arg("shape"), py::arg("npy_type"),
      "a numpy view (no copy) of `shape` elements of NumPy type number npy_type at ptr");
  util.def(
      "bytes_to_ptr",
      [](py::object data) {
        if (!PyBytes_Check(data.ptr())) throw py::value_error("needs an byte as argument");
        return ToPtr(PyBytes_AsString(data.ptr()));
      },
      py::arg("data"), "address of the bytes object's buffer (no copy; keep the object alive)");
  util.def(
      "ptr_to_bytes",
      [](Ptr ptr, Size size) {
        CheckHostRange("acl.util.ptr_to_bytes", ptr, size);
        if (size > static_cast<size_t>(PY_SSIZE_T_MAX)) {
          throw py::value_error("acl.util.ptr_to_bytes: size is too large");
        }
        return py::bytes(FromPtr<const char>(ptr), static_cast<size_t>(size));
      },
      py::arg("ptr"), py::arg("size"), "a new bytes object copied from host memory");
  util.def(
      "start_thread",
      [](py::object func, py::object args) {
        if (!PyCallable_Check(func.ptr())) {
          throw py::type_error("acl.util.start_thread: parameter must be callable");
        }
        auto t = std::make_shared<NativeThread>();
        t->func = std::move(func);
        t->args = std::move(args);
        // Registered before it starts, so that stop_thread finds it however soon it is called.
        std::lock_guard<std::mutex> lock(g_threads_mu);
        int rc = pthread_create(&t->id, nullptr, &ThreadMain, t.get());
        if (rc != 0) return std::make_tuple(uint64_t{0}, static_cast<aclError>(rc));
        const auto tid = static_cast<uint64_t>(t->id);
        g_threads[tid] = std::move(t);
        return std::make_tuple(tid, ACL_SUCCESS);
      },
      py::arg("func"), py::arg("args"),
      "(thread_id, ret): a native thread running func(args) (func() when args is None); "
      "thread_id is its pthread_t");
  util.def(
      "stop_thread",
      [](U64 tid) {
        std::shared_ptr<NativeThread> t;
        {
          std::lock_guard<std::mutex> lock(g_threads_mu);
          auto it = g_threads.find(tid);
          if (it == g_threads.end()) {
            return Reject("acl.util.stop_thread", "thread " + std::to_string(tid.value) +
                                                      " was not started by start_thread "
                                                      "or was already stopped");
          }
          t = it->second;
        }
        if (pthread_equal(t->id, pthread_self())) {
          return Reject("acl.util.stop_thread", "a thread cannot stop (join) itself");
        }
        int rc;
        {
          ReleaseGil release;
          rc = pthread_join(t->id, nullptr);
        }
        if (rc != 0) return static_cast<aclError>(rc);  // pyACL: pthread_join's error number
        {
          std::lock_guard<std::mutex> lock(g_threads_mu);
          g_threads.erase(tid);
        }
        if (t->raised) throw std::runtime_error(t->error);
        return ACL_SUCCESS;
      },
      py::arg("thread_id"), "ret: joins the thread; RuntimeError if its function raised");
}

}  // namespace kiln::python

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Shared helpers of the `acl._acl` extension: pointers, handles and sizes cross into Python as
// ints (as in pyACL), host addresses are checked before the C library touches them, and each
// submodule has one Register function.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cxxabi.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <string>

#include "acl/acl.h"

namespace kiln::python {

namespace py = pybind11;

// An unsigned integer argument read the way pyACL's PyArg_ParseTuple formats "k", "K" and "I"
// read it: any Python int (or object with __index__), reduced modulo 2^bits without an overflow
// check, so -1 arrives as the largest value and the C library rejects it with its own code.
// None reads as 0 (NULL), so a missing handle also gets the C library's error code rather than
// an exception. Anything else (str, float, list) is a TypeError, as in pyACL.
template <typename T>
struct Masked {
  T value = 0;
  operator T() const { return value; }  // NOLINT(google-explicit-constructor): used as T
};

// Every pointer or handle is a Python int (pyACL's convention); 0 (or None) is NULL.
using Ptr = Masked<uintptr_t>;
using Size = Masked<size_t>;   // sizes and indexes ("k")
using U32 = Masked<uint32_t>;  // model ids, flags ("I")
using U64 = Masked<uint64_t>;  // thread ids, batch sizes ("K")

template <typename T = void>
inline T* FromPtr(uintptr_t p) {
  return reinterpret_cast<T*>(p);
}
template <typename T>
inline uintptr_t ToPtr(T* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// The ident (pthread_t) of the interpreter's main thread, the one that finalises it; set when
// the module is imported. Defined in checks.cc.
extern unsigned long g_main_thread;

// True when this thread must not take the GIL: it is not the main thread and the interpreter is
// shutting down or gone. CPython would end it with pthread_exit, whose forced unwinding through
// C++ frames (pybind11, the runtime's catch-alls) aborts the process at exit.
inline bool MustNotEnterPython() {
  // The main thread finalises (Py_IsInitialized is already false while it runs the last
  // destructors): it always goes on.
  if (PyThread_get_thread_ident() == g_main_thread) return false;
  if (!Py_IsInitialized()) return true;
#if PY_VERSION_HEX >= 0x030D0000
  const bool finalizing = Py_IsFinalizing();
#else
  const bool finalizing = _Py_IsFinalizing();
#endif
  return finalizing;
}

// Runs `body` holding the GIL on a thread Python did not create (acl.util.start_thread's, the
// runtime's callback threads). When the interpreter finalises meanwhile, CPython ends such a
// thread with pthread_exit from inside a GIL acquire (in `body`, or in the acquire itself); the
// forced unwind must then leave the thread state alone: releasing it (PyThreadState_DeleteCurrent)
// would clear the *main* thread's current state in the middle of its finalisation, a crash at
// exit. So the acquire is not undone then (the process is ending); in every other case it is.
template <typename F>
void WithGil(F&& body) {
  alignas(py::gil_scoped_acquire) unsigned char storage[sizeof(py::gil_scoped_acquire)];
  auto* gil = new (storage) py::gil_scoped_acquire();
  try {
    body();
  } catch (abi::__forced_unwind&) {
    throw;  // the thread is being ended: no release
  } catch (...) {
    gil->~gil_scoped_acquire();
    throw;
  }
  gil->~gil_scoped_acquire();
}

// Releases the GIL for a call that may block (synchronise, process_report, execute, ...), like
// py::gil_scoped_release, except that a thread coming back while the interpreter is shutting
// down parks forever instead of re-entering it (process exit ends it), so a report thread that
// is still looping when the application exits does not abort the process.
class ReleaseGil {
 public:
  ReleaseGil() : state_(PyEval_SaveThread()) {}
  ~ReleaseGil() noexcept(false) {
    while (MustNotEnterPython()) pause();
    PyEval_RestoreThread(state_);
  }
  ReleaseGil(const ReleaseGil&) = delete;
  ReleaseGil& operator=(const ReleaseGil&) = delete;

 private:
  PyThreadState* state_;
};
using GIL = py::call_guard<ReleaseGil>;

// True when [p, p + n) lies in mapped memory of this process (mincore); n == 0 is always true.
// Memory that is mapped but not readable (PROT_NONE) or not writable passes too: the check
// stops the addresses that would certainly fault (small integers, unmapped or freed-and-unmapped
// buffers, random values), not every misuse.
bool HostRangeMapped(uintptr_t p, size_t n);

// Whether the current device's memory is host memory (a Kiln CPU device: aclrtGetSocName starts
// with "cpu"; also when no device is current, to stay on the safe side). Device-side addresses
// are checked with HostRangeMapped only then: a GPU's device memory need not be mapped in this
// process, and its runtime validates it itself.
bool DeviceMemoryIsHost();

// Rejects a call in the binding (before the C library sees it) with ACL_ERROR_INVALID_PARAM:
// logs `message` through aclAppLog and keeps it for acl.get_recent_err_msg() on this thread.
aclError Reject(const char* api, const std::string& message);

// ACL_SUCCESS when `n` bytes at `p` are mapped (or p is NULL, which the C library rejects with
// its own message); otherwise Reject(api, "<what> ... is not mapped memory").
aclError CheckMapped(const char* api, const char* what, uintptr_t p, size_t n);
// The same for the memory of data buffer `index` of a list or dataset (a NULL address is left
// to the C library): Reject(api, "<what> buffer <index> (...) is not mapped memory ...").
aclError CheckBufferMapped(const char* api, const char* what, size_t index,
                           const aclDataBuffer* buffer);

// aclGetRecentErrMsg() with the messages of this thread's Reject calls in front (both are
// cleared, as aclGetRecentErrMsg clears its own); None when there are none.
py::object RecentErrMsg();

// Registers the functions of one pyACL module on `m`.
void RegisterTopLevel(py::module_& m);
void RegisterRt(py::module_& rt);
void RegisterMdl(py::module_& mdl);
void RegisterUtil(py::module_& util);
void RegisterProf(py::module_& prof);
void RegisterMedia(py::module_& media);  // acl_media.cc
// The video channels (aclvdec*, aclvenc*) on acl.media, called by RegisterMedia.
void RegisterMediaVideo(py::module_& media);  // acl_media_video.cc
// Single-operator execution (aclop*) and the BLAS calls (aclblas*).
void RegisterOp(py::module_& op);      // acl_op.cc
void RegisterBlas(py::module_& blas);  // acl_blas.cc
// The compiler facade behind kiln.compile (module `acl._acl._kiln`, not a pyACL name).
void RegisterKiln(py::module_& kiln);

// acl.rt's bookkeeping of Python callbacks waiting on streams: after aclrtDestroyStream(s)
// (or aclFinalize) the runtime never runs the ones it dropped, so their Python objects are
// released here. Defined in acl_rt.cc.
void ForgetCallbacksOfStream(uintptr_t stream);
void ForgetAllCallbacks();

}  // namespace kiln::python

namespace pybind11::detail {

template <typename T>
struct type_caster<kiln::python::Masked<T>> {
  PYBIND11_TYPE_CASTER(kiln::python::Masked<T>, const_name("int"));

  bool load(handle src, bool /*convert*/) {
    if (!src) return false;
    if (src.is_none()) {
      value.value = 0;
      return true;
    }
    // bool is an int in Python, and pyACL's "k" takes it too; float and str are not.
    if (!PyLong_Check(src.ptr()) && !PyIndex_Check(src.ptr())) return false;
    object index = reinterpret_steal<object>(PyNumber_Index(src.ptr()));
    if (!index) {
      PyErr_Clear();
      return false;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(index.ptr());
    if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value.value = static_cast<T>(v);
    return true;
  }

  static handle cast(kiln::python::Masked<T> src, return_value_policy, handle) {
    return PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(src.value));
  }
};

}  // namespace pybind11::detail

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Shared helpers of the `acl._acl` extension: pointers and handles cross into Python as ints
// (as in pyACL), each submodule has one Register function.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>

#include "acl/acl.h"

namespace kiln::python {

namespace py = pybind11;

// Every pointer or handle is a Python int (pyACL's convention); 0 is NULL.
using Ptr = uintptr_t;

template <typename T = void>
inline T* FromPtr(Ptr p) {
  return reinterpret_cast<T*>(p);
}
template <typename T>
inline Ptr ToPtr(T* p) {
  return reinterpret_cast<Ptr>(p);
}

// Registers the functions of one pyACL module on `m`.
void RegisterTopLevel(py::module_& m);
void RegisterRt(py::module_& rt);
void RegisterMdl(py::module_& mdl);
void RegisterUtil(py::module_& util);
// The compiler facade behind kiln.compile (module `acl._acl._kiln`, not a pyACL name).
void RegisterKiln(py::module_& kiln);

}  // namespace kiln::python

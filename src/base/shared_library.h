// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A library opened with dlopen at first use and read as a table of functions: what a feature
// only some applications use needs (cuBLASLt and cuDNN for the CUDA device, libavcodec for DVPP
// video), so that libascendcl.so loads, and maps no more, without it. The table's pointers are
// typed from the headers Kiln was compiled against; the soname carries the headers' major
// version. A library that does not open, or lacks a function, is kFeatureUnsupported naming the
// library, its soname and dlerror's reason or the missing function. The library stays open for
// the process.
#pragma once

#include <string>
#include <type_traits>

#include "base/status.h"

// A macro's value as a string literal, for a soname built from a header's version macro:
// "libcudnn.so." KILN_SONAME_VERSION(CUDNN_MAJOR).
#define KILN_SONAME_VERSION_INNER_(x) #x
#define KILN_SONAME_VERSION(x) KILN_SONAME_VERSION_INNER_(x)

namespace kiln {

// dlopen(soname, RTLD_NOW | RTLD_LOCAL): the handle, or the error above.
Result<void*> OpenSharedLibrary(const char* soname, const char* library);
// dlsym; nullptr when absent.
void* SharedLibrarySymbol(void* handle, const char* name);
void CloseSharedLibrary(void* handle);

// Opens `soname` and fills the table: `bind(api, sym)` calls `sym(api.pointer, "name")` for
// each function.
template <typename Api, typename Bind>
Result<Api> LoadSharedLibrary(const char* soname, const char* library, Bind bind) {
  Result<void*> handle = OpenSharedLibrary(soname, library);
  if (!handle.ok()) return handle.status();
  Api api{};
  std::string missing;
  auto sym = [&](auto& fn, const char* name) {
    fn =
        reinterpret_cast<std::remove_reference_t<decltype(fn)>>(SharedLibrarySymbol(*handle, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  bind(api, sym);
  if (!missing.empty()) {
    CloseSharedLibrary(*handle);
    return Error(code::kFeatureUnsupported, library, " (", soname, ") has no ", missing);
  }
  return api;
}

}  // namespace kiln

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/shared_library.h"

#include <dlfcn.h>

namespace kiln {

Result<void*> OpenSharedLibrary(const char* soname, const char* library) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error(code::kFeatureUnsupported, library, " (", soname,
                 ") could not be loaded: ", why != nullptr ? why : "unknown reason");
  }
  return handle;
}

void* SharedLibrarySymbol(void* handle, const char* name) { return dlsym(handle, name); }

void CloseSharedLibrary(void* handle) { dlclose(handle); }

}  // namespace kiln

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/av_library.h"

extern "C" {
#include <libavcodec/version.h>
}

#include "base/shared_library.h"

namespace kiln::media {
namespace {

#ifdef KILN_AVCODEC_STATIC
Result<AvApi> Load() {
  AvApi api{};
#define KILN_AV_LINKED(name) api.name = &::name;
  KILN_AV_FUNCTIONS(KILN_AV_LINKED)
#undef KILN_AV_LINKED
  return api;
}
#else
// libavcodec's symbols and, through its dependency on it, libavutil's (dlsym searches a
// handle's dependencies breadth first).
constexpr const char* kAvcodecSoname =
    "libavcodec.so." KILN_SONAME_VERSION(LIBAVCODEC_VERSION_MAJOR);

Result<AvApi> Load() {
  return LoadSharedLibrary<AvApi>(kAvcodecSoname, "FFmpeg's libavcodec", [](AvApi& a, auto& sym) {
#define KILN_AV_SYMBOL(name) sym(a.name, #name);
    KILN_AV_FUNCTIONS(KILN_AV_SYMBOL)
#undef KILN_AV_SYMBOL
  });
}
#endif

}  // namespace

Result<const AvApi*> Av() {
  static const Result<AvApi> api = Load();
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace kiln::media

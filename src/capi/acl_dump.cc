// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The data dump API (aclmdlInitDump / aclmdlSetDump / aclmdlFinalizeDump) over
// runtime::Dumper, with AscendCL's call-order codes (ascendcl-reference.md §1.8 and the
// open-sourced dump.cpp): every call needs aclInit (100001); while acl.json's "dump" block
// drives the dump, all three return ACL_ERROR_DUMP_ALREADY_RUN (100044).
#include "acl/acl_mdl.h"
#include "capi/error.h"
#include "runtime/config.h"
#include "runtime/dump.h"
#include "runtime/runtime.h"

namespace {

namespace code = kiln::code;
using kiln::capi::Report;
using kiln::runtime::Dumper;

// ACL_ERROR_UNINITIALIZE unless aclInit has run.
kiln::Status NeedInit(const char* api) {
  if (kiln::runtime::Runtime::Get().initialized()) return kiln::Status::Ok();
  return kiln::Error(code::kUninitialize, api, " needs aclInit first");
}

}  // namespace

extern "C" {

aclError aclmdlInitDump(void) {
  KILN_CAPI("aclmdlInitDump", {
    const char* api = "aclmdlInitDump";
    if (kiln::Status st = NeedInit(api); !st.ok()) return Report(api, st);
    return Report(api, Dumper::Get().Init());
  });
}

aclError aclmdlSetDump(const char* dumpCfgPath) {
  KILN_CAPI("aclmdlSetDump", {
    const char* api = "aclmdlSetDump";
    if (kiln::Status st = NeedInit(api); !st.ok()) return Report(api, st);
    // AscendCL's order of checks: call order, then the argument, then the file.
    if (kiln::Status order = Dumper::Get().CanSet(); !order.ok()) return Report(api, order);
    if (dumpCfgPath == nullptr) return kiln::capi::InvalidParam(api, "dumpCfgPath is NULL");
    auto options = kiln::runtime::LoadDumpConfigFile(dumpCfgPath);
    if (!options.ok()) return Report(api, options.status());
    return Report(api, Dumper::Get().Set(*options));
  });
}

aclError aclmdlFinalizeDump(void) {
  KILN_CAPI("aclmdlFinalizeDump", {
    const char* api = "aclmdlFinalizeDump";
    if (kiln::Status st = NeedInit(api); !st.ok()) return Report(api, st);
    return Report(api, Dumper::Get().Finalize());
  });
}

}  // extern "C"

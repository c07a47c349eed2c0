// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Context management.
#include "acl/acl.h"
#include "capi/error.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;

extern "C" {

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  KILN_CAPI("aclrtCreateContext", {
    if (context == nullptr) return InvalidParam("aclrtCreateContext", "context is NULL");
    *context = nullptr;
    auto ctx = Runtime::Get().CreateContext(deviceId);
    if (!ctx.ok()) return Report("aclrtCreateContext", ctx.status());
    *context = *ctx;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  KILN_CAPI("aclrtDestroyContext",
            { return Report("aclrtDestroyContext", Runtime::Get().DestroyContext(context)); });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  KILN_CAPI("aclrtSetCurrentContext", {
    return Report("aclrtSetCurrentContext", Runtime::Get().SetCurrentContext(context));
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  KILN_CAPI("aclrtGetCurrentContext", {
    if (context == nullptr) return InvalidParam("aclrtGetCurrentContext", "context is NULL");
    *context = nullptr;
    auto ctx = Runtime::Get().GetCurrentContext();
    if (!ctx.ok()) return Report("aclrtGetCurrentContext", ctx.status());
    *context = *ctx;
    return ACL_SUCCESS;
  });
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  KILN_CAPI("aclrtCtxSetSysParamOpt", {
    int option = kiln::capi::EnumInt(opt);
    if (option < ACL_OPT_DETERMINISTIC || option > ACL_OPT_ENABLE_KERNEL_EARLY_START) {
      return InvalidParam("aclrtCtxSetSysParamOpt", "option ", option, " is not an aclSysParamOpt");
    }
    auto ctx = Runtime::Get().CurrentContext();
    if (!ctx.ok()) return Report("aclrtCtxSetSysParamOpt", ctx.status());
    (*ctx)->SetSysParam(option, value);
    return ACL_SUCCESS;
  });
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  KILN_CAPI("aclrtCtxGetSysParamOpt", {
    if (value == nullptr) return InvalidParam("aclrtCtxGetSysParamOpt", "value is NULL");
    int option = kiln::capi::EnumInt(opt);
    if (option < ACL_OPT_DETERMINISTIC || option > ACL_OPT_ENABLE_KERNEL_EARLY_START) {
      return InvalidParam("aclrtCtxGetSysParamOpt", "option ", option, " is not an aclSysParamOpt");
    }
    auto ctx = Runtime::Get().CurrentContext();
    if (!ctx.ok()) return Report("aclrtCtxGetSysParamOpt", ctx.status());
    if (!(*ctx)->GetSysParam(option, value)) {
      return Report("aclrtCtxGetSysParamOpt",
                    kiln::Error(kiln::code::kRtSysParamOptNotSet, "option ", option,
                                " was never set on this context"));
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"

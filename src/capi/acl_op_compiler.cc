// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The single-operator compile API of acl_op_compiler.h: compile in the process (the model joins
// the ones aclopSetModelDir / aclopLoad registered), compile-and-execute, and the process-wide
// compile options (docs/single-ops.md).
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "acl/acl_op_compiler.h"
#include "capi/error.h"
#include "capi/handle_calls.h"
#include "capi/op_objects.h"
#include "runtime/runtime.h"

using kiln::Error;
using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::OpCall;
using kiln::capi::Report;
using kiln::capi::SingleOpRegistry;
namespace code = kiln::code;

namespace {

struct GraphDumpOpt {};

struct CompileOpts {
  std::mutex mu;
  std::map<int, std::string> values;
};

CompileOpts& Opts() {
  static auto* opts = new CompileOpts();
  return *opts;
}

constexpr size_t kJitCompileSize = 256;

// The checks aclopCompile and aclopCompileAndExecute share on the engine and compile type.
aclError CheckCompileArgs(const char* api, aclopEngineType engineType, aclopCompileType compileFlag,
                          const char* opPath) {
  const int engine = kiln::capi::EnumInt(engineType);
  if (engine < ACL_ENGINE_SYS || engine > ACL_ENGINE_VECTOR) {
    return InvalidParam(api, "engineType ", engine, " is not an aclopEngineType");
  }
  const int flag = kiln::capi::EnumInt(compileFlag);
  if (flag == ACL_COMPILE_UNREGISTERED) {
    if (opPath == nullptr) return InvalidParam(api, "ACL_COMPILE_UNREGISTERED needs opPath");
    return Report(
        api, Error(code::kApiNotSupport, "custom operators (ACL_COMPILE_UNREGISTERED, '", opPath,
                   "') are not supported: Kiln compiles the operators of its CANN "
                   "operator table (docs/ops.md)"));
  }
  if (flag != ACL_COMPILE_SYS) {
    return Report(api, Error(code::kApiNotSupport, "compileFlag ", flag, " is not supported"));
  }
  return ACL_SUCCESS;
}

aclError CompileAndExecute(const char* api, const char* opType, int numInputs,
                           const aclTensorDesc* const inputDesc[],
                           const aclDataBuffer* const inputs[], int numOutputs,
                           const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                           const aclopAttr* attr, aclopEngineType engineType,
                           aclopCompileType compileFlag, const char* opPath, aclrtStream stream,
                           aclTensorDesc* const* refresh) {
  if (Status st = kiln::runtime::Runtime::Get().CheckInitialized(api); !st.ok()) {
    return Report(api, st);
  }
  if (aclError e = CheckCompileArgs(api, engineType, compileFlag, opPath); e != ACL_SUCCESS) {
    return e;
  }
  OpCall call;
  if (aclError e = kiln::capi::ReadOpDescs(api, opType, numInputs, inputDesc, numOutputs,
                                           outputDesc, attr, &call);
      e != ACL_SUCCESS) {
    return e;
  }
  if (aclError e = kiln::capi::ReadOpBuffers(api, numInputs, inputs, numOutputs, outputs, &call);
      e != ACL_SUCCESS) {
    return e;
  }
  if (kiln::capi::AllOutputsEmpty(call)) return ACL_SUCCESS;
  // An input in host memory is compiled as a constant of its values (an ArgMaxV2 axis, a
  // GEMM's alpha), as CANN's execution matches it.
  auto found = kiln::capi::MatchOp(call);
  if (!found.ok()) {
    kiln::capi::HostInputsAsConst(call, &call.desc);
    found = SingleOpRegistry::Get().FindOrCompile(call.desc);
    if (!found.ok()) return Report(api, found.status());
  }
  return kiln::capi::LaunchOp(api, *found, call, stream, refresh);
}

}  // namespace

extern "C" {

aclError aclopCompile(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                      int numOutputs, const aclTensorDesc* const outputDesc[],
                      const aclopAttr* attr, aclopEngineType engineType,
                      aclopCompileType compileFlag, const char* opPath) {
  KILN_CAPI("aclopCompile", {
    const char* api = "aclopCompile";
    if (Status st = kiln::runtime::Runtime::Get().CheckInitialized(api); !st.ok()) {
      return Report(api, st);
    }
    if (aclError e = CheckCompileArgs(api, engineType, compileFlag, opPath); e != ACL_SUCCESS) {
      return e;
    }
    OpCall call;
    if (aclError e = kiln::capi::ReadOpDescs(api, opType, numInputs, inputDesc, numOutputs,
                                             outputDesc, attr, &call, /*dynamic_ok=*/true);
        e != ACL_SUCCESS) {
      return e;
    }
    for (size_t i = 0; i < call.host_inputs.size(); ++i) {
      if (call.host_inputs[i] && !call.desc.inputs[i].is_const) {
        return Report(api, Error(code::kApiNotSupport, "input ", i,
                                 " is placed in host memory: aclopCompile takes device inputs "
                                 "and constants (aclSetTensorConst)"));
      }
    }
    auto compiled = SingleOpRegistry::Get().FindOrCompile(call.desc);
    return compiled.ok() ? ACL_SUCCESS : Report(api, compiled.status());
  });
}

aclError aclopCompileAndExecute(const char* opType, int numInputs,
                                const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[],
                                aclDataBuffer* const outputs[], const aclopAttr* attr,
                                aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream) {
  KILN_CAPI("aclopCompileAndExecute", {
    return CompileAndExecute("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs,
                             numOutputs, outputDesc, outputs, attr, engineType, compileFlag, opPath,
                             stream, nullptr);
  });
}

aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                  aclDataBuffer* inputs[], int numOutputs,
                                  aclTensorDesc* outputDesc[], aclDataBuffer* outputs[],
                                  aclopAttr* attr, aclopEngineType engineType,
                                  aclopCompileType compileFlag, const char* opPath,
                                  aclrtStream stream) {
  KILN_CAPI("aclopCompileAndExecuteV2", {
    return CompileAndExecute("aclopCompileAndExecuteV2", opType, numInputs, inputDesc, inputs,
                             numOutputs, outputDesc, outputs, attr, engineType, compileFlag, opPath,
                             stream, outputDesc);
  });
}

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  KILN_CAPI("aclSetCompileopt", {
    const char* api = "aclSetCompileopt";
    if (value == nullptr) return InvalidParam(api, "value is NULL");
    const int o = kiln::capi::EnumInt(opt);
    if (o == ACL_AUTO_TUNE_MODE) {
      return Report(api, Error(code::kFeatureUnsupported, "ACL_AUTO_TUNE_MODE is discarded"));
    }
    if (o < ACL_PRECISION_MODE || o > ACL_OP_DEBUG_OPTION) {
      return Report(api, Error(code::kInternalError, "opt ", o, " is not an aclCompileOpt"));
    }
    if (o == ACL_OP_JIT_COMPILE && std::strcmp(value, "enable") != 0 &&
        std::strcmp(value, "disable") != 0) {
      return InvalidParam(api, "ACL_OP_JIT_COMPILE takes enable or disable, not '", value, "'");
    }
    CompileOpts& opts = Opts();
    std::lock_guard<std::mutex> lock(opts.mu);
    opts.values[o] = value;
    return ACL_SUCCESS;
  });
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
  const int o = kiln::capi::EnumInt(opt);
  if (o == ACL_OP_JIT_COMPILE) return kJitCompileSize;
  CompileOpts& opts = Opts();
  std::lock_guard<std::mutex> lock(opts.mu);
  auto it = opts.values.find(o);
  return it == opts.values.end() ? 0 : it->second.size() + 1;
}

aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  KILN_CAPI("aclGetCompileopt", {
    const char* api = "aclGetCompileopt";
    if (value == nullptr) return InvalidParam(api, "value is NULL");
    const int o = kiln::capi::EnumInt(opt);
    if (o != ACL_OP_JIT_COMPILE && o != ACL_OP_DEBUG_OPTION) {
      return Report(api, Error(code::kApiNotSupport,
                               "only ACL_OP_JIT_COMPILE and ACL_OP_DEBUG_OPTION can be read"));
    }
    std::string v;
    {
      CompileOpts& opts = Opts();
      std::lock_guard<std::mutex> lock(opts.mu);
      auto it = opts.values.find(o);
      if (it != opts.values.end()) {
        v = it->second;
      } else if (o == ACL_OP_JIT_COMPILE) {
        v = "enable";
      } else {
        return Report(api, Error(code::kApiNotSupport, "ACL_OP_DEBUG_OPTION is not set"));
      }
    }
    if (length < v.size() + 1) {
      return Report(api, Error(code::kFailure, "length ", length, " is too short for '", v, "'"));
    }
    std::memcpy(value, v.c_str(), v.size() + 1);
    return ACL_SUCCESS;
  });
}

aclError aclopSetCompileFlag(aclOpCompileFlag flag) {
  KILN_CAPI("aclopSetCompileFlag", {
    const int f = kiln::capi::EnumInt(flag);
    if (f != ACL_OP_COMPILE_DEFAULT && f != ACL_OP_COMPILE_FUZZ) {
      return InvalidParam("aclopSetCompileFlag", "flag ", f, " is not an aclOpCompileFlag");
    }
    return ACL_SUCCESS;
  });
}

aclError aclGenGraphAndDumpForOp(const char*, int, const aclTensorDesc* const[],
                                 const aclDataBuffer* const[], int, const aclTensorDesc* const[],
                                 aclDataBuffer* const[], const aclopAttr*, aclopEngineType,
                                 const char*, const aclGraphDumpOption* graphDumpOpt) {
  KILN_CAPI("aclGenGraphAndDumpForOp", {
    const char* api = "aclGenGraphAndDumpForOp";
    if (graphDumpOpt != nullptr) return InvalidParam(api, "graphDumpOpt must be NULL");
    return Report(api, Error(code::kApiNotSupport,
                             "a single operator's graph dump is not supported: `kiln atc "
                             "--mode=1` shows a single-op .om as JSON"));
  });
}

aclGraphDumpOption* aclCreateGraphDumpOpt(void) {
  return kiln::capi::CreateHandle("aclCreateGraphDumpOpt",
                                  kiln::capi::GlobalTable<aclGraphDumpOption, GraphDumpOpt>(
                                      "graphDumpOpt", "aclGraphDumpOption"));
}

aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption* graphDumpOpt) {
  return kiln::capi::DestroyHandle("aclDestroyGraphDumpOpt",
                                   kiln::capi::GlobalTable<aclGraphDumpOption, GraphDumpOpt>(
                                       "graphDumpOpt", "aclGraphDumpOption"),
                                   graphDumpOpt);
}

}  // extern "C"

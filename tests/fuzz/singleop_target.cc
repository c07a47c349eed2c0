// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: CANN's single-operator JSON (`kiln atc --singleop`) through
// compiler::ParseSingleOpList, then each of the first entries compiled (CompileSingleOp: the
// operator table, shape inference, the passes, the planner, the writer). Any text may be refused
// naming the entry and key; none may crash or hang. Two properties are held as well: an entry's
// JSON form reads back as the same description, and a compiled model's recorded description is
// the entry's (what aclopLoad and aclopSetModelDir match calls against).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "compiler/single_op.h"
#include "compiler/single_op_json.h"

namespace {

constexpr size_t kMaxEntries = 4;  // compiling is the slow part; later entries add little

bool Same(const kiln::compiler::SingleOpDesc& a, const kiln::compiler::SingleOpDesc& b) {
  return a.SameOperator(b) && a.name == b.name;
}

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "singleop_fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto ops = kiln::compiler::ParseSingleOpList(text);
  if (!ops.ok()) return 0;
  for (size_t i = 0; i < ops->size() && i < kMaxEntries; ++i) {
    const kiln::compiler::SingleOpDesc& d = (*ops)[i];
    auto json = kiln::compiler::SingleOpToJson(d);
    if (json.ok()) {
      auto back = kiln::compiler::SingleOpFromJson(*json);
      Check(back.ok() && Same(*back, d), "an entry's JSON form does not read back as the entry");
    }
    (void)kiln::compiler::SingleOpFileName(d, i);
    auto om = kiln::compiler::CompileSingleOp(d);
    if (!om.ok()) continue;
    auto recorded = kiln::compiler::ReadSingleOp(om->data(), om->size());
    Check(recorded.ok() && Same(*recorded, d), "a compiled model does not record its entry");
  }
  return 0;
}

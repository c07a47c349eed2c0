// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of If, Loop and Scan. The bodies run through KernelContext::RunGraph; these
// kernels hold the iteration logic: conditions, trip counts, loop-carried values and the
// slicing and stacking of scan inputs and outputs. Their outputs' dims are the bodies'
// (ir::kTraitDataDependentShape): the kernels bind them (KernelContext::DynamicOutput). A
// loaded node keeps its bodies apart from its attributes and its shape function does not run
// at load, so Prepare keeps the checks of the node the kernels rely on (the bodies are there,
// Scan's counts and lists fit); what the bodies produce is checked as they run.
//
// If is device-neutral: it reads its condition and writes its outputs through the run's
// execution (hal::Execution::Copy), so it runs on a device whose memory the host cannot address
// (the CUDA device registers it). Loop and Scan still read their inputs on the host and hand
// host tensors to their bodies.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "hal/execution.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// The single value of a one-element tensor of `dtype` (`what` names it in errors).
template <typename T>
Result<T> ScalarInput(const NodeDef& def, const TensorView& t, DataType dtype, const char* what) {
  if (t.dtype != dtype || t.num_elements() != 1) {
    return def.Fail(code::kInvalidParam, what, " must be one ", ir::Name(dtype), " value, got ",
                    ir::Name(t.dtype), " ", DimsString(t.dims));
  }
  if constexpr (std::is_same_v<T, bool>) {
    return *static_cast<const uint8_t*>(t.data) != 0;
  } else {
    return *t.as<const T>();
  }
}

// Copies `bytes` through the run's execution: a kernel's tensors may be device memory. Without
// an execution (a kernel run on its own) they are host memory.
void CopyThroughRun(const KernelContext& ctx, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  if (hal::Execution* exec = ctx.exec()) {
    exec->Copy(dst, src, bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

HostTensor Copy(const TensorView& v) {
  HostTensor h(v.dtype, v.dims);
  if (!h.bytes.empty()) std::memcpy(h.bytes.data(), v.data, h.bytes.size());
  return h;
}

// Binds output i with `src`'s dims and copies it there, checking the type first.
Status EmitOutput(const NodeDef& def, KernelContext& ctx, size_t i, const TensorView& src) {
  if (i < def.output_types.size() && def.output_types[i] != DataType::kUndefined &&
      def.output_types[i] != src.dtype) {
    return def.Fail(code::kInvalidParam, "output ", i, " is ", ir::Name(def.output_types[i]),
                    " but the body produced ", ir::Name(src.dtype));
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.DynamicOutput(i, src.dims));
  if (out->dtype != src.dtype) {
    return def.Fail(code::kInvalidParam, "output ", i, " is ", ir::Name(out->dtype),
                    " but the body produced ", ir::Name(src.dtype));
  }
  CopyThroughRun(ctx, out->data, src.data, src.bytes());  // `src` is host memory (a body's)
  return Status::Ok();
}

// The body outputs of one iteration that a scan output stacks: every element must have the
// first one's type and dims.
struct Stacked {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  std::vector<HostTensor> elements;
};

Status AppendElement(const NodeDef& def, size_t index, HostTensor element, Stacked* s) {
  if (s->elements.empty()) {
    s->dtype = element.dtype;
    s->dims = element.dims;
  } else if (element.dtype != s->dtype || element.dims != s->dims) {
    return def.Fail(code::kInvalidParam, "scan output ", index, " is ", ir::Name(element.dtype),
                    " ", DimsString(element.dims), " in iteration ", s->elements.size(),
                    " but was ", ir::Name(s->dtype), " ", DimsString(s->dims),
                    " before; every iteration must produce the same type and shape");
  }
  s->elements.push_back(std::move(element));
  return Status::Ok();
}

// The dims of the element of a scan output that had no iterations: the planned output dims
// without the stacked axis (unknown dims as 0); none when the planned rank is unknown.
Dims EmptyElementDims(const NodeDef& def, size_t output, int64_t axis) {
  Dims planned = output < def.output_dims.size() ? def.output_dims[output] : Dims{};
  if (planned.empty()) return {};
  const std::optional<int64_t> a = NormalizeAxis(axis, static_cast<int64_t>(planned.size()));
  if (a) planned.erase(planned.begin() + *a);
  for (int64_t& d : planned) d = d < 0 ? 0 : d;
  return planned;
}

// Writes scan output `output`: the elements stacked along a new axis `axis` of the output (in
// reverse iteration order when `reverse`).
Status EmitStacked(const NodeDef& def, KernelContext& ctx, size_t output, const Stacked& s,
                   int64_t axis, bool reverse) {
  const int64_t len = static_cast<int64_t>(s.elements.size());
  const DataType dtype =
      len > 0 ? s.dtype : (output < def.output_types.size() ? def.output_types[output] : s.dtype);
  const Dims elem = len > 0 ? s.dims : EmptyElementDims(def, output, axis);
  const std::optional<int64_t> a = NormalizeAxis(axis, static_cast<int64_t>(elem.size()) + 1);
  if (!a) {
    return def.Fail(code::kInvalidParam, "scan output axis ", axis,
                    " is out of range for an output of rank ", elem.size() + 1);
  }
  Dims dims = elem;
  dims.insert(dims.begin() + *a, len);
  if (len > 0 && output < def.output_types.size() &&
      def.output_types[output] != DataType::kUndefined && def.output_types[output] != dtype) {
    return def.Fail(code::kInvalidParam, "output ", output, " is ",
                    ir::Name(def.output_types[output]), " but the body produced ", ir::Name(dtype));
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.DynamicOutput(output, dims));
  if (len == 0) return Status::Ok();
  if (out->dtype != dtype) {
    return def.Fail(code::kInvalidParam, "output ", output, " is ", ir::Name(out->dtype),
                    " but the body produced ", ir::Name(dtype));
  }
  const size_t es = ir::SizeOf(dtype);
  const int64_t outer = Product(elem, 0, static_cast<size_t>(*a));
  const size_t inner =
      static_cast<size_t>(Product(elem, static_cast<size_t>(*a), elem.size())) * es;
  uint8_t* dst = static_cast<uint8_t*>(out->data);
  for (int64_t t = 0; t < len; ++t) {
    const int64_t pos = reverse ? len - 1 - t : t;
    const uint8_t* src = s.elements[static_cast<size_t>(t)].bytes.data();
    for (int64_t o = 0; o < outer; ++o) {
      if (inner == 0) break;
      std::memcpy(dst + static_cast<size_t>(o * len + pos) * inner,
                  src + static_cast<size_t>(o) * inner, inner);
    }
  }
  return Status::Ok();
}

// ---- If ------------------------------------------------------------------------------------

// The condition, one bool read through the run's execution (device memory on a GPU).
Result<bool> ReadCondition(const NodeDef& def, KernelContext& ctx, const TensorView& t) {
  if (t.dtype != DataType::kBool || t.num_elements() != 1) {
    return def.Fail(code::kInvalidParam, "cond must be one bool value, got ", ir::Name(t.dtype),
                    " ", DimsString(t.dims));
  }
  uint8_t byte = 0;
  CopyThroughRun(ctx, &byte, t.data, 1);
  return byte != 0;
}

Status RunIf(const NodeDef& def, KernelContext& ctx) {
  const TensorView* cond_t = ctx.input(0);
  if (cond_t == nullptr) return def.Fail(code::kInvalidParam, "cond (input 0) is missing");
  KILN_ASSIGN_OR_RETURN(bool cond, ReadCondition(def, ctx, *cond_t));
  const char* branch = cond ? "then_branch" : "else_branch";
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outs, ctx.RunGraph(def.graph(branch), {}));
  if (outs.size() != ctx.num_outputs()) {
    return def.Fail(code::kInvalidParam, branch, " produced ", outs.size(), " output(s) for ",
                    ctx.num_outputs(), " node output(s)");
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, i, outs[i].view()), "");
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> MakeIf(const NodeDef& def) {
  for (const char* g : {"then_branch", "else_branch"}) {
    if (def.graph(g) < 0)
      return def.Fail(code::kInvalidParam, "graph attribute '", g, "' is missing");
  }
  return MakeFunctionKernel(def, RunIf);
}

// ---- Loop ----------------------------------------------------------------------------------

// Loop(M?, cond?, v_initial...) -> (v_final..., scan_outputs...); body(iteration_num, cond,
// v...) -> (cond, v..., scan_elements...). As the ONNX spec has it, the body's condition is
// ignored when M is given without cond; with neither, the body's condition is what ends the
// loop (the only reading under which such a loop can end, and ONNX Runtime's).
Status RunLoop(const NodeDef& def, KernelContext& ctx) {
  const int body = def.graph("body");
  const size_t n_carried = ctx.num_inputs() > 2 ? ctx.num_inputs() - 2 : 0;
  const size_t n_out = ctx.num_outputs();
  if (n_out < n_carried) {
    return def.Fail(code::kInvalidParam, "has ", n_out, " output(s) for ", n_carried,
                    " loop-carried value(s)");
  }
  const size_t n_scan = n_out - n_carried;
  const TensorView* m_t = ctx.input(0);
  const TensorView* cond_t = ctx.num_inputs() > 1 ? ctx.input(1) : nullptr;
  int64_t max_trips = 0;
  if (m_t != nullptr) {
    KILN_ASSIGN_OR_RETURN(max_trips,
                          ScalarInput<int64_t>(def, *m_t, DataType::kInt64, "M (trip count)"));
  }
  bool cond = true;
  if (cond_t != nullptr) {
    KILN_ASSIGN_OR_RETURN(cond, ScalarInput<bool>(def, *cond_t, DataType::kBool, "cond"));
  }
  const bool use_body_cond = cond_t != nullptr || m_t == nullptr;

  std::vector<HostTensor> carried;
  for (size_t k = 0; k < n_carried; ++k) {
    const TensorView* v = ctx.input(2 + k);
    if (v == nullptr) {
      return def.Fail(code::kInvalidParam, "loop-carried initial value ", k, " (input ", 2 + k,
                      ") is missing");
    }
    carried.push_back(Copy(*v));
  }
  std::vector<Stacked> scans(n_scan);
  for (int64_t iter = 0; (m_t == nullptr || iter < max_trips) && cond; ++iter) {
    HostTensor iter_t(DataType::kInt64, {});
    *reinterpret_cast<int64_t*>(iter_t.bytes.data()) = iter;
    HostTensor cond_in(DataType::kBool, {});
    cond_in.bytes[0] = 1;
    std::vector<TensorView> inputs{iter_t.view(), cond_in.view()};
    for (const HostTensor& c : carried) inputs.push_back(c.view());
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outs, ctx.RunGraph(body, inputs));
    if (outs.size() != 1 + n_out) {
      return def.Fail(code::kInvalidParam, "body produced ", outs.size(), " output(s); it needs ",
                      1 + n_out, " (condition, ", n_carried, " carried, ", n_scan, " scan)");
    }
    if (use_body_cond) {
      KILN_ASSIGN_OR_RETURN(cond, ScalarInput<bool>(def, outs[0].view(), DataType::kBool,
                                                    "body output 0 (the condition)"));
    }
    for (size_t k = 0; k < n_carried; ++k) {
      HostTensor& next = outs[1 + k];
      if (next.dtype != carried[k].dtype) {
        return def.Fail(code::kInvalidParam, "loop-carried value ", k, " starts as ",
                        ir::Name(carried[k].dtype), " but the body produced ",
                        ir::Name(next.dtype));
      }
      carried[k] = std::move(next);
    }
    for (size_t k = 0; k < n_scan; ++k) {
      KILN_RETURN_IF_ERROR(AppendElement(def, k, std::move(outs[1 + n_carried + k]), &scans[k]),
                           "");
    }
  }
  for (size_t k = 0; k < n_carried; ++k) {
    KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, k, carried[k].view()), "");
  }
  for (size_t k = 0; k < n_scan; ++k) {
    KILN_RETURN_IF_ERROR(EmitStacked(def, ctx, n_carried + k, scans[k], 0, false), "");
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> MakeLoop(const NodeDef& def) {
  if (def.graph("body") < 0)
    return def.Fail(code::kInvalidParam, "graph attribute 'body' is missing");
  return MakeFunctionKernel(def, RunLoop);
}

// ---- Scan ----------------------------------------------------------------------------------

// The attribute `name` of `n` entries (default all 0); each entry must lie in [lo, hi] when
// `check` is set.
Result<std::vector<int64_t>> ScanAttr(const NodeDef& def, const char* name, size_t n, bool check,
                                      int64_t lo = 0, int64_t hi = 1) {
  std::vector<int64_t> v = def.has_attr(name) ? def.attr_ints(name) : std::vector<int64_t>(n, 0);
  if (v.size() != n) {
    return def.Fail(code::kInvalidParam, "attribute '", name, "' has ", v.size(),
                    " entries; it needs ", n);
  }
  if (check) {
    for (int64_t x : v) {
      if (x < lo || x > hi) {
        return def.Fail(code::kInvalidParam, "attribute '", name, "' has entry ", x,
                        "; entries must lie in [", lo, ", ", hi, "]");
      }
    }
  }
  return v;
}

class ScanKernel final : public Kernel {
 public:
  ScanKernel(const NodeDef& def, size_t n_scan_in, std::vector<int64_t> in_axes,
             std::vector<int64_t> in_dirs, std::vector<int64_t> out_axes,
             std::vector<int64_t> out_dirs)
      : def_(def),
        n_scan_in_(n_scan_in),
        in_axes_(std::move(in_axes)),
        in_dirs_(std::move(in_dirs)),
        out_axes_(std::move(out_axes)),
        out_dirs_(std::move(out_dirs)) {}

  Status Run(KernelContext& ctx) const override {
    const size_t n_in = ctx.num_inputs();
    if (n_in < n_scan_in_) {
      return def_.Fail(code::kInvalidParam, "has ", n_in, " input(s) for ", n_scan_in_,
                       " scan input(s)");
    }
    const size_t n_state = n_in - n_scan_in_;
    const size_t n_out = ctx.num_outputs();
    if (n_out < n_state || n_out - n_state != out_axes_.size()) {
      return def_.Fail(code::kInvalidParam, "has ", n_out, " output(s); it needs ",
                       n_state + out_axes_.size(), " (", n_state, " state, ", out_axes_.size(),
                       " scan)");
    }
    const size_t n_scan_out = n_out - n_state;
    for (size_t i = 0; i < n_in; ++i) {
      if (ctx.input(i) == nullptr)
        return def_.Fail(code::kInvalidParam, "input ", i, " is missing");
    }

    // Each scan input as (outer, length, inner bytes) around its scan axis.
    struct Sliced {
      const uint8_t* data;
      DataType dtype;
      Dims slice_dims;
      int64_t outer;
      size_t inner;
    };
    std::vector<Sliced> sliced;
    int64_t len = -1;
    for (size_t j = 0; j < n_scan_in_; ++j) {
      const TensorView& x = *ctx.input(n_state + j);
      const std::optional<int64_t> a = NormalizeAxis(in_axes_[j], static_cast<int64_t>(x.rank()));
      if (!a) {
        return def_.Fail(code::kInvalidParam, "scan_input_axes[", j, "] = ", in_axes_[j],
                         " is out of range for scan input ", j, " ", DimsString(x.dims));
      }
      const size_t axis = static_cast<size_t>(*a);
      if (len >= 0 && x.dims[axis] != len) {
        return def_.Fail(code::kInvalidParam, "scan input ", j, " ", DimsString(x.dims),
                         " has length ", x.dims[axis], " along axis ", axis,
                         " but scan input 0 has length ", len);
      }
      len = x.dims[axis];
      Dims slice_dims = x.dims;
      slice_dims.erase(slice_dims.begin() + *a);
      sliced.push_back(
          {static_cast<const uint8_t*>(x.data), x.dtype, std::move(slice_dims),
           Product(x.dims, 0, axis),
           static_cast<size_t>(Product(x.dims, axis + 1, x.rank())) * ir::SizeOf(x.dtype)});
    }

    std::vector<HostTensor> state;
    for (size_t i = 0; i < n_state; ++i) state.push_back(Copy(*ctx.input(i)));
    std::vector<Stacked> scans(n_scan_out);
    for (int64_t t = 0; t < len; ++t) {
      std::vector<HostTensor> slices;
      for (size_t j = 0; j < n_scan_in_; ++j) {
        const Sliced& s = sliced[j];
        const int64_t idx = in_dirs_[j] != 0 ? len - 1 - t : t;
        HostTensor slice(s.dtype, s.slice_dims);
        for (int64_t o = 0; o < s.outer && s.inner != 0; ++o) {
          std::memcpy(slice.bytes.data() + static_cast<size_t>(o) * s.inner,
                      s.data + static_cast<size_t>(o * len + idx) * s.inner, s.inner);
        }
        slices.push_back(std::move(slice));
      }
      std::vector<TensorView> inputs;
      for (const HostTensor& h : state) inputs.push_back(h.view());
      for (const HostTensor& h : slices) inputs.push_back(h.view());
      KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outs, ctx.RunGraph(def_.graph("body"), inputs));
      if (outs.size() != n_out) {
        return def_.Fail(code::kInvalidParam, "body produced ", outs.size(),
                         " output(s); it needs ", n_out);
      }
      for (size_t i = 0; i < n_state; ++i) {
        if (outs[i].dtype != state[i].dtype) {
          return def_.Fail(code::kInvalidParam, "state variable ", i, " starts as ",
                           ir::Name(state[i].dtype), " but the body produced ",
                           ir::Name(outs[i].dtype));
        }
        state[i] = std::move(outs[i]);
      }
      for (size_t k = 0; k < n_scan_out; ++k) {
        KILN_RETURN_IF_ERROR(AppendElement(def_, k, std::move(outs[n_state + k]), &scans[k]), "");
      }
    }
    for (size_t i = 0; i < n_state; ++i) {
      KILN_RETURN_IF_ERROR(EmitOutput(def_, ctx, i, state[i].view()), "");
    }
    for (size_t k = 0; k < n_scan_out; ++k) {
      KILN_RETURN_IF_ERROR(
          EmitStacked(def_, ctx, n_state + k, scans[k], out_axes_[k], out_dirs_[k] != 0), "");
    }
    return Status::Ok();
  }

 private:
  NodeDef def_;
  size_t n_scan_in_;
  std::vector<int64_t> in_axes_;
  std::vector<int64_t> in_dirs_;
  std::vector<int64_t> out_axes_;
  std::vector<int64_t> out_dirs_;
};

Result<std::unique_ptr<Kernel>> MakeScan(const NodeDef& def) {
  if (def.opset < 9) {
    return def.Fail(code::kFeatureUnsupported, "Scan-8 (with a batch axis) is not supported");
  }
  if (def.graph("body") < 0)
    return def.Fail(code::kInvalidParam, "graph attribute 'body' is missing");
  const int64_t m = def.attr_int("num_scan_inputs");
  const int64_t n_in = static_cast<int64_t>(def.num_inputs());
  if (m < 1 || m > n_in) {
    return def.Fail(code::kInvalidParam, "attribute 'num_scan_inputs' is ", m,
                    "; it must lie in [1, ", n_in, "]");
  }
  const size_t n_scan_in = static_cast<size_t>(m);
  const size_t n_state = def.num_inputs() - n_scan_in;
  if (def.num_outputs() < n_state) {
    return def.Fail(code::kInvalidParam, "has ", def.num_outputs(), " output(s) for ", n_state,
                    " state variable(s)");
  }
  const size_t n_scan_out = def.num_outputs() - n_state;
  KILN_ASSIGN_OR_RETURN(auto in_axes, ScanAttr(def, "scan_input_axes", n_scan_in, false));
  KILN_ASSIGN_OR_RETURN(auto in_dirs, ScanAttr(def, "scan_input_directions", n_scan_in, true));
  KILN_ASSIGN_OR_RETURN(auto out_axes, ScanAttr(def, "scan_output_axes", n_scan_out, false));
  KILN_ASSIGN_OR_RETURN(auto out_dirs, ScanAttr(def, "scan_output_directions", n_scan_out, true));
  return std::unique_ptr<Kernel>(
      std::make_unique<ScanKernel>(def, n_scan_in, std::move(in_axes), std::move(in_dirs),
                                   std::move(out_axes), std::move(out_dirs)));
}

}  // namespace

void RegisterControlFlowKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, "", "If", MakeIf);
  r.Register(kReferenceBackend, "", "Loop", MakeLoop);
  r.Register(kReferenceBackend, "", "Scan", MakeScan);
}

}  // namespace kiln::kernels

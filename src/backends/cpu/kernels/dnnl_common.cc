// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/kernels/dnnl_common.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <utility>

#include "backends/cpu/cpu_allocator.h"
#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/kernels/elementwise_internal.h"
#include "base/memory_pages.h"
#include "kernels/cost.h"

namespace kiln::cpu {
namespace {

constexpr size_t kAlign = 64;

size_t AlignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::atomic<int64_t> g_reference_runs{0};

// A thread's arena of per-run buffers: grows, never shrinks, freed with the thread, its whole
// 2 MiB pages on huge pages (AlignedBuffer::Pages::kHuge). A probing arena (the scratchpads')
// starts each size on small pages instead, as oneDNN sizes a scratchpad for the worst case and
// runs may touch a part: kProbeAfter reservations after it last grew, it moves onto huge pages
// when that would at most double what of it is resident (each 2 MiB region runs touched becomes
// resident whole). PP-OCRv4 det's Winograd scratchpads (3.7 MB of pages resident in 7.3 MB of
// regions): its runs 0.96x the time; ResNet-50's (3.7 in 9.8: no faster on huge pages, 8.7 MB
// more resident) and YOLOv8n's (1.2 in 8.3) stay.
struct Arena {
  static constexpr uint32_t kProbeAfter = 512;
  static constexpr size_t kHugePage = size_t{2} << 20;
  explicit Arena(bool probing) : probing(probing) {}
  bool probing;
  std::unique_ptr<AlignedBuffer> buffer;
  uint32_t reservations = 0;  // since the buffer was made, counted up to kProbeAfter
  uint8_t* Reserve(size_t bytes) {
    using Pages = AlignedBuffer::Pages;
    if (bytes == 0) return nullptr;
    if (buffer == nullptr || buffer->size() < bytes) {
      const size_t grown = buffer ? std::max(bytes, buffer->size() + buffer->size() / 2) : bytes;
      buffer.reset();
      buffer = std::make_unique<AlignedBuffer>(grown, probing ? Pages::kSmall : Pages::kHuge);
      reservations = 0;
    } else if (probing && reservations < kProbeAfter && ++reservations == kProbeAfter &&
               buffer->size() >= kHugePage) {
      const size_t size = buffer->size();
      const Residency r = ResidentBytes(buffer->data(), size, kHugePage);
      if (r.pages != 0 && r.regions <= 2 * r.pages) {
        buffer.reset();  // no piece of it is in use when a run's Buffers call reserves
        buffer = std::make_unique<AlignedBuffer>(size, Pages::kHuge);
      }
    }
    return static_cast<uint8_t*>(buffer->data());
  }
};

}  // namespace

const dnnl::engine& Engine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::memory::dims ToDnnl(const Dims& dims) { return dnnl::memory::dims(dims.begin(), dims.end()); }

bool CpuHasBf16() {
  static const bool has = [] {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
  }();
  return has;
}

dnnl::memory::data_type MatrixInputType(const kernels::NodeDef& def) {
  return def.matrix_precision == kernels::MatrixPrecision::kBf16 && CpuHasBf16()
             ? dnnl::memory::data_type::bf16
             : dnnl::memory::data_type::f32;
}

dnnl::memory::desc PlainDesc(const Dims& dims, dnnl::memory::data_type dt) {
  return dnnl::memory::desc(ToDnnl(dims), dt, ToDnnl(kernels::Strides(dims)));
}

dnnl::memory::format_tag ChannelsLastTag(size_t rank, int64_t block) {
  using tag = dnnl::memory::format_tag;
  if (rank != 4) return tag::ndhwc;
  return block == 16 ? tag::nChw16c : block == 8 ? tag::nChw8c : tag::nhwc;
}

bool IsReferenceImpl(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

bool IsGemmImpl(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).find("gemm:") != std::string::npos;
}

dnnl::memory::data_type DnnlType(DataType t) {
  using dt = dnnl::memory::data_type;
  switch (t) {
    case DataType::kFloat32:
      return dt::f32;
    case DataType::kBFloat16:
      return dt::bf16;
    case DataType::kFloat16:
      return dt::f16;
    case DataType::kInt32:
      return dt::s32;
    case DataType::kInt8:
      return dt::s8;
    case DataType::kUint8:
      return dt::u8;
    default:
      return dt::undef;
  }
}

dnnl::memory::desc StridedDesc(const Dims& dims, const Dims& strides, dnnl::memory::data_type dt) {
  return dnnl::memory::desc(ToDnnl(dims), dt, ToDnnl(strides));
}

dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data) {
  return dnnl::memory(md, Engine(), const_cast<void*>(data));
}

AlignedBuffer::AlignedBuffer(size_t bytes, Pages pages) : size_(bytes) {
  constexpr size_t kMapFrom = size_t{2} << 20;  // a huge page
  if (pages == Pages::kHugeShared) {
    data_ = AllocateOnHugePages(bytes);
  } else if (bytes >= kMapFrom) {
    data_ = MapBlock(bytes, pages == Pages::kHuge);
  } else {
    data_.reset(static_cast<uint8_t*>(AllocateAligned(std::max<size_t>(bytes, 1), kAlign, false)),
                [](uint8_t* p) { std::free(p); });
  }
  if (data_ == nullptr) throw std::bad_alloc();
}

void DnnlRun::Buffers(std::initializer_list<size_t> sizes, size_t scratchpad) {
  thread_local Arena dense(/*probing=*/false), scratch(/*probing=*/true);
  size_t total = 0, i = 0;
  for (size_t s : sizes) total += i++ == scratchpad ? 0 : AlignUp(s);
  uint8_t* base = dense.Reserve(total);
  pieces_.clear();
  size_t offset = 0;
  i = 0;
  for (size_t s : sizes) {
    if (i++ == scratchpad) {
      pieces_.push_back(scratch.Reserve(s));
    } else {
      pieces_.push_back(s == 0 ? nullptr : base + offset);
      offset += AlignUp(s);
    }
  }
}

const dnnl::memory& DnnlRun::Memory(size_t slot, const dnnl::memory::desc& md, const void* data) {
  Slot& s = slots_[slot];
  if (s.mem && s.md == md) {
    s.mem->set_data_handle(const_cast<void*>(data));
  } else {
    s.mem.emplace(Wrap(md, data));
    s.md = md;
  }
  return *s.mem;
}

DnnlRun& DnnlRun::Helper() {
  if (!helper_) helper_ = std::make_unique<DnnlRun>();
  return *helper_;
}

dnnl::stream& DnnlRun::Stream() {
  if (!stream_) stream_.emplace(Engine());
  return *stream_;
}

void DnnlRun::Execute(const dnnl::primitive& prim, std::initializer_list<Arg> args,
                      const dnnl::memory::desc& scratch_md, void* scratch) {
  args_.clear();
  for (const Arg& a : args) {
    if (a.mem != nullptr) args_.push_back({a.id, a.mem->get()});
  }
  if (scratch_md.get_size() != 0) {
    args_.push_back({DNNL_ARG_SCRATCHPAD, Memory(kMaxMemories, scratch_md, scratch).get()});
  }
  dnnl::error::wrap_c_api(dnnl_primitive_execute(prim.get(), Stream().get(),
                                                 static_cast<int>(args_.size()), args_.data()),
                          "could not execute a primitive");
}

void DnnlRun::Wait() { Stream().wait(); }

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::reorder MakeReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                          dnnl::memory::desc& scratch) {
  dnnl::reorder::primitive_desc rpd(Engine(), from, Engine(), to, UserScratchpadAttr());
  if (rpd.scratchpad_desc().get_size() > scratch.get_size()) scratch = rpd.scratchpad_desc();
  return dnnl::reorder(rpd);
}

void ReorderOnce(const dnnl::memory::desc& src_md, const void* src,
                 const dnnl::memory::desc& dst_md, void* dst) {
  dnnl::stream stream(Engine());
  dnnl::memory s = Wrap(src_md, src), d = Wrap(dst_md, dst);
  dnnl::reorder(s, d).execute(stream, s, d);
  stream.wait();
}

const void* PackedWeights::Get(const dnnl::memory::desc& user_md, const void* data,
                               const dnnl::memory::desc& want) {
  if (source_ == nullptr) {
    source_md_ = user_md;
    source_ = data;
  }
  // The original itself, or another view of it, is about to be read.
  const bool original = want == user_md || data != source_ || user_md != source_md_;
  if (released_ && original) Restore();
  if (original) read_in_place_ = true;  // a plan reads the original: it must stay
  if (want == user_md) return data;
  for (const auto& [md, buffer] : packed_) {
    if (md == want) return buffer->data();
  }
  auto buffer = std::make_shared<AlignedBuffer>(want.get_size(), AlignedBuffer::Pages::kHugeShared);
  if (released_) {
    const auto& [md, exact] = packed_[exact_];
    ReorderOnce(md, exact->data(), want, buffer->data());
  } else {
    ReorderOnce(user_md, data, want, buffer->data());
  }
  packed_.emplace_back(want, buffer);
  return buffer->data();
}

bool PackedWeights::Release() {
  if (released_) return true;
  if (read_in_place_) return false;
  for (size_t i = 0; i < packed_.size(); ++i) {
    const dnnl_memory_desc_t& md = packed_[i].first.data;
    if (md.data_type == source_md_.data.data_type && md.format_kind == dnnl_blocked &&
        md.extra.flags == dnnl_memory_extra_flag_none) {
      exact_ = i;
      released_ = true;
      return true;
    }
  }
  return false;
}

void PackedWeights::Restore() {
  if (!released_) return;
  const auto& [md, exact] = packed_[exact_];
  ReorderOnce(md, exact->data(), source_md_, const_cast<void*>(source_));
  released_ = false;
}

void ReorderedPlan::PlanReorders(const dnnl::primitive_desc_base& pd, const void* w_const,
                                 PackedWeights& packed) {
  src_md = pd.src_desc();
  dst_md = pd.dst_desc();
  w_md = pd.weights_desc();
  scratch_md = pd.scratchpad_desc();
  if (w_const != nullptr) {
    weights = packed.Get(w_user_md, w_const, w_md);
  } else if (w_md != w_user_md) {
    // Computed weights (e.g. folded past the compiler's size limit): packed on every run.
    reorder_w = true;
    w_in = MakeReorder(w_user_md, w_md, scratch_md);
  }
  reorder_src = src_md != x_md;
  reorder_dst = dst_md != y_md;
  if (reorder_src) src_in = MakeReorder(x_md, src_md, scratch_md);
  if (reorder_dst) dst_out = MakeReorder(dst_md, y_md, scratch_md);
}

void RunReordered(const ReorderedPlan& p, const dnnl::primitive& prim, DnnlRun& run,
                  const TensorView& x, const TensorView& w, const TensorView* b,
                  const TensorView& y, size_t extra_bytes,
                  FunctionRef<void(const dnnl::memory& dst, void* scratch)> before_primitive,
                  const dnnl::memory* src_zero_point) {
  run.Buffers({p.reorder_src ? p.src_md.get_size() : 0, p.reorder_dst ? p.dst_md.get_size() : 0,
               p.reorder_w ? p.w_md.get_size() : 0, p.scratch_md.get_size(), extra_bytes},
              3);
  void* scratch = run.buffer(3);
  const dnnl::memory& x_mem = run.Memory(0, p.x_md, x.data);
  const dnnl::memory& y_mem = run.Memory(1, p.y_md, y.data);
  const dnnl::memory& src = p.reorder_src ? run.Memory(2, p.src_md, run.buffer(0)) : x_mem;
  const dnnl::memory& dst = p.reorder_dst ? run.Memory(3, p.dst_md, run.buffer(1)) : y_mem;
  const dnnl::memory* weights = nullptr;
  if (p.weights != nullptr) {
    weights = &run.Memory(4, p.w_md, p.weights);
  } else if (p.reorder_w) {
    weights = &run.Memory(4, p.w_md, run.buffer(2));
    run.Execute(p.w_in,
                {{DNNL_ARG_FROM, &run.Memory(5, p.w_user_md, w.data)}, {DNNL_ARG_TO, weights}},
                p.scratch_md, scratch);
  } else {
    weights = &run.Memory(4, p.w_md, w.data);
  }
  if (p.reorder_src) {
    run.Execute(p.src_in, {{DNNL_ARG_FROM, &x_mem}, {DNNL_ARG_TO, &src}}, p.scratch_md, scratch);
  }
  before_primitive(dst, scratch);
  run.Execute(prim,
              {{DNNL_ARG_SRC, &src},
               {DNNL_ARG_WEIGHTS, weights},
               {DNNL_ARG_DST, &dst},
               {DNNL_ARG_BIAS, b != nullptr ? &run.Memory(8, p.b_md, b->data) : nullptr},
               {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, src_zero_point}},
              p.scratch_md, scratch);
  if (p.reorder_dst) {
    run.Execute(p.dst_out, {{DNNL_ARG_FROM, &dst}, {DNNL_ARG_TO, &y_mem}}, p.scratch_md, scratch);
  }
  run.Wait();
}

Result<ActivationAttrs> ReadDnnlActivation(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(ActivationAttrs a, kernels::ReadActivation(def));
  // min(max(v, lo), hi) with lo > hi (or a NaN bound) is not what oneDNN's clip computes.
  if (a.kind == ActivationKind::kClip && !(a.alpha <= a.beta)) {
    return def.Fail(code::kFeatureUnsupported, "Clip bounds [", a.alpha, ", ", a.beta,
                    "] are not an interval");
  }
  return a;
}

void AppendActivation(const ActivationAttrs& act, dnnl::post_ops& ops, float scale, float shift) {
  using Kind = ActivationKind;
  using dnnl::algorithm;
  if (act.kind == Kind::kHardSigmoid) {
    // max(0, min(1, alpha * v + beta)); 2.6 has no op. A post affine (s, t) joins the linear
    // step, the clip's bounds moving with it (s * clip(u, 0, 1) + t = clip(s * u + t, lo, hi)
    // with lo, hi = t and s + t in order): a chain with a second eltwise_linear computes wrong
    // results in oneDNN 2.6 (measured on its convolutions).
    const float s = act.post_scale, t = act.post_shift;
    ops.append_eltwise(1.f, algorithm::eltwise_linear, act.alpha * scale * s,
                       (act.alpha * shift + act.beta) * s + t);
    ops.append_eltwise(1.f, algorithm::eltwise_clip_v2, std::min(t, s + t), std::max(t, s + t));
    return;
  }
  if (scale != 1.0f || shift != 0.0f) {
    ops.append_eltwise(1.f, algorithm::eltwise_linear, scale, shift);
  }
  switch (act.kind) {
    case Kind::kNone:
      break;
    case Kind::kRelu:
      ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
      break;
    case Kind::kLeakyRelu:
      ops.append_eltwise(1.f, algorithm::eltwise_relu, act.alpha, 0.f);
      break;
    case Kind::kClip:
      ops.append_eltwise(1.f, algorithm::eltwise_clip_v2, act.alpha, act.beta);
      break;
    case Kind::kSigmoid:
      ops.append_eltwise(1.f, algorithm::eltwise_logistic, 0.f, 0.f);
      break;
    case Kind::kTanh:
      ops.append_eltwise(1.f, algorithm::eltwise_tanh, 0.f, 0.f);
      break;
    case Kind::kHardSigmoid:  // above
      break;
    case Kind::kHardSwish:  // v * max(0, min(1, v / 6 + 1/2))
      ops.append_eltwise(1.f, algorithm::eltwise_hardswish, 0.f, 0.f);
      break;
    case Kind::kGelu:
      ops.append_eltwise(1.f, algorithm::eltwise_gelu_erf, 0.f, 0.f);
      break;
    case Kind::kSwish:  // v * sigmoid(alpha * v)
      ops.append_eltwise(1.f, algorithm::eltwise_swish, act.alpha, 0.f);
      break;
  }
  // (HardSigmoid took its post affine above.) A pre-linear (scale, shift) and a post affine
  // would make two eltwise_linear steps; only FusedConv has a post affine, and the convolution
  // kernel passes no pre-linear.
  if (act.has_post()) {
    ops.append_eltwise(1.f, algorithm::eltwise_linear, act.post_scale, act.post_shift);
  }
}

int64_t ReferenceRunCount() { return g_reference_runs.load(std::memory_order_relaxed); }

namespace internal {
void CountReferenceRun() { g_reference_runs.fetch_add(1, std::memory_order_relaxed); }
}  // namespace internal

DnnlKernel::DnnlKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
    : def_(def), reference_(std::move(reference)) {}

Status DnnlKernel::PrepareFirstPlan() {
  std::vector<const Dims*> dims;
  for (size_t i = 0; i < def_.num_inputs(); ++i) {
    if (!def_.input_given(i)) {
      dims.push_back(nullptr);
      continue;
    }
    const Dims& d = def_.input_dims[i];
    // A rank or a dim known only at run time: the plan is built on the first run.
    if (!def_.input_ranked(i) || std::any_of(d.begin(), d.end(), [](int64_t v) { return v < 0; })) {
      return Status::Ok();
    }
    // Inputs Run would not take (not float32, empty): no first plan, decided per run.
    if (FloatInput(i) &&
        (def_.input_types[i] != DataType::kFloat32 || kernels::NumElements(d) == 0)) {
      return Status::Ok();
    }
    dims.push_back(&d);
  }
  std::optional<Dims> key = Key(dims);
  if (!key) return Status::Ok();  // planned dims the kernel does not take: decided per run
  // Work every execution runs on one thread gets primitives that open no parallel region.
  const kernels::WorkEstimate work = PlannedWork();
  first_threads_ = WorthTeamWhenSpinning(work.ops, work.bytes) ? ComputeThreads() : 1;
  TeamScope team(first_threads_);
  auto plan = Build(*key);
  if (!plan.ok()) {
    return def_.Fail(code::kFeatureUnsupported,
                     "no onednn plan for the planned dims: ", plan.status().message());
  }
  first_key_ = std::move(*key);
  first_plan_ = std::move(plan).value();
  return Status::Ok();
}

kernels::WorkEstimate DnnlKernel::PlannedWork() const {
  std::vector<TensorView> views(def_.num_inputs() + def_.num_outputs());
  std::vector<const TensorView*> ins, outs;
  for (size_t i = 0; i < def_.num_inputs(); ++i) {
    views[i] = TensorView{def_.input_types[i], def_.input_dims[i], nullptr};
    ins.push_back(def_.input_given(i) ? &views[i] : nullptr);
  }
  for (size_t i = 0; i < def_.num_outputs(); ++i) {
    const Dims& d = def_.output_dims[i];
    if (!def_.output_ranked(i) ||
        std::any_of(d.begin(), d.end(), [](int64_t v) { return v < 0; })) {
      return {UINT64_MAX, 0};  // not known at load
    }
    TensorView& v = views[def_.num_inputs() + i];
    v = TensorView{def_.output_types[i], d, nullptr};
    outs.push_back(def_.output_used(i) ? &v : nullptr);
  }
  return kernels::EstimateWork(kernels::PrepareCost(def_), ins, outs)
      .value_or(kernels::WorkEstimate{UINT64_MAX, 0});
}

const Plan* DnnlKernel::FindPlan(const Dims& key, int threads,
                                 std::shared_ptr<const Plan>& hold) const {
  if (first_plan_ && first_threads_ <= threads && key == first_key_) return first_plan_.get();
  Dims cached = key;
  cached.push_back(threads);  // plans for one thread and for the team live side by side
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(cached);
  if (it != plans_.end()) {
    hold = it->second;
    return hold.get();
  }
  TeamScope team(threads);  // primitives made for the threads of the runs that use them
  auto plan = Build(key);
  hold = plan.ok() ? std::move(plan).value() : nullptr;
  // A full cache keeps its plans; a plan of other dims then lives for this run only.
  if (plans_.size() < kMaxCachedPlans) plans_.emplace(std::move(cached), hold);
  return hold.get();
}

bool DnnlKernel::ReleaseConstant(size_t i) {
  PackedWeights* weights = PackedInput(i);
  if (weights == nullptr) return false;
  std::lock_guard<std::mutex> lock(mu_);
  released_inputs_.reserve(released_inputs_.size() + 1);  // the push_back below cannot throw
  if (!weights->Release()) return false;
  released_inputs_.push_back(i);
  released_.store(true, std::memory_order_release);
  return true;
}

void DnnlKernel::RestoreConstants() const {
  if (!released_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i : released_inputs_) PackedInput(i)->Restore();
  released_inputs_.clear();
  released_.store(false, std::memory_order_release);
}

size_t DnnlKernel::cached_plans() const {
  std::lock_guard<std::mutex> lock(mu_);
  return plans_.size();
}

bool DnnlKernel::RunsPlannedDims(const KernelContext& ctx) const {
  if (!first_plan_ || ctx.num_inputs() != def_.num_inputs()) return false;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorView* t = ctx.input(i);
    if ((t != nullptr) != def_.input_given(i)) return false;
    if (t != nullptr && t->dims != def_.input_dims[i]) return false;
  }
  return true;
}

Status DnnlKernel::ExecuteGuarded(const Plan& plan, KernelContext& ctx) const {
  DnnlRun* run = static_cast<DnnlRun*>(ctx.state());
  std::optional<DnnlRun> local;
  if (run == nullptr) run = &local.emplace();
  try {
    return Execute(plan, ctx, *run);
  } catch (const dnnl::error& e) {
    return def_.Fail(code::kInternalError, "onednn execution failed: ", e.what());
  }
}

Status DnnlKernel::Run(KernelContext& ctx) const {
  // The threads this run may use: one when the execution runs this kernel on its calling thread
  // alone (hal::Execution::BeforeKernel, or a team of one), whose primitives must then be made
  // for one thread (oneDNN opens regions of the size a primitive was made for).
  const int threads = omp_get_max_threads() <= 1 ? 1 : ComputeThreads();
  // The planned dims (every run of a static model): the plan built at Prepare, no key.
  if (first_threads_ <= threads && RunsPlannedDims(ctx) && Takes(ctx)) {
    return ExecuteGuarded(*first_plan_, ctx);
  }
  std::vector<const Dims*> dims(ctx.num_inputs(), nullptr);
  bool take = Takes(ctx);
  for (size_t i = 0; take && i < dims.size(); ++i) {
    const TensorView* t = ctx.input(i);
    if (t == nullptr) continue;
    take = !FloatInput(i) || (t->dtype == DataType::kFloat32 && t->num_elements() > 0);
    dims[i] = &t->dims;
  }
  std::optional<Dims> key;
  if (take) key = Key(dims);
  std::shared_ptr<const Plan> hold;
  const Plan* plan = key ? FindPlan(*key, threads, hold) : nullptr;
  if (plan == nullptr) {
    internal::CountReferenceRun();
    RestoreConstants();  // the reference kernel reads the original weights
    kernels::ForwardingContext without_state(ctx);  // ctx.state() is this kernel's DnnlRun
    return reference_->Run(without_state);
  }
  return ExecuteGuarded(*plan, ctx);
}

void AppendKey(Dims& key, const Dims* dims) {
  if (dims == nullptr) {
    key.push_back(-1);
    return;
  }
  key.push_back(static_cast<int64_t>(dims->size()));
  key.insert(key.end(), dims->begin(), dims->end());
}

std::vector<std::optional<Dims>> SplitKey(const Dims& key, size_t count) {
  std::vector<std::optional<Dims>> out;
  size_t i = 0;
  while (out.size() < count && i < key.size()) {
    const int64_t rank = key[i++];
    if (rank < 0) {
      out.emplace_back(std::nullopt);
      continue;
    }
    const size_t end = std::min(key.size(), i + static_cast<size_t>(rank));
    out.emplace_back(
        Dims(key.begin() + static_cast<ptrdiff_t>(i), key.begin() + static_cast<ptrdiff_t>(end)));
    i = end;
  }
  out.resize(count);
  return out;
}

std::optional<float> ConstScale(const NodeDef& def, size_t i, int64_t at) {
  const TensorView* t = def.input_given(i) ? def.constant(i) : nullptr;
  if (t == nullptr || t->dtype != DataType::kFloat32 || at >= t->num_elements()) {
    return std::nullopt;
  }
  return t->as<const float>()[at];
}

std::optional<int32_t> ConstZeroPoint(const NodeDef& def, size_t i, int64_t at) {
  const TensorView* t = def.input_given(i) ? def.constant(i) : nullptr;
  if (t == nullptr || at >= t->num_elements()) return std::nullopt;
  if (t->dtype == DataType::kUint8) return int32_t{t->as<const uint8_t>()[at]};
  if (t->dtype == DataType::kInt8) return int32_t{t->as<const int8_t>()[at]};
  return std::nullopt;
}

bool ZeroPointsAreZero(const NodeDef& def, size_t i) {
  if (i >= def.num_inputs() || !def.input_given(i)) return true;
  const TensorView* t = def.constant(i);
  if (t == nullptr) return false;
  for (int64_t j = 0; j < t->num_elements(); ++j) {
    auto z = ConstZeroPoint(def, i, j);
    if (!z || *z != 0) return false;
  }
  return true;
}

int32_t RunTimeZeroPoint(const TensorView& zero_point) {
  return zero_point.dtype == DataType::kUint8 ? int32_t{zero_point.as<const uint8_t>()[0]}
                                              : int32_t{zero_point.as<const int8_t>()[0]};
}

Status RequireFloat32(const NodeDef& def) {
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (def.input_given(i) && def.input_types[i] != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "input ", i, " is ", ir::Name(def.input_types[i]),
                      "; the onednn kernel takes float32 only");
    }
  }
  for (size_t i = 0; i < def.num_outputs(); ++i) {
    DataType t = def.output_types[i];
    if (t != DataType::kUndefined && t != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "output ", i, " is ", ir::Name(t),
                      "; the onednn kernel takes float32 only");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> ReferenceKernel(const KernelRegistry& registry,
                                                const NodeDef& def) {
  return registry.Create(kernels::kReferenceBackend, def);
}

}  // namespace kiln::cpu

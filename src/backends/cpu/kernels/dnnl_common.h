// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What the CPU backend's oneDNN kernels share: the engine, plain memory descriptors, per-call
// buffers, the fused activations as oneDNN post-ops, and DnnlKernel — the base class that keeps
// one prepared plan (primitives + packed weights) per set of input dims and hands every run it
// cannot take to the node's reference kernel.
//
// Threading: a primitive is immutable and shared by concurrent runs; every execution slot keeps
// its own stream and memory objects (DnnlRun) and every run its scratchpad (scratchpad_mode::user,
// carved from a thread-local arena), so Run is thread-safe. oneDNN parallelises inside a primitive
// with OpenMP, on the executing thread's team (cpu_compute.h: sized per execution, shared with
// Kiln's own kernels); plans are built under FullTeamScope, since a primitive must not run on more
// threads than it was created for.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/kernels/register.h"
#include "base/function_ref.h"
#include "kernels/attrs.h"
#include "kernels/cost.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"
#include "kernels/util.h"

namespace kiln::cpu {

using kernels::ActivationAttrs;
using kernels::ActivationKind;
using kernels::DataType;
using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::KernelFactory;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::TensorView;

inline constexpr const char* kCpuBackend = "cpu";
inline constexpr const char* kKilnDomain = "com.kiln";

// The process's oneDNN CPU engine (created on first use; thread-safe).
const dnnl::engine& Engine();

dnnl::memory::dims ToDnnl(const Dims& dims);
// A dense row-major descriptor of `dims` (rank 1 to DNNL_MAX_NDIMS), float32 unless `dt` says.
dnnl::memory::desc PlainDesc(const Dims& dims,
                             dnnl::memory::data_type dt = dnnl::memory::data_type::f32);
// The order of a tensor channels_last keeps channels-last (kernels::ConvLayout): NHWC (NDHWC at
// rank 5), or with a channel `block` of 8 or 16 (rank 4 only) nChw8c / nChw16c.
dnnl::memory::format_tag ChannelsLastTag(size_t rank, int64_t block);
// Whether `pd` is oneDNN's reference implementation ("ref:any"), its slowest.
bool IsReferenceImpl(const dnnl::primitive_desc_base& pd);
// Whether `pd` is one of oneDNN's convolutions as gemm over im2col ("gemm:jit", "x64:gemm:jit").
bool IsGemmImpl(const dnnl::primitive_desc_base& pd);
// The oneDNN type of a Kiln element type oneDNN takes (float32, bfloat16, float16, int32, int8,
// uint8); undef otherwise.
dnnl::memory::data_type DnnlType(DataType t);

// The data type a matrix primitive (convolution, deconvolution, matmul) of node `def` takes
// its source and weights in: bf16 when the model was compiled for it (def.matrix_precision)
// and this CPU has bf16 arithmetic (AVX512_BF16 or AMX: oneDNN's effective ISA), else f32.
// Accumulation, bias and destination stay f32; the reorders into the primitive's layout convert.
dnnl::memory::data_type MatrixInputType(const kernels::NodeDef& def);
bool CpuHasBf16();
// A descriptor of `dims` with explicit element strides, float32 unless `dt` says.
dnnl::memory::desc StridedDesc(const Dims& dims, const Dims& strides,
                               dnnl::memory::data_type dt = dnnl::memory::data_type::f32);
// A memory object over `data` (not owned) with descriptor `md`.
dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data);

// A 64-byte aligned buffer (packed weights, a thread's arena of per-run buffers) on the pages of
// `pages`; from 2 MiB on a mapping of its own (MapBlock), below from the heap.
class AlignedBuffer {
 public:
  enum class Pages : uint8_t {
    kSmall,  // 4 KiB pages
    // From 2 MiB on, its whole 2 MiB pages on transparent huge pages (MapBlock): for data
    // every run writes whole (one TLB entry and one page fault per 2 MiB); wrong where a run may
    // touch a part, as a huge page's first touch makes all of it resident.
    kHuge,
    // On huge pages whatever its size, small ones sharing slabs (AllocateOnHugePages): for packed
    // weights, written whole once and read on every run (ResNet-50's load took 23 K fewer page
    // faults, 18 ms less; its runs 3 % less time with the small ones on huge pages too).
    kHugeShared,
  };
  explicit AlignedBuffer(size_t bytes, Pages pages = Pages::kSmall);
  void* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::shared_ptr<uint8_t> data_;
  size_t size_;
};

// What a DnnlKernel's runs in one execution slot reuse (the kernel's KernelState): a stream,
// memory objects re-pointed at each run's tensors, the argument array and the scratch pieces,
// so that a run of the dims the slot saw before allocates nothing in Kiln (oneDNN's own
// dnnl_primitive_execute still builds its argument map). A run outside a slot gets a fresh one.
class DnnlRun final : public kernels::KernelState {
 public:
  static constexpr size_t kMaxMemories = 10;
  struct Arg {
    int id;                   // DNNL_ARG_*
    const dnnl::memory* mem;  // null: the argument is left out
  };

  // Per-run buffers of the given sizes, sizes[scratchpad] the primitives' scratchpad: 64-byte
  // aligned pieces carved from two thread-local arenas that grow to the largest run seen on the
  // thread. The dense pieces (reordered activations, converted operands: written whole by every
  // run) come from one whose whole 2 MiB pages are on transparent huge pages; the scratchpad from
  // one on small pages until runs have touched enough of it (dnnl_common.cc, Arena), as oneDNN
  // sizes it for the worst case and a run may touch a part. PP-OCRv4 det: ~0.98x its time for
  // the dense pieces, ~0.96x more for the scratchpads. They stay valid until the next Buffers call
  // on the same thread; buffer(i) is null for a size of 0.
  void Buffers(std::initializer_list<size_t> sizes, size_t scratchpad);
  void* buffer(size_t i) const { return pieces_[i]; }

  // Memory object number `slot` (< kMaxMemories; one per object alive at once in a run):
  // descriptor `md` over `data` (not owned). The slot's object is re-pointed when it already
  // has `md`, else made anew.
  const dnnl::memory& Memory(size_t slot, const dnnl::memory::desc& md, const void* data);

  // Executes `prim` with `args`, adding DNNL_ARG_SCRATCHPAD over `scratch` when `scratch_md` is
  // not empty; the primitives of one run execute in order.
  void Execute(const dnnl::primitive& prim, std::initializer_list<Arg> args,
               const dnnl::memory::desc& scratch_md, void* scratch);
  // Finishes the executions.
  void Wait();

  // A second run object (its own stream and memory objects, made on first use) for primitives
  // a kernel executes on another thread at the same time as this one's (an RNN's two
  // directions).
  DnnlRun& Helper();

 private:
  struct Slot {
    dnnl::memory::desc md;
    std::optional<dnnl::memory> mem;
  };
  dnnl::stream& Stream();

  std::optional<dnnl::stream> stream_;
  std::array<Slot, kMaxMemories + 1> slots_;  // the last: the scratchpad
  std::vector<dnnl_exec_arg_t> args_;
  std::vector<void*> pieces_;
  std::unique_ptr<DnnlRun> helper_;
};

// Weights packed for primitives, shared by the plans of one kernel that want the same layout
// (plans for several batch sizes usually do). Not thread-safe: used from Build, which runs at
// Prepare or under the plan cache's lock, and from the kernel's Release/Restore under that lock.
class PackedWeights {
 public:
  // The weights `data` (laid out as `user_md`) in layout `want`: `data` itself when the layouts
  // match, else a packed copy made on first request. The first call names the original weights
  // (what Release and Restore mean). Once they are released, a new layout is packed from the
  // exact copy; a caller that wants the original (its own layout, or another view of it) gets
  // it written back first.
  const void* Get(const dnnl::memory::desc& user_md, const void* data,
                  const dnnl::memory::desc& want);
  // Lets the original weights go (their memory may read as zeros from now on): true when a
  // packed copy holds them exactly (their own data type, a plain blocked layout without
  // compensation that a reorder reads back, so not Winograd's or a bf16 conversion) and no
  // plan reads the original in place; false, and nothing changes, otherwise.
  bool Release();
  // Writes the released original back from that copy; a no-op when it is not released.
  void Restore();

 private:
  std::vector<std::pair<dnnl::memory::desc, std::shared_ptr<AlignedBuffer>>> packed_;
  dnnl::memory::desc source_md_;  // the original, as the first Get named it
  const void* source_ = nullptr;
  bool released_ = false;
  bool read_in_place_ = false;  // a plan reads the original itself (or another view of it)
  size_t exact_ = 0;            // packed_[exact_] holds the original exactly (while released_)
};

// Primitive attributes with a user scratchpad (every primitive here is shared across threads).
dnnl::primitive_attr UserScratchpadAttr();
// A reorder from `from` to `to` with a user scratchpad; grows `scratch` to its scratchpad when
// that is larger (a plan runs its primitives in turn over one scratchpad).
dnnl::reorder MakeReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                          dnnl::memory::desc& scratch);

// Reorders `src` (memory in `src_md`) into `dst` (in `dst_md`) once, on the calling thread (weight
// packing at Prepare).
void ReorderOnce(const dnnl::memory::desc& src_md, const void* src,
                 const dnnl::memory::desc& dst_md, void* dst);

// The `activation` attribute of Kiln's fused ops (kernels/attrs.h), for oneDNN eltwise
// post-ops: declines (kFeatureUnsupported) what oneDNN cannot express exactly.
Result<ActivationAttrs> ReadDnnlActivation(const NodeDef& def);
// Appends v -> act(scale * v + shift). At most one eltwise_linear is appended (HardSigmoid's
// own linear step takes scale and shift in): oneDNN 2.6's brgemm matmul applies the first
// linear's factors to every linear of a chain.
void AppendActivation(const ActivationAttrs& act, dnnl::post_ops& ops, float scale = 1.0f,
                      float shift = 0.0f);

// Runs `fn` (which builds primitives) and turns a dnnl::error into kFeatureUnsupported naming
// the node: oneDNN has no implementation for what was asked.
template <typename Fn>
Status Guard(const NodeDef& def, Fn&& fn) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    return def.Fail(code::kFeatureUnsupported, "onednn: ", e.what());
  }
  return Status::Ok();
}

// A prepared plan: everything a run needs besides the tensors (primitives, descriptors, packed
// weights). Immutable once built.
struct Plan {
  virtual ~Plan() = default;
};

// The plan of a primitive with weights whose tensors oneDNN may want in layouts of its own
// (convolution, deconvolution): the tensors as stored, as the primitive takes them, and the
// reorders between the two.
struct ReorderedPlan : Plan {
  dnnl::memory::desc x_md, y_md, w_user_md;  // the tensors as they are stored
  dnnl::memory::desc src_md, dst_md, w_md;   // as the primitive takes them
  dnnl::memory::desc b_md;
  const void* weights = nullptr;  // constant W in w_md: the constant itself or a packed copy
  bool reorder_src = false, reorder_dst = false, reorder_w = false;
  dnnl::reorder src_in, dst_out, w_in;  // x_md -> src_md, dst_md -> y_md, computed W -> w_md
  dnnl::memory::desc scratch_md;        // the largest scratchpad of the primitives, run in turn

  // Once the primitive `pd` is made (x_md, y_md, w_user_md set): takes its layouts and
  // scratchpad, packs the constant weights `w_const` (null: W is computed, reordered per run
  // when its layout differs) through `packed`, and makes the src/dst reorders.
  void PlanReorders(const dnnl::primitive_desc_base& pd, const void* w_const,
                    PackedWeights& packed);
};

// One run of `prim` under plan `p`: W, X reordered as planned, the primitive (with the bias
// `b` when given), Y reordered back. `before_primitive(dst, scratch)` runs just before the
// primitive (convolution's residual goes into dst there); `extra_bytes` more per-run buffer
// is its buffer(4).
// `src_zero_point`, when given, is the primitive's run-time zero point of X (one int32).
void RunReordered(const ReorderedPlan& p, const dnnl::primitive& prim, DnnlRun& run,
                  const TensorView& x, const TensorView& w, const TensorView* b,
                  const TensorView& y, size_t extra_bytes,
                  FunctionRef<void(const dnnl::memory& dst, void* scratch)> before_primitive,
                  const dnnl::memory* src_zero_point = nullptr);

// The base of every kernel here (oneDNN's, and nn.cc's own channel normalisation loops, whose
// plan is just the dims). A subclass says which input dims a plan depends on (Key),
// builds a plan for them (Build) and runs one (Execute); this class keeps the plan built at
// Prepare for the planned dims and a small mutex-guarded cache for dims first seen at run time
// (dynamic dims, gears) and for runs on one thread where the first plan was made for the team
// (the execution's threshold for parallel work rises while idle workers sleep: cpu_compute.h
// ParallelMinWorkNow; or concurrent executions leave a team of one). A run whose inputs the
// subclass does not take (Key returns nullopt, an input that is not float32 or is empty) or whose
// plan oneDNN cannot build runs the node's reference kernel, which also reports bad inputs.
class DnnlKernel : public Kernel {
 public:
  Status Run(KernelContext& ctx) const final;
  // Plans built at run time (dims first seen then, or a run on fewer threads than the first
  // plan was made for); for tests and diagnostics.
  size_t cached_plans() const;
  std::unique_ptr<kernels::KernelState> CreateState() const final {
    return std::make_unique<DnnlRun>();
  }

 protected:
  DnnlKernel(const NodeDef& def, std::unique_ptr<Kernel> reference);

  // The dims this run's plan depends on (typically the inputs' dims, concatenated with their
  // ranks), from the inputs' dims (null for an omitted input); nullopt when the kernel does not
  // take these inputs. Must not allocate outputs.
  virtual std::optional<Dims> Key(const std::vector<const Dims*>& inputs) const = 0;
  // Builds the plan for `key`: kFeatureUnsupported when oneDNN cannot.
  virtual Result<std::shared_ptr<const Plan>> Build(const Dims& key) const = 0;
  // Runs the node with `plan`: reads the bound outputs, executes the primitives through `run`.
  virtual Status Execute(const Plan& plan, KernelContext& ctx, DnnlRun& run) const = 0;
  // Whether this run (beyond its dims) is one the kernel takes, e.g. no optional output it
  // cannot write is wanted.
  virtual bool Takes(const KernelContext& ctx) const { return true; }
  // Whether input `i` must be a non-empty float32 tensor for a run to be taken (every input by
  // default; not an index input such as an RNN's sequence_lens, which Takes checks).
  virtual bool FloatInput(size_t i) const { return true; }

  // Builds the plan for the planned input dims when they are all known (call at the end of the
  // subclass's factory); a failure there declines the node.
  Status PrepareFirstPlan();

  // Constant weights: a kernel whose input `i` is a constant it packs (a convolution's W, a
  // matmul's B) returns the PackedWeights it packs them through; Kernel::ReleaseConstant and
  // RestoreConstants work on them.
  virtual PackedWeights* PackedInput(size_t i) const { return nullptr; }
  bool ReleaseConstant(size_t i) final;
  void RestoreConstants() const final;

  const NodeDef def_;

 private:
  const Plan* FindPlan(const Dims& key, int threads, std::shared_ptr<const Plan>& hold) const;
  // Whether this run's inputs are the planned ones (given as planned, the planned dims): the
  // first plan then serves it without computing a key.
  bool RunsPlannedDims(const KernelContext& ctx) const;
  // The node's work (kernels::EstimateWork) at the planned dims; ops UINT64_MAX when not known
  // at load.
  kernels::WorkEstimate PlannedWork() const;
  Status ExecuteGuarded(const Plan& plan, KernelContext& ctx) const;

  std::unique_ptr<Kernel> reference_;
  Dims first_key_;
  std::shared_ptr<const Plan> first_plan_;
  int first_threads_ = 1;  // the threads the first plan's primitives were made for
  static constexpr size_t kMaxCachedPlans = 16;
  mutable std::mutex mu_;
  // Key -> plan (null: oneDNN declined these dims; the reference kernel runs them).
  mutable std::map<Dims, std::shared_ptr<const Plan>> plans_;
  // Constant inputs whose originals were released (ReleaseConstant); `released_` is set while
  // any are, so a run checks it without the lock.
  mutable std::vector<size_t> released_inputs_;
  mutable std::atomic<bool> released_{false};
};

// Appends `dims` to `key` with its rank first (-1 for an omitted input), so the key of several
// inputs is unambiguous.
void AppendKey(Dims& key, const Dims* dims);
// The first `count` dims AppendKey appended to `key`, in order (nullopt for an omitted input).
std::vector<std::optional<Dims>> SplitKey(const Dims& key, size_t count);

// Element `at` of constant input i of `def` as a quantized op's parameter: a float32 scale, or
// an 8-bit zero point widened; nullopt when the input is absent, not constant, of another type
// or too short (the int8 kernels then leave the node to the reference kernel).
std::optional<float> ConstScale(const NodeDef& def, size_t i, int64_t at = 0);
std::optional<int32_t> ConstZeroPoint(const NodeDef& def, size_t i, int64_t at = 0);
// Whether input i of `def` (an int8 weight's zero points) is absent or a constant of zeros: the
// only weight zero points oneDNN's int8 primitives take.
bool ZeroPointsAreZero(const NodeDef& def, size_t i);
// Element 0 of a uint8 or int8 zero point given at run time, widened.
int32_t RunTimeZeroPoint(const TensorView& zero_point);

// Common Prepare checks: every given input and every output is float32 (kFeatureUnsupported
// otherwise, naming the node).
Status RequireFloat32(const NodeDef& def);

// The reference kernel of `def` (the fallback every cpu kernel holds).
Result<std::unique_ptr<Kernel>> ReferenceKernel(const KernelRegistry& registry, const NodeDef& def);

// Per-family registration (nn_conv.cc, nn_deconv.cc, nn_matmul.cc, nn.cc, nn_recurrent.cc,
// channel_shuffle.cc).
void RegisterCpuConvKernels(KernelRegistry& registry);
void RegisterCpuDeconvKernels(KernelRegistry& registry);
void RegisterCpuMatMulKernels(KernelRegistry& registry);
void RegisterCpuNnKernels(KernelRegistry& registry);
void RegisterCpuRecurrentKernels(KernelRegistry& registry);
void RegisterCpuShuffleKernels(KernelRegistry& registry);

}  // namespace kiln::cpu

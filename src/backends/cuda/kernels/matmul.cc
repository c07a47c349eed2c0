// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// MatMul, Gemm and Kiln's FusedMatMul / FusedGemm on cuBLASLt (float32 in, float32 compute: no
// TF32; in an fp16 / bf16 model A and B converted to that type for the call, float32
// accumulation and output), one strided-batched call (matmul_shape.h); Gemm's C (times beta,
// broadcast), a fused op's bias, activation and post affine step follow in one epilogue pass
// (epilogue.cu). Each execution slot keeps its cuBLASLt handle and the plan for the last dims it
// ran (descriptors, layouts and the heuristic's algorithm), so a run with the same dims only
// launches.
//
// cuBLASLt is column-major: a row-major X[r][c] is the column-major c×r matrix Xᵀ, so
// Y = op(A)·op(B) is computed as Yᵀ = op(B)ᵀ·op(A)ᵀ with B in cuBLASLt's A slot.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <utility>

#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/kernels/device_bytes.h"
#include "backends/cuda/kernels/matmul_shape.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::KernelState;
using kernels::NodeDef;
using kernels::TensorView;

constexpr uint64_t kMaxWorkspace = 32ull << 20;

enum class Form { kMatMul, kGemm, kFusedMatMul, kFusedGemm };

bool SameShape(const MatmulShape& a, const MatmulShape& b) {
  return a.batch == b.batch && a.m == b.m && a.n == b.n && a.k == b.k && a.a_stride == b.a_stride &&
         a.b_stride == b.b_stride && a.trans_a == b.trans_a && a.trans_b == b.trans_b;
}

// The type A and B go to cuBLASLt in: the model's matrix precision (register.h: ToHalf).
cudaDataType_t CudaTypeOf(kernels::MatrixPrecision precision) {
  switch (precision) {
    case kernels::MatrixPrecision::kFp16:
      return CUDA_R_16F;
    case kernels::MatrixPrecision::kBf16:
      return CUDA_R_16BF;
    case kernels::MatrixPrecision::kFp32:
      break;
  }
  return CUDA_R_32F;
}

// One slot's handle and plan (the plan for the dims and alignment it last ran).
class MatmulState final : public KernelState {
 public:
  // `in`: the type of A and B (D is float32).
  MatmulState(const CublasLtApi* lt, cudaDataType_t in) : lt_(lt), in_(in) {}
  ~MatmulState() override {
    Reset();
    if (handle_ != nullptr) lt_->Destroy(handle_);
  }

  // Runs D = alpha · op(A)·op(B) for `s` on `stream`.
  Status Run(const KernelContext& ctx, const MatmulShape& s, float alpha, const void* a,
             const void* b, float* d) {
    if (handle_ == nullptr) {
      KILN_RETURN_IF_ERROR(CublasStatus(lt_->Create(&handle_), "cublasLtCreate"), "");
    }
    // The alignment of cuBLASLt's A (our B), B (our A) and C/D: an algorithm is chosen for it.
    const std::array<uint32_t, 3> alignment = {CommonAlignment({b}, 256), CommonAlignment({a}, 256),
                                               CommonAlignment({d}, 256)};
    if (!planned_ || !SameShape(s, shape_) || alignment != alignment_) {
      KILN_RETURN_IF_ERROR(Plan(s, alignment), "");
    }
    RunScratch workspace(ctx, workspace_bytes_);
    if (!workspace.ok()) {
      return Error(code::kRtMemoryAllocation, "no ", workspace_bytes_,
                   " bytes of cuBLASLt workspace on the device");
    }
    const float beta = 0.0f;
    // cuBLASLt's A is our B, its B our A (the file comment).
    return CublasStatus(lt_->Matmul(handle_, desc_, &alpha, b, layout_[0], a, layout_[1], &beta, d,
                                    layout_[2], d, layout_[2], &algo_, workspace.data(),
                                    workspace_bytes_, static_cast<cudaStream_t>(StreamOf(ctx))),
                        "cublasLtMatmul");
  }

 private:
  Status Plan(const MatmulShape& s, const std::array<uint32_t, 3>& alignment) {
    Reset();
    const cublasOperation_t op_b = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_a = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    KILN_RETURN_IF_ERROR(
        CublasStatus(lt_->MatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "descriptor"),
        "");
    KILN_RETURN_IF_ERROR(CublasStatus(lt_->MatmulDescSetAttribute(
                                          desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b)),
                                      "TRANSA"),
                         "");
    KILN_RETURN_IF_ERROR(CublasStatus(lt_->MatmulDescSetAttribute(
                                          desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a)),
                                      "TRANSB"),
                         "");
    // Column-major views: B as stored is (trans_b ? k×n : n×k), A as stored (trans_a ? m×k :
    // k×m), D is n×m; each leading dimension is its row count.
    const uint64_t rows[3] = {static_cast<uint64_t>(s.trans_b ? s.k : s.n),
                              static_cast<uint64_t>(s.trans_a ? s.m : s.k),
                              static_cast<uint64_t>(s.n)};
    const uint64_t cols[3] = {static_cast<uint64_t>(s.trans_b ? s.n : s.k),
                              static_cast<uint64_t>(s.trans_a ? s.k : s.m),
                              static_cast<uint64_t>(s.m)};
    const int64_t strides[3] = {s.b_stride, s.a_stride, s.m * s.n};
    const int32_t batch = static_cast<int32_t>(s.batch);
    for (int i = 0; i < 3; ++i) {
      KILN_RETURN_IF_ERROR(
          CublasStatus(lt_->MatrixLayoutCreate(&layout_[i], i < 2 ? in_ : CUDA_R_32F, rows[i],
                                               cols[i], static_cast<int64_t>(rows[i])),
                       "matrix layout"),
          "");
      if (s.batch > 1) {
        KILN_RETURN_IF_ERROR(
            CublasStatus(lt_->MatrixLayoutSetAttribute(
                             layout_[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)),
                         "batch count"),
            "");
        KILN_RETURN_IF_ERROR(
            CublasStatus(lt_->MatrixLayoutSetAttribute(layout_[i],
                                                       CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                       &strides[i], sizeof(strides[i])),
                         "batch stride"),
            "");
      }
    }
    cublasLtMatmulPreference_t pref = nullptr;
    KILN_RETURN_IF_ERROR(CublasStatus(lt_->MatmulPreferenceCreate(&pref), "preference"), "");
    uint64_t max_workspace = kMaxWorkspace;
    cublasStatus_t st = lt_->MatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof(max_workspace));
    // Only algorithms that take the pointers' actual alignment (the default asks for 256 bytes).
    const cublasLtMatmulPreferenceAttributes_t kAlign[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && st == CUBLAS_STATUS_SUCCESS; ++i) {
      const uint32_t bytes = alignment[static_cast<size_t>(i < 2 ? i : 2)];
      st = lt_->MatmulPreferenceSetAttribute(pref, kAlign[i], &bytes, sizeof(bytes));
    }
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS) {
      st = lt_->MatmulAlgoGetHeuristic(handle_, desc_, layout_[0], layout_[1], layout_[2],
                                       layout_[2], pref, 1, &result, &found);
    }
    lt_->MatmulPreferenceDestroy(pref);
    KILN_RETURN_IF_ERROR(CublasStatus(st, "cublasLtMatmulAlgoGetHeuristic"), "");
    if (found == 0) {
      return Error(code::kFeatureUnsupported, "cuBLASLt has no algorithm for a ", s.batch, "×", s.m,
                   "×", s.n, "×", s.k, " matmul of these types and alignments");
    }
    algo_ = result.algo;
    workspace_bytes_ = result.workspaceSize;
    shape_ = s;
    alignment_ = alignment;
    planned_ = true;
    return Status::Ok();
  }

  void Reset() {
    for (auto& l : layout_) {
      if (l != nullptr) lt_->MatrixLayoutDestroy(l);
      l = nullptr;
    }
    if (desc_ != nullptr) lt_->MatmulDescDestroy(desc_);
    desc_ = nullptr;
    planned_ = false;
  }

  const CublasLtApi* lt_;
  cudaDataType_t in_;
  cublasLtHandle_t handle_ = nullptr;
  bool planned_ = false;
  MatmulShape shape_;
  std::array<uint32_t, 3> alignment_ = {};
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layout_[3] = {};  // cuBLASLt's A (our B), B (our A), C/D
  cublasLtMatmulAlgo_t algo_{};
  size_t workspace_bytes_ = 0;
};

class MatmulKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  MatmulKernel(Form form, const CublasLtApi* lt, kernels::MatrixPrecision precision,
               EpilogueParams epilogue, float alpha, float beta, bool trans_a, bool trans_b,
               DeviceBytes half_a, DeviceBytes half_b)
      : form_(form),
        lt_(lt),
        precision_(precision),
        epilogue_(epilogue),
        alpha_(alpha),
        beta_(beta),
        trans_a_(trans_a),
        trans_b_(trans_b),
        half_a_(std::move(half_a)),
        half_b_(std::move(half_b)) {}

  std::unique_ptr<KernelState> CreateState() const override {
    return std::make_unique<MatmulState>(lt_, CudaTypeOf(precision_));
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* a = ctx.input(0);
    const TensorView* b = ctx.input(1);
    TensorView* y = ctx.output(0);
    const bool gemm = form_ == Form::kGemm || form_ == Form::kFusedGemm;
    auto shape =
        gemm ? GemmShapeOf(a->dims, b->dims, trans_a_, trans_b_) : MatMulShapeOf(a->dims, b->dims);
    if (!shape.ok()) return shape.status();
    std::unique_ptr<MatmulState> own;
    auto* state = static_cast<MatmulState*>(ctx.state());
    if (state == nullptr) {
      own = std::make_unique<MatmulState>(lt_, CudaTypeOf(precision_));
      state = own.get();
    }
    float* out = static_cast<float*>(y->data);
    if (shape->m * shape->n * shape->batch != 0 && shape->k == 0) {
      // An empty sum: cuBLASLt is not asked; the epilogue adds to zeros.
      KILN_RETURN_IF_ERROR(
          Launched(static_cast<int>(cudaMemsetAsync(out, 0, y->bytes(),
                                                    static_cast<cudaStream_t>(StreamOf(ctx)))),
                   "clearing an empty matmul"),
          "");
    } else if (y->num_elements() != 0) {
      // An fp16 / bf16 model: A and B converted for this run, but for a constant converted at
      // load.
      const bool half = precision_ != kernels::MatrixPrecision::kFp32;
      const int64_t na = half && half_a_.data() == nullptr ? a->num_elements() : 0;
      const int64_t nb = half && half_b_.data() == nullptr ? b->num_elements() : 0;
      HalfScratch halves(ctx, {na, nb});
      if (!halves.ok()) {
        return Error(code::kRtMemoryAllocation, "no device memory for the matmul's half inputs");
      }
      const void* pa = half ? half_a_.data() : a->data;
      const void* pb = half ? half_b_.data() : b->data;
      if (na != 0) {
        KILN_RETURN_IF_ERROR(
            ToHalf(ctx, precision_, static_cast<const float*>(a->data), halves.part(0), na), "");
        pa = halves.part(0);
      }
      if (nb != 0) {
        KILN_RETURN_IF_ERROR(
            ToHalf(ctx, precision_, static_cast<const float*>(b->data), halves.part(1), nb), "");
        pb = halves.part(1);
      }
      KILN_RETURN_IF_ERROR(state->Run(ctx, *shape, alpha_, pa, pb, out), "");
    }
    EpilogueParams p = epilogue_;
    const TensorView* extra = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    if (extra != nullptr && extra->num_elements() != 0 && !(gemm && beta_ == 0.0f)) {
      if (gemm) {  // beta · C, broadcast to [M, N]
        KILN_RETURN_IF_ERROR(AddBroadcastTerm(p, *extra, beta_, *y, "Gemm: C"), "");
      } else {  // FusedMatMul's bias along the last dim: one value per column, or one in all
        const int64_t values = extra->num_elements();
        if (values != 1 && values != shape->n) {
          return Error(code::kInvalidParam, "FusedMatMul: the bias has ", values, " values for ",
                       shape->n, " output columns");
        }
        p.bias = static_cast<const float*>(extra->data);
        p.bias_inner = 1;
        p.bias_channels = values;
      }
    }
    if (!EpilogueDoesWork(p) || y->num_elements() == 0) return Status::Ok();
    return Launched(LaunchEpilogue(out, out, y->num_elements(), p, StreamOf(ctx)),
                    "launching a matmul epilogue");
  }

 private:
  Form form_;
  const CublasLtApi* lt_;
  kernels::MatrixPrecision precision_;
  EpilogueParams epilogue_;
  float alpha_, beta_;  // Gemm's (1 and 1 for MatMul)
  bool trans_a_, trans_b_;
  DeviceBytes half_a_, half_b_;  // A, B in the model's half type, when constants of a half model
};

Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def, Form form) {
  KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
  for (const char* flag : {"kiln_a_bf16", "kiln_y_bf16"}) {  // matmul_bf16_storage's, CPU only
    if (def.attr_int(flag) != 0) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA matrix product takes float32 (", flag,
                      " is set: the .om was compiled for the CPU's bf16 storage)");
    }
  }
  KILN_ASSIGN_OR_RETURN(const CublasLtApi* lt, CublasLt());
  const bool fused = form == Form::kFusedMatMul || form == Form::kFusedGemm;
  const bool gemm = form == Form::kGemm || form == Form::kFusedGemm;
  EpilogueParams epilogue;
  if (fused) {
    KILN_ASSIGN_OR_RETURN(epilogue, ReadEpilogue(def));
  }
  const bool trans_a = gemm && def.attr_int("transA") != 0;
  const bool trans_b = gemm && def.attr_int("transB") != 0;
  // Known dims are checked now, so a model cuBLASLt cannot run is refused at load.
  auto known = [&](size_t i) {
    return def.input_ranked(i) && !def.input_dims[i].empty() &&
           std::all_of(def.input_dims[i].begin(), def.input_dims[i].end(),
                       [](int64_t d) { return d >= 0; });
  };
  if (known(0) && known(1)) {
    auto shape = gemm ? GemmShapeOf(def.input_dims[0], def.input_dims[1], trans_a, trans_b)
                      : MatMulShapeOf(def.input_dims[0], def.input_dims[1]);
    if (!shape.ok()) return def.Fail(shape.status().code(), shape.status().message());
  }
  if (form == Form::kFusedMatMul && def.input_given(2) && known(2) && known(1) &&
      def.input_dims[1].size() >= 2) {
    const int64_t n = def.input_dims[1].back(), values = kernels::NumElements(def.input_dims[2]);
    if (values != 1 && values != n) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA FusedMatMul takes a bias of one value ",
                      "or ", n, " (one per output column), got ",
                      kernels::DimsString(def.input_dims[2]));
    }
  }
  KILN_ASSIGN_OR_RETURN(DeviceBytes half_a, UploadHalfConstant(def, 0));
  KILN_ASSIGN_OR_RETURN(DeviceBytes half_b, UploadHalfConstant(def, 1));
  return std::unique_ptr<Kernel>(std::make_unique<MatmulKernel>(
      form, lt, def.matrix_precision, epilogue, gemm ? def.attr_float("alpha") : 1.0f,
      gemm ? def.attr_float("beta") : 1.0f, trans_a, trans_b, std::move(half_a),
      std::move(half_b)));
}

}  // namespace

void RegisterCudaMatmulKernels(kernels::KernelRegistry& registry) {
  registry.Register(kCudaBackend, "", "MatMul",
                    [](const NodeDef& def) { return Prepare(def, Form::kMatMul); });
  registry.Register(kCudaBackend, "", "Gemm",
                    [](const NodeDef& def) { return Prepare(def, Form::kGemm); });
  registry.Register(kCudaBackend, "com.kiln", "FusedMatMul",
                    [](const NodeDef& def) { return Prepare(def, Form::kFusedMatMul); });
  registry.Register(kCudaBackend, "com.kiln", "FusedGemm",
                    [](const NodeDef& def) { return Prepare(def, Form::kFusedGemm); });
}

}  // namespace kiln::cuda

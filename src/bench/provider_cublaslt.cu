// The GPU baseline: cuBLASLt with its heuristic's first algorithm and a 32 MiB workspace, on
// the candidate's buffers, in column-major form (colmajor_form.hpp). fp32 accumulation for
// f32 / f16 / bf16 / fp8 inputs (no TF32 for f32), f64 for f64, i32 for i8. fp8 needs the TN
// form on Hopper (first operand transposed, second not); other forms report unsupported().
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "bench/colmajor_form.hpp"
#include "bench/provider.hpp"

namespace gemmkit::bench {

namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;

bool cuda_type(DType t, cudaDataType_t* out) {
  switch (t) {
    case DType::F64: *out = CUDA_R_64F; return true;
    case DType::F32: *out = CUDA_R_32F; return true;
    case DType::F16: *out = CUDA_R_16F; return true;
    case DType::BF16: *out = CUDA_R_16BF; return true;
    case DType::E4M3: *out = CUDA_R_8F_E4M3; return true;
    case DType::E5M2: *out = CUDA_R_8F_E5M2; return true;
    case DType::I8: *out = CUDA_R_8I; return true;
    case DType::I32: *out = CUDA_R_32I; return true;
    default: return false;
  }
}

bool is_fp8(DType t) { return t == DType::E4M3 || t == DType::E5M2; }

class CublasLtProvider final : public Provider {
 public:
  CublasLtProvider(const GemmDesc& desc, double alpha, double beta, bool fp32_reduction,
                   int sm_count_target)
      : desc_(with_default_lds(desc)),
        form_(colmajor_form(desc_)),
        fp32_reduction_(fp32_reduction),
        sm_count_target_(sm_count_target) {
    why_ = setup(alpha, beta);
  }
  ~CublasLtProvider() override {
    if (a_) cublasLtMatrixLayoutDestroy(a_);
    if (b_) cublasLtMatrixLayoutDestroy(b_);
    if (c_) cublasLtMatrixLayoutDestroy(c_);
    if (d_) cublasLtMatrixLayoutDestroy(d_);
    if (op_) cublasLtMatmulDescDestroy(op_);
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    if (handle_) cublasLtDestroy(handle_);
    if (workspace_) cudaFree(workspace_);
  }
  std::string provider() const override { return "cublas"; }
  std::string kernel() const override { return "cublasLtMatmul"; }
  std::string config() const override { return config_; }
  std::string unsupported() const override { return why_; }
  Status call(const OperandSet& s, void* stream) override {
    if (!why_.empty()) return Status{StatusCode::NotSupported, Arg::None, why_};
    const cublasStatus_t st = cublasLtMatmul(
        handle_, op_, alpha_ptr(), form_.first(s.a, s.b), a_, form_.second(s.a, s.b), b_,
        beta_ptr(), s.c, c_, s.d, d_, &algo_, workspace_, kWorkspaceBytes,
        static_cast<cudaStream_t>(stream));
    if (st != CUBLAS_STATUS_SUCCESS)
      return Status{StatusCode::ExecutionFailed, Arg::None,
                    std::string("cublasLtMatmul: ") + cublasLtGetStatusString(st)};
    return {};
  }

 private:
  // Returns "" on success, else why cuBLASLt cannot run this problem.
  std::string setup(double alpha, double beta) {
    if (desc_.epilogue.bias != BiasMode::None || desc_.epilogue.act != Activation::None)
      return "cublas: no bias or activation epilogue in this baseline";
    if (!form_.ok) return "cublas: " + form_.why;
    cudaDataType_t ta, tb, tc, td;
    if (!cuda_type(form_.dtype_first, &ta) || !cuda_type(form_.dtype_second, &tb) ||
        !cuda_type(desc_.c.dtype, &tc) || !cuda_type(desc_.d.dtype, &td))
      return "cublas: no cuBLASLt type for these dtypes";
    if (is_fp8(desc_.a.dtype) || is_fp8(desc_.b.dtype)) {
      if (!form_.trans_first || form_.trans_second)
        return "cublas: fp8 needs the TN form on Hopper (this problem is " + form_.ops() + ")";
    }
    cublasComputeType_t compute;
    switch (desc_.compute) {
      case DType::F64: compute = CUBLAS_COMPUTE_64F; scale_ = CUDA_R_64F; break;
      case DType::F32: compute = CUBLAS_COMPUTE_32F; scale_ = CUDA_R_32F; break;
      case DType::I32: compute = CUBLAS_COMPUTE_32I; scale_ = CUDA_R_32I; break;
      default: return "cublas: no compute type for accumulate " + std::string(dtype_name(desc_.compute));
    }
    alpha_f_ = static_cast<float>(alpha);
    beta_f_ = static_cast<float>(beta);
    alpha_d_ = alpha;
    beta_d_ = beta;
    alpha_i_ = static_cast<std::int32_t>(alpha);
    beta_i_ = static_cast<std::int32_t>(beta);

    if (std::string e = lt(cublasLtCreate(&handle_), "cublasLtCreate"); !e.empty()) return e;
    if (std::string e = lt(cublasLtMatmulDescCreate(&op_, compute, scale_), "MatmulDescCreate");
        !e.empty())
      return e;
    const cublasOperation_t opa = form_.trans_first ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opb = form_.trans_second ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (std::string e = lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &opa,
                                                          sizeof opa),
                           "set TRANSA");
        !e.empty())
      return e;
    if (std::string e = lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &opb,
                                                          sizeof opb),
                           "set TRANSB");
        !e.empty())
      return e;
    // The same SM budget as gemmkit's calls (Options::sm_count_target), where one is set.
    if (sm_count_target_ > 0) {
      const std::int32_t sms = sm_count_target_;
      if (std::string e = lt(cublasLtMatmulDescSetAttribute(
                                 op_, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sms, sizeof sms),
                             "set SM_COUNT_TARGET");
          !e.empty())
        return e;
    }
    const std::int64_t m = form_.m, n = form_.n, k = form_.k;
    if (std::string e = layout(&a_, ta, form_.trans_first ? k : m, form_.trans_first ? m : k,
                               form_.ld_first, form_.stride_first);
        !e.empty())
      return e;
    if (std::string e = layout(&b_, tb, form_.trans_second ? n : k, form_.trans_second ? k : n,
                               form_.ld_second, form_.stride_second);
        !e.empty())
      return e;
    if (std::string e = layout(&c_, tc, m, n, form_.ld_c, desc_.c.batch_stride); !e.empty())
      return e;
    if (std::string e = layout(&d_, td, m, n, form_.ld_d, desc_.d.batch_stride); !e.empty())
      return e;
    if (std::string e = lt(cublasLtMatmulPreferenceCreate(&pref_), "PreferenceCreate"); !e.empty())
      return e;
    const std::uint64_t ws = kWorkspaceBytes;
    if (std::string e = lt(cublasLtMatmulPreferenceSetAttribute(
                               pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                           "set MAX_WORKSPACE_BYTES");
        !e.empty())
      return e;
    if (fp32_reduction_) {
      // Split-K partials summed in a workspace of the compute type only: the in-place scheme
      // sums them in D (bf16 on 4097^3, outside the fp32-accumulation bound; H200, 2026-12-01).
      const std::uint32_t mask = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
      if (std::string e = lt(cublasLtMatmulPreferenceSetAttribute(
                                 pref_, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask,
                                 sizeof mask),
                             "set REDUCTION_SCHEME_MASK");
          !e.empty())
        return e;
    }
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    if (std::string e = lt(cublasLtMatmulAlgoGetHeuristic(handle_, op_, a_, b_, c_, d_, pref_, 1,
                                                          &result, &returned),
                           "cublasLtMatmulAlgoGetHeuristic");
        !e.empty())
      return e;
    if (returned == 0) return "cublas: the heuristic found no algorithm for this problem";
    algo_ = result.algo;
    if (cudaError_t e = cudaMalloc(&workspace_, kWorkspaceBytes); e != cudaSuccess) {
      cudaGetLastError();
      workspace_ = nullptr;
      return std::string("cublas: workspace cudaMalloc: ") + cudaGetErrorString(e);
    }
    int algo_id = -1, tile = -1, stages = -1, splitk = -1;
    cublasLtMatmulAlgoConfigGetAttribute(&algo_, CUBLASLT_ALGO_CONFIG_ID, &algo_id,
                                         sizeof algo_id, nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&algo_, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile,
                                         nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&algo_, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                         sizeof stages, nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&algo_, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                         sizeof splitk, nullptr);
    config_ = form_.ops() + " algo=" + std::to_string(algo_id) +
              " tile_id=" + std::to_string(tile) + " stages_id=" + std::to_string(stages) +
              " splitk=" + std::to_string(splitk) + " ws=32MiB" +
              (fp32_reduction_ ? " reduction=fp32" : "") +
              (sm_count_target_ > 0 ? " sms=" + std::to_string(sm_count_target_) : "");
    return {};
  }

  std::string layout(cublasLtMatrixLayout_t* out, cudaDataType_t t, std::int64_t rows,
                     std::int64_t cols, std::int64_t ld, std::int64_t stride) {
    if (std::string e = lt(cublasLtMatrixLayoutCreate(out, t, static_cast<std::uint64_t>(rows),
                                                      static_cast<std::uint64_t>(cols), ld),
                           "MatrixLayoutCreate");
        !e.empty())
      return e;
    if (desc_.batch > 1) {
      const std::int32_t count = static_cast<std::int32_t>(desc_.batch);
      if (std::string e = lt(cublasLtMatrixLayoutSetAttribute(
                                 *out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                             "set BATCH_COUNT");
          !e.empty())
        return e;
      if (std::string e = lt(cublasLtMatrixLayoutSetAttribute(
                                 *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                 sizeof stride),
                             "set STRIDED_BATCH_OFFSET");
          !e.empty())
        return e;
    }
    return {};
  }

  static std::string lt(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return {};
    return std::string("cublas: ") + what + ": " + cublasLtGetStatusString(s);
  }

  const void* alpha_ptr() const {
    return scale_ == CUDA_R_64F ? static_cast<const void*>(&alpha_d_)
           : scale_ == CUDA_R_32I ? static_cast<const void*>(&alpha_i_)
                                  : static_cast<const void*>(&alpha_f_);
  }
  const void* beta_ptr() const {
    return scale_ == CUDA_R_64F ? static_cast<const void*>(&beta_d_)
           : scale_ == CUDA_R_32I ? static_cast<const void*>(&beta_i_)
                                  : static_cast<const void*>(&beta_f_);
  }

  GemmDesc desc_;
  ColMajorForm form_;
  bool fp32_reduction_ = false;
  int sm_count_target_ = 0;
  std::string why_, config_;
  cudaDataType_t scale_ = CUDA_R_32F;
  float alpha_f_ = 1, beta_f_ = 0;
  double alpha_d_ = 1, beta_d_ = 0;
  std::int32_t alpha_i_ = 1, beta_i_ = 0;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr, d_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  void* workspace_ = nullptr;
};

}  // namespace

std::unique_ptr<Provider> make_cublaslt_provider(const GemmDesc& desc, double alpha, double beta,
                                                 bool fp32_reduction, int sm_count_target) {
  return std::make_unique<CublasLtProvider>(desc, alpha, beta, fp32_reduction, sm_count_target);
}

}  // namespace gemmkit::bench

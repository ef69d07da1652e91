// What the harness times: a provider issues one GEMM call on one set of operand buffers.
// gemmkit kernels, OpenBLAS and cuBLASLt are providers; the harness verifies each one through
// the testbed before it times it, and times candidate and baseline the same way.
#pragma once
#include <memory>
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

// One rotation set: pointers to A, B, C, D and the bias (host or device memory, as the backend
// needs).
struct OperandSet {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  const void* bias = nullptr;     // EpilogueDesc::bias: the set's copy of the case's bias
  const void* scale_a = nullptr;  // the case's scales (HostCase), shared by every set
  const void* scale_b = nullptr;
  const void* zero_b = nullptr;
  const float* scale_d = nullptr;  // EpilogueDesc::scale_d / amax_d: the case's, shared too
  float* amax_d = nullptr;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string provider() const = 0;  // "gemmkit", "openblas", "cublas"
  virtual std::string kernel() const = 0;    // kernel name or library routine
  virtual std::string config() const = 0;    // tile config / algorithm, may be empty
  // Why it cannot run this problem (empty when it can). Set before the first call.
  virtual std::string unsupported() const { return {}; }
  // Reads C from D's buffer (CBLAS computes C := alpha op(A) op(B) + beta C in place): the
  // harness then preloads D with C before verifying.
  virtual bool reads_c_from_d() const { return false; }
  // One call: host providers run it; device providers enqueue it on `stream`.
  virtual Status call(const OperandSet& s, void* stream) = 0;
};

// A registered gemmkit kernel called through gemm() with Options::kernel set (and
// Options::split_k, ::schedule, ::batch_invariant, ::dynamic_schedule, ::sm_count_target as
// given).
std::unique_ptr<Provider> make_gemmkit_provider(
    const GemmDesc& desc, double alpha, double beta, const std::string& kernel,
    const std::string& config, Backend backend, int threads, int split_k = 0,
    Schedule schedule = Schedule::Auto, bool batch_invariant = false, bool dynamic_schedule = false,
    int sm_count_target = 0);

// OpenBLAS through CBLAS (f32 and f64; other dtypes report unsupported()).
std::unique_ptr<Provider> make_openblas_provider(const GemmDesc& desc, double alpha, double beta,
                                                 int threads);

// cuBLASLt (heuristic algorithm, 32 MiB workspace). Without CUDA: unsupported().
// `fp32_reduction`: the heuristic may only pick split-K algorithms that sum the partials in a
// workspace of the compute type (CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK), not in D.
// `sm_count_target` > 0: CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET (gemmkit's --sm-count).
std::unique_ptr<Provider> make_cublaslt_provider(const GemmDesc& desc, double alpha, double beta,
                                                 bool fp32_reduction = false,
                                                 int sm_count_target = 0);

}  // namespace gemmkit::bench

// Microbenchmark: tile configs of the f32 FFMA and f64 DMMA kernels of src/cuda/simt (the kernel
// files included here, their configs instantiated side by side) against cuBLASLt with the same
// compute type (CUBLAS_COMPUTE_32F: no TF32; CUBLAS_COMPUTE_64F). Row-major D; A and B K-major
// ("k") or M / N-major ("o") in the canonical problem; U[-1, 1] data; cuda events around 10
// calls of each, 5 rounds alternated, the median round. Before timing, every variant's D is
// checked against a naive f64 kernel on the four arrangements at odd shapes.
// H200, 2026-12-03 (bench/results/h200-2026-12-03-f32f64-micro.txt; ratio = cuBLASLt time /
// ours), 4096^3, A k / B o: ffma BK/stages/thread tile 16/3/8x8 0.766, 8/4/8x8 0.710, 32/2/8x8
// 0.750, 16/3/8x16 0.764, 8/4/8x16 0.757; dmma m16n8k4 16/4 0.589, m8n8k4 16/4 0.377 (the
// same kernel on the sm_80 shape: 0.64x the rate), m16n8k4 16/3 0.581, 32/3 0.594, 8/6 0.526. By
// arrangement (16/3/8x8, m16n8k4 16/4): A o B o 0.818 / 0.692, A k B k 0.708 / 0.517: the
// transposing element copies of K-major operands cost 5-15%. Build: nvcc -O3 -std=c++20
// -gencode=arch=compute_90a,code=sm_90a -Isrc -Iinclude
//   bench/micro/simt_gemm.cu -lcublasLt -o simt_gemm
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/simt/simt.hpp"
// Variants of the tile configs: the kernel files themselves (their anonymous namespaces).
#include "cuda/simt/dgemm_dmma.cu"
#include "cuda/simt/sgemm_ffma.cu"

using namespace gemmkit;

namespace {

#define CK(x)                                                                  \
  do {                                                                         \
    if (auto e_ = (x); e_ != 0) {                                              \
      std::printf("%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

template <class T>
__global__ void ref_kernel(gpu::Params p, double alpha, double beta, double* out) {
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= p.m * p.n) return;
  const long r = i / p.n, c = i % p.n;
  const T* a = static_cast<const T*>(p.a.ptr);
  const T* b = static_cast<const T*>(p.b.ptr);
  double s = 0;
  for (long q = 0; q < p.k; ++q)
    s += (double)a[r * p.a.s_outer + q * p.a.s_k] * (double)b[c * p.b.s_outer + q * p.b.s_k];
  double v = alpha * s;
  if (beta != 0) v += beta * (double)static_cast<const T*>(p.c.ptr)[r * p.c.s_row + c];
  out[i] = v;
}

template <class T>
__global__ void fill(T* p, long n, unsigned seed) {
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = (unsigned)i * 2654435761u ^ seed;
  x ^= x >> 13, x *= 0x5bd1e995u, x ^= x >> 15;
  p[i] = (T)((x & 0xffffff) / double(0x800000) - 1.0);
}

// Variant v of the kernel of T: f32 FfmaConfig<BK, STAGES, TN>, f64 DmmaConfig<MMA_M, BK, STAGES>.
int g_variant = 0;
const char* const kF32Names[] = {"ffma 16/3/8x8 (production)", "ffma 8/4/8x8", "ffma 32/2/8x8",
                                 "ffma 16/3/8x16", "ffma 8/4/8x16"};
const char* const kF64Names[] = {"dmma m16n8k4 16/4 (production)", "dmma m8n8k4 16/4",
                                 "dmma m16n8k4 16/3", "dmma m16n8k4 32/3", "dmma m16n8k4 8/6"};
template <class T>
Status run(const gpu::Problem& pr, double alpha, double beta) {
  using namespace simt;
  if constexpr (sizeof(T) == 4) {
    const float a = (float)alpha, b = (float)beta;
    switch (g_variant) {
      case 0:
        return launch<FfmaConfig<16, 3, 8>>(pr, kFfmaKernels<FfmaConfig<16, 3, 8>>, a, b, 0);
      case 1:
        return launch<FfmaConfig<8, 4, 8>>(pr, kFfmaKernels<FfmaConfig<8, 4, 8>>, a, b, 0);
      case 2:
        return launch<FfmaConfig<32, 2, 8>>(pr, kFfmaKernels<FfmaConfig<32, 2, 8>>, a, b, 0);
      case 3:
        return launch<FfmaConfig<16, 3, 16>>(pr, kFfmaKernels<FfmaConfig<16, 3, 16>>, a, b, 0);
      default:
        return launch<FfmaConfig<8, 4, 16>>(pr, kFfmaKernels<FfmaConfig<8, 4, 16>>, a, b, 0);
    }
  } else {
    switch (g_variant) {
      case 0:
        return launch<DmmaConfig<16, 16, 4>>(pr, kDmmaKernels<DmmaConfig<16, 16, 4>>, alpha, beta,
                                             0);
      case 1:
        return launch<DmmaConfig<8, 16, 4>>(pr, kDmmaKernels<DmmaConfig<8, 16, 4>>, alpha, beta, 0);
      case 2:
        return launch<DmmaConfig<16, 16, 3>>(pr, kDmmaKernels<DmmaConfig<16, 16, 3>>, alpha, beta,
                                             0);
      case 3:
        return launch<DmmaConfig<16, 32, 3>>(pr, kDmmaKernels<DmmaConfig<16, 32, 3>>, alpha, beta,
                                             0);
      default:
        return launch<DmmaConfig<16, 8, 6>>(pr, kDmmaKernels<DmmaConfig<16, 8, 6>>, alpha, beta, 0);
    }
  }
}

// Row-major D (m, n); A (m, k) K-major or not, B (n, k) K-major or not, lds packed.
template <class T>
gpu::Problem problem(long m, long n, long k, bool ak, bool bk, T* a, T* b, T* c, T* d,
                     double beta) {
  using std::uintptr_t;
  gpu::Problem pr;
  gpu::Params& p = pr.params;
  p.m = m, p.n = n, p.k = k;
  p.a = {a, ak ? k : 1, ak ? 1 : m, 0, false};
  p.b = {b, bk ? k : 1, bk ? 1 : n, 0, false};
  const auto al = [](const void* q, long s_other) {
    return reinterpret_cast<uintptr_t>(q) % 16 == 0 && s_other % (16 / sizeof(T)) == 0;
  };
  p.a.vec16 = !ak && al(a, m);
  p.b.vec16 = !bk && al(b, n);
  p.c = {c, n, 1, 0, gpu::OutType::F32};
  p.d = {d, n, 1, 0, gpu::OutType::F32};
  p.read_ab = k > 0;
  p.read_c = beta != 0;
  pr.a_kmajor = ak, pr.b_kmajor = bk;
  return pr;
}

template <class T>
bool check(long m, long n, long k, bool ak, bool bk, double beta) {
  const long na = m * k, nb = n * k, nc = m * n;
  T *a, *b, *c, *d;
  double* ref;
  CK(cudaMalloc(&a, na * sizeof(T)));
  CK(cudaMalloc(&b, nb * sizeof(T)));
  CK(cudaMalloc(&c, nc * sizeof(T)));
  CK(cudaMalloc(&d, nc * sizeof(T)));
  CK(cudaMalloc(&ref, nc * sizeof(double)));
  fill<<<(na + 255) / 256, 256>>>(a, na, 1);
  fill<<<(nb + 255) / 256, 256>>>(b, nb, 2);
  fill<<<(nc + 255) / 256, 256>>>(c, nc, 3);
  const gpu::Problem pr = problem<T>(m, n, k, ak, bk, a, b, c, d, beta);
  CK(run<T>(pr, 1.5, beta).code == StatusCode::Success ? 0 : 1);
  ref_kernel<T><<<(nc + 255) / 256, 256>>>(pr.params, 1.5, beta, ref);
  CK(cudaDeviceSynchronize());
  std::vector<T> hd(nc);
  std::vector<double> hr(nc);
  CK(cudaMemcpy(hd.data(), d, nc * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), ref, nc * sizeof(double), cudaMemcpyDeviceToHost));
  const double eps = sizeof(T) == 4 ? 6e-8 : 1.2e-16;
  double worst = 0;
  for (long i = 0; i < nc; ++i) {
    const double err = std::fabs(hd[i] - hr[i]) / (eps * (1.5 * k + std::fabs(beta)) + 1e-300);
    if (!(err == err)) worst = 1e30;
    worst = std::max(worst, err);
  }
  std::printf(
      "v%d check %s %ldx%ldx%ld A%s B%s beta=%g: worst err / (eps (|alpha| k + |beta|)) = %.3g "
      "%s\n",
      g_variant, sizeof(T) == 4 ? "f32" : "f64", m, n, k, ak ? "k" : "o", bk ? "k" : "o", beta,
      worst, worst < 4 ? "ok" : "FAIL");
  cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d), cudaFree(ref);
  return worst < 4;
}

template <class T>
void bench(cublasLtHandle_t lt, long m, long n, long k, bool ak, bool bk, void* ws,
           size_t ws_bytes) {
  const bool f32 = sizeof(T) == 4;
  T *a, *b, *d;
  CK(cudaMalloc(&a, m * k * sizeof(T)));
  CK(cudaMalloc(&b, n * k * sizeof(T)));
  CK(cudaMalloc(&d, m * n * sizeof(T)));
  fill<<<(m * k + 255) / 256, 256>>>(a, m * k, 1);
  fill<<<(n * k + 255) / 256, 256>>>(b, n * k, 2);
  const gpu::Problem pr = problem<T>(m, n, k, ak, bk, a, b, d, d, 0.0);
  // cuBLASLt column-major: D^T (n x m) = B^T (n x k) * A^T (k x m); B^T is B (n, k): stored
  // (n x k, ld n) when B is N-major, else transposed (k x n, ld k); A^T likewise.
  const cudaDataType_t dt = f32 ? CUDA_R_32F : CUDA_R_64F;
  cublasLtMatmulDesc_t op;
  CK(cublasLtMatmulDescCreate(&op, f32 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F, dt));
  const cublasOperation_t tn = CUBLAS_OP_T;
  if (bk) CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tn, sizeof(tn)));
  if (!ak) CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tn, sizeof(tn)));
  cublasLtMatrixLayout_t la, lb, ld;
  CK(cublasLtMatrixLayoutCreate(&la, dt, bk ? k : n, bk ? n : k, bk ? k : n));
  CK(cublasLtMatrixLayoutCreate(&lb, dt, ak ? k : m, ak ? m : k, ak ? k : m));
  CK(cublasLtMatrixLayoutCreate(&ld, dt, n, m, n));
  cublasLtMatmulPreference_t pref;
  CK(cublasLtMatmulPreferenceCreate(&pref));
  CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                          sizeof(ws_bytes)));
  cublasLtMatmulHeuristicResult_t h{};
  int found = 0;
  CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &h, &found));
  const T one = 1, zero = 0;
  const auto cublas = [&] {
    CK(cublasLtMatmul(lt, op, &one, b, la, a, lb, &zero, d, ld, d, ld, &h.algo, ws, ws_bytes, 0));
  };
  const auto mine = [&] { CK(run<T>(pr, 1.0, 0.0).code == StatusCode::Success ? 0 : 1); };
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const auto time = [&](auto&& f) {
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 10; ++i) f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms / 10;
  };
  for (int i = 0; i < 3; ++i) mine(), cublas();
  std::vector<float> tm, tc;
  for (int r = 0; r < 5; ++r) tm.push_back(time(mine)), tc.push_back(time(cublas));
  std::sort(tm.begin(), tm.end());
  std::sort(tc.begin(), tc.end());
  const double fl = 2.0 * m * n * k;
  std::printf(
      "v%d %-30s A%s B%s bench %s %ldx%ldx%ld: simt %.3f ms %.1f TFLOP/s | cublasLt %.3f ms %.1f "
      "TFLOP/s | ratio %.3f\n",
      g_variant, f32 ? kF32Names[g_variant] : kF64Names[g_variant], ak ? "k" : "o", bk ? "k" : "o",
      f32 ? "f32" : "f64", m, n, k, tm[2], fl / tm[2] / 1e9, tc[2], fl / tc[2] / 1e9,
      tc[2] / tm[2]);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  cudaFree(a), cudaFree(b), cudaFree(d);
}

}  // namespace

int main() {
  bool ok = true;
  const long shapes[][3] = {{1000, 1023, 1025}, {129, 257, 33}, {1, 1, 1}, {255, 3, 700}};
  for (g_variant = 0; g_variant < 5; ++g_variant)
    for (const auto& s : shapes)
      for (int ar = 0; ar < 4; ++ar) {
        ok &= check<float>(s[0], s[1], s[2], ar & 1, ar & 2, ar == 3 ? 0.0 : 0.5);
        ok &= check<double>(s[0], s[1], s[2], ar & 1, ar & 2, ar == 3 ? 0.0 : 0.5);
      }
  std::printf("%s\n", ok ? "ALL CHECKS OK" : "SOME CHECKS FAILED");
  cublasLtHandle_t lt;
  CK(cublasLtCreate(&lt));
  void* ws;
  const size_t ws_bytes = 32 << 20;
  CK(cudaMalloc(&ws, ws_bytes));
  for (g_variant = 0; g_variant < 5; ++g_variant) {
    bench<float>(lt, 4096, 4096, 4096, true, false, ws, ws_bytes);
    bench<double>(lt, 4096, 4096, 4096, true, false, ws, ws_bytes);
  }
  g_variant = 0;
  for (int ar = 0; ar < 4; ++ar) {
    bench<float>(lt, 4096, 4096, 4096, ar & 1, ar & 2, ws, ws_bytes);
    bench<double>(lt, 4096, 4096, 4096, ar & 1, ar & 2, ws, ws_bytes);
  }
  bench<float>(lt, 8192, 8192, 8192, true, false, ws, ws_bytes);
  bench<double>(lt, 8192, 8192, 8192, true, false, ws, ws_bytes);
  g_variant = 3;
  bench<float>(lt, 8192, 8192, 8192, true, false, ws, ws_bytes);
  g_variant = 0;
  for (long s : {1024L, 2048L}) {
    bench<float>(lt, s, s, s, true, false, ws, ws_bytes);
    bench<double>(lt, s, s, s, true, false, ws, ws_bytes);
  }
  bench<float>(lt, 4095, 4097, 4093, true, false, ws, ws_bytes);
  return ok ? 0 : 1;
}

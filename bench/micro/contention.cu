// Microbenchmark: a GEMM sharing the GPU with another kernel. A "hog" kernel on a second
// stream holds a third of the SMs (one CTA per SM: most of its shared memory) for a set time,
// as a communication kernel of a tensor-parallel layer does; the GEMM is launched on the first
// stream as soon as every hog CTA is resident. Timed from the GEMM's launch to its end (events
// on its stream), median of 15; each configuration also alone. Configurations: gemmkit's
// planner with the fixed deal of its persistent kernel, the same with
// Options::dynamic_schedule (tiles from a counter), and cuBLASLt (bf16, f32 accumulation).
// Build (after the library, in build-device/):
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Iinclude
//   bench/micro/contention.cu -o contention -Lbuild-device -lgemmkit -lcublasLt
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gemmkit/gemm.hpp"

namespace {

// Holds its SM (~200 KiB of shared memory: nothing else fits beside it) for `ns`
// nanoseconds after every hog CTA has started; `started` counts them in.
__global__ void hog(unsigned long long ns, unsigned* started) {
  extern __shared__ unsigned char pad[];
  if (threadIdx.x == 0) {
    atomicAdd(started, 1u);
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
    pad[0] = 1;
  }
}

// Waits on the GEMM's stream until `want` hog CTAs are resident.
__global__ void wait_for(const volatile unsigned* started, unsigned want) {
  while (*started < want) {
  }
}

#define CHECK(x)                                                                        \
  do {                                                                                  \
    if (auto e_ = (x); e_ != 0) {                                                       \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 8192;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int hogs = argc > 2 ? std::atoi(argv[2]) : sms / 3;
  constexpr int kHogSmem = 200 * 1024;
  CHECK(cudaFuncSetAttribute(hog, cudaFuncAttributeMaxDynamicSharedMemorySize, kHogSmem));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  __nv_bfloat16 *a, *b, *d;
  const size_t elems = static_cast<size_t>(n) * n;
  CHECK(cudaMalloc(&a, elems * 2));
  CHECK(cudaMalloc(&b, elems * 2));
  CHECK(cudaMalloc(&d, elems * 2));
  CHECK(cudaMemset(a, 0x3c, elems * 2));  // bf16 1.15: the values do not matter here
  CHECK(cudaMemset(b, 0x3c, elems * 2));
  unsigned* started;
  CHECK(cudaMalloc(&started, 4));

  using gemmkit::DType;
  using gemmkit::Layout;
  gemmkit::GemmDesc desc{.m = n, .n = n, .k = n};
  desc.a = desc.b = desc.c = desc.d = {.dtype = DType::BF16, .layout = Layout::RowMajor};
  const gemmkit::GemmArgs args{.a = a, .b = b, .c = d, .d = d, .alpha = 1.0, .beta = 0.0};

  cublasLtHandle_t lt;
  CHECK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op;
  CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t la, lb, ld;  // column-major views of the row-major operands: D^T = B^T A^T
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, n, n, n));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, n, n, n));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, n, n));
  void* lt_ws;
  const size_t lt_ws_bytes = 64 << 20;
  CHECK(cudaMalloc(&lt_ws, lt_ws_bytes));
  cublasLtMatmulPreference_t pref;
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &lt_ws_bytes, sizeof lt_ws_bytes));
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, lb, la, ld, ld, pref, 1, &heur, &found));
  const float one = 1.f, zero = 0.f;

  struct Config {
    const char* name;
    int kind;  // 0 gemmkit static, 1 gemmkit dynamic, 2 cuBLASLt
  };
  const Config configs[] = {
      {"gemmkit, fixed deal", 0}, {"gemmkit, dynamic_schedule", 1}, {"cuBLASLt", 2}};
  const auto run = [&](int kind) {
    if (kind == 2) {
      CHECK(cublasLtMatmul(lt, op, &one, b, lb, a, la, &zero, d, ld, d, ld, &heur.algo, lt_ws,
                           lt_ws_bytes, s1));
      return;
    }
    gemmkit::Options opt{.backend = gemmkit::Backend::Cuda, .stream = s1};
    opt.dynamic_schedule = kind == 1;
    const gemmkit::Status st = gemmkit::gemm(desc, args, opt);
    if (!st) {
      std::fprintf(stderr, "gemm: %s\n", gemmkit::to_string(st).c_str());
      std::exit(1);
    }
  };
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  // Alone first (also the hog's length: half the fixed deal's time).
  const auto time = [&](int kind, int hog_ctas, unsigned long long hog_ns) {
    std::vector<float> v;
    for (int i = 0; i < 17; ++i) {
      CHECK(cudaMemsetAsync(started, 0, 4, s1));
      CHECK(cudaStreamSynchronize(s1));
      if (hog_ctas > 0) {
        hog<<<hog_ctas, 32, kHogSmem, s2>>>(hog_ns, started);
        wait_for<<<1, 1, 0, s1>>>(started, hog_ctas);
      }
      CHECK(cudaEventRecord(e0, s1));
      run(kind);
      CHECK(cudaEventRecord(e1, s1));
      CHECK(cudaDeviceSynchronize());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 2) v.push_back(ms);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("%ld^3 bf16, row-major, %d SMs; hog: %d CTAs (one an SM)\n", n, sms, hogs);
  float alone[3];
  for (const Config& c : configs) {
    alone[c.kind] = time(c.kind, 0, 0);
    std::printf("  alone       %-28s %8.3f ms  %6.1f TFLOP/s\n", c.name, alone[c.kind],
                2.0 * n * n * n / (alone[c.kind] * 1e-3) / 1e12);
  }
  for (const double frac : {0.25, 0.5, 0.75}) {
    const auto hog_ns = static_cast<unsigned long long>(alone[0] * 1e6 * frac);
    std::printf("hog holds %d SMs for %.0f us (%.0f%% of the fixed deal alone):\n", hogs,
                hog_ns * 1e-3, frac * 100);
    float t[3];
    for (const Config& c : configs) {
      t[c.kind] = time(c.kind, hogs, hog_ns);
      std::printf("  contended   %-28s %8.3f ms  %6.1f TFLOP/s\n", c.name, t[c.kind],
                  2.0 * n * n * n / (t[c.kind] * 1e-3) / 1e12);
    }
    std::printf("  dynamic / fixed deal: %.3fx   dynamic / cuBLASLt: %.3fx\n", t[0] / t[1],
                t[2] / t[1]);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("no error\n");
  return 0;
}

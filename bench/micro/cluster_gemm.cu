// Microbenchmark: the library's sm90_gemm_tma_ws kernel (src/cuda/sm90/gemm_tma_ws.cuh) with
// and without a cluster of two CTAs (B tiles multicast), the same tile, warm caches, event
// timed: is the clustered path slower, and by how much, on squares and on a split-K row?
// bf16, A and B K-major, D row-major bf16.
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc -Iinclude
//   --expt-relaxed-constexpr bench/micro/cluster_gemm.cu -o cluster_gemm -lcuda
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda/sm90/gemm_tma_ws.cuh"

namespace {

using namespace gemmkit;
using T = __nv_bfloat16;

template <int BLK_N, int STAGES, int CLUSTER>
double run(long m, long n, long k, long splits, void* a, void* b, void* d, float* partial) {
  using K = sm90::GemmTmaWs<T, BLK_N, STAGES, true, true, CLUSTER>;
  gpu::Params p;
  p.m = m, p.n = n, p.k = k;
  p.a = {a, k, 1, 0, true};
  p.b = {b, k, 1, 0, true};
  p.d = {d, n, 1, 0, gpu::OutType::BF16};
  p.c = p.d;
  sm90::TmaMaps maps;
  if (!tma::encode_16bit(&maps.a, a, k, m, k, 1, 0, 64, K::BLK_M) ||
      !tma::encode_16bit(&maps.b, b, k, n, k, 1, 0, 64, K::kBRows))
    return -1;
  const sched::Problem sp{.m = m,
                          .n = n,
                          .k_iters = (k + 63) / 64,
                          .batch = 1,
                          .tile_m = K::BLK_M * CLUSTER,
                          .tile_n = BLK_N};
  const bool split = splits > 1;
  sched::Params params = sched::make_params(
      sp, split ? sched::Mode::SplitK : sched::Mode::DataParallel, 132 / CLUSTER, 8, splits, 8);
  params.workers = std::min<long>(params.tiles() * params.splits, 132 / CLUSTER);
  sm90::SplitWorkspace ws{partial, nullptr};
  auto fn = sm90::sm90_gemm_tma_ws_kernel<T, BLK_N, STAGES, true, true, CLUSTER>;
  cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim = {CLUSTER, 1, 1};
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(params.workers * CLUSTER));
  cfg.blockDim = dim3(K::kThreads);
  cfg.dynamicSmemBytes = K::kSmemBytes;
  cfg.attrs = &attr;
  cfg.numAttrs = CLUSTER > 1 ? 1 : 0;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> v;
  for (int r = 0; r < 23; ++r) {
    cudaEventRecord(e0);
    cudaLaunchKernelEx(&cfg, fn, p, maps, params, ws);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r >= 3) v.push_back(ms * 1e3);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (cudaGetLastError() != cudaSuccess) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const std::size_t big = std::size_t{160} << 20;
  void *a = nullptr, *b = nullptr, *d = nullptr;
  float* partial = nullptr;
  cudaMalloc(&a, big);
  cudaMalloc(&b, big);
  cudaMalloc(&d, big);
  cudaMalloc(&partial, std::size_t{256} << 20);
  cudaMemset(a, 0, big);
  cudaMemset(b, 0, big);
  struct Shape {
    long m, n, k, splits;
  };
  const Shape shapes[] = {{4096, 4096, 4096, 1},
                          {8192, 8192, 8192, 1},
                          {2048, 2048, 2048, 1},
                          {256, 256, 32768, 32},
                          {256, 256, 32768, 16}};
  std::printf("us, event-timed medians of 20 warm calls\n");
  std::printf("%-22s %12s %12s %12s %12s\n", "shape", "128x128", "128x128 c2", "128x256",
              "128x256 c2");
  for (const Shape& s : shapes) {
    const double t1 = run<128, 6, 1>(s.m, s.n, s.k, s.splits, a, b, d, partial);
    const double t2 = run<128, 6, 2>(s.m, s.n, s.k, s.splits, a, b, d, partial);
    const double t3 = run<256, 4, 1>(s.m, s.n, s.k, s.splits, a, b, d, partial);
    const double t4 = run<256, 4, 2>(s.m, s.n, s.k, s.splits, a, b, d, partial);
    std::printf("%5ldx%5ldx%5ld s%-3ld %12.2f %12.2f %12.2f %12.2f\n", s.m, s.n, s.k, s.splits, t1,
                t2, t3, t4);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess ? 1 : 0;
}

// Microbenchmark: where the time of a short sm90_gemm_tma_ws call goes. The kernel is the
// library's (src/cuda/sm90/gemm_tma_ws.cuh), compiled here with its timeline marks defined:
// each CTA records %globaltimer at the marks 0-7 (entry, barriers initialized, previous kernel
// done, first copy issued, last copy issued, first stage arrived, accumulators complete, tile
// stored), and the host brackets each launch with events. Caches cold (a read of 256 MiB
// between calls) or warm; bf16, A and B K-major, D row-major bf16. First, the epilogue of one
// 128 x 128 tile alone (the consumers' store_warp_tile in a CTA of the kernel's shape), its
// parameters read from the parameter bank or held in registers (gpu::in_registers).
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc -Iinclude
//   --expt-relaxed-constexpr bench/micro/sm90_timeline.cu -o sm90_timeline -lcuda
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/sm90/gemm_tma_ws.cuh"
#include "timeline.cuh"  // the marks, before the kernel

namespace {

using namespace gemmkit;
using T = __nv_bfloat16;
constexpr int kBlkN = 128, kStages = 6;
using K = sm90::GemmTmaWs<T, kBlkN, kStages, true, true, 1>;

char* g_evict = nullptr;
unsigned* g_sink = nullptr;

constexpr std::size_t kEvict = std::size_t{256} << 20;

struct Case {
  const char* what;
  long m, n, k;
  long splits;  // 1: data-parallel
  bool cold, pdl;
  long workers = 0;  // CTAs (0: one per unit, at most 132)
};

// The epilogue alone, as the kernel's consumers run it (same CTA shape and shared memory):
// does storing a 128 x 128 tile from registers take as long outside the GEMM?
template <bool IN_REGISTERS>
__global__ void __launch_bounds__(384, 1) epilogue_only(const __grid_constant__ gpu::Params p) {
  extern __shared__ float rows_buf[];
  timeline_mark(0);
  __syncthreads();
  if (threadIdx.x < 128) return;
  const int c = threadIdx.x / 128 - 1, tid = threadIdx.x % 128;
  float acc[kBlkN / 2];
#pragma unroll
  for (int i = 0; i < kBlkN / 2; ++i) acc[i] = static_cast<float>(threadIdx.x * i % 7);
  if constexpr (IN_REGISTERS) {
    const gpu::Params lp = gpu::in_registers(p);
    timeline_mark(6);
    sm90::store_warp_tile<kBlkN>(lp, 0, acc, 64 * c + 16 * (tid / 32), 0, tid % 32,
                                 rows_buf + (4 * c + tid / 32) * sm90::kRowStageFloats);
  } else {
    timeline_mark(6);
    sm90::store_warp_tile<kBlkN>(p, 0, acc, 64 * c + 16 * (tid / 32), 0, tid % 32,
                                 rows_buf + (4 * c + tid / 32) * sm90::kRowStageFloats);
  }
  timeline_mark(7);
}

template <bool IN_REGISTERS>
int run_epilogue(void* d) {
  gpu::Params p;
  p.m = 128, p.n = 128, p.k = 64;
  p.d = {d, 128, 1, 0, gpu::OutType::BF16};
  p.c = p.d;
  unsigned long long(*first)[8] = nullptr;
  cudaGetSymbolAddress(reinterpret_cast<void**>(&first), g_first);
  const auto kernel = epilogue_only<IN_REGISTERS>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes - 1024);
  std::vector<double> v;
  for (int r = 0; r < 15; ++r) {
    cudaMemset(first, 0xff, sizeof(g_first));
    kernel<<<1, 384, K::kSmemBytes - 1024>>>(p);
    unsigned long long h[8];
    cudaMemcpy(h, first, sizeof h, cudaMemcpyDeviceToHost);
    if (r >= 3) v.push_back((h[7] - h[6]) * 1e-3);
  }
  std::sort(v.begin(), v.end());
  std::printf(
      "epilogue alone (128 x 128 bf16 tile, 384 threads), parameters %s: %.2f us from "
      "values to stores issued\n",
      IN_REGISTERS ? "in registers" : "from the constant bank", v[v.size() / 2]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int run_case(const Case& c, void* a, void* b, void* d, float* partial) {
  gpu::Params p;
  p.m = c.m, p.n = c.n, p.k = c.k;
  p.a = {a, c.k, 1, 0, true};
  p.b = {b, c.k, 1, 0, true};
  p.d = {d, c.n, 1, 0, gpu::OutType::BF16};
  p.c = p.d;
  sm90::TmaMaps maps;
  if (!tma::encode_16bit(&maps.a, a, c.k, c.m, c.k, 1, 0, 64, K::BLK_M) ||
      !tma::encode_16bit(&maps.b, b, c.k, c.n, c.k, 1, 0, 64, kBlkN))
    return 1;
  const sched::Problem sp{.m = c.m,
                          .n = c.n,
                          .k_iters = (c.k + 63) / 64,
                          .batch = 1,
                          .tile_m = K::BLK_M,
                          .tile_n = kBlkN};
  const bool split = c.splits > 1;
  sched::Params params = sched::make_params(
      sp, split ? sched::Mode::SplitK : sched::Mode::DataParallel, 132, 8, c.splits, 8);
  const long units = params.tiles() * params.splits;
  params.workers = c.workers > 0 ? c.workers : std::min<long>(units, 132);
  sm90::SplitWorkspace ws{partial, nullptr};
  auto fn = sm90::sm90_gemm_tma_ws_kernel<T, kBlkN, kStages, true, true, 1>;
  cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(params.workers));
  cfg.blockDim = dim3(K::kThreads);
  cfg.dynamicSmemBytes = K::kSmemBytes;
  cfg.attrs = &attr;
  cfg.numAttrs = c.pdl ? 1 : 0;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  unsigned long long(*first)[8] = nullptr, (*last)[8] = nullptr;
  cudaGetSymbolAddress(reinterpret_cast<void**>(&first), g_first);
  cudaGetSymbolAddress(reinterpret_cast<void**>(&last), g_last);
  // Marks 0-7 of CTA 0 (first time), marks 6-7 of CTA 0 (last time), the last mark of any CTA.
  std::vector<std::vector<double>> pts(11);
  std::vector<double> event_us;
  const int reps = 15;
  const std::size_t n = static_cast<std::size_t>(params.workers) * 8;
  std::vector<unsigned long long> hf(n), hl(n);
  for (int r = 0; r < reps; ++r) {
    cudaMemset(first, 0xff, sizeof(g_first));
    cudaMemset(last, 0, sizeof(g_last));
    if (c.cold)
      evict_read<<<1056, 256>>>(reinterpret_cast<const uint4*>(g_evict), kEvict / 16, g_sink);
    cudaEventRecord(e0);
    cudaLaunchKernelEx(&cfg, fn, p, maps, params, ws);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(hf.data(), first, n * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(hl.data(), last, n * 8, cudaMemcpyDeviceToHost);
    if (r < 3) continue;  // first calls: module load, attribute set
    event_us.push_back(ms * 1e3);
    unsigned long long t0 = ~0ull, end = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 8 == 0) t0 = std::min(t0, hf[i]);
      end = std::max(end, hl[i]);
    }
    const auto at = [&](unsigned long long t) {
      return t == ~0ull || t == 0 ? -1.0 : (t - t0) * 1e-3;
    };
    for (int q = 0; q < 8; ++q) pts[q].push_back(at(hf[q]));
    pts[8].push_back(at(hl[6]));
    pts[9].push_back(at(hl[7]));
    pts[10].push_back(at(end));
  }
  const auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("%-44s %3ld CTAs  event %6.2f us |", c.what, params.workers, med(event_us));
  for (int q = 0; q < 11; ++q) std::printf(q == 8 || q == 10 ? " | %5.2f" : " %5.2f", med(pts[q]));
  std::printf("\n");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  cudaMalloc(&g_evict, kEvict);
  cudaMemset(g_evict, 1, kEvict);
  cudaMalloc(&g_sink, 64);
  const std::size_t big = std::size_t{64} << 20;
  void *a = nullptr, *b = nullptr, *d = nullptr;
  float* partial = nullptr;
  cudaMalloc(&a, big);
  cudaMalloc(&b, big);
  cudaMalloc(&d, big);
  cudaMalloc(&partial, std::size_t{256} << 20);
  cudaMemset(a, 0, big);
  cudaMemset(b, 0, big);
  std::printf(
      "us after CTA 0's entry (globaltimer): 0 entry, 1 barriers, 2 dependency, "
      "3 first copy, 4 last copy, 5 first stage, 6 accumulators, 7 stored (first time); "
      "6, 7 (last time); the last mark of any CTA\n");
  const Case cases[] = {
      {"128x128x64 cold", 128, 128, 64, 1, true, true},
      {"128x128x64 cold, no PDL attribute", 128, 128, 64, 1, true, false},
      {"128x128x64 warm", 128, 128, 64, 1, false, true},
      {"128x256x64 cold, one CTA, two tiles", 128, 256, 64, 1, true, true, 1},
      {"128x512x64 cold, one CTA, four tiles", 128, 512, 64, 1, true, true, 1},
      {"128x256x64 cold, two CTAs", 128, 256, 64, 1, true, true},
      {"128x128x1024 cold", 128, 128, 1024, 1, true, true},
      {"128x128x1024 warm", 128, 128, 1024, 1, false, true},
      {"512x512x512 cold", 512, 512, 512, 1, true, true},
      {"256x256x32768 split 33 cold", 256, 256, 32768, 33, true, true},
      {"256x256x32768 split 33 warm", 256, 256, 32768, 33, false, true},
      {"128x128x65536 split 132 cold", 128, 128, 65536, 132, true, true},
  };
  int rc = run_epilogue<false>(d) | run_epilogue<true>(d);
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;  // one case (for a profiler), else all
  for (int i = 0; i < static_cast<int>(sizeof cases / sizeof cases[0]); ++i)
    if (only < 0 || i == only) rc |= run_case(cases[i], a, b, d, partial);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return rc != 0 || e != cudaSuccess ? 1 : 0;
}

// Microbenchmark: how fast one SM stores a 128 x 128 bf16 tile (32 KiB) to global memory, the
// epilogue of an sm90 CTA. CTAs of 384 threads with ~214 KiB of shared memory (the kernel's
// shape); the 256 threads of threads 128.. store; %globaltimer read by thread 128 before the
// stores, after they are issued, and after a __threadfence() (the stores are visible). Modes:
//   stg128 : 8 16-byte stores a thread, each warp instruction 512 contiguous bytes
//   stg32  : 32 4-byte stores a thread
//   rows64 : 8 16-byte stores a thread, a warp instruction 8 rows x 64 bytes (the quads layout)
//   bulk   : the tile written to shared memory, then one cp.async.bulk of 32 KiB by one thread
// Run with 1, 16 and 132 CTAs (each its own tile).
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/micro/store_rate.cu
//   -o store_rate
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

__device__ unsigned long long g_t[132][3];

__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

constexpr int kTileBytes = 128 * 128 * 2;
constexpr int kSmem = 214 * 1024;

template <int MODE>
__global__ void __launch_bounds__(384, 1) store_tile(char* d) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __syncthreads();
  if (threadIdx.x < 128) return;
  const int t = threadIdx.x - 128, lane = t % 32, warp = t / 32;
  char* tile = d + static_cast<long>(blockIdx.x) * kTileBytes;
  const unsigned long long t0 = now();
  const uint4 v = make_uint4(t, t + 1, t + 2, t + 3);
  if constexpr (MODE == 0) {
#pragma unroll
    for (int i = 0; i < 8; ++i) reinterpret_cast<uint4*>(tile)[(i * 8 + warp) * 32 + lane] = v;
  } else if constexpr (MODE == 1) {
#pragma unroll
    for (int i = 0; i < 32; ++i)
      reinterpret_cast<unsigned*>(tile)[(i * 8 + warp) * 32 + lane] = t + i;
  } else if constexpr (MODE == 2) {
    // warp w: rows 16w..16w+15 of 128 columns (256 bytes a row); lane: row g = lane / 4 (+8h),
    // 16 bytes at column 32q + 8 (lane % 4)
    const int g = lane / 4, q4 = lane % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int q = 0; q < 4; ++q)
        *reinterpret_cast<uint4*>(tile + (16 * warp + g + 8 * h) * 256 + (32 * q + 8 * q4) * 2) = v;
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) reinterpret_cast<uint4*>(smem)[(i * 8 + warp) * 32 + lane] = v;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, 256;" ::: "memory");
    if (t == 0) {
      const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(tile),
                   "r"(s), "r"(kTileBytes)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
  }
  const unsigned long long t1 = now();
  __threadfence();
  const unsigned long long t2 = now();
  if (t == 0) g_t[blockIdx.x][0] = t0, g_t[blockIdx.x][1] = t1, g_t[blockIdx.x][2] = t2;
}

template <int MODE>
void run(const char* what, char* d, int ctas) {
  cudaFuncSetAttribute(store_tile<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  std::vector<double> issued, visible;
  for (int r = 0; r < 15; ++r) {
    store_tile<MODE><<<ctas, 384, kSmem>>>(d);
    unsigned long long h[132][3];
    cudaMemcpyFromSymbol(h, g_t, sizeof h);
    if (r < 3) continue;
    double a = 0, b = 0;
    for (int i = 0; i < ctas; ++i)
      a = std::max(a, (h[i][1] - h[i][0]) * 1e-3), b = std::max(b, (h[i][2] - h[i][0]) * 1e-3);
    issued.push_back(a), visible.push_back(b);
  }
  std::sort(issued.begin(), issued.end());
  std::sort(visible.begin(), visible.end());
  std::printf("%-8s %3d CTAs: issued %.2f us, visible %.2f us (slowest CTA, median)\n", what, ctas,
              issued[issued.size() / 2], visible[visible.size() / 2]);
}

int main() {
  char* d = nullptr;
  cudaMalloc(&d, 132L * kTileBytes);
  cudaMemset(d, 0, 132L * kTileBytes);
  for (const int ctas : {1, 16, 132}) {
    run<0>("stg128", d, ctas);
    run<1>("stg32", d, ctas);
    run<2>("rows64", d, ctas);
    run<3>("bulk", d, ctas);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// Shared by the sm90 microbenchmarks that compile the library's kernel with its timeline marks
// (sm90_timeline.cu, split_stream.cu): include this before cuda/sm90/gemm_tma_ws.cuh. Each CTA
// records %globaltimer at marks 0-7, first and last time (min / max reductions: the marks never
// wait for memory); and the L2 eviction read between timed calls.
#pragma once
#include <cuda_runtime.h>

__device__ unsigned long long g_first[1024][8], g_last[1024][8];

__device__ __forceinline__ void timeline_mark(int point) {
  // One writer a point: thread 0 (entry, set-up, producer) or thread 128 (first consumer).
  if (threadIdx.x != (point <= 4 ? 0u : 128u)) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  asm volatile("red.global.min.u64 [%0], %1;" ::"l"(&g_first[blockIdx.x][point]), "l"(t)
               : "memory");
  asm volatile("red.global.max.u64 [%0], %1;" ::"l"(&g_last[blockIdx.x][point]), "l"(t) : "memory");
}
#define GEMMKIT_SM90_MARK(point) timeline_mark(point)

// Reads the eviction buffer (clean lines: no write-back traffic during the timed call).
__global__ void evict_read(const uint4* p, long n, unsigned* sink) {
  unsigned acc = 0;
  for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc ^= p[i].x ^ p[i].w;
  if (acc == 0x12345678u) *sink = acc;
}

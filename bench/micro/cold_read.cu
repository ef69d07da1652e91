// Microbenchmark: how fast can one kernel read a matrix of 32 MB or 117 MB (a decode layer's
// weight) that is not in L2? The bound every memory-bound GEMM row is judged against.
//   ld   : every thread 16-byte loads (ld.global.nc), grid-stride, U loads in flight;
//   tma  : one CTA per SM walks an even share of (128-row, 64-K) units of a row-major weight
//          through an 8-stage ring of TMA boxes (128 x 64 x 2 bytes = 16 KiB, 128-byte
//          swizzle), the shape the sm90 decode kernels load; and boxes of other heights.
// Caution (bench/micro/decode_stream.cu, 2026-12-03): the eviction below reads with
// ld.global.nc.L1::no_allocate, after which part of the weight is still in the L2: the TMA rows
// here read faster than cold (4096 x 4096, (128 x 64) boxes: 8.4 us here, 13.3-13.9 us after an
// eviction with plain loads). Use decode_stream's figures for cold reads.
// Before each timed kernel the L2 is evicted by *reading* a 256 MiB buffer (a memset leaves
// it full of dirty lines whose write-back then halves the read: 13.3 us instead of 11.1 for
// the same 32 MB). Same-run reference: cudaMemcpy of 1 GiB (2 x bytes / time).
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I src
//   bench/micro/cold_read.cu -o cold_read
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cuda/ptx>
#include <vector>

#include "cuda/ptx/sm80_mma.cuh"
#include "cuda/tma/tensor_map.cuh"

using namespace gemmkit;

namespace {

template <int U>
__global__ void ld_read(const uint4* p, long n, unsigned* sink) {
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  unsigned s = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n; i += stride * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long j = i + u * stride;
      if (j < n)
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                     : "l"(p + j));
      else
        v[u] = make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) s ^= v[u].x + v[u].y + v[u].z + v[u].w;
  }
  if (s == 0x12345678u) sink[0] = s;
}

// CTA c takes units [c * units / G, (c + 1) * units / G) of (row block, K-block), row block
// after row block; every thread touches one word of each box.
template <int S>
__global__ void tma_read(const __grid_constant__ CUtensorMap map, int rows, int k, int box_rows,
                         unsigned* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ std::uint64_t bar[S];
  const int box_bytes = box_rows * 128, kb_per_row = k / 64;
  const long total = static_cast<long>(rows / box_rows) * kb_per_row;
  const long u0 = blockIdx.x * total / gridDim.x;
  const int units = static_cast<int>((blockIdx.x + 1) * total / gridDim.x - u0);
  unsigned char* base = smem + (1024 - ptx::smem_addr(smem) % 1024) % 1024;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) cuda::ptx::mbarrier_init(&bar[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const auto issue = [&](int u) {
    const int s = u % S;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, &bar[s], box_bytes);
    const long unit = u0 + u;
    tma::load_box(base + s * box_bytes, map, static_cast<int>(unit % kb_per_row * 64),
                  static_cast<int>(unit / kb_per_row * box_rows), 0, false, &bar[s]);
  };
  if (threadIdx.x == 0)
    for (int u = 0; u < S && u < units; ++u) issue(u);
  unsigned acc = 0;
  for (int u = 0; u < units; ++u) {
    tma::wait_parity(&bar[u % S], (u / S) & 1);
    acc += reinterpret_cast<const unsigned*>(base + u % S * box_bytes)[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0 && u + S < units) issue(u + S);
  }
  if (acc == 0x12345678u) sink[0] = acc;
}

char* g_evict = nullptr;
unsigned* g_sink = nullptr;
constexpr std::size_t kEvict = std::size_t{256} << 20;

template <class F>
double median_us(F launch, int reps = 15) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> v;
  for (int i = 0; i < reps + 2; ++i) {
    ld_read<4><<<1056, 256>>>(reinterpret_cast<const uint4*>(g_evict), kEvict / 16, g_sink);
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 2) v.push_back(ms * 1e3);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  cudaMalloc(&g_evict, kEvict);
  cudaMemset(g_evict, 1, kEvict);
  cudaMalloc(&g_sink, 64);
  const std::size_t big = std::size_t{1} << 30;
  char *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, big);
  cudaMalloc(&dst, big);
  cudaMemset(src, 1, big);
  const double copy_us =
      median_us([&] { cudaMemcpyAsync(dst, src, big, cudaMemcpyDeviceToDevice); }, 7);
  const double copy = 2.0 * big / (copy_us * 1e-6);
  std::printf("copy 1 GiB: %.1f GB/s (2 x bytes / time)\n", copy / 1e9);
  // (rows, K) of a row-major weight; the long-K shapes are split-K operands whose rows lie
  // 64 or 128 KiB apart (K-major), or 256 / 512 bytes apart (the same bytes read MN-major).
  const long shapes[][2] = {{4096, 4096},  {14336, 4096}, {128, 65536},
                            {256, 32768},  {65536, 128},  {32768, 256}};
  for (const auto& shape : shapes) {
    const long rows = shape[0], k = shape[1], bytes = rows * k * 2;
    const bool ld_too = k == 4096;
    const auto report = [&](const char* what, double us) {
      std::printf("  %5ld x %5ld bf16 (%3ld MB)  %-34s %7.2f us  %5.1f%% of copy\n", rows, k,
                  bytes >> 20, what, us, 100.0 * bytes / (us * 1e-6) / copy);
    };
    if (ld_too) report("ld, 1056 x 256 threads, 4 in flight",
           median_us([&] { ld_read<4><<<1056, 256>>>(reinterpret_cast<const uint4*>(src),
                                                      bytes / 16, g_sink); }));
    if (ld_too) report("ld, 528 x 256 threads, 8 in flight",
           median_us([&] { ld_read<8><<<528, 256>>>(reinterpret_cast<const uint4*>(src),
                                                     bytes / 16, g_sink); }));
    for (const int box_rows : {32, 64, 128}) {
      if (box_rows > rows) continue;
      CUtensorMap map{};
      if (!tma::encode_16bit(&map, src, k, rows, k, 1, 0, 64, box_rows)) return 1;
      const int smem = 8 * box_rows * 128 + 1024;
      cudaFuncSetAttribute(tma_read<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
      char what[64];
      std::snprintf(what, sizeof what, "tma, 132 CTAs, (%d x 64) boxes", box_rows);
      report(what, median_us([&] {
               tma_read<8><<<132, 256, smem>>>(map, static_cast<int>(rows), static_cast<int>(k),
                                               box_rows, g_sink);
             }));
    }
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// Microbenchmark: how the shape of a CTA's TMA stream decides how fast 132 SMs read a decode
// weight (4096 x 4096 bf16, 32 MB, cold in L2). Each CTA streams (row block, K part) pieces
// through a ring of S stages; a stage is one TMA copy of `chunks` (rows, 64) boxes (a 3-D map
// (64 K, rows, K / 64) when chunks > 1, as src/cuda/gemv/decode_rows.cu copies W), and every
// thread reads one word of each stage before it is refilled. A 256 MiB read with plain loads
// evicts the L2 before each call (the first lines compare it with bench/micro/cold_read's
// ld.global.nc.L1::no_allocate read, after which part of the weight is still in the L2: 10.9
// against 13.3-13.9 us for the same stream), and a few streams again with one word every
// 64 KiB of the weight read after the eviction (are address translations the first-byte
// latency?); events around one launch, median of 15.
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc
//   bench/micro/decode_stream.cu -o decode_stream
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

constexpr int kMaxStages = 16;

// Per CTA: entry, first stage arrived, last stage arrived (thread 0's %globaltimer).
__device__ unsigned long long g_t[1024][3];
__device__ __forceinline__ void mark(int point) {
  if (threadIdx.x != 0) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  g_t[blockIdx.x][point] = t;
}

struct Shape {
  int rows, k;     // the weight
  int box_rows;    // rows of a box
  int chunks;      // boxes of 64 K a copy
  int stages;      // ring depth
  int parts;       // CTAs sharing a row block's K
  int wrap;        // 1: piece u starts at stage u mod (its stages)
  int linear = 0;  // > 0: this many CTAs take even runs of the (row block, stage) list
};

__global__ void stream(const __grid_constant__ CUtensorMap map, Shape s, unsigned* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ std::uint64_t bar[kMaxStages];
  mark(0);
  unsigned char* base = smem + (1024 - ptx::smem_addr(smem) % 1024) % 1024;
  const int copy_bytes = s.box_rows * 128 * s.chunks;
  int block = blockIdx.x / s.parts;
  const int part = blockIdx.x % s.parts;
  const int kst = s.k / (64 * s.chunks);  // stages of a row block
  int st0 = part * kst / s.parts, nst = (part + 1) * kst / s.parts - st0;
  if (s.linear > 0) {  // stage i is unit u0 + i of the list: (u / kst, u % kst)
    const long total = static_cast<long>(s.rows / s.box_rows) * kst;
    const long u0 = blockIdx.x * total / gridDim.x;
    block = 0, st0 = static_cast<int>(u0);
    nst = static_cast<int>((blockIdx.x + 1) * total / gridDim.x - u0);
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < s.stages; ++i) cuda::ptx::mbarrier_init(&bar[i], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const auto issue = [&](int i) {
    const int st = i % s.stages;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, &bar[st], copy_bytes);
    int ks = st0 + (s.wrap ? (i + block) % nst : i);
    int blk = block;
    if (s.linear > 0) blk = ks / kst, ks %= kst;
    unsigned char* dst = base + st * copy_bytes;
    if (s.chunks > 1) {
      const std::int32_t c[3] = {0, blk * s.box_rows, ks * s.chunks};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map,
                                      c, &bar[st]);
    } else {
      tma::load_box(dst, map, ks * 64, blk * s.box_rows, 0, false, &bar[st]);
    }
  };
  if (threadIdx.x == 0)
    for (int i = 0; i < s.stages && i < nst; ++i) issue(i);
  unsigned acc = 0;
  for (int i = 0; i < nst; ++i) {
    tma::wait_parity(&bar[i % s.stages], (i / s.stages) & 1);
    if (i == 0) mark(1);
    if (i == nst - 1) mark(2);
    acc += reinterpret_cast<const unsigned*>(base + i % s.stages * copy_bytes)[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0 && i + s.stages < nst) issue(i + s.stages);
  }
  if (acc == 0x12345678u) sink[0] = acc;
}

__global__ void evict_read(const uint4* p, long n, unsigned* sink) {
  unsigned acc = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    acc ^= p[i].x ^ p[i].w;
  if (acc == 0x12345678u) *sink = acc;
}

// As bench/micro/cold_read's: 4 loads in flight a thread, ld.global.nc, no L1 allocation.
__global__ void evict_nc(const uint4* p, long n, unsigned* sink) {
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  unsigned s = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n; i += stride * 4) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const long j = i + u * stride;
      if (j < n)
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                     : "l"(p + j));
      else
        v[u] = make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) s ^= v[u].x + v[u].y + v[u].z + v[u].w;
  }
  if (s == 0x12345678u) sink[0] = s;
}
// Reads one word every `stride` bytes of [p, p + bytes): after the eviction, the weight's
// address translations are warm again while all but 1 / 512 of its lines stay out of the L2.
__global__ void touch_pages(const char* p, long bytes, long stride, unsigned* sink) {
  unsigned acc = 0;
  for (long o = threadIdx.x * stride; o < bytes; o += blockDim.x * stride)
    acc ^= *reinterpret_cast<const unsigned*>(p + o);
  if (acc == 0x12345678u) *sink = acc;
}
bool g_evict_nc = false;
const char* g_touch = nullptr;  // the weight to touch after the eviction (nullptr: none)
long g_touch_bytes = 0;
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
    if (g_evict_nc)
      evict_nc<<<1056, 256>>>(reinterpret_cast<const uint4*>(g_evict), kEvict / 16, g_sink);
    else
      evict_read<<<1056, 256>>>(reinterpret_cast<const uint4*>(g_evict), kEvict / 16, g_sink);
    if (g_touch != nullptr) touch_pages<<<1, 512>>>(g_touch, g_touch_bytes, 64 << 10, g_sink);
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

bool encode(CUtensorMap* map, const void* base, int rows, int k, int box_rows, int chunks) {
  return chunks == 1 ? tma::encode_16bit(map, base, k, rows, k, 1, 0, 64, box_rows)
                     : tma::encode_16bit_chunked(map, base, k, rows, k, 1, 0, box_rows, chunks);
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
  // The eviction and the shared-memory attribute first: do they move the time of a stream?
  for (int v = 0; v < 4; ++v) {
    g_evict_nc = v & 1;
    const Shape s{4096, 4096, 128, 1, 8, 1, 0, 132};
    const int smem = 8 * 128 * 128 + 1024;
    cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         v & 2 ? 226 * 1024 : smem);
    CUtensorMap map{};
    encode(&map, src, s.rows, s.k, s.box_rows, s.chunks);
    const double us = median_us([&] { stream<<<132, 256, smem>>>(map, s, g_sink); });
    std::printf("evict %s, smem attribute %s: %.2f us\n", v & 1 ? "ld.nc x4" : "ld     ",
                v & 2 ? "226 KiB" : "exact  ", us);
  }
  g_evict_nc = false;  // the thorough eviction for the shapes below
  cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 226 * 1024);
  // Address translation: the same streams with one word every 64 KiB of the weight read after
  // the eviction (translations warm, the lines still cold).
  for (const Shape& s : {Shape{4096, 4096, 128, 1, 8, 1, 0, 132}, Shape{4096, 4096, 64, 4, 6, 2, 1},
                         Shape{14336, 4096, 128, 2, 6, 1, 0}}) {
    CUtensorMap map{};
    encode(&map, src, s.rows, s.k, s.box_rows, s.chunks);
    const int ctas = s.linear > 0 ? s.linear : (s.rows + s.box_rows - 1) / s.box_rows * s.parts;
    const int smem = s.stages * s.box_rows * 128 * s.chunks + 1024;
    const double bytes = 2.0 * s.rows * s.k;
    double us[2];
    for (int touch = 0; touch < 2; ++touch) {
      g_touch = touch ? src : nullptr;
      g_touch_bytes = static_cast<long>(bytes);
      us[touch] = median_us([&] { stream<<<ctas, 256, smem>>>(map, s, g_sink); });
    }
    g_touch = nullptr;
    std::printf(
        "%5d x %5d, %3d CTAs: cold %.2f us (%.1f%% of copy), pages touched %.2f us (%.1f%%)\n",
        s.rows, s.k, ctas, us[0], 100.0 * bytes / (us[0] * 1e-6) / copy, us[1],
        100.0 * bytes / (us[1] * 1e-6) / copy);
  }
  // rows, k, box_rows, chunks, stages, parts, wrap
  const Shape shapes[] = {
      {4096, 4096, 128, 1, 8, 1, 0, 132}, {4096, 4096, 128, 1, 8, 1, 0, 128},
      {4096, 4096, 64, 1, 8, 1, 0, 132},  {4096, 4096, 64, 4, 6, 1, 0, 132},
      {4096, 4096, 128, 2, 6, 1, 0, 132}, {4096, 4096, 128, 1, 8, 4, 0},
      {4096, 4096, 128, 1, 12, 4, 0},     {4096, 4096, 64, 1, 8, 2, 0},
      {4096, 4096, 64, 1, 16, 2, 0},      {4096, 4096, 64, 4, 6, 2, 0},
      {4096, 4096, 64, 4, 6, 2, 1},  // the decode cut
      {4096, 4096, 64, 2, 12, 2, 0},      {4096, 4096, 64, 8, 3, 2, 0},
      {4096, 4096, 128, 2, 6, 4, 0},      {4096, 4096, 128, 2, 6, 4, 1},
      {4096, 4096, 128, 4, 3, 4, 0},      {4096, 4096, 32, 4, 12, 1, 0},
      {4096, 4096, 32, 8, 6, 1, 0},       {4096, 4096, 64, 4, 6, 1, 0},  // 64 CTAs
      {14336, 4096, 112, 2, 6, 1, 0},     {14336, 4096, 112, 4, 3, 1, 0},
      {14336, 4096, 128, 2, 6, 1, 0},     {14336, 4096, 128, 1, 12, 1, 0},
  };
  for (const Shape& s : shapes) {
    CUtensorMap map{};
    if (!encode(&map, src, s.rows, s.k, s.box_rows, s.chunks)) {
      std::printf("encode failed\n");
      return 1;
    }
    const int ctas = s.linear > 0 ? s.linear : (s.rows + s.box_rows - 1) / s.box_rows * s.parts;
    const int smem = s.stages * s.box_rows * 128 * s.chunks + 1024;
    const double bytes = 2.0 * s.rows * s.k;
    const double us = median_us([&] { stream<<<ctas, 256, smem>>>(map, s, g_sink); });
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      std::printf("launch: %s\n", cudaGetErrorString(e));
      return 1;
    }
    std::printf(
        "%5d x %5d: %3d CTAs, copies (%3d rows x 64) x %d = %5.1f KiB, %2d stages "
        "(%5.1f KiB in flight), %d parts%s  %7.2f us  %5.1f%% of copy\n",
        s.rows, s.k, ctas, s.box_rows, s.chunks, s.box_rows * 128 * s.chunks / 1024.0, s.stages,
        s.stages * s.box_rows * 128 * s.chunks / 1024.0, s.parts,
        s.linear ? " lin "
        : s.wrap ? " wrap"
                 : "     ",
        us, 100.0 * bytes / (us * 1e-6) / copy);
    // The last call's marks: us after the first CTA's entry (min / median / max over CTAs).
    unsigned long long t[1024][3];
    cudaMemcpyFromSymbol(t, g_t, sizeof t);
    unsigned long long t0 = ~0ull;
    for (int c = 0; c < ctas; ++c) t0 = std::min(t0, t[c][0]);
    const char* names[3] = {"entry", "first stage", "last stage"};
    std::printf("      ");
    for (int p = 0; p < 3; ++p) {
      std::vector<double> v;
      for (int c = 0; c < ctas; ++c) v.push_back((t[c][p] - t0) * 1e-3);
      std::sort(v.begin(), v.end());
      std::printf("%s %.2f/%.2f/%.2f  ", names[p], v.front(), v[v.size() / 2], v.back());
    }
    std::printf("\n");
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// Microbenchmark: the cold-stream ceiling of a decode weight under the bench's own protocol
// (CUDA-graph replays of back-to-back calls over rotated copies of the operand, more bytes
// than twice the L2), where bench/micro/decode_stream.cu times one launch after an eviction.
// The kernel only streams: one CTA per SM walks an even run of (rows, 64 K) boxes of a
// row-major bf16 weight through a ring of TMA copies and reads one word of each stage, so its
// time per call is what a decode kernel's weight stream can take at best. With programmatic
// launch on, each call sets up its barriers while the previous one ends and waits
// (cudaGridDependencySynchronize) before its first copy, as the library's kernels do.
// Prints us per call and the share of the device's copy bandwidth (1 GiB device to device,
// 2 x bytes / time, the bench's --copy-bandwidth).
// With an argument N, only shape N (for ncu).
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc
//   bench/micro/stream_replay.cu -o stream_replay -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda/ptx>
#include <iterator>
#include <vector>

#include "cuda/pdl.hpp"
#include "cuda/ptx/sm80_mma.cuh"
#include "cuda/tma/tensor_map.cuh"

using namespace gemmkit;

namespace {

constexpr int kMaxStages = 16;

struct Shape {
  int rows, k;     // the weight
  int box_rows;    // rows of a box (one TMA copy a stage)
  int stages;      // ring depth
  int ctas;        // CTAs, each an even run of the (row block, K step) list
  int chunks = 1;  // > 1: row blocks instead (as src/cuda/gemv/decode_rows.cu cuts a weight):
                   // CTA c takes block c / parts over part c % parts of K, a copy `chunks`
                   // boxes of 64 K in one 3-D TMA copy
  int parts = 1;
  int cluster = 1;  // CTAs a cluster (the decode kernel's split runs in clusters of 2 to 4)
  int x_bytes = 0;  // > 0: a second bulk copy a stage of this many bytes of a small operand
                    // (the decode kernel's x, M x 256 K of bf16), from a buffer read by all
};

__global__ void stream(const __grid_constant__ CUtensorMap map, Shape s, const unsigned char* x,
                       unsigned* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ std::uint64_t bar[kMaxStages];
  cudaTriggerProgrammaticLaunchCompletion();
  unsigned char* base = smem + (1024 - ptx::smem_addr(smem) % 1024) % 1024;
  const int copy_bytes = s.box_rows * 128 * s.chunks;
  const int stage_bytes = copy_bytes + s.x_bytes;
  const int kst = s.k / (64 * s.chunks);
  const long total = static_cast<long>(s.rows / s.box_rows) * kst;
  long u0 = blockIdx.x * total / gridDim.x;
  int nst = static_cast<int>((blockIdx.x + 1) * total / gridDim.x - u0);
  if (s.chunks > 1) {  // block b = c / parts, its stages [part * kst / parts, ...)
    const int b = blockIdx.x / s.parts, part = blockIdx.x % s.parts;
    u0 = static_cast<long>(b) * kst + part * kst / s.parts;
    nst = (part + 1) * kst / s.parts - part * kst / s.parts;
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < s.stages; ++i) cuda::ptx::mbarrier_init(&bar[i], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  cudaGridDependencySynchronize();  // the previous call is done (a no-op without the attribute)
  const auto issue = [&](int i) {
    const int st = i % s.stages;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, &bar[st], stage_bytes);
    const long u = u0 + i;
    if (s.x_bytes > 0)  // x's columns of this K step (x holds kst steps)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global,
                               base + st * stage_bytes + copy_bytes, x + (u % kst) * s.x_bytes,
                               s.x_bytes, &bar[st]);
    if (s.chunks > 1) {
      const std::int32_t c[3] = {0, static_cast<std::int32_t>(u / kst) * s.box_rows,
                                 static_cast<std::int32_t>(u % kst) * s.chunks};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      base + st * stage_bytes, &map, c, &bar[st]);
    } else {
      tma::load_box(base + st * stage_bytes, map, static_cast<int>(u % kst) * 64,
                    static_cast<int>(u / kst) * s.box_rows, 0, false, &bar[st]);
    }
  };
  if (threadIdx.x == 0)
    for (int i = 0; i < s.stages && i < nst; ++i) issue(i);
  unsigned acc = 0;
  for (int i = 0; i < nst; ++i) {
    tma::wait_parity(&bar[i % s.stages], (i / s.stages) & 1);
    acc += reinterpret_cast<const unsigned*>(base + i % s.stages * stage_bytes)[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0 && i + s.stages < nst) issue(i + s.stages);
  }
  if (acc == 0x12345678u) sink[0] = acc;
}

// A second kernel after each stream, as the split-K reduction follows the GEMM: 64 CTAs wait
// for the stream's grid, then each writes 512 bytes.
__global__ void follower(float* out) {
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  if (threadIdx.x < 128) out[blockIdx.x * 128 + threadIdx.x] = static_cast<float>(threadIdx.x);
}

// One launch of 256-thread CTAs on `st`, with programmatic stream serialization or without,
// in clusters of `cluster` CTAs.
template <class... P, class... A>
void launch(cudaStream_t st, void (*kernel)(P...), int ctas, int smem, bool pdl, int cluster,
            A... args) {
  cudaLaunchAttribute attr[2] = {gpu::pdl_attribute(), {}};
  attr[1].id = cudaLaunchAttributeClusterDimension;
  attr[1].val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(256);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cfg.attrs = pdl ? attr : attr + 1;
  cfg.numAttrs = (pdl ? 1 : 0) + (cluster > 1 ? 1 : 0);
  cudaLaunchKernelEx(&cfg, kernel, args...);
}

// Median us per call of `calls` back-to-back calls captured in one graph, replayed `reps` times.
template <class F>
double graph_us(cudaStream_t st, F call, int calls, int reps = 9) {
  cudaGraph_t g;
  cudaGraphExec_t e;
  cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < calls; ++i) call(st, i);
  cudaStreamEndCapture(st, &g);
  if (cudaGraphInstantiate(&e, g, 0) != cudaSuccess) {
    std::printf("graph instantiation failed\n");
    return -1;
  }
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> v;
  for (int r = 0; r < reps + 2; ++r) {
    cudaEventRecord(a, st);
    cudaGraphLaunch(e, st);
    cudaEventRecord(b, st);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (r >= 2) v.push_back(ms * 1e3 / calls);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool encode(CUtensorMap* map, const void* base, const Shape& s) {
  return s.chunks == 1
             ? tma::encode_16bit(map, base, s.k, s.rows, s.k, 1, 0, 64, s.box_rows)
             : tma::encode_16bit_chunked(map, base, s.k, s.rows, s.k, 1, 0, s.box_rows, s.chunks);
}

}  // namespace

int main(int argc, char** argv) {
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;  // one shape (for a profiler), or all
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  unsigned* sink = nullptr;
  cudaMalloc(&sink, 64);
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  // The copy bandwidth, as the bench measures it.
  const std::size_t big = std::size_t{1} << 30;
  char *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, big);
  cudaMalloc(&dst, big);
  cudaMemset(src, 1, big);
  std::vector<double> cv;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 11; ++i) {
    cudaEventRecord(a, st);
    cudaMemcpyAsync(dst, src, big, cudaMemcpyDeviceToDevice, st);
    cudaEventRecord(b, st);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (i > 0) cv.push_back(ms);
  }
  std::sort(cv.begin(), cv.end());
  const double copy = 2.0 * big / (cv[cv.size() / 2] * 1e-3);
  std::printf("copy 1 GiB: %.1f GB/s; L2 %d MiB\n", copy / 1e9, l2 >> 20);
  cudaFree(dst);
  cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 226 * 1024);
  void* xbuf = nullptr;  // the small operand: 16 x 65536 bf16 at most
  cudaMalloc(&xbuf, 2 << 20);
  cudaMemset(xbuf, 0, 2 << 20);
  const Shape shapes[] = {
      {4096, 4096, 128, 8, 132},
      {4096, 4096, 128, 8, 128},
      {4096, 4096, 128, 12, 132},
      {4096, 4096, 64, 16, 132},
      {4096, 4096, 256, 4, 132},
      {4096, 4096, 128, 6, 264},
      {14336, 4096, 128, 8, 132},
      {4096, 14336, 128, 8, 132},
      // Row blocks as the decode kernel cuts them: 64 rows x 2 parts of K (its 4096-row cut),
      // 32 KiB copies of 4 boxes; 32 rows whole; 128 rows x 4 parts.
      {4096, 4096, 64, 6, 128, 4, 2},
      {4096, 4096, 32, 6, 128, 8, 1},
      {4096, 4096, 128, 6, 128, 2, 4},
      {4096, 4096, 64, 12, 128, 2, 2},
      // The split-K rows' bytes (128 x 128 x 65536: A and B, 256 rows of 65536 K) in 128 pieces
      // of 64 rows x 2048 K, 16 KiB copies.
      {256, 65536, 64, 8, 128, 2, 32},
      // The decode kernel's 4096-row cut as it launches: clusters of 2, then x's 16 x 256 K
      // (8 KiB) beside each 32 KiB stage, 5 stages.
      {4096, 4096, 64, 6, 128, 4, 2, 2},
      {4096, 4096, 64, 5, 128, 4, 2, 2, 8192},
      {4096, 4096, 64, 5, 128, 4, 2, 1, 8192},
      {4096, 4096, 64, 5, 128, 4, 2, 2, 1024},
  };
  for (int si = 0; si < static_cast<int>(std::size(shapes)); ++si) {
    if (only >= 0 && si != only) continue;
    const Shape& s = shapes[si];
    const std::size_t bytes = std::size_t{2} * s.rows * s.k;
    // Copies of the weight, laid end to end in src: more bytes than twice the L2.
    const int sets = static_cast<int>(
        std::min<std::size_t>(big / bytes, (2 * static_cast<std::size_t>(l2)) / bytes + 2));
    std::vector<CUtensorMap> maps(sets);
    for (int i = 0; i < sets; ++i)
      if (!encode(&maps[i], src + i * bytes, s)) {
        std::printf("encode failed\n");
        return 1;
      }
    const int smem = s.stages * (s.box_rows * 128 * s.chunks + s.x_bytes) + 1024;
    double us[2];
    for (int pdl = 0; pdl < 2; ++pdl)
      us[pdl] = graph_us(
          st,
          [&](cudaStream_t s2, int i) {
            launch(s2, stream, s.ctas, smem, pdl == 1, s.cluster, maps[i % sets], s,
                   static_cast<const unsigned char*>(xbuf), sink);
          },
          sets * 8);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      std::printf("launch: %s\n", cudaGetErrorString(e));
      return 1;
    }
    std::printf(
        "%5d x %5d (%5.1f MB, %d sets): %3d CTAs (clusters of %d), (%3d x 64) x %d boxes, %d "
        "parts, %2d stages, x %5d B: %7.2f us (%5.1f%% of copy), programmatic %7.2f us (%5.1f%%)\n",
        s.rows, s.k, bytes / 1e6, sets, s.ctas, s.cluster, s.box_rows, s.chunks, s.parts, s.stages,
        s.x_bytes, us[0], 100.0 * bytes / (us[0] * 1e-6) / copy, us[1],
        100.0 * bytes / (us[1] * 1e-6) / copy);
  }
  // The stream followed by a second kernel in each call (programmatic launch on both).
  if (only < 0) {
    const Shape s{4096, 4096, 128, 8, 132};
    const std::size_t bytes = std::size_t{2} * s.rows * s.k;
    const int sets = 5;
    std::vector<CUtensorMap> maps(sets);
    for (int i = 0; i < sets; ++i) encode(&maps[i], src + i * bytes, s);
    float* out = nullptr;
    cudaMalloc(&out, 64 * 128 * sizeof(float));
    const int smem = s.stages * s.box_rows * 128 + 1024;
    for (int second = 0; second < 2; ++second) {
      const double us = graph_us(
          st,
          [&](cudaStream_t s2, int i) {
            launch(s2, stream, s.ctas, smem, true, 1, maps[i % sets], s,
                   static_cast<const unsigned char*>(xbuf), sink);
            if (second) launch(s2, follower, 64, 0, true, 1, out);
          },
          sets * 8);
      std::printf("4096 x 4096, 132 CTAs, programmatic, %s: %7.2f us a call\n",
                  second ? "and a second kernel after each" : "alone                         ", us);
    }
    cudaFree(out);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

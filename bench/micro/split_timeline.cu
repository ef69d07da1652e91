// Microbenchmark: where the time of a split-K call goes under the bench's protocol. The
// production kernel (src/cuda/sm90/gemm_tma_ws.cuh, compiled here with its timeline marks) and
// its reduction kernel, launched as the library launches them (launch_tma_ws.cuh: scheduler,
// programmatic launch, the reduction right after), in CUDA graphs of back-to-back calls over
// rotated operand sets (more bytes than twice the L2). Per call, from the moment the previous
// call released it (the earliest CTA past its dependency wait): each mark's earliest, median
// and latest CTA; the call's time less the last piece stored is the reduction and the hand-offs.
// bf16, A and B K-major (the bench's column-major A is MN-major: these rows stream alike).
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc -Iinclude
//   --expt-relaxed-constexpr -Xlinker --unresolved-symbols=ignore-all
//   bench/micro/split_timeline.cu -o split_timeline -lcuda
// (library functions the launch path names only on its error paths stay unresolved.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "replay_timeline.cuh"
#define GEMMKIT_SM90_MARK(point) replay_mark(point, (point) <= 4 ? 0u : 128u)
#include "cuda/sm90/launch_tma_ws.cuh"

namespace {

using namespace gemmkit;
using T = __nv_bfloat16;

const char* kPoint[8] = {"entry",     "barriers set",  "released",    "first copy",
                         "last copy", "stage arrived", "accumulated", "stored"};

struct Case {
  long m, n, k, splits;
  int blk_m, blk_n;
};

template <int BLK_M, int BLK_N>
int run_case(const Case& c, char* buf, std::size_t buf_bytes, void* d, float* partial,
             cudaStream_t st, double copy_bps) {
  constexpr int kStages = sm90::stages_for(BLK_M, BLK_N);
  const std::size_t abytes = std::size_t{2} * c.m * c.k, bbytes = std::size_t{2} * c.n * c.k;
  const std::size_t set = abytes + bbytes;
  int l2 = 0, sms = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int sets = static_cast<int>(
      std::min<std::size_t>(buf_bytes / set, 2 * static_cast<std::size_t>(l2) / set + 2));
  gpu::Problem pr;
  gpu::Params& p = pr.params;
  p.m = c.m, p.n = c.n, p.k = c.k;
  p.d = {d, c.n, 1, 0, gpu::OutType::BF16};
  p.c = p.d;
  std::vector<sm90::TmaMaps> maps(sets);
  for (int i = 0; i < sets; ++i) {
    char* a = buf + i * set;
    if (!tma::encode_16bit(&maps[i].a, a, c.k, c.m, c.k, 1, 0, 64, BLK_M) ||
        !tma::encode_16bit(&maps[i].b, a + abytes, c.k, c.n, c.k, 1, 0, 64, BLK_N))
      return std::printf("encode failed\n"), 1;
  }
  sm90::Launch ln;
  ln.sms = sms;
  ln.mode = sched::Mode::SplitK;
  ln.splits = c.splits;
  ln.ws.partial = partial;
  const long tiles = (c.m + BLK_M - 1) / BLK_M * ((c.n + BLK_N - 1) / BLK_N);
  const int ctas = static_cast<int>(std::min<long>(tiles * c.splits, sms));
  std::printf("%ld x %ld x %ld, %d x %d tiles in %ld pieces, %d stages, %d CTAs, %d sets:\n", c.m,
              c.n, c.k, BLK_M, BLK_N, c.splits, kStages, ctas, sets);
  const double us = replay_timeline(
      st, sets * std::max(1, 40 / sets), ctas,
      [&](cudaStream_t s2, int i) {
        p.a = {buf + (i % sets) * set, c.k, 1, 0, true};
        p.b = {buf + (i % sets) * set + abytes, c.k, 1, 0, true};
        sm90::launch_typed<T, BLK_M, BLK_N, kStages, 1>(pr, maps[i % sets], ln, s2);
      },
      kPoint, 4, 7, 2);
  std::printf("   %.2f us a call (operands at %.1f%% of copy)\n", us,
              100.0 * set / (us * 1e-6) / copy_bps);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

}  // namespace

int main() {
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  const std::size_t big = std::size_t{1} << 30;
  char *buf = nullptr, *dst = nullptr;
  void* d = nullptr;
  float* partial = nullptr;
  cudaMalloc(&buf, big);
  cudaMalloc(&dst, big);
  cudaMalloc(&d, 16 << 20);
  cudaMalloc(&partial, std::size_t{64} << 20);
  cudaMemset(buf, 0, big);
  const double copy = copy_bandwidth(st, buf, dst, big);
  std::printf("copy 1 GiB: %.1f GB/s\n", copy / 1e9);
  cudaFree(dst);
  int rc = 0;
  rc |= run_case<64, 128>({128, 128, 65536, 64, 64, 128}, buf, big, d, partial, st, copy);
  rc |= run_case<64, 128>({128, 128, 65536, 32, 64, 128}, buf, big, d, partial, st, copy);
  rc |= run_case<128, 128>({128, 128, 65536, 128, 128, 128}, buf, big, d, partial, st, copy);
  rc |= run_case<64, 128>({256, 256, 32768, 16, 64, 128}, buf, big, d, partial, st, copy);
  return rc;
}

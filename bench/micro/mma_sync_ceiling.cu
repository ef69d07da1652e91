// Microbenchmark: how fast can mma.sync m16n8k16 (bf16 -> f32) run on this GPU?
//   regs : each warp issues independent HMMAs from registers only (the tensor pipe's ceiling);
//   ldsm : each warp runs a 64 x 64 warp tile's k16 step (4 + 4 ldmatrix.x4 from a swizzled
//          shared tile, 32 HMMA), the inner loop of the ladder's rung 4 without global memory.
// Varies the warps per SM. Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a
//   -I src bench/micro/mma_sync_ceiling.cu -o mma_sync_ceiling
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda/ptx/sm80_mma.cuh"

using namespace gemmkit;

constexpr int kIters = 4096;

template <int TILES>
__global__ void hmma_regs(float* sink, int seed) {
  uint32_t a[4] = {uint32_t(seed), uint32_t(seed + 1), uint32_t(seed + 2), uint32_t(seed + 3)};
  uint32_t b[2][2] = {{uint32_t(seed * 3), uint32_t(seed * 5)}, {uint32_t(seed * 7), 1u}};
  float acc[TILES][4] = {};
#pragma unroll 1
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int t = 0; t < TILES; ++t) ptx::mma_m16n8k16(acc[t], a, b[t % 2], __nv_bfloat16{});
  }
  float s = 0;
#pragma unroll
  for (int t = 0; t < TILES; ++t) s += acc[t][0] + acc[t][1] + acc[t][2] + acc[t][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

// A (64 x 64) and B (64 x 64) K-major tiles of one k64 slab per warp pair, 128-byte rows,
// chunk ^= row % 8. Each warp reads its 64 rows of A and of B.
template <int WARPS>
__global__ void __launch_bounds__(WARPS * 32) ldsm_hmma(float* sink, int seed) {
  __shared__ __align__(128) uint16_t sa[64 * 64], sb[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    sa[i] = uint16_t(i * seed);
    sb[i] = uint16_t(i + seed);
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, i8 = lane / 8, r = lane % 8;
  auto off = [](int row, int col) { return row * 64 + (((col / 8) ^ (row % 8)) * 8) + col % 8; };
  float acc[4][8][4] = {};
#pragma unroll 1
  for (int it = 0; it < kIters / 4; ++it) {
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      uint32_t af[4][4], bf[4][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
        ptx::ldmatrix_x4(
            af[mi], ptx::smem_addr(sa + off(mi * 16 + (i8 % 2) * 8 + r, ks * 16 + (i8 / 2) * 8)));
#pragma unroll
      for (int nj = 0; nj < 4; ++nj)
        ptx::ldmatrix_x4(
            bf[nj], ptx::smem_addr(sb + off(nj * 16 + (i8 / 2) * 8 + r, ks * 16 + (i8 % 2) * 8)));
#pragma unroll
      for (int nj = 0; nj < 4; ++nj)
#pragma unroll
        for (int mi = 0; mi < 4; ++mi) {
          ptx::mma_m16n8k16(acc[mi][2 * nj], af[mi], {bf[nj][0], bf[nj][1]}, __nv_bfloat16{});
          ptx::mma_m16n8k16(acc[mi][2 * nj + 1], af[mi], {bf[nj][2], bf[nj][3]}, __nv_bfloat16{});
        }
    }
  }
  float s = 0;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int n = 0; n < 8; ++n) s += acc[mi][n][0] + acc[mi][n][1] + acc[mi][n][2] + acc[mi][n][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <class F>
double tflops(F launch, double flops) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  launch();
  cudaDeviceSynchronize();
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (ms < best) best = ms;
  }
  return flops / (best * 1e-3) / 1e12;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float* sink;
  cudaMalloc(&sink, 4096);
  const double per_mma = 2.0 * 16 * 8 * 16;
  printf("SMs %d\n", sms);
  for (int warps_per_sm : {4, 8, 12, 16, 32}) {
    const int blocks = sms * (warps_per_sm / 4);
    const double f = double(blocks) * 4 * kIters * 32 * per_mma;
    const double t = tflops([&] { hmma_regs<32><<<blocks, 128>>>(sink, 3); }, f);
    printf("regs  32 independent HMMA/warp  warps/SM %2d  %7.1f TFLOP/s\n", warps_per_sm, t);
  }
  for (int warps_per_sm : {4, 8, 16}) {
    const int blocks = sms * (warps_per_sm / 4);
    const double f = double(blocks) * 4 * kIters * 8 * per_mma;
    const double t = tflops([&] { hmma_regs<8><<<blocks, 128>>>(sink, 3); }, f);
    printf("regs   8 independent HMMA/warp  warps/SM %2d  %7.1f TFLOP/s\n", warps_per_sm, t);
  }
  for (int warps_per_sm : {4, 8, 12, 16}) {
    const int blocks = sms * (warps_per_sm / 4);
    const double f = double(blocks) * 4 * kIters * 32 * per_mma;
    const double t = tflops([&] { ldsm_hmma<4><<<blocks, 128>>>(sink, 3); }, f);
    printf("ldsm  64x64 warp tile step      warps/SM %2d  %7.1f TFLOP/s\n", warps_per_sm, t);
  }
  cudaError_t e = cudaGetLastError();
  printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

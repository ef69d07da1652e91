// f32 GEMM on the CUDA cores (cuBLAS SGEMM, CUBLAS_COMPUTE_32F): exact fp32, one FFMA per
// product, never TF32. A CTA computes a 128 x 128 tile of D with 256 threads, each an 8 x 8
// register tile (rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx), so that
// per k a thread reads two float4 of A and two of B from shared memory for 64 FFMA. Operand
// tiles of 16 k come through a 3-stage cp.async ring (stage.cuh); two CTAs share an SM.
#include "cuda/simt/epilogue.cuh"
#include "cuda/simt/launch.cuh"
#include "cuda/simt/mainloop.cuh"
#include "cuda/simt/simt.hpp"
#include "cuda/simt/stage.cuh"

namespace gemmkit::simt {
namespace {

// ---- preconditions
// A CTA: 16 x 16 threads, each rows ty*4 + {0..3} + {0, 64} and columns tx*4 + {0..3} + 64 j
// (j < TN / 4); K in tiles of BK through a ring of STAGES.
template <int BK, int STAGES, int TN>
struct FfmaConfig {
  static constexpr int BLK_M = 128, BLK_N = 16 * TN, BLK_K = BK, kStages = STAGES;
  static constexpr int kThreads = 256, kTn = TN;
  static constexpr int kMinBlocks = TN == 8 ? 2 : 1;  // 128 or 255 registers a thread
  static_assert(TN == 8 || TN == 16, "8 x 8 or 8 x 16 outputs a thread");
  static_assert(STAGES >= 2, "the ring prefetches STAGES - 1 tiles ahead");
  using TileA = KRowsTile<float, BLK_M, BK>;  // (BLK_K, BLK_M + pad)
  using TileB = KRowsTile<float, BLK_N, BK>;  // (BLK_K, BLK_N + pad)
  // ---- SharedStorage
  struct SharedStorage {
    alignas(16) float a[STAGES][TileA::kElems];
    alignas(16) float b[STAGES][TileB::kElems];
  };
};

__device__ __forceinline__ float4 lds128(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}

template <class Cfg, bool AK, bool BK>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    sgemm_ffma_kernel(const gpu::Params p, float alpha, float beta) {
  constexpr int BLK_K = Cfg::BLK_K, NJ = Cfg::kTn / 4;
  using TileA = typename Cfg::TileA;
  using TileB = typename Cfg::TileB;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  auto& s = *reinterpret_cast<typename Cfg::SharedStorage*>(smem_raw);
  const CtaTile t = cta_tile<Cfg::BLK_M, Cfg::BLK_N>(p);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  // A warp: 4 x 8 threads, reading 4 float4 of A and 8 of B a step (broadcast, no conflict).
  const int ty = (warp / 2) * 4 + lane / 8, tx = (warp % 2) * 8 + lane % 8;

  float acc[8][Cfg::kTn] = {};  // (rows, columns) of this thread, as above
  // ---- main loop
  if (p.read_ab)
    mainloop<Cfg, AK, BK, float>(s, p, t, tid, [&](const float* sa, const float* sb) {
      sa += ty * 4;
      sb += tx * 4;
#pragma unroll
      for (int k = 0; k < BLK_K; ++k) {
        float av[8], bv[Cfg::kTn];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float4 x = lds128(sa + k * TileA::kPitch + h * 64);
          av[4 * h] = x.x, av[4 * h + 1] = x.y, av[4 * h + 2] = x.z, av[4 * h + 3] = x.w;
        }
#pragma unroll
        for (int h = 0; h < NJ; ++h) {
          const float4 x = lds128(sb + k * TileB::kPitch + h * 64);
          bv[4 * h] = x.x, bv[4 * h + 1] = x.y, bv[4 * h + 2] = x.z, bv[4 * h + 3] = x.w;
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < Cfg::kTn; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
    });

  // ---- epilogue: runs of 4 columns, one float4 where D's rows allow
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int64_t row = t.m0 + (i / 4) * 64 + ty * 4 + i % 4;
#pragma unroll
    for (int h = 0; h < NJ; ++h)
      store_run<float, 4>(p, t.l, row, t.n0 + h * 64 + tx * 4, &acc[i][h * 4], alpha, beta);
  }
}

// The kernels of a config, by arrangement: [A K-major][B K-major].
template <class Cfg>
constexpr KernelFn<float> kFfmaKernels[2][2] = {
    {sgemm_ffma_kernel<Cfg, false, false>, sgemm_ffma_kernel<Cfg, false, true>},
    {sgemm_ffma_kernel<Cfg, true, false>, sgemm_ffma_kernel<Cfg, true, true>}};

using SgemmConfig = FfmaConfig<16, 3, 8>;

}  // namespace

Status run_sgemm_ffma(const gpu::Problem& pr, float alpha, float beta, cudaStream_t stream) {
  return launch<SgemmConfig>(pr, kFfmaKernels<SgemmConfig>, alpha, beta, stream);
}

}  // namespace gemmkit::simt

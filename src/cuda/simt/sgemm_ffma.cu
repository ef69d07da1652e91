// f32 GEMM on the CUDA cores (cuBLAS SGEMM, CUBLAS_COMPUTE_32F): exact fp32, one FFMA per
// product, never TF32. A CTA computes a 128 x 128 tile of D with 256 threads, each an 8 x 8
// register tile (rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx), so that
// per k a thread reads two float4 of A and two of B from shared memory for 64 FFMA. Operand
// tiles of 16 k come through a 3-stage cp.async ring (stage.cuh); two CTAs share an SM.
#include "cuda/simt/epilogue.cuh"
#include "cuda/simt/launch.cuh"
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
  constexpr int kStages = Cfg::kStages, BLK_K = Cfg::BLK_K, NJ = Cfg::kTn / 4;
  using TileA = typename Cfg::TileA;
  using TileB = typename Cfg::TileB;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  auto& s = *reinterpret_cast<typename Cfg::SharedStorage*>(smem_raw);
  const CtaTile t = cta_tile<Cfg::BLK_M, Cfg::BLK_N>(p);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  // A warp: 4 x 8 threads, reading 4 float4 of A and 8 of B a step (broadcast, no conflict).
  const int ty = (warp / 2) * 4 + lane / 8, tx = (warp % 2) * 8 + lane % 8;

  float acc[8][Cfg::kTn] = {};  // (rows, columns) of this thread, as above
  if (p.read_ab) {
    const float* a = static_cast<const float*>(p.a.ptr) + t.l * p.a.batch_stride;
    const float* b = static_cast<const float*>(p.b.ptr) + t.l * p.b.batch_stride;
    const int64_t k_tiles = sched::ceil_div(p.k, BLK_K);
    const auto load = [&](int64_t kt) {
      const int st = static_cast<int>(kt % kStages);
      load_tile<TileA, Cfg::kThreads, AK>(s.a[st], p.a, a, t.m0, kt * BLK_K, p.m, p.k, tid);
      load_tile<TileB, Cfg::kThreads, BK>(s.b[st], p.b, b, t.n0, kt * BLK_K, p.n, p.k, tid);
    };

    // ---- main loop: a ring of kStages tiles, one barrier per tile
#pragma unroll
    for (int i = 0; i < kStages - 1; ++i) {
      if (i < k_tiles) load(i);
      ptx::cp_async_commit();
    }
#pragma unroll 1
    for (int64_t kt = 0; kt < k_tiles; ++kt) {
      ptx::cp_async_wait<kStages - 2>();
      __syncthreads();  // tile kt landed; every thread is done with tile kt - 1's stage
      if (kt + kStages - 1 < k_tiles) load(kt + kStages - 1);
      ptx::cp_async_commit();
      const float* sa = s.a[kt % kStages] + ty * 4;
      const float* sb = s.b[kt % kStages] + tx * 4;
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
    }
    ptx::cp_async_wait<0>();  // the empty groups of the last tiles
  }

  // ---- epilogue: runs of 4 columns, one float4 where D's rows allow
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int64_t row = t.m0 + (i / 4) * 64 + ty * 4 + i % 4;
#pragma unroll
    for (int h = 0; h < NJ; ++h)
      store_run<float, 4>(p, t.l, row, t.n0 + h * 64 + tx * 4, &acc[i][h * 4], alpha, beta);
  }
}

template <class Cfg>
struct SgemmFfma {
  static constexpr int BLK_M = Cfg::BLK_M, BLK_N = Cfg::BLK_N;
  static constexpr int kThreads = Cfg::kThreads;
  static constexpr int kSmemBytes = sizeof(typename Cfg::SharedStorage);
  template <bool AK, bool BK>
  static KernelFn<float> kernel() {
    return sgemm_ffma_kernel<Cfg, AK, BK>;
  }
};

using SgemmConfig = FfmaConfig<16, 3, 8>;

}  // namespace

Status run_sgemm_ffma(const gpu::Problem& pr, float alpha, float beta, cudaStream_t stream) {
  return launch<SgemmFfma<SgemmConfig>>(pr, alpha, beta, stream);
}

}  // namespace gemmkit::simt

// f64 GEMM on the f64 tensor cores (cuBLAS DGEMM, CUBLAS_COMPUTE_64F): DMMA,
// mma.sync.m8n8k4.f64, accumulating in f64. A CTA computes a 128 x 128 tile of D with 8 warps
// as 2 x 4 warp tiles of 64 x 32 (8 x 4 DMMA tiles: 64 doubles of accumulator a thread). Per
// k4 step a warp reads 8 A and 4 B fragments (one double a lane, conflict-free in the padded
// k-row tiles of stage.cuh) for 32 DMMA. Operand tiles of 16 k come through a 4-stage
// cp.async ring; one CTA an SM.
#include "cuda/simt/epilogue.cuh"
#include "cuda/simt/launch.cuh"
#include "cuda/simt/mainloop.cuh"
#include "cuda/simt/simt.hpp"
#include "cuda/simt/stage.cuh"

namespace gemmkit::simt {
namespace {

// ---- preconditions
// A CTA: 8 warps as kWarpsM x kWarpsN warp tiles of WM x WN, each MI x NI DMMA tiles of
// MMA_M x 8 (MMA_M = 8: m8n8k4; 16: m16n8k4, sm_90); K in tiles of BK through STAGES.
template <int MMA_M, int BK, int STAGES>
struct DmmaConfig {
  static constexpr int BLK_M = 128, BLK_N = 128, BLK_K = BK, kStages = STAGES;
  static constexpr int kThreads = 256, kWarpsM = 2, kWarpsN = 4, kMmaM = MMA_M;
  static constexpr int WM = BLK_M / kWarpsM, WN = BLK_N / kWarpsN;  // 64 x 32
  static constexpr int MI = WM / MMA_M, NI = WN / 8;
  static_assert(kWarpsM * kWarpsN * 32 == kThreads, "one warp a warp tile");
  static_assert(MMA_M == 8 || MMA_M == 16, "m8n8k4 or m16n8k4");
  static_assert(BK % 4 == 0, "whole k4 steps");
  static_assert(STAGES >= 2, "the ring prefetches STAGES - 1 tiles ahead");
  using TileA = KRowsTile<double, BLK_M, BK>;  // (BLK_K, BLK_M + pad)
  using TileB = KRowsTile<double, BLK_N, BK>;  // (BLK_K, BLK_N + pad)
  // ---- SharedStorage
  struct SharedStorage {
    alignas(16) double a[STAGES][TileA::kElems];
    alignas(16) double b[STAGES][TileB::kElems];
  };
};

template <class Cfg, bool AK, bool BK>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    dgemm_dmma_kernel(const gpu::Params p, double alpha, double beta) {
  constexpr int BLK_K = Cfg::BLK_K, MI = Cfg::MI, NI = Cfg::NI;
  constexpr int MMA_M = Cfg::kMmaM, RA = MMA_M / 8;  // A fragment rows g + 8 r, r < RA
  using TileA = typename Cfg::TileA;
  using TileB = typename Cfg::TileB;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  auto& s = *reinterpret_cast<typename Cfg::SharedStorage*>(smem_raw);
  const CtaTile t = cta_tile<Cfg::BLK_M, Cfg::BLK_N>(p);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp % Cfg::kWarpsM, wn = warp / Cfg::kWarpsM;
  const int g = lane / 4, q = lane % 4;  // DMMA: row / column g, k q

  double acc[MI][NI][2 * RA] = {};  // D(g + 8 r, 2q + {0, 1}) of each tile at [2r], [2r + 1]
  // ---- main loop
  if (p.read_ab)
    mainloop<Cfg, AK, BK, double>(s, p, t, tid, [&](const double* sa, const double* sb) {
      sa += q * TileA::kPitch + wm * Cfg::WM + g;
      sb += q * TileB::kPitch + wn * Cfg::WN + g;
#pragma unroll
      for (int k4 = 0; k4 < BLK_K; k4 += 4) {
        double af[MI][RA], bf[NI];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int r = 0; r < RA; ++r) af[mi][r] = sa[k4 * TileA::kPitch + mi * MMA_M + r * 8];
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) bf[ni] = sb[k4 * TileB::kPitch + ni * 8];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int ni = 0; ni < NI; ++ni) ptx::dmma<MMA_M>(acc[mi][ni], af[mi], bf[ni]);
      }
    });

  // ---- epilogue: pairs of columns, one double2 where D's rows allow
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int r = 0; r < RA; ++r)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
        store_run<double, 2>(p, t.l, t.m0 + wm * Cfg::WM + mi * MMA_M + r * 8 + g,
                             t.n0 + wn * Cfg::WN + ni * 8 + 2 * q, &acc[mi][ni][2 * r], alpha,
                             beta);
}

// The kernels of a config, by arrangement: [A K-major][B K-major].
template <class Cfg>
constexpr KernelFn<double> kDmmaKernels[2][2] = {
    {dgemm_dmma_kernel<Cfg, false, false>, dgemm_dmma_kernel<Cfg, false, true>},
    {dgemm_dmma_kernel<Cfg, true, false>, dgemm_dmma_kernel<Cfg, true, true>}};

using DgemmConfig = DmmaConfig<16, 16, 4>;

}  // namespace

Status run_dgemm_dmma(const gpu::Problem& pr, double alpha, double beta, cudaStream_t stream) {
  return launch<DgemmConfig>(pr, kDmmaKernels<DgemmConfig>, alpha, beta, stream);
}

}  // namespace gemmkit::simt

// Rung 4, explicit intrinsics (the seed's TensorCoreIntrinEmitter with its config): the warp
// tiling is spelled out here instead of left to the tile-level mma. block_row_warps x
// block_col_warps = 2 x 2 warps, each owning warp_row_tiles x warp_col_tiles = 64 x 64 outputs
// (4 x 8 mma tiles), a 128 x 128 x 32 CTA tile, four cp.async stages with swizzled tiles and
// grouped CTA order as in rung 3, two CTAs per SM. Fragments are double-buffered in registers:
// the ldmatrix of k16 step s + 1 (of the next stage after the last step) is issued before the
// 32 mma of step s, and the one barrier per K tile sits right after the last ldmatrix from its
// stage, with two steps of mma ready to issue behind it.
// Fixes: ldmatrix latency hides behind the mma of the previous step instead of stalling each
// step. Leaves: mma.sync itself (wgmma issues 4x wider tensor-core work per instruction from
// shared memory, without the register-file round trip), 8 warps per SM at ~255 registers, and
// a synchronous epilogue straight from registers. (Measured and dropped: a 128 x 256 CTA of
// 2 x 4 warps, one CTA per SM, ran slower than rung 3 -- every barrier and epilogue stalled
// the whole SM; BLK_K = 64 with 3 stages spilled.)
#include "cuda/ladder/harness.cuh"

namespace gemmkit::cuda_ladder {
namespace {

// ---- preconditions
constexpr int kBlockRowWarps = 2, kBlockColWarps = 2;   // warps along M and N
constexpr int kWarpRowTiles = 64, kWarpColTiles = 64;   // outputs per warp along M and N
constexpr int kTileM = kBlockRowWarps * kWarpRowTiles;  // 128
constexpr int kTileN = kBlockColWarps * kWarpColTiles;  // 128
constexpr int kTileK = 32, kStages = 4, kGroupM = 8;
constexpr int kThreads = 32 * kBlockRowWarps * kBlockColWarps;
constexpr int MI = kWarpRowTiles / 16, NI = kWarpColTiles / 8, KS = kTileK / 16;
static_assert(kWarpRowTiles % 16 == 0 && kWarpColTiles % 16 == 0);  // m16 tiles, n8 pairs
static_assert(KS >= 2);       // the barrier sits before the last k16 step of a tile
static_assert(kStages >= 2);  // one stage is read while the others load
template <bool AK>
using TileA = OperandTile<kTileM, kTileK, AK, /*SWIZZLE=*/true>;
template <bool BK>
using TileB = OperandTile<kTileN, kTileK, BK, /*SWIZZLE=*/true>;

// ---- SharedStorage
template <bool AK, bool BK>
struct SharedStorage {
  uint16_t a[kStages][TileA<AK>::kElems];  // per stage (BLK_M, BLK_K) or (BLK_K, BLK_M)
  uint16_t b[kStages][TileB<BK>::kElems];  // per stage (BLK_N, BLK_K) or (BLK_K, BLK_N)
};

template <class T, bool AK, bool BK>
__global__ void __launch_bounds__(kThreads, 2) rung4_warp_tiled_kernel(const Params p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  auto& ss = *reinterpret_cast<SharedStorage<AK, BK>*>(smem_raw);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / kBlockColWarps, warp_n = warp % kBlockColWarps;
  const CtaOperands op = cta_operands(p);
  const TileCoord t =
      grouped_tile(blockIdx.x, ceil_div(p.m, kTileM), ceil_div(p.n, kTileN), kGroupM);
  const int64_t m0 = t.m * kTileM, n0 = t.n * kTileN;
  const int64_t k_tiles = p.read_ab ? ceil_div(p.k, kTileK) : 0;
  const auto load_stage = [&](int64_t kt) {
    if (kt < k_tiles) {
      const int s = static_cast<int>(kt % kStages);
      load_tile<TileA<AK>, kThreads>(ss.a[s], p.a, op.a, m0, kt * kTileK, p.m, p.k, tid);
      load_tile<TileB<BK>, kThreads>(ss.b[s], p.b, op.b, n0, kt * kTileK, p.n, p.k, tid);
    }
    ptx::cp_async_commit();
  };
  // Fragments of k16 step ks of stage s into register buffer buf.
  uint32_t af[2][MI][4], bf[2][NI / 2][4];
  const auto load_fragments = [&](int buf, int s, int ks) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
      load_fragment<TileA<AK>, true>(af[buf][mi], ss.a[s], warp_m * kWarpRowTiles + mi * 16,
                                     ks * 16, lane);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj)
      load_fragment<TileB<BK>, false>(bf[buf][nj], ss.b[s], warp_n * kWarpColTiles + nj * 16,
                                      ks * 16, lane);
  };

  // ---- main loop: all stages are filled up front. In tile kt, step ks loads the fragments of
  // step ks + 1 (of tile kt + 1 after the last step) before its own 32 mma. The barrier sits
  // after the last ldmatrix from tile kt's stage (at step KS - 2): past it the stage is
  // refilled with tile kt + kStages, and tile kt + 1 is complete and visible.
  float acc[MI][NI][4] = {};
  for (int s = 0; s < kStages; ++s) load_stage(s);
  if (k_tiles > 0) {
    ptx::cp_async_wait<kStages - 1>();
    __syncthreads();
    load_fragments(0, 0, 0);
  }
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    const int s = static_cast<int>(kt % kStages);
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks + 1 < KS)
        load_fragments((ks + 1) % 2, s, ks + 1);
      else
        load_fragments((ks + 1) % 2, static_cast<int>((kt + 1) % kStages), 0);
      if (ks == KS - 2) {
        ptx::cp_async_wait<kStages - 2>();
        __syncthreads();
        load_stage(kt + kStages);
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          const uint32_t b[2] = {bf[ks % 2][ni / 2][(ni % 2) * 2],
                                 bf[ks % 2][ni / 2][(ni % 2) * 2 + 1]};
          ptx::mma_m16n8k16(acc[mi][ni], af[ks % 2][mi], b, T{});
        }
    }
  }
  ptx::cp_async_wait<0>();

  // ---- epilogue
  store_accumulators(p, op.batch, acc, m0 + warp_m * kWarpRowTiles, n0 + warp_n * kWarpColTiles,
                     lane);
}

struct Rung4 {
  static constexpr int BLK_M = kTileM, BLK_N = kTileN, kThreads = cuda_ladder::kThreads;
  static constexpr int kSmemBytes = sizeof(SharedStorage<true, true>);
  static constexpr bool kUsesArrangement = true;
  template <class T, bool AK, bool BK>
  static KernelFn kernel() {
    return rung4_warp_tiled_kernel<T, AK, BK>;
  }
};

}  // namespace

Status run_rung4(const Problem& pr, cudaStream_t stream) { return launch<Rung4>(pr, stream); }

}  // namespace gemmkit::cuda_ladder

// Rung 3, swizzled shared memory + block rasterization (the seed's RUNG_3: annotate_layout
// with the MMA swizzle, T.use_swizzle(panel_size)): rung 2's pipeline, but each 16-byte chunk
// of a staged row is stored at chunk ^ f(row), so the 8 rows of every ldmatrix phase land in
// 8 different bank groups, and CTAs are ordered in panels of kGroupM tile rows.
// Fixes: ldmatrix bank conflicts (4-way on 64-byte rows, 8-way on 256-byte rows) and the L2
// reuse of A and B between the CTAs resident at one time.
// Leaves: the warp policy is the generic tile-level mma's (4 warps, fragments loaded right
// before their mma, so ldmatrix latency shows at every k16 step) and a 128x128 CTA tile.
#include "cuda/ladder/harness.cuh"

namespace gemmkit::cuda_ladder {
namespace {

// ---- preconditions
constexpr int kTileM = 128, kTileN = 128, kTileK = 32, kStages = 3;
constexpr int kGroupM = 8;  // tile rows per rasterization panel
using WT = WarpTiling<kTileM, kTileN, 2, 2>;
static_assert(kTileK % 16 == 0);  // whole k16 mma steps per tile
static_assert(kStages >= 2);      // one stage computes while the others load
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
__global__ void __launch_bounds__(WT::kThreads) rung3_swizzle_raster_kernel(const Params p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  auto& ss = *reinterpret_cast<SharedStorage<AK, BK>*>(smem_raw);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / WT::kWarpsN, warp_n = warp % WT::kWarpsN;
  const CtaOperands op = cta_operands(p);
  const TileCoord t =
      grouped_tile(blockIdx.x, ceil_div(p.m, kTileM), ceil_div(p.n, kTileN), kGroupM);
  const int64_t m0 = t.m * kTileM, n0 = t.n * kTileN;
  const int64_t k_tiles = p.read_ab ? ceil_div(p.k, kTileK) : 0;
  // Issues the copy of K tile kt (if any) into its stage; one commit group per call.
  const auto load_stage = [&](int64_t kt) {
    if (kt < k_tiles) {
      const int s = static_cast<int>(kt % kStages);
      load_tile<TileA<AK>, WT::kThreads>(ss.a[s], p.a, op.a, m0, kt * kTileK, p.m, p.k, tid);
      load_tile<TileB<BK>, WT::kThreads>(ss.b[s], p.b, op.b, n0, kt * kTileK, p.n, p.k, tid);
    }
    ptx::cp_async_commit();
  };

  // ---- main loop: prologue fills kStages - 1 stages; each step waits for tile kt, refills
  // the stage freed by tile kt - 1 (the barrier proves every warp is done with it), computes.
  typename WT::Acc acc = {};
  for (int s = 0; s < kStages - 1; ++s) load_stage(s);
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    ptx::cp_async_wait<kStages - 2>();
    __syncthreads();
    load_stage(kt + kStages - 1);
    const int s = static_cast<int>(kt % kStages);
    tile_mma<T, WT, TileA<AK>, TileB<BK>, kTileK>(acc, ss.a[s], ss.b[s], warp_m, warp_n, lane);
  }
  ptx::cp_async_wait<0>();

  // ---- epilogue
  store_accumulators(p, op.batch, acc, m0 + warp_m * WT::WM, n0 + warp_n * WT::WN, lane);
}

struct Rung3 {
  static constexpr int BLK_M = kTileM, BLK_N = kTileN, kThreads = WT::kThreads;
  static constexpr int kSmemBytes = sizeof(SharedStorage<true, true>);
  static constexpr bool kUsesArrangement = true;
  template <class T, bool AK, bool BK>
  static KernelFn kernel() {
    return rung3_swizzle_raster_kernel<T, AK, BK>;
  }
};

}  // namespace

Status run_rung3(const Problem& pr, cudaStream_t stream) { return launch<Rung3>(pr, stream); }

}  // namespace gemmkit::cuda_ladder

// Rung 4, explicit intrinsics (the seed's TensorCoreIntrinEmitter): the warp tiling is spelled
// out here instead of left to the tile-level mma. block_row_warps x block_col_warps = 2 x 2
// warps, each owning warp_row_tiles x warp_col_tiles = 64 x 64 outputs (4 x 8 mma tiles), a
// 128 x 128 x 64 CTA tile, three cp.async stages with swizzled tiles and grouped CTA order as in
// rung 3, two CTAs per SM. Fixes over rung 3:
//   - a lean steady-state copy: interior CTAs copy full K tiles with unpredicated cp.async from
//     per-thread running pointers (edge tiles and unaligned operands keep the harness's
//     predicated load_tile), so the K loop carries few non-mma instructions;
//   - fragments pipelined in registers: A of k16 step s + 1 is loaded before the mma of step
//     s, B one n16 pair ahead (into the next step / next tile at the end), without the 64
//     registers of a full double buffer: 246-252 registers, no spills;
//   - one barrier per 64-deep K tile (half as many per flop as BLK_K = 32), placed just before
//     the first read of the next tile, where it also frees the previous tile's stage;
//   - int stage indices and a rolled K loop.
// Leaves: mma.sync itself (wgmma issues 4x wider tensor-core work per instruction from shared
// memory, without the register-file round trip), 8 warps per SM at ~250 registers, and a
// synchronous epilogue straight from registers. (Measured and dropped: 128 x 256 and 256 x 128
// CTAs of 8 warps, one CTA per SM, BLK_K = 64, 3 stages: 237-240 TFLOP/s against this one's 260
// at 4096^3 in the same run; this design with BLK_K = 32 and 4 stages: 249.)
#include "cuda/ladder/harness.cuh"

namespace gemmkit::cuda_ladder {
namespace {

// ---- preconditions
constexpr int kBlockRowWarps = 2, kBlockColWarps = 2;   // warps along M and N
constexpr int kWarpRowTiles = 64, kWarpColTiles = 64;   // outputs per warp along M and N
constexpr int kTileM = kBlockRowWarps * kWarpRowTiles;  // 128
constexpr int kTileN = kBlockColWarps * kWarpColTiles;  // 128
constexpr int kTileK = 64, kStages = 3, kGroupM = 8;
constexpr int kThreads = 32 * kBlockRowWarps * kBlockColWarps;
constexpr int MI = kWarpRowTiles / 16, NI = kWarpColTiles / 8, KS = kTileK / 16;
static_assert(kWarpRowTiles % 16 == 0 && kWarpColTiles % 16 == 0);  // m16 tiles, n8 pairs
static_assert(KS % 2 == 0 && (NI / 2) % 2 == 0);  // fragment buffers line up across tiles
static_assert(kStages >= 3);  // one stage read, one being released, the rest loading
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

// The steady-state copy of one operand: a thread's kSteps 16-byte chunks of a full, interior
// K tile, as plain cp.async from a running global pointer (advanced one K tile per call) to
// smem offsets fixed at the start. The swizzle repeats every 8 rows and a thread's chunks are
// kRowStep (a multiple of 8) rows apart, so chunk i sits i * kRowStep rows below chunk 0.
// Tiles at the M/N/K edges and unaligned operands take the harness's predicated load_tile.
template <class Tile>
struct SteadyCopy {
  using L = typename Tile::Layout;
  static constexpr int kRowStep = kThreads / L::kChunks, kSteps = L::kElems / (8 * kThreads);
  static_assert(kRowStep % 8 == 0, "chunk i keeps chunk 0's swizzle");
  const uint16_t* src;  // chunk 0 of the next K tile this thread copies
  int64_t row_step;     // elements between this thread's chunks
  int64_t tile_step;    // elements between K tiles
  int dst;              // element offset of chunk 0 in a stage

  __device__ __forceinline__ SteadyCopy(const OperandView& v, const uint16_t* base, int64_t o0,
                                        int tid) {
    constexpr bool KM = Tile::kKMajor;
    const int row0 = tid / L::kChunks, col = (tid % L::kChunks) * 8;
    const int64_t o = o0 + (KM ? row0 : col), k = KM ? col : row0;
    src = base + o * v.s_outer + k * v.s_k;
    row_step = kRowStep * (KM ? v.s_outer : v.s_k);
    tile_step = kTileK * v.s_k;
    dst = L::offset(row0, col);
  }
  __device__ __forceinline__ void copy_next(uint16_t* stage) {
#pragma unroll
    for (int i = 0; i < kSteps; ++i)
      ptx::cp_async_16(ptx::smem_addr(stage + dst + i * kRowStep * L::kCols), src + i * row_step);
    src += tile_step;
  }
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
  // K tiles below k_steady are copied by SteadyCopy (0 when this CTA sits on an M/N edge or
  // an operand needs the gather); the rest through the predicated load_tile.
  const bool steady = p.a.vec16 && p.b.vec16 && m0 + kTileM <= p.m && n0 + kTileN <= p.n;
  const int64_t k_steady = steady ? p.k / kTileK : 0;
  SteadyCopy<TileA<AK>> copy_a(p.a, op.a, m0, tid);
  SteadyCopy<TileB<BK>> copy_b(p.b, op.b, n0, tid);
  const auto load_stage = [&](int64_t kt, int s) {
    if (kt < k_steady) {
      copy_a.copy_next(ss.a[s]);
      copy_b.copy_next(ss.b[s]);
    } else if (kt < k_tiles) {
      load_tile<TileA<AK>, kThreads>(ss.a[s], p.a, op.a, m0, kt * kTileK, p.m, p.k, tid);
      load_tile<TileB<BK>, kThreads>(ss.b[s], p.b, op.b, n0, kt * kTileK, p.n, p.k, tid);
    }
    ptx::cp_async_commit();
  };
  // Fragments: A of a whole k16 step (all MI m16 tiles) double-buffered across steps; B one
  // n16 pair at a time, double-buffered across pairs (and into the next step's first pair).
  uint32_t af[2][MI][4], bf[2][4];
  const auto load_a = [&](int buf, int s, int ks) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
      load_fragment<TileA<AK>, true>(af[buf][mi], ss.a[s], warp_m * kWarpRowTiles + mi * 16,
                                     ks * 16, lane);
  };
  const auto load_b = [&](int buf, int s, int ks, int nj) {
    load_fragment<TileB<BK>, false>(bf[buf], ss.b[s], warp_n * kWarpColTiles + nj * 16, ks * 16,
                                    lane);
  };

  // ---- main loop. Tile j lives in stage j % kStages; kStages - 1 tiles are in flight ahead.
  // In tile kt, step ks first loads A of step ks + 1, then walks the n16 pairs, loading B of
  // the next pair before the 2 * MI mma of this one. Before the first read of tile kt + 1
  // (A of its step 0, issued at the start of tile kt's last step) one barrier: past it tile
  // kt + 1 is complete and visible, and every warp is done with tile kt - 1's stage, which is
  // refilled right there with tile kt + kStages - 1.
  float acc[MI][NI][4] = {};
#pragma unroll 1
  for (int j = 0; j < kStages - 1; ++j) load_stage(j, j);
  if (k_tiles > 0) {
    ptx::cp_async_wait<kStages - 2>();
    __syncthreads();
    load_a(0, 0, 0);
    load_b(0, 0, 0, 0);
  }
  int s = 0, s_prev = kStages - 1;
#pragma unroll 1
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    const int s_next = s + 1 == kStages ? 0 : s + 1;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks + 1 < KS) {
        load_a((ks + 1) % 2, s, ks + 1);
      } else {
        ptx::cp_async_wait<kStages - 3>();
        __syncthreads();
        load_stage(kt + kStages - 1, s_prev);
        load_a((ks + 1) % 2, s_next, 0);
      }
#pragma unroll
      for (int nj = 0; nj < NI / 2; ++nj) {
        if (nj + 1 < NI / 2)
          load_b((nj + 1) % 2, s, ks, nj + 1);
        else if (ks + 1 < KS)
          load_b((nj + 1) % 2, s, ks + 1, 0);
        else
          load_b((nj + 1) % 2, s_next, 0, 0);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
          ptx::mma_m16n8k16(acc[mi][2 * nj], af[ks % 2][mi], {bf[nj % 2][0], bf[nj % 2][1]}, T{});
          ptx::mma_m16n8k16(acc[mi][2 * nj + 1], af[ks % 2][mi], {bf[nj % 2][2], bf[nj % 2][3]},
                            T{});
        }
      }
    }
    s_prev = s;
    s = s_next;
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

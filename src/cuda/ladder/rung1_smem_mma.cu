// Rung 1, shared memory + tensor-core mma (the seed's RUNG_1: T.copy to shared, T.gemm): a
// 128x128 block of D per CTA; each K step copies a (128, 32) tile of A and of B into shared
// memory, waits, and the four warps (2x2, 64x64 each) multiply it with ldmatrix + mma.sync.
// Fixes: every element staged in shared memory is reused by 128 outputs, and the tensor cores
// do the arithmetic. Leaves: copy and compute alternate (load, wait, compute, repeat), so the
// tensor cores idle through every global-memory latency.
#include "cuda/ladder/harness.cuh"

namespace gemmkit::cuda_ladder {
namespace {

// ---- preconditions
constexpr int kTileM = 128, kTileN = 128, kTileK = 32;
using WT = WarpTiling<kTileM, kTileN, 2, 2>;
static_assert(kTileK % 16 == 0);  // whole k16 mma steps per tile
template <bool AK>
using TileA = OperandTile<kTileM, kTileK, AK, /*SWIZZLE=*/false>;
template <bool BK>
using TileB = OperandTile<kTileN, kTileK, BK, /*SWIZZLE=*/false>;

// ---- SharedStorage
template <bool AK, bool BK>
struct SharedStorage {
  uint16_t a[TileA<AK>::kElems];  // (BLK_M, BLK_K), or (BLK_K, BLK_M) when A is M-major
  uint16_t b[TileB<BK>::kElems];  // (BLK_N, BLK_K), or (BLK_K, BLK_N) when B is N-major
};

template <class T, bool AK, bool BK>
__global__ void __launch_bounds__(WT::kThreads) rung1_smem_mma_kernel(const Params p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  auto& ss = *reinterpret_cast<SharedStorage<AK, BK>*>(smem_raw);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / WT::kWarpsN, warp_n = warp % WT::kWarpsN;
  const CtaOperands op = cta_operands(p);
  const TileCoord t = linear_tile(blockIdx.x, ceil_div(p.n, kTileN));
  const int64_t m0 = t.m * kTileM, n0 = t.n * kTileN;

  // ---- main loop: copy, wait, compute, wait
  typename WT::Acc acc = {};
  const int64_t k_tiles = p.read_ab ? ceil_div(p.k, kTileK) : 0;
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    load_tile<TileA<AK>, WT::kThreads>(ss.a, p.a, op.a, m0, kt * kTileK, p.m, p.k, tid);
    load_tile<TileB<BK>, WT::kThreads>(ss.b, p.b, op.b, n0, kt * kTileK, p.n, p.k, tid);
    ptx::cp_async_commit();
    ptx::cp_async_wait<0>();
    __syncthreads();
    tile_mma<T, WT, TileA<AK>, TileB<BK>, kTileK>(acc, ss.a, ss.b, warp_m, warp_n, lane);
    __syncthreads();
  }

  // ---- epilogue
  store_accumulators(p, op.batch, acc, m0 + warp_m * WT::WM, n0 + warp_n * WT::WN, lane);
}

struct Rung1 {
  static constexpr int BLK_M = kTileM, BLK_N = kTileN, kThreads = WT::kThreads;
  static constexpr int kSmemBytes = sizeof(SharedStorage<true, true>);
  static constexpr bool kUsesArrangement = true;
  template <class T, bool AK, bool BK>
  static KernelFn kernel() {
    return rung1_smem_mma_kernel<T, AK, BK>;
  }
};

}  // namespace

Status run_rung1(const Problem& pr, cudaStream_t stream) { return launch<Rung1>(pr, stream); }

}  // namespace gemmkit::cuda_ladder

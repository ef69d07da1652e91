// The shared harness of the CUDA ladder: everything a rung needs that is not its one idea.
//   - CTA placement: batch-offset operands, linear and grouped (rasterized) tile orders;
//   - staging: shared-memory tile layouts (plain or XOR-swizzled) and a predicated
//     global -> shared tile copy (cp.async on full aligned chunks, a zero-filling scalar gather
//     at the edges and for unaligned leading dimensions: never a fault);
//   - fragments: ldmatrix of m16n8k16 A/B fragments from either operand arrangement, and the
//     tile-level mma of rungs 1-3 (the seed's T.gemm with a square 2x2 warp policy);
//   - epilogue: D = alpha * acc + beta * C with BLAS semantics, predicated, f32/f16/bf16 out;
//   - launch: dtype x arrangement dispatch, grid, dynamic shared memory, error check.
// All index math is 64-bit; only in-tile offsets are int.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/status.hpp"
#include "cuda/epilogue.cuh"
#include "cuda/ladder/ladder.hpp"
#include "cuda/ptx/sm80_mma.cuh"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::cuda_ladder {

using std::int64_t;
using std::uint16_t;
using std::uint32_t;

using sched::ceil_div;

// ---------------------------------------------------------------------------------------------
// CTA placement

struct TileCoord {
  int64_t m, n;  // tile indices
};

// Row-major order over output tiles: consecutive CTAs walk along N.
__device__ __forceinline__ TileCoord linear_tile(int64_t bid, int64_t tiles_n) {
  return {bid / tiles_n, bid % tiles_n};
}

// Grouped order (Triton's "super-grouping", the seed's T.use_swizzle(panel_size)): CTAs walk
// down a panel of `group` tile rows before moving right, so the CTAs resident at one time
// share a few rows of A and columns of B in L2. The order is the tile scheduler's.
__device__ __forceinline__ TileCoord grouped_tile(int64_t bid, int64_t tiles_m, int64_t tiles_n,
                                                  int group) {
  sched::Params sp;
  sp.tiles_m = tiles_m;
  sp.tiles_n = tiles_n;
  sp.group = group;
  const sched::Work w = sched::tile_at(sp, bid);
  return {w.tile_m, w.tile_n};
}

// This CTA's batch entry and its operand pointers (raw 16-bit elements).
struct CtaOperands {
  int64_t batch;
  const uint16_t* a;
  const uint16_t* b;
};

__device__ __forceinline__ CtaOperands cta_operands(const Params& p) {
  const int64_t l = p.batch_begin + blockIdx.y;
  return {l, static_cast<const uint16_t*>(p.a.ptr) + l * p.a.batch_stride,
          static_cast<const uint16_t*>(p.b.ptr) + l * p.b.batch_stride};
}

// One input element (raw 16 bits of a bf16 or fp16) as float.
template <class T>
__device__ __forceinline__ float input_to_float(uint16_t bits) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(__ushort_as_half(bits));
  else
    return __bfloat162float(__ushort_as_bfloat16(bits));
}

// ---------------------------------------------------------------------------------------------
// Staging: shared-memory tiles of 16-bit elements, rows of COLS contiguous elements.

// (ROWS, COLS) row-major; with SWIZZLE the 16-byte chunk index is XORed with a function of the
// row so that the 8 rows one ldmatrix phase reads fall in 8 different 16-byte bank groups.
template <int ROWS, int COLS, bool SWIZZLE>
struct SmemLayout {
  static constexpr int kRows = ROWS, kCols = COLS, kElems = ROWS * COLS;
  static constexpr int kChunks = COLS / 8;  // 16-byte chunks per row
  static_assert(COLS % 8 == 0, "rows are whole 16-byte chunks");
  static_assert(!SWIZZLE || kChunks >= 4, "the swizzle needs rows of at least 64 bytes");

  __device__ __forceinline__ static int chunk_swizzle(int row) {
    if constexpr (!SWIZZLE)
      return 0;
    else if constexpr (kChunks >= 8)
      return row % 8;  // 128-byte rows and wider
    else
      return (row / (8 / kChunks)) % kChunks;  // 64-byte rows: pairs of rows
  }
  // Offset of element (row, col); col % 8 is kept inside the chunk.
  __device__ __forceinline__ static int offset(int row, int col) {
    return row * COLS + (((col / 8) ^ chunk_swizzle(row)) * 8) + col % 8;
  }
};

// One operand tile (BLK_O, BLK_K) stored in the arrangement of global memory: K-major tiles
// are (BLK_O, BLK_K) rows of K, outer-major tiles (BLK_K, BLK_O) rows of M or N.
template <int BLK_O, int BLK_K, bool KMAJOR, bool SWIZZLE>
struct OperandTile {
  using Layout = SmemLayout<KMAJOR ? BLK_O : BLK_K, KMAJOR ? BLK_K : BLK_O, SWIZZLE>;
  static constexpr int kElems = Layout::kElems;
  static constexpr bool kKMajor = KMAJOR;
  __device__ __forceinline__ static int offset(int o, int k) {
    return KMAJOR ? Layout::offset(o, k) : Layout::offset(k, o);
  }
};

// Copies tile (o0.., k0..) of an operand into smem, one 16-byte chunk per thread per step (the
// commit is the caller's). Thread t copies column chunk t % kChunks of rows t / kChunks + i *
// kRowStep. A 16-byte-capable operand goes through cp.async, edge chunks reading only their
// in-bounds bytes and zero-filling the rest; an operand with an unaligned leading dimension is
// gathered element by element in a rolled loop (slow, small code, never a fault).
template <class Tile, int THREADS>
__device__ __forceinline__ void load_tile(uint16_t* smem, const OperandView& v,
                                          const uint16_t* base, int64_t o0, int64_t k0,
                                          int64_t o_ext, int64_t k_ext, int tid) {
  using L = typename Tile::Layout;
  static_assert(THREADS % L::kChunks == 0, "a thread keeps one column chunk");
  static_assert(L::kElems % (8 * THREADS) == 0, "every thread copies the same number of chunks");
  constexpr int kRowStep = THREADS / L::kChunks, kSteps = L::kElems / (8 * THREADS);
  constexpr bool KM = Tile::kKMajor;
  const int row0 = tid / L::kChunks, col = (tid % L::kChunks) * 8;
  const int64_t o = o0 + (KM ? row0 : col), k = k0 + (KM ? col : row0);
  const int64_t rows_left = KM ? o_ext - o : k_ext - k;  // of this thread's rows, inside
  const int64_t left = KM ? k_ext - k : o_ext - o;       // along the contiguous dimension
  const int cols = left <= 0 ? 0 : left < 8 ? static_cast<int>(left) : 8;
  const int64_t row_step = kRowStep * (KM ? v.s_outer : v.s_k);
  const uint16_t* src = base + o * v.s_outer + k * v.s_k;
  if (v.vec16) {
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int valid = i * kRowStep < rows_left ? cols : 0;
      ptx::cp_async_16_zfill(ptx::smem_addr(smem + L::offset(row0 + i * kRowStep, col)),
                             valid > 0 ? src + i * row_step : base, 2 * valid);
    }
  } else {
    const int64_t step = KM ? v.s_k : v.s_outer;
#pragma unroll 1
    for (int i = 0; i < kSteps; ++i) {
      const int valid = i * kRowStep < rows_left ? cols : 0;
      uint64_t lo = 0, hi = 0;
#pragma unroll 1
      for (int j = 0; j < valid; ++j) {
        const uint64_t e = uint64_t{src[i * row_step + j * step]} << (16 * (j % 4));
        if (j < 4)
          lo |= e;
        else
          hi |= e;
      }
      *reinterpret_cast<uint4*>(smem + L::offset(row0 + i * kRowStep, col)) =
          make_uint4(static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
                     static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Fragments (mma.sync m16n8k16, row.col)

// One ldmatrix.x4 at (o0, k0) of a tile. For A: the 16x16 A fragment {a0, a1, a2, a3}. For B:
// the B fragments of two n8 tiles, {b0, b1} of rows o0..o0+7 then of o0+8..o0+15. K-major
// tiles are read as stored, outer-major tiles through ldmatrix.trans.
template <class Tile, bool IS_A>
__device__ __forceinline__ void load_fragment(uint32_t (&r)[4], const uint16_t* tile, int o0,
                                              int k0, int lane) {
  const int i = lane / 8, row = lane % 8;
  const int o_half = IS_A ? i % 2 : i / 2;
  const int k_half = IS_A ? i / 2 : i % 2;
  if constexpr (Tile::kKMajor) {
    ptx::ldmatrix_x4(r,
                     ptx::smem_addr(tile + Tile::offset(o0 + o_half * 8 + row, k0 + k_half * 8)));
  } else {
    ptx::ldmatrix_x4_trans(
        r, ptx::smem_addr(tile + Tile::offset(o0 + o_half * 8, k0 + k_half * 8 + row)));
  }
}

// The warp tile of the tile-level mma: (WM, WN) outputs as MI x NI mma tiles of 16 x 8.
template <int BLK_M, int BLK_N, int WARPS_M, int WARPS_N>
struct WarpTiling {
  static constexpr int kWarpsM = WARPS_M, kWarpsN = WARPS_N, kThreads = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = BLK_M / WARPS_M, WN = BLK_N / WARPS_N;
  static constexpr int MI = WM / 16, NI = WN / 8;
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles are whole 16x16 mma pairs");
  using Acc = float[MI][NI][4];
};

// The seed's T.gemm(A_shared, B_shared, C_local): every warp multiplies its (WM, BLK_K) slice
// of A by its (WN, BLK_K) slice of B into its accumulators, one k16 step at a time.
template <class T, class WT, class TileA, class TileB, int BLK_K>
__device__ __forceinline__ void tile_mma(typename WT::Acc& acc, const uint16_t* sa,
                                         const uint16_t* sb, int warp_m, int warp_n, int lane) {
#pragma unroll
  for (int ks = 0; ks < BLK_K; ks += 16) {
    uint32_t af[WT::MI][4];
#pragma unroll
    for (int mi = 0; mi < WT::MI; ++mi)
      load_fragment<TileA, true>(af[mi], sa, warp_m * WT::WM + mi * 16, ks, lane);
#pragma unroll
    for (int nj = 0; nj < WT::NI / 2; ++nj) {
      uint32_t bf[4];  // two n8 tiles
      load_fragment<TileB, false>(bf, sb, warp_n * WT::WN + nj * 16, ks, lane);
#pragma unroll
      for (int mi = 0; mi < WT::MI; ++mi) {
        ptx::mma_m16n8k16(acc[mi][2 * nj], af[mi], {bf[0], bf[1]}, T{});
        ptx::mma_m16n8k16(acc[mi][2 * nj + 1], af[mi], {bf[2], bf[3]}, T{});
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Epilogue: src/cuda/epilogue.cuh (shared with the production kernels).

using gpu::store_accumulators;
using gpu::store_element;

// ---------------------------------------------------------------------------------------------
// Launch. A rung R provides BLK_M, BLK_N, kThreads, kSmemBytes, kUsesArrangement and
//   template <class T, bool AK, bool BK> static KernelFn kernel();
// the harness picks the instantiation for the problem and launches a 1-D grid of output tiles
// (y: batch entries, at most 65535 per launch).

using KernelFn = void (*)(Params);

template <class R, class T>
KernelFn pick_kernel(const Problem& pr) {
  if constexpr (!R::kUsesArrangement)
    return R::template kernel<T, true, true>();
  else if (pr.a_kmajor && pr.b_kmajor)
    return R::template kernel<T, true, true>();
  else if (pr.a_kmajor)
    return R::template kernel<T, true, false>();
  else if (pr.b_kmajor)
    return R::template kernel<T, false, true>();
  else
    return R::template kernel<T, false, false>();
}

// Calls `launch(grid, params)` once per 65535 batch entries over the (blk_m, blk_n) output
// tiles, after `e` (the caller's set-up) succeeded; reports the first launch error.
template <class F>
Status launch_tiles(const Problem& pr, int blk_m, int blk_n, cudaError_t e, F&& launch) {
  const int64_t tiles = ceil_div(pr.params.m, blk_m) * ceil_div(pr.params.n, blk_n);
  if (tiles > 0x7fffffff) return GEMMKIT_UNSUPPORTED("more output tiles than a 1-D grid holds");
  Params p = pr.params;
  for (int64_t b0 = 0; b0 < pr.batch && e == cudaSuccess; b0 += 65535) {
    p.batch_begin = b0;
    launch(dim3(static_cast<unsigned>(tiles),
                static_cast<unsigned>(pr.batch - b0 < 65535 ? pr.batch - b0 : 65535)),
           p);
    e = cudaGetLastError();
  }
  if (e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("ladder launch: ") + cudaGetErrorString(e));
  return {};
}

template <class R, class T>
Status launch_typed(const Problem& pr, cudaStream_t stream) {
  KernelFn k = pick_kernel<R, T>(pr);
  cudaError_t e = cudaSuccess;
  if (R::kSmemBytes > 48 * 1024)
    e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, R::kSmemBytes);
  return launch_tiles(pr, R::BLK_M, R::BLK_N, e, [&](dim3 grid, const Params& p) {
    k<<<grid, R::kThreads, R::kSmemBytes, stream>>>(p);
  });
}

template <class R>
Status launch(const Problem& pr, cudaStream_t stream) {
  return pr.in == InType::BF16 ? launch_typed<R, __nv_bfloat16>(pr, stream)
                               : launch_typed<R, __half>(pr, stream);
}

}  // namespace gemmkit::cuda_ladder

// Rung 4, explicit intrinsics (the seed's TensorCoreIntrinEmitter): the warp tiling is spelled
// out here instead of left to the tile-level mma. block_row_warps x block_col_warps = 2 x 2
// warps, each owning warp_row_tiles x warp_col_tiles = 64 x 64 outputs (4 x 8 mma tiles), a
// 128 x 128 x 64 CTA tile, three stages, swizzled tiles and grouped CTA order as in rung 3, two
// CTAs per SM. Fixes over rung 3:
//   - the copy by the Tensor Memory Accelerator (Hopper's explicit copy intrinsic): one thread
//     issues a K tile's boxes (cp.async.bulk.tensor, 128-byte swizzle, zero fill outside the
//     matrix) completing on the stage's mbarrier. With per-thread cp.async the copy cost ~40%
//     of the time (the same kernel with the copy switched off ran 1.6x faster): 16 address
//     computations and copies per thread per K tile in a loop whose limit is instruction issue.
//     Operands the TMA cannot address (unaligned base or leading dimension) keep per-thread
//     cp.async / the harness's predicated gather, in a second instance of the loop;
//   - fragment addresses precomputed per thread: with the 128-byte swizzle (chunk ^= row % 8)
//     the ldmatrix offset of fragment (t, ks) is one per-thread register chosen by one of t,
//     ks plus a compile-time offset of the other, so every ldmatrix is [reg + imm];
//   - fragments pipelined in registers: A of k16 step s + 1 is loaded before the mma of step
//     s, B one n16 pair ahead (into the next step / next tile at the end);
//   - no CTA barrier in the K loop: each stage has a `full` mbarrier (the TMA's bytes) and an
//     `empty` one (one arrival per warp done with it), so warps drift freely; the cp.async
//     fallback keeps one CTA barrier per 64-deep K tile.
// Leaves: mma.sync itself (about 640 TFLOP/s on the H200 even from registers, measured by
// bench/micro/mma_sync_ceiling.cu; wgmma issues 4x wider tensor-core work per instruction
// from shared memory), 8 warps per SM at ~240 registers, and a synchronous epilogue.
#include "cuda/ladder/harness.cuh"
#include "cuda/tma/tensor_map.cuh"

namespace gemmkit::cuda_ladder {
namespace {

// ---- preconditions
constexpr int kWarpsM = 2, kWarpsN = 2;  // block_row/col_warps
constexpr int kWarpM = 64, kWarpN = 64;  // warp_row/col_tiles
constexpr int kTileM = kWarpsM * kWarpM, kTileN = kWarpsN * kWarpN, kTileK = 64;
constexpr int kStages = 3, kCtasPerSm = 2, kGroupM = 8;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int MI = kWarpM / 16, NI = kWarpN / 8, KS = kTileK / 16;
static_assert(MI == 4 && NI / 2 == 4 && KS == 4, "4 per-thread fragment offsets per operand");
static_assert(kStages >= 3, "one stage read, one being released, the rest loading");
// The k16 step of tile kt at which the TMA refills tile kt - 1's stage: early (a deeper
// prefetch), but after the first step so that warp 0's producer thread rarely waits for the
// other warps to release the stage.
constexpr int kRefillStep = 1;

// Shared tiles of one operand, (BO, 64) for K-major operands, (64, BO) for outer-major ones,
// each with the 128-byte swizzle: the 16-byte chunk c of row r sits at c ^ (r % 8).
//   kRowLen  elements per stored row (64 for K-major; BO, or 64 in the TMA's boxes);
//   col0(o)  element offset of column o (a multiple of 64) in row 0 of an outer-major tile.
// The harness's cp.async tile stores outer-major rows whole; the TMA writes 64-wide boxes.
template <int BO, bool KMAJOR>
struct CpAsyncTile : OperandTile<BO, kTileK, KMAJOR, /*SWIZZLE=*/true> {
  static constexpr int kRowLen = KMAJOR ? kTileK : BO;
  __device__ static constexpr int col0(int o) { return o; }
};
template <int BO, bool KMAJOR>
struct TmaTile {
  static constexpr bool kKMajor = KMAJOR;
  static constexpr int kElems = BO * kTileK, kRowLen = 64;
  static constexpr int kBoxes = KMAJOR ? 1 : BO / 64, kBoxElems = kElems / kBoxes;
  __device__ static constexpr int col0(int o) { return (o / 64) * kBoxElems; }
};

// Byte addresses of a warp's ldmatrix.x4 reads: fragment (t, ks) is the t-th m16 tile (A) or
// n16 pair (B) of the warp's rows at k16 step ks, lanes 8i..8i+7 addressing matrix i as
// load_fragment does. Every row a lane addresses has row % 8 == lane % 8 = r, so:
//   K-major (rows o, 64 k):   row = o0 + 16t + 8o_half + r, chunk = (2ks + k_half) ^ r
//                             -> var[ks] (per thread) + 16t rows (compile time);
//   outer-major (rows k):     row = 16ks + 8k_half + r, chunk = o0/8 + ((2t + o_half) ^ r)
//                             -> var[t] + 16ks rows.
template <class Tile, bool IS_A>
struct FragmentOffsets {
  uint32_t var[4];

  __device__ __forceinline__ FragmentOffsets(uint32_t tile_base, int o0, int lane) {
    const int i = lane / 8, r = lane % 8;
    const int o_half = IS_A ? i % 2 : i / 2, k_half = IS_A ? i / 2 : i % 2;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int elem =
          Tile::kKMajor
              ? (o0 + 8 * o_half + r) * Tile::kRowLen + ((2 * j + k_half) ^ r) * 8
              : Tile::col0(o0) + (8 * k_half + r) * Tile::kRowLen + ((2 * j + o_half) ^ r) * 8;
      var[j] = tile_base + 2 * elem;
    }
  }
  // Shared address of fragment (t, ks) in the stage at `stage_bytes` (t, ks compile-time).
  __device__ __forceinline__ uint32_t at(uint32_t stage_bytes, int t, int ks) const {
    return Tile::kKMajor ? var[ks] + stage_bytes + 2 * 16 * t * Tile::kRowLen
                         : var[t] + stage_bytes + 2 * 16 * ks * Tile::kRowLen;
  }
};

template <class Tile>
__device__ __forceinline__ void ldmatrix(uint32_t (&r)[4], uint32_t addr) {
  if constexpr (Tile::kKMajor)
    ptx::ldmatrix_x4(r, addr);
  else
    ptx::ldmatrix_x4_trans(r, addr);
}

// ---- SharedStorage: kStages A tiles, kStages B tiles (each 1024-byte aligned, as the
// TMA's 128-byte swizzle requires), two mbarriers per stage (full, empty).
constexpr int kStageBytesA = 2 * kTileM * kTileK, kStageBytesB = 2 * kTileN * kTileK;
constexpr int kBarrierOffset = kStages * (kStageBytesA + kStageBytesB);
constexpr int kSmemBytes = 1024 + kBarrierOffset + 16 * kStages;  // + alignment slack
static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 1024 == 0);

struct TmaMaps {
  CUtensorMap a, b;
  bool batched;  // rank-3 maps (batch entries as the third coordinate)
};

// Copy policy: the TMA, with no CTA-wide barrier in the loop. Thread 0 issues a stage's boxes
// once every warp has released the stage (its `empty` mbarrier, one arrival per warp);
// everyone waits on the stage's `full` mbarrier (the TMA's byte count) before reading it.
template <bool AK, bool BK>
struct TmaCopy {
  using TA = TmaTile<kTileM, AK>;
  using TB = TmaTile<kTileN, BK>;
  const TmaMaps& maps;
  unsigned char* smem;
  uint64_t* full;  // [kStages], then empty[kStages]
  int m0, n0, l;
  int64_t k_tiles;

  __device__ __forceinline__ void init(int tid) {
    if (tid == 0) {
#pragma unroll
      for (int s = 0; s < kStages; ++s) {
        cuda::ptx::mbarrier_init(&full[s], 1);
        cuda::ptx::mbarrier_init(&full[kStages + s], kThreads / 32);
      }
      cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();
  }
  // Tile kt into stage s (thread 0 only; nothing past the last tile).
  __device__ __forceinline__ void issue(int64_t kt, int s) {
    if (kt >= k_tiles) return;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, &full[s],
                                         kStageBytesA + kStageBytesB);
    const int k0 = static_cast<int>(kt * kTileK);
    unsigned char* a = smem + s * kStageBytesA;
    unsigned char* b = smem + kStages * kStageBytesA + s * kStageBytesB;
#pragma unroll
    for (int i = 0; i < TA::kBoxes; ++i)
      tma::load_box(a + 2 * i * TA::kBoxElems, maps.a, AK ? k0 : m0 + 64 * i, AK ? m0 : k0, l,
                    maps.batched, &full[s]);
#pragma unroll
    for (int i = 0; i < TB::kBoxes; ++i)
      tma::load_box(b + 2 * i * TB::kBoxElems, maps.b, BK ? k0 : n0 + 64 * i, BK ? n0 : k0, l,
                    maps.batched, &full[s]);
  }
  __device__ __forceinline__ void prologue(int tid) {
    if (tid == 0)
      for (int j = 0; j < kStages - 1; ++j) issue(j, j);
    tma::wait_parity(&full[0], 0);
  }
  // At the start of tile kt (>= 1) this warp is done with tile kt - 1 (stage s_prev).
  __device__ __forceinline__ void release(int64_t kt, int s_prev, int lane) {
    __syncwarp();
    if (kt >= 1 && lane == 0) cuda::ptx::mbarrier_arrive(&full[kStages + s_prev]);
  }
  // Early in tile kt, thread 0 refills stage s_prev with tile kt + S - 1 once every warp has
  // released tile kt - 1 (phase parity `parity_prev`).
  __device__ __forceinline__ void refill(int64_t kt, int s_prev, uint32_t parity_prev, int tid) {
    if (tid == 0 && kt + kStages - 1 < k_tiles) {
      if (kt >= 1) tma::wait_parity(&full[kStages + s_prev], parity_prev);
      issue(kt + kStages - 1, s_prev);
    }
  }
  // Before the first read of tile kt + 1 (stage s_next): wait for its bytes.
  __device__ __forceinline__ void advance(int64_t kt, int, int s_next, uint32_t parity_next, int) {
    if (kt + 1 < k_tiles) tma::wait_parity(&full[s_next], parity_next);
  }
  __device__ __forceinline__ void finish() {}
};

// Copy policy: per-thread cp.async. STEADY (interior CTA, 16-byte-capable operands): whole K
// tiles from running pointers, the last partial one zero-filled; otherwise the harness's
// predicated load_tile (edges, gather of unaligned operands).
template <bool AK, bool BK, bool STEADY>
struct CpAsyncCopy {
  using TA = CpAsyncTile<kTileM, AK>;
  using TB = CpAsyncTile<kTileN, BK>;
  // One operand's chunks: kSteps 16-byte chunks kRowStep rows apart (a multiple of 8, so every
  // chunk keeps chunk 0's swizzle); strides come from the kernel parameters (constant bank).
  template <class Tile>
  struct Operand {
    using L = typename Tile::Layout;
    static constexpr int kRowStep = kThreads / L::kChunks, kSteps = L::kElems / (8 * kThreads);
    static_assert(kRowStep % 8 == 0 && kSteps >= 1);
    const uint16_t* src;  // chunk 0 of the next K tile
    uint32_t dst;         // chunk 0 in stage 0
    int row0, col;

    __device__ __forceinline__ Operand(const OperandView& v, const uint16_t* base, int64_t o0,
                                       uint32_t tile_base, int tid)
        : row0(tid / L::kChunks), col((tid % L::kChunks) * 8) {
      const int64_t o = o0 + (Tile::kKMajor ? row0 : col), k = Tile::kKMajor ? col : row0;
      src = base + o * v.s_outer + k * v.s_k;
      dst = tile_base + 2 * L::offset(row0, col);
    }
    __device__ __forceinline__ int64_t row_step(const OperandView& v) const {
      return kRowStep * (Tile::kKMajor ? v.s_outer : v.s_k);
    }
    __device__ __forceinline__ void copy_full(const OperandView& v, uint32_t stage_bytes) {
#pragma unroll
      for (int i = 0; i < kSteps; ++i)
        ptx::cp_async_16(dst + stage_bytes + 2 * i * kRowStep * L::kCols, src + i * row_step(v));
      src += int64_t{kTileK} * v.s_k;
    }
    // The last K tile, k_left (< 64) deep: chunks past K read nothing and are zero-filled.
    __device__ __forceinline__ void copy_last(const OperandView& v, uint32_t stage_bytes,
                                              int k_left, const uint16_t* any_valid) {
#pragma unroll
      for (int i = 0; i < kSteps; ++i) {
        const int kk = Tile::kKMajor ? col : row0 + i * kRowStep;  // first k of the chunk
        const int n = Tile::kKMajor ? min(max(k_left - kk, 0), 8) : (kk < k_left ? 8 : 0);
        ptx::cp_async_16_zfill(dst + stage_bytes + 2 * i * kRowStep * L::kCols,
                               n > 0 ? src + i * row_step(v) : any_valid, 2 * n);
      }
    }
  };

  const Params& p;
  const CtaOperands& op;
  unsigned char* smem;
  int64_t m0, n0, k_tiles, k_full;
  Operand<TA> a;
  Operand<TB> b;

  __device__ __forceinline__ CpAsyncCopy(const Params& p_, const CtaOperands& op_,
                                         unsigned char* smem_, int64_t m0_, int64_t n0_,
                                         int64_t k_tiles_, int tid)
      : p(p_),
        op(op_),
        smem(smem_),
        m0(m0_),
        n0(n0_),
        k_tiles(k_tiles_),
        k_full(p_.k / kTileK),
        a(p_.a, op_.a, m0_, ptx::smem_addr(smem_), tid),
        b(p_.b, op_.b, n0_, ptx::smem_addr(smem_ + kStages * kStageBytesA), tid) {}

  __device__ __forceinline__ void init(int) {}
  __device__ __forceinline__ void issue(int64_t kt, int s, int tid) {
    if constexpr (STEADY) {
      if (kt < k_full) {
        a.copy_full(p.a, s * kStageBytesA);
        b.copy_full(p.b, s * kStageBytesB);
      } else if (kt < k_tiles) {
        const int k_left = static_cast<int>(p.k - kt * kTileK);
        a.copy_last(p.a, s * kStageBytesA, k_left, op.a);
        b.copy_last(p.b, s * kStageBytesB, k_left, op.b);
      }
    } else if (kt < k_tiles) {
      auto* sa = reinterpret_cast<uint16_t*>(smem + s * kStageBytesA);
      auto* sb = reinterpret_cast<uint16_t*>(smem + kStages * kStageBytesA + s * kStageBytesB);
      load_tile<TA, kThreads>(sa, p.a, op.a, m0, kt * kTileK, p.m, p.k, tid);
      load_tile<TB, kThreads>(sb, p.b, op.b, n0, kt * kTileK, p.n, p.k, tid);
    }
    ptx::cp_async_commit();
  }
  __device__ __forceinline__ void prologue(int tid) {
#pragma unroll 1
    for (int j = 0; j < kStages - 1; ++j) issue(j, j, tid);
    ptx::cp_async_wait<kStages - 2>();
    __syncthreads();
  }
  __device__ __forceinline__ void release(int64_t, int, int) {}
  __device__ __forceinline__ void refill(int64_t, int, uint32_t, int) {}
  __device__ __forceinline__ void advance(int64_t kt, int s_prev, int, uint32_t, int tid) {
    ptx::cp_async_wait<kStages - 3>();
    __syncthreads();
    issue(kt + kStages - 1, s_prev, tid);
  }
  __device__ __forceinline__ void finish() { ptx::cp_async_wait<0>(); }
};

// The K loop of one CTA into `acc`, the copy left to `copy`. Tile j lives in stage j % S with
// S - 1 tiles in flight ahead. In tile kt, step ks first loads A of step ks + 1, then walks
// the n16 pairs, loading B of the next pair before the 2 * MI mma of this one. Before the
// first read of tile kt + 1 (A of its step 0, at the start of tile kt's last step) the copy
// advances: tile kt + 1 is waited for (cp.async: a CTA barrier, then tile kt - 1's stage is
// refilled; TMA: the refill was issued at step kRefillStep, once every warp released it).
template <class T, class Copy>
__device__ __forceinline__ void mainloop(float (&acc)[MI][NI][4], Copy& copy, int64_t k_tiles,
                                         uint32_t smem_base, int tid) {
  using TA = typename Copy::TA;
  using TB = typename Copy::TB;
  const int lane = tid % 32, warp = tid / 32;
  const FragmentOffsets<TA, true> fa(smem_base, (warp / kWarpsN) * kWarpM, lane);
  const FragmentOffsets<TB, false> fb(smem_base + kStages * kStageBytesA, (warp % kWarpsN) * kWarpN,
                                      lane);
  uint32_t af[2][MI][4], bf[2][4];  // A of a k16 step, B of an n16 pair; double-buffered
  const auto load_a = [&](int buf, int s, int ks) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) ldmatrix<TA>(af[buf][mi], fa.at(s * kStageBytesA, mi, ks));
  };
  const auto load_b = [&](int buf, int s, int ks, int nj) {
    ldmatrix<TB>(bf[buf], fb.at(s * kStageBytesB, nj, ks));
  };

  copy.init(tid);
  if (k_tiles > 0) {
    copy.prologue(tid);
    load_a(0, 0, 0);
    load_b(0, 0, 0, 0);
  }
  int s = 0, s_prev = kStages - 1;
  uint32_t parity = 0, parity_prev = 1;  // of the phases of tiles kt and kt - 1
#pragma unroll 1
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    const int s_next = s + 1 == kStages ? 0 : s + 1;
    const uint32_t parity_next = s_next == 0 ? parity ^ 1 : parity;
    copy.release(kt, s_prev, lane);
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks == kRefillStep) copy.refill(kt, s_prev, parity_prev, tid);
      if (ks + 1 < KS) {
        load_a((ks + 1) % 2, s, ks + 1);
      } else {
        copy.advance(kt, s_prev, s_next, parity_next, tid);
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
    parity_prev = parity;
    parity = parity_next;
  }
  copy.finish();
}

// TMA: every CTA through the TMA (it zero-fills past the matrix edges). Otherwise interior
// CTAs of 16-byte-capable operands take the steady cp.async loop, the rest the predicated one.
template <class T, bool AK, bool BK, bool TMA>
__global__ void __launch_bounds__(kThreads, kCtasPerSm)
    rung4_warp_tiled_kernel(const Params p, const __grid_constant__ TmaMaps maps) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* const smem = smem_raw + ((1024 - ptx::smem_addr(smem_raw) % 1024) % 1024);
  const int tid = threadIdx.x, warp = tid / 32;
  const CtaOperands op = cta_operands(p);
  const TileCoord t =
      grouped_tile(blockIdx.x, ceil_div(p.m, kTileM), ceil_div(p.n, kTileN), kGroupM);
  const int64_t m0 = t.m * kTileM, n0 = t.n * kTileN;
  const int64_t k_tiles = p.read_ab ? ceil_div(p.k, kTileK) : 0;
  const uint32_t base = ptx::smem_addr(smem);
  float acc[MI][NI][4] = {};
  if constexpr (TMA) {
    TmaCopy<AK, BK> copy{maps,
                         smem,
                         reinterpret_cast<uint64_t*>(smem + kBarrierOffset),
                         static_cast<int>(m0),
                         static_cast<int>(n0),
                         static_cast<int>(op.batch),
                         k_tiles};
    mainloop<T>(acc, copy, k_tiles, base, tid);
  } else if (p.a.vec16 && p.b.vec16 && m0 + kTileM <= p.m && n0 + kTileN <= p.n) {
    CpAsyncCopy<AK, BK, true> copy(p, op, smem, m0, n0, k_tiles, tid);
    mainloop<T>(acc, copy, k_tiles, base, tid);
  } else {
    CpAsyncCopy<AK, BK, false> copy(p, op, smem, m0, n0, k_tiles, tid);
    mainloop<T>(acc, copy, k_tiles, base, tid);
  }

  // ---- epilogue
  store_accumulators(p, op.batch, acc, m0 + (warp / kWarpsN) * kWarpM,
                     n0 + (warp % kWarpsN) * kWarpN, tid % 32);
}

using Rung4Fn = void (*)(Params, TmaMaps);

template <class T, bool TMA>
Rung4Fn pick(const Problem& pr) {
  if (pr.a_kmajor && pr.b_kmajor) return rung4_warp_tiled_kernel<T, true, true, TMA>;
  if (pr.a_kmajor) return rung4_warp_tiled_kernel<T, true, false, TMA>;
  if (pr.b_kmajor) return rung4_warp_tiled_kernel<T, false, true, TMA>;
  return rung4_warp_tiled_kernel<T, false, false, TMA>;
}

// Tensor maps of both operands in the tiles' boxes, or false when the TMA cannot take them
// (or the coordinates would not fit the TMA's 32-bit ones).
bool make_maps(const Problem& pr, TmaMaps& maps) {
  const Params& p = pr.params;
  if (p.m >= (int64_t{1} << 31) || p.n >= (int64_t{1} << 31) || p.k >= (int64_t{1} << 31) ||
      pr.batch >= (int64_t{1} << 31))
    return false;
  maps.batched = pr.batch > 1;
  const auto encode = [&](CUtensorMap& map, const OperandView& v, int64_t outer, bool kmajor,
                          int box_outer) {
    return kmajor ? tma::encode_16bit(&map, v.ptr, p.k, outer, v.s_outer, pr.batch, v.batch_stride,
                                      kTileK, box_outer)
                  : tma::encode_16bit(&map, v.ptr, outer, p.k, v.s_k, pr.batch, v.batch_stride, 64,
                                      kTileK);
  };
  return encode(maps.a, p.a, p.m, pr.a_kmajor, kTileM) &&
         encode(maps.b, p.b, p.n, pr.b_kmajor, kTileN);
}

template <class T>
Status launch_rung4(const Problem& pr, cudaStream_t stream) {
  TmaMaps maps{};
  const bool tma = pr.params.read_ab && make_maps(pr, maps);
  const Rung4Fn k = tma ? pick<T, true>(pr) : pick<T, false>(pr);
  const cudaError_t e =
      cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  return launch_tiles(pr, kTileM, kTileN, e, [&](dim3 grid, const Params& p) {
    k<<<grid, kThreads, kSmemBytes, stream>>>(p, maps);
  });
}

}  // namespace

Status run_rung4(const Problem& pr, cudaStream_t stream) {
  return pr.in == InType::BF16 ? launch_rung4<__nv_bfloat16>(pr, stream)
                               : launch_rung4<__half>(pr, stream);
}

}  // namespace gemmkit::cuda_ladder

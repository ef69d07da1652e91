// The row-block decode kernel: the large operand W (the weight) is cut into blocks of R rows,
// and each block is streamed once, by one CTA over the full K or by a cluster of S CTAs (2 to
// 4) over 1/S of K each. No partial sum goes through global memory (the K-split decode kernels
// pay ~3 us on the critical path for each row block they share: partial sums out, a counter,
// the last piece's reads): a cluster's CTAs add their sums in rank order through shared memory.
//
// The cut (cut_of): R a multiple of 8 (<= 128) and S in 1..4 for the least work on the busiest
// CTA, a split only in one wave of clusters unless forced by Options::split_k (then clusters
// come in waves, each CTA still one block). 132 SMs (H100, H200): 4096 rows in 128 blocks of
// 32, unsplit; 14336 in 128 of 112, unsplit; 2112 in 66 of 32, 2 CTAs each.
// The CTAs launch with programmatic dependent launch: the launch and the barrier set-up
// overlap the previous kernel in the stream, and nothing in global memory is touched before it
// has finished.
// Cuts of fewer than 24 rows a block are refused, see decode_rows_can_implement.
// A stage holds R x KS of W (KS / 64 boxes of (R, 64), one TMA copy
// through a 3-D map when K is a multiple of 64; KS a multiple of 128 sized for ~32 KiB of W:
// fewer, larger stages measured faster, the cost is per stage) and x's KS columns (bulk
// copies of whole rows of x, or one copy of a packed M-major x); a ring of 3 stages.
//
// Consumers: 8 warps (16 for blocks of up to 32 rows) share a stage's k16 steps, each step an
// ldmatrix of W (16 rows) and an mma.sync m16n8k16 per 8 columns of x; x's fragments are read from
// shared memory element by element (masked past K and past the small side, so stale shared memory
// never reaches a sum). At the end of a row block the warps' sums meet in shared memory and are
// added in warp order (the bits do not depend on timing), then alpha, beta and C as everywhere.
//
// Row block u starts its K loop at stage u mod (its stages) and wraps around: the CTAs would
// otherwise all copy the same columns of x at the same moment, every SM asking the same L2
// lines. The order of a block's sums is fixed by u, so the bits still repeat.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cuda/ptx>
#include <mutex>
#include <string>

#include "core/status.hpp"
#include "cuda/epilogue.cuh"
#include "cuda/gemv/gemv.hpp"
#include "cuda/pdl.hpp"
#include "cuda/problem.hpp"
#include "cuda/ptx/sm80_mma.cuh"
#include "cuda/ptx/sm90.cuh"
#include "cuda/sm90/sm90.hpp"
#include "cuda/tma/tensor_map.cuh"

// Timeline marks (points 0-7 of a call, read by bench/micro/decode_timeline.cu, which defines
// GEMMKIT_DECODE_MARK before including this file); nothing otherwise.
#ifndef GEMMKIT_DECODE_MARK
#define GEMMKIT_DECODE_MARK(point)
#endif

namespace gemmkit::gemv {

namespace {

using gpu::Params;
using std::int64_t;
using std::uint32_t;
using std::uint64_t;

// The consumer team: 8 warps with accumulators for up to 128 rows (8 m16 tiles), or, for
// blocks of up to 32 rows, 16 warps with accumulators for 2 m16 tiles (each stage's k16 steps
// shared by twice the warps; the accumulators of 8 tiles would not fit their registers).
constexpr int kWideWarps = 8;
constexpr int kNarrowWarps = 16;
constexpr int kNarrowRows = 32;
constexpr int max_tiles(int warps) { return warps == kNarrowWarps ? kNarrowRows / 16 : 8; }
constexpr int threads_of(int warps) { return 32 * (1 + warps); }
constexpr int kMaxRows = 128;   // R: at most 8 m16 tiles of accumulators a warp
constexpr int kRingStages = 3;  // the ring's depth (lay_out_ring may fit fewer)
constexpr int kBoxK = 64;       // one 128-byte swizzle row of 16-bit elements
constexpr int kMaxStages = 16;
constexpr int kMinRows = 24;
constexpr int kMaxSplits = 4;  // CTAs of a cluster sharing a row block's K
constexpr int kSmemBudget = 227 * 1024;

// The launch's geometry, computed on the host (geometry_of) and passed by value.
struct Geometry {
  int rows;         // R: W rows of a block (multiple of 8)
  int rows16;       // R rounded up to 16: the rows of the m16 tiles
  int box_rows;     // rows a box occupies in shared memory (rows16, or R when chunked)
  int chunked;      // 1: one TMA copy a stage (a 3-D map: (64 K, R rows, boxes chunks))
  int boxes;        // j: W boxes (of 64 K) a stage
  int stages;       // S
  int x_pitch;      // elements between x's rows (K-major) or its k rows (M-major) in a stage
  int x_bytes;      // bytes of a stage's x buffer
  int64_t nrb;      // row blocks of one batch entry
  int64_t units;    // row blocks over the batch
  int64_t kstages;  // stages of one row block: ceil(K / KS)
  int splits;       // S: CTAs (one cluster) sharing a row block, each over 1/S of K's stages
  int rotate;       // 1: block u starts its K loop at its stage u mod (its stages); 0: at its first
  int warps;        // consumer warps: kNarrowWarps when rows16 <= kNarrowRows, else kWideWarps
  // Shared-memory offsets (bytes from the 1024-aligned base).
  int w_off, x_off, red_off, bar_off, total;
};

// How x (the small operand, canonical (n, k)) is copied: whole K-contiguous rows, or a packed
// M-major block of n * KS elements.
struct XSource {
  const unsigned char* base = nullptr;
  int64_t s_outer = 0, batch_stride = 0;  // elements
  bool kmajor = true;
};

template <int NT, bool XK>
__device__ __forceinline__ uint32_t x_pair(const uint16_t* xs, const Geometry& g, int n, int k,
                                           int64_t k_left, int n_valid) {
  // Elements (k, n) and (k + 1, n) of the stage's x, zero past K or past the small side.
  if (n >= n_valid) return 0u;
  uint32_t lo = 0, hi = 0;
  if constexpr (XK) {
    if (k + 1 < k_left) return *reinterpret_cast<const uint32_t*>(xs + n * g.x_pitch + k);
    if (k < k_left) lo = xs[n * g.x_pitch + k];
  } else {
    if (k < k_left) lo = xs[k * g.x_pitch + n];
    if (k + 1 < k_left) hi = xs[(k + 1) * g.x_pitch + n];
  }
  return lo | (hi << 16);
}

// The producer (one thread): W's stages and x's columns of the row blocks first, first + step,
// ..., stages [st0, st0 + nst) of each, block u starting at its stage u mod nst.
template <bool XK>
__device__ __forceinline__ void produce(const Params& p, const CUtensorMap& w_map, bool w_batched,
                                        const XSource& x, const Geometry& g, unsigned char* base,
                                        uint64_t* full, uint64_t* empty, int64_t first,
                                        int64_t step_u, int64_t st0, int64_t nst) {
  const int w_stage = g.box_rows * kBoxK * 2 * g.boxes;
  const int ks = g.boxes * kBoxK;
  ptx::prefetch_tensormap(&w_map);
  const int box_bytes = g.rows * kBoxK * 2;
  int s = 0;
  uint32_t phase = 0;
  for (int64_t u = first; u < g.units; u += step_u) {
    const int64_t l = u / g.nrb, row0 = u % g.nrb * g.rows;
    const unsigned char* xl = x.base + l * x.batch_stride * 2;
    for (int64_t i = 0; i < nst; ++i) {
      const int64_t k0 = (st0 + (i + u * g.rotate) % nst) * ks;          // blocks start apart in K
      const int kc = static_cast<int>(std::min<int64_t>(ks, p.k - k0));  // K of this stage
      const int nbox = (kc + kBoxK - 1) / kBoxK;
      const uint32_t x_row = static_cast<uint32_t>(kc) * 2;
      const uint32_t tx =
          (g.chunked ? g.boxes : nbox) * box_bytes + x_row * static_cast<uint32_t>(p.n);
      ptx::mbarrier_wait(&empty[s], phase ^ 1);  // a fresh barrier passes parity 1
      GEMMKIT_DECODE_MARK(2);  // a stage about to be issued (the first: "first copy")
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, &full[s], tx);
      unsigned char* ws = base + g.w_off + s * w_stage;  // boxes box_rows x 128 bytes apart
      if (g.chunked) {
        if (w_batched) {
          const std::int32_t c[4] = {0, static_cast<int>(row0), static_cast<int>(k0 / kBoxK),
                                     static_cast<int>(l)};
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, ws,
                                          &w_map, c, &full[s]);
        } else {
          const std::int32_t c[3] = {0, static_cast<int>(row0), static_cast<int>(k0 / kBoxK)};
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, ws,
                                          &w_map, c, &full[s]);
        }
      } else {
        for (int b = 0; b < nbox; ++b)
          tma::load_box(ws + b * g.box_rows * kBoxK * 2, w_map, static_cast<int>(k0 + b * kBoxK),
                        static_cast<int>(row0), static_cast<int>(l), w_batched, &full[s]);
      }
      unsigned char* xs = base + g.x_off + s * g.x_bytes;
      if constexpr (XK) {
        for (int64_t i = 0; i < p.n; ++i)
          cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                   xs + i * g.x_pitch * 2, xl + (i * x.s_outer + k0) * 2, x_row,
                                   &full[s]);
      } else {
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, xs,
                                 xl + k0 * p.n * 2, x_row * static_cast<uint32_t>(p.n), &full[s]);
      }
      if (++s == g.stages) s = 0, phase ^= 1;
    }
  }
}

template <class T, int NT, bool XK, int kWarps>
__global__ void __launch_bounds__(threads_of(kWarps), 1)
    decode_rows_kernel(const __grid_constant__ Params p, const __grid_constant__ CUtensorMap w_map,
                       bool w_batched, XSource x, Geometry g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // ---- shared storage (runtime sizes: offsets from the host's Geometry)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  unsigned char* base = smem_raw + (1024 - raw % 1024) % 1024;
  auto* full = reinterpret_cast<uint64_t*>(base + g.bar_off);
  uint64_t* empty = full + g.stages;
  constexpr int kMaxMt = max_tiles(kWarps);
  float* red = reinterpret_cast<float*>(base + g.red_off);  // (kWarps, rows16, NT * 8)
  const int w_stage = g.box_rows * kBoxK * 2 * g.boxes;
  const int ks = g.boxes * kBoxK;  // K of a stage
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  GEMMKIT_DECODE_MARK(0);  // entry
  if (threadIdx.x == 0) {
    for (int s = 0; s < g.stages; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], kWarps);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    // Launched with programmatic stream serialization: the next kernel in the stream may
    // start once every CTA is here; its own wait still holds it until this grid is done.
    cudaTriggerProgrammaticLaunchCompletion();
  }
  __syncthreads();
  // Nothing in global memory is touched before the previous kernel in the stream has finished
  // (and its writes are visible): only the launch and the set-up above overlap it.
  cudaGridDependencySynchronize();
  GEMMKIT_DECODE_MARK(1);  // the previous kernel done

  // The K stages of this CTA: its rank's share [st0, st0 + nst) of a row block's stages.
  const int rank = static_cast<int>(blockIdx.x % g.splits);
  const int64_t st0 = rank * g.kstages / g.splits;
  const int64_t nst = (rank + 1) * g.kstages / g.splits - st0;
  const int64_t first = blockIdx.x / g.splits, step_u = gridDim.x / g.splits;
  const auto cluster_sync = [] {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
    cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  };

  // ---- producer: one thread issues W's boxes and x's bulk copies
  if (warp == 0) {
    if (lane == 0 && p.read_ab)
      produce<XK>(p, w_map, w_batched, x, g, base, full, empty, first, step_u, st0, nst);
    if (g.splits > 1) cluster_sync(), cluster_sync();  // the consumers' two (one unit a CTA)
    return;
  }

  // ---- consumers: 8 warps over a stage's k16 steps, all m16 tiles each
  const int cw = warp - 1, gr = lane / 4, q = lane % 4;
  const int mt = g.rows16 / 16;
  int s = 0;
  uint32_t phase = 0;
  for (int64_t u = first; u < g.units; u += step_u) {
    const int64_t l = u / g.nrb, row0 = u % g.nrb * g.rows;
    float acc[kMaxMt][NT][4] = {};
    for (int64_t i = 0; p.read_ab && i < nst; ++i) {
      const int64_t k_left = p.k - (st0 + (i + u * g.rotate) % nst) * ks;  // valid K of the stage
      ptx::mbarrier_wait(&full[s], phase);
      GEMMKIT_DECODE_MARK(3);  // a stage arrived (the first)
      const uint32_t wbase = ptx::smem_addr(base + g.w_off + s * w_stage);
      const auto* xs = reinterpret_cast<const uint16_t*>(base + g.x_off + s * g.x_bytes);
      for (int step = cw; step < ks / 16 && step * 16 < k_left; step += kWarps) {
        uint32_t bx[NT][2];
#pragma unroll
        for (int t = 0; t < NT; ++t) {
          const int n = 8 * t + gr, k = step * 16 + 2 * q;
          bx[t][0] = x_pair<NT, XK>(xs, g, n, k, k_left, static_cast<int>(p.n));
          bx[t][1] = x_pair<NT, XK>(xs, g, n, k + 8, k_left, static_cast<int>(p.n));
        }
        const int box = step / 4, chunk = 2 * (step % 4) + lane / 16;
        const uint32_t bbase = wbase + box * g.box_rows * kBoxK * 2;
#pragma unroll
        for (int i = 0; i < kMaxMt; ++i) {
          if (i >= mt) break;
          const int row = 16 * i + lane % 16;
          uint32_t a[4];
          ptx::ldmatrix_x4(a, bbase + row * 128 + ((chunk ^ (row % 8)) << 4));
#pragma unroll
          for (int t = 0; t < NT; ++t) ptx::mma_m16n8k16(acc[i][t], a, bx[t], T{});
        }
      }
      __syncwarp();
      if (lane == 0) cuda::ptx::mbarrier_arrive(&empty[s]);
      if (++s == g.stages) s = 0, phase ^= 1;
    }
    // ---- epilogue: the warps' sums added in warp order, then D = alpha * sum + beta * C
    GEMMKIT_DECODE_MARK(4);  // this warp's stages all consumed
    constexpr int kCols = NT * 8;
    // A split (one unit a CTA): the sums take the stage ring's place once every warp is past it
    // (all its copies have landed: each was waited for).
    const bool split = g.splits > 1;
    float* sums = split ? reinterpret_cast<float*>(base) : red;  // (kWarps, rows16, kCols)
    if (split) ptx::named_barrier_sync(1, 32 * kWarps);
    float* mine = sums + cw * g.rows16 * kCols;
#pragma unroll
    for (int i = 0; i < kMaxMt; ++i) {
      if (i >= mt) break;
#pragma unroll
      for (int t = 0; t < NT; ++t) {
        const int r = 16 * i + gr, c = 8 * t + 2 * q;
        *reinterpret_cast<float2*>(mine + r * kCols + c) = make_float2(acc[i][t][0], acc[i][t][1]);
        *reinterpret_cast<float2*>(mine + (r + 8) * kCols + c) =
            make_float2(acc[i][t][2], acc[i][t][3]);
      }
    }
    ptx::named_barrier_sync(1, 32 * kWarps);
    const int pairs = g.rows * kCols / 2;
    for (int e = threadIdx.x - 32; e < pairs; e += 32 * kWarps) {
      const int r = e / (kCols / 2), c = 2 * (e % (kCols / 2));
      float v0 = 0.f, v1 = 0.f;
      for (int w = 0; w < kWarps; ++w) {
        const float2 v = *reinterpret_cast<const float2*>(sums + (w * g.rows16 + r) * kCols + c);
        v0 += v.x, v1 += v.y;
      }
      if (split)  // this CTA's total, in warp 0's place (read above by this thread only)
        *reinterpret_cast<float2*>(sums + r * kCols + c) = make_float2(v0, v1);
      else if (c < p.n)
        gpu::store_pair(p, l, row0 + r, c, v0, v1);
    }
    GEMMKIT_DECODE_MARK(5);  // the warps' sums added (stored, unsplit)
    if (split) {
      // The cluster's CTAs' totals added in rank order (shared memory across the cluster),
      // each CTA storing a 1/S share of the pairs; the second barrier keeps every CTA's
      // shared memory alive until the others have read it.
      cluster_sync();
      GEMMKIT_DECODE_MARK(6);  // every CTA of the cluster has its total
      // Every peer's value is asked for before the first is added: one round trip to the
      // cluster's shared memory, not one a peer.
      for (int e = rank * 32 * kWarps + threadIdx.x - 32; e < pairs; e += 32 * kWarps * g.splits) {
        const int r = e / (kCols / 2), c = 2 * (e % (kCols / 2));
        const auto* at = reinterpret_cast<const float2*>(sums + r * kCols + c);
        float2 v[kMaxSplits];
#pragma unroll
        for (int j = 0; j < kMaxSplits; ++j)
          if (j < g.splits) v[j] = ptx::ld_shared_cluster(at, j);
        float v0 = 0.f, v1 = 0.f;
#pragma unroll
        for (int j = 0; j < kMaxSplits; ++j)
          if (j < g.splits) v0 += v[j].x, v1 += v[j].y;
        if (c < p.n) gpu::store_pair(p, l, row0 + r, c, v0, v1);
      }
      cluster_sync();
    }
    ptx::named_barrier_sync(1, 32 * kWarps);  // the sums are read before the next block writes them
  }
  GEMMKIT_DECODE_MARK(7);  // done
#endif
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int align(int b, int a) { return (b + a - 1) / a * a; }

// How many clusters of `splits` CTAs (1..kMaxSplits) of this kernel (full shared memory) the
// device holds at once: a GPC's SMs do not always divide by the cluster size (H200: fewer than
// 32 clusters of 4). Asked once per process.
int max_clusters(int splits) {
  static std::once_flag once;
  static int held[kMaxSplits + 1] = {};
  std::call_once(once, [] {
    const auto kernel = decode_rows_kernel<__nv_bfloat16, 2, true, kWideWarps>;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBudget) !=
        cudaSuccess)
      return;
    for (int s = 1; s <= kMaxSplits; ++s) {
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim = {static_cast<unsigned>(s), 1, 1};
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(static_cast<unsigned>(s));
      cfg.blockDim = dim3(threads_of(kWideWarps));
      cfg.dynamicSmemBytes = kSmemBudget;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      if (cudaOccupancyMaxActiveClusters(&held[s], kernel, &cfg) != cudaSuccess) held[s] = 0;
    }
    cudaGetLastError();
  });
  return held[std::clamp(splits, 1, kMaxSplits)];
}

// A CTA streams its rows the faster the more rows it holds (H200, 8 consumer warps: 32 rows
// ~18 GB/s an SM, 112 rows ~26 GB/s, as if each block cost ~24 rows more than it has). The
// 16-warp team of blocks of 24-32 rows costs ~8 (H100, 4 x 4096 x 4096: 32 rows unsplit 15.4 us
// against 17.2 for 64 rows over 2 CTAs with 8 warps), measured with the SMs busy: a cut that
// leaves a quarter of them idle keeps 24, as do blocks under kMinRows (refused).
constexpr int kRowCost = 24;
constexpr int kNarrowRowCost = 8;
constexpr int row_cost(int rows, int64_t ctas, int64_t held) {
  const bool busy = 4 * std::min(ctas, held) >= 3 * held;
  return busy && rows >= kMinRows && rows <= kNarrowRows ? kNarrowRowCost : kRowCost;
}
// A split costs 1.3x its share: the cluster's sums through shared memory, and streams of 1/S
// of K (H100, 16 x 7168 x 2048: 112 rows over 2 CTAs 16.1 us, 64 rows unsplit 14.5).
constexpr double kSplitCost = 1.3;

// The cut of the large side: row blocks of R rows (a multiple of 8, <= 128), each over the
// whole K in one CTA or over 1/S of it in each CTA of a cluster of S (2..4). The cost of a cut
// is its busiest CTA's share, waves x (R + row_cost) x K / S, times kSplitCost when S > 1;
// a split is taken only in one wave of clusters unless forced. On a tie the larger S, then the
// larger R (x's copies spread over more rows of W: at 32 rows and M = 16, x's bytes are half of W's
// in every stage).
struct Cut {
  int rows = 8, splits = 1;
};
Cut cut_of(int64_t m, int64_t batch, int64_t k, int sms, int forced) {
  Cut best;
  double best_cost = 1e300;
  for (int s = 1; s <= kMaxSplits; ++s) {
    if (forced > 0 && s != forced) continue;
    const int64_t held = s == 1 ? sms : int64_t{std::min(max_clusters(s), sms / s)} * s;
    if (held <= 0 || (s > 1 && k < 512 * s)) continue;  // a stage is at most 512 of K
    for (int r = 8; r <= kMaxRows; r += 8) {
      const int64_t ctas = batch * ceil_div(m, r) * s;
      const int64_t waves = ceil_div(ctas, held);
      if (s > 1 && waves > 1 && forced == 0) continue;  // forced: clusters in waves
      const double cost = static_cast<double>(waves) * (r + row_cost(r, ctas, held)) *
                          static_cast<double>(ceil_div(k, s)) * (s > 1 ? kSplitCost : 1.0);
      if (cost <= best_cost) best = {r, s}, best_cost = cost;
    }
  }
  if (forced > 0 && best_cost == 1e300) return cut_of(m, batch, k, sms, 0);  // S cannot be had
  return best;
}

// The ring of a cut whose stage size (g->boxes) is set: x's stage buffer, the stage count
// (the most that fit, at most max_stages) and the shared-memory offsets. False when the shared
// memory cannot hold two stages.
bool lay_out_ring(const Params& p, bool xk, int max_stages, Geometry* g) {
  const int ks = g->boxes * kBoxK;
  const int n = static_cast<int>(p.n);
  g->x_pitch = xk ? ks + 8 : n;  // K-major rows padded by 16 bytes: conflict-free pair reads
  g->x_bytes = align(2 * (xk ? n * g->x_pitch : n * ks), 128);
  g->kstages = std::max<int64_t>(1, ceil_div(p.k, ks));
  const int w_stage = g->box_rows * kBoxK * 2 * g->boxes;
  const int cols = n > 8 ? 16 : 8;
  g->warps = g->rows16 <= kNarrowRows ? kNarrowWarps : kWideWarps;
  const int red = g->warps * g->rows16 * cols * 4;
  // A split (one unit a CTA): the sums reuse the stage ring (more stages).
  const bool split = g->splits > 1;
  const int own_red = split ? 0 : red;
  const int fixed =
      1024 /* alignment */ + 1024 /* rows past a chunk */ + own_red + 2 * kMaxStages * 8;
  g->stages = std::min({max_stages, kMaxStages, (kSmemBudget - fixed) / (w_stage + g->x_bytes)});
  if (g->stages < 2 || g->kstages < g->splits) return false;
  g->w_off = 0;
  g->x_off = g->stages * w_stage + 1024;
  g->red_off = align(g->x_off + g->stages * g->x_bytes, 16);
  g->bar_off = align(std::max(g->red_off + own_red, split ? red : 0), 8);  // past the sums
  g->total = g->bar_off + 2 * g->stages * 8 + 1024;
  return true;
}

// The geometry of a problem with the small side n (<= kMaxDecode) on `sms` SMs; false when the
// shared memory cannot hold two stages.
bool geometry_of(const Params& p, int64_t batch, bool xk, int sms, int forced, Geometry* out) {
  Geometry g{};
  const Cut cut = cut_of(p.m, batch, p.read_ab ? p.k : 0, std::max(sms, 1), p.read_ab ? forced : 1);
  g.rows = cut.rows;
  g.splits = cut.splits;
  g.rotate = 1;
  g.rows16 = align(g.rows, 16);
  // ~32 KiB of W a stage, in one TMA copy where K allows (a 3-D map). Measured on the H200
  // (16 x 4096 x 4096, 32 rows a CTA): stages of 8 / 16 / 32 KiB took 22.9 / 18.9 / 17.2 us;
  // a K-major x costs one bulk copy per row of x per stage, so it takes the larger stages
  // (16 x 14336 x 4096 x @ W^T, 112 rows: 57 against 33.5 us).
  g.boxes = decode_rows_stage_boxes(g.rows, xk);
  g.chunked = p.k % kBoxK == 0;
  g.box_rows = g.chunked ? g.rows : g.rows16;
  g.nrb = ceil_div(p.m, g.rows);
  g.units = g.nrb * batch;
  // 3 stages, not as many as fit (H100: 4 x 4096 x 4096 at 32 rows 15.2 us against 15.6 with
  // 5; 16 x 7168 x 2048 at 56 rows 14.1 against 15.0 with 5; 4 x 14336 x 4096 at 112 rows 43.5
  // against 44.1 with 6).
  if (!lay_out_ring(p, xk, kRingStages, &g)) return false;
  *out = g;
  return true;
}

// x as the kernel copies it, or false when neither copy applies (rows off 16 bytes, an x that
// is neither K-contiguous nor packed M-major, K not a multiple of 8).
bool x_source_of(const gpu::Problem& pr, int64_t k, XSource* out) {
  const auto& b = pr.params.b;
  XSource x{static_cast<const unsigned char*>(b.ptr), b.s_outer, b.batch_stride, true};
  const bool aligned = reinterpret_cast<std::uintptr_t>(b.ptr) % 16 == 0 && k % 8 == 0 &&
                       (pr.batch <= 1 || b.batch_stride % 8 == 0);
  if (!aligned) return false;
  if (b.s_k == 1 && (pr.params.n == 1 || b.s_outer % 8 == 0)) {
    x.kmajor = true;
  } else if (b.s_outer == 1 && b.s_k == pr.params.n) {
    x.kmajor = false;
  } else {
    return false;
  }
  *out = x;
  return true;
}

Status refuse_shape(const gpu::Problem& pr) {
  const auto& a = pr.params.a;
  if (pr.params.n > kMaxDecode)
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel takes M or N <= " +
                               std::to_string(kMaxDecode));
  if (!pr.params.read_ab) return {};
  if (a.s_k != 1 || a.s_outer % 8 != 0 || (pr.batch > 1 && a.batch_stride % 8 != 0))
    return GEMMKIT_UNSUPPORTED(
        "the row-block decode kernel streams W's rows through the TMA: K contiguous, rows on 16 "
        "bytes");
  XSource x;
  if (!x_source_of(pr, pr.params.k, &x))
    return GEMMKIT_UNSUPPORTED(
        "the row-block decode kernel copies x as K-contiguous rows on 16 bytes or as a packed "
        "M-major block, with K a multiple of 8");
  return {};
}

template <class T, int NT, bool XK, int kWarps>
cudaError_t launch(const gpu::Problem& pr, const CUtensorMap& map, bool batched, const XSource& x,
                   const Geometry& g, int sms, cudaStream_t stream) {
  const auto kernel = decode_rows_kernel<T, NT, XK, kWarps>;
  if (cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.total);
      e != cudaSuccess)
    return e;
  // A split runs one unit a CTA, S CTAs (one cluster) a unit; otherwise at most one CTA an SM.
  const int64_t ctas = g.splits > 1 ? g.units * g.splits : std::min<int64_t>(g.units, sms);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim = {static_cast<unsigned>(g.splits), 1, 1};
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(ctas));
  cfg.blockDim = dim3(threads_of(kWarps));
  cfg.dynamicSmemBytes = g.total;
  cfg.stream = stream;
  // Programmatic dependent launch: the launch and the barrier set-up overlap the tail of the
  // previous kernel in the stream (H200, 16 x 4096 x K: 0.8-0.9 us a call at K = 128..2048).
  cudaLaunchAttribute attrs[2] = {attr, gpu::pdl_attribute()};
  cfg.attrs = attrs;
  cfg.numAttrs = gpu::pdl_enabled() ? 2 : 1;
  if (cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, pr.params, map, batched, x, g);
      e != cudaSuccess)
    return e;
  return cudaGetLastError();
}

template <class T, int W>
cudaError_t launch_w(const gpu::Problem& pr, const CUtensorMap& map, bool batched, const XSource& x,
                     const Geometry& g, int sms, cudaStream_t stream) {
  if (pr.params.n > 8)
    return x.kmajor ? launch<T, 2, true, W>(pr, map, batched, x, g, sms, stream)
                    : launch<T, 2, false, W>(pr, map, batched, x, g, sms, stream);
  return x.kmajor ? launch<T, 1, true, W>(pr, map, batched, x, g, sms, stream)
                  : launch<T, 1, false, W>(pr, map, batched, x, g, sms, stream);
}

template <class T>
cudaError_t launch_t(const gpu::Problem& pr, const CUtensorMap& map, bool batched, const XSource& x,
                     const Geometry& g, int sms, cudaStream_t stream) {
  return g.warps == kNarrowWarps ? launch_w<T, kNarrowWarps>(pr, map, batched, x, g, sms, stream)
                                 : launch_w<T, kWideWarps>(pr, map, batched, x, g, sms, stream);
}

}  // namespace

static int forced_splits(int split_k) { return std::min(split_k, kMaxSplits); }

DecodeRowsCut decode_rows_cut(const GemmDesc& d, int splits) {
  const Cut c = cut_of(std::max(d.m, d.n), std::max<int64_t>(d.batch, 1), d.k,
                       std::max(1, sm90::device_sm_count()), forced_splits(splits));
  return {c.rows, c.splits};
}

Status decode_rows_can_implement(const GemmDesc& d) {
  if (Status s = sm90::can_implement(d); !s) return s;
  if (std::min(d.m, d.n) > kMaxDecode)
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel takes M or N <= " +
                               std::to_string(kMaxDecode));
  // Few rows a CTA stream slowly (H200: 16 rows a CTA 1.3 TB/s at 16 x 2112 x 7168; 32 rows
  // ~18 GB/s an SM, 2.1-2.4 TB/s at 4096 x 14336; 112 rows 3.4-3.5 TB/s): the decode tile
  // serves cuts of fewer than 24 rows a CTA, and blocks of 33-47 rows (8 warps) over a long K
  // unsplit (H200, 16 x 4096 x 14336: 41.1 us there, 49.6 here at 32 rows with 8 warps; H100,
  // 16 warps at 32 rows: 44.4 us here, 52.4 there).
  const DecodeRowsCut cut = decode_rows_cut(d);
  if (cut.rows < kMinRows ||
      (cut.splits == 1 && d.k > 8192 && cut.rows > kNarrowRows && cut.rows < 2 * kMinRows))
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel needs " + std::to_string(kMinRows) +
                               " rows of the large side a CTA (32 or " +
                               std::to_string(2 * kMinRows) +
                               " and more when K > 8192 and K is not split)");
  // Pointers are unknown here: taken as aligned; decode_rows_run checks them again.
  return refuse_shape(gpu::make_problem(d, GemmArgs{.a = nullptr, .b = nullptr}, true));
}

// Pointers the kernel cannot copy from (a base off 16 bytes) are left to the decode tile
// (sm90's 128 x 64 tile with the large side as M), which stages any operand.
constexpr sm90::TileConfig kFallback{.blk_n = 64, .large_m = true};

std::size_t decode_rows_workspace_bytes(const GemmDesc& d, const GemmArgs* args, int sm_target) {
  if (args == nullptr || refuse_shape(gpu::make_problem(d, *args, true)).ok()) return 0;
  return sm90::workspace_bytes(kFallback, sched::Mode::SplitK, d, args, 0, false, sm_target);
}

Status decode_rows_run(const GemmDesc& d, const GemmArgs& args, const Options& opt) {
  const gpu::Problem pr = gpu::make_problem(d, args, true);
  if (!refuse_shape(pr)) return sm90::run(kFallback, sched::Mode::SplitK, 0, d, args, opt);
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  // The row blocks fill the SMs the caller lets it have (Options::sm_count_target).
  const int sms = std::max(1, sm90::sm_budget(opt.sm_count_target));
  XSource x{};
  if (pr.params.read_ab) x_source_of(pr, pr.params.k, &x);
  Geometry g;
  if (!geometry_of(pr.params, pr.batch, x.kmajor, sms, forced_splits(opt.split_k), &g))
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel's stages do not fit shared memory");
  CUtensorMap map{};
  const auto& a = pr.params.a;
  const bool batched = pr.batch > 1 && a.batch_stride != 0;
  if (pr.params.read_ab &&
      !(g.chunked
            ? tma::encode_16bit_chunked(&map, a.ptr, pr.params.k, pr.params.m, a.s_outer,
                                        batched ? pr.batch : 1, a.batch_stride, g.rows, g.boxes)
            : tma::encode_16bit(&map, a.ptr, pr.params.k, pr.params.m, a.s_outer,
                                batched ? pr.batch : 1, a.batch_stride, kBoxK,
                                static_cast<std::uint32_t>(g.rows))))
    return GEMMKIT_UNSUPPORTED("the TMA cannot address W");
  const cudaError_t e = pr.in == gpu::InType::BF16
                            ? launch_t<__nv_bfloat16>(pr, map, batched, x, g, sms, stream)
                            : launch_t<__half>(pr, map, batched, x, g, sms, stream);
  if (e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("row-block decode kernel launch: ") + cudaGetErrorString(e));
  return {};
}

}  // namespace gemmkit::gemv

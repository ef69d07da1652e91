// The row-block decode kernel: every CTA owns whole rows of the large operand W (the weight)
// and streams them once over the full K, so no two CTAs ever share an output and nothing is
// reduced across CTAs (the K-split decode kernels pay ~3 us on the critical path for each
// row block they share: partial sums out, a counter, the last piece's reads).
//
// The cut: row blocks of R rows, R a multiple of 8 chosen on the host so that the blocks fill
// the SMs in as few waves as possible (4096 rows on 132 SMs: 128 blocks of 32; 14336: 128 of
// 112; 7168: 128 of 56; fewer than 24 rows a CTA are refused, see decode_rows_can_implement).
// A stage holds R x KS of W (KS / 64 boxes of (R, 64), one TMA copy
// through a 3-D map when K is a multiple of 64; KS a multiple of 128 sized for ~32 KiB of W:
// fewer, larger stages measured faster, the cost is per stage) and x's KS columns (bulk
// copies of whole rows of x, or one copy of a packed M-major x).
//
// Consumers: 8 warps share a stage's k16 steps, each step an ldmatrix of W (16 rows) and an
// mma.sync m16n8k16 per 8 columns of x; x's fragments are read from shared memory element by
// element (masked past K and past the small side, so stale shared memory never reaches a
// sum). At the end of a row block the warps' sums meet in shared memory and are added in warp
// order (the bits do not depend on timing), then alpha, beta and C as everywhere.
//
// Row block u starts its K loop at stage u mod (stages of K) and wraps around: the CTAs would
// otherwise all copy the same columns of x at the same moment, every SM asking the same L2
// lines. The order of a block's sums is fixed by u, so the bits still repeat.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cuda/ptx>
#include <string>

#include "core/status.hpp"
#include "cuda/epilogue.cuh"
#include "cuda/gemv/gemv.hpp"
#include "cuda/problem.hpp"
#include "cuda/ptx/sm80_mma.cuh"
#include "cuda/ptx/sm90.cuh"
#include "cuda/sm90/sm90.hpp"
#include "cuda/tma/tensor_map.cuh"

namespace gemmkit::gemv {

namespace {

using gpu::Params;
using std::int64_t;
using std::uint32_t;
using std::uint64_t;

constexpr int kWarps = 8;  // consumers
constexpr int kThreads = 32 * (1 + kWarps);
constexpr int kMaxRows = 128;    // R: at most 8 m16 tiles of accumulators a warp
constexpr int kMaxMt = kMaxRows / 16;
constexpr int kBoxK = 64;        // one 128-byte swizzle row of 16-bit elements
constexpr int kMaxStages = 16;
constexpr int kMinRowsPerSm = 24;
constexpr int kSmemBudget = 227 * 1024;

// The launch's geometry, computed on the host (geometry_of) and passed by value.
struct Geometry {
  int rows;        // R: W rows of a block (multiple of 8)
  int rows16;      // R rounded up to 16: the rows of the m16 tiles
  int box_rows;    // rows a box occupies in shared memory (rows16, or R when chunked)
  int chunked;     // 1: one TMA copy a stage (a 3-D map: (64 K, R rows, boxes chunks))
  int boxes;       // j: W boxes (of 64 K) a stage
  int stages;      // S
  int x_pitch;     // elements between x's rows (K-major) or its k rows (M-major) in a stage
  int x_bytes;     // bytes of a stage's x buffer
  int64_t nrb;     // row blocks of one batch entry
  int64_t units;   // row blocks over the batch
  int64_t kstages; // stages of one row block: ceil(K / KS)
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

template <class T, int NT, bool XK>
__global__ void __launch_bounds__(kThreads, 1)
    decode_rows_kernel(const __grid_constant__ Params p, const __grid_constant__ CUtensorMap w_map,
                       bool w_batched, XSource x, Geometry g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // ---- shared storage (runtime sizes: offsets from the host's Geometry)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  unsigned char* base = smem_raw + (1024 - raw % 1024) % 1024;
  auto* full = reinterpret_cast<uint64_t*>(base + g.bar_off);
  uint64_t* empty = full + g.stages;
  float* red = reinterpret_cast<float*>(base + g.red_off);  // (kWarps, rows16, NT * 8)
  const int w_stage = g.box_rows * kBoxK * 2 * g.boxes;
  const int ks = g.boxes * kBoxK;  // K of a stage
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < g.stages; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], kWarps);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();

  // ---- producer: one thread issues W's boxes and x's bulk copies
  if (warp == 0) {
    if (lane != 0 || !p.read_ab) return;
    ptx::prefetch_tensormap(&w_map);
    const int box_bytes = g.rows * kBoxK * 2;
    int s = 0;
    uint32_t phase = 0;
    for (int64_t u = blockIdx.x; u < g.units; u += gridDim.x) {
      const int64_t l = u / g.nrb, row0 = u % g.nrb * g.rows;
      const unsigned char* xl = x.base + l * x.batch_stride * 2;
      for (int64_t i = 0; i < g.kstages; ++i) {
        const int64_t k0 = (i + u) % g.kstages * ks;  // blocks start apart in K (see below)
        const int kc = static_cast<int>(std::min<int64_t>(ks, p.k - k0));  // K of this stage
        const int nbox = (kc + kBoxK - 1) / kBoxK;
        const uint32_t x_row = static_cast<uint32_t>(kc) * 2;
        const uint32_t tx = (g.chunked ? g.boxes : nbox) * box_bytes + x_row * static_cast<uint32_t>(p.n);
        ptx::mbarrier_wait(&empty[s], phase ^ 1);  // a fresh barrier passes parity 1
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
                                   xl + k0 * p.n * 2, x_row * static_cast<uint32_t>(p.n),
                                   &full[s]);
        }
        if (++s == g.stages) s = 0, phase ^= 1;
      }
    }
    return;
  }

  // ---- consumers: 8 warps over a stage's k16 steps, all m16 tiles each
  const int cw = warp - 1, gr = lane / 4, q = lane % 4;
  const int mt = g.rows16 / 16;
  int s = 0;
  uint32_t phase = 0;
  for (int64_t u = blockIdx.x; u < g.units; u += gridDim.x) {
    const int64_t l = u / g.nrb, row0 = u % g.nrb * g.rows;
    float acc[kMaxMt][NT][4] = {};
    for (int64_t i = 0; p.read_ab && i < g.kstages; ++i) {
      const int64_t k_left = p.k - (i + u) % g.kstages * ks;  // valid K of the stage
      ptx::mbarrier_wait(&full[s], phase);
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
    constexpr int kCols = NT * 8;
    float* mine = red + cw * g.rows16 * kCols;
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
        const float2 v = *reinterpret_cast<const float2*>(red + (w * g.rows16 + r) * kCols + c);
        v0 += v.x, v1 += v.y;
      }
      if (c < p.n) gpu::store_pair(p, l, row0 + r, c, v0, v1);
    }
    ptx::named_barrier_sync(1, 32 * kWarps);  // red is read before the next block writes it
  }
#endif
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int align(int b, int a) { return (b + a - 1) / a * a; }

// R: the multiple of 8 (<= 128) whose blocks leave the fewest rows on the busiest SM; on a
// tie the larger (fewer, longer streams).
int rows_of(int64_t m, int64_t batch, int sms) {
  int best = 8;
  int64_t best_rows = INT64_MAX;
  for (int r = 8; r <= kMaxRows; r += 8) {
    const int64_t busiest = ceil_div(batch * ceil_div(m, r), sms) * r;
    if (busiest <= best_rows) best = r, best_rows = busiest;
  }
  return best;
}

// The geometry of a problem with the small side n (<= kMaxDecode) on `sms` SMs; false when the
// shared memory cannot hold two stages.
bool geometry_of(const Params& p, int64_t batch, bool xk, int sms, Geometry* out) {
  Geometry g{};
  g.rows = rows_of(p.m, batch, std::max(sms, 1));
  g.rows16 = align(g.rows, 16);
  // ~32 KiB of W a stage, in one TMA copy where K allows (a 3-D map). Measured on the H200
  // (16 x 4096 x 4096, 32 rows a CTA): stages of 8 / 16 / 32 KiB took 22.9 / 18.9 / 17.2 us;
  // a K-major x costs one bulk copy per row of x per stage, so it takes the larger stages
  // (16 x 14336 x 4096 x @ W^T, 112 rows: 57 against 33.5 us).
  const int box_bytes = g.rows16 * kBoxK * 2;
  g.boxes = std::clamp(xk ? static_cast<int>(ceil_div(32768, box_bytes)) : 32768 / box_bytes, 2, 8);
  g.boxes += g.boxes % 2;  // KS a multiple of 128: at least 8 k16 steps, one per warp
  g.chunked = p.k % kBoxK == 0;
  g.box_rows = g.chunked ? g.rows : g.rows16;
  const int ks = g.boxes * kBoxK;
  const int n = static_cast<int>(p.n);
  g.x_pitch = xk ? ks + 8 : n;  // K-major rows padded by 16 bytes: conflict-free pair reads
  g.x_bytes = align(2 * (xk ? n * g.x_pitch : n * ks), 128);
  g.nrb = ceil_div(p.m, g.rows);
  g.units = g.nrb * batch;
  g.kstages = std::max<int64_t>(1, ceil_div(p.k, ks));
  const int w_stage = g.box_rows * kBoxK * 2 * g.boxes;
  const int cols = n > 8 ? 16 : 8;
  const int red = kWarps * g.rows16 * cols * 4;
  const int fixed = 1024 /* alignment */ + 1024 /* rows past a chunk */ + red + 2 * kMaxStages * 8;
  g.stages = std::min(kMaxStages, (kSmemBudget - fixed) / (w_stage + g.x_bytes));
  if (g.stages < 2) return false;
  g.w_off = 0;
  g.x_off = g.stages * w_stage + 1024;
  g.red_off = align(g.x_off + g.stages * g.x_bytes, 16);
  g.bar_off = align(g.red_off + red, 8);
  g.total = g.bar_off + 2 * g.stages * 8 + 1024;
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

// W as (64 K, rows, K / 64 chunks[, batch]) with the 128-byte swizzle: one copy brings
// `chunks` boxes of (rows, 64), laid out one after the other. K must be a multiple of 64 (the
// inner extent never stops at K).
bool encode_chunked(CUtensorMap* map, const void* base, int64_t k, int64_t rows, int64_t ld,
                    int64_t batch, int64_t batch_stride, int box_rows, int chunks) {
  const auto fn = tma::encode_tiled_fn();
  if (fn == nullptr || k % kBoxK != 0 || ld % 8 != 0 ||
      reinterpret_cast<std::uintptr_t>(base) % 16 != 0 || (batch > 1 && batch_stride % 8 != 0))
    return false;
  const cuuint64_t dims[4] = {kBoxK, static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(k / kBoxK), static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(ld) * 2, kBoxK * 2,
                                 static_cast<cuuint64_t>(batch_stride) * 2};
  const cuuint32_t box[4] = {kBoxK, static_cast<cuuint32_t>(box_rows),
                             static_cast<cuuint32_t>(chunks), 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, batch > 1 ? 4 : 3, const_cast<void*>(base), dims,
            strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
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

template <class T, int NT, bool XK>
cudaError_t launch(const gpu::Problem& pr, const CUtensorMap& map, bool batched, const XSource& x,
                   const Geometry& g, int sms, cudaStream_t stream) {
  const auto kernel = decode_rows_kernel<T, NT, XK>;
  if (cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.total);
      e != cudaSuccess)
    return e;
  const auto grid = static_cast<unsigned>(std::min<int64_t>(g.units, sms));
  kernel<<<grid, kThreads, g.total, stream>>>(pr.params, map, batched, x, g);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_t(const gpu::Problem& pr, const CUtensorMap& map, bool batched,
                     const XSource& x, const Geometry& g, int sms, cudaStream_t stream) {
  if (pr.params.n > 8)
    return x.kmajor ? launch<T, 2, true>(pr, map, batched, x, g, sms, stream)
                    : launch<T, 2, false>(pr, map, batched, x, g, sms, stream);
  return x.kmajor ? launch<T, 1, true>(pr, map, batched, x, g, sms, stream)
                  : launch<T, 1, false>(pr, map, batched, x, g, sms, stream);
}

}  // namespace

Status decode_rows_can_implement(const GemmDesc& d) {
  if (Status s = sm90::can_implement(d); !s) return s;
  if (std::min(d.m, d.n) > kMaxDecode)
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel takes M or N <= " +
                               std::to_string(kMaxDecode));
  // Few rows a CTA stream slowly (H200: 16 rows a CTA 1.3 TB/s at 16 x 2112 x 7168; 32 rows
  // ~18 GB/s an SM, 2.1-2.4 TB/s at 4096 x 14336; 112 rows 3.4-3.5 TB/s): the decode tile
  // serves fewer than 24, and fewer than 48 over a long K (16 x 4096 x 14336: 41.1 us there,
  // 49.6 here; over K = 4096 this kernel is the faster, 17.5 against 19.6 us).
  const int64_t rows_per_sm = std::max(d.m, d.n) / std::max(1, sm90::device_sm_count());
  if (rows_per_sm < kMinRowsPerSm || (d.k > 8192 && rows_per_sm < 2 * kMinRowsPerSm))
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel needs " +
                               std::to_string(kMinRowsPerSm) + " rows of the large side per SM (" +
                               std::to_string(2 * kMinRowsPerSm) + " when K > 8192)");
  // Pointers are unknown here: taken as aligned; decode_rows_run checks them again.
  return refuse_shape(gpu::make_problem(d, GemmArgs{.a = nullptr, .b = nullptr}, true));
}

// Pointers the kernel cannot copy from (a base off 16 bytes) are left to the decode tile
// (sm90's 128 x 64 tile with the large side as M), which stages any operand.
constexpr sm90::TileConfig kFallback{.blk_n = 64, .large_m = true};

std::size_t decode_rows_workspace_bytes(const GemmDesc& d, const GemmArgs* args) {
  if (args == nullptr || refuse_shape(gpu::make_problem(d, *args, true)).ok()) return 0;
  return sm90::workspace_bytes(kFallback, sched::Mode::SplitK, d, args, 0);
}

Status decode_rows_run(const GemmDesc& d, const GemmArgs& args, const Options& opt) {
  const gpu::Problem pr = gpu::make_problem(d, args, true);
  if (!refuse_shape(pr)) return sm90::run(kFallback, sched::Mode::SplitK, 0, d, args, opt);
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  const int sms = std::max(1, sm90::device_sm_count());
  XSource x{};
  if (pr.params.read_ab) x_source_of(pr, pr.params.k, &x);
  Geometry g;
  if (!geometry_of(pr.params, pr.batch, x.kmajor, sms, &g))
    return GEMMKIT_UNSUPPORTED("the row-block decode kernel's stages do not fit shared memory");
  CUtensorMap map{};
  const auto& a = pr.params.a;
  const bool batched = pr.batch > 1 && a.batch_stride != 0;
  if (pr.params.read_ab &&
      !(g.chunked ? encode_chunked(&map, a.ptr, pr.params.k, pr.params.m, a.s_outer,
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

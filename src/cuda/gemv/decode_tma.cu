// The decode kernel: the large operand W streamed once through a TMA ring in boxes of 128 rows
// x 64 K (16 KiB: boxes of 4-8 KiB leave a third of the DRAM bandwidth unused,
// bench/micro/cold_read.cu), each with the small operand x's box of the same 64 K, and W's
// rows multiplied by the at most 16 columns of x with mma.sync m16n8k16, both operands from
// shared memory through ldmatrix. (x read by the consumers from global memory instead costs a
// memory latency per box: 3x slower.)
//
// Work: the (row block of 128, K-block of 64) units of the problem, row block by row block,
// cut into one contiguous range per CTA, one CTA per SM, so every SM streams the same number
// of bytes whatever the shape. A row block whose units fall to several CTAs (at most one at
// each end of a CTA's range) is reduced by the last of them to arrive: every piece's f32 sums
// go to the workspace, and the last adds them in the order of K, so the bits do not depend on
// which CTA finished first.
//
// Where it stands (H200): 20-21 us at 16 x 4096 x 4096 (a TMA-only stream of the same boxes:
// 8-10 us); without the shared row blocks' reduction 13.7 us, so each of those (partial
// sums out, an acq_rel counter, the last piece's reads, all on the CTA's critical path) costs
// ~3 us. Until that is hidden the planner does not rank it (KernelInfo::planned).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cuda/atomic>
#include <cuda/ptx>
#include <string>

#include "core/status.hpp"
#include "cuda/epilogue.cuh"
#include "cuda/gemv/gemv.hpp"
#include "cuda/problem.hpp"
#include "cuda/ptx/sm80_mma.cuh"
#include "cuda/ptx/sm90.cuh"
#include "cuda/sm90/sm90.hpp"
#include "cuda/sm90/staging.hpp"
#include "cuda/tma/tensor_map.cuh"
#include "cuda/workspace_pool.hpp"

namespace gemmkit::gemv {

namespace {

using gpu::Params;
using std::int64_t;
using std::uint32_t;
using std::uint64_t;

constexpr int kRows = 128;     // rows of W in a box: a row block
constexpr int kBoxK = 64;      // K of a box: one 128-byte swizzle row of 16-bit elements
constexpr int kStages = 8;     // 16 KiB each
constexpr int kWarps = 4;      // consumers, 32 rows of the block each
constexpr int kThreads = 32 * (1 + kWarps);
constexpr int kCols = kMaxDecode;  // columns of a parked piece
constexpr int kBoxBytes = kRows * kBoxK * 2;
constexpr int kMaxCtas = 256;      // counters: one per (CTA, consumer warp)
constexpr int kXRows = kMaxDecode;  // rows of x's K-major box

constexpr int kXBox = 64 * 64;  // elements of x's box: (16 n, 64 K) K-major or (64 K, 64 n)

struct alignas(1024) Smem {
  uint16_t stage[kStages][kRows * kBoxK];  // 128-byte swizzled (128, 64) boxes
  uint16_t xs[kStages][kXBox];             // 128-byte swizzled
  uint64_t full[kStages];
  uint64_t empty[kStages];
};

struct Workspace {
  float* partial = nullptr;  // [CTA][2 slots][128 rows][kCols]
  unsigned* flags = nullptr;  // [CTA][kWarps]: zero before and after a launch
};

// The launch's cut: `units` (row block, K-block) pairs, row block after row block (batch
// entries one after another), CTA c taking [first(c), first(c + 1)).
struct Cut {
  int64_t units, nkb, nrb, ctas;
  __device__ int64_t first(int64_t c) const { return c * units / ctas; }
  __device__ int64_t owner(int64_t u) const { return ((u + 1) * ctas + units - 1) / units - 1; }
};

// A warp's 32 rows x 8 NT columns of row block rb: stored, or parked and, by the last piece
// to arrive, reduced and stored.
template <int NT>
__device__ __forceinline__ void finish_rows(const Params& p, const Cut& cut, const Workspace& ws,
                                            int64_t rb, const float (&acc)[2][NT][4], int cw,
                                            int lane) {
  const int g = lane / 4, q = lane % 4;
  const int64_t l = rb / cut.nrb, row0 = rb % cut.nrb * kRows + cw * 32;
  const int64_t c0 = cut.owner(rb * cut.nkb), c1 = cut.owner((rb + 1) * cut.nkb - 1);
  const auto store = [&](const float (&v)[2][NT][4]) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int t = 0; t < NT; ++t) {
        const int64_t row = row0 + 16 * i + g, col = 8 * t + 2 * q;
        gpu::store_pair(p, l, row, col, v[i][t][0], v[i][t][1]);
        gpu::store_pair(p, l, row + 8, col, v[i][t][2], v[i][t][3]);
      }
  };
  if (c0 == c1) {
    store(acc);
    return;
  }
  // The slot CTA c parks its piece of rb in: 0 when rb is its first row block, else 1. Only
  // c0 can have begun before rb (64-bit divisions are long here: one, not one per piece).
  const int slot0 = cut.first(c0) == rb * cut.nkb ? 0 : 1;
  const auto piece = [&](int64_t c) {
    return ws.partial + ((c * 2 + (c == c0 ? slot0 : 0)) * kRows + cw * 32) * kCols;
  };
  float* mine = piece(blockIdx.x);
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int t = 0; t < NT; ++t) {
      const int r = 16 * i + g, col = 8 * t + 2 * q;
      __stcg(reinterpret_cast<float2*>(mine + r * kCols + col), make_float2(acc[i][t][0], acc[i][t][1]));
      __stcg(reinterpret_cast<float2*>(mine + (r + 8) * kCols + col),
             make_float2(acc[i][t][2], acc[i][t][3]));
    }
  // The warp's writes, then one arrival that releases them (and, for the last piece,
  // acquires everyone's): an acq_rel read-modify-write at device scope, no full fence (a
  // __threadfence here cost 7 us a call on the H200).
  __syncwarp();
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(ws.flags[c1 * kWarps + cw]);
  unsigned last = 0;
  if (lane == 0)
    last = flag.fetch_add(1u, cuda::memory_order_acq_rel) == static_cast<unsigned>(c1 - c0);
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  __syncwarp();  // the lanes read after lane 0's acquire
  // The pieces in the order of K, four at a time with their loads in flight together (one
  // piece at a time waits one L2 latency each).
  constexpr int kBatch = 4;
  float sum[2][NT][4] = {};
  for (int64_t cb = c0; cb <= c1; cb += kBatch) {
    float2 v[kBatch][2][NT][2];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const float* part = piece(cb + j <= c1 ? cb + j : c1);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t) {
          const int r = 16 * i + g, col = 8 * t + 2 * q;
          v[j][i][t][0] = __ldcg(reinterpret_cast<const float2*>(part + r * kCols + col));
          v[j][i][t][1] = __ldcg(reinterpret_cast<const float2*>(part + (r + 8) * kCols + col));
        }
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (cb + j <= c1)
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int t = 0; t < NT; ++t) {
            sum[i][t][0] += v[j][i][t][0].x, sum[i][t][1] += v[j][i][t][0].y;
            sum[i][t][2] += v[j][i][t][1].x, sum[i][t][3] += v[j][i][t][1].y;
          }
  }
  store(sum);
  if (lane == 0)  // every piece has arrived: the counter is free for the next launch
    flag.store(0u, cuda::memory_order_relaxed);
}

// XK: x K-major in shared memory ((n, 64 K) boxes), else MN-major ((64 K, 64 n) boxes).
template <class T, int NT, bool XK>
__global__ void __launch_bounds__(kThreads, 1)
    decode_kernel(const __grid_constant__ Params p, const __grid_constant__ sm90::TmaMaps maps,
                  Cut cut, Workspace ws) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  auto& ss = *reinterpret_cast<Smem*>(smem_raw + (1024 - raw % 1024) % 1024);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t u0 = cut.first(blockIdx.x), u1 = cut.first(blockIdx.x + 1);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      cuda::ptx::mbarrier_init(&ss.full[s], 1);
      cuda::ptx::mbarrier_init(&ss.empty[s], kWarps);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (warp == 0) {  // the producer: one thread issues the boxes
    if (lane != 0 || !p.read_ab) return;
    ptx::prefetch_tensormap(&maps.a);
    ptx::prefetch_tensormap(&maps.b);
    constexpr int kTx = kBoxBytes + (XK ? kXRows * kBoxK * 2 : kXBox * 2);
    int s = 0;
    uint32_t phase = 0;
    int64_t kb = u0 % cut.nkb, rb = u0 / cut.nkb % cut.nrb, l = u0 / cut.nkb / cut.nrb;
    for (int64_t u = u0; u < u1; ++u) {
      ptx::mbarrier_wait(&ss.empty[s], phase ^ 1);  // a fresh barrier passes parity 1
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, &ss.full[s], kTx);
      const int k0 = static_cast<int>(kb * kBoxK);
      tma::load_box(ss.stage[s], maps.a, k0, static_cast<int>(rb * kRows), static_cast<int>(l),
                    maps.a_batched, &ss.full[s]);
      if constexpr (XK)
        tma::load_box(ss.xs[s], maps.b, k0, 0, static_cast<int>(l), maps.b_batched, &ss.full[s]);
      else
        tma::load_box(ss.xs[s], maps.b, 0, k0, static_cast<int>(l), maps.b_batched, &ss.full[s]);
      if (++s == kStages) s = 0, phase ^= 1;
      if (++kb == cut.nkb) {
        kb = 0;
        if (++rb == cut.nrb) rb = 0, ++l;
      }
    }
    return;
  }
  const int cw = warp - 1;
  // Lane offsets of the fragments in a stage (the same in every stage) for k16 step ks: W's
  // two 16-row tiles, and x's k pairs.
  uint32_t w_off[4][2], x_off[4];
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = cw * 32 + 16 * i + lane % 16, chunk = 2 * ks + lane / 16;
      w_off[ks][i] = row * 128 + ((chunk ^ (row % 8)) << 4);
    }
    if constexpr (XK) {  // rows n of 128 bytes of K: (n 0-7 | 8-15) x (k 0-7 | 8-15)
      const int n = 8 * (lane / 16) + lane % 8, chunk = 2 * ks + lane / 8 % 2;
      x_off[ks] = n * 128 + ((chunk ^ (n % 8)) << 4);
    } else {  // rows k of 128 bytes of n, transposed
      const int k = 16 * ks + lane % 8 + 8 * (lane / 8 % 2), chunk = lane / 16;
      x_off[ks] = k * 128 + ((chunk ^ (k % 8)) << 4);
    }
  }
  float acc[2][NT][4] = {};
  int s = 0;
  uint32_t phase = 0;
  int64_t rb = u0 / cut.nkb, kb = u0 % cut.nkb;
  for (int64_t u = u0; u < u1; ++u) {
    if (kb == cut.nkb) {
      finish_rows<NT>(p, cut, ws, rb, acc, cw, lane);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int t = 0; t < NT; ++t) acc[i][t][0] = acc[i][t][1] = acc[i][t][2] = acc[i][t][3] = 0.f;
      ++rb, kb = 0;
    }
    ++kb;
    if (!p.read_ab) continue;
    ptx::mbarrier_wait(&ss.full[s], phase);
    const uint32_t xbase = ptx::smem_addr(ss.xs[s]), wbase = ptx::smem_addr(ss.stage[s]);
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      uint32_t r[4], bx[NT][2];
      if constexpr (XK)
        ptx::ldmatrix_x4(r, xbase + x_off[ks]);
      else
        ptx::ldmatrix_x4_trans(r, xbase + x_off[ks]);
      // K-major: r = (n 0-7, k lo), (n 0-7, k hi), (n 8-15, k lo), (n 8-15, k hi);
      // transposed: r = (k lo, n 0-7), (k hi, n 0-7), (k lo, n 8-15), (k hi, n 8-15).
      bx[0][0] = r[0], bx[0][1] = r[1];
      if constexpr (NT == 2) bx[1][0] = r[2], bx[1][1] = r[3];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        uint32_t a[4];
        ptx::ldmatrix_x4(a, wbase + w_off[ks][i]);
#pragma unroll
        for (int t = 0; t < NT; ++t) ptx::mma_m16n8k16(acc[i][t], a, bx[t], T{});
      }
    }
    __syncwarp();
    if (lane == 0) cuda::ptx::mbarrier_arrive(&ss.empty[s]);
    if (++s == kStages) s = 0, phase ^= 1;
  }
  finish_rows<NT>(p, cut, ws, rb, acc, cw, lane);
#endif
}

constexpr std::size_t kSmemBytes = sizeof(Smem) + 1024;  // + alignment
constexpr std::size_t kFlagBytes = std::size_t{kMaxCtas} * kWarps * sizeof(unsigned);
constexpr std::size_t kAlign = 256;
constexpr std::size_t align_up(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

int sm_count() {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    return 0;
  return sms;
}

Cut cut_of(const Params& p, int64_t batch, int sms) {
  Cut c{.nkb = std::max<int64_t>(1, (p.k + kBoxK - 1) / kBoxK), .nrb = (p.m + kRows - 1) / kRows};
  c.units = c.nkb * c.nrb * batch;
  c.ctas = std::min<int64_t>(std::clamp(sms, 1, kMaxCtas), c.units);
  return c;
}

// Workspace: [padded copies of operands the TMA cannot take][parked pieces][counters (the
// caller's workspace only: the pool keeps its own, zeroed)].
struct Layout {
  std::size_t staging = 0, partial = 0, flags = 0;
  std::size_t total() const { return align_up(staging) + align_up(partial) + flags; }
};

Layout layout_of(const gpu::Problem& pr, const Cut& cut, bool caller_ws) {
  Layout l;
  l.staging = pr.params.read_ab ? sm90::staging_bytes(pr) : 0;
  if (cut.ctas > 1) {
    l.partial = static_cast<std::size_t>(cut.ctas) * 2 * kRows * kCols * sizeof(float);
    l.flags = caller_ws ? kFlagBytes : 0;
  }
  return l;
}

template <class T, int NT, bool XK>
cudaError_t launch(const gpu::Problem& pr, const sm90::TmaMaps& maps, const Cut& cut,
                   const Workspace& ws, cudaStream_t stream) {
  const auto kernel = decode_kernel<T, NT, XK>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(kSmemBytes));
      e != cudaSuccess)
    return e;
  kernel<<<static_cast<unsigned>(cut.ctas), kThreads, kSmemBytes, stream>>>(pr.params, maps, cut,
                                                                              ws);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_t(const gpu::Problem& pr, const sm90::TmaMaps& maps, const Cut& cut,
                     const Workspace& ws, cudaStream_t stream) {
  if (pr.params.n > 8)
    return pr.b_kmajor ? launch<T, 2, true>(pr, maps, cut, ws, stream)
                       : launch<T, 2, false>(pr, maps, cut, ws, stream);
  return pr.b_kmajor ? launch<T, 1, true>(pr, maps, cut, ws, stream)
                     : launch<T, 1, false>(pr, maps, cut, ws, stream);
}

}  // namespace

Status decode_can_implement(const GemmDesc& d) {
  if (Status s = sm90::can_implement(d); !s) return s;
  if (std::min(d.m, d.n) > kMaxDecode)
    return GEMMKIT_UNSUPPORTED("the decode kernel takes M or N <= " + std::to_string(kMaxDecode));
  if (d.k == 0) return {};  // W is never read
  const gpu::Problem pr = gpu::make_problem(d, GemmArgs{}, true);
  if (pr.params.a.s_k != 1)
    return GEMMKIT_UNSUPPORTED(
        "the decode kernel streams the large operand's rows through the TMA: K contiguous");
  return {};
}

std::size_t decode_workspace_bytes(const GemmDesc& d, const GemmArgs* args) {
  const gpu::Problem pr = gpu::make_problem(d, args != nullptr ? *args : GemmArgs{}, true);
  return layout_of(pr, cut_of(pr.params, pr.batch, kMaxCtas), true).total();
}

Status decode_run(const GemmDesc& d, const GemmArgs& args, const Options& opt) {
  gpu::Problem pr = gpu::make_problem(d, args, true);
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  const Cut cut = cut_of(pr.params, pr.batch, sm_count());
  const bool caller_ws = opt.workspace != nullptr;
  const Layout lay = layout_of(pr, cut, caller_ws);
  auto* ws = static_cast<unsigned char*>(opt.workspace);
  if (caller_ws && opt.workspace_bytes < lay.total())
    return GEMMKIT_ERROR(StatusCode::WorkspaceTooSmall, Arg::Workspace,
                         "the decode kernel needs " + std::to_string(lay.total()) +
                             " bytes of workspace");
  if (lay.total() > 0 && ws == nullptr) {
    void* pooled = nullptr;
    if (Status s = gpu::pool_workspace(lay.total(), stream, &pooled); !s) return s;
    ws = static_cast<unsigned char*>(pooled);
  }
  sm90::TmaMaps maps{};
  if (pr.params.read_ab)
    if (Status s = sm90::stage_operands(pr, kRows, kXRows, ws, &maps, stream); !s) return s;
  Workspace w;
  if (lay.partial > 0) {
    w.partial = reinterpret_cast<float*>(ws + align_up(lay.staging));
    if (caller_ws) {
      w.flags = reinterpret_cast<unsigned*>(ws + align_up(lay.staging) + align_up(lay.partial));
      if (cudaMemsetAsync(w.flags, 0, kFlagBytes, stream) != cudaSuccess)
        return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::Workspace,
                             "the decode kernel cannot clear its counters");
    } else if (Status s = gpu::pool_counters(kFlagBytes, stream, &w.flags); !s) {
      return s;
    }
  }
  const cudaError_t e = pr.in == gpu::InType::BF16
                            ? launch_t<__nv_bfloat16>(pr, maps, cut, w, stream)
                            : launch_t<__half>(pr, maps, cut, w, stream);
  if (e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("decode kernel launch: ") + cudaGetErrorString(e));
  return {};
}

}  // namespace gemmkit::gemv

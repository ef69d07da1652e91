// The small-N kernel: warps of a CTA share output rows of the large side; each warp streams
// its share of a row's K (16 bytes a lane, 4-8 loads in flight, L1 bypassed), multiplies by the
// NB small columns (read through the L1: they are shared by every row), and the warps' sums
// meet in shared memory in a fixed order. The bits do not depend on the launch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/status.hpp"
#include "cuda/epilogue.cuh"
#include "cuda/gemv/gemv.hpp"
#include "cuda/pdl.hpp"
#include "cuda/problem.hpp"
#include "cuda/sm90/sm90.hpp"

namespace gemmkit::gemv {

namespace {

using gpu::Params;
using std::int64_t;

constexpr int kWarps = 8;  // per CTA
// 16-byte loads of the large operand in flight per lane (fewer where the small side's
// registers crowd them; the element-by-element path only needs to be correct).
template <int NB, bool VEC>
constexpr int kUnroll = !VEC ? 1 : NB >= 8 ? 2 : 8;

template <class T>
__device__ __forceinline__ float to_f(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else
    return __half2float(v);
}

// 8 elements of a 16-byte vector as floats.
template <class T>
__device__ __forceinline__ void unpack8(const uint4& v, float (&f)[8]) {
  const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
  for (int i = 0; i < 8; ++i) f[i] = to_f(e[i]);
}

// Grid: (row blocks, batch). A CTA computes rows [rows_per_cta * blockIdx.x, ...): G = 8 /
// rows_per_cta warps per row, warp w taking K-chunks of 8 [c0, c1) of its slice. VEC: both
// operands' rows on 16 bytes with K contiguous (16-byte loads); else element by element.
template <class T, int NB, bool VEC>
__global__ void __launch_bounds__(kWarps * 32) small_n_kernel(const __grid_constant__ Params p,
                                                              int rows_per_cta) {
  __shared__ float part[kWarps][NB];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = kWarps / rows_per_cta;
  const int64_t row = blockIdx.x * int64_t{rows_per_cta} + warp / g;
  const int slice = warp % g;
  const int64_t l = p.batch_begin + blockIdx.y;
  // Launched with programmatic stream serialization: the next kernel in the stream may be
  // placed as soon as every CTA is here; its own wait holds it until this grid is done. Nothing
  // in global memory is touched before the previous kernel has finished and its writes are
  // visible: only the launch overlaps it.
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  float acc[NB];
#pragma unroll
  for (int j = 0; j < NB; ++j) acc[j] = 0.f;
  if (row < p.m && p.read_ab) {
    const T* arow = static_cast<const T*>(p.a.ptr) + l * p.a.batch_stride + row * p.a.s_outer;
    const T* b = static_cast<const T*>(p.b.ptr) + l * p.b.batch_stride;
    const int64_t chunks = (p.k + 7) / 8;
    const int64_t c1 = (slice + 1) * chunks / g;
    for (int64_t c0 = slice * chunks / g + lane; c0 < c1; c0 += 32 * kUnroll<NB, VEC>) {
      uint4 w[kUnroll<NB, VEC>];
#pragma unroll
      for (int u = 0; u < kUnroll<NB, VEC>; ++u) {  // issue every load before using any
        const int64_t c = c0 + 32 * u;
        if (VEC && c < c1 && 8 * c + 8 <= p.k)
          asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                       : "=r"(w[u].x), "=r"(w[u].y), "=r"(w[u].z), "=r"(w[u].w)
                       : "l"(arow + 8 * c));
        else
          w[u] = make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < kUnroll<NB, VEC>; ++u) {
        const int64_t c = c0 + 32 * u;
        if (c >= c1) continue;
        if (VEC && 8 * c + 8 <= p.k) {
          float af[8];
          unpack8<T>(w[u], af);
#pragma unroll
          for (int j = 0; j < NB; ++j) {
            float bf[8];
            unpack8<T>(__ldg(reinterpret_cast<const uint4*>(b + (j < p.n ? j : 0) * p.b.s_outer +
                                                            8 * c)),
                       bf);
            float s = 0.f;
#pragma unroll
            for (int i = 0; i < 8; ++i) s = fmaf(af[i], bf[i], s);
            acc[j] += s;
          }
        } else {  // element by element: a row's tail, or rows off 16 bytes
#pragma unroll 1
          for (int64_t q = 8 * c; q < 8 * c + 8 && q < p.k; ++q) {
            const float av = to_f(arow[q]);
#pragma unroll
            for (int j = 0; j < NB; ++j)
              acc[j] = fmaf(av, to_f(b[(j < p.n ? j : 0) * p.b.s_outer + q * p.b.s_k]), acc[j]);
          }
        }
      }
    }
  }
  // The warp's sums (butterfly: every lane ends with the same bits), then the row's warps in
  // slice order.
#pragma unroll
  for (int j = 0; j < NB; ++j)
#pragma unroll
    for (int s = 16; s >= 1; s >>= 1) acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], s);
  if (lane == 0)
#pragma unroll
    for (int j = 0; j < NB; ++j) part[warp][j] = acc[j];
  __syncthreads();
  if (slice == 0 && lane < NB && lane < p.n && row < p.m) {
    float v = 0.f;
    for (int s = 0; s < g; ++s) v += part[warp + s][lane];
    gpu::store_element(p, l, row, lane, v);
  }
}

// 16-byte loads of 8 elements along K are legal on every row of the operand: K contiguous,
// every row start (of `rows`, in every batch entry) on 16 bytes.
bool rows_16b(const gpu::OperandView& v, int64_t rows, int64_t batch) {
  return v.s_k == 1 && reinterpret_cast<std::uintptr_t>(v.ptr) % 16 == 0 &&
         (rows == 1 || v.s_outer % 8 == 0) && (batch == 1 || v.batch_stride % 8 == 0);
}

template <class T, int NB>
cudaError_t launch(const Params& p, int64_t batch, int rows_per_cta, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((p.m + rows_per_cta - 1) / rows_per_cta);
  const bool vec = rows_16b(p.a, p.m, batch) && rows_16b(p.b, p.n, batch);
  const auto kernel = vec ? small_n_kernel<T, NB, true> : small_n_kernel<T, NB, false>;
  for (int64_t b0 = 0; b0 < batch; b0 += 65535) {  // gridDim.y is at most 65535
    Params q = p;
    q.batch_begin = b0;
    const auto nb = static_cast<unsigned>(std::min<int64_t>(65535, batch - b0));
    // Programmatic dependent launch: the launch overlaps the tail of the previous kernel.
    cudaLaunchAttribute attr = gpu::pdl_attribute();
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(blocks, nb);
    cfg.blockDim = dim3(kWarps * 32);
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = gpu::pdl_enabled() ? 1 : 0;
    if (cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, q, rows_per_cta); e != cudaSuccess)
      return e;
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <class T>
cudaError_t launch_nb(const Params& p, int64_t batch, int rows_per_cta, cudaStream_t stream) {
  switch (p.n) {
    case 1: return launch<T, 1>(p, batch, rows_per_cta, stream);
    case 2: return launch<T, 2>(p, batch, rows_per_cta, stream);
    default: return launch<T, 2>(p, batch, rows_per_cta, stream);
  }
}

}  // namespace

Status can_implement(const GemmDesc& d) {
  // Built for sm_90a with the sm90 family: its architecture, dtype and extent checks.
  if (Status s = sm90::can_implement(d); !s) return s;
  if (std::min(d.m, d.n) > kMaxSmall)
    return GEMMKIT_UNSUPPORTED("the small-N kernel takes M or N <= " + std::to_string(kMaxSmall));
  const gpu::Problem pr = gpu::make_problem(d, GemmArgs{}, true);
  if (pr.params.a.s_k != 1 || (pr.params.n > 1 && pr.params.b.s_k != 1))
    return GEMMKIT_UNSUPPORTED(
        "the small-N kernel streams both operands along K: it needs K contiguous in each");
  return {};
}

Status run(const GemmDesc& d, const GemmArgs& args, const Options& opt) {
  const gpu::Problem pr = gpu::make_problem(d, args, true);
  const Params& p = pr.params;
  // Warps per row: enough rows x warps to keep about 32 warps on each of ~132 SMs busy, and no
  // more (rounded down: 4096 rows at 2 warps each took two waves of CTAs, 16 us at 1 x 4096 x
  // 4096 with the DRAM 45% busy).
  const int64_t want = std::max<int64_t>(1, 132 * 32 / std::max<int64_t>(p.m, 1));
  const int g = want >= 8 ? 8 : want >= 4 ? 4 : want >= 2 ? 2 : 1;
  const int rows_per_cta = kWarps / g;
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  const cudaError_t e = pr.in == gpu::InType::BF16
                            ? launch_nb<__nv_bfloat16>(p, pr.batch, rows_per_cta, stream)
                            : launch_nb<__half>(p, pr.batch, rows_per_cta, stream);
  if (e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("small-N kernel launch: ") + cudaGetErrorString(e));
  return {};
}

}  // namespace gemmkit::gemv

// Launch of the f32 / f64 kernels: one CTA per output tile in grouped order (the tile
// scheduler's data-parallel order), blockIdx.y the batch entry, 65535 entries a launch; the
// instantiation for the operands' arrangement (K-major or not, A and B); dynamic shared memory.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/status.hpp"
#include "cuda/problem.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::simt {

using std::int64_t;

// This CTA's output tile: batch entry l, first row m0 and first column n0.
struct CtaTile {
  int64_t l, m0, n0;
};

template <int BLK_M, int BLK_N>
__device__ __forceinline__ CtaTile cta_tile(const gpu::Params& p) {
  sched::Params sp;
  sp.tiles_m = sched::ceil_div(p.m, BLK_M);
  sp.tiles_n = sched::ceil_div(p.n, BLK_N);
  const sched::Work w = sched::tile_at(sp, blockIdx.x);
  return {p.batch_begin + blockIdx.y, w.tile_m * BLK_M, w.tile_n * BLK_N};
}

template <class T>
using KernelFn = void (*)(gpu::Params, T, T);

// Launches kernel k[A K-major][B K-major] of config Cfg (BLK_M, BLK_N, kThreads,
// SharedStorage): grid tiles x batch entries.
template <class Cfg, class T>
Status launch(const gpu::Problem& pr, const KernelFn<T> (&k_by_arrangement)[2][2], T alpha, T beta,
              cudaStream_t stream) {
  const KernelFn<T> k = k_by_arrangement[pr.a_kmajor][pr.b_kmajor];
  constexpr int kSmemBytes = sizeof(typename Cfg::SharedStorage);
  const int64_t tiles =
      sched::ceil_div(pr.params.m, Cfg::BLK_M) * sched::ceil_div(pr.params.n, Cfg::BLK_N);
  if (tiles > 0x7fffffff) return GEMMKIT_UNSUPPORTED("more output tiles than a 1-D grid holds");
  cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  gpu::Params p = pr.params;
  for (int64_t b0 = 0; b0 < pr.batch && e == cudaSuccess; b0 += 65535) {
    p.batch_begin = b0;
    const dim3 grid(static_cast<unsigned>(tiles),
                    static_cast<unsigned>(pr.batch - b0 < 65535 ? pr.batch - b0 : 65535));
    k<<<grid, Cfg::kThreads, kSmemBytes, stream>>>(p, alpha, beta);
    e = cudaGetLastError();
  }
  if (e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("simt launch: ") + cudaGetErrorString(e));
  return {};
}

}  // namespace gemmkit::simt

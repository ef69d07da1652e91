// The main loop of the f32 / f64 kernels: operand tiles of BLK_K through a ring of kStages
// shared-memory stages fed by cp.async (stage.cuh). kStages - 1 tiles are in flight before the
// first multiply; then per tile one wait, one barrier (tile kt landed, and every thread is done
// with the stage of tile kt - 1, which tile kt + kStages - 1 now takes) and the multiply.
#pragma once
#include <cstdint>

#include "cuda/problem.hpp"
#include "cuda/simt/launch.cuh"
#include "cuda/simt/stage.cuh"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::simt {

// Cfg: TileA, TileB, SharedStorage {a[kStages][..], b[kStages][..]}, kStages, kThreads,
// BLK_K. compute(sa, sb) multiplies the stage holding one tile of A and one of B.
template <class Cfg, bool AK, bool BK, class T, class Compute>
__device__ __forceinline__ void mainloop(typename Cfg::SharedStorage& s, const gpu::Params& p,
                                         const CtaTile& t, int tid, Compute&& compute) {
  constexpr int kStages = Cfg::kStages, BLK_K = Cfg::BLK_K;
  const T* a = static_cast<const T*>(p.a.ptr) + t.l * p.a.batch_stride;
  const T* b = static_cast<const T*>(p.b.ptr) + t.l * p.b.batch_stride;
  const int64_t k_tiles = sched::ceil_div(p.k, BLK_K);
  const auto load = [&](int64_t kt) {
    const int st = static_cast<int>(kt % kStages);
    load_tile<typename Cfg::TileA, Cfg::kThreads, AK>(s.a[st], p.a, a, t.m0, kt * BLK_K, p.m, p.k,
                                                      tid);
    load_tile<typename Cfg::TileB, Cfg::kThreads, BK>(s.b[st], p.b, b, t.n0, kt * BLK_K, p.n, p.k,
                                                      tid);
  };
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < k_tiles) load(i);
    ptx::cp_async_commit();
  }
#pragma unroll 1
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    ptx::cp_async_wait<kStages - 2>();
    __syncthreads();
    if (kt + kStages - 1 < k_tiles) load(kt + kStages - 1);
    ptx::cp_async_commit();
    compute(s.a[kt % kStages], s.b[kt % kStages]);
  }
  ptx::cp_async_wait<0>();  // the empty groups of the last tiles
}

}  // namespace gemmkit::simt

// The split-K fixup of the sm90 kernels: the S pieces of a CTA tile (each computed by another
// CTA over its share of K) meet in the workspace. Each piece writes its f32 accumulators there,
// waits until all S have, then reduces a 1/S slice of the tile, adding the pieces in the order
// 0, 1, ..., S-1 (the bits do not depend on which CTA finished first), and stores that slice
// through the epilogue: alpha, beta and C applied once per element. The waiting is safe
// because a split-K launch has at most one piece per CTA, all resident together.
#pragma once
#include <cstdint>
#include <cuda/atomic>

#include "cuda/epilogue.cuh"
#include "cuda/ptx/sm90.cuh"
#include "cuda/sm90/split_k.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::sm90 {

// acc: this thread's wgmma accumulators ((64, BLK_N) per consumer warpgroup, 8-column blocks
// of {row g, cols 2t, 2t+1; row g + 8, same}); ct: thread index over both consumers (0..255);
// `tile`: the CTA tile's index among the launch's CTA tiles; (row0, col0): its first output.
template <int BLK_N>
__device__ __forceinline__ void split_fixup(const gpu::Params& p, const SplitWorkspace& ws,
                                            std::int64_t tile, const sched::Work& w,
                                            std::int64_t splits, const float (&acc)[BLK_N / 2],
                                            int ct, std::int64_t row0, std::int64_t col0) {
  constexpr int kThreads = 256;
  constexpr int kQuads = BLK_N / 8;            // float4 values per thread
  constexpr int kTile = kQuads * kThreads;     // float4 values per piece
  float4* const pieces = reinterpret_cast<float4*>(ws.partial) + tile * splits * kTile;
  float4* const mine = pieces + w.split * kTile;
#pragma unroll
  for (int q = 0; q < kQuads; ++q)  // float4 q of every thread side by side: coalesced
    __stcg(mine + q * kThreads + ct,
           make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
  __threadfence();
  ptx::named_barrier_sync(1, kThreads);
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(ws.flags[tile]);
  const auto s = static_cast<unsigned>(splits);
  if (ct == 0) {
    flag.fetch_add(1u, cuda::memory_order_release);
    while (flag.load(cuda::memory_order_acquire) < s) {
    }
  }
  ptx::named_barrier_sync(1, kThreads);
  const std::int64_t e1 = (w.split + 1) * kTile / splits;
  for (std::int64_t e = w.split * kTile / splits + ct; e < e1; e += kThreads) {
    float4 v = __ldcg(pieces + e);
    for (std::int64_t r = 1; r < splits; ++r) {
      const float4 x = __ldcg(pieces + r * kTile + e);
      v.x += x.x, v.y += x.y, v.z += x.z, v.w += x.w;
    }
    // Where float4 e sits in the tile: block q of thread th (consumer th / 128, its warp and
    // lane), the fragment arrangement above.
    const int q = static_cast<int>(e / kThreads), th = static_cast<int>(e % kThreads);
    const int lane = th % 32;
    const std::int64_t row = row0 + 64 * (th / 128) + 16 * (th % 128 / 32) + lane / 4;
    const std::int64_t col = col0 + 8 * q + 2 * (lane % 4);
    gpu::store_pair(p, w.batch, row, col, v.x, v.y);
    gpu::store_pair(p, w.batch, row + 8, col, v.z, v.w);
  }
  // The last of the 2 S arrivals (every piece has passed its wait) leaves the counter zero.
  if (ct == 0 && flag.fetch_add(1u, cuda::memory_order_relaxed) == 2 * s - 1)
    flag.store(0u, cuda::memory_order_relaxed);
}

}  // namespace gemmkit::sm90

// The split-K fixup of the sm90 kernels: the S pieces of a CTA tile (each computed by another
// CTA over its share of K) meet in the workspace. Each piece writes its f32 accumulators there,
// waits until all S have, then reduces a 1/S slice of the tile, adding the pieces in a fixed
// order (the bits do not depend on which CTA finished first), and stores that slice
// through the epilogue: alpha, beta and C applied once per element. The waiting is safe
// because a split-K launch has at most one piece per CTA, all resident together.
#pragma once
#include <cstdint>
#include <cuda/atomic>

#include "cuda/epilogue.cuh"
#include "cuda/sm90/partial_tile.cuh"
#include "cuda/ptx/sm90.cuh"
#include "cuda/sm90/split_k.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::sm90 {

// The sum of pieces [r0, r1) of float4 e, in the order r0, r0 + 1, ...: kBatch loads in
// flight at once (they do not depend on each other), then added in order. A group of
// threads sums at most 17 pieces of a 132-way split, so 24 in flight is one L2 latency where
// batches of 8 waited three; tiles wider than 128 keep 8 (24 spill beside their registers).
template <int kBatch>
__device__ __forceinline__ float4 sum_pieces(const float4* pieces, std::int64_t e,
                                             std::int64_t r0, std::int64_t r1, int tile_quads) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  for (std::int64_t r = r0; r < r1; r += kBatch) {
    float4 x[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (r + i < r1) x[i] = __ldcg(pieces + (r + i) * tile_quads + e);
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (r + i < r1) v.x += x[i].x, v.y += x[i].y, v.z += x[i].z, v.w += x[i].w;
  }
  return v;
}

// acc: this thread's wgmma accumulators ((64, BLK_N) per consumer warpgroup, 8-column blocks
// of {row g, cols 2t, 2t+1; row g + 8, same}); ct: thread index over both consumers (0..255);
// `tile`: the CTA tile's index among the launch's CTA tiles; (row0, col0): its first output;
// scratch: 256 float4s of shared memory the consumers may use.
// A slice narrower than the 256 threads (many pieces) is summed by up to 8 groups of threads,
// each over a fixed run of pieces, the groups' sums then added in group order: the bits depend
// on the split count alone.
template <int BLK_N>
__device__ __forceinline__ void split_fixup(const gpu::Params& p, const SplitWorkspace& ws,
                                            std::int64_t tile, const sched::Work& w,
                                            std::int64_t splits, const float (&acc)[BLK_N / 2],
                                            int ct, std::int64_t row0, std::int64_t col0,
                                            float4* scratch) {
  constexpr int kThreads = 256;
  constexpr int kQuads = BLK_N / 8;            // float4 values per thread
  constexpr int kTile = kQuads * kThreads;     // float4 values per piece
  constexpr int kBatch = BLK_N <= 128 ? 24 : 8;
  float4* const pieces = reinterpret_cast<float4*>(ws.partial) + tile * splits * kTile;
  float4* const mine = pieces + w.split * kTile;
  store_partial<BLK_N>(mine, acc, ct);
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(ws.flags[tile]);
  const auto s = static_cast<unsigned>(splits);
  if (publish_partial(ct)) {
    flag.fetch_add(1u, cuda::memory_order_relaxed);
    while (flag.load(cuda::memory_order_acquire) < s) {
    }
  }
  ptx::named_barrier_sync(1, kThreads);
  // Where float4 e sits in the tile: block q of thread th (consumer th / 128, its warp and
  // lane), the fragment arrangement above.
  const auto store = [&](std::int64_t e, float4 v) {
    const int q = static_cast<int>(e / kThreads), th = static_cast<int>(e % kThreads);
    const int lane = th % 32;
    const std::int64_t row = row0 + 64 * (th / 128) + 16 * (th % 128 / 32) + lane / 4;
    const std::int64_t col = col0 + 8 * q + 2 * (lane % 4);
    gpu::store_pair(p, w.batch, row, col, v.x, v.y);
    gpu::store_pair(p, w.batch, row + 8, col, v.z, v.w);
  };
  const std::int64_t e0 = w.split * kTile / splits, e1 = (w.split + 1) * kTile / splits;
  const int ne = static_cast<int>(e1 - e0);
  const int groups = ne >= kThreads ? 1 : (kThreads / ne < 8 ? kThreads / ne : 8);
  if (groups == 1) {
    for (std::int64_t e = e0 + ct; e < e1; e += kThreads) store(e, sum_pieces<kBatch>(pieces, e, 0, splits, kTile));
  } else {
    const int g = ct / ne, i = ct % ne;
    if (g < groups)
      scratch[g * ne + i] =
          sum_pieces<kBatch>(pieces, e0 + i, g * splits / groups, (g + 1) * splits / groups, kTile);
    ptx::named_barrier_sync(1, kThreads);
    if (ct < ne) {
      float4 v = scratch[ct];
      for (int h = 1; h < groups; ++h) {
        const float4 x = scratch[h * ne + ct];
        v.x += x.x, v.y += x.y, v.z += x.z, v.w += x.w;
      }
      store(e0 + ct, v);
    }
    ptx::named_barrier_sync(1, kThreads);  // scratch read before any consumer reuses it
  }
  // The last of the 2 S arrivals (every piece has passed its wait) leaves the counter zero.
  if (ct == 0 && flag.fetch_add(1u, cuda::memory_order_relaxed) == 2 * s - 1)
    flag.store(0u, cuda::memory_order_relaxed);
}

}  // namespace gemmkit::sm90

// The stream-K fixup of the sm90 kernels. Under sched::Mode::StreamK the K-iterations of the
// last tiles are spread evenly over the persistent CTAs, so a tile may be computed in pieces by
// consecutive workers: worker v's share begins inside the tile (its first piece, k_begin > 0)
// or the tile begins inside worker v's share (its last piece, k_begin == 0: the tile's owner).
// A worker's first piece is its only one that can begin inside a tile, so each worker parks at
// most one partial tile: in its own slot of the workspace, then raises its flag. The owner
// computes its piece last (it ends the owner's share, while the others' pieces begin theirs):
// it starts from the partials of workers owner + 1, owner + 2, ... while their shares begin
// inside the tile, added in that order (the bits do not depend on timing), runs its own
// K-iterations on top and stores the tile through the ordinary epilogue. Waiting is safe: the
// grid is persistent (every CTA resident) and a piece that parks never waits first.
#pragma once
#include <cstdint>
#include <cuda/atomic>

#include "cuda/ptx/sm90.cuh"
#include "cuda/sm90/partial_tile.cuh"
#include "cuda/sm90/split_k.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::sm90 {

// True when work item w is a whole tile (no fixup).
__device__ __forceinline__ bool whole_tile(const sched::Params& sp, const sched::Work& w) {
  return w.k_begin == 0 && w.k_end == sp.k_iters;
}

// acc: this thread's accumulators (BLK_N / 2 floats); ct: thread index over both consumer
// warpgroups (0..255); slot: this CTA's partial slot (one per CTA of the grid).
template <int BLK_N>
__device__ __forceinline__ void stream_park(const SplitWorkspace& ws, std::int64_t slot,
                                            const float (&acc)[BLK_N / 2], int ct) {
  constexpr int kThreads = 256, kQuads = BLK_N / 8;
  store_partial<BLK_N>(reinterpret_cast<float4*>(ws.partial) + slot * kQuads * kThreads, acc, ct);
  if (publish_partial(ct))
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(ws.flags[slot]).store(
        1u, cuda::memory_order_relaxed);
}

// The owner (worker `me`, its piece of stream-K tile index `sk_tile` among the tiles after the
// data-parallel ones), before its own K-iterations: adds the parked partials of the following
// workers into acc. `cluster`
// CTAs per worker: the slot of worker v's CTA of rank r is v * cluster + r.
template <int BLK_N>
__device__ __forceinline__ void stream_gather(const SplitWorkspace& ws, const sched::Params& sp,
                                              std::int64_t me, std::int64_t sk_tile, int cluster,
                                              int rank, float (&acc)[BLK_N / 2], int ct) {
  constexpr int kThreads = 256, kQuads = BLK_N / 8;
  const std::int64_t tile_end = (sk_tile + 1) * sp.k_iters;
  for (std::int64_t v = me + 1; v < sp.sk_workers && v * sp.sk_iters / sp.sk_workers < tile_end;
       ++v) {
    const std::int64_t slot = v * cluster + rank;
    if (ct == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(ws.flags[slot]);
      while (flag.load(cuda::memory_order_acquire) == 0u) {
      }
      flag.store(0u, cuda::memory_order_relaxed);  // consumed: zero again for the next launch
    }
    ptx::named_barrier_sync(1, kThreads);
    const float4* const part =
        reinterpret_cast<const float4*>(ws.partial) + slot * kQuads * kThreads;
    // Eight float4s in flight at a time: all of them at once would need 128 more registers
    // beside the accumulators (the empty asm keeps the compiler from hoisting the loads).
#pragma unroll
    for (int q0 = 0; q0 < kQuads; q0 += 8) {
      float4 x[8];
#pragma unroll
      for (int i = 0; i < 8 && q0 + i < kQuads; ++i) x[i] = __ldcg(part + (q0 + i) * kThreads + ct);
#pragma unroll
      for (int i = 0; i < 8 && q0 + i < kQuads; ++i) {
        float* a = acc + 4 * (q0 + i);
        a[0] += x[i].x, a[1] += x[i].y, a[2] += x[i].z, a[3] += x[i].w;
      }
      asm volatile("" ::: "memory");
    }
  }
}

}  // namespace gemmkit::sm90

// The dynamic tile feed of the sm90 kernels (sched::Params::dynamic, data-parallel mode, CTAs
// not in clusters). The producer thread of each CTA takes the next output tile from a counter
// in device memory and hands it to the consumer warpgroups through a two-slot ring in shared
// memory. A CTA that starts late (its SM held by another kernel) or runs slow then takes fewer
// tiles instead of holding up the end of the GEMM, as a fixed deal would.
// Tiles are taken in the scheduler's linear (grouped) order and each is computed whole, its
// K-iterations in order, by whichever CTA takes it: the bits are the fixed deal's.
// The counters (two, in the stream's pool or the caller's workspace) start at zero and are left
// at zero: each producer takes exactly one index past the last tile (its end of work), and the
// last of them to do so resets both.
#pragma once
#include <cstdint>
#include <cuda/ptx>

#include "cuda/ptx/sm90.cuh"

namespace gemmkit::sm90 {

struct TileFeed {
  std::uint64_t full[2];   // a slot written (the producer's arrival)
  std::uint64_t empty[2];  // a slot read (every consumer thread's arrival)
  std::int64_t tile[2];
};

__device__ __forceinline__ void feed_init(TileFeed& f, int readers) {
  for (int i = 0; i < 2; ++i) {
    cuda::ptx::mbarrier_init(&f.full[i], 1);
    cuda::ptx::mbarrier_init(&f.empty[i], readers);
  }
}

// The producer's j-th take (j = 0, 1, ...): the tile index, >= tiles at the end of work.
// counters: [0] the next tile, [1] CTAs past the end.
__device__ __forceinline__ std::int64_t feed_take(TileFeed& f, unsigned* counters, int j,
                                                  std::int64_t tiles) {
  const int slot = j & 1;
  const std::uint32_t phase = (j >> 1) & 1;
  ptx::mbarrier_wait(&f.empty[slot], phase ^ 1);  // a fresh barrier passes parity 1
  const std::int64_t t = atomicAdd(&counters[0], 1u);
  f.tile[slot] = t;
  cuda::ptx::mbarrier_arrive(&f.full[slot]);  // release: the readers see tile[slot]
  if (t >= tiles) {
    // This CTA's last access to counters[0] is performed before it counts itself out, so
    // the last to count out resets a counter no one will touch again in this launch.
    __threadfence();
    if (atomicAdd(&counters[1], 1u) == gridDim.x - 1) {
      counters[0] = 0u;
      counters[1] = 0u;
    }
  }
  return t;
}

// A consumer thread's j-th read of the feed.
__device__ __forceinline__ std::int64_t feed_read(TileFeed& f, int j) {
  const int slot = j & 1;
  ptx::mbarrier_wait(&f.full[slot], (j >> 1) & 1);
  const std::int64_t t = f.tile[slot];
  cuda::ptx::mbarrier_arrive(&f.empty[slot]);
  return t;
}

}  // namespace gemmkit::sm90

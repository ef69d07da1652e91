// A consumer pair's partial tile written to the workspace for another CTA to read (split-K
// pieces, parked stream-K pieces), and the one release that publishes it.
#pragma once
#include <cstdint>
#include <cuda/atomic>

#include "cuda/ptx/sm90.cuh"

namespace gemmkit::sm90 {

// acc: this thread's accumulators (BLK_N / 2 floats); ct: thread index over both consumer
// warpgroups (0..255). Float4 q of every thread side by side: coalesced.
template <int BLK_N>
__device__ __forceinline__ void store_partial(float4* dst, const float (&acc)[BLK_N / 2], int ct) {
  constexpr int kThreads = 256, kQuads = BLK_N / 8;
#pragma unroll
  for (int q = 0; q < kQuads; ++q)
    __stcg(dst + q * kThreads + ct,
           make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
}

// After every consumer's store_partial: one device-scope release fence by one thread, the
// barrier having ordered the others' writes before it (a fence in each of the 256 threads
// waits for each thread's own stores and costs microseconds on the critical path). True in
// the thread that then signals (ct == 0).
__device__ __forceinline__ bool publish_partial(int ct) {
  ptx::named_barrier_sync(1, 256);
  if (ct != 0) return false;
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
  return true;
}

}  // namespace gemmkit::sm90

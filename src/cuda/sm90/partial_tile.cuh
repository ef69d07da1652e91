// A consumer pair's partial tile written to the workspace for another CTA (or the split-K
// reduction kernel) to read (split-K pieces, parked stream-K pieces), where each of its values
// sits in the CTA tile, and the one release that publishes it.
#pragma once
#include <cstdint>
#include <cuda/atomic>

#include "cuda/ptx/sm90.cuh"

namespace gemmkit::sm90 {

// float4s of a partial BLK_M x BLK_N tile: BLK_N / 8 per consumer thread, 2 BLK_M threads
// (a warpgroup per 64 rows).
template <int BLK_M, int BLK_N>
inline constexpr int kPartialQuads = BLK_N / 8 * 2 * BLK_M;

// acc: this thread's accumulators (BLK_N / 2 floats); ct: thread index over the consumer
// warpgroups (0..kThreads-1). Float4 q of every thread side by side: coalesced. Q0, Q1: the
// float4s of each thread written (all by default).
template <int BLK_N, int kThreads = 256, int Q0 = 0, int Q1 = BLK_N / 8>
__device__ __forceinline__ void store_partial(float4* dst, const float (&acc)[BLK_N / 2], int ct) {
#pragma unroll
  for (int q = Q0; q < Q1; ++q)
    __stcg(dst + q * kThreads + ct,
           make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
}

// A 64-row tile's piece, whose two consumer warpgroups (128 threads each, `tid`) hold sums of
// the whole tile over alternate stages: consumer C stores half of the float4s (C = 0 the first
// BLK_N / 8 of each thread, C = 1 the rest) after adding the other's sums of that half, the two
// halves crossing through `handoff` (BLK_N / 2 x 128 floats, named barrier `bar` over both
// warpgroups) at once. a + b == b + a: the bits are those of one consumer adding all the
// other's sums, and the layout is store_partial's over 128 threads. Against consumer 0 adding
// all of the other's sums and storing the piece alone: 0.05-0.18 us faster a split-K call
// (H100, docs/PERF.md).
template <int BLK_N, int C>
__device__ __forceinline__ void store_partial_halves(float4* dst, float (&acc)[BLK_N / 2],
                                                     float* handoff, int tid, int bar) {
  constexpr int kHalf = BLK_N / 4;  // floats of a thread's half: whole float4s
  constexpr int kKeep = C * kHalf, kGive = kHalf - kKeep;
  ptx::named_barrier_sync(bar, 256);  // the buffer's previous readers are done
#pragma unroll
  for (int i = 0; i < kHalf; ++i) handoff[(kKeep + i) * 128 + tid] = acc[kGive + i];
  ptx::named_barrier_sync(bar, 256);
#pragma unroll
  for (int i = 0; i < kHalf; ++i) acc[kKeep + i] += handoff[(kGive + i) * 128 + tid];
  store_partial<BLK_N, 128, kKeep / 4, (kKeep + kHalf) / 4>(dst, acc, tid);
}

// Where float4 e of a partial tile sits in the CTA tile of kThreads / 2 rows: block
// q = e / kThreads of consumer thread th = e % kThreads (warpgroup th / 128 holds 64 rows, warp
// 16 of them; lane quad-wise 8-column blocks of wgmma's fragment): {x, y} at (row, col),
// (row, col + 1), {z, w} at (row + 8, col), (row + 8, col + 1).
struct PartialPos {
  int row, col;
};
template <int kThreads>
__device__ __forceinline__ PartialPos partial_pos(int e) {
  const int q = e / kThreads, th = e % kThreads, lane = th % 32;
  return {64 * (th / 128) + 16 * (th % 128 / 32) + lane / 4, 8 * q + 2 * (lane % 4)};
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

// The split-K reduction of the sm90 kernels, as a kernel of its own launched right after the
// GEMM: the GEMM's S pieces of a CTA tile each write their f32 accumulators to the workspace
// and end; this kernel adds them in a fixed order (the bits depend on S alone, not on which
// piece ended first) and stores the sums through the epilogue (alpha, beta and C once per
// element). No counters, so nothing to zero before a launch, and no piece waits for another:
// the kernel boundary is the only synchronization. Launched with programmatic stream
// serialization, its CTAs are placed as the GEMM's leave and wait
// (cudaGridDependencySynchronize) until the GEMM grid is done and its writes visible. The
// pieces' lines are dropped from the L2 once summed (discard.global.L2): dirty, they would be
// written back to DRAM while the next call streams its operands (0.7 us of an 18 us call at
// 4 MiB of pieces on the H100, 1.1 us at 8 MiB).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/epilogue.cuh"
#include "cuda/in_registers.cuh"
#include "cuda/pdl.hpp"
#include "cuda/sm90/partial_tile.cuh"
#include "cuda/sm90/split_k.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::sm90 {

// A CTA of 256 threads sums 256 / groups float4s of one CTA tile; thread group g adds pieces
// [g S / groups, (g + 1) S / groups) in order, then the groups' sums are added in group order
// (split_groups: about as many CTAs as the GEMM had pieces; the bits depend on S and the tile).
template <int BLK_M, int BLK_N>
__global__ void __launch_bounds__(256)
    sm90_split_reduce_kernel(const __grid_constant__ gpu::Params params,
                             const __grid_constant__ sched::Params sched_params,
                             const float4* __restrict__ partial, int cluster, int groups,
                             bool discard) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kTile = kPartialQuads<BLK_M, BLK_N>;  // float4s of one piece
  constexpr int kBatch = 16;
  __shared__ float4 sums[256];
  cudaTriggerProgrammaticLaunchCompletion();
  // The parameters in registers (gpu::in_registers): read again by the stores at the end.
  const gpu::Params p = gpu::in_registers(params);
  const sched::Params sp = gpu::in_registers(sched_params);
  const int per = 256 / groups, chunks = kTile / per;
  const std::int64_t tile = blockIdx.x / chunks;  // CTA tile
  const int e = static_cast<int>(blockIdx.x % chunks) * per + static_cast<int>(threadIdx.x) % per;
  const int g = static_cast<int>(threadIdx.x) / per;
  const std::int64_t splits = sp.splits;
  const std::int64_t r0 = g * splits / groups, r1 = (g + 1) * splits / groups;
  const float4* src = partial + tile * splits * kTile + e;
  cudaGridDependencySynchronize();  // the GEMM grid has written every piece
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  for (std::int64_t r = r0; r < r1; r += kBatch) {
    float4 x[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (r + i < r1) x[i] = __ldcg(src + (r + i) * kTile);
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (r + i < r1) v.x += x[i].x, v.y += x[i].y, v.z += x[i].z, v.w += x[i].w;
  }
  // The pieces are dead once read: their L2 lines are dropped, not written back to DRAM
  // (where the next call's operand stream would pay for them). A line is dropped by the lane
  // that read its first float4, after the 8 lanes that read it have (per % 8 == 0 and a
  // 128-byte aligned workspace: no line holds another warp's float4s).
  if (discard) {
    // Every load of this lane has returned (the sums read), then every lane's has.
    asm volatile("" ::"f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
    __syncwarp();
    if (e % 8 == 0)
      for (std::int64_t r = r0; r < r1; ++r)
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(src + r * kTile) : "memory");
  }
  sums[threadIdx.x] = v;
  __syncthreads();
  if (g != 0) return;
  for (int h = 1; h < groups; ++h) {
    const float4 x = sums[h * per + threadIdx.x];
    v.x += x.x, v.y += x.y, v.z += x.z, v.w += x.w;
  }
  const sched::Work w = sched::tile_at(sp, tile / cluster);
  const PartialPos at = partial_pos<2 * BLK_M>(e);
  const std::int64_t row = (w.tile_m * cluster + tile % cluster) * BLK_M + at.row;
  const std::int64_t col = w.tile_n * BLK_N + at.col;
  gpu::store_pair(p, w.batch, row, col, v.x, v.y);
  gpu::store_pair(p, w.batch, row + 8, col, v.z, v.w);
#endif
}

// Launches the reduction of a split-K launch's pieces (sp: the GEMM's scheduler parameters;
// cluster: CTA tiles per scheduler tile), after the GEMM on the same stream.
template <int BLK_M, int BLK_N>
cudaError_t launch_split_reduce(const gpu::Params& p, const sched::Params& sp, int cluster,
                                const float* partial, cudaStream_t stream, bool pdl) {
  const int groups = split_groups(kPartialQuads<BLK_M, BLK_N>, sp.splits);
  // Lines are dropped where no 128-byte line straddles two warps' float4s.
  const bool discard =
      reinterpret_cast<std::uintptr_t>(partial) % 128 == 0 && 256 / groups % 8 == 0;
  const std::int64_t ctas = sp.tiles() * cluster * (kPartialQuads<BLK_M, BLK_N> / (256 / groups));
  cudaLaunchAttribute attr = gpu::pdl_attribute();
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(ctas));
  cfg.blockDim = dim3(256);
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl ? 1 : 0;
  cudaError_t e =
      cudaLaunchKernelEx(&cfg, sm90_split_reduce_kernel<BLK_M, BLK_N>, p, sp,
                         reinterpret_cast<const float4*>(partial), cluster, groups, discard);
  return e == cudaSuccess ? cudaGetLastError() : e;
}

}  // namespace gemmkit::sm90

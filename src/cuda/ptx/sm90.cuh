// sm_90 instructions that CCCL's cuda::ptx does not wrap: register reallocation between
// warpgroups, named barriers over a subset of the CTA's warps, loads from a peer CTA's shared
// memory, and the mbarrier parity wait loop. TMA copies, mbarrier init / arrive / expect_tx and
// fences come from cuda::ptx.
#pragma once
#include <cstdint>
#include <cuda/ptx>

namespace gemmkit::ptx {

// setmaxnreg: every warp of the warpgroup executes it; the count is a multiple of 8 in
// [24, 256]. dec hands registers back to the pool, inc waits until they are available.
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(R % 8 == 0 && R >= 24 && R <= 256, "setmaxnreg takes multiples of 8 in 24..256");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(R % 8 == 0 && R >= 24 && R <= 256, "setmaxnreg takes multiples of 8 in 24..256");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}

// bar.sync on named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Arrives on the mbarrier at the same shared-memory offset as `local` in CTA `cta` of the
// cluster (which may be this CTA), with the instruction's default semantics (release at CTA
// scope), as CUTLASS's cluster barrier does: what it orders is a stage's reads by wgmma, already
// complete (wgmma.wait_group), before a TMA copy overwrites the stage. `.release.cluster` cost
// the clustered GEMM 2.3-2.9x its time on the H200 (bench/micro/cluster_gemm.cu: 4096^3 with
// 128 x 128 tiles 546 us against 197 us with the default).
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* local, std::uint32_t cta) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(local));
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(addr),
      "r"(cta)
      : "memory");
}

// Loads at the shared-memory offset of `local` in CTA `cta` of the cluster (distributed
// shared memory, through a shared::cluster address).
__device__ __forceinline__ float2 ld_shared_cluster(const float2* local, std::uint32_t cta) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(local));
  float2 v;
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %2, %3;\n"
      "ld.shared::cluster.v2.f32 {%0, %1}, [remote];\n}\n"
      : "=f"(v.x), "=f"(v.y)
      : "r"(addr), "r"(cta)
      : "memory");
  return v;
}

// Fetches a tensor map (a __grid_constant__ kernel parameter) into the descriptor cache.
__device__ __forceinline__ void prefetch_tensormap(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// Spins until the phase of `bar` with parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

}  // namespace gemmkit::ptx

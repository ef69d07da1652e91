// wgmma (sm_90a warpgroup MMA) from C++: the shared-memory matrix descriptor, the fences and
// group waits around it, and one wrapper per m64nNk16 shape (wgmma_ops.inc, generated).
// CCCL's cuda::ptx has no wgmma, so these are inline asm, one instruction per function. Keep
// every call of a wgmma sequence inside one function: ptxas serializes wgmma across calls it
// cannot inline (warning C7510), which costs 10-25x.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gemmkit::ptx {

// The 64-bit shared-memory matrix descriptor for the 128-byte swizzle (the only swizzle the
// TMA boxes of gemmkit use). Fields, in 16-byte units: start address (bits 0-13), leading byte
// offset (16-29), stride byte offset (32-45); base offset 0 (bits 49-51: tiles start on 1024
// bytes); swizzle mode 1 = 128 B (bits 62-63).
//   K-major (rows of 64 16-bit K elements, 128 B): SBO = 1024 B between groups of 8 rows;
//     LBO unused (1). Stepping K by 16 elements inside the 128-byte row adds 32 B.
//   MN-major (rows of 64 MN elements, one row per k): SBO = 1024 B between groups of 8 k rows,
//     LBO = bytes between consecutive 64-element MN blocks. Stepping K by 16 adds 2048 B.
__device__ __forceinline__ std::uint64_t smem_desc_sw128(const void* smem, std::uint32_t lbo_bytes,
                                                         std::uint32_t sbo_bytes) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  std::uint64_t desc = (addr & 0x3FFFF) >> 4;
  desc |= static_cast<std::uint64_t>((lbo_bytes >> 4) & 0x3FFF) << 16;
  desc |= static_cast<std::uint64_t>((sbo_bytes >> 4) & 0x3FFF) << 32;
  desc |= std::uint64_t{1} << 62;
  return desc;
}

// Orders register accesses of the accumulators before the next wgmma reads or writes them.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
// Closes the wgmma operations issued so far into one group.
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most N groups of this warpgroup are still pending.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator reads across a wait (CUTLASS's
// warpgroup_fence_operand): each register is "modified" here.
template <int R>
__device__ __forceinline__ void fence_operand(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#include "cuda/ptx/wgmma_ops.inc"

// D(64 x N) (+)= A * B for one k16 step; T is __nv_bfloat16 or __half. scale_d = 0 ignores
// the accumulators' old values (the first step of a tile).
template <int N, class T, int TA, int TB>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], std::uint64_t desc_a,
                                             std::uint64_t desc_b, int scale_d) {
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  static_assert(kBf16 || std::is_same_v<T, __half>, "wgmma takes bf16 or fp16 here");
#define GEMMKIT_WGMMA_CASE(NN)                                         \
  if constexpr (N == NN) {                                             \
    if constexpr (kBf16)                                               \
      wgmma_m64n##NN##k16_bf16<TA, TB>(d, desc_a, desc_b, scale_d);    \
    else                                                               \
      wgmma_m64n##NN##k16_f16<TA, TB>(d, desc_a, desc_b, scale_d);     \
    return;                                                            \
  }
  GEMMKIT_WGMMA_CASE(64)
  GEMMKIT_WGMMA_CASE(96)
  GEMMKIT_WGMMA_CASE(128)
  GEMMKIT_WGMMA_CASE(160)
  GEMMKIT_WGMMA_CASE(192)
  GEMMKIT_WGMMA_CASE(224)
  GEMMKIT_WGMMA_CASE(256)
#undef GEMMKIT_WGMMA_CASE
  static_assert(N == 64 || N == 96 || N == 128 || N == 160 || N == 192 || N == 224 || N == 256,
                "no wrapper for this N (scripts/gen_wgmma.py)");
}

}  // namespace gemmkit::ptx

// PTX of the f32 / f64 kernels (src/cuda/simt): element-sized cp.async copies, which can write
// a tile transposed into shared memory, and the f64 tensor-core mma (DMMA). CCCL has no
// wrappers for these; one small function per instruction shape keeps asm out of the kernels.
#pragma once
#include <cstdint>

#include "cuda/ptx/sm80_mma.cuh"

namespace gemmkit::ptx {

// BYTES (4 or 8) global -> shared through L1, reading src_bytes (0 or BYTES) of gmem and
// zero-filling the rest: src_bytes = 0 reads nothing (edges of a tile).
template <int BYTES>
__device__ __forceinline__ void cp_async_zfill(std::uint32_t smem, const void* gmem,
                                               std::uint32_t src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8, "cp.async.ca copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem), "l"(gmem), "n"(BYTES),
               "r"(src_bytes));
}

// D (8x8) += A (8x4, row) * B (4x8, col) in f64. Lane l: a = A(l / 4, l % 4),
// b = B(l % 4, l / 4), d = {D(l / 4, 2 (l % 4)), D(l / 4, 2 (l % 4) + 1)}.
__device__ __forceinline__ void dmma_m8n8k4(double (&d)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
}

// D (16x8) += A (16x4, row) * B (4x8, col) in f64 (sm_90). Lane l, g = l / 4, q = l % 4:
// a = {A(g, q), A(g + 8, q)}, b = B(q, g), d = {D(g, 2q), D(g, 2q + 1), D(g + 8, 2q),
// D(g + 8, 2q + 1)}.
__device__ __forceinline__ void dmma_m16n8k4(double (&d)[4], const double (&a)[2], double b) {
  asm volatile(
      "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(b));
}

// The same shape as one call for both: MMA_M = 8 (m8n8k4, a[0] only) or 16 (m16n8k4).
template <int MMA_M>
__device__ __forceinline__ void dmma(double (&d)[MMA_M / 4], const double (&a)[MMA_M / 8],
                                     double b) {
  if constexpr (MMA_M == 8)
    dmma_m8n8k4(d, a[0], b);
  else
    dmma_m16n8k4(d, a, b);
}

}  // namespace gemmkit::ptx

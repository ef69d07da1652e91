// Rung 4, SIMD: the packed loops with an AVX2+FMA register block: 6 x 16 floats (12 ymm
// accumulators) or 6 x 8 doubles. Each K step loads one B row (2 vectors), broadcasts 6 A
// values and issues 12 FMAs: the tile is sized so FMAs, not loads, bound the loop.
#include <immintrin.h>

#include "cpu/ladder_packed.hpp"

namespace gemmkit::cpu {

namespace ladder {

template <>
void simd_tile<float>(std::int64_t kc, const float* a, const float* b, float* tile) {
  __m256 acc[kSimdMR][2];  // (6, 16) in 12 registers
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_ps();
  for (std::int64_t p = 0; p < kc; ++p, a += kSimdMR, b += 16) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kSimdMR; ++i) {
      const __m256 x = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(x, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(x, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < kSimdMR; ++i) {
    _mm256_storeu_ps(tile + i * 16, acc[i][0]);
    _mm256_storeu_ps(tile + i * 16 + 8, acc[i][1]);
  }
}

template <>
void simd_tile<double>(std::int64_t kc, const double* a, const double* b, double* tile) {
  __m256d acc[kSimdMR][2];  // (6, 8) in 12 registers
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_pd();
  for (std::int64_t p = 0; p < kc; ++p, a += kSimdMR, b += 8) {
    const __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
#pragma GCC unroll 6
    for (int i = 0; i < kSimdMR; ++i) {
      const __m256d x = _mm256_broadcast_sd(a + i);
      acc[i][0] = _mm256_fmadd_pd(x, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_pd(x, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < kSimdMR; ++i) {
    _mm256_storeu_pd(tile + i * 8, acc[i][0]);
    _mm256_storeu_pd(tile + i * 8 + 4, acc[i][1]);
  }
}

}  // namespace ladder

template <class T>
void ladder_simd(const Gemm<T>& g, int) {
  ladder::packed_loops<ladder::kSimdMR, ladder::kSimdNR<T>>(g, 120, 256, 2048,
                                                            ladder::simd_tile<T>);
}

template void ladder_simd<float>(const Gemm<float>&, int);
template void ladder_simd<double>(const Gemm<double>&, int);

}  // namespace gemmkit::cpu

// The transposing pack with register transposes: an operand whose K index is the unit stride
// (a column-major B, a row-major A) is packed into (KC, R) micro-panels by loading W x W
// blocks (W lines of W consecutive K values), transposing them in registers and storing W
// panel rows: 8 x 8 floats or 4 x 4 doubles in ymm registers. When W does not divide R (the
// AVX2 MR = 6), the last group of lines is partial: its W-wide stores overlap the next panel
// row, which a later store rewrites (the partial group goes first, the full groups and the
// next K block after it); only its very last store is cut to size. The scalar transpose this
// replaces moved one element per load and store; the sgemm 16 x 4096 x 4096 case is dominated
// by it. Lines past the edge are zero-filled; K steps past the last full block of W go element
// by element. Built where the including file has AVX2.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu/isa_namespace.hpp"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

#if defined(__AVX2__)

// Transposes W x W in place: r[j] holds line j's K values p .. p + W - 1 on entry, K step
// p + j of lines 0 .. W - 1 on exit.
inline void transpose_block(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

inline void transpose_block(__m256d r[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

template <class T>
struct Ymm;
template <>
struct Ymm<float> {
  using Reg = __m256;
  static constexpr int W = 8;
  static Reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  static Reg zero() { return _mm256_setzero_ps(); }
};
template <>
struct Ymm<double> {
  using Reg = __m256d;
  static constexpr int W = 4;
  static Reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, Reg v) { _mm256_storeu_pd(p, v); }
  static Reg zero() { return _mm256_setzero_pd(); }
};

// True where this build has the register transpose for (R, T): float or double panels at
// least half a vector wide (narrower ones would rewrite most of each store).
template <int R, class T>
constexpr bool kHasTransposePack = (std::is_same_v<T, float> && R >= 4) ||
                                   (std::is_same_v<T, double> && R >= 2);

// Packs `rows` lines (line i at src + i * ld, K-contiguous) times kc K steps into
// ceil(rows / R) (KC, R) micro-panels at dst.
template <int R, class T>
void pack_transpose_panels(const T* src, std::int64_t ld, std::int64_t rows, std::int64_t kc,
                           T* dst) {
  using V = Ymm<T>;
  constexpr int W = V::W;
  const std::int64_t kfull = kc / W * W;
  for (std::int64_t rp = 0; rp < rows; rp += R, dst += R * kc) {
    const std::int64_t n = std::min<std::int64_t>(R, rows - rp);
    const T* lines = src + rp * ld;
    for (std::int64_t p = 0; p < kfull; p += W) {
      T* out = dst + p * R;
      // Groups of W lines from the last (possibly partial, `rem` wide) down to the first.
#pragma GCC unroll 4
      for (int g = (R + W - 1) / W - 1; g >= 0; --g) {
        const int i0 = g * W, rem = std::min(W, R - i0);
        typename V::Reg r[W];
        if (i0 + W <= n) {
#pragma GCC unroll 8
          for (int j = 0; j < W; ++j) r[j] = V::load(lines + (i0 + j) * ld + p);
        } else {
          for (int j = 0; j < W; ++j)
            r[j] = i0 + j < n ? V::load(lines + (i0 + j) * ld + p) : V::zero();
        }
        transpose_block(r);
#pragma GCC unroll 8
        for (int q = 0; q < W - 1; ++q) V::store(out + q * R + i0, r[q]);
        if (rem == W) {
          V::store(out + (W - 1) * R + i0, r[W - 1]);
        } else {  // the last store would run past the panel row
          alignas(32) T last[W];
          V::store(last, r[W - 1]);
          std::memcpy(out + (W - 1) * R + i0, last, sizeof(T) * rem);
        }
      }
    }
    for (std::int64_t p = kfull; p < kc; ++p) {
      for (std::int64_t i = 0; i < n; ++i) dst[p * R + i] = lines[i * ld + p];
      for (std::int64_t i = n; i < R; ++i) dst[p * R + i] = T(0);
    }
  }
}

#else

template <int R, class T>
constexpr bool kHasTransposePack = false;

template <int R, class T>
void pack_transpose_panels(const T*, std::int64_t, std::int64_t, std::int64_t, T*) {}

#endif

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

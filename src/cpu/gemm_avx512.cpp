// AVX-512 production kernels: sgemm 8x32 (16 zmm accumulators), dgemm 8x16, i8 -> i32 8x32
// through vpdpwssd where the CPU has VNNI (the portable tile otherwise). Reached only when
// cpu_info().avx512.
#include <immintrin.h>

#include <cmath>

#include "cpu/block_table.hpp"
#include "cpu/microkernel_portable.hpp"
#include "cpu/microkernel_simd.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {
namespace {

struct VecF32 {
  using T = float;
  using Reg = __m512;
  static constexpr int W = 16, kRegisters = 32;
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg load(const T* p) { return _mm512_load_ps(p); }
  static Reg loadu(const T* p) { return _mm512_loadu_ps(p); }
  static void storeu(T* p, Reg v) { _mm512_storeu_ps(p, v); }
  // The first n lanes (0 < n < W); masked lanes are neither read nor written.
  static Reg loadn(const T* p, int n) { return _mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), p); }
  static void storen(T* p, int n, Reg v) { _mm512_mask_storeu_ps(p, __mmask16((1u << n) - 1), v); }
  static Reg broadcast(const T* p) { return _mm512_set1_ps(*p); }
  static Reg set1(T x) { return _mm512_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  // b when either is NaN; zero-masked with every lane set (see kAll below)
  static Reg max(Reg a, Reg b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  // bf16 / fp16 C and D (stored.hpp's rounding: nearest even, NaN kept quiet with its sign).
  // Zero-masked forms with every lane set: the plain ones start from an "undefined" register
  // that GCC 12 reports as maybe-uninitialized.
  static constexpr __mmask16 kAll = 0xFFFF;
  static Reg load_bf16(const std::uint16_t* p) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(
        _mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtepu16_epi32(kAll, h), 16));
  }
  static Reg load_f16(const std::uint16_t* p) {
    return _mm512_maskz_cvtph_ps(kAll, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static void store_bf16(std::uint16_t* p, Reg v) {
    const __m512i u = _mm512_castps_si512(v), hi = _mm512_maskz_srli_epi32(kAll, u, 16);
    const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    const __m512i r = _mm512_maskz_srli_epi32(
        kAll, _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF))), 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    const __m512i out = _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_maskz_cvtepi32_epi16(kAll, out));
  }
  static void store_f16(std::uint16_t* p, Reg v) {
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(p),
        _mm512_maskz_cvtps_ph(kAll, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
};

struct VecF64 {
  using T = double;
  using Reg = __m512d;
  static constexpr int W = 8, kRegisters = 32;
  static Reg zero() { return _mm512_setzero_pd(); }
  static Reg load(const T* p) { return _mm512_load_pd(p); }
  static Reg loadu(const T* p) { return _mm512_loadu_pd(p); }
  static void storeu(T* p, Reg v) { _mm512_storeu_pd(p, v); }
  // The first n lanes (0 < n < W); masked lanes are neither read nor written.
  static Reg loadn(const T* p, int n) { return _mm512_maskz_loadu_pd(__mmask8((1u << n) - 1), p); }
  static void storen(T* p, int n, Reg v) { _mm512_mask_storeu_pd(p, __mmask8((1u << n) - 1), v); }
  static Reg broadcast(const T* p) { return _mm512_set1_pd(*p); }
  static Reg set1(T x) { return _mm512_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_pd(a, b); }
  static Reg add(Reg a, Reg b) { return _mm512_add_pd(a, b); }
  // b when either is NaN; zero-masked with every lane set (GCC 12's maybe-uninitialized)
  static Reg max(Reg a, Reg b) { return _mm512_maskz_max_pd(0xFF, a, b); }
};

}  // namespace

constexpr Isa kIsa = Isa::Avx512;
// 8x32 measured ahead of 12x32 on Zen 5 (1024^2, 2048^2 cold: 1.00-1.07x OpenBLAS against
// 0.90-0.96x) and pads M = 16 to whole tiles.
struct Sgemm : SimdKernel<VecF32, 8, 2> {
  static constexpr Isa kIsa = Isa::Avx512;
};
using SgemmSmallM = Sgemm;
struct Dgemm : SimdKernel<VecF64, 8, 2> {
  static constexpr Isa kIsa = Isa::Avx512;
};
using DgemmSmallM = Dgemm;
// Without VNNI (Skylake-X): the portable tile, vectorized with AVX-512.
struct Igemm : PortableKernel<std::int32_t, 8, 32> {
  static constexpr Isa kIsa = Isa::Avx512;
};

// With VNNI: an 8 x 32 i32 tile in 16 zmm accumulators; each packed word holds two
// consecutive K steps as i16, so one vpdpwssd per accumulator does two K steps exactly
// (|a * b| <= 2^14, and K < 2^17 keeps every partial sum in i32). Packed with pack_pairs
// (kKGroup = 2). The file is built without -mavx512vnni, so the tile carries the target and
// is only called after the run-time check (cpu_info().avx512_vnni).
struct IgemmVnni {
  using T = std::int32_t;
  static constexpr int kMR = 8, kNR = 32, kKGroup = 2;
  static constexpr Isa kIsa = Isa::Avx512;
  __attribute__((target("avx512vnni"), noinline)) static void tile(std::int64_t kw, const T* a,
                                                                   const T* b, const Epi<T>& e) {
    // a: (kw, 8) words, b: (kw, 32) words, 64-byte aligned. Named accumulators: with an array
    // GCC 12 copies every accumulator through another register each step.
    __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
            c70 = c00, c71 = c00;
    for (std::int64_t s = 0; s < kw; ++s, a += kMR, b += kNR) {
      const __m512i b0 = _mm512_load_si512(b), b1 = _mm512_load_si512(b + 16);
#define GEMMKIT_VNNI_ROW(i)                        \
  do {                                             \
    const __m512i x = _mm512_set1_epi32(a[i]);     \
    c##i##0 = _mm512_dpwssd_epi32(c##i##0, x, b0); \
    c##i##1 = _mm512_dpwssd_epi32(c##i##1, x, b1); \
  } while (0)
      GEMMKIT_VNNI_ROW(0);
      GEMMKIT_VNNI_ROW(1);
      GEMMKIT_VNNI_ROW(2);
      GEMMKIT_VNNI_ROW(3);
      GEMMKIT_VNNI_ROW(4);
      GEMMKIT_VNNI_ROW(5);
      GEMMKIT_VNNI_ROW(6);
      GEMMKIT_VNNI_ROW(7);
#undef GEMMKIT_VNNI_ROW
    }
    alignas(64) T tmp[kMR * kNR];
    const __m512i acc[kMR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                                 {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
    for (int i = 0; i < kMR; ++i) {
      _mm512_store_si512(tmp + i * kNR, acc[i][0]);
      _mm512_store_si512(tmp + i * kNR + 16, acc[i][1]);
    }
    store_tile(tmp, e);
  }

  // The write-back (built with the file's flags, outside the VNNI target): full unit-stride
  // tiles as D = round(alpha * acc + beta * C) in double, clamped to i32, 8 lanes at a time,
  // the scalar epilogue's arithmetic (nearest-even under the default rounding mode); other
  // tiles, and non-finite alpha or beta, through the scalar epilogue.
  static void store_tile(const T* tmp, const Epi<T>& e) {
    if (!e.fast || !std::isfinite(e.alpha) || !std::isfinite(e.beta))
      return epilogue_tile<kNR>(tmp, e);
    const __m512d alpha = _mm512_set1_pd(e.alpha), beta = _mm512_set1_pd(e.beta);
    const __m512d lo = _mm512_set1_pd(-2147483648.0), hi = _mm512_set1_pd(2147483647.0);
    // Zero-masked forms with every lane set: the plain ones start from an "undefined" register
    // that GCC 12 reports as maybe-uninitialized.
    constexpr __mmask8 kAll = 0xFF;
    for (int i = 0; i < kMR; ++i) {
      T* d = static_cast<T*>(e.d) + i * e.sd.row;
      const T* c = static_cast<const T*>(e.c) + i * e.sc.row;
      for (int h = 0; h < kNR; h += 8) {
        const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp + i * kNR + h));
        __m512d r = _mm512_mul_pd(alpha, _mm512_maskz_cvtepi32_pd(kAll, v));
        if (e.read_c) {
          const __m256i cv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + h));
          r = _mm512_add_pd(r, _mm512_mul_pd(beta, _mm512_maskz_cvtepi32_pd(kAll, cv)));
        }
        r = _mm512_maskz_min_pd(kAll, _mm512_maskz_max_pd(kAll, r, lo), hi);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + h), _mm512_maskz_cvtpd_epi32(kAll, r));
      }
    }
  }
};
constexpr bool kHasIgemmVnni = true;

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

#include "cpu/gemm_isa_entries.hpp"

const gemmkit::cpu::IsaKernels& gemmkit::cpu::avx512_kernels() { return kIsaKernels; }

// AVX2+FMA production kernels: sgemm 6x16 (12 ymm accumulators), dgemm 6x8, their 4-row
// small-M tiles 4x24 and 4x12, i8 -> i32 through the portable tile vectorized with AVX2. Reached
// only when cpu_info().avx2_fma.
#include <immintrin.h>

#include "cpu/block_table.hpp"
#include "cpu/microkernel_portable.hpp"
#include "cpu/microkernel_simd.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {
namespace {

struct VecF32 {
  using T = float;
  using Reg = __m256;
  static constexpr int W = 8, kRegisters = 16;
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg load(const T* p) { return _mm256_load_ps(p); }
  static Reg loadu(const T* p) { return _mm256_loadu_ps(p); }
  static void storeu(T* p, Reg v) { _mm256_storeu_ps(p, v); }
  // The first n lanes (0 < n < W); masked lanes are neither read nor written.
  static __m256i first(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Reg loadn(const T* p, int n) { return _mm256_maskload_ps(p, first(n)); }
  static void storen(T* p, int n, Reg v) { _mm256_maskstore_ps(p, first(n), v); }
  static Reg broadcast(const T* p) { return _mm256_broadcast_ss(p); }
  static Reg set1(T x) { return _mm256_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static Reg max(Reg a, Reg b) { return _mm256_max_ps(a, b); }  // b when either is NaN
  // bf16 / fp16 C and D (stored.hpp's rounding: nearest even, NaN kept quiet with its sign).
  static Reg load_bf16(const std::uint16_t* p) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  static Reg load_f16(const std::uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static void store_bf16(std::uint16_t* p, Reg v) {
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7FFF)));
    r = _mm256_srli_epi32(r, 16);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, quiet, nan);
    // Every lane is below 2^16: the unsigned-saturating pack keeps it as it is.
    const __m128i h = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h);
  }
  static void store_f16(std::uint16_t* p, Reg v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
};

struct VecF64 {
  using T = double;
  using Reg = __m256d;
  static constexpr int W = 4, kRegisters = 16;
  static Reg zero() { return _mm256_setzero_pd(); }
  static Reg load(const T* p) { return _mm256_load_pd(p); }
  static Reg loadu(const T* p) { return _mm256_loadu_pd(p); }
  static void storeu(T* p, Reg v) { _mm256_storeu_pd(p, v); }
  // The first n lanes (0 < n < W); masked lanes are neither read nor written.
  static __m256i first(int n) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static Reg loadn(const T* p, int n) { return _mm256_maskload_pd(p, first(n)); }
  static void storen(T* p, int n, Reg v) { _mm256_maskstore_pd(p, first(n), v); }
  static Reg broadcast(const T* p) { return _mm256_broadcast_sd(p); }
  static Reg set1(T x) { return _mm256_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_pd(a, b); }
  static Reg add(Reg a, Reg b) { return _mm256_add_pd(a, b); }
  static Reg max(Reg a, Reg b) { return _mm256_max_pd(a, b); }  // b when either is NaN
};

}  // namespace

constexpr Isa kIsa = Isa::Avx2;
struct Sgemm : SimdKernel<VecF32, 6, 2> {
  static constexpr Isa kIsa = Isa::Avx2;
};
struct Dgemm : SimdKernel<VecF64, 6, 2> {
  static constexpr Isa kIsa = Isa::Avx2;
};
// The small-M tiles, 4 rows of 3 vectors (12 accumulators), for a short side of 17..64 that 4
// divides better than 6 (tile_choice.hpp): 64 rows are 16 full tiles, where 6-row tiles leave
// a 4-row edge tile on every column panel.
struct SgemmSmallM : SimdKernel<VecF32, 4, 3> {
  static constexpr Isa kIsa = Isa::Avx2;
};
struct DgemmSmallM : SimdKernel<VecF64, 4, 3> {
  static constexpr Isa kIsa = Isa::Avx2;
};
struct Igemm : PortableKernel<std::int32_t, 4, 16> {
  static constexpr Isa kIsa = Isa::Avx2;
};
using IgemmVnni = Igemm;  // no VNNI kernel in this file
constexpr bool kHasIgemmVnni = false;

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

#include "cpu/gemm_isa_entries.hpp"

const gemmkit::cpu::IsaKernels& gemmkit::cpu::avx2_kernels() { return kIsaKernels; }

// AVX-512 production kernels: sgemm 8x32 (16 zmm accumulators), dgemm 8x16, i8 -> i32 through
// the portable tile vectorized with AVX-512. Reached only when cpu_info().avx512.
#include <immintrin.h>

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
  static Reg broadcast(const T* p) { return _mm512_set1_ps(*p); }
  static Reg set1(T x) { return _mm512_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
};

struct VecF64 {
  using T = double;
  using Reg = __m512d;
  static constexpr int W = 8, kRegisters = 32;
  static Reg zero() { return _mm512_setzero_pd(); }
  static Reg load(const T* p) { return _mm512_load_pd(p); }
  static Reg loadu(const T* p) { return _mm512_loadu_pd(p); }
  static void storeu(T* p, Reg v) { _mm512_storeu_pd(p, v); }
  static Reg broadcast(const T* p) { return _mm512_set1_pd(*p); }
  static Reg set1(T x) { return _mm512_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_pd(a, b); }
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
struct Igemm : PortableKernel<std::int32_t, 4, 32> {
  static constexpr Isa kIsa = Isa::Avx512;
};

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

#include "cpu/gemm_isa_entries.hpp"

const gemmkit::cpu::IsaKernels& gemmkit::cpu::avx512_kernels() { return kIsaKernels; }

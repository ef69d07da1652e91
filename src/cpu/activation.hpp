// The activations of the f32 write-back, in plain float arithmetic that the compiler turns into
// vector code (no libm call inside the loop): core::activate is the spec (fp64, std::erf /
// std::tanh / std::exp); these agree with it to about 1e-7 * max(1, |x|), inside the testbed's
// gauge bound. One exp serves all three:
//   exp(x)      2^n * p(r), x = n ln2 + r, |r| <= ln2 / 2, p the degree-7 Taylor polynomial
//               (truncation 1e-9 relative), x clamped to [-87, 88] (no overflow, no subnormal);
//   GELU erf    0.5 x (1 + erf(x / sqrt 2)) with erfc from Abramowitz & Stegun 7.1.26
//               (|error| <= 1.5e-7): for x < 0 the factor is erfc(|z|) itself, no cancellation;
//   GELU tanh   0.5 x (1 + tanh u) = x / (1 + exp(-2u)), u = sqrt(2 / pi) (x + 0.044715 x^3);
//   SiLU        x / (1 + exp(-x)).
// +Inf gives +Inf, -Inf gives 0, NaN gives NaN, as in core::activate.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/epilogue_ref.hpp"
#include "cpu/isa_namespace.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

inline float exp_f32(float x) {
  // Both comparisons unconditional: a conditional (signalling) one keeps GCC from vectorizing
  // under the default -ftrapping-math.
  const bool below = x<-87.0f, above = x> 88.0f;
  x = below ? -87.0f : x;
  x = above ? 88.0f : x;
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (x * 1.44269504088896341f + kShift) - kShift;
  const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723e-6f;  // ln2 hi + lo
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;  // 2^n, n in [-126, 127]
  float scale;
  std::memcpy(&scale, &bits, 4);
  return p * scale;
}

template <Activation A>
inline float activate_f32(float x) {
  float r;
  if constexpr (A == Activation::Relu) {
    return 0.0f > x ? 0.0f : x;
  } else if constexpr (A == Activation::GeluErf) {
    const float z = std::fabs(x) * 0.70710678118654752f;
    const float t = 1.0f / (1.0f + 0.3275911f * z);
    float q = 1.061405429f;
    q = q * t - 1.453152027f;
    q = q * t + 1.421413741f;
    q = q * t - 0.284496736f;
    q = q * t + 0.254829592f;
    q = q * t * exp_f32(-z * z);         // erfc(|z|)
    const float two_minus_q = 2.0f - q;  // computed before the select: a select of two values
    r = 0.5f * x * (x < 0.0f ? q : two_minus_q);  // vectorizes without -fno-trapping-math
  } else if constexpr (A == Activation::GeluTanh) {
    const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    r = x / (1.0f + exp_f32(-2.0f * u));
  } else if constexpr (A == Activation::Silu) {
    r = x / (1.0f + exp_f32(-x));
  } else {
    return x;
  }
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const bool nan = x != x, pos_inf = x == kInf, neg_inf = x == -kInf;
  r = neg_inf ? 0.0f : r;
  return (nan | pos_inf) ? x : r;
}

// act over n contiguous floats, in place. GCC 12 vectorizes this loop with AVX-512 (its masks
// if-convert the selects) but leaves it scalar with AVX2 under the default -ftrapping-math
// ("control flow in loop"); it vectorizes with -fno-trapping-math.
template <Activation A>
inline void activate_f32_n(float* v, int n) {
#if defined(_OPENMP)  // the library is built with OpenMP; a test including this may not be
#pragma omp simd
#endif
  for (int i = 0; i < n; ++i) v[i] = activate_f32<A>(v[i]);
}

// Calls f(std::integral_constant<Activation, a>{}) for the run-time `a`.
template <class F>
inline void with_activation(Activation a, F&& f) {
  using A = Activation;
  switch (a) {
    case A::Relu:
      return f(std::integral_constant<A, A::Relu>{});
    case A::GeluErf:
      return f(std::integral_constant<A, A::GeluErf>{});
    case A::GeluTanh:
      return f(std::integral_constant<A, A::GeluTanh>{});
    case A::Silu:
      return f(std::integral_constant<A, A::Silu>{});
    default:
      return f(std::integral_constant<A, A::None>{});
  }
}

// act(x) in the write-back's type: the float forms above for f32, core::activate's own
// expressions for f64.
template <class T>
inline T activate_as(Activation a, T x) {
  if constexpr (std::is_same_v<T, float>) {
    float r = x;
    with_activation(a, [&](auto k) { r = activate_f32<decltype(k)::value>(x); });
    return r;
  } else {
    return core::activate(a, x);
  }
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu

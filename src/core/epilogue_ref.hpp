// The fused epilogue's meaning (gemm.hpp's EpilogueDesc): D = act(alpha * acc + bias + beta * C).
// The activations are written once, for any floating type F: in double they are the spec (the
// fp64 reference below); the CPU write-back evaluates the same expressions in its accumulate
// type. Every form maps +Inf to +Inf, -Inf to 0 (the limits, where the formulas would give NaN)
// and NaN to NaN; ReLU is max(0, x) as x86's maxps(0, x) computes it (NaN -> NaN, -0 -> -0).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/element.hpp"
#include "core/reference.hpp"
#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::core {

template <class F>
inline F activate(Activation a, F x) {
  if (a == Activation::None) return x;
  if (a == Activation::Relu) return F(0) > x ? F(0) : x;
  if (std::isinf(x)) return x > F(0) ? x : F(0);
  switch (a) {
    case Activation::GeluErf:
      return F(0.5) * x * (F(1) + std::erf(x * F(0.70710678118654752440)));
    case Activation::GeluTanh: {
      const F u = F(0.79788456080286535588) * (x + F(0.044715) * x * x * x);
      return F(0.5) * x * (F(1) + std::tanh(u));
    }
    case Activation::Silu:
      return x / (F(1) + std::exp(-x));
    default:
      return x;
  }
}

// max |act'(x)|: how much an error before the activation can grow through it (GELU's slope
// peaks at 1.129 near x = 1.5 in both forms, SiLU's at 1.0998 near x = 2.4).
inline double activation_slope_bound(Activation a) {
  return a == Activation::None || a == Activation::Relu ? 1.0 : 1.13;
}

// reference_visit with the epilogue applied: value = act(alpha * acc * sa_i * sb_j + beta * c
// + bias) in double, gauge = slope * (|alpha sa_i sb_j| sum |a b| + |beta c| + |bias|), so the
// testbed's gauge bound holds through the activation. The product comes from reference_visit
// with beta = 0 (C unread there), C is added here; scales are read only with A and B (alpha !=
// 0, K > 0), the bias only when EpilogueDesc::bias != None. Block scales are reference_visit's
// (they scale the elements inside the sum). With EpilogueDesc::scale_d the value visited is
// v * s_d (the gauge too), and `amax` (when not null) receives max |v| over every element of
// every batch entry, v before s_d (NaN when any v is NaN; 0 for an empty D).
template <class Visit>
void reference_visit_epilogue(const GemmDesc& d, const GemmArgs& args, bool want_gauge,
                              Visit&& visit, double* amax = nullptr) {
  const EpilogueDesc& e = d.epilogue;
  const double slope = activation_slope_bound(e.act);
  const bool use_ab = args.alpha != 0.0 && d.k > 0, use_c = args.beta != 0.0;
  const ProblemView v = make_view(d);
  GemmArgs product = args;
  product.beta = 0.0;
  const double sd = e.scale_d ? double(*args.scale_d) : 1.0;
  if (amax) *amax = 0.0;
  auto scale = [&](const ScaleDesc& s, const void* p, std::int64_t i) {
    if (!use_ab || s.mode == ScaleMode::None || varies_along_k(s.mode)) return 1.0;
    return double(static_cast<const float*>(p)[s.mode == ScaleMode::Tensor ? 0 : i]);
  };
  reference_visit(
      d, product, want_gauge,
      [&](std::int64_t l, std::int64_t i, std::int64_t j, double out, double gauge) {
        const double s = scale(d.scale_a, args.scale_a, i) * scale(d.scale_b, args.scale_b, j);
        out *= s;
        gauge *= std::fabs(s);
        if (use_c) {
          const double c =
              load_element(d.c.dtype, args.c, l * d.c.batch_stride + i * v.c.row + j * v.c.col);
          out = use_ab ? out + args.beta * c : args.beta * c;  // keeps -0 when alpha == 0
          gauge += std::fabs(args.beta * c);
        }
        double b = 0.0;
        if (e.bias != BiasMode::None) {
          b = load_element(e.bias_dtype, args.bias, e.bias == BiasMode::Row ? i : j);
          out += b;
        }
        const double value = activate(e.act, out);
        if (amax && !std::isnan(*amax))
          *amax = std::isnan(value) ? value : std::max(*amax, std::fabs(value));
        visit(l, i, j, value * sd, slope * (gauge + std::fabs(b)) * std::fabs(sd));
      });
}

// Writes the rounded reference result, epilogue included, into args.d (host pointers).
void reference_gemm_epilogue(const GemmDesc& d, const GemmArgs& args);

}  // namespace gemmkit::core

// The fp64 host reference GEMM: the semantic spec of gemmkit. Every kernel is judged
// against it. BLAS semantics exactly:
//   - M == 0, N == 0 or batch == 0: nothing is read or written;
//   - beta == 0: C is never read (NaN in C does not propagate);
//   - alpha == 0 or K == 0: A and B are never read, D = beta * C;
//   - otherwise IEEE arithmetic in double (Inf * 0 = NaN propagates), then one rounding to D.
// Inputs are read through load_element (every dtype), products summed in double. Block and
// group scales (ScaleMode::Block1x128, Block128x128, Group) dequantize each element where it
// is read: x = A(i, p) * sa(i, p), y = (B(p, j) - z(p, j)) * sb(p, j) in double; the scales
// that do not vary along K (tensor, row, column) are applied by reference_visit_epilogue.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/element.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::core {

// Calls visit(batch, i, j, value, gauge) for every element of D, where value is the exact-ish
// double result before rounding to D's dtype and gauge = |alpha| sum_p |a_ip b_pj| + |beta c_ij|
// (computed only when want_gauge). Expects a validated descriptor with defaulted lds.
template <class Visit>
void reference_visit(const GemmDesc& d, const GemmArgs& args, bool want_gauge, Visit&& visit) {
  if (is_empty(d)) return;
  const ProblemView v = make_view(d);
  const bool use_ab = args.alpha != 0.0 && d.k > 0;
  const bool use_c = args.beta != 0.0;
  const KScale bsa = k_scale(d, args.scale_a, nullptr, true);
  const KScale bsb = k_scale(d, args.scale_b, args.zero_b, false);
  for (std::int64_t l = 0; l < d.batch; ++l) {
    const std::int64_t oa = l * d.a.batch_stride, ob = l * d.b.batch_stride;
    const std::int64_t oc = l * d.c.batch_stride;
    for (std::int64_t j = 0; j < d.n; ++j) {
      for (std::int64_t i = 0; i < d.m; ++i) {
        double acc = 0.0, gauge = 0.0;
        if (use_ab) {
          for (std::int64_t p = 0; p < d.k; ++p) {
            double x = load_element(d.a.dtype, args.a, oa + i * v.a.row + p * v.a.col);
            double y = load_element(d.b.dtype, args.b, ob + p * v.b.row + j * v.b.col);
            if (bsa.base) x = bsa.dequant(x, i, p);
            if (bsb.base) y = bsb.dequant(y, j, p);
            acc += x * y;
            if (want_gauge) gauge += std::fabs(x * y);
          }
        }
        double out = use_ab ? args.alpha * acc : 0.0;
        gauge *= std::fabs(args.alpha);
        if (use_c) {
          const double c = load_element(d.c.dtype, args.c, oc + i * v.c.row + j * v.c.col);
          out = use_ab ? out + args.beta * c : args.beta * c;  // keeps -0 when alpha == 0
          gauge += std::fabs(args.beta * c);
        }
        visit(l, i, j, out, gauge);
      }
    }
  }
}

// Writes the rounded reference result into args.d (host pointers).
void reference_gemm(const GemmDesc& d, const GemmArgs& args);

}  // namespace gemmkit::core

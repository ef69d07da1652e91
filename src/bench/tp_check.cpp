// The tensor-parallel bench's verification (tp_check.hpp).
#include "bench/tp_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/testbed.hpp"
#include "core/element.hpp"

namespace gemmkit::bench {

double tp_element_bound(const TpBound& b, double ref, double gauge) {
  const double u_out = unit_roundoff(b.dtype_d), u_acc = unit_roundoff(DType::F32);
  const double p = b.gpus;
  return 2 * u_out * std::fabs(ref) + (b.row ? p * u_out * gauge : 0.0) +
         2 * (static_cast<double>(b.k) + p + 2) * u_acc * gauge;
}

double tp_frobenius_bound(const TpBound& b) {
  return 4 * (b.gpus + 1) * unit_roundoff(b.dtype_d) + 1e-4;
}

TpCheck tp_compare(const TpBound& b, const void* got, std::int64_t rows, std::int64_t cols,
                   std::int64_t row0, std::int64_t col0, const void* ref, const float* gauge,
                   std::int64_t ld) {
  TpCheck c;
  double err2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t w = (row0 + i) * ld + col0 + j;
      const double x = core::load_element(b.dtype_d, got, i * cols + j);
      const double y = core::load_element(b.dtype_d, ref, w);
      const double bound = tp_element_bound(b, y, gauge[w]);
      const double err = std::fabs(x - y);
      ++c.checked;
      err2 += (x - y) * (x - y);
      ref2 += y * y;
      const bool bad = !std::isfinite(x) || !(err <= bound);
      if (bound > 0 && std::isfinite(err))
        c.max_err_over_bound = std::max(c.max_err_over_bound, err / bound);
      if (!bad) continue;
      if (c.mismatches++ == 0) {
        char s[160];
        std::snprintf(s, sizeof s, "D(%lld,%lld): got %.9g, want %.9g (bound %.3g)",
                      static_cast<long long>(row0 + i), static_cast<long long>(col0 + j), x, y,
                      bound);
        c.first_failure = s;
      }
      c.max_err_over_bound = std::isfinite(err) ? c.max_err_over_bound : INFINITY;
    }
  c.rel_frobenius = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  c.passed = c.mismatches == 0 && std::isfinite(c.rel_frobenius) &&
             c.rel_frobenius <= tp_frobenius_bound(b);
  if (c.mismatches == 0 && !c.passed) {
    char s[160];
    std::snprintf(s, sizeof s, "relative Frobenius error %.3g above %.3g", c.rel_frobenius,
                  tp_frobenius_bound(b));
    c.first_failure = s;
  }
  return c;
}

void merge_check(TpCheck* into, const TpCheck& b, const std::string& tag) {
  if (into->passed && !b.passed) into->first_failure = tag + ": " + b.first_failure;
  into->passed = into->passed && b.passed;
  into->checked += b.checked;
  into->mismatches += b.mismatches;
  into->max_err_over_bound = std::max(into->max_err_over_bound, b.max_err_over_bound);
  into->rel_frobenius = std::max(into->rel_frobenius, b.rel_frobenius);
}

}  // namespace gemmkit::bench

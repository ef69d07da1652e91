// Integer weights with group scales (gemmkit/quantize.hpp's quantize_weights): the w8a16 / w4a16
// operands gemm() consumes, w = (q - z) * s per group of K. Two passes over op(B): each group's
// range and its stored scale (and zero point), then the rounded, clamped integers. Nothing is
// written before every scale is known to fit its dtype.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/element.hpp"
#include "core/quantize_view.hpp"
#include "core/status.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"
#include "gemmkit/quantize.hpp"

namespace gemmkit {
namespace {

// The smallest value of `t` (f32, f16, bf16) at or above s > 0: s rounded to nearest, then one
// code up when that fell below (the codes of positive values increase with the value).
double stored_at_least(DType t, double s) {
  std::uint8_t buf[4] = {};
  core::store_element(t, buf, 0, s);
  if (core::load_element(t, buf, 0) < s) {
    if (t == DType::F32) {
      float f;
      std::memcpy(&f, buf, 4);
      f = std::nextafter(f, HUGE_VALF);
      std::memcpy(buf, &f, 4);
    } else {
      std::uint16_t h;
      std::memcpy(&h, buf, 2);
      ++h;
      std::memcpy(buf, &h, 2);
    }
  }
  return core::load_element(t, buf, 0);
}

}  // namespace

Status quantize_weights(const GemmDesc& desc_in, const MatrixDesc& src_desc, const void* src,
                        void* dst, void* scales, void* zeros) {
  const GemmDesc d = with_default_lds(desc_in);
  if (Status s = core::validate_desc(d); !s) return s;
  const ScaleDesc& sd = d.scale_b;
  const bool i4 = d.b.dtype == DType::I4;
  if (!i4 && d.b.dtype != DType::I8)
    return GEMMKIT_INVALID(Arg::DTypeB, "quantize_weights writes i8 or i4 weights B");
  if (sd.mode != ScaleMode::Group)
    return GEMMKIT_INVALID(Arg::ScaleB, "quantize_weights writes group scales (scale_b Group)");
  core::QuantizeView qv;
  if (Status s = core::quantize_view(d, false, src_desc, "quantize_weights", &qv); !s) return s;
  const std::int64_t n = qv.rows;
  if (n == 0 || d.k == 0) return {};
  if (src == nullptr || dst == nullptr)
    return GEMMKIT_INVALID(Arg::B, "the source or the destination is null");
  if (scales == nullptr) return GEMMKIT_INVALID(Arg::ScaleB, "scales is null");
  if (sd.zero_points && zeros == nullptr)
    return GEMMKIT_INVALID(Arg::ScaleB, "zeros is null and scale_b.zero_points is set");

  // Group (j, p / group) of op(B)^T lives at ks.index(j, p) of S and of Z.
  const core::KScale ks = core::k_scale(d, scales, zeros, false);
  const auto groups = static_cast<std::size_t>(ks.index(n - 1, d.k - 1) + 1);
  auto load = [&](std::int64_t j, std::int64_t p) {
    return core::load_element(qv.source.dtype, src, j * qv.src.row + p * qv.src.col);
  };
  std::vector<double> lo(groups, 0.0), hi(groups, 0.0);  // 0 included: it stays exact
  for (std::int64_t p = 0; p < d.k; ++p)
    for (std::int64_t j = 0; j < n; ++j) {
      const double x = load(j, p);
      if (!std::isfinite(x))
        return GEMMKIT_INVALID(Arg::B, "quantize_weights: op(B)(" + std::to_string(p) + ", " +
                                           std::to_string(j) +
                                           ") is NaN or Inf, which integers cannot hold");
      const auto g = static_cast<std::size_t>(ks.index(j, p));
      lo[g] = std::min(lo[g], x), hi[g] = std::max(hi[g], x);
    }

  // s (stored, never below the exact quotient) and z per group.
  const double qmax = i4 ? 7 : 127, qmin = i4 ? -8 : -128;
  std::vector<double> s(groups, 1.0), z(groups, sd.zero_points ? qmin : 0.0);
  for (std::size_t g = 0; g < groups; ++g) {
    const double exact =
        sd.zero_points ? (hi[g] - lo[g]) / (qmax - qmin) : std::max(-lo[g], hi[g]) / qmax;
    if (exact == 0.0) continue;  // a group of zeros (or a gap of ld): s = 1
    s[g] = stored_at_least(sd.dtype, exact);
    if (!std::isfinite(s[g]))
      return GEMMKIT_INVALID(Arg::ScaleB, "quantize_weights: a group scale of " +
                                              std::to_string(exact) + " overflows scale_b.dtype " +
                                              std::string(dtype_name(sd.dtype)));
    if (sd.zero_points) z[g] = qmin - std::nearbyint(lo[g] / s[g]);  // in [qmin, qmax]
  }

  for (std::int64_t p = 0; p < d.k; ++p)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t g = ks.index(j, p);
      const double q = std::nearbyint(load(j, p) / s[g]) + z[g];
      core::store_element(d.b.dtype, dst, j * qv.dst.row + p * qv.dst.col,
                          std::clamp(q, qmin, qmax));
      core::store_element(sd.dtype, scales, g, s[g]);  // exact: s[g] is a value of the dtype
      if (sd.zero_points) core::store_element(sd.dtype, zeros, g, z[g]);  // a small integer
    }
  return {};
}

}  // namespace gemmkit

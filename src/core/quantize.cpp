// fp8 and fp4 quantization from the amax (gemmkit/quantize.hpp): two passes over op(X), the amax
// of every scale group, then the scaled, saturating conversion. The spec of what gemm() computes
// with the result is the fp64 reference; this only chooses scales that fill the format.
#include "gemmkit/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/element.hpp"
#include "core/quantize_view.hpp"
#include "core/status.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"
#include "gemmkit/convert.hpp"

namespace gemmkit {
namespace {

// The element formats: the largest finite value, the exponent of the largest binade (the OCP MX
// emax of the element), and whether a NaN has a code.
struct Format {
  double fmax;
  int emax;
  bool has_nan;
};
Format format_of(DType t) {
  if (t == DType::E5M2) return {57344.0, 15, true};
  if (t == DType::E2M1) return {6.0, 2, false};
  return {448.0, 8, true};  // e4m3
}

Status quantize_float(const GemmDesc& desc_in, Arg operand, const MatrixDesc& src_desc,
                      const void* src, void* dst, void* scales, bool fp4) {
  const GemmDesc d = with_default_lds(desc_in);
  if (Status s = core::validate_desc(d); !s) return s;
  const bool is_a = operand == Arg::A;
  if (!is_a && operand != Arg::B)
    return GEMMKIT_INVALID(Arg::None, "operand must be Arg::A or Arg::B");
  const MatrixDesc& m = is_a ? d.a : d.b;
  const ScaleDesc& sd = is_a ? d.scale_a : d.scale_b;
  const Arg dtype_arg = is_a ? Arg::DTypeA : Arg::DTypeB;
  const char* name = fp4 ? "quantize_fp4" : "quantize_fp8";
  if (fp4 ? m.dtype != DType::E2M1 : m.dtype != DType::E4M3 && m.dtype != DType::E5M2)
    return GEMMKIT_INVALID(dtype_arg, std::string(name) + (fp4 ? " writes e2m1 operands"
                                                               : " writes e4m3 or e5m2 operands"));
  core::QuantizeView qv;
  if (Status st = core::quantize_view(d, is_a, src_desc, name, &qv); !st) return st;
  const MatrixDesc& s = qv.source;
  const std::int64_t rows = qv.rows;
  if (rows == 0 || d.k == 0) return {};
  if (src == nullptr || dst == nullptr)
    return GEMMKIT_INVALID(operand, "the source or the destination is null");
  if (sd.mode != ScaleMode::None && scales == nullptr)
    return GEMMKIT_INVALID(is_a ? Arg::ScaleA : Arg::ScaleB, "scales is null");

  // Element (r, p) of op(X) in the source and the destination, and its scale's index.
  using core::Strides;
  const Strides vs = qv.src, vd = qv.dst;
  const core::KScale bs = core::k_scale(d, scales, nullptr, is_a);
  auto scale_index = [&](std::int64_t r, std::int64_t p) -> std::int64_t {
    if (core::varies_along_k(sd.mode)) return bs.index(r, p);
    return sd.mode == ScaleMode::Row || sd.mode == ScaleMode::Column ? r : 0;
  };
  std::int64_t groups = 1;
  if (sd.mode == ScaleMode::Row || sd.mode == ScaleMode::Column) groups = rows;
  if (core::varies_along_k(sd.mode)) groups = scale_index(rows - 1, d.k - 1) + 1;

  const Format f = format_of(m.dtype);
  std::vector<double> amax(static_cast<std::size_t>(groups), 0.0);
  std::vector<char> inf(static_cast<std::size_t>(groups), 0), nan(inf);  // holds an Inf, a NaN
  for (std::int64_t p = 0; p < d.k; ++p)
    for (std::int64_t r = 0; r < rows; ++r) {
      const double x = core::load_element(s.dtype, src, r * vs.row + p * vs.col);
      const auto g = static_cast<std::size_t>(scale_index(r, p));
      if (std::isinf(x)) inf[g] = 1;
      if (std::isnan(x)) nan[g] = 1;
      if (std::isfinite(x)) amax[g] = std::max(amax[g], std::fabs(x));
    }
  // A NaN the element cannot hold needs a scale to carry it (quantize.hpp).
  if (!f.has_nan && sd.mode == ScaleMode::None && std::find(nan.begin(), nan.end(), 1) != nan.end())
    return GEMMKIT_INVALID(operand, std::string(name) +
                                        ": a NaN in the source, and e2m1 has no NaN and "
                                        "ScaleMode::None no scale to carry it");
  const bool mx = sd.mode == ScaleMode::Mx;
  std::vector<float> scale(static_cast<std::size_t>(groups), 1.0f);
  for (std::size_t g = 0; g < scale.size(); ++g) {
    if (nan[g] && !f.has_nan) {
      scale[g] = std::numeric_limits<float>::quiet_NaN();  // e8m0 0xFF for MX
    } else if (amax[g] > 0.0 && !inf[g]) {
      if (mx) {
        // OCP MX: X = 2^(floor(log2 amax) - emax of the element format), e8m0's range.
        const int e = std::clamp(std::ilogb(amax[g]) - f.emax, -127, 127);
        scale[g] = std::ldexp(1.0f, e);
        continue;
      }
      const auto v = static_cast<float>(amax[g] / f.fmax);
      if (v > 0.0f && std::isfinite(v)) scale[g] = v;  // a subnormal amax can underflow: 1
    }
  }
  for (std::int64_t p = 0; p < d.k; ++p)
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto g = static_cast<std::size_t>(scale_index(r, p));
      const double x = core::load_element(s.dtype, src, r * vs.row + p * vs.col) / scale[g];
      const std::int64_t at = r * vd.row + p * vd.col;
      if (fp4)
        e2m1_set(dst, at, to_e2m1(x));  // saturating: past 6 gives 6; NaN gives 0
      else
        static_cast<std::uint8_t*>(dst)[at] =
            m.dtype == DType::E5M2 ? to_e5m2(x, true) : to_e4m3(x, true);
      if (mx)
        static_cast<std::uint8_t*>(scales)[g] = to_e8m0(scale[g]);  // exact: a power of two
      else if (sd.mode != ScaleMode::None)
        static_cast<float*>(scales)[g] = scale[g];
    }
  return {};
}

}  // namespace

Status quantize_fp8(const GemmDesc& desc, Arg operand, const MatrixDesc& src_desc, const void* src,
                    void* dst, void* scales) {
  return quantize_float(desc, operand, src_desc, src, dst, scales, false);
}

Status quantize_fp4(const GemmDesc& desc, Arg operand, const MatrixDesc& src_desc, const void* src,
                    void* dst, void* scales) {
  return quantize_float(desc, operand, src_desc, src, dst, scales, true);
}

}  // namespace gemmkit

// fp8 quantization from the amax (gemmkit/quantize.hpp): two passes over op(X), the amax of
// every scale group, then the scaled, saturating conversion. The spec of what gemm() computes
// with the result is the fp64 reference; this only chooses scales that fill the format.
#include "gemmkit/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/element.hpp"
#include "core/status.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"
#include "gemmkit/convert.hpp"

namespace gemmkit {

Status quantize_fp8(const GemmDesc& desc_in, Arg operand, const MatrixDesc& src_desc,
                    const void* src, void* dst, void* scales) {
  const GemmDesc d = with_default_lds(desc_in);
  if (Status s = core::validate_desc(d); !s) return s;
  const bool is_a = operand == Arg::A;
  if (!is_a && operand != Arg::B)
    return GEMMKIT_INVALID(Arg::None, "operand must be Arg::A or Arg::B");
  const MatrixDesc& m = is_a ? d.a : d.b;
  const ScaleDesc& sd = is_a ? d.scale_a : d.scale_b;
  const Arg dtype_arg = is_a ? Arg::DTypeA : Arg::DTypeB;
  if (m.dtype != DType::E4M3 && m.dtype != DType::E5M2)
    return GEMMKIT_INVALID(dtype_arg, "quantize_fp8 writes e4m3 or e5m2 operands");
  if (src_desc.dtype != DType::F32 && src_desc.dtype != DType::BF16 && src_desc.dtype != DType::F16)
    return GEMMKIT_INVALID(operand, "the source of quantize_fp8 must be f32, bf16 or f16");
  const Extent e = is_a ? stored_extent_a(d) : stored_extent_b(d);
  const std::int64_t rows = is_a ? d.m : d.n;  // r: M of op(A) or N of op(B); p: K
  MatrixDesc s = src_desc;
  if (s.ld == 0) s.ld = core::min_ld(s.layout, e);
  if (s.layout != Layout::RowMajor && s.layout != Layout::ColMajor)
    return GEMMKIT_INVALID(Arg::Layout, "the source layout is not row/col");
  if (s.ld < core::min_ld(s.layout, e))
    return GEMMKIT_INVALID(is_a ? Arg::Lda : Arg::Ldb, "the source's ld is below its rows/cols");
  if (rows == 0 || d.k == 0) return {};
  if (src == nullptr || dst == nullptr)
    return GEMMKIT_INVALID(operand, "the source or the destination is null");
  if (sd.mode != ScaleMode::None && scales == nullptr)
    return GEMMKIT_INVALID(is_a ? Arg::ScaleA : Arg::ScaleB, "scales is null");

  // Element (r, p) of op(X) in the source and the destination, and its scale's index.
  const Op t = is_a ? d.trans_a : d.trans_b;
  using core::Strides;
  auto view = [&](Strides st) {  // strides of (r, p): op(A) as is, op(B) transposed
    const core::Strides o = core::op_strides(st, t);
    return is_a ? o : core::Strides{o.col, o.row};
  };
  const Strides vs = view(core::stored_strides(s.layout, s.ld));
  const Strides vd = view(core::stored_strides(m.layout, m.ld));
  const core::KScale bs = core::k_scale(d, scales, nullptr, is_a);
  auto scale_index = [&](std::int64_t r, std::int64_t p) -> std::int64_t {
    if (core::varies_along_k(sd.mode)) return bs.index(r, p);
    return sd.mode == ScaleMode::Row || sd.mode == ScaleMode::Column ? r : 0;
  };
  std::int64_t groups = 1;
  if (sd.mode == ScaleMode::Row || sd.mode == ScaleMode::Column) groups = rows;
  if (core::varies_along_k(sd.mode)) groups = scale_index(rows - 1, d.k - 1) + 1;

  const bool e5m2 = m.dtype == DType::E5M2;
  std::vector<double> amax(static_cast<std::size_t>(groups), 0.0);
  std::vector<char> bad(static_cast<std::size_t>(groups), 0);  // holds an Inf
  for (std::int64_t p = 0; p < d.k; ++p)
    for (std::int64_t r = 0; r < rows; ++r) {
      const double x = core::load_element(s.dtype, src, r * vs.row + p * vs.col);
      const auto g = static_cast<std::size_t>(scale_index(r, p));
      if (std::isinf(x)) bad[g] = 1;
      if (std::isfinite(x)) amax[g] = std::max(amax[g], std::fabs(x));
    }
  const double fmax = e5m2 ? 57344.0 : 448.0;
  const bool mx = sd.mode == ScaleMode::Mx;
  std::vector<float> scale(static_cast<std::size_t>(groups), 1.0f);
  for (std::size_t g = 0; g < scale.size(); ++g)
    if (amax[g] > 0.0 && !bad[g]) {
      if (mx) {
        // OCP MX: X = 2^(floor(log2 amax) - emax of the element format), e8m0's range.
        const int emax = e5m2 ? 15 : 8;
        const int e = std::clamp(std::ilogb(amax[g]) - emax, -127, 127);
        scale[g] = std::ldexp(1.0f, e);
        continue;
      }
      const auto v = static_cast<float>(amax[g] / fmax);
      if (v > 0.0f && std::isfinite(v)) scale[g] = v;  // a subnormal amax can underflow: 1
    }
  for (std::int64_t p = 0; p < d.k; ++p)
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto g = static_cast<std::size_t>(scale_index(r, p));
      const double x = core::load_element(s.dtype, src, r * vs.row + p * vs.col) / scale[g];
      static_cast<std::uint8_t*>(dst)[r * vd.row + p * vd.col] =
          e5m2 ? to_e5m2(x, true) : to_e4m3(x, true);
      if (mx)
        static_cast<std::uint8_t*>(scales)[g] = to_e8m0(scale[g]);  // exact: a power of two
      else if (sd.mode != ScaleMode::None)
        static_cast<float*>(scales)[g] = scale[g];
    }
  return {};
}

}  // namespace gemmkit
